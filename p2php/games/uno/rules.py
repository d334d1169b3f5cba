"""The UNO Harry Potter state machine (see the package docstring for every rule decision).

Design: the public state keeps a stack of small *tasks* (plain tuples).  After
every mutation :meth:`UnoState._settle` runs the pure tasks (no outside input
needed) until the task on top needs one of the contract's steps (a decision, a
shuffle, a deal, a reveal, a show); that step is cached, so :meth:`step` is a
side-effect-free read and the state hash is the same whenever it is taken.

Hands are lists of slots.  The state stores only faces it was given: the
discard pile (card ids, opened when played) and ``pub`` (slots still in a hand
whose faces were opened to everyone: Howler, a sorted Gryffindor, round end).

Validation: :meth:`check` validates everything public and whatever the given
knowledge can see.  :meth:`apply` validates each answer again, including the
faces it opens, unless :meth:`check` passed that very action object in this very
state having seen the same faces (then nothing is left to verify; this keeps
engine-only play fast).  Given a *prefix* of the awaited answers, :meth:`apply`
only validates them and changes nothing (the session uses that to name the seat
whose answer is illegal).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    GameOver,
    GameState,
    IllegalAction,
    Knowledge,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.games.uno.cards import (
    CHARACTERS,
    COLOUR_INDEX,
    COLOURS,
    DRAW_TWO,
    HOWLER,
    INVISIBILITY,
    MOODY,
    NUMBER,
    PUT_BACK_FIRST,
    RESURRECTION_STONE,
    REVERSE,
    SKIP,
    SORTING_HAT,
    VOLDEMORT,
    WILD,
    WILD_DRAW_FOUR,
    Deck,
    deck,
)

HAND_SIZE = 7

# ----------------------------------------------------------------------------- tasks
# Each task is a tuple whose first item is one of these codes.  Codes marked
# "pure" are run by _settle; the others produce the step named.
T_DEALER_SHUFFLE = 0  # Shuffle of the whole deck to turn up cards for the dealer
T_DEALER_REVEAL = 1  # (contenders,) Reveal one card per contender
T_ROUND_START = 2  # pure
T_DECK_SHUFFLE = 3  # Shuffle for a round
T_FIRST_REVEAL = 4  # Reveal the first discard
T_DEAL_HANDS = 5  # Deal seven each
T_FIRST_EFFECT = 6  # pure
T_FIRST_COLOUR = 7  # Decide "first_colour"
T_TURN = 8  # Decide "turn"
T_DRAW = 9  # (seat, n) Shuffle (reshuffle) or Deal
T_AFTER_DRAW = 10  # (seat, hand size before) pure
T_DRAWN = 11  # (seat, slot) Decide "drawn"
T_CATCH = 12  # (offender,) Decide "catch"
T_CHECK_OUT = 13  # (seat, effect) pure
T_STONE = 14  # (out, effect) Decide "stone"
T_STONE_UNO = 15  # (seat,) Decide "stone_uno"
T_STONE_AFTER = 16  # (out, effect) pure
T_RESPOND = 17  # (effect,) Decide "respond:<card>"
T_SHOW = 18  # (effect,) Show
T_VERDICT = 19  # (effect,) Decide "verdict"
T_SORT = 20  # (target,) Shuffle (reshuffle) or Deal of one card
T_SORT_ASK = 21  # (target, slot) Decide "sorting"
T_REVEAL_HAND = 22  # (seat,) Reveal
T_SET_TURN = 23  # (seat,) pure
T_ROUND_END = 24  # (winner or -1, effect) pure
T_REVEAL_ALL = 25  # Reveal
T_SCORE = 26  # (winner or -1,) pure
T_GAME_OVER = 27  # GameOver

TASK_NAMES = (
    "dealer_shuffle", "dealer_reveal", "round_start", "deck_shuffle", "first_reveal", "deal_hands",
    "first_effect", "first_colour", "turn", "draw", "after_draw", "drawn", "catch", "check_out", "stone",
    "stone_uno", "stone_after", "respond", "show", "verdict", "sort", "sort_ask", "reveal_hand", "set_turn",
    "round_end", "reveal_all", "score", "game_over",
)

# ----------------------------------------------------------------------------- effects
# What a played card still has to do once the play itself is done.
E_NEXT = 0  # (P,) next player's turn
E_REVERSE = 1  # (P,)
E_SKIP = 2  # (P, victim)
E_DRAW_TWO = 3  # (P, victim, total)
E_WD4 = 4  # (P, victim, colour before, slots of P's hand when played)
E_HAT = 5  # (P, target)
E_MOODY = 6  # (P, target)
E_HOWLER = 7  # (P, target)
E_RESUME = 8  # (seat,) after an Invisibility answer: seat's turn
E_STONE = 9  # (stone player, player who went out, effect of the card they went out with)

_RESPOND_PROMPTS = {
    E_SKIP: "respond:skip", E_DRAW_TWO: "respond:draw_two", E_WD4: "respond:wild_draw_four",
    E_HAT: "respond:sorting_hat", E_MOODY: "respond:moody", E_HOWLER: "respond:howler",
}
_EFFECT_NAMES = ("next", "reverse", "skip", "draw_two", "wild_draw_four", "sorting_hat", "moody", "howler",
                 "resume", "stone")

# How a card is being played.
MODE_TURN = 0  # on one's turn (or the drawn card)
MODE_INVIS = 1  # Invisibility answering a card played against the seat
MODE_STONE = 2  # Resurrection Stone when someone went out
MODE_STACK = 3  # Draw Two answering a Draw Two (stacking on)

_KEYS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "slot", "colour", "target", "dump", "uno"}),
    "invisibility": frozenset({"type", "slot", "colour", "uno"}),
    "stone": frozenset({"type", "slot", "colour", "uno"}),
    "draw": frozenset({"type"}),
    "keep": frozenset({"type"}),
    "pass": frozenset({"type"}),
    "catch": frozenset({"type"}),
    "accept": frozenset({"type"}),
    "challenge": frozenset({"type"}),
    "uno": frozenset({"type"}),
    "sorted": frozenset({"type"}),
    "not_yet": frozenset({"type"}),
    "verdict": frozenset({"type", "legal"}),
    "colour": frozenset({"type", "colour"}),
}

_TURN: tuple[int] = (T_TURN,)
_DECIDES: dict[tuple[tuple[int, ...], str], Decide] = {}


def _decide(seats: tuple[int, ...], prompt: str) -> Decide:
    d = _DECIDES.get((seats, prompt))
    if d is None:
        d = _DECIDES[(seats, prompt)] = Decide(seats, prompt)
    return d


@functools.cache
def _dumpable(d: Deck, values: tuple[int, ...]) -> tuple[bool, ...]:
    return tuple(d.kind[i] == NUMBER and d.value[i] in values for i in range(d.size))


@functools.cache
def _all_cards(size: int) -> tuple[int, ...]:
    return tuple(range(size))


@functools.cache
def _seat_decides(players: int) -> tuple[tuple[Decide, ...], tuple[Decide, ...]]:
    return (tuple(_decide((s,), "turn") for s in range(players)),
            tuple(_decide((s,), "drawn") for s in range(players)))


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively (tasks and effects are nested tuples)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


FaceOf = Callable[[Slot], CardId | None]

_EVENT_TEMPLATES = {
    "draw": "seat {1} draws {2} card(s)",
    "dry": "seat {1} cannot draw: no cards left",
    "keep": "seat {1} keeps the drawn card",
    "uno": "seat {1} calls UNO",
    "forgot_uno": "seat {1} forgets to call UNO",
    "caught": "seat {1} catches seat {2} without UNO",
    "challenge": "seat {1} challenges seat {2}'s Wild Draw Four",
    "hand_revealed": "seat {1}'s hand is revealed",
    "out": "seat {1} has emptied their hand",
    "blocked": "nobody can draw or play: the round is blocked",
    "reshuffle": "the discard pile is reshuffled into a new draw pile ({1} cards)",
    "dealer": "seat {1} deals",
    "round_start": "round {1}, seat {2} deals",
}


class UnoState(GameState):
    """Public state of a game of UNO Harry Potter."""

    def __init__(self, players: int, options: Mapping[str, Any]) -> None:
        self.n = players
        self.options: dict[str, Any] = dict(options)
        d = deck(str(options["deck"]))
        self.deck: Deck = d
        self.stacking = options["stacking"] == "on"
        self.negative = options["scoring"] == "negative"
        self.target = int(options["target"])
        self.rounds_limit = int(options["rounds"])
        self.voldemort_values = tuple(int(x) for x in str(options["voldemort_faces"]).split(","))
        self.dumpable: tuple[bool, ...] = _dumpable(d, self.voldemort_values)
        self.all_cards: tuple[int, ...] = _all_cards(d.size)
        # whole game
        self.scores = [0] * players
        self.round_no = 0  # rounds completed
        self.dealer = -1
        self.next_slot = 0
        self.dealer_pos = 0
        self.dealer_end = 0
        self.last_round: dict[str, Any] | None = None
        self.result: GameOver | None = None
        # one round
        self.hands: list[list[Slot]] = [[] for _ in range(players)]
        self.pile: list[Slot] = []  # top of the draw pile is the last item
        self.discard: list[CardId] = []  # top of the discard pile is the last item
        self.colour = -1
        self.direction = 1  # +1: to the left (seat + 1)
        self.current = -1
        self.pub: dict[Slot, CardId] = {}
        self.npub = [0] * players
        self.loc = [-1] * d.size  # public location: -1 unknown, -2 discard pile, seat: in that hand
        self.empty_draws = 0
        self.events: list[tuple[Any, ...]] = []
        self.tasks: list[tuple[Any, ...]] = [
            (T_ROUND_START,), (T_DEALER_REVEAL, tuple(range(players))), (T_DEALER_SHUFFLE,),
        ]
        self._step: Step = _decide((0,), "")
        # Actions check() fully passed in the current state, with the faces it saw.
        self._turn_decides, self._drawn_decides = _seat_decides(players)
        self._checked: dict[Seat, tuple[Action, tuple[Slot, ...], tuple[CardId | None, ...]]] = {}
        self._settle()

    # ------------------------------------------------------------------ helpers

    def _after(self, seat: Seat) -> Seat:
        return (seat + self.direction) % self.n

    def next_seat(self, seat: Seat) -> Seat:
        """The seat after ``seat`` in the current direction of play."""
        return (seat + self.direction) % self.n

    def _others(self, seat: Seat) -> tuple[Seat, ...]:
        n, d = self.n, self.direction
        return tuple((seat + d * i) % n for i in range(1, n))

    def _event(self, ev: tuple[Any, ...]) -> None:
        ev_list = self.events
        ev_list.append(ev)
        if len(ev_list) > 64:
            del ev_list[:-32]

    def top_card(self) -> CardId | None:
        return self.discard[-1] if self.discard else None

    def _matches(self, card: CardId) -> bool:
        d = self.deck
        k = d.kind[card]
        if k >= WILD or d.colour[card] == self.colour:
            return True
        top = self.discard[-1]
        if k == NUMBER:
            return d.kind[top] == NUMBER and d.value[card] == d.value[top]
        return k == d.kind[top]

    def could_hold(self, seat: Seat, card: CardId) -> bool:
        """Whether public information allows ``card`` to be in ``seat``'s hand."""
        if card < 0:
            return False
        where = self.loc[card]
        if where == seat:
            return True
        return where == -1 and len(self.hands[seat]) > self.npub[seat]

    def _take(self, seat: Seat, slot: Slot) -> None:
        self.hands[seat].remove(slot)
        if slot in self.pub:
            del self.pub[slot]
            self.npub[seat] -= 1

    def _hand_points(self, seat: Seat) -> int:
        pts = self.deck.points
        pub = self.pub
        return sum(pts[pub[s]] for s in self.hands[seat])

    # ------------------------------------------------------------------ the task machine

    def _settle(self) -> None:
        if self._checked:
            self._checked.clear()
        tasks = self.tasks
        hands = self.hands
        while True:
            t = tasks[-1]
            op = t[0]
            if op == T_TURN:
                self._step = self._turn_decides[self.current]
                return
            if op == T_SET_TURN:
                tasks.pop()
                self.current = t[1]
                tasks.append(_TURN)
                continue
            if op in (T_DRAW, T_SORT):
                seat = t[1]
                want = t[2] if op == T_DRAW else 1
                if want <= 0:
                    tasks.pop()
                    continue
                pile = self.pile
                if not pile:
                    if len(self.discard) > 1:
                        self._step = Shuffle(tuple(self.discard[:-1]), self.next_slot, "reshuffle")
                        return
                    tasks.pop()  # nothing left anywhere: the draw stops
                    self._event(("dry", seat))
                    continue
                if want == 1:
                    self._step = Deal(((pile[-1], seat),))
                else:
                    k = want if want < len(pile) else len(pile)
                    self._step = Deal(tuple((pile[-1 - i], seat) for i in range(k)))
                return
            if op == T_CHECK_OUT:
                tasks.pop()
                seat = t[1]
                if hands[seat]:
                    self._run_effect(t[2])
                elif self._stone_possible(seat):
                    tasks.append((T_STONE, seat, t[2]))
                else:
                    tasks.append((T_ROUND_END, seat, t[2]))
                continue
            if op == T_AFTER_DRAW:
                tasks.pop()
                seat = t[1]
                hand = hands[seat]
                if len(hand) > t[2]:
                    self.empty_draws = 0
                    tasks.append((T_DRAWN, seat, hand[-1]))
                    continue
                self.empty_draws += 1
                if self.empty_draws >= self.n:
                    tasks.append((T_ROUND_END, -1, None))
                else:
                    tasks.append((T_SET_TURN, self._after(seat)))
                continue
            if op == T_DRAWN:
                self._step = self._drawn_decides[t[1]]
                return
            if op == T_CATCH:
                self._step = _decide(self._others(t[1]), "catch")
                return
            if op == T_RESPOND:
                e = t[1]
                self._step = _decide((e[2],), _RESPOND_PROMPTS[e[0]])
                return
            if op == T_SORT_ASK:
                self._step = _decide((t[1],), "sorting")
                return
            if op == T_STONE:
                self._step = _decide(self._others(t[1]), "stone")
                return
            if op == T_STONE_UNO:
                if len(hands[t[1]]) != 1:
                    tasks.pop()
                    continue
                self._step = _decide((t[1],), "stone_uno")
                return
            if op == T_STONE_AFTER:
                tasks.pop()
                if hands[t[1]]:
                    self._run_effect(t[2])
                else:
                    tasks.append((T_ROUND_END, t[1], t[2]))
                continue
            if op == T_SHOW:
                e = t[1]
                self._step = Show(e[4], e[1], e[2])
                return
            if op == T_VERDICT:
                self._step = _decide((t[1][1],), "verdict")
                return
            if op in (T_REVEAL_HAND, T_REVEAL_ALL):
                pub = self.pub
                seats = (t[1],) if op == T_REVEAL_HAND else range(self.n)
                hidden = tuple(s for seat in seats for s in hands[seat] if s not in pub)
                if not hidden:
                    tasks.pop()
                    continue
                self._step = Reveal(hidden)
                return
            if op == T_ROUND_END:
                tasks.pop()
                winner = t[1]
                if winner >= 0:
                    self._event(("out", winner))
                else:
                    self._event(("blocked",))
                tasks.append((T_SCORE, winner))
                tasks.append((T_REVEAL_ALL,))
                tasks.extend(reversed(self._final_tasks(t[2])))
                continue
            if op == T_SCORE:
                tasks.pop()
                self._score(t[1])
                continue
            if op == T_ROUND_START:
                tasks.pop()
                self._start_round()
                continue
            if op == T_DECK_SHUFFLE:
                self._step = Shuffle(self.all_cards, self.next_slot, "deck")
                return
            if op == T_FIRST_REVEAL:
                self._step = Reveal((self.pile[-1],))
                return
            if op == T_DEAL_HANDS:
                pile = self.pile
                n = self.n
                first = self.dealer + 1
                self._step = Deal(tuple(
                    (pile[-1 - (r * n + i)], (first + i) % n) for r in range(HAND_SIZE) for i in range(n)
                ))
                return
            if op == T_FIRST_EFFECT:
                tasks.pop()
                self._first_effect()
                continue
            if op == T_FIRST_COLOUR:
                self._step = _decide(((self.dealer + 1) % self.n,), "first_colour")
                return
            if op == T_DEALER_SHUFFLE:
                self._step = Shuffle(self.all_cards, self.next_slot, "dealer")
                return
            if op == T_DEALER_REVEAL:
                k = len(t[1])
                if self.dealer_end - self.dealer_pos < k:
                    tasks.append((T_DEALER_SHUFFLE,))
                    continue
                self._step = Reveal(tuple(range(self.dealer_pos, self.dealer_pos + k)))
                return
            if op == T_GAME_OVER:
                assert self.result is not None
                self._step = self.result
                return
            raise AssertionError(f"unknown task {t!r}")

    def _stone_possible(self, out: Seat) -> bool:
        stone = self.deck.stone
        return stone >= 0 and any(self.could_hold(s, stone) for s in range(self.n) if s != out)

    def _start_round(self) -> None:
        n = self.n
        if self.round_no > 0:
            self.dealer = (self.dealer + 1) % n  # the deal passes to the left
        self.hands = [[] for _ in range(n)]
        self.pile = []
        self.discard = []
        self.colour = -1
        self.direction = 1
        self.current = -1
        self.pub = {}
        self.npub = [0] * n
        self.loc = [-1] * self.deck.size
        self.empty_draws = 0
        self._event(("round_start", self.round_no + 1, self.dealer))
        self.tasks.extend(((T_FIRST_EFFECT,), (T_DEAL_HANDS,), (T_FIRST_REVEAL,), (T_DECK_SHUFFLE,)))

    def _first_effect(self) -> None:
        d = self.deck
        card = self.discard[-1]
        k = d.kind[card]
        left = (self.dealer + 1) % self.n
        tasks = self.tasks
        if k == NUMBER:
            tasks.append((T_SET_TURN, left))
        elif k == DRAW_TWO:
            tasks.append((T_SET_TURN, (left + 1) % self.n))
            tasks.append((T_DRAW, left, d.draw_penalty))
        elif k == REVERSE:
            self.direction = -1
            tasks.append((T_SET_TURN, self.dealer))
        elif k == SKIP:
            tasks.append((T_SET_TURN, (left + 1) % self.n))
        else:  # Wild, Sorting Hat, Moody, Voldemort: the player left of the dealer names the colour
            tasks.append((T_SET_TURN, left))
            tasks.append((T_FIRST_COLOUR,))

    def _run_effect(self, e: tuple[Any, ...]) -> None:
        code = e[0]
        tasks = self.tasks
        if code == E_NEXT:
            tasks.append((T_SET_TURN, self._after(e[1])))
        elif code == E_REVERSE:
            tasks.append((T_SET_TURN, e[1] if self.n == 2 else self._after(e[1])))
        elif code == E_RESUME:
            tasks.append((T_SET_TURN, e[1]))
        elif code == E_WD4:
            tasks.append((T_RESPOND, e))
        elif code == E_STONE:
            out = e[2]
            tasks.append((T_STONE_AFTER, out, e[3]))
            tasks.append((T_STONE_UNO, out))
            tasks.append((T_DRAW, out, 1))
        else:
            victim = e[2]
            window = self.could_hold(victim, self.deck.invisibility)
            if not window and code == E_DRAW_TWO and self.stacking:
                window = any(self.could_hold(victim, c) for c in self.deck.draw_twos)
            if window:
                tasks.append((T_RESPOND, e))
            else:
                self._accept(e)

    def _accept(self, e: tuple[Any, ...]) -> None:
        code = e[0]
        tasks = self.tasks
        if code == E_SKIP:
            tasks.append((T_SET_TURN, self._after(e[2])))
        elif code == E_DRAW_TWO:
            tasks.append((T_SET_TURN, self._after(e[2])))
            tasks.append((T_DRAW, e[2], e[3]))
        elif code == E_WD4:
            tasks.append((T_SET_TURN, self._after(e[2])))
            tasks.append((T_DRAW, e[2], 4))
        else:
            tasks.append((T_SET_TURN, self._after(e[1])))
            if code == E_HAT:
                tasks.append((T_SORT, e[2]))
            elif code == E_MOODY:
                tasks.append((T_DRAW, e[2], 2))
            else:
                tasks.append((T_REVEAL_HAND, e[2]))

    def _final_tasks(self, e: tuple[Any, ...] | None) -> list[tuple[Any, ...]]:
        """Draw effects of the card a player went out with (rulebook §9), in order."""
        if e is None:
            return []
        code = e[0]
        if code == E_DRAW_TWO:
            return [(T_DRAW, e[2], e[3])]
        if code == E_WD4:
            return [(T_DRAW, e[2], 4)]
        if code == E_MOODY:
            return [(T_DRAW, e[2], 2)]
        if code == E_HAT:
            return [(T_SORT, e[2])]
        if code == E_STONE:
            return [(T_DRAW, e[2], 1), *self._final_tasks(e[3])]
        return []

    def _score(self, winner: Seat) -> None:
        n = self.n
        pts = [self._hand_points(s) for s in range(n)]
        blocked = winner < 0
        if blocked:
            start = self.current if self.current >= 0 else 0
            order = [(start + self.direction * i) % n for i in range(n)]
            winner = min(order, key=lambda s: pts[s])
        if self.negative:
            gained = pts
        else:
            gained = [0] * n
            gained[winner] = sum(pts) - pts[winner]
        for s in range(n):
            self.scores[s] += gained[s]
        self.round_no += 1
        self.last_round = {
            "round": self.round_no, "winner": winner, "blocked": blocked, "hand_points": pts,
            "gained": gained, "scores": list(self.scores),
        }
        self._event(("round_end", winner, gained[winner] if not self.negative else pts[winner], blocked))
        limit = self.rounds_limit
        over = self.round_no >= limit if limit > 0 else max(self.scores) >= self.target
        if not over:
            self.tasks.append((T_ROUND_START,))
            return
        best = min(self.scores) if self.negative else max(self.scores)
        winners = tuple(s for s in range(n) if self.scores[s] == best)
        how = "lowest" if self.negative else "highest"
        who = ", ".join(f"seat {s}" for s in winners)
        self.result = GameOver(
            winners, tuple(self.scores),
            f"{who} won with the {how} score ({best}) after {self.round_no} round(s); "
            f"scores {', '.join(str(x) for x in self.scores)}",
        )
        self.tasks.append((T_GAME_OVER,))

    # ------------------------------------------------------------------ contract: steps

    def step(self) -> Step:
        return self._step

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        step = self._step
        tasks = self.tasks
        t = tasks[-1]
        op = t[0]
        if isinstance(step, Deal):
            to = step.to
            k = len(to)
            del self.pile[-k:]
            if op == T_DRAW:
                seat = t[1]
                hand = self.hands[seat]
                for slot, _ in to:
                    hand.append(slot)
                self._event(("draw", seat, k))
                tasks.pop()
                if t[2] > k:
                    tasks.append((T_DRAW, seat, t[2] - k))
            elif op == T_SORT:
                seat = t[1]
                slot = to[0][0]
                self.hands[seat].append(slot)
                self._event(("draw", seat, 1))
                tasks[-1] = (T_SORT_ASK, seat, slot)
            else:  # T_DEAL_HANDS
                hands = self.hands
                for slot, seat in to:
                    hands[seat].append(slot)
                tasks.pop()
        elif isinstance(step, Shuffle):
            first = step.first_slot
            k = len(step.cards)
            self.next_slot = first + k
            if op == T_DEALER_SHUFFLE:
                self.dealer_pos = first
                self.dealer_end = first + k
                tasks.pop()
            else:
                self.pile = list(range(first + k - 1, first - 1, -1))
                if op == T_DECK_SHUFFLE:
                    tasks.pop()
                else:  # reshuffle of the discard pile under its top card
                    loc = self.loc
                    for c in step.cards:
                        loc[c] = -1
                    self.discard = [self.discard[-1]]
                    self._event(("reshuffle", k))
        elif isinstance(step, Reveal):
            if faces is None or any(s not in faces for s in step.slots):
                raise ValueError("a Reveal needs the faces of every slot it opens")
            if op == T_FIRST_REVEAL:
                slot = self.pile.pop()
                card = faces[slot]
                if self.deck.kind[card] in PUT_BACK_FIRST:
                    self._event(("put_back", card))
                    tasks.append((T_DECK_SHUFFLE,))
                else:
                    tasks.pop()
                    self.discard = [card]
                    self.loc[card] = -2
                    self.colour = self.deck.colour[card]
                    self._event(("first", card))
            elif op == T_DEALER_REVEAL:
                self._dealer_reveal(t[1], faces)
            else:  # T_REVEAL_HAND, T_REVEAL_ALL
                pub = self.pub
                for seat, hand in enumerate(self.hands):
                    for s in hand:
                        if s in faces and s not in pub:
                            c = faces[s]
                            pub[s] = c
                            self.npub[seat] += 1
                            self.loc[c] = seat
                if op == T_REVEAL_HAND:
                    self._event(("hand_revealed", t[1]))
                tasks.pop()
        elif isinstance(step, Show):
            tasks.pop()
        else:
            raise ValueError(f"advance() called at a {type(step).__name__} step")
        self._settle()

    def _dealer_reveal(self, contenders: tuple[int, ...], faces: Mapping[Slot, CardId]) -> None:
        d = self.deck
        values = []
        for i, seat in enumerate(contenders):
            card = faces[self.dealer_pos + i]
            values.append(d.value[card] if d.kind[card] == NUMBER else 0)
            self._event(("cut", seat, card))
        self.dealer_pos += len(contenders)
        best = max(values)
        tied = tuple(seat for seat, v in zip(contenders, values, strict=True) if v == best)
        if len(tied) == 1:
            self.dealer = tied[0]
            self._event(("dealer", self.dealer))
            self.tasks.pop()
        else:
            self.tasks[-1] = (T_DEALER_REVEAL, tied)

    # ------------------------------------------------------------------ contract: decisions

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if not isinstance(action, dict):
            return ()
        typ = action.get("type")
        hand = self.hands[seat] if 0 <= seat < self.n else []
        if typ == "play" or typ == "invisibility" or typ == "stone":
            slot = action.get("slot")
            if type(slot) is not int or slot not in hand:
                return ()
            dump = action.get("dump") if typ == "play" else None
            if dump and isinstance(dump, list | tuple):
                return (slot, *(s for s in dump if type(s) is int and s in hand and s != slot))
            return (slot,)
        if typ == "sorted":
            t = self.tasks[-1]
            if t[0] == T_SORT_ASK and t[1] == seat:
                return (t[2],)
        return ()

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        face = knowledge.face
        t = self.tasks[-1]
        if t[0] == T_DRAWN and seat == t[1] and type(action) is dict:
            size = len(action)
            typ = action.get("type")
            if size == 1 and typ == "keep":
                self._checked[seat] = (action, (), ())
                return
            slot = action.get("slot")
            if size == 2 and typ == "play" and slot == t[2]:
                card = face(slot)
                if card is not None and self.deck.kind[card] < WILD and self._matches(card):
                    self._checked[seat] = (action, (slot,), (card,))
                    return
        elif t[0] == T_TURN and seat == self.current and type(action) is dict:
            # Fast path for the commonest actions: a draw, a plain coloured card.
            size = len(action)
            typ = action.get("type")
            if size == 1 and typ == "draw":
                self._checked[seat] = (action, (), ())
                return
            slot = action.get("slot")
            if size == 2 and typ == "play" and type(slot) is int and slot in self.hands[seat]:
                card = face(slot)
                if card is not None and self.deck.kind[card] < WILD and self._matches(card):
                    self._checked[seat] = (action, (slot,), (card,))
                    return
        self._validate(seat, action, face)
        opened = self.reveals(seat, action)
        self._checked[seat] = (action, opened, tuple(face(s) for s in opened))

    def _validate(self, seat: Seat, action: Action, face_of: FaceOf) -> None:
        step = self._step
        if not isinstance(step, Decide) or seat not in step.seats:
            raise IllegalAction(f"seat {seat} is not asked to act now")
        if not isinstance(action, dict):
            raise IllegalAction("an action must be a dict")
        typ = action.get("type")
        allowed = _KEYS.get(typ) if isinstance(typ, str) else None
        if allowed is None:
            raise IllegalAction(f"unknown action type {typ!r}")
        for key in action:
            if key not in allowed:
                raise IllegalAction(f"unexpected field {key!r} in a {typ!r} action")
        t = self.tasks[-1]
        op = t[0]
        if op == T_TURN:
            if typ == "draw":
                return
            if typ == "play":
                self._validate_play(seat, action, face_of, MODE_TURN)
                return
        elif op == T_DRAWN:
            if typ == "keep":
                return
            if typ == "play":
                if action.get("slot") != t[2]:
                    raise IllegalAction("after drawing, only the card just drawn may be played")
                self._validate_play(seat, action, face_of, MODE_TURN)
                return
        elif op == T_CATCH:
            if typ == "catch" or typ == "pass":
                return
        elif op == T_RESPOND:
            e = t[1]
            if typ == "accept":
                return
            if typ == "invisibility":
                self._validate_play(seat, action, face_of, MODE_INVIS)
                return
            if typ == "challenge" and e[0] == E_WD4:
                return
            if typ == "play" and e[0] == E_DRAW_TWO and self.stacking:
                self._validate_play(seat, action, face_of, MODE_STACK)
                return
        elif op == T_STONE:
            if typ == "pass":
                return
            if typ == "stone":
                self._validate_play(seat, action, face_of, MODE_STONE)
                return
        elif op == T_STONE_UNO:
            if typ == "uno" or typ == "pass":
                return
        elif op == T_VERDICT:
            if typ == "verdict":
                legal = action.get("legal")
                if type(legal) is not bool:
                    raise IllegalAction("a verdict needs legal=true or legal=false")
                truth = self._verdict_truth(t[1], face_of)
                if truth is not None and truth != legal:
                    raise IllegalAction(
                        f"false verdict: the Wild Draw Four was {'legal' if truth else 'illegal'}"
                    )
                return
        elif op == T_SORT_ASK:
            if typ == "sorted" or typ == "not_yet":
                card = face_of(t[2])
                if card is not None:
                    gryffindor = self._gryffindor(card)
                    if typ == "sorted" and not gryffindor:
                        raise IllegalAction(f"{self.deck.names[card]} is not a Gryffindor student (1–4)")
                    if typ == "not_yet" and gryffindor:
                        raise IllegalAction(f"{self.deck.names[card]} is a Gryffindor student: say 'sorted'")
                return
        elif op == T_FIRST_COLOUR and typ == "colour":
            if action.get("colour") not in COLOUR_INDEX:
                raise IllegalAction(f"colour must be one of {', '.join(COLOURS)}")
            return
        raise IllegalAction(f"a {typ!r} action is not allowed now (prompt {step.prompt!r})")

    def _validate_opened(self, seat: Seat, action: Action, face_of: FaceOf) -> None:
        """The face-dependent part of :meth:`_validate`, for an action check() already passed."""
        typ = action["type"]
        if typ == "play" or typ == "invisibility" or typ == "stone":
            slot = action["slot"]
            card = face_of(slot)
            if card is not None:
                op = self.tasks[-1][0]
                mode = (
                    MODE_INVIS if typ == "invisibility" else MODE_STONE if typ == "stone"
                    else MODE_STACK if op == T_RESPOND else MODE_TURN
                )
                self._validate_face(seat, slot, card, action, face_of, mode)
        elif typ == "sorted":
            card = face_of(self.tasks[-1][2])
            if card is not None and not self._gryffindor(card):
                raise IllegalAction(f"{self.deck.names[card]} is not a Gryffindor student (1–4)")

    def _gryffindor(self, card: CardId) -> bool:
        d = self.deck
        return d.kind[card] == NUMBER and 1 <= d.value[card] <= 4

    def _verdict_truth(self, e: tuple[Any, ...], face_of: FaceOf) -> bool | None:
        """Whether the Wild Draw Four was legal, if ``face_of`` knows enough to tell."""
        prev = e[3]
        colours = self.deck.colour
        unknown = False
        for s in e[4]:
            f = face_of(s)
            if f is None:
                unknown = True
            elif colours[f] == prev:
                return False
        return None if unknown else True

    def _validate_play(self, seat: Seat, action: Action, face_of: FaceOf, mode: int) -> None:
        slot = action.get("slot")
        hand = self.hands[seat]
        if type(slot) is not int or slot not in hand:
            raise IllegalAction(f"slot {slot!r} is not in seat {seat}'s hand")
        uno = action.get("uno", False)
        if type(uno) is not bool:
            raise IllegalAction("uno must be true or false")
        colour = action.get("colour")
        if colour is not None and colour not in COLOUR_INDEX:
            raise IllegalAction(f"colour must be one of {', '.join(COLOURS)}")
        target = action.get("target")
        if target is not None and (type(target) is not int or not 0 <= target < self.n or target == seat):
            raise IllegalAction(f"target must be another seat, not {target!r}")
        dump = action.get("dump")
        if dump is not None:
            if not isinstance(dump, list | tuple):
                raise IllegalAction("dump must be a list of slots")
            for s in dump:
                if type(s) is not int or s not in hand or s == slot:
                    raise IllegalAction(f"dump slot {s!r} is not another card in seat {seat}'s hand")
            if len(set(dump)) != len(dump):
                raise IllegalAction("dump lists a slot twice")
        card = face_of(slot)
        if card is not None:
            self._validate_face(seat, slot, card, action, face_of, mode)

    def _validate_face(
        self, seat: Seat, slot: Slot, card: CardId, action: Action, face_of: FaceOf, mode: int
    ) -> None:
        d = self.deck
        k = d.kind[card]
        name = d.names[card]
        if mode == MODE_INVIS and k != INVISIBILITY:
            raise IllegalAction(f"{name} is not the Invisibility card")
        if mode == MODE_STONE and k != RESURRECTION_STONE:
            raise IllegalAction(f"{name} is not the Resurrection Stone")
        if mode == MODE_STACK and k != DRAW_TWO:
            raise IllegalAction(f"only a draw two can answer a draw two, not {name}")
        colour = action.get("colour")
        target = action.get("target")
        dump = action.get("dump")
        if k < WILD:
            if colour is not None or target is not None or dump is not None:
                raise IllegalAction(f"{name} takes no colour, target or dump")
            if mode == MODE_TURN and not self._matches(card):
                top = d.names[self.discard[-1]]
                raise IllegalAction(f"{name} does not match {top} (colour {COLOURS[self.colour]})")
            return
        if k == VOLDEMORT:
            if target is not None:
                raise IllegalAction("Voldemort takes no target")
            if dump is None:
                raise IllegalAction("Voldemort needs a dump list (empty when there is nothing to discard)")
            if dump and colour is not None:
                raise IllegalAction("the last card Voldemort discards sets the colour: name none")
            if not dump and colour is None:
                raise IllegalAction("Voldemort without cards to discard is a Wild: name a colour")
            for s in dump:
                f = face_of(s)
                if f is not None and not self.dumpable[f]:
                    raise IllegalAction(f"Voldemort cannot discard {d.names[f]}")
            listed = set(dump)
            for s in self.hands[seat]:
                if s != slot and s not in listed:
                    f = face_of(s)
                    if f is not None and self.dumpable[f]:
                        raise IllegalAction(f"Voldemort must discard every such card, {d.names[f]} was kept")
            return
        if dump is not None:
            raise IllegalAction(f"{name} takes no dump")
        if colour is None:
            raise IllegalAction(f"{name} needs a colour")
        if k in (SORTING_HAT, HOWLER):
            if target is None:
                raise IllegalAction(f"{name} needs a target")
        elif k != MOODY and target is not None:
            raise IllegalAction(f"{name} takes no target")

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        step = self._step
        if not isinstance(step, Decide) or seat not in step.seats:
            return []
        face = knowledge.face
        t = self.tasks[-1]
        op = t[0]
        acts: list[Action] = []
        if op == T_TURN:
            d = self.deck
            kinds, colours, values = d.kind, d.colour, d.value
            cur = self.colour
            top = self.discard[-1]
            tk = kinds[top]
            tv = values[top]
            private = knowledge.private
            public = knowledge.public
            hand = self.hands[seat]
            simple = len(hand) > 2  # no UNO call due for a single card
            for slot in hand:
                card = private.get(slot)
                if card is None:
                    card = public.get(slot)
                    if card is None:
                        continue
                k = kinds[card]
                if k >= WILD:
                    self._variants(acts, seat, slot, card, "play", face)
                elif colours[card] == cur or (
                    (tk == NUMBER and values[card] == tv) if k == NUMBER else k == tk
                ):
                    if simple:
                        acts.append({"type": "play", "slot": slot})
                    else:
                        self._variants(acts, seat, slot, card, "play", face)
            acts.append({"type": "draw"})
        elif op == T_DRAWN:
            card = face(t[2])
            if card is not None and self._matches(card):
                self._variants(acts, seat, t[2], card, "play", face)
            acts.append({"type": "keep"})
        elif op == T_CATCH:
            acts = [{"type": "catch"}, {"type": "pass"}]
        elif op == T_RESPOND:
            e = t[1]
            acts.append({"type": "accept"})
            if e[0] == E_WD4:
                acts.append({"type": "challenge"})
            kinds = self.deck.kind
            for slot in self.hands[seat]:
                card = face(slot)
                if card is None:
                    continue
                if kinds[card] == INVISIBILITY:
                    self._variants(acts, seat, slot, card, "invisibility", face)
                elif kinds[card] == DRAW_TWO and e[0] == E_DRAW_TWO and self.stacking:
                    self._variants(acts, seat, slot, card, "play", face)
        elif op == T_STONE:
            kinds = self.deck.kind
            for slot in self.hands[seat]:
                card = face(slot)
                if card is not None and kinds[card] == RESURRECTION_STONE:
                    self._variants(acts, seat, slot, card, "stone", face)
            acts.append({"type": "pass"})
        elif op == T_STONE_UNO:
            acts = [{"type": "uno"}, {"type": "pass"}]
        elif op == T_VERDICT:
            truth = self._verdict_truth(t[1], face)
            if truth is None:
                acts = [{"type": "verdict", "legal": True}, {"type": "verdict", "legal": False}]
            else:
                acts = [{"type": "verdict", "legal": truth}]
        elif op == T_SORT_ASK:
            card = face(t[2])
            if card is None:
                acts = [{"type": "sorted"}, {"type": "not_yet"}]
            else:
                acts = [{"type": "sorted" if self._gryffindor(card) else "not_yet"}]
        elif op == T_FIRST_COLOUR:
            acts = [{"type": "colour", "colour": c} for c in COLOURS]
        return acts

    def _variants(
        self, out: list[Action], seat: Seat, slot: Slot, card: CardId, typ: str, face: FaceOf
    ) -> None:
        """Append every legal way of playing ``card`` (colour, target, dump, UNO call)."""
        d = self.deck
        k = d.kind[card]
        hand = self.hands[seat]
        before = len(hand)
        after = before - 1
        made: list[Action]
        if k < WILD:
            made = [{"type": typ, "slot": slot}]
        elif k == VOLDEMORT:
            dumpable = self.dumpable
            cands = []
            for s in hand:
                if s != slot:
                    f = face(s)
                    if f is not None and dumpable[f]:
                        cands.append(s)
            if not cands:
                made = [{"type": typ, "slot": slot, "dump": [], "colour": c} for c in COLOURS]
            else:
                after -= len(cands)
                made = [
                    {"type": typ, "slot": slot, "dump": [s for s in cands if s != last] + [last]}
                    for last in cands
                ]
        elif k in (SORTING_HAT, HOWLER, MOODY):
            others = [s for s in range(self.n) if s != seat]
            made = [{"type": typ, "slot": slot, "colour": c, "target": o} for c in COLOURS for o in others]
            if k == MOODY:
                made.extend({"type": typ, "slot": slot, "colour": c} for c in COLOURS)
        else:
            made = [{"type": typ, "slot": slot, "colour": c} for c in COLOURS]
        if before >= 2 and after <= 1:
            for a in made:
                out.append({**a, "uno": True})
                a["uno"] = False
                out.append(a)
        else:
            out.extend(made)

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        step = self._step
        if not isinstance(step, Decide):
            raise IllegalAction("no decision is pending")
        seats = step.seats
        if len(answers) == 1 == len(seats):
            # Fast path: the one awaited answer, which check() passed in this state with these faces.
            seat, action = answers[0]
            memo = self._checked.get(seat)
            if memo is not None and memo[0] is action and seat == seats[0]:
                opened, known = memo[1], memo[2]
                if not opened or (
                    len(opened) == 1 and action.get("slot") == opened[0] and faces.get(opened[0]) == known[0]
                ):
                    self._dispatch(answers, faces)
                    return
        if len(answers) > len(seats):
            raise IllegalAction(f"{len(answers)} answers to a decision of {len(seats)} seat(s)")
        pub = self.pub

        def face_of(slot: Slot) -> CardId | None:
            f = faces.get(slot)
            return pub.get(slot) if f is None else f

        checked = self._checked
        for i, (seat, action) in enumerate(answers):
            if seat != seats[i]:
                raise IllegalAction(f"expected the answer of seat {seats[i]}, got one from seat {seat}")
            memo = checked.get(seat)
            if memo is not None and memo[0] is action:
                # check() passed this very action in this state; what is left to verify
                # is what depends on the opened faces, unless check() saw the same ones.
                known = memo[2]
                for j, slot in enumerate(memo[1]):
                    f = faces.get(slot)
                    if f is None:
                        raise IllegalAction(f"the card in slot {slot} was not opened")
                    if f != known[j]:
                        self._validate_opened(seat, action, face_of)
                        break
                continue
            for slot in self.reveals(seat, action):
                if slot not in faces:
                    raise IllegalAction(f"the card in slot {slot} was not opened")
            self._validate(seat, action, face_of)
        if len(answers) < len(seats):
            return  # a prefix is only validated (the session uses this to find a culprit)
        self._dispatch(answers, faces)

    def _dispatch(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """Carry out validated answers."""
        pub = self.pub
        t = self.tasks.pop()
        op = t[0]
        seat, action = answers[0]
        typ = action["type"]
        if op == T_TURN:
            if typ == "draw":
                self.tasks.append((T_AFTER_DRAW, seat, len(self.hands[seat])))
                self.tasks.append((T_DRAW, seat, 1))
            else:
                self._play(seat, action, faces, MODE_TURN, None)
        elif op == T_DRAWN:
            if typ == "keep":
                self._event(("keep", seat))
                self.current = self._after(seat)
                self.tasks.append(_TURN)
            else:
                self._play(seat, action, faces, MODE_TURN, None)
        elif op == T_CATCH:
            for s, a in answers:
                if a["type"] == "catch":
                    self._event(("caught", s, t[1]))
                    self.tasks.append((T_DRAW, t[1], 2))
                    break
        elif op == T_RESPOND:
            e = t[1]
            if typ == "accept":
                self._accept(e)
            elif typ == "invisibility":
                self._play(seat, action, faces, MODE_INVIS, e)
            elif typ == "challenge":
                self._challenge(e)
            else:
                self._play(seat, action, faces, MODE_STACK, e)
        elif op == T_STONE:
            for s, a in answers:
                if a["type"] == "stone":
                    self._play(s, a, faces, MODE_STONE, (t[1], t[2]))
                    break
            else:
                self.tasks.append((T_ROUND_END, t[1], t[2]))
        elif op == T_STONE_UNO:
            self._event(("uno", seat) if typ == "uno" else ("forgot_uno", seat))
            if typ == "pass":
                self.tasks.append((T_DRAW, seat, 1))
        elif op == T_VERDICT:
            e = t[1]
            victim = e[2]
            self._event(("verdict", seat, action["legal"]))
            if action["legal"]:
                self.tasks.append((T_SET_TURN, self._after(victim)))
                self.tasks.append((T_DRAW, victim, 6))
            else:
                self.tasks.append((T_SET_TURN, victim))
                self.tasks.append((T_DRAW, e[1], 4))
        elif op == T_SORT_ASK:
            if typ == "sorted":
                slot = t[2]
                card = faces[slot]
                pub[slot] = card
                self.npub[seat] += 1
                self.loc[card] = seat
                self._event(("sorted", seat, card))
            else:
                self.tasks.append((T_SORT, seat))
        elif op == T_FIRST_COLOUR:
            self.colour = COLOUR_INDEX[action["colour"]]
            self._event(("colour", seat, self.colour))
        else:  # pragma: no cover - every Decide task is handled above
            raise AssertionError(f"no decision handler for {t!r}")
        self._settle()

    def _challenge(self, e: tuple[Any, ...]) -> None:
        self._event(("challenge", e[2], e[1]))
        if e[4]:
            self.tasks.append((T_VERDICT, e))
            self.tasks.append((T_SHOW, e))
        else:  # the player held nothing else: the play was legal, publicly
            self._event(("verdict", e[1], True))
            self.tasks.append((T_SET_TURN, self._after(e[2])))
            self.tasks.append((T_DRAW, e[2], 6))

    def _play(
        self, seat: Seat, action: Action, faces: Mapping[Slot, CardId], mode: int, ctx: Any
    ) -> None:
        d = self.deck
        slot = action["slot"]
        card = faces[slot]
        hand = self.hands[seat]
        before = len(hand)
        hand.remove(slot)
        if slot in self.pub:
            del self.pub[slot]
            self.npub[seat] -= 1
        discard = self.discard
        loc = self.loc
        discard.append(card)
        loc[card] = -2
        k = d.kind[card]
        prev_colour = self.colour
        target = action.get("target")
        dumped: tuple[int, ...] = ()
        if k == VOLDEMORT:
            dump = action["dump"]
            for s in dump:
                c = faces[s]
                self._take(seat, s)
                discard.append(c)
                loc[c] = -2
            dumped = tuple(faces[s] for s in dump)
            self.colour = d.colour[discard[-1]] if dump else COLOUR_INDEX[action["colour"]]
        elif k >= WILD:
            self.colour = COLOUR_INDEX[action["colour"]]
        else:
            self.colour = d.colour[card]
        self.empty_draws = 0
        self._event(("play", seat, card, self.colour, -1 if target is None else target, dumped, mode))
        effect: tuple[Any, ...]
        if mode == MODE_INVIS:
            effect = (E_RESUME, ctx[2] if ctx[0] in (E_SKIP, E_DRAW_TWO, E_WD4) else self._after(ctx[1]))
        elif mode == MODE_STONE:
            effect = (E_STONE, seat, ctx[0], ctx[1])
        elif k == NUMBER:
            effect = (E_NEXT, seat)
        elif k == DRAW_TWO:
            total = d.draw_penalty + (ctx[3] if mode == MODE_STACK else 0)
            effect = (E_DRAW_TWO, seat, self._after(seat), total)
        elif k == REVERSE:
            self.direction = -self.direction
            effect = (E_REVERSE, seat)
        elif k == SKIP:
            effect = (E_SKIP, seat, self._after(seat))
        elif k == WILD_DRAW_FOUR:
            effect = (E_WD4, seat, self._after(seat), prev_colour, tuple(hand))
        elif k == SORTING_HAT:
            effect = (E_HAT, seat, target)
        elif k == HOWLER:
            effect = (E_HOWLER, seat, target)
        elif k == MOODY and target is not None:
            effect = (E_MOODY, seat, target)
        else:  # Wild, Voldemort, Moody/Invisibility/Stone played as a Wild
            effect = (E_NEXT, seat)
        if before >= 2 and len(hand) <= 1:
            self.tasks.append((T_CHECK_OUT, seat, effect))
            if action.get("uno"):
                self._event(("uno", seat))
            else:
                self.tasks.append((T_CATCH, seat))
        elif hand and effect[0] == E_NEXT:  # fast path: nothing can happen before the next turn
            self.current = self._after(seat)
            self.tasks.append(_TURN)
        else:
            self.tasks.append((T_CHECK_OUT, seat, effect))

    # ------------------------------------------------------------------ contract: views

    def snapshot(self) -> Any:
        return {
            "players": self.n,
            "options": dict(self.options),
            "round": self.round_no,
            "dealer": self.dealer,
            "scores": list(self.scores),
            "next_slot": self.next_slot,
            "dealer_deck": [self.dealer_pos, self.dealer_end],
            "hands": [list(h) for h in self.hands],
            "pile": list(self.pile),
            "discard": list(self.discard),
            "colour": self.colour,
            "direction": self.direction,
            "current": self.current,
            "public_faces": sorted([s, c] for s, c in self.pub.items()),
            "public_location": list(self.loc),
            "empty_draws": self.empty_draws,
            "tasks": _plain(self.tasks),
            "events": _plain(self.events),
            "last_round": self.last_round,
            "over": self.result is not None,
        }

    def clone(self) -> UnoState:
        new = object.__new__(UnoState)
        new.__dict__.update(self.__dict__)
        new.scores = list(self.scores)
        new.hands = [list(h) for h in self.hands]
        new.pile = list(self.pile)
        new.discard = list(self.discard)
        new.pub = dict(self.pub)
        new.npub = list(self.npub)
        new.loc = list(self.loc)
        new.events = list(self.events)
        new.tasks = list(self.tasks)
        new.options = dict(self.options)
        new._checked = {}
        if self.last_round is not None:
            new.last_round = {k: (list(v) if isinstance(v, list) else v) for k, v in self.last_round.items()}
        return new

    def pending(self) -> dict[str, Any] | None:
        """What the current decision is about, as plain data (for UIs and bots)."""
        t = self.tasks[-1]
        op = t[0]
        names = self.deck.names
        if op in (T_RESPOND, T_VERDICT, T_SHOW):
            e = t[1]
            info: dict[str, Any] = {"effect": _EFFECT_NAMES[e[0]], "by": e[1], "against": e[2]}
            if e[0] == E_DRAW_TWO:
                info["draw"] = e[3]
            return info
        if op == T_CATCH:
            return {"uno_missed_by": t[1]}
        if op == T_STONE:
            return {"went_out": t[1]}
        if op == T_SORT_ASK:
            return {"sorting": t[1], "slot": t[2]}
        if op == T_DRAWN:
            return {"drawn_slot": t[2]}
        if op == T_FIRST_COLOUR and self.discard:
            return {"first_card": names[self.discard[-1]]}
        return None

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        names = self.deck.names
        step = self._step
        top = self.top_card()
        obs: dict[str, Any] = {
            "game": "uno",
            "players": self.n,
            "round": self.round_no + (0 if self.result is not None else 1),
            "dealer": self.dealer,
            "scores": list(self.scores),
            "turn": self.current,
            "direction": "left" if self.direction == 1 else "right",
            "colour": COLOURS[self.colour] if self.colour >= 0 else None,
            "top": names[top] if top is not None else None,
            "top_card": top,
            "hand_counts": [len(h) for h in self.hands],
            "draw_pile": len(self.pile),
            "discard_pile": len(self.discard),
            "prompt": step.prompt if isinstance(step, Decide) else None,
            "awaiting": list(step.seats) if isinstance(step, Decide) else [],
            "pending": self.pending(),
            "public_hand_cards": {
                str(s): [names[self.pub[x]] for x in self.hands[s] if x in self.pub] for s in range(self.n)
            },
            "events": [self.event_text(ev) for ev in self.events[-12:]],
            "last_round": self.last_round,
            "over": self.result is not None,
        }
        if seat is not None:
            hand = []
            for slot in self.hands[seat]:
                card = knowledge.face(slot)
                hand.append({"slot": slot, "card": card, "name": names[card] if card is not None else None})
            obs["seat"] = seat
            obs["hand"] = hand
        return obs

    def event_text(self, ev: tuple[Any, ...]) -> str:
        names = self.deck.names
        kind = ev[0]
        if kind == "play":
            _, seat, card, colour, target, dumped, mode = ev
            how = {MODE_INVIS: " against the card played at them", MODE_STONE: " (Resurrection Stone!)",
                   MODE_STACK: " stacking the draw"}.get(mode, "")
            text = f"seat {seat} plays {names[card]}{how}"
            if dumped:
                text += " discarding " + ", ".join(names[c] for c in dumped)
            if self.deck.kind[card] >= WILD and not dumped:
                text += f", names {COLOURS[colour]}"
            if target >= 0:
                text += f", targets seat {target}"
            return text
        if kind == "sorted":
            return f"seat {ev[1]} is sorted by {names[ev[2]]} ({CHARACTERS[self.deck.value[ev[2]]]})"
        if kind == "colour":
            return f"seat {ev[1]} names {COLOURS[ev[2]]}"
        if kind == "verdict":
            return f"seat {ev[1]}'s Wild Draw Four was {'legal' if ev[2] else 'illegal'}"
        if kind == "round_end":
            return f"seat {ev[1]} wins the round ({ev[2]} points){' (blocked)' if ev[3] else ''}"
        if kind in ("put_back", "first"):
            what = "goes back; the deck is reshuffled" if kind == "put_back" else "is the first card"
            return f"{names[ev[1]]} {what}"
        if kind == "cut":
            return f"seat {ev[1]} turns up {names[ev[2]]} for the deal"
        template = _EVENT_TEMPLATES.get(kind)
        return template.format(*ev) if template is not None else repr(ev)

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        names = self.deck.names
        typ = action.get("type")
        if typ in ("play", "invisibility", "stone"):
            slot = action.get("slot")
            card = faces.get(slot) if isinstance(slot, int) else None
            if card is None and isinstance(slot, int):
                card = self.pub.get(slot)
            what = names[card] if card is not None else f"slot {slot}"
            text = f"seat {seat} plays {what}"
            if typ == "invisibility":
                text += " (Invisibility against the card played at them)"
            elif typ == "stone":
                text += " (Resurrection Stone)"
            dump = action.get("dump")
            if dump:
                shown = [names[faces[s]] if s in faces else f"slot {s}" for s in dump]
                text += " discarding " + ", ".join(shown)
            if action.get("colour"):
                text += f", naming {action['colour']}"
            if action.get("target") is not None:
                text += f", at seat {action['target']}"
            if action.get("uno"):
                text += " — UNO!"
            return text
        simple = {
            "draw": "draws a card", "keep": "keeps the drawn card", "pass": "passes",
            "catch": "calls out a missing UNO", "accept": "takes the effect", "challenge": "challenges",
            "uno": "calls UNO", "sorted": "is sorted into Gryffindor", "not_yet": "is not sorted yet",
        }
        if typ == "verdict":
            return f"seat {seat} admits the Wild Draw Four was {'legal' if action.get('legal') else 'illegal'}"
        if typ == "colour":
            return f"seat {seat} names {action.get('colour')}"
        return f"seat {seat} {simple.get(str(typ), str(action))}"
