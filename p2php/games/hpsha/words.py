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

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from p2php.games.hpsha.creature_data import CREATURE_BASE, creature_label
from p2php.games.hpsha.data import (
    CARDS,
    CHARACTER_BASE,
    CHARACTERS,
    GAME_CARDS,
    IDENTITY_BASE,
    KINDS,
    RANK_NAMES,
    ROLE_NAMES,
    card_label,
    character_of,
    identity_role,
    kind_label,
)
from p2php.games.hpsha.triggers import SKILLS
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
