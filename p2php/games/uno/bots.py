"""Bots for UNO Harry Potter.  They see only their own knowledge and the public state."""

from __future__ import annotations

from typing import Any

from p2php.engine.contract import Action, Decide, GameState, Knowledge, Seat
from p2php.games.uno.cards import (
    COLOURS,
    DRAW_TWO,
    HOWLER,
    INVISIBILITY,
    MOODY,
    NUMBER,
    RESURRECTION_STONE,
    REVERSE,
    SKIP,
    SORTING_HAT,
    VOLDEMORT,
    WILD,
    WILD_DRAW_FOUR,
)
from p2php.games.uno.state import UnoState
from p2php.rng import DetRng

_WORTH_CANCELLING = ("respond:draw_two", "respond:wild_draw_four", "respond:sorting_hat", "respond:moody")


class HeuristicBot:
    """A simple rule-of-thumb player.

    Calls UNO, catches every missed UNO, plays the Resurrection Stone whenever it
    can, keeps Invisibility and the Stone for reactions, plays action cards when
    the next player is close to going out, dumps high numbers first, saves wild
    cards for last, never bluffs a Wild Draw Four, names the colour it holds most,
    aims targeted cards at the opponent with the fewest cards and challenges a Wild
    Draw Four now and then.
    """

    def __init__(self, seed: bytes | str | int = 0, challenge_one_in: int = 3) -> None:
        self.rng = DetRng(seed)
        self.challenge_one_in = challenge_one_in

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        if not isinstance(state, UnoState):
            return self.rng.choice(legal)
        step = state.step()
        prompt = step.prompt if isinstance(step, Decide) else ""
        if prompt == "catch":
            return _first(legal, "catch")
        if prompt == "stone_uno":
            return _first(legal, "uno")
        if prompt == "first_colour":
            best = COLOURS[self._best_colour(state, seat, knowledge, ())]
            return next(a for a in legal if a["colour"] == best)
        if prompt == "stone":
            return self._with_colour(state, seat, knowledge, legal, "stone") or _first(legal, "pass")
        if prompt.startswith("respond:"):
            return self._respond(state, seat, knowledge, legal, prompt)
        if prompt in ("turn", "drawn"):
            return self._turn(state, seat, knowledge, legal)
        return legal[0]

    # ------------------------------------------------------------------ helpers

    def _best_colour(self, state: UnoState, seat: Seat, knowledge: Knowledge, exclude: Any) -> int:
        counts = [0, 0, 0, 0]
        colours = state.deck.colour
        for slot in state.hands[seat]:
            if slot in exclude:
                continue
            card = knowledge.face(slot)
            if card is not None and colours[card] >= 0:
                counts[colours[card]] += 1
        best = max(counts)
        if best == 0 and state.colour >= 0:
            return state.colour
        return counts.index(best)

    def _with_colour(
        self, state: UnoState, seat: Seat, knowledge: Knowledge, legal: list[Action], typ: str
    ) -> Action | None:
        options = [a for a in legal if a["type"] == typ and a.get("uno") is not False]
        if not options:
            return None
        best = COLOURS[self._best_colour(state, seat, knowledge, (options[0]["slot"],))]
        for a in options:
            if a.get("colour") in (best, None):
                return a
        return options[0]

    def _respond(
        self, state: UnoState, seat: Seat, knowledge: Knowledge, legal: list[Action], prompt: str
    ) -> Action:
        stack = [a for a in legal if a["type"] == "play" and a.get("uno") is not False]
        if stack:
            return stack[0]
        if prompt in _WORTH_CANCELLING:
            invis = self._with_colour(state, seat, knowledge, legal, "invisibility")
            if invis is not None:
                return invis
        if prompt == "respond:wild_draw_four" and self.rng.below(self.challenge_one_in) == 0:
            return _first(legal, "challenge")
        return _first(legal, "accept")

    def _turn(self, state: UnoState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        d = state.deck
        kinds, colours, values = d.kind, d.colour, d.value
        hands = state.hands
        next_low = len(hands[state.next_seat(seat)]) <= 2
        n = state.n
        others = [(seat + state.direction * i) % n for i in range(1, n)]
        weakest = min(others, key=lambda s: len(hands[s]))
        my_cards = len(hands[seat])
        holds_colour = False
        for slot in hands[seat]:
            card = knowledge.face(slot)
            if card is not None and colours[card] == state.colour >= 0:
                holds_colour = True
                break
        # Cards that name a colour are colourless, so the best colour does not depend on which is played.
        best_colour = COLOURS[self._best_colour(state, seat, knowledge, ())]
        best: Action | None = None
        best_score = -10_000
        for a in legal:
            typ = a["type"]
            if typ == "draw" or typ == "keep":
                score = -30
            else:
                if a.get("uno") is False:
                    continue
                card = knowledge.face(a["slot"])
                if card is None:
                    continue
                colour = a.get("colour")
                if colour is not None and colour != best_colour:
                    continue
                target = a.get("target")
                if target is not None and target != weakest:
                    continue
                k = kinds[card]
                if k == NUMBER:
                    score = 10 + values[card]
                elif k in (DRAW_TWO, SKIP, REVERSE):
                    score = 12 + (30 if next_low else 0)
                elif k == WILD_DRAW_FOUR:
                    score = (-50 if holds_colour else 4) + (30 if next_low else 0)
                elif k == WILD:
                    score = 2 + (20 if my_cards <= 2 else 0)
                elif k in (SORTING_HAT, MOODY) and target is not None:
                    score = 6 + (30 if len(hands[target]) <= 2 else 0)
                elif k == HOWLER:
                    score = 3
                elif k == VOLDEMORT:
                    score = 15 + 10 * len(a.get("dump", ()))
                elif k in (INVISIBILITY, RESURRECTION_STONE):
                    score = -40 + (60 if my_cards == 1 else 0)
                else:  # Moody as a plain Wild
                    score = -5
                if k >= WILD and my_cards == 1:
                    score += 100
            if score > best_score:
                best, best_score = a, score
        return best if best is not None else legal[-1]


def _first(legal: list[Action], typ: str) -> Action:
    for a in legal:
        if a["type"] == typ:
            return a
    return legal[0]


class EagerRandomBot:
    """Random, but plays like RLCard's UNO environment does: for fair benchmarks.

    Picks a uniformly random *play* when it has one and draws only when it must,
    always plays a playable drawn card, always calls UNO, and otherwise picks a
    uniformly random legal action.  (The rules let a player draw at will and keep
    what they drew, so a uniformly random player makes rounds many times longer.)
    """

    def __init__(self, seed: bytes | str | int = 0) -> None:
        self.rng = DetRng(seed)

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        plays = [a for a in legal if a["type"] == "play" and a.get("uno") is not False]
        if plays:
            return plays[self.rng.below(len(plays))] if len(plays) > 1 else plays[0]
        return legal[self.rng.below(len(legal))]
