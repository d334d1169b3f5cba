"""Playing a card, and what each card then does.

:class:`PlayCard` moves a validated :class:`~p2php.games.uno.matching.Play` to the
discard pile, sets the colour and picks the card's effect task.  What follows a play
(rule 15 of the package docstring): the UNO catch window, then :class:`CheckOut`
(an empty hand opens the Resurrection Stone window or ends the round), otherwise the
effect.  Effects against a seat first open that seat's :class:`~.windows.Respond`
window when public information allows an answer (rule 17), and act on its typed
:class:`~.windows.Reply`.  Every chain ends with the turn's result: :class:`~.base.Next`
or :class:`~.base.RoundOver`.  ``final()`` lists the draws an effect still makes when
the round ends on it (rule 19).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.tasks import Call, Done, Outcome, Replace, stage_names
from p2php.games.uno.base import Effect, NextTurn, RoundOver, UnoTask, turn_passes_to
from p2php.games.uno.cards import (
    DRAW_TWO,
    HOWLER,
    MOODY,
    NUMBER,
    REVERSE,
    SKIP,
    SORTING_HAT,
    VOLDEMORT,
    WILD,
    WILD_DRAW_FOUR,
)
from p2php.games.uno.matching import Mode, ModeNames, Play
from p2php.games.uno.moves import Draw, RevealHands
from p2php.games.uno.windows import CatchWindow, ChallengeWindow, Reply, Respond, SortingDraw, StoneUno, StoneWindow

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState


# ----------------------------------------------------------------------------- effects that ask nobody


@dataclass
class NextPlayer(Effect):
    """A number, Wild, Voldemort, or a Harry Potter card played as a Wild: the next player's turn."""

    player: int

    def run(self, g: UnoState) -> Outcome:
        return turn_passes_to(g.after(self.player))


@dataclass
class ReverseEffect(Effect):
    """The direction has turned: the next player in the new direction plays (with two players,
    the other one; the house rule ``reverse2=skip`` makes it a Skip there)."""

    player: int

    def run(self, g: UnoState) -> Outcome:
        return turn_passes_to(self.player if g.n == 2 and g.reverse_skips else g.after(self.player))


@dataclass
class Resume(Effect):
    """After Invisibility cancelled a card: ``seat`` plays."""

    seat: int

    def run(self, g: UnoState) -> Outcome:
        return turn_passes_to(self.seat)


# ----------------------------------------------------------------------------- effects against a seat


@dataclass
class Attack(Effect):
    """A card played against ``victim`` by ``player``: the victim may answer first (see :class:`Respond`)."""

    class Stage(Enum):
        START = auto()
        REPLY = auto()
        VERDICT = auto()

    NAME = ""

    player: int
    victim: int
    stage: Stage = field(default=Stage.START, kw_only=True)
    reply: Reply | None = field(default=None, kw_only=True)

    def window(self, g: UnoState) -> bool:
        """Could the victim answer, by public information?  (Rule 17.)"""
        return g.could_hold(self.victim, g.deck.invisibility)

    def respond(self, g: UnoState) -> Respond:
        return Respond(self.NAME, self.player, self.victim)

    def accept(self, g: UnoState) -> list[UnoTask]:
        """What taking the card does."""
        raise NotImplementedError

    def resume_seat(self, g: UnoState) -> int:
        """Who plays after Invisibility cancelled this card: the next player after a card played at
        the next player (Skip, Draw Two, Wild Draw Four), else the one after the card's player."""
        return g.after(self.player)

    def run(self, g: UnoState) -> Outcome:
        if self.stage is AttackStage.START:
            if not self.window(g):
                return Replace(*self.accept(g))
            self.stage = AttackStage.REPLY
            return Call(self.respond(g), into="reply")
        reply = self.reply
        assert reply is not None
        if reply.kind == "accept":
            return Replace(*self.accept(g))
        if reply.kind == "challenge":
            return self.challenged(g)
        assert reply.play is not None
        if reply.kind == "invisibility":
            return Replace(PlayCard(reply.play, Mode.INVISIBILITY, resume=self.resume_seat(g)))
        return Replace(PlayCard(reply.play, Mode.STACK, stacked=self.stacked_total()))

    def challenged(self, g: UnoState) -> Outcome:
        raise AssertionError("only a Wild Draw Four can be challenged")

    def stacked_total(self) -> int:
        raise AssertionError("only a Draw Two can be stacked on")


