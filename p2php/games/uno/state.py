"""The UNO Harry Potter state: zones and counters, the task stack, and the engine contract.

Pending work is a :class:`~p2php.engine.tasks.TaskStack` of named UNO tasks (the
game in :mod:`.round`, a turn in :mod:`.turn`, card effects in :mod:`.effects`,
decisions other than a turn in :mod:`.windows`, draws in :mod:`.moves`, the score
in :mod:`.scoring`).  After every mutation the stack runs to the next contract
step, which is cached, so :meth:`UnoState.step` is a side-effect-free read.

Hands are lists of slots.  The state stores only faces it was given: the discard
pile (card ids, opened when played) and ``pub`` (slots still in a hand whose faces
were opened to everyone: Howler, a sorted Gryffindor, round end).

Validation: :meth:`check` validates everything public and whatever the given
knowledge can see, with the top task's ``validate``.  :meth:`apply` validates each
answer again with the faces it opens, unless :meth:`check` passed that very action
object in this very state having seen the same faces (then nothing is left to
verify; this keeps engine-only play fast).  Given a *prefix* of the awaited answers,
:meth:`apply` only validates them and changes nothing (the session uses that to
name the seat whose answer is illegal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from p2php.canonical import hash_value
from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    GameOver,
    GameState,
    IllegalAction,
    Knowledge,
    Reveal,
    Seat,
    Slot,
    Step,
)
from p2php.engine.tasks import TaskStack, plain
from p2php.games.uno import view
from p2php.games.uno.base import FaceOf, UnoTask
from p2php.games.uno.cards import Deck, deck
from p2php.games.uno.matching import KEYS, PLAY_TYPES, dumpable_table
from p2php.games.uno.round import Match

MAX_TURNS = 50_000
"""Turns in all before the game ends (a guard, rule 23 of the package notes). A constant, not an option: an
option would enter every table's hello, and so every session id."""


@cache
def _all_cards(size: int) -> tuple[int, ...]:
    return tuple(range(size))


