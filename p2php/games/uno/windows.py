"""Response windows: the decisions other than a turn (catching a missed UNO, answering a card
played at you, the Wild Draw Four challenge, the Resurrection Stone, Sorting Hat draws, the
first colour).

A window asks and checks; it does not decide what the answer does to the game when that
is a card's business: :class:`Respond`, :class:`StoneWindow` and :class:`ChallengeWindow`
hand a typed result back to the effect that opened them (see :mod:`.effects`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Deal, IllegalAction, Knowledge, Seat, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Replace, stage_names
from p2php.games.uno.base import FaceOf, UnoTask, decide, not_allowed
from p2php.games.uno.cards import COLOUR_INDEX, COLOURS, NUMBER
from p2php.games.uno.matching import Mode, ModeNames, Play, add_plays, validate_play
from p2php.games.uno.moves import Draw, refill

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState

@dataclass
class CatchWindow(UnoTask):
    """Every other seat may catch ``offender``, who emptied their hand to one card or none without UNO."""

    offender: int

    def run(self, g: UnoState) -> Outcome:
        return decide(g.others(self.offender), "catch")

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "catch"}, {"type": "pass"}]

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        if action["type"] not in ("catch", "pass"):
            raise not_allowed(g, action)

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        for s, a in answers:
            if a["type"] == "catch":
                g.event(("caught", s, self.offender))
                return Replace(Draw(self.offender, 2))
        return Done()

    def info(self, g: UnoState) -> dict[str, Any] | None:
        return {"uno_missed_by": self.offender}


@dataclass(frozen=True, slots=True)
class Reply:
    """What the victim of a card answered: ``accept``, ``challenge``, ``invisibility`` or ``stack`` (with the play)."""

    kind: str
    play: Play | None = None


@dataclass
class Respond(UnoTask):
    """The victim of a card played at them answers: take it, Invisibility, stack a Draw Two
    (``stack``), or challenge a Wild Draw Four (``challenge``).  Result: a :class:`Reply`."""

    effect: str  # the card's effect, by name ("draw_two", "wild_draw_four", ...)
    by: int
    against: int
    draw: int = 0  # the total of a Draw Two (stacked ones included)
    challenge: bool = False
    stack: bool = False

    def run(self, g: UnoState) -> Outcome:
        return decide((self.against,), "respond:" + self.effect)

    def _modes(self) -> list[tuple[Mode, str]]:
        modes = [(ModeNames.INVISIBILITY, "invisibility")]
        if self.stack:
            modes.append((ModeNames.STACK, "play"))
        return modes

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        acts: list[Action] = [{"type": "accept"}]
        if self.challenge:
            acts.append({"type": "challenge"})
        add_plays(acts, g, seat, self._modes(), knowledge)
        return acts

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        typ = action["type"]
        if typ == "accept" or (typ == "challenge" and self.challenge):
            return
        if typ == "invisibility":
            validate_play(g, seat, action, face_of, ModeNames.INVISIBILITY)
        elif typ == "play" and self.stack:
            validate_play(g, seat, action, face_of, ModeNames.STACK)
        else:
            raise not_allowed(g, action)

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        typ = action["type"]
        if typ == "accept" or typ == "challenge":
            return Done(Reply(typ))
        return Done(Reply("invisibility" if typ == "invisibility" else "stack", Play.of(seat, action, faces)))

    def info(self, g: UnoState) -> dict[str, Any] | None:
        info: dict[str, Any] = {"effect": self.effect, "by": self.by, "against": self.against}
        if self.effect == "draw_two":
            info["draw"] = self.draw
        return info


@dataclass
class ChallengeWindow(UnoTask):
    """A challenged Wild Draw Four: ``player``'s hand as it was (``hand``) is shown to the
    challenger, then ``player`` admits whether the play was legal (checked by whoever can
    see the hand).  Result: the verdict (``True``: it was legal)."""

    class Stage(Enum):
        SHOW = auto()
        VERDICT = auto()

    player: int
    victim: int
    colour_before: int
    hand: tuple[int, ...]
    stage: Stage = Stage.SHOW

    def run(self, g: UnoState) -> Outcome:
        if self.stage is ChallengeWindowStage.SHOW:
            return Show(self.hand, self.player, self.victim)
        return decide((self.player,), "verdict")

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.stage = ChallengeWindowStage.VERDICT
        return CONTINUE

    def truth(self, g: UnoState, face_of: FaceOf) -> bool | None:
        """Whether the Wild Draw Four was legal, if ``face_of`` knows enough to tell."""
        colours = g.deck.colour
        unknown = False
        for s in self.hand:
            f = face_of(s)
            if f is None:
                unknown = True
            elif colours[f] == self.colour_before:
                return False
        return None if unknown else True

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        truth = self.truth(g, knowledge.face)
        if truth is None:
            return [{"type": "verdict", "legal": True}, {"type": "verdict", "legal": False}]
        return [{"type": "verdict", "legal": truth}]

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        if action["type"] != "verdict":
            raise not_allowed(g, action)
        legal = action.get("legal")
        if type(legal) is not bool:
            raise IllegalAction("a verdict needs legal=true or legal=false")
        truth = self.truth(g, face_of)
        if truth is not None and truth != legal:
            raise IllegalAction(f"false verdict: the Wild Draw Four was {'legal' if truth else 'illegal'}")

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        g.event(("verdict", seat, action["legal"]))
        return Done(bool(action["legal"]))

    def info(self, g: UnoState) -> dict[str, Any] | None:
        return {"effect": "wild_draw_four", "by": self.player, "against": self.victim}


@dataclass
class StoneWindow(UnoTask):
    """``out`` emptied their hand: every other seat may play the Resurrection Stone.
    Result: the Stone's :class:`Play`, or ``None`` when all passed."""

    out: int

    def run(self, g: UnoState) -> Outcome:
        return decide(g.others(self.out), "stone")

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        acts: list[Action] = []
        add_plays(acts, g, seat, ((ModeNames.STONE, "stone"),), knowledge)
        acts.append({"type": "pass"})
        return acts

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        typ = action["type"]
        if typ == "stone":
            validate_play(g, seat, action, face_of, ModeNames.STONE)
        elif typ != "pass":
            raise not_allowed(g, action)

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        for s, a in answers:
            if a["type"] == "stone":
                return Done(Play.of(s, a, faces))
        return Done(None)

    def info(self, g: UnoState) -> dict[str, Any] | None:
        return {"went_out": self.out}


