"""The words of the Harry Potter Sha log, in English and Chinese, kept out of the hashed state.

Why: every peer hashes the state after every step, so prose in the state would
make rewording one message change every state hash and orphan old transcripts.
The state keeps each event as plain data, ``[kind, *args]`` (seats, numbers,
card ids, keys; see :meth:`HpshaState.say`), and this module turns it into a
line for people.  An argument that is itself a list starting with a kind (a
task's ``note`` or ``why``) is a *fragment*, rendered by the same tables.

Seats are named with the character they hold when the line is rendered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from p2php.games.hpsha.creature_data import CREATURE_BASE, CREATURES, creature_label
from p2php.games.hpsha.data import (
    CARDS,
    CHARACTER_BASE,
    CHARACTERS,
    FACTIONS,
    GAME_CARDS,
    IDENTITY_BASE,
    KINDS,
    RANK_NAMES,
    ROLE_NAMES,
    Kind,
    card_label,
    character_of,
    identity_role,
    kind_label,
)
from p2php.games.hpsha.triggers import SKILLS, SKILLS_BY_CHARACTER
from p2php.games.hpsha.words_en import EN
from p2php.games.hpsha.words_zh import ZH

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

LANGS = ("en", "zh")
TABLES: dict[str, dict[str, Callable[..., str]]] = {"en": EN, "zh": ZH}


def _zh_half(label: str) -> str:
    """``"黑暗 Darkness"`` → ``"黑暗"``; a label without Chinese is kept whole."""
    m = re.match(r"^(\S*[^\x00-\x7f]\S*)", label)
    return m.group(1) if m else label


class Speaker:
    """Names seats, cards, skills and roles in one language, for the tables in words_en / words_zh."""

    def __init__(self, chars: Sequence[int], lang: str = "en") -> None:
        if lang not in TABLES:
            raise ValueError(f"no words for language {lang!r} (one of {', '.join(LANGS)})")
        self.chars, self.lang, self.zh, self.table = chars, lang, lang == "zh", TABLES[lang]

    def who(self, seat: int) -> str:
        c = self.chars[seat] if 0 <= seat < len(self.chars) else -1
        name = f" {CHARACTERS[c].zh}" if c >= 0 else ""
        return f"{seat}号位{name}" if self.zh else f"seat {seat}{name}"

    def whos(self, seats: Sequence[int]) -> str:
        return ("、" if self.zh else ", ").join(self.who(s) for s in seats)

    def card(self, card: int) -> str:
        if card < 0:
            return "一张暗牌" if self.zh else "a hidden card"
        if not self.zh:
            return card_label(card)
        if card < GAME_CARDS:
            c = CARDS[card]
            return f"{KINDS[c.kind].zh}{c.suit}{RANK_NAMES[c.rank]}"
        if IDENTITY_BASE <= card < CHARACTER_BASE:
            return "身份：" + self.role(identity_role(card))
        if card >= CREATURE_BASE:
            return "魔法生物：" + creature_label(card).split(" ")[0]
        return "人物：" + character_of(card).zh

    def cards(self, cards: Sequence[int]) -> str:
        return ("、" if self.zh else ", ").join(self.card(c) for c in cards)

    def kind(self, kind: str) -> str:
        if kind not in KINDS:
            return kind
        return KINDS[kind].zh if self.zh else kind_label(kind)

    def skill(self, key: str) -> str:
        """A skill's label as the engine prints it (with the locked tail in English)."""
        if key not in SKILLS:
            return key
        return SKILLS[key].zh if self.zh else SKILLS[key].label

    def skill_name(self, key: str) -> str:
        """A skill's bare name: ``复活 Rebirth`` / ``复活``."""
        if key not in SKILLS:
            return key
        sk = SKILLS[key]
        return sk.zh if self.zh else f"{sk.zh} {sk.en}"

    def role(self, role: str) -> str:
        return _zh_half(ROLE_NAMES[role]) if self.zh else ROLE_NAMES[role]

    def character(self, char: int) -> str:
        """A character by its index in CHARACTERS."""
        return CHARACTERS[char].zh if self.zh else CHARACTERS[char].label

    def reason(self, key: str) -> str:
        """Why something happened, given as a key: a card name (a spell, a wand, an armour) or a skill."""
        if key in KINDS:
            return self.kind(key)
        if key in SKILLS:
            return self.skill_name(key)
        return self.text(key)

    def text(self, label: str) -> str:
        """A reason a rule helper gave as a "中文 English" label."""
        return _zh_half(label) if self.zh else label

    def frag(self, event: Sequence[Any]) -> str:
        return self.line(event) if event else ""

    def line(self, event: Sequence[Any]) -> str:
        kind, *args = event
        words = self.table.get(kind)
        if words is None:  # an event from a newer engine: show the data rather than fail
            return f"{kind}: {args}"
        return words(self, *args)


