"""Extract A Year at Hogwarts' data from ``shared/rules/hogwarts-data.md`` into the package's JSON file.

The file is ``p2php/games/hogwarts/hogwarts_data.json``.

A dev script, not part of the package: the game ships the JSON this writes and never reads the markdown.
The document's machine-readable parts are its fenced ``text`` blocks (first line ``# columns: ...``, fields
split on `` | ``) and its markdown tables (split on ``|``); a handful of facts the document states only in
prose but the game needs (the §1.9 movement examples, the §5.1 default formation, the §5.3 token split) are
read with one anchored pattern each, and a pattern that stops matching stops the extraction.

What becomes of the source: backticks are dropped from identifiers; ``-`` means empty; list fields become
lists; numbers become ints; effects and abilities (``damage(2); cancel_next``) become lists of terms, kept as
written (the engine interprets them); ``4/2/2`` start cards become ``{"spell": 4, "potion": 2, "book": 2}``;
a mission's "qualified extra" cards become ``{"card": id}`` or ``{"deck": ..., "use": ...}``; §1.7's effect
texts keep their words and also get ``take`` (``[[deck, count], ...]``), ``exam`` and ``action_draws``.
Ids and labels are the source's: they are the game's identifiers.

The output is deterministic (``sort_keys``, records in the document's order, UTF-8, final newline);
``--check`` says whether the committed file is what the document gives (``tests/test_hogwarts_data.py``
runs the same comparison).

Usage: ``python tools/extract_hogwarts_data.py [--source FILE] [--out FILE] [--check]``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT.parent / "shared" / "rules" / "hogwarts-data.md"
OUT = ROOT / "p2php" / "games" / "hogwarts" / "hogwarts_data.json"

Row = dict[str, str]


class ExtractError(Exception):
    """The document is not what this script knows how to read; nothing is written."""


# ----------------------------------------------------------------------------- the document's shapes

def sections(text: str) -> dict[str, str]:
    """Each ``##``/``###`` section's body by its number (``"1.3"``, ``"2"``), up to the next heading."""
    found: dict[str, str] = {}
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.MULTILINE)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        match = re.match(r"#{2,3} (\d+(?:\.\d+)?)\.? ", heading)
        if match:
            found[match.group(1)] = body
    return found


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def tables(body: str) -> list[list[Row]]:
    """Every markdown table of a section, as rows keyed by header; total rows (``**total**``) left out."""
    found: list[list[Row]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|[-| :]+\|", lines[i + 1].strip()):
            header = _cells(lines[i])
            rows: list[Row] = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                values = _cells(lines[i])
                if len(values) != len(header):
                    raise ExtractError(f"table row has {len(values)} fields, header {len(header)}: {lines[i]!r}")
                if not any("**total**" in v or "**all**" in v for v in values):
                    rows.append(dict(zip(header, values, strict=True)))
                i += 1
            found.append(rows)
        else:
            i += 1
    return found


def table(body: str, where: str, index: int = 0) -> list[Row]:
    found = tables(body)
    if len(found) <= index:
        raise ExtractError(f"§{where}: expected a table number {index + 1}, found {len(found)}")
    return found[index]


def text_blocks(body: str, where: str) -> list[Row]:
    """The records of a section's fenced ``text`` block(s) with a ``# columns:`` line."""
    rows: list[Row] = []
    for block in re.findall(r"```text\n(.*?)```", body, flags=re.DOTALL):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines or not lines[0].startswith("# columns:"):
            raise ExtractError(f"§{where}: a text block without a '# columns:' line")
        header = [c.strip() for c in lines[0][len("# columns:"):].split(" | ")]
        for line in lines[1:]:
            values = [v.strip() for v in line.split(" | ")]
            if len(values) != len(header):
                raise ExtractError(f"§{where}: record has {len(values)} fields, columns {len(header)}: {line!r}")
            rows.append(dict(zip(header, values, strict=True)))
    if not rows:
        raise ExtractError(f"§{where}: no text block")
    return rows


# ----------------------------------------------------------------------------- field converters

def plain(value: str) -> str:
    """A field without backticks and bold marks; ``-`` stays ``-`` (use :func:`opt` for empty)."""
    return value.replace("`", "").replace("**", "").strip()


def opt(value: str) -> str | None:
    value = plain(value)
    return None if value in ("-", "") else value


def words(value: str) -> list[str]:
    value = plain(value)
    return [] if value in ("-", "") else value.split()


def number(value: str, what: str) -> int:
    value = plain(value)
    if not re.fullmatch(r"[+-]?\d+", value):
        raise ExtractError(f"{what}: expected a whole number, got {value!r}")
    return int(value)


def terms(value: str) -> list[str]:
    """``damage(2); cancel_next`` -> ``["damage(2)", "cancel_next"]``."""
    value = plain(value)
    return [] if value in ("-", "") else [t.strip() for t in value.split(";") if t.strip()]


def keyed(value: str, what: str) -> dict[str, str]:
    """``\\`key\\`: text`` (an effect or ability with its printed words) -> ``{"key": ..., "text": ...}``."""
    match = re.fullmatch(r"`([^`]+)`:\s*(.+)", value.strip())
    if match is None:
        raise ExtractError(f"{what}: expected '`key`: text', got {value!r}")
    return {"key": match.group(1), "text": match.group(2).strip()}


def card_counts(value: str, decks: tuple[str, ...], what: str) -> dict[str, int]:
    parts = plain(value).split("/")
    if len(parts) != len(decks):
        raise ExtractError(f"{what}: expected {'/'.join(decks)}, got {value!r}")
    return {deck: number(part, what) for deck, part in zip(decks, parts, strict=True)}


# ----------------------------------------------------------------------------- §1 board

VOLUNTARY = {"yes": "yes", "no": "no", "(always stops)": "always", "—": "never"}


def cell_kinds(body: str) -> list[dict[str, Any]]:
    kinds = []
    for row in table(body, "1.1"):
        stop = row["voluntary stop"].strip()
        if stop not in VOLUNTARY:
            raise ExtractError(f"§1.1 kind {row['kind']}: unknown voluntary-stop value {stop!r}")
        kinds.append({"kind": plain(row["kind"]), "effect": row["effect when you **stop** there (cells you only cross "
                                                                "have no effect, R)"].strip(),
                      "voluntary_stop": VOLUNTARY[stop], "src": plain(row["src"])})
    return kinds


def cell(row: Row) -> dict[str, Any]:
    links = []
    for link in words(row["links"]):
        kind, sep, target = link.partition(":")
        if not sep or not target:
            raise ExtractError(f"cell {row['id']}: link {link!r} is not type:target")
        links.append({"type": kind, "to": target})
    return {"id": row["id"], "board": row["board"], "kind": row["kind"], "label": row["label"],
            "flags": words(row["flags"]), "neighbours": words(row["neighbours"]), "links": links, "src": row["src"]}


def special_links(body: str) -> list[dict[str, Any]]:
    found = []
    for row in table(body, "1.6"):
        cost = opt(row["cost"])
        two_way = plain(row["two-way"])
        if two_way not in ("yes", "no"):
            raise ExtractError(f"§1.6 link {row['from']}: two-way should be yes or no, got {two_way!r}")
        found.append({"from": plain(row["from"]), "to": plain(row["to"]), "type": plain(row["type"]),
                      "cost": None if cost is None else number(cost, f"§1.6 link {row['from']} cost"),
                      "two_way": two_way == "yes", "use": row["use"], "src": plain(row["src"])})
    return found


_TAKE = re.compile(r"(?:take|draw) (\d+) (spell|potion|book|action|Quidditch) cards?")


def cell_effects(body: str) -> list[dict[str, Any]]:
    found = []
    for row in table(body, "1.7"):
        text = row["effect when you stop there"].strip()
        takes = [[deck.lower(), int(n)] for n, deck in _TAKE.findall(text.replace(" and 1 ", "; take 1 "))]
        exam = re.search(r"exams: subject `([a-z_]+)`", text)
        draws = sum(n for deck, n in takes if deck == "action")
        takes = [t for t in takes if t[0] != "action"]
        if not takes and not draws:
            raise ExtractError(f"§1.7 {row['cell']}: no card to take or draw in {text!r}")
        found.append({"cell": plain(row["cell"]), "text": text, "take": takes,
                      "exam": exam.group(1) if exam else None, "action_draws": draws, "src": plain(row["src"])})
    return found


def cell_counts(body: str) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for row in tables(body)[0] if tables(body) else []:
        kind = plain(row["kind"])
        counts[kind] = {b: number(row[b], f"§1.8 {kind} {b}") for b in ("main", "board1", "board2", "total")}
    all_row = re.search(r"^\| \*\*all\*\* \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", body, flags=re.MULTILINE)
    if not counts or all_row is None:
        raise ExtractError("§1.8: no counts table with an **all** row")
    counts["all"] = dict(zip(("main", "board1", "board2", "total"), map(int, all_row.groups()), strict=True))
    return counts


_EXAMPLE = re.compile(r"^- `(\w+)` → `(\w+)`: shortest (\d+) steps \(rulebook: (\d+)\): (.+)\.$", re.MULTILINE)


def movement_examples(body: str) -> dict[str, Any]:
    examples = []
    for start, end, steps, printed, path in _EXAMPLE.findall(body):
        cells = re.findall(r"`(\w+)`", path)
        if steps != printed or cells[0] != start or cells[-1] != end:
            raise ExtractError(f"§1.9: example {start} -> {end} does not read as a path of the printed length")
        examples.append({"from": start, "to": end, "steps": int(steps), "path": cells})
    harry = re.search(r"^- Harry's 10-step turn from the start .*?: ((?:`\w+`(?: → )?)+)\.", body,
                      flags=re.MULTILINE | re.DOTALL)
    if len(examples) != 4 or harry is None:
        raise ExtractError(f"§1.9: expected 4 distance examples and Harry's turn, found {len(examples)}")
    return {"distances": examples, "harry_turn": re.findall(r"`(\w+)`", harry.group(1))}


# ----------------------------------------------------------------------------- §2 cards

def decks(body: str) -> list[dict[str, Any]]:
    found = []
    for row in table(body, "2.1"):
        name = plain(row["deck"])
        shuffled = plain(row["shuffled"])
        found.append({"deck": name, "cards": number(row["cards"], f"§2.1 {name}"),
                      "distinct": number(row["distinct"], f"§2.1 {name}"),
                      "shuffled": not shuffled.startswith("no"), "shuffle_note": shuffled,
                      "after_use": row["after use"], "src": plain(row["src"])})
    return found


def vocabulary(body: str) -> list[dict[str, str]]:
    return [{"term": plain(row["term"]), "meaning": row["meaning"]} for row in table(body, "2.2")]


def hand_cards(body: str, deck: str, where: str) -> list[dict[str, Any]]:
    return [{"id": plain(r["id"]), "deck": deck, "name": r["name"],
             "copies": number(r["copies"], f"§{where} {r['id']}"), "use": r["use"],
             "effect": terms(r["effect"]), "tags": words(r["tags"]), "src": plain(r["src"])}
            for r in table(body, where)]


def books(body: str) -> list[dict[str, Any]]:
    return [{"id": plain(r["id"]), "subject": plain(r["subject"]), "title": r["title"],
             "points": number(r["points"], f"§2.5 {r['id']}"), "src": plain(r["src"])} for r in table(body, "2.5")]


def actions(body: str) -> list[dict[str, Any]]:
    return [{"id": plain(r["id"]), "text": r["text"], "copies": number(r["copies"], f"§2.6 {r['id']}"),
             "effect": terms(r["effect"]), "src": plain(r["src"])} for r in table(body, "2.6")]


def events(body: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    cards = [{"id": plain(r["id"]), "title": r["title"], "copies": number(r["copies"], f"§2.7 {r['id']}"),
              "effect": terms(r["effect"]), "text": r["text"], "src": plain(r["src"])} for r in table(body, "2.7")]
    enemies = [{"id": plain(r["id"]), "deck": "event_battle", "name": r["enemy"],
                "lp": number(r["LP per participant"], f"§2.7 {r['id']}"), "res": number(r["res"], f"§2.7 {r['id']}"),
                "attack_dice": None, "immune": words(r["immune"]), "abilities": terms(r["abilities"]),
                "tags": words(r["tags"]), "reward": r["reward"], "src": "R/D"} for r in table(body, "2.7", 1)]
    return cards, enemies


def enemies(body: str, deck: str, where: str, name_column: str) -> list[dict[str, Any]]:
    found = []
    for r in table(body, where):
        what = f"§{where} {r['id']}"
        found.append({"id": plain(r["id"]), "deck": deck, "name": r[name_column], "lp": number(r["LP"], what),
                      "res": number(r["res"], what),
                      "attack_dice": number(r["attack dice"], what) if "attack dice" in r else None,
                      "immune": words(r["immune"]),
                      "abilities": terms(r.get("abilities") or r["abilities (timing:effect)"]),
                      "tags": words(r["tags"]), "reward": None, "src": plain(r["src"])})
    return found


def quidditch_cards(body: str) -> list[dict[str, Any]]:
    found = []
    for r in table(body, "2.10"):
        effect = keyed(r["effect (Phase 2, on your turn, max 1 per turn)"], f"§2.10 {r['id']}")
        found.append({"id": plain(r["id"]), "name": r["name"], "copies": number(r["copies"], f"§2.10 {r['id']}"),
                      "effect": [effect["key"]], "text": effect["text"], "src": plain(r["src"])})
    return found


# ----------------------------------------------------------------------------- §3 tokens, setup, missions

def object_tokens(body: str) -> list[dict[str, str]]:
    return [{"id": plain(r["id"]), "name": r["name"], "group": plain(r["group"]), "effect": r["effect / role"],
             "src": plain(r["src"])} for r in table(body, "3.1")]


MODES = ("underage", "qualified", "team", "solo")


def setup(body: str) -> list[dict[str, Any]]:
    return [{"item": r["item"], "modes": {m: r[m] for m in MODES}, "src": plain(r["src"])}
            for r in table(body, "3.2")]


def card_need(text: str, what: str) -> dict[str, str]:
    match = re.fullmatch(r"(attack|defence|start) (spell|potion)", text)
    if match:
        return {"deck": match.group(2), "use": match.group(1)}
    if not re.fullmatch(r"[a-z_]+", text):
        raise ExtractError(f"{what}: {text!r} is neither a card id nor '<use> <deck>'")
    return {"card": text}


def missions(body: str) -> list[dict[str, Any]]:
    flavour = {number(r["#"], "§3.3 flavour"): r["flavour line (D, except 6)"] for r in table(body, "3.3", 1)}
    found = []
    for r in table(body, "3.3"):
        n = number(r["#"], "§3.3 mission")
        what = f"§3.3 mission {n}"
        extra = plain(r["qualified extra cards"])
        found.append({"number": n, "title": r["title"], "location": plain(r["location"]),
                      "tokens": words(r["tokens (all modes)"]),
                      "qualified_cards": [card_need(c.strip(), what) for c in extra.split(",")] if extra != "-" else [],
                      "battle_card": plain(r["battle card"]), "reward": number(r["reward"], what),
                      "flavour": flavour.get(n, ""), "src": plain(r["src"])})
    return found


# ----------------------------------------------------------------------------- §4 sheets

def students(body: str) -> list[dict[str, Any]]:
    found = []
    for r in table(body, "4.1"):
        what = f"§4.1 sheet {r['sheet']}"
        found.append({"sheet": number(r["sheet"], what), "name": r["student"], "house": r["house"],
                      "lp": number(r["LP"], what), "res": number(r["res"], what),
                      "attack_dice": number(r["attack dice"], what),
                      "movement_ability": keyed(r["movement ability"], what),
                      "battle_ability": keyed(r["battle ability"], what),
                      "start_cards": card_counts(r["start cards spell/potion/book"], ("spell", "potion", "book"), what),
                      "src": r["src"]})
    return found


def death_eaters(body: str) -> list[dict[str, Any]]:
    found = []
    for r in table(body, "4.2"):
        what = f"§4.2 sheet {r['sheet']}"
        found.append({"sheet": number(r["sheet"], what), "name": r["Death Eater"], "lp": number(r["LP"], what),
                      "res": number(r["res"], what), "attack_dice": number(r["attack dice"], what),
                      "battle_ability": keyed(r["battle ability"], what),
                      "start_cards": card_counts(r["cards spell/potion"], ("spell", "potion"), what), "src": r["src"]})
    return found


def ability_rules(body: str) -> list[str]:
    rules = [" ".join(item.split()) for item in re.findall(r"^- (.+?)(?=^- |\Z)", body, flags=re.MULTILINE | re.DOTALL)]
    if not rules:
        raise ExtractError("§4.3: no ability rules")
    return rules


def return_of_voldemort(body: str) -> dict[str, Any]:
    rows = [{"item": r["item"], "value": r["value"], "src": plain(r["src"])} for r in table(body, "4.4")]
    by_item = {r["item"]: r["value"] for r in rows}

    def ids(item: str) -> list[str]:
        if item not in by_item:
            raise ExtractError(f"§4.4: no row {item!r}")
        return re.findall(r"`(\w+)`", by_item[item].split("(")[0] if item == "set aside" else by_item[item])

    horcruxes = {}
    for item, value in by_item.items():
        match = re.fullmatch(r"Horcrux `(\w+)`", item)
        if match:
            places = re.findall(r"`(\w+)`", value)
            if len(places) != 1:
                raise ExtractError(f"§4.4: {item} should name one cell, got {value!r}")
            horcruxes[match.group(1)] = places[0]
    death_eater_names = [n.strip() for n in by_item.get("Death Eaters", "").split("(")[0].split(",")]
    return {"rows": rows, "horcruxes": horcruxes, "random_tokens": ids("random tokens"),
            "set_aside": ids("set aside"), "voldemort_side_tokens": ids("Voldemort-side tokens"),
            "hero_side_tokens": ids("hero-side tokens"), "death_eaters": death_eater_names}


# ----------------------------------------------------------------------------- §5 pitch

def pitch(grid_body: str, circuit_body: str, tokens_body: str) -> dict[str, Any]:
    grid = [{"id": r["id"], "col": number(r["col"], r["id"]), "row": number(r["row"], r["id"]), "zone": r["zone"],
             "neighbours": words(r["neighbours"])} for r in text_blocks(grid_body, "5.1")]
    lines = [{"line": r["line"], "side_a": r["side A (challenger, west)"], "side_b": r["side B (east)"],
              "src": plain(r["src"])} for r in table(grid_body, "5.1")]
    bludger_rows = [r for r in lines if r["line"].startswith("Bludger start")]
    if len(bludger_rows) != 1:
        raise ExtractError("§5.1: expected one 'Bludger start' row in the lines table")
    bludgers = {}
    for side, column in (("A", "side_a"), ("B", "side_b")):
        cells = re.findall(r"`(\w+)`", bludger_rows[0][column])
        if len(cells) != 1:
            raise ExtractError(f"§5.1: side {side}'s Bludger should start on one cell, got {bludger_rows[0][column]!r}")
        bludgers[side] = cells[0]
    formation = {}
    prose = " ".join(grid_body.split())
    for side in ("A", "B"):
        match = re.search(rf"side {side} (?:\([^)]*\) )?Keeper `(\w+)`, Beaters `(\w+) (\w+)`, "
                          r"Chasers `(\w+) (\w+) (\w+)`", prose)
        if match is None:
            raise ExtractError(f"§5.1: no default formation for side {side}")
        keeper, *rest = match.groups()
        formation[side] = {"keeper": [keeper], "beaters": rest[:2], "chasers": rest[2:]}
    circuit = [{"id": r["id"], "next": r["next (clockwise)"], "note": opt(r["note"])}
               for r in text_blocks(circuit_body, "5.2")]
    split = re.search(r"(\d+) houses × (\d+) pieces \((\d+) Seeker, (\d+) Keeper, (\d+) Beaters, (\d+) Chasers\) = "
                      r"(\d+), plus the Quaffle, (\d+) Bludgers and the Golden Snitch = (\d+)",
                      " ".join(tokens_body.split()))
    if split is None:
        raise ExtractError("§5.3: the token split no longer reads '<n> houses × <n> pieces (...)'")
    houses, _, seeker, keeper, beaters, chasers, _, bludger_count, total = map(int, split.groups())
    tokens = {"houses": houses, "pieces": {"seeker": seeker, "keeper": keeper, "beater": beaters, "chaser": chasers},
              "balls": {"quaffle": 1, "bludger": bludger_count, "snitch": 1}, "total": total}
    return {"grid": grid, "lines": lines, "formation": formation, "bludger_start": bludgers, "circuit": circuit,
            "tokens": tokens}


# ----------------------------------------------------------------------------- §6 and the whole

def resolutions(body: str) -> list[dict[str, str]]:
    return [{"id": r["id"], "digest_section": r["digest §"], "resolution": r["resolution"]}
            for r in table(body, "6")]


def extract(source: Path) -> bytes:
    """The JSON file's bytes for the document at ``source``."""
    text = source.read_text(encoding="utf-8")
    sec = sections(text)
    missing = [n for n in ("1.1", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "2.1", "2.2", "2.3", "2.4", "2.5",
                           "2.6", "2.7", "2.8", "2.9", "2.10", "3.1", "3.2", "3.3", "4.1", "4.2", "4.3", "4.4", "5.1",
                           "5.2", "5.3", "6") if n not in sec]
    if missing:
        raise ExtractError(f"sections missing from {source.name}: {', '.join(missing)}")
    event_cards, event_battles = events(sec["2.7"])
    data = {
        "source": "shared/rules/hogwarts-data.md",
        "cell_kinds": cell_kinds(sec["1.1"]),
        "cells": [cell(r) for n in ("1.3", "1.4", "1.5") for r in text_blocks(sec[n], n)],
        "special_links": special_links(sec["1.6"]),
        "cell_effects": cell_effects(sec["1.7"]),
        "cell_counts": cell_counts(sec["1.8"]),
        "movement_examples": movement_examples(sec["1.9"]),
        "decks": decks(sec["2.1"]),
        "battle_vocabulary": vocabulary(sec["2.2"]),
        "spells": hand_cards(sec["2.3"], "spell", "2.3"),
        "potions": hand_cards(sec["2.4"], "potion", "2.4"),
        "books": books(sec["2.5"]),
        "actions": actions(sec["2.6"]),
        "events": event_cards,
        "event_battles": event_battles,
        "duels": enemies(sec["2.8"], "duel", "2.8", "opponent"),
        "battle_cards": enemies(sec["2.9"], "battle", "2.9", "enemy"),
        "quidditch_cards": quidditch_cards(sec["2.10"]),
        "object_tokens": object_tokens(sec["3.1"]),
        "setup": setup(sec["3.2"]),
        "missions": missions(sec["3.3"]),
        "students": students(sec["4.1"]),
        "death_eaters": death_eaters(sec["4.2"]),
        "ability_rules": ability_rules(sec["4.3"]),
        "return_of_voldemort": return_of_voldemort(sec["4.4"]),
        "pitch": pitch(sec["5.1"], sec["5.2"], sec["5.3"]),
        "resolutions": resolutions(sec["6"]),
    }
    return (json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="only say whether --out is up to date")
    args = parser.parse_args(argv)
    try:
        fresh = extract(args.source)
    except (ExtractError, OSError) as err:
        print(f"extract_hogwarts_data: {err}", file=sys.stderr)
        return 2
    if args.check:
        current = args.out.read_bytes() if args.out.exists() else b""
        print("up to date" if current == fresh else f"{args.out} is stale")
        return 0 if current == fresh else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(fresh)
    print(f"wrote {args.out} ({len(fresh)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