class UnoState(GameState):
    """Public state of a game of UNO Harry Potter."""

    apply_checks = True  # apply() validates every answer again (the memo of check() only spares it the work)

    def __init__(self, players: int, options: Mapping[str, Any]) -> None:
        self.n = players
        self.options: dict[str, Any] = dict(options)
        d = deck(str(options["deck"]))
        self.deck: Deck = d
        self.stacking = options["stacking"] == "on"
        self.reverse_skips = options.get("reverse2", "reverse") == "skip"  # the two-player house rule
        self.negative = options["scoring"] == "negative"
        self.target = int(options["target"])
        self.rounds_limit = int(options["rounds"])
        self.max_turns = MAX_TURNS
        self.turns = 0  # turns begun in the whole game (the guard of rule 23)
        self.voldemort_values = tuple(int(x) for x in str(options["voldemort_faces"]).split(","))
        self.dumpable: tuple[bool, ...] = dumpable_table(d, self.voldemort_values)
        self.all_cards: tuple[int, ...] = _all_cards(d.size)
        # whole game
        self.scores = [0] * players
        self.round_no = 0  # rounds completed
        self.dealer = -1
        self.next_slot = 0
        self.cut_deck: list[CardId] = []  # the cut for the dealer: the public cards still to turn up
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
        self.stack: TaskStack[UnoState] = TaskStack([Match()])
        # Actions check() fully passed in the current state, with the faces it saw.
        self._checked: dict[Seat, tuple[Action, tuple[Slot, ...], tuple[CardId | None, ...]]] = {}
        self.stack.settle(self)

    # ------------------------------------------------------------------ helpers for the tasks

    def after(self, seat: Seat) -> Seat:
        """The seat after ``seat`` in the current direction of play."""
        return (seat + self.direction) % self.n

    next_seat = after

    def others(self, seat: Seat) -> tuple[Seat, ...]:
        """Every other seat, in turn order from the one after ``seat``."""
        n, d = self.n, self.direction
        return tuple((seat + d * i) % n for i in range(1, n))

    def event(self, ev: tuple[Any, ...]) -> None:
        """Record a structured event (rendered by :func:`.view.event_text`); the last 32–64 are kept."""
        ev_list = self.events
        ev_list.append(ev)
        if len(ev_list) > 64:
            del ev_list[:-32]

    def top_card(self) -> CardId | None:
        return self.discard[-1] if self.discard else None

    def could_hold(self, seat: Seat, card: CardId) -> bool:
        """Whether public information allows ``card`` to be in ``seat``'s hand."""
        if card < 0:
            return False
        where = self.loc[card]
        if where == seat:
            return True
        return where == -1 and len(self.hands[seat]) > self.npub[seat]

    def stone_possible(self, out: Seat) -> bool:
        """Could another seat than ``out`` hold the Resurrection Stone?"""
        stone = self.deck.stone
        return stone >= 0 and any(self.could_hold(s, stone) for s in range(self.n) if s != out)

    def take(self, seat: Seat, slot: Slot) -> None:
        """Remove ``slot`` from ``seat``'s hand."""
        self.hands[seat].remove(slot)
        if slot in self.pub:
            del self.pub[slot]
            self.npub[seat] -= 1

    def new_round(self) -> None:
        """Empty every zone for a new round; the deal passes to the left after the first."""
        n = self.n
        if self.round_no > 0:
            self.dealer = (self.dealer + 1) % n
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
        self.event(("round_start", self.round_no + 1, self.dealer))

    def _top(self) -> UnoTask:
        return self.stack.top  # type: ignore[return-value]  # every task on it is an UnoTask

    @property
    def tasks(self) -> list[tuple[int, ...]]:
        """Compatibility view of the old integer-coded stack, for old tests: ``[(27,)]`` once the
        game is over, else each task as ``(-1,)``.  Read :attr:`stack` instead."""
        if self.result is not None and len(self.stack) == 1:
            return [(T_GAME_OVER,)]
        return [(-1,) for _ in self.stack]

    # ------------------------------------------------------------------ contract: steps

    def step(self) -> Step:
        return self.stack.pending  # type: ignore[return-value]  # settled after every change

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        step = self.stack.pending
        cls = type(step)  # exact types (a Step class is final): isinstance of a union is slower, on every draw
        if cls is Decide or cls is GameOver or step is None:
            raise ValueError(f"advance() called at a {cls.__name__} step")
        if type(step) is Reveal and (faces is None or any(s not in faces for s in step.slots)):
            raise ValueError("a Reveal needs the faces of every slot it opens")
        if self._checked:
            self._checked.clear()
        self.stack.advance(self, faces, random)

    # ------------------------------------------------------------------ contract: decisions

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if not isinstance(action, dict):
            return ()
        typ = action.get("type")
        if typ in PLAY_TYPES:
            hand = self.hands[seat] if 0 <= seat < self.n else []
            slot = action.get("slot")
            if type(slot) is not int or slot not in hand:
                return ()
            dump = action.get("dump") if typ == "play" else None
            if dump and isinstance(dump, list | tuple):
                return (slot, *(s for s in dump if type(s) is int and s in hand and s != slot))
            return (slot,)
        if typ == "sorted":
            return self._top().reveals(self, seat, action)
        return ()

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        face = knowledge.face
        if not self.stack.top.passes(self, seat, action, face):  # type: ignore[attr-defined]  # an UnoTask
            self._validate(seat, action, face)
        opened = self.reveals(seat, action)
        self._checked[seat] = (action, opened, (face(opened[0]),) if len(opened) == 1 else tuple(map(face, opened)))

    def _validate(self, seat: Seat, action: Action, face_of: FaceOf) -> None:
        step = self.stack.pending
        if not isinstance(step, Decide) or seat not in step.seats:
            raise IllegalAction(f"seat {seat} is not asked to act now")
        if not isinstance(action, dict):
            raise IllegalAction("an action must be a dict")
        typ = action.get("type")
        allowed = KEYS.get(typ) if isinstance(typ, str) else None
        if allowed is None:
            raise IllegalAction(f"unknown action type {typ!r}")
        for key, value in action.items():
            if key not in allowed:
                raise IllegalAction(f"unexpected field {key!r} in a {typ!r} action")
            if value is None:  # read as absent: a second signed form of the move without the key
                raise IllegalAction(f"field {key!r} is null: leave it out")
        self._top().validate(self, seat, action, face_of)

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        stack = self.stack
        step = stack.pending
        if type(step) is not Decide or seat not in step.seats:
            return []
        return stack.top.legal(self, seat, knowledge)

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        step = self.stack.pending
        if not isinstance(step, Decide):
            raise IllegalAction("no decision is pending")
        seats = step.seats
        checked = self._checked
        if len(answers) == 1 == len(seats) and answers[0][0] == seats[0]:
            # Fast paths for the one awaited answer: check() passed it in this state with these faces, or
            # (no check() came first: an engine-only table skips it for a listed action) the top task's
            # quick yes holds with the faces it opened.
            seat, action = answers[0]
            memo = checked.get(seat)
            if memo is not None and memo[0] is action:
                opened, known = memo[1], memo[2]
                if not opened or (
                    len(opened) == 1 and action.get("slot") == opened[0] and faces.get(opened[0]) == known[0]
                ):
                    self._answer(answers, faces)
                    return
            elif self._passes_opened(seat, action, faces):
                self._answer(answers, faces)
                return
        if len(answers) > len(seats):
            raise IllegalAction(f"{len(answers)} answers to a decision of {len(seats)} seat(s)")
        pub = self.pub

        def face_of(slot: Slot) -> CardId | None:
            f = faces.get(slot)
            return pub.get(slot) if f is None else f

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
                        self._validate(seat, action, face_of)
                        break
                continue
            for slot in self.reveals(seat, action):
                if slot not in faces:
                    raise IllegalAction(f"the card in slot {slot} was not opened")
            self._validate(seat, action, face_of)
        if len(answers) < len(seats):
            return  # a prefix is only validated (the session uses this to find a culprit)
        self._answer(answers, faces)

    def apply_listed(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """:meth:`apply` without validating again: each answer is an action object of its seat's own
        :meth:`legal_actions` list, made with that seat's faces, which are the faces it opens (the contract;
        ``p2php.testing.agreement`` tries every listed action).  At an engine-only table the second
        :meth:`reveals` and the top task's ``passes`` were about a tenth of a decision's cost."""
        if type(self.stack.pending) is not Decide:
            raise IllegalAction("no decision is pending")
        self._answer(answers, faces)

    def _passes_opened(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> bool:
        """The top task's :meth:`~.base.UnoTask.passes` for an answer no check() saw, judged with the faces it
        opened alone (every one of them given; a face it does not open is unknown here, so the quick yes
        cannot lean on it).  ``False`` leaves the answer to the full validation."""
        for slot in self.reveals(seat, action):
            if slot not in faces:
                return False  # the full validation names the missing face
        return self._top().passes(self, seat, action, faces.get)

    def _answer(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """Carry out validated answers."""
        if self._checked:
            self._checked.clear()
        self.stack.answer(self, answers, faces)

    # ------------------------------------------------------------------ contract: views

    def snapshot(self) -> Any:
        return self._snapshot(plain(self.events))

    def state_hash(self) -> bytes:
        """``hash_value(self.snapshot())``, without making the events plain first: a peer hashes the state after
        every step, and making the events plain was a third of it. Every event is a tuple of ints, strings and
        bools (Voldemort's discards a tuple of ints), which the canonical encoding packs exactly as the lists
        :func:`~p2php.engine.tasks.plain` makes of them."""
        return hash_value(self._snapshot(self.events))

    def _snapshot(self, events: list[Any]) -> dict[str, Any]:
        """The snapshot with ``events`` as given (plain, or the event tuples themselves for the hash)."""
        return {
            "players": self.n,
            "options": dict(self.options),
            "round": self.round_no,
            "dealer": self.dealer,
            "scores": list(self.scores),
            "next_slot": self.next_slot,
            "cut_deck": list(self.cut_deck),
            "hands": [list(h) for h in self.hands],
            "pile": list(self.pile),
            "discard": list(self.discard),
            "colour": self.colour,
            "direction": self.direction,
            "current": self.current,
            "public_faces": sorted([s, c] for s, c in self.pub.items()),
            "public_location": list(self.loc),
            "empty_draws": self.empty_draws,
            "turns": self.turns,
            "stack": self.stack.snapshot(),
            "events": events,
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
        new.stack = self.stack.clone()
        new.options = dict(self.options)
        new._checked = {}
        if self.last_round is not None:
            new.last_round = {k: (list(v) if isinstance(v, list) else v) for k, v in self.last_round.items()}
        return new

    def pending(self) -> dict[str, Any] | None:
        """What the current decision is about, as plain data (for UIs and bots)."""
        return self._top().info(self)

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        return view.observation(self, seat, knowledge)

    def event_text(self, ev: tuple[Any, ...]) -> str:
        return view.event_text(self, ev)

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        return view.describe(self, seat, action, faces)


T_GAME_OVER = 27
"""The old integer code of the finished game's task (see :attr:`UnoState.tasks`)."""
