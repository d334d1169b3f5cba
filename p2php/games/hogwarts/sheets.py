"""Character sheets (data §4): the nine students on the fronts, the nine Death Eaters on the backs, the
ability rules (§4.3) and the data of The Return of Lord Voldemort (§4.4).

Abilities are a key (``spell_cell_x2``) the engine binds to its effect, plus the printed words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["Ability", "DeathEaterSheet", "ReturnOfVoldemort", "ReturnRow", "StudentSheet"]


def _counts(raw: Mapping[str, Any]) -> Mapping[str, int]:
    return MappingProxyType({str(deck): int(raw[deck]) for deck in sorted(raw)})


@dataclass(frozen=True, slots=True)
class Ability:
    key: str
    text: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Ability:
        return cls(str(raw["key"]), str(raw["text"]))


@dataclass(frozen=True, slots=True)
class StudentSheet:
    """A sheet's front (§4.1); ``start_cards`` maps spell/potion/book to the cards dealt at setup."""

    sheet: int
    name: str
    house: str
    lp: int
    res: int
    attack_dice: int
    movement_ability: Ability
    battle_ability: Ability
    start_cards: Mapping[str, int]
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> StudentSheet:
        return cls(int(raw["sheet"]), str(raw["name"]), str(raw["house"]), int(raw["lp"]), int(raw["res"]),
                   int(raw["attack_dice"]), Ability.from_json(raw["movement_ability"]),
                   Ability.from_json(raw["battle_ability"]), _counts(raw["start_cards"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class DeathEaterSheet:
    """A sheet's back (§4.2); ``start_cards`` maps spell/potion to the cards it takes when a battle starts."""

    sheet: int
    name: str
    lp: int
    res: int
    attack_dice: int
    battle_ability: Ability
    start_cards: Mapping[str, int]
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DeathEaterSheet:
        return cls(int(raw["sheet"]), str(raw["name"]), int(raw["lp"]), int(raw["res"]), int(raw["attack_dice"]),
                   Ability.from_json(raw["battle_ability"]), _counts(raw["start_cards"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class ReturnRow:
    item: str
    value: str
    src: str


@dataclass(frozen=True, slots=True)
class ReturnOfVoldemort:
    """§4.4: the table as printed (``rows``) and what set-up reads from it.

    ``horcruxes`` maps each Horcrux token to the cell it starts on; ``random_tokens`` go on free star cells;
    ``set_aside`` come into play after the return; the two ``*_side_tokens`` lists say who may take what;
    ``death_eaters`` name the six backs Voldemort commands.
    """

    rows: tuple[ReturnRow, ...]
    horcruxes: Mapping[str, str]
    random_tokens: tuple[str, ...]
    set_aside: tuple[str, ...]
    voldemort_side_tokens: tuple[str, ...]
    hero_side_tokens: tuple[str, ...]
    death_eaters: tuple[str, ...]

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ReturnOfVoldemort:
        def strs(key: str) -> tuple[str, ...]:
            return tuple(str(item) for item in raw[key])

        horcruxes = raw["horcruxes"]
        return cls(tuple(ReturnRow(str(r["item"]), str(r["value"]), str(r["src"])) for r in raw["rows"]),
                   MappingProxyType({str(t): str(horcruxes[t]) for t in sorted(horcruxes)}), strs("random_tokens"),
                   strs("set_aside"), strs("voldemort_side_tokens"), strs("hero_side_tokens"), strs("death_eaters"))