@dataclass
class SkipEffect(Attack):
    NAME = "skip"

    def accept(self, g: UnoState) -> list[UnoTask]:
        return [NextTurn(g.after(self.victim))]

    def resume_seat(self, g: UnoState) -> int:
        return self.victim


@dataclass
class DrawTwoEffect(Attack):
    """Draw Two (Three in the magic decks); with stacking, another Draw Two passes the total on."""

    NAME = "draw_two"

    total: int = 2

    def window(self, g: UnoState) -> bool:
        return super().window(g) or (g.stacking and any(g.could_hold(self.victim, c) for c in g.deck.draw_twos))

    def respond(self, g: UnoState) -> Respond:
        return Respond(self.NAME, self.player, self.victim, draw=self.total, stack=g.stacking)

    def accept(self, g: UnoState) -> list[UnoTask]:
        return [Draw(self.victim, self.total), NextTurn(g.after(self.victim))]

    def resume_seat(self, g: UnoState) -> int:
        return self.victim

    def stacked_total(self) -> int:
        return self.total

    def final(self) -> list[UnoTask]:
        return [Draw(self.victim, self.total)]


@dataclass
class WildDrawFourEffect(Attack):
    """Always opens its window (a challenge is always possible)."""

    NAME = "wild_draw_four"

    colour_before: int = -1
    hand: tuple[int, ...] = ()  # the player's hand as it was when the card was played
    verdict: bool = field(default=False, kw_only=True)

    def window(self, g: UnoState) -> bool:
        return True

    def respond(self, g: UnoState) -> Respond:
        return Respond(self.NAME, self.player, self.victim, challenge=True)

    def accept(self, g: UnoState) -> list[UnoTask]:
        return [Draw(self.victim, 4), NextTurn(g.after(self.victim))]

    def resume_seat(self, g: UnoState) -> int:
        return self.victim

    def challenged(self, g: UnoState) -> Outcome:
        g.event(("challenge", self.victim, self.player))
        if self.hand:
            self.stage = AttackStage.VERDICT
            return Call(ChallengeWindow(self.player, self.victim, self.colour_before, self.hand), into="verdict")
        g.event(("verdict", self.player, True))  # the player held nothing else: legal, publicly
        return self.judged(g, True)

    def judged(self, g: UnoState, legal: bool) -> Outcome:
        if legal:
            return Replace(Draw(self.victim, 6), NextTurn(g.after(self.victim)))
        return Replace(Draw(self.player, 4), NextTurn(self.victim))

    def run(self, g: UnoState) -> Outcome:
        if self.stage is AttackStage.VERDICT:
            return self.judged(g, self.verdict)
        return super().run(g)

    def final(self) -> list[UnoTask]:
        return [Draw(self.victim, 4)]


@dataclass
class SortingHatEffect(Attack):
    NAME = "sorting_hat"

    def accept(self, g: UnoState) -> list[UnoTask]:
        return [SortingDraw(self.victim), NextTurn(g.after(self.player))]

    def final(self) -> list[UnoTask]:
        return [SortingDraw(self.victim)]


@dataclass
class MoodyEffect(Attack):
    NAME = "moody"

    def accept(self, g: UnoState) -> list[UnoTask]:
        return [Draw(self.victim, 2), NextTurn(g.after(self.player))]

    def final(self) -> list[UnoTask]:
        return [Draw(self.victim, 2)]


@dataclass
class HowlerEffect(Attack):
    NAME = "howler"

    def accept(self, g: UnoState) -> list[UnoTask]:
        return [RevealHands(self.victim), NextTurn(g.after(self.player))]


# ----------------------------------------------------------------------------- the Resurrection Stone


@dataclass
class StoneEffect(Effect):
    """``player`` played the Stone after ``out`` went out: ``out`` draws 1, must call UNO, then
    the card they went out with (``then``) takes its effect."""

    player: int
    out: int
    then: Effect

    def run(self, g: UnoState) -> Outcome:
        return Replace(Draw(self.out, 1), StoneUno(self.out), StoneAfter(self.out, self.then))

    def final(self) -> list[UnoTask]:
        return [Draw(self.out, 1), *self.then.final()]


@dataclass
class StoneAfter(UnoTask):
    """Back from the Stone: ``then`` takes its effect, unless ``out`` is still empty-handed."""

    out: int
    then: Effect

    def run(self, g: UnoState) -> Outcome:
        if g.hands[self.out]:
            return Replace(self.then)
        return Done(RoundOver(self.out, self.then))


