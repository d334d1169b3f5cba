"""The game and its rounds: the cut for the dealer, the deal, the first card, the turns, the end.

:class:`Match` is the bottom of the stack for the whole game; it runs the cut, then one
:class:`PlayRound` after another until :func:`~.scoring.score_round` ends the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Deal, Randomness, Reveal, Shuffle, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, stage_names
from p2php.games.uno.base import HAND_SIZE, Next, RoundOver, UnoTask
from p2php.games.uno.cards import DRAW_TWO, NUMBER, PUT_BACK_FIRST, REVERSE, SKIP
from p2php.games.uno.moves import Draw, RevealHands
from p2php.games.uno.scoring import score_round
from p2php.games.uno.turn import Turn
from p2php.games.uno.windows import FirstColour
from p2php.rng import DetRng

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState


@dataclass
class Match(UnoTask):
    """The whole game: the cut for the dealer, then rounds until the game is over."""

    class Stage(Enum):
        CUT = auto()
        ROUNDS = auto()

    stage: Stage = Stage.CUT

    def run(self, g: UnoState) -> Outcome:
        if self.stage is MatchStage.CUT:
            self.stage = MatchStage.ROUNDS
            return Push(CutForDealer(tuple(range(g.n))))
        if g.result is not None:
            return g.result
        return Push(PlayRound())


def cut_order(cards: tuple[CardId, ...], random: bytes) -> list[CardId]:
    """The cut deck: every card in an order drawn from the joint randomness, public to all (decision 3)."""
    order = list(cards)
    DetRng(random).shuffle(order)
    return order


@dataclass
class CutForDealer(UnoTask):
    """Each contender turns up a card of the cut deck; the highest number deals; ties turn up again (rule 3).

    Every card turned up is shown to the whole table and the cut deck goes back before the deal, so no card of
    it is ever secret: its order comes from the joint randomness (``Randomness("dealer")``), which draws the same
    cards as a face-down deck shuffled by every peer would, without a whole joint shuffle of the deck.
    """

    contenders: tuple[int, ...]

    def run(self, g: UnoState) -> Outcome:
        k = len(self.contenders)
        if len(g.cut_deck) < k:  # no cut deck yet, or it ran out: a new one
            return Randomness("dealer")
        turned, g.cut_deck = g.cut_deck[:k], g.cut_deck[k:]
        d = g.deck
        values = []
        for seat, card in zip(self.contenders, turned, strict=True):
            values.append(d.value[card] if d.kind[card] == NUMBER else 0)
            g.event(("cut", seat, card))
        best = max(values)
        tied = tuple(seat for seat, v in zip(self.contenders, values, strict=True) if v == best)
        if len(tied) > 1:
            self.contenders = tied
            return CONTINUE
        g.dealer = tied[0]
        g.cut_deck = []  # every card goes back for the deal
        g.event(("dealer", g.dealer))
        return Done()

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        g.cut_deck = cut_order(g.all_cards, random)
        return CONTINUE


@dataclass
class PlayRound(UnoTask):
    """One round, from the new deck to the score."""

    class Stage(Enum):
        START = auto()
        SHUFFLE = auto()
        FIRST_CARD = auto()
        DEAL = auto()
        FIRST_EFFECT = auto()
        TURNS = auto()
        SCORE = auto()

    stage: Stage = Stage.START
    seat: int = -1  # whose turn comes next
    outcome: Next | RoundOver | None = None  # the last turn's result

    def run(self, g: UnoState) -> Outcome:
        S = PlayRoundStage
        stage = self.stage
        if stage is S.TURNS:
            out = self.outcome
            if type(out) is Next:
                return Call(Turn(out.seat), into="outcome")
            assert isinstance(out, RoundOver)
            g.event(("out", out.winner) if out.winner >= 0 else ("blocked",))
            self.stage = S.SCORE
            return Push(*(out.effect.final() if out.effect is not None else ()), RevealHands())
        if stage is S.START:
            g.new_round()
            self.stage = S.SHUFFLE
            stage = S.SHUFFLE
        if stage is S.SHUFFLE:
            return Shuffle(g.all_cards, g.next_slot, "deck")
        if stage is S.FIRST_CARD:
            return Reveal((g.pile[-1],))
        if stage is S.DEAL:
            pile, n, first = g.pile, g.n, g.dealer + 1
            return Deal(tuple((pile[-1 - (r * n + i)], (first + i) % n) for r in range(HAND_SIZE) for i in range(n)))
        if stage is S.FIRST_EFFECT:
            return self._first_effect(g)
        assert stage is S.SCORE and isinstance(self.outcome, RoundOver)
        score_round(g, self.outcome.winner)
        return Done()

    def received(self, g: UnoState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        S = PlayRoundStage
        if isinstance(step, Shuffle):
            first, k = step.first_slot, len(step.cards)
            g.next_slot = first + k
            g.pile = list(range(first + k - 1, first - 1, -1))
            self.stage = S.FIRST_CARD
        elif isinstance(step, Reveal):
            slot = g.pile.pop()
            card = faces[slot]
            if g.deck.kind[card] in PUT_BACK_FIRST:  # back into the deck: shuffle it all again (rule 4)
                g.event(("put_back", card))
                self.stage = S.SHUFFLE
            else:
                g.discard = [card]
                g.loc[card] = -2
                g.colour = g.deck.colour[card]
                g.event(("first", card))
                self.stage = S.DEAL
        else:
            assert isinstance(step, Deal)
            del g.pile[-len(step.to):]
            hands = g.hands
            for slot, seat in step.to:
                hands[seat].append(slot)
            self.stage = S.FIRST_EFFECT
        return CONTINUE

    def _first_effect(self, g: UnoState) -> Outcome:
        """What the first card does (rule 5); then the turns begin."""
        d = g.deck
        k = d.kind[g.discard[-1]]
        left = (g.dealer + 1) % g.n
        self.stage = PlayRoundStage.TURNS
        if k == NUMBER:
            self.outcome = Next(left)
        elif k == DRAW_TWO:
            self.outcome = Next((left + 1) % g.n)
            return Push(Draw(left, d.draw_penalty))
        elif k == REVERSE:
            g.direction = -1
            self.outcome = Next(g.dealer)
        elif k == SKIP:
            self.outcome = Next((left + 1) % g.n)
        else:  # Wild, Sorting Hat, Moody, Voldemort: the player left of the dealer names the colour
            self.outcome = Next(left)
            return Push(FirstColour())
        return CONTINUE


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
MatchStage = stage_names(Match.Stage)
PlayRoundStage = stage_names(PlayRound.Stage)
