"""Everything hogwarts-data.md holds, as one frozen record (:class:`HogwartsData`), with the lookups the game
needs.  Mappings keep the document's order (cells board by board, cards deck-table order); records of a kind
that the document numbers (missions, sheets) are tuples in that order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .cards import ActionCard, BookCard, DeckInfo, EnemyCard, EventCard, HandCard, QuidditchCard, VocabularyTerm
from .cells import Cell, CellEffect, CellKind, SpecialLink
from .missions import Mission, ObjectToken, SetupRow
from .pitch import Pitch
from .sheets import DeathEaterSheet, ReturnOfVoldemort, StudentSheet

__all__ = ["HogwartsData", "MovementExample", "Resolution"]


@dataclass(frozen=True, slots=True)
class Resolution:
    """One line of §6: how p2php settles an ambiguity the digest flags (``digest_section`` names the note)."""

    id: str
    digest_section: str
    resolution: str


@dataclass(frozen=True, slots=True)
class MovementExample:
    """One of the rulebook's distances (§1.9): the shortest number of steps and the path that achieves it."""

    source: str
    target: str
    steps: int
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HogwartsData:
    cell_kinds: Mapping[str, CellKind]  # by §1.1 kind (``life:N`` for every life cell)
    cells: Mapping[str, Cell]
    special_links: tuple[SpecialLink, ...]
    cell_effects: Mapping[str, CellEffect]  # by cell id
    cell_counts: Mapping[str, Mapping[str, int]]  # §1.8: kind (and "all") -> board (and "total") -> count
    movement_examples: tuple[MovementExample, ...]
    harry_turn: tuple[str, ...]  # the 10-step example turn, start cell first (§1.9)
    decks: Mapping[str, DeckInfo]  # §2.1, including the mission deck
    battle_vocabulary: tuple[VocabularyTerm, ...]
    spells: Mapping[str, HandCard]
    potions: Mapping[str, HandCard]
    books: Mapping[str, BookCard]
    actions: Mapping[str, ActionCard]
    events: Mapping[str, EventCard]
    event_battles: Mapping[str, EnemyCard]
    duels: Mapping[str, EnemyCard]
    battle_cards: Mapping[str, EnemyCard]
    quidditch_cards: Mapping[str, QuidditchCard]
    object_tokens: Mapping[str, ObjectToken]
    setup: tuple[SetupRow, ...]
    missions: tuple[Mission, ...]  # missions[n - 1].number == n
    students: tuple[StudentSheet, ...]  # students[n - 1].sheet == n
    death_eaters: tuple[DeathEaterSheet, ...]  # the backs, same numbering
    ability_rules: tuple[str, ...]
    return_of_voldemort: ReturnOfVoldemort
    pitch: Pitch
    resolutions: tuple[Resolution, ...]

    def deck(self, name: str) -> Mapping[str, HandCard | BookCard | ActionCard | EventCard | EnemyCard
                                         | QuidditchCard]:
        """The distinct cards of a §2.1 deck (``spell``, ``potion``, ``book``, ``action``, ``event``, ``duel``,
        ``battle``, ``quidditch``) by id; ``KeyError`` for any other name."""
        decks: dict[str, Mapping[str, HandCard | BookCard | ActionCard | EventCard | EnemyCard | QuidditchCard]] = {
            "spell": self.spells, "potion": self.potions, "book": self.books, "action": self.actions,
            "event": self.events, "duel": self.duels, "battle": self.battle_cards, "quidditch": self.quidditch_cards}
        return decks[name]

    def deck_size(self, name: str) -> int:
        """How many cards the deck holds, copies counted (books, duels and battle cards are one copy each)."""
        return sum(getattr(card, "copies", 1) for card in self.deck(name).values())

    def hand_card(self, card_id: str) -> HandCard:
        """A spell or potion card by id (the cards a mission may name)."""
        return self.spells.get(card_id) or self.potions[card_id]

    def mission(self, number: int) -> Mission:
        if not 1 <= number <= len(self.missions):
            raise KeyError(f"no mission {number} (1..{len(self.missions)})")
        return self.missions[number - 1]

    def great_hall_cells(self) -> tuple[str, ...]:
        """The cells "part of the Great Hall" (flag ``gh``), sorted: where ``@gh`` and EV03 send a player."""
        return tuple(sorted(c.id for c in self.cells.values() if c.in_great_hall))

    def cells_of(self, board: str) -> tuple[str, ...]:
        return tuple(c.id for c in self.cells.values() if c.board == board)