@dataclass
class StoneUno(UnoTask):
    """Brought back by the Stone with one card, ``seat`` must call UNO; ``pass`` costs one card at once."""

    seat: int

    def run(self, g: UnoState) -> Outcome:
        if len(g.hands[self.seat]) != 1:
            return Done()
        return decide((self.seat,), "stone_uno")

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "uno"}, {"type": "pass"}]

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        if action["type"] not in ("uno", "pass"):
            raise not_allowed(g, action)

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        if action["type"] == "uno":
            g.event(("uno", seat))
            return Done()
        g.event(("forgot_uno", seat))
        return Replace(Draw(seat, 1))


@dataclass
class SortingDraw(UnoTask):
    """The Sorting Hat's target draws one card at a time until one is a Gryffindor (a number 1–4).

    After each card the target says ``sorted`` (opening it) or ``not_yet`` (a claim checked
    by whoever knows the face).  The draw stops when nothing is left to draw.
    """

    class Stage(Enum):
        DRAW = auto()
        ASK = auto()

    target: int
    slot: int = -1
    stage: Stage = Stage.DRAW

    def run(self, g: UnoState) -> Outcome:
        if self.stage is SortingDrawStage.ASK:
            return decide((self.target,), "sorting")
        pile = g.pile
        if not pile:
            return refill(g, self.target) or Done()
        return Deal(((pile[-1], self.target),))

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        slot = g.pile.pop()
        g.hands[self.target].append(slot)
        g.event(("draw", self.target, 1))
        self.slot = slot
        self.stage = SortingDrawStage.ASK
        return CONTINUE

    def gryffindor(self, g: UnoState, card: CardId) -> bool:
        d = g.deck
        return d.kind[card] == NUMBER and 1 <= d.value[card] <= 4

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        card = knowledge.face(self.slot)
        if card is None:
            return [{"type": "sorted"}, {"type": "not_yet"}]
        return [{"type": "sorted" if self.gryffindor(g, card) else "not_yet"}]

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        typ = action["type"]
        if typ not in ("sorted", "not_yet"):
            raise not_allowed(g, action)
        card = face_of(self.slot)
        if card is not None:
            gryffindor = self.gryffindor(g, card)
            if typ == "sorted" and not gryffindor:
                raise IllegalAction(f"{g.deck.names[card]} is not a Gryffindor student (1–4)")
            if typ == "not_yet" and gryffindor:
                raise IllegalAction(f"{g.deck.names[card]} is a Gryffindor student: say 'sorted'")

    def reveals(self, g: UnoState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (self.slot,) if action.get("type") == "sorted" and seat == self.target else ()

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        if action["type"] != "sorted":
            self.stage = SortingDrawStage.DRAW
            return CONTINUE
        card = faces[self.slot]
        g.pub[self.slot] = card
        g.npub[seat] += 1
        g.loc[card] = seat
        g.event(("sorted", seat, card))
        return Done()

    def info(self, g: UnoState) -> dict[str, Any] | None:
        if self.stage is not SortingDrawStage.ASK:
            return None
        return {"sorting": self.target, "slot": self.slot}


@dataclass
class FirstColour(UnoTask):
    """A wild-type first card: the player left of the dealer names the colour."""

    def run(self, g: UnoState) -> Outcome:
        return decide(((g.dealer + 1) % g.n,), "first_colour")

    def legal(self, g: UnoState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "colour", "colour": c} for c in COLOURS]

    def validate(self, g: UnoState, seat: Seat, action: Action, face_of: FaceOf) -> None:
        if action["type"] != "colour":
            raise not_allowed(g, action)
        if action.get("colour") not in COLOUR_INDEX:
            raise IllegalAction(f"colour must be one of {', '.join(COLOURS)}")

    def answer(self, g: UnoState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        g.colour = COLOUR_INDEX[action["colour"]]
        g.event(("colour", seat, g.colour))
        return Done()

    def info(self, g: UnoState) -> dict[str, Any] | None:
        return {"first_card": g.deck.names[g.discard[-1]]} if g.discard else None


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
ChallengeWindowStage = stage_names(ChallengeWindow.Stage)
SortingDrawStage = stage_names(SortingDraw.Stage)
