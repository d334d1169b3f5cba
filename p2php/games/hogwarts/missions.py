"""Object tokens (data §3.1), the setup table (§3.2) and the 30 missions (§3.3).

A mission's "qualified extra" cards are :class:`CardNeed` records: either one exact card (``polyjuice_potion``)
or any card of a deck and use ("attack spell"), as the document distinguishes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["GREAT_HALL", "CardNeed", "Mission", "ObjectToken", "SetupRow"]

GREAT_HALL = "@gh"
"""A mission location meaning "any cell of the Great Hall" (a cell flagged ``gh``)."""


@dataclass(frozen=True, slots=True)
class ObjectToken:
    """One of the 30 object tokens; ``group`` is special, horcrux, ritual, weapon or plain."""

    id: str
    name: str
    group: str
    effect: str
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ObjectToken:
        return cls(str(raw["id"]), str(raw["name"]), str(raw["group"]), str(raw["effect"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class SetupRow:
    """One row of §3.2: an item's quantity per mode, as printed (``modes`` maps underage/qualified/team/solo)."""

    item: str
    modes: Mapping[str, str]
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> SetupRow:
        modes = raw["modes"]
        return cls(str(raw["item"]), MappingProxyType({str(m): str(modes[m]) for m in sorted(modes)}), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class CardNeed:
    """A card a mission needs in qualified and team mode: one exact ``card``, or any card of ``deck`` and ``use``."""

    card: str | None = None
    deck: str | None = None
    use: str | None = None

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CardNeed:
        if "card" in raw:
            return cls(card=str(raw["card"]))
        return cls(deck=str(raw["deck"]), use=str(raw["use"]))


@dataclass(frozen=True, slots=True)
class Mission:
    """One mission card: go to ``location`` with ``tokens`` (+ ``qualified_cards``), beat ``battle_card``."""

    number: int
    title: str
    location: str  # a cell id, or GREAT_HALL
    tokens: tuple[str, ...]
    qualified_cards: tuple[CardNeed, ...]
    battle_card: str
    reward: int
    flavour: str
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Mission:
        return cls(int(raw["number"]), str(raw["title"]), str(raw["location"]), tuple(str(t) for t in raw["tokens"]),
                   tuple(CardNeed.from_json(c) for c in raw["qualified_cards"]), str(raw["battle_card"]),
                   int(raw["reward"]), str(raw["flavour"]), str(raw["src"]))
