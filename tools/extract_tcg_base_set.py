"""Extract the Harry Potter TCG Base Set from the shared card data into ``p2php/games/tcg/base_set.json``.

A dev script, not part of the package: the package ships the small, checked JSON this writes, so the game
never reads the 800 kB multi-set dump (``shared/data/tcg/cards.json``) nor its quirks at run time.

What it keeps, per card (keys sorted, absent fields omitted): ``number``, ``name``, ``type``, ``keywords``,
``lesson`` (the Power symbol under the Power needed, or a Lesson's own type), ``cost`` (Power needed),
``provides`` (Power provided, ``{lesson: amount}``), ``damage`` (damage each turn), ``health``, ``effect``
(text lines), ``note`` (a play condition printed apart from the effect), ``to_solve`` and ``reward``
(Adventures), ``rarity`` and ``rulings`` (ids into the top-level ``rulings`` table).  Left out: artist,
flavour text, image, release date and the ``horizontal`` flag (it follows from the type: only Spells are
printed vertically, which the extraction checks).

How the source stores things, and what becomes of it:

* numbers are strings; the two foil premium Characters come as two printings each, ``3a``/``3b`` (Draco
  Malfoy) and ``10a``/``10b`` (Hermione Granger), that differ only in artist and image.  They are one card
  each here (3 and 10), checked equal, so the set has its 116 numbers;
* ``cost``, ``health``, ``dmgEachTurn`` and the ``amount`` of ``provides`` are strings or ints in the dump
  (ints in later sets, strings in Base); all become ints, and anything that is not a plain non-negative
  integer (later sets have ``"*"`` and ``-1``) stops the extraction instead of being guessed at;
* types, lesson types and rarities become short lower-case words (``care_of_magical_creatures``,
  ``holo_portrait_premium``);
* ``rulings.json`` is Windows-1252, not UTF-8 (its apostrophes are byte 0x92); it is decoded as UTF-8 if
  that works, else as cp1252.  A ruling concerns the Base Set when one of the cards it names is a Base Set
  name; one misspelt name there (``Human Chees Game``) is mapped explicitly.  Rulings embedded in
  ``cards.json`` are merged in (they are all in ``rulings.json`` too, today).  A ruling's id is a hash of
  its date and text, so ids do not move when rulings are added or reordered upstream.

The output is deterministic: one card per line in number order, rulings by id, ``sort_keys`` everywhere,
UTF-8, a final newline.  Re-running gives identical bytes, and ``--check`` says whether the committed file
is what the shared data gives (``tests/test_tcg_cards.py`` runs the same comparison).

Usage: ``python tools/extract_tcg_base_set.py [--data DIR] [--out FILE] [--check]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "tcg"
OUT = ROOT / "p2php" / "games" / "tcg" / "base_set.json"
SET_NAME = "Base"
SET_SIZE = 116

TYPES = {"Lesson": "lesson", "Creature": "creature", "Spell": "spell", "Item": "item", "Character": "character",
         "Adventure": "adventure"}
LESSONS = {"Care of Magical Creatures": "care_of_magical_creatures", "Charms": "charms", "Potions": "potions",
           "Transfiguration": "transfiguration"}
RARITIES = {"Holo Portrait Premium": "holo_portrait_premium", "Foil Premium": "foil_premium", "Rare": "rare",
            "Uncommon": "uncommon", "Common": "common", "Lesson": "lesson"}
RULING_NAME_FIXES = {"Human Chees Game": "Human Chess Game"}
"""Card names misspelt in rulings.json, mapped to the Base Set name they mean (checked by hand)."""

# Fields that make a card what it is in play; two printings of one number must agree on all of them.
GAME_FIELDS = ("name", "type", "subTypes", "lesson", "cost", "provides", "dmgEachTurn", "health", "effect",
               "note", "toSolve", "reward", "rarity")


class ExtractError(Exception):
    """The shared data is not what this script knows how to read; nothing is written."""


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ExtractError(f"{what}: expected text, got {value!r}")
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", value)).strip()


def _int(value: object, what: str) -> int:
    if isinstance(value, bool):
        raise ExtractError(f"{what}: expected a whole number, got {value!r}")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,3}", value.strip()):
        return int(value.strip())
    raise ExtractError(f"{what}: expected a whole number, got {value!r}")


def _word(table: dict[str, str], value: object, what: str) -> str:
    if not isinstance(value, str) or value.strip() not in table:
        raise ExtractError(f"{what}: unknown value {value!r} (known: {', '.join(sorted(table))})")
    return table[value.strip()]


def _number(raw: object) -> int:
    match = re.fullmatch(r"([0-9]{1,3})[ab]?", str(raw))
    if match is None:
        raise ExtractError(f"card number {raw!r} is not N, Na or Nb")
    return int(match.group(1))


def _card(raw: dict[str, Any]) -> dict[str, Any]:
    number = _number(raw["number"])
    what = f"Base {raw['number']}"
    types = raw.get("type")
    if not isinstance(types, list) or len(types) != 1:
        raise ExtractError(f"{what}: expected one card type, got {types!r}")
    kind = _word(TYPES, types[0], f"{what} type")
    card: dict[str, Any] = {"number": number, "name": _text(raw.get("name"), f"{what} name"), "type": kind,
                            "rarity": _word(RARITIES, raw.get("rarity"), f"{what} rarity")}
    if raw.get("horizontal") is not (kind != "spell"):
        raise ExtractError(f"{what}: printed {'sideways' if raw.get('horizontal') else 'upright'} as a {kind}")
    keywords = [_text(k, f"{what} keyword") for k in raw.get("subTypes") or []]
    if keywords:
        card["keywords"] = keywords
    lessons = raw.get("lesson") or []
    if len(lessons) > 1:
        raise ExtractError(f"{what}: more than one lesson type {lessons!r}")
    if lessons:
        card["lesson"] = _word(LESSONS, lessons[0], f"{what} lesson")
    for source, key in (("cost", "cost"), ("dmgEachTurn", "damage"), ("health", "health")):
        if raw.get(source) is not None:
            card[key] = _int(raw[source], f"{what} {source}")
    provides: dict[str, int] = {}
    for item in raw.get("provides") or []:
        lesson = _word(LESSONS, item.get("lesson"), f"{what} provides")
        if lesson in provides:
            raise ExtractError(f"{what}: provides {lesson} twice")
        provides[lesson] = _int(item.get("amount"), f"{what} provides amount")
    if provides:
        card["provides"] = provides
    effect = [_text(line, f"{what} effect") for line in raw.get("effect") or []]
    if effect:
        card["effect"] = effect
    for source, key in (("note", "note"), ("toSolve", "to_solve"), ("reward", "reward")):
        if raw.get(source) is not None:
            card[key] = _text(raw[source], f"{what} {source}")
    if (kind == "adventure") != ("to_solve" in card and "reward" in card):
        raise ExtractError(f"{what}: a {kind} {'without' if kind == 'adventure' else 'with'} To Solve / Reward")
    return card


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252")


def _ruling_id(date: str, text: str) -> str:
    return "r" + hashlib.sha256(f"{date}\n{text}".encode()).hexdigest()[:8]


def extract(cards_path: Path, rulings_path: Path) -> bytes:
    """The bytes of ``base_set.json`` for these two source files (raises :class:`ExtractError`)."""
    everything = json.loads(_decode(cards_path.read_bytes()))
    base = [c for c in everything if isinstance(c, dict) and c.get("setName") == SET_NAME]
    by_number: dict[int, dict[str, Any]] = {}
    printings: dict[int, dict[str, Any]] = {}
    for raw in sorted(base, key=lambda c: str(c.get("number"))):
        card = _card(raw)
        number = card["number"]
        if number in by_number:
            first = printings[number]
            differ = [f for f in GAME_FIELDS if first.get(f) != raw.get(f)]
            if differ:
                raise ExtractError(f"Base {number}: printings differ in {differ}")
            continue
        by_number[number] = card
        printings[number] = raw
    if sorted(by_number) != list(range(1, SET_SIZE + 1)):
        missing = sorted(set(range(1, SET_SIZE + 1)) - set(by_number))
        raise ExtractError(f"the Base Set should number 1..{SET_SIZE}; missing {missing}, have {len(by_number)}")

    numbers_by_name: dict[str, list[int]] = {}
    for number, card in sorted(by_number.items()):
        numbers_by_name.setdefault(card["name"], []).append(number)

    found: dict[tuple[str, str, str], set[int]] = {}

    def concern(date: object, source: object, text: object, names: list[object], what: str) -> None:
        numbers: set[int] = set()
        for name in names:
            if isinstance(name, str):
                numbers.update(numbers_by_name.get(RULING_NAME_FIXES.get(name.strip(), name.strip()), ()))
        if numbers:
            key = (_text(date, f"{what} date"), _text(source, f"{what} source"), _text(text, f"{what} text"))
            found.setdefault(key, set()).update(numbers)

    for index, ruling in enumerate(json.loads(_decode(rulings_path.read_bytes()))):
        concern(ruling.get("date"), ruling.get("source"), ruling.get("ruling"), list(ruling.get("cards") or []),
                f"rulings.json[{index}]")
    for number, raw in sorted(printings.items()):
        for ruling in raw.get("rulings") or []:
            concern(ruling.get("date"), ruling.get("source"), ruling.get("ruling"), [raw["name"]],
                    f"Base {number} ruling")

    rulings: dict[str, dict[str, Any]] = {}
    for (date, source, text), numbers in sorted(found.items()):
        rid = _ruling_id(date, text)
        if rid in rulings:
            raise ExtractError(f"two rulings share the id {rid}")
        rulings[rid] = {"cards": sorted(numbers), "date": date, "source": source, "text": text}
        for number in sorted(numbers):
            by_number[number].setdefault("rulings", []).append(rid)
    for card in by_number.values():
        if "rulings" in card:
            card["rulings"].sort(key=lambda rid: (rulings[rid]["date"], rid))

    def dump(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    lines = ['{"cards":[']
    lines += [dump(card) + ("," if number < SET_SIZE else "") for number, card in sorted(by_number.items())]
    lines.append('],"rulings":{')
    ids = sorted(rulings)
    lines += [f"{dump(rid)}:{dump(rulings[rid])}" + ("," if i < len(ids) - 1 else "") for i, rid in enumerate(ids)]
    lines.append(f'}},"set":{dump(SET_NAME)},"size":{SET_SIZE}}}')
    text = "\n".join(lines) + "\n"
    json.loads(text)  # the hand-joined layout is still one JSON document
    return text.encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA, help="directory holding cards.json and rulings.json")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write base_set.json")
    parser.add_argument("--check", action="store_true", help="only compare with --out; exit 1 if it differs")
    args = parser.parse_args(argv)
    try:
        data = extract(args.data / "cards.json", args.data / "rulings.json")
    except (ExtractError, OSError, ValueError, KeyError) as err:
        print(f"extract_tcg_base_set: {err}", file=sys.stderr)
        return 2
    if args.check:
        same = args.out.exists() and args.out.read_bytes() == data
        print(f"{args.out}: {'up to date' if same else 'differs from a fresh extraction'}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
