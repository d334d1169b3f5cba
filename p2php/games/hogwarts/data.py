"""Loading A Year at Hogwarts' data: ``hogwarts_data.json`` (extracted from hogwarts-data.md by
``tools/extract_hogwarts_data.py``) read once through :mod:`importlib.resources`, decoded into the frozen
records of :mod:`.tables`, and checked (:mod:`.checks`) before anything uses it, so a bad regeneration fails
with one clear :class:`HogwartsDataError` instead of as a wrong game later.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from .board import Graph
from .cards import ActionCard, BookCard, DeckInfo, EnemyCard, EventCard, HandCard, QuidditchCard, VocabularyTerm
from .cells import Cell, CellEffect, CellKind, SpecialLink
from .checks import check
from .errors import DATA_FILE, HogwartsDataError
from .missions import Mission, ObjectToken, SetupRow
from .pitch import Pitch
from .sheets import DeathEaterSheet, ReturnOfVoldemort, StudentSheet
from .tables import HogwartsData, MovementExample, Resolution

__all__ = ["DATA_FILE", "HogwartsDataError", "decode", "graph", "load"]


class _Keyed(Protocol):
    @property
    def id(self) -> str: ...


K = TypeVar("K", bound=_Keyed)
T = TypeVar("T")


def _by(records: Iterable[T], key: Callable[[T], str], what: str) -> Mapping[str, T]:
    """Records by key in the document's order; a key seen twice is an error (ids are unique, data §0)."""
    found: dict[str, T] = {}
    for record in records:
        name = key(record)
        if name in found:
            raise HogwartsDataError(f"{DATA_FILE}: {what} {name}: the id is used twice")
        found[name] = record
    return MappingProxyType(found)


def _by_id(records: Iterable[K], what: str) -> Mapping[str, K]:
    return _by(records, lambda r: r.id, what)


def decode(raw: Mapping[str, Any]) -> HogwartsData:
    """The records of a parsed ``hogwarts_data.json`` (not yet checked); malformed input is a HogwartsDataError."""
    try:
        examples = raw["movement_examples"]
        return HogwartsData(
            cell_kinds=_by((CellKind.from_json(k) for k in raw["cell_kinds"]), lambda k: k.kind, "cell kind"),
            cells=_by_id((Cell.from_json(c) for c in raw["cells"]), "cell"),
            special_links=tuple(SpecialLink.from_json(link) for link in raw["special_links"]),
            cell_effects=_by((CellEffect.from_json(e) for e in raw["cell_effects"]), lambda e: e.cell, "cell effect"),
            cell_counts=MappingProxyType({str(kind): MappingProxyType({str(b): int(n) for b, n in row.items()})
                                          for kind, row in raw["cell_counts"].items()}),
            movement_examples=tuple(MovementExample(str(e["from"]), str(e["to"]), int(e["steps"]),
                                                    tuple(str(c) for c in e["path"])) for e in examples["distances"]),
            harry_turn=tuple(str(c) for c in examples["harry_turn"]),
            decks=_by((DeckInfo.from_json(d) for d in raw["decks"]), lambda d: d.deck, "deck"),
            battle_vocabulary=tuple(VocabularyTerm(str(t["term"]), str(t["meaning"]))
                                    for t in raw["battle_vocabulary"]),
            spells=_by_id((HandCard.from_json(c) for c in raw["spells"]), "spell card"),
            potions=_by_id((HandCard.from_json(c) for c in raw["potions"]), "potion card"),
            books=_by_id((BookCard.from_json(c) for c in raw["books"]), "book card"),
            actions=_by_id((ActionCard.from_json(c) for c in raw["actions"]), "action card"),
            events=_by_id((EventCard.from_json(c) for c in raw["events"]), "event card"),
            event_battles=_by_id((EnemyCard.from_json(c) for c in raw["event_battles"]), "event enemy"),
            duels=_by_id((EnemyCard.from_json(c) for c in raw["duels"]), "duel card"),
            battle_cards=_by_id((EnemyCard.from_json(c) for c in raw["battle_cards"]), "battle card"),
            quidditch_cards=_by_id((QuidditchCard.from_json(c) for c in raw["quidditch_cards"]), "Quidditch card"),
            object_tokens=_by_id((ObjectToken.from_json(t) for t in raw["object_tokens"]), "object token"),
            setup=tuple(SetupRow.from_json(r) for r in raw["setup"]),
            missions=tuple(Mission.from_json(m) for m in raw["missions"]),
            students=tuple(StudentSheet.from_json(s) for s in raw["students"]),
            death_eaters=tuple(DeathEaterSheet.from_json(s) for s in raw["death_eaters"]),
            ability_rules=tuple(str(rule) for rule in raw["ability_rules"]),
            return_of_voldemort=ReturnOfVoldemort.from_json(raw["return_of_voldemort"]),
            pitch=Pitch.from_json(raw["pitch"]),
            resolutions=tuple(Resolution(str(r["id"]), str(r["digest_section"]), str(r["resolution"]))
                              for r in raw["resolutions"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        if isinstance(err, HogwartsDataError):
            raise
        raise HogwartsDataError(f"{DATA_FILE} is malformed: {type(err).__name__} {err}") from None


@cache
def load() -> HogwartsData:
    """The game's data, read, decoded and checked once (cached); HogwartsDataError names what is wrong."""
    try:
        raw = json.loads(resources.files(__package__ or "p2php.games.hogwarts").joinpath(DATA_FILE).read_bytes())
    except (OSError, ValueError) as err:
        raise HogwartsDataError(f"cannot read p2php/games/hogwarts/{DATA_FILE}: {err}") from None
    if not isinstance(raw, dict):
        raise HogwartsDataError(f"{DATA_FILE} is malformed: expected a JSON object")
    data = decode(raw)
    check(data)
    return data


@cache
def graph() -> Graph:
    """The movement graph of the loaded map (:mod:`.board`), built once."""
    return Graph.of(load())
