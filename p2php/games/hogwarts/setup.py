"""The set-up (rules §5, data §3.2): characters, the shuffled decks, object tokens on the star cells, the
starting hands and the secret missions.

1. each seat chooses an unused character sheet, from the first player clockwise (rules §5.6);
2. every deck but the battle cards is shuffled face down (§5.5), the mission deck too (C-13);
3. the 30 object tokens go face up, one per star cell, in an order drawn from the joint randomness (§5.3);
4. one Deal gives each seat the spell, potion and book cards its sheet shows, from the tops of those decks,
   and 5 missions (3 with more than 6 players) that only it sees (§5.7);
5. each seat takes its sheet's life points, 2 flying powder tokens (underage) and 1 portal token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Deal, Decide, Knowledge, Randomness, Seat, Shuffle, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Replace, Task
from p2php.rng import DetRng

from .death_eaters import PlaceDeathEaters
from .ids import DECKS, MISSIONS, deck_cards, deck_first_slot, deck_of_slot
from .modes import difficulty, has_death_eaters
from .teams import ShareMissions

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["STARTING_POWDER", "Setup", "missions_per_player"]

STARTING_POWDER = {"underage": 2, "qualified": 1, "team": 1}
"""Flying powder tokens at the start (data §3.2)."""
STARTING_PORTALS = 1
HAND_ORDER = ("spell", "potion", "book")


def missions_per_player(players: int) -> int:
    """5 mission cards each, 3 with more than 6 players (rules §5.7)."""
    return 3 if players > 6 else 5


def star_cells(g: HogwartsState) -> list[str]:
    """The star cells in the data's order (main, board 1, board 2): where the tokens are laid."""
    return [c.id for c in g.data.cells.values() if c.kind == "star"]


@dataclass
class Setup(Task["HogwartsState"]):
    class Stage(Enum):
        CHARACTERS = auto()
        SHUFFLE = auto()
        TOKENS = auto()
        DEAL = auto()

    stage: Stage = Stage.CHARACTERS
    chosen: int = 0
    shuffled: int = 0

    def chooser(self, g: HogwartsState) -> Seat:
        return (g.first + self.chosen) % g.players

    def run(self, g: HogwartsState) -> Outcome:
        S = Setup.Stage
        if self.stage is S.CHARACTERS:
            return Decide((self.chooser(g),), "character")
        if self.stage is S.SHUFFLE:
            deck = (*DECKS, MISSIONS)[self.shuffled]
            return Shuffle(deck_cards(deck), deck_first_slot(deck), purpose=deck)
        if self.stage is S.TOKENS:
            return Randomness("tokens")
        return Deal(self.deal(g))

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        taken = set(g.sheet)
        return [{"type": "character", "sheet": s.sheet} for s in g.data.students if s.sheet not in taken]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        g.sheet[seat] = int(action["sheet"])
        g.log("character", seat, g.sheet[seat])
        self.chosen += 1
        if self.chosen == g.players:
            self.stage = Setup.Stage.SHUFFLE
        return CONTINUE

    def deal(self, g: HogwartsState) -> tuple[tuple[Slot, Seat], ...]:
        """Who gets which slot: each seat's sheet cards (seat by seat, deck tops first), then missions."""
        tops = {d: 0 for d in (*DECKS, MISSIONS)}
        out: list[tuple[Slot, Seat]] = []
        for seat in range(g.players):
            cards = g.student(seat).start_cards
            for deck in HAND_ORDER:
                for _ in range(cards.get(deck, 0)):
                    out.append((g.deck[deck][tops[deck]], seat))
                    tops[deck] += 1
        for _ in range(missions_per_player(g.players)):
            for seat in range(g.players):
                out.append((g.deck[MISSIONS][tops[MISSIONS]], seat))
                tops[MISSIONS] += 1
        return tuple(out)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        S = Setup.Stage
        if isinstance(step, Shuffle):
            g.deck[step.purpose] = list(step.slots)
            self.shuffled += 1
            if self.shuffled == len(DECKS) + 1:
                self.stage = S.TOKENS
            return CONTINUE
        if isinstance(step, Randomness):
            tokens = list(g.data.object_tokens)
            order = DetRng(random).permutation(len(tokens))
            for cell, k in zip(star_cells(g), order, strict=True):
                g.place_token(cell, tokens[k])
            self.stage = S.DEAL
            return CONTINUE
        assert isinstance(step, Deal)
        for slot, seat in step.to:
            deck = deck_of_slot(slot)
            g.deck[deck].remove(slot)
            (g.missions if deck == MISSIONS else g.hand)[seat].append(slot)
        for seat in range(g.players):
            g.lp[seat] = g.student(seat).lp
            g.give(seat, "powder", STARTING_POWDER[difficulty(g)])
            g.give(seat, "portal", STARTING_PORTALS)
        g.log("setup")
        after: list[Task[HogwartsState]] = [ShareMissions()] if g.mode == "team" else []
        if has_death_eaters(g):
            after.append(PlaceDeathEaters())
        return Replace(*after) if after else Done()

