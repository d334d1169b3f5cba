"""One turn: play a matching card, or draw one and then play it or keep it (rule 6).

Result (to the round): :class:`~.base.Next` or :class:`~.base.RoundOver`, handed up
by whatever the turn ends with (the turn itself after a draw, the played card's
effect chain after a play).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from functools import cache
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import Call, Done, Outcome, stage_names
from p2php.games.uno.base import FaceOf, RoundOver, UnoTask, decide, not_allowed, turn_passes_to
from p2php.games.uno.cards import WILD
from p2php.games.uno.effects import PlayCard
from p2php.games.uno.matching import Mode, ModeNames, Play, add_plays, playable, validate_play
from p2php.games.uno.moves import Draw

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState

_TURN_PLAYS = ((Mode.TURN, "play"),)


@cache
def _decides(players: int) -> tuple[tuple[Decide, ...], tuple[Decide, ...]]:
    return (tuple(decide((s,), "turn") for s in range(players)),
            tuple(decide((s,), "drawn") for s in range(players)))


@dataclass
class Turn(UnoTask):
    """``seat``'s turn."""

    class Stage(Enum):
        ASK = auto()  # play or draw
        DREW = auto()  # the draw is done (``drawn``: what it gave)
        OFFER = auto()  # play the card just drawn, or keep it

    seat: int
    stage: Stage = Stage.ASK
    drawn: tuple[int, ...] = ()
    counted: bool = False  # this turn is counted in ``g.turns``

    def run(self, g: UnoState) -> Outcome:
        seat = self.seat
        if self.stage is TurnStage.ASK:
            if not self.counted:
                if g.turns >= g.max_turns:  # the guard: the round ends as a blocked one, and the game with it
                    return Done(RoundOver(-1, None))
                g.turns += 1
                self.counted = True
            g.current = seat
            return _decides(g.n)[0][seat]
        if self.stage is TurnStage.OFFER:
            return _decides(g.n)[1][seat]
        if self.drawn:
            g.empty_draws = 0
            self.stage = TurnStage.OFFER
            return _decides(g.n)[1][seat]
        g.empty_draws += 1  # a draw that gave nothing ends the turn; n in a row block the round
        if g.empty_draws >= g.n:
            return Done(RoundOver(-1, None))
        return turn_passes_to(g.after(seat))

    @property
    def drawn_slot(self) -> int:
        return self.drawn[-1] if self.drawn else -1

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        acts: list[Action] = []
        if self.stage is TurnStage.ASK:
            add_plays(acts, g, seat, _TURN_PLAYS, knowledge)
            acts.append({"type": "draw"})
        else:
            add_plays(acts, g, seat, _TURN_PLAYS, knowledge, (self.drawn_slot,))
            acts.append({"type": "keep"})
        return acts

    def passes(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> bool:
        """A bare draw / keep, or a bare coloured card that :func:`playable` says matches."""
        if seat != self.seat or type(action) is not dict:
            return False
        size = len(action)
        typ = action.get("type")
        if size == 1:
            return typ == ("draw" if self.stage is TurnStage.ASK else "keep")
        if size != 2 or typ != "play":
            return False
        slot = action.get("slot")
        if type(slot) is not int or (slot != self.drawn_slot if self.drawn else slot not in g.hands[seat]):
            return False
        card = face_of(slot)
        return card is not None and g.deck.kind[card] < WILD and playable(g, card, ModeNames.TURN)

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        typ = action["type"]
        if typ == "play":
            if self.stage is not TurnStage.ASK and action.get("slot") != self.drawn_slot:
                raise IllegalAction("after drawing, only the card just drawn may be played")
            validate_play(g, seat, action, face_of, ModeNames.TURN)
        elif typ != ("draw" if self.stage is TurnStage.ASK else "keep"):
            raise not_allowed(g, action)

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        typ = action["type"]
        if typ == "play":  # PlayCard never waits: run it at once, in the turn's place
            return PlayCard(Play.of(seat, action, faces)).run(g)
        if typ == "draw":
            self.stage = TurnStage.DREW
            return Call(Draw(seat, 1), into="drawn")
        g.event(("keep", seat))
        return turn_passes_to(g.after(seat))

    def info(self, g: UnoState) -> dict[str, Any] | None:
        return {"drawn_slot": self.drawn_slot} if self.stage is TurnStage.OFFER else None


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
TurnStage = stage_names(Turn.Stage)
