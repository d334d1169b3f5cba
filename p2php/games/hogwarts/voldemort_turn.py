"""The flow of The Return of Lord Voldemort (rules §16.3, C-41): the set-up, then turns clockwise from the
villain (Pettigrew starts) until one side wins (:mod:`.voldemort_goals`).

A turn keeps the qualified structure without missions: 1. at most one start-of-turn card; 2. the roll (2
dice) and the move, picking up only the mover's side's tokens; 3. Harry's and Voldemort's paths crossing, or
a hero's battle with the Death Eater whose cell he entered (the turn then ends); 4. a trip (flying powder, a
portal, and Pettigrew's way from the pitch to the graveyard with the four tokens, no portal token needed),
after which Voldemort returns (:class:`.voldemort_setup.TheReturn`), or the cell's effect as C-41 trims it
(action and event cells: 1 flying powder or portal token; spell and potion cells, classrooms and special
cells: their spell and potion cards; a common room: 1 spell or potion card of choice, V12; life cells; no
books, duels, events, actions or Quidditch; Voldemort gains no LP); 5. a Horcrux attempt; 6. Voldemort's Death
Eaters (not on the turn of his return, V13).  A hero who failed a Horcrux rolls again instead of moving.

Every game ends: after :data:`MAX_ROUNDS` rounds without a winner it is drawn (no winners, V14).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, GameOver, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace, Task

from .decks import Draw
from .dice import Roll
from .events import ChooseDeck
from .moves import Move, Moved, Pickups, Trip
from .search import SearchDeck
from .start_cards import StartCard, dice_for, rolls_for
from .terms import parse
from .voldemort_eaters import EaterFight, EaterPhase
from .voldemort_goals import Crossing, HorcruxAttempt
from .voldemort_rules import (
    GRAVEYARD,
    PITCH,
    START_KIND,
    Campaign,
    campaign,
    eaters_at,
    harry,
    hero_goal,
    horcrux_here,
    is_voldemort,
    may_take,
    ritual_tokens,
    villain_goal,
)
from .voldemort_setup import ReturnSetup, TheReturn

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["MAX_ROUNDS", "Gift", "ReturnEffect", "ReturnTrip", "ReturnTurn", "ReturnYear", "SidePickups"]

MAX_ROUNDS = 150
DOUBLED = {"spell": "spell_cell_x2", "potion": "potion_cell_x2"}
GIFT_CELLS = ("action", "event")
CARD_DECKS = ("spell", "potion")


@dataclass
class SidePickups(Pickups):
    """Pickups of the mover's own side's tokens only (rules §16.1)."""

    def offers(self, g: HogwartsState) -> list[Action]:
        return [a for a in super().offers(g) if may_take(g, self.seat, str(a["token"]))]


@dataclass
class ReturnTrip(Trip):
    """The usual trips, and Pettigrew's way from the pitch to the graveyard with the four tokens (§16.2)."""

    def offers(self, g: HogwartsState) -> list[Action]:
        out = super().offers(g)
        c = campaign(g)
        if self.seat == c.villain and not c.returned and g.pos[self.seat] == PITCH \
                and all(t in g.held[self.seat] for t in ritual_tokens(g)):
            out.append({"type": "graveyard"})
        return out

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        if answers[0][1]["type"] == "graveyard":
            g.log("trip", self.seat, "graveyard", GRAVEYARD)
            return Done(["graveyard", GRAVEYARD])
        return super().answer(g, answers, faces)


@dataclass
class Gift(Task["HogwartsState"]):
    """An action or event cell gives 1 flying powder or 1 portal token (rules §16.3)."""

    seat: int

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "gift", "what": w} for w in ("powder", "portal") if g.supply[w]]

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "gift") if self.legal(g, self.seat, g.public()) else Done()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        what = str(answers[0][1]["what"])
        g.give(self.seat, what)
        g.log("gift", self.seat, what)
        return Done()


def effect_tasks(g: HogwartsState, seat: Seat) -> list[Task[HogwartsState]]:
    """The cell's effect in Return mode (C-41)."""
    cell = g.data.cells[g.pos[seat]]
    kind = cell.kind
    if kind in DOUBLED:
        twice = not is_voldemort(g, seat) and g.ability(seat)[0] == DOUBLED[kind]
        return [Draw(seat, kind, 2 if twice else 1)]
    if kind in GIFT_CELLS:
        return [Gift(seat)]
    if cell.life_points is not None:
        if not is_voldemort(g, seat):
            g.heal(seat, cell.life_points)
        return []
    if kind == "common_room":
        return [ChooseDeck(seat, list(CARD_DECKS))]
    effect = g.data.cell_effects.get(cell.id)
    if effect is None:
        return []
    return [Draw(seat, deck, n) for deck, n in effect.take if deck in CARD_DECKS]


@dataclass
class ReturnEffect(Task["HogwartsState"]):
    seat: int

    def run(self, g: HogwartsState) -> Outcome:
        tasks = effect_tasks(g, self.seat)
        return Replace(*tasks) if tasks else Done()