# ----------------------------------------------------------------------------- playing


@dataclass
class CheckOut(UnoTask):
    """After a play by ``seat`` (and any catch penalty): the effect, or, with an empty hand, the
    Stone window and the end of the round."""

    class Stage(Enum):
        START = auto()
        STONE = auto()

    seat: int
    effect: Effect
    stage: Stage = Stage.START
    stone: Play | None = None

    def run(self, g: UnoState) -> Outcome:
        if self.stage is CheckOutStage.START:
            if g.hands[self.seat]:
                return Replace(self.effect)
            if not g.stone_possible(self.seat):
                return Done(RoundOver(self.seat, self.effect))
            self.stage = CheckOutStage.STONE
            return Call(StoneWindow(self.seat), into="stone")
        if self.stone is None:
            return Done(RoundOver(self.seat, self.effect))
        return Replace(PlayCard(self.stone, ModeNames.STONE, went_out=self.seat, then=self.effect))


@dataclass
class PlayCard(UnoTask):
    """Carry out a validated play: the card (and Voldemort's dump) to the discard pile, the colour,
    the UNO call, then what follows."""

    play: Play
    mode: Mode = Mode.TURN
    resume: int = -1  # Invisibility: who plays after it
    stacked: int = 0  # stacking: the total so far
    went_out: int = -1  # the Stone: who went out ...
    then: Effect | None = None  # ... and the effect of the card they went out with

    def run(self, g: UnoState) -> Outcome:
        p = self.play
        d = g.deck
        seat, card = p.seat, p.card
        hand = g.hands[seat]
        before = len(hand)
        g.take(seat, p.slot)
        discard = g.discard
        loc = g.loc
        discard.append(card)
        loc[card] = -2
        k = d.kind[card]
        prev_colour = g.colour
        dumped: tuple[int, ...] = ()
        if k == VOLDEMORT:
            for s, c in p.dump:
                g.take(seat, s)
                discard.append(c)
                loc[c] = -2
            dumped = tuple(c for _s, c in p.dump)
            g.colour = d.colour[discard[-1]] if p.dump else p.colour
        elif k >= WILD:
            g.colour = p.colour
        else:
            g.colour = d.colour[card]
        g.empty_draws = 0
        g.event(("play", seat, card, g.colour, p.target, dumped, int(self.mode)))
        effect = self.effect(g, k, prev_colour, hand)
        if before >= 2 and len(hand) <= 1:
            if p.uno:
                g.event(("uno", seat))
                return Replace(CheckOut(seat, effect))
            return Replace(CatchWindow(seat), CheckOut(seat, effect))
        if not hand:
            return Replace(CheckOut(seat, effect))
        if type(effect) is NextPlayer:  # nothing can happen before the next turn
            return turn_passes_to(g.after(seat))
        return Replace(effect)  # what CheckOut would do with a hand that is not empty

    def effect(self, g: UnoState, k: int, prev_colour: int, hand: list[int]) -> Effect:
        """The effect of the card just played (``hand``: the player's hand now; only a Wild Draw Four keeps
        a copy, for a challenge, so the commonest plays copy nothing)."""
        seat, target = self.play.seat, self.play.target
        mode = self.mode
        if mode is ModeNames.INVISIBILITY:
            return Resume(self.resume)
        if mode is ModeNames.STONE:
            assert self.then is not None
            return StoneEffect(seat, self.went_out, self.then)
        if k == NUMBER:
            return NextPlayer(seat)
        if k == DRAW_TWO:
            return DrawTwoEffect(seat, g.after(seat), g.deck.draw_penalty + self.stacked)
        if k == REVERSE:
            g.direction = -g.direction
            return ReverseEffect(seat)
        if k == SKIP:
            return SkipEffect(seat, g.after(seat))
        if k == WILD_DRAW_FOUR:
            return WildDrawFourEffect(seat, g.after(seat), prev_colour, tuple(hand))
        if k == SORTING_HAT:
            return SortingHatEffect(seat, target)
        if k == HOWLER:
            return HowlerEffect(seat, target)
        if k == MOODY and target >= 0:
            return MoodyEffect(seat, target)
        return NextPlayer(seat)  # Wild, Voldemort, Moody/Invisibility/Stone played as a Wild


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
AttackStage = stage_names(Attack.Stage)
CheckOutStage = stage_names(CheckOut.Stage)