def render(event: Sequence[Any], chars: Sequence[int], lang: str = "en") -> str:
    """One event as a line in ``lang``."""
    return Speaker(chars, lang).line(event)


def lines(st: HpshaState, lang: str = "en", last: int | None = None) -> list[str]:
    """The state's kept events (the ``last`` ones, if given) as lines in ``lang``."""
    events = st.events if last is None else st.events[-last:] if last > 0 else []
    speak = Speaker(st.char, lang)
    return [speak.line(e) for e in events]


# ----------------------------------------------------------------------------- help (read-only, for ? and the page)

_CATEGORY = {
    "basic": ("基本牌", "Basic card"), "instant": ("非延时类咒语", "Instant spell"),
    "delayed": ("延时类咒语", "Delayed spell"), "weapon": ("武器", "Weapon"), "armour": ("防具", "Armour"),
    "plus": ("+1扫帚", "+1 broom"), "minus": ("-1扫帚", "−1 broom"),
}


@cache
def _help_texts() -> dict[str, dict[str, dict[str, str]]]:
    """``help_texts.json``: each card kind's and skill's rule text in both languages (made by
    ``tools/extract_hpsha_help.py`` from the rulebook, never typed by hand)."""
    raw = resources.files("p2php.games.hpsha").joinpath("help_texts.json").read_text(encoding="utf-8")
    texts: dict[str, dict[str, dict[str, str]]] = json.loads(raw)
    return texts


def _facts(kind: Kind, zh: bool) -> str:
    words = _CATEGORY[kind.sub or kind.category]
    out = words[0] if zh else words[1]
    if kind.range:
        out += f"，攻击范围 {kind.range}" if zh else f", attack range {kind.range}"
    return out


def help_entries(lang: str) -> list[dict[str, Any]]:
    """Every card kind, character and skill with its rule text in ``lang`` (en / zh), for
    :mod:`p2php.gamehelp`: the terminal's ``?`` and the browser's help panel."""
    zh = lang == "zh"
    texts = _help_texts()
    pick = "zh" if zh else "en"
    out: list[dict[str, Any]] = []
    for kind in KINDS.values():
        text = texts["cards"].get(kind.key, {}).get(pick, "")
        out.append({"id": f"card:{kind.key}", "kind": "card", "title": kind.zh if zh else kind.en,
                    "names": [kind.en, kind.zh, kind.key], "facts": _facts(kind, zh), "text": text})
    for ch in CHARACTERS:
        skills = SKILLS_BY_CHARACTER.get(ch.key, ())
        faction = FACTIONS[ch.faction].split(" ", 1)
        facts = (f"{faction[0]} · 体力上限 {ch.hp} · {'男' if ch.gender == 'M' else '女'}" if zh
                 else f"{faction[-1]} · max HP {ch.hp} · {'male' if ch.gender == 'M' else 'female'}")
        lines = [f"【{sk.zh}】" + texts["skills"].get(sk.key, {}).get("zh", "")
                 if zh else f"{sk.en}: " + texts["skills"].get(sk.key, {}).get("en", "") for sk in skills]
        out.append({"id": f"character:{ch.key}", "kind": "character", "title": ch.zh if zh else ch.en,
                    "names": [ch.en, ch.zh, ch.key], "facts": facts,
                    "text": "\n\n".join(line.split("\n")[0] for line in lines),
                    "skills": [f"skill:{sk.key}" for sk in skills]})
    owner = {sk.key: ch for ch in CHARACTERS for sk in SKILLS_BY_CHARACTER.get(ch.key, ())}
    for key, sk in sorted(SKILLS.items()):
        owner_of = owner.get(key)
        facts = ("锁定技" if sk.compulsory else "技能") if zh else ("Locked skill" if sk.compulsory else "Skill")
        creature = CREATURES.get(key.split("_")[0])
        if key in texts["skills"]:
            text = texts["skills"][key][pick]
        elif creature is not None:  # a creature's power (gnome, gnome_return): its card's text
            text = texts["creatures"][creature.key][pick]
            facts = f"魔法生物：{creature.zh}" if zh else f"Magical creature: {creature.en}"
        else:
            continue
        if owner_of is not None:
            facts += f" · {owner_of.zh}" if zh else f" · {owner_of.en}"
        out.append({"id": f"skill:{key}", "kind": "skill", "title": sk.zh if zh else sk.en,
                    "names": [sk.en, sk.zh, key], "facts": facts, "text": text})
    for creature in CREATURES.values():
        out.append({"id": f"creature:{creature.key}", "kind": "creature", "title": creature.zh if zh else creature.en,
                    "names": [creature.en, creature.zh, creature.key],
                    "facts": "魔法生物牌" if zh else "Magical creature card",
                    "text": texts["creatures"][creature.key][pick]})
    return out