@dataclass
class ReturnTurn(Task["HogwartsState"]):
    class Stage(Enum):
        BEGIN = auto()
        START_CARD = auto()
        ROLL = auto()
        MOVE = auto()
        PICKUPS = auto()
        AFTER_MOVE = auto()
        TRIP = auto()
        EFFECT = auto()
        HORCRUX = auto()
        EATERS = auto()
        END = auto()

    seat: int
    stage: Stage = Stage.BEGIN
    start: str = ""
    dice: list[int] | None = None
    moved: Moved | None = None
    taken: int = 0
    trip: list[str] | None = None
    origin: str = ""
    fresh: bool = False  # Voldemort returned this turn: his Death Eaters wait for his next one

    def run(self, g: HogwartsState) -> Outcome:
        S = ReturnTurn.Stage
        seat = self.seat
        if self.stage is S.BEGIN:
            g.turn = seat
            g.fallen, g.ended = [], []
            g.events = []
            g.log("turn", seat, g.turns)
            c = campaign(g)
            if seat in c.retry:
                token = horcrux_here(g, seat)
                if token is not None:  # a failed Horcrux: roll again instead of moving (rules §16.3)
                    self.stage = S.END
                    return Push(HorcruxAttempt(seat, token))
                c.retry.remove(seat)
            self.stage = S.START_CARD
            return Call(StartCard(seat), into="start")
        if self.stage is S.START_CARD:
            if self.start.startswith("search"):
                decks = [d for d in parse(self.start)[1] if d in CARD_DECKS]
                self.start = ""
                return Push(SearchDeck(seat, decks))
            self.stage = S.ROLL
            return Call(Roll(dice_for(self.start), "move"), into="dice")
        if self.stage is S.ROLL:
            self.stage = S.MOVE
            return Call(Move(seat, rolls_for(self.start, self.dice or []), self.start == "stop_anywhere"),
                        into="moved")
        if self.stage is S.MOVE:
            self.stage = S.PICKUPS
            assert self.moved is not None
            return Call(SidePickups(seat, list(self.moved.path[1:])), into="taken")
        if self.stage is S.PICKUPS:
            return self.after_move(g)
        if self.stage is S.AFTER_MOVE:
            return self.after_trip(g)
        if self.stage is S.TRIP:
            self.stage = S.HORCRUX
            return Call(SidePickups(seat, [g.pos[seat]], self.taken), into="taken")
        if self.stage is S.EFFECT:
            self.stage = S.HORCRUX
            return Push(ReturnEffect(seat))
        if self.stage is S.HORCRUX:
            self.stage = S.EATERS
            token = horcrux_here(g, seat)
            return Push(HorcruxAttempt(seat, token)) if token is not None and seat not in g.ended else CONTINUE
        if self.stage is S.EATERS:
            self.stage = S.END
            return Push(EaterPhase(seat)) if is_voldemort(g, seat) and not self.fresh else CONTINUE
        if self.trip and seat not in g.fallen:
            g.pos[seat] = self.origin
        return Done()

    def after_move(self, g: HogwartsState) -> Outcome:
        assert self.moved is not None
        seat, c = self.seat, campaign(g)
        entered = len(self.moved.path) > 1
        here = g.pos[seat]
        crossed = (seat == c.villain and here == g.pos[harry(g)]) or (seat == harry(g) and here == g.pos[c.villain])
        crossed = crossed and g.graph.kinds[here] != START_KIND  # the start cell never starts a battle (C-18)
        if entered and c.returned and crossed and (villain_goal(g) or hero_goal(g)):
            self.stage = ReturnTurn.Stage.END
            return Push(Crossing(seat))
        eaters = eaters_at(g, here) if entered and seat != c.villain and g.graph.kinds[here] != START_KIND else []
        if eaters:
            self.stage = ReturnTurn.Stage.END  # a battle after a forced stop ends the turn (rules §8)
            return Push(EaterFight(seat, eaters[0], eater_first=False))
        self.stage = ReturnTurn.Stage.AFTER_MOVE
        return Call(ReturnTrip(seat), into="trip")

    def after_trip(self, g: HogwartsState) -> Outcome:
        if not self.trip:
            self.stage = ReturnTurn.Stage.EFFECT
            return CONTINUE
        kind, dest = self.trip
        self.origin = g.pos[self.seat]
        g.pos[self.seat] = dest
        self.stage = ReturnTurn.Stage.TRIP
        c = campaign(g)
        if self.seat == c.villain and not c.returned and dest == GRAVEYARD \
                and all(t in g.held[self.seat] for t in ritual_tokens(g)):
            self.fresh = True
            return Push(TheReturn())
        return CONTINUE


@dataclass
class ReturnYear(Task["HogwartsState"]):
    """The whole game, at the bottom of the stack; holds the campaign's public record."""

    campaign: Campaign = field(default_factory=Campaign)
    started: bool = False
    next_seat: int = -1
    played: int = 0

    def clone(self) -> ReturnYear:
        """:meth:`Task.clone` with the campaign copied too (a dataclass, not a container: it was shared, and an
        answer applied to a clone changed the original's Death Eaters)."""
        new = super().clone()
        assert isinstance(new, ReturnYear)
        new.campaign = copy.deepcopy(self.campaign)
        return new

    def run(self, g: HogwartsState) -> Outcome:
        if not self.started:
            self.started = True
            self.campaign.villain = g.first
            self.next_seat = g.first
            return Push(ReturnSetup())
        if self.played >= MAX_ROUNDS * g.players:
            g.log("draw", MAX_ROUNDS)
            return GameOver((), tuple(0 for _ in range(g.players)), f"drawn after {MAX_ROUNDS} rounds")
        seat = self.next_seat
        self.next_seat = (seat + 1) % g.players
        self.played += 1
        g.turns += 1
        return Push(ReturnTurn(seat))
