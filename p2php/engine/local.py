"""Engine-only play with a trusted local dealer.

:class:`LocalTable` fulfils every :data:`~p2php.engine.contract.Step` itself: it
knows every face, so it needs no cryptography.  It is what bots train and
benchmark on, what rule tests use (:mod:`p2php.testing` hands it a :class:`Chance`
that stacks the decks), and what the audit and ``p2php verify`` build on.  It is
*not* how peers play: in a networked game no one knows every face.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from p2php.bots import Bot, RandomBot
from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    Game,
    GameOver,
    GameState,
    Knowledge,
    Randomness,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
)
from p2php.engine.taskgame import TaskGame
from p2php.engine.tasks import Task
from p2php.rng import DetRng


class Chance(Protocol):
    """Where a table's chance comes from: the order of each shuffle and each joint random value.

    Given at construction; the default (:data:`SEEDED`) draws both from the table's
    seeded generator.  Rule tests pass a stacked one from :mod:`p2php.testing`.
    """

    def order(self, step: Shuffle, cards: list[CardId], rng: DetRng) -> list[CardId]:
        """The faces of ``step``'s slots, in slot order (a permutation of ``cards``)."""
        ...

    def random(self, step: Randomness, rng: DetRng) -> bytes:
        """The joint random value of ``step``."""
        ...


class SeededChance:
    """Shuffles and random values from the table's seeded generator (what every real run uses)."""

    def order(self, step: Shuffle, cards: list[CardId], rng: DetRng) -> list[CardId]:
        rng.shuffle(cards)
        return cards

    def random(self, step: Randomness, rng: DetRng) -> bytes:
        return rng.bytes(32)


SEEDED = SeededChance()


def default_decks(game: Game, players: int, options: Mapping[str, object]) -> dict[tuple[Seat, str], list[CardId]]:
    """The secret deck lists every seat brings when its player names none (``Game.private_decks``), for a
    :class:`LocalTable`: a trading-card table's starter decks, say; ``{}`` for a game without such decks."""
    return {(s, purpose): cards for s in range(players) for purpose, cards in game.private_decks(options, s).items()}


@dataclass
class LocalTable:
    """Runs one game with every face known to the table (no crypto)."""

    state: GameState
    seed: bytes | str | int = 0
    chance: Chance = SEEDED
    private_decks: dict[tuple[Seat, str], list[CardId]] = field(default_factory=dict)
    faces: dict[Slot, CardId] = field(default_factory=dict)
    public: dict[Slot, CardId] = field(default_factory=dict)
    private: dict[Seat, dict[Slot, CardId]] = field(default_factory=dict)
    log: list[tuple[str, object]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = DetRng(self.seed)
        self._known: dict[Seat, Knowledge] = {}

    def knowledge(self, seat: Seat) -> Knowledge:
        """What ``seat`` knows now (a view of the table's dicts, so one object per seat serves every step)."""
        known = self._known.get(seat)
        private = self.private.get(seat)
        if known is None or known.public is not self.public or private is None or known.private is not private:
            known = self._known[seat] = Knowledge(self.public, self.private.setdefault(seat, {}))
        return known

    def everything(self) -> Knowledge:
        return Knowledge(self.faces, {}, everything=True)

    def run_chance(self) -> GameOver | Decide:
        """Fulfil steps until a decision is needed or the game is over."""
        while True:
            step = self.state.step()
            if isinstance(step, Decide | GameOver):
                return step
            self.fulfil(step)

    def fulfil(self, step: Shuffle | Reshuffle | Deal | Reveal | Show | Randomness) -> None:
        """Carry out one non-decision step, as the peers' protocol would."""
        if type(step) is Deal:  # the commonest chance step (every draw): first, without the isinstance chain
            private = self.private
            for slot, seat in step.to:
                seen = private.get(seat)
                if seen is None:
                    seen = private[seat] = {}
                seen[slot] = self.faces[slot]
            self.state.advance()
        elif isinstance(step, Reshuffle):
            # The chance sees it as a Shuffle of the faces now in the slots (which is how a stacked test asks).
            cards = [self.faces[slot] for slot in step.slots]
            as_shuffle = Shuffle(tuple(cards), step.first_slot, step.purpose)
            order = self.chance.order(as_shuffle, cards, self.rng)
            for slot, card in zip(step.new_slots, order, strict=True):
                self.faces[slot] = card
            self.state.advance()
        elif isinstance(step, Shuffle):
            cards = list(step.cards)
            if step.owner is not None:
                cards = list(self.private_decks[(step.owner, step.purpose)])
                if len(cards) != step.size:
                    raise ValueError(f"seat {step.owner}'s {step.purpose} deck has {len(cards)} cards, not {step.size}")
            order = self.chance.order(step, cards, self.rng)
            for slot, card in zip(step.slots, order, strict=True):
                self.faces[slot] = card
            self.state.advance()
        elif isinstance(step, Deal):
            for slot, seat in step.to:
                self.private.setdefault(seat, {})[slot] = self.faces[slot]
            self.state.advance()
        elif isinstance(step, Reveal):
            opened = {slot: self.faces[slot] for slot in step.slots}
            self.public.update(opened)
            self.state.advance(faces=opened)
        elif isinstance(step, Show):
            seen = self.private.setdefault(step.viewer, {})
            for slot in step.slots:
                seen[slot] = self.faces[slot]
            self.state.advance()
        else:
            self.state.advance(random=self.chance.random(step, self.rng))
        self.log.append((type(step).__name__, step))

    def act(self, answers: Sequence[tuple[Seat, Action]]) -> None:
        """Apply the answers to the current decision, opening what they reveal."""
        self._act(answers, precheck=True)

    def _act(self, answers: Sequence[tuple[Seat, Action]], precheck: bool) -> None:
        """:meth:`act`; without ``precheck``, the answers are not checked with the seats' knowledge first.

        :meth:`play` leaves it out when every answer is an action object of its seat's own
        ``legal_actions`` list (as the bots picked it) and the game's ``apply`` checks every answer
        again (:func:`_rechecks`): ``check`` accepts every listed action (the contract;
        the conformance kit tries each with the seat's, the auditor's and the public view).  Such answers
        go to ``apply_listed``, which may skip those checks too (a :class:`TaskGame` does)."""
        state, faces = self.state, self.faces
        opened: dict[Slot, CardId] = {}
        for seat, action in answers:
            if precheck:
                state.check(seat, action, self.knowledge(seat))
            for slot in state.reveals(seat, action):
                opened[slot] = faces[slot]
        if opened:
            self.public.update(opened)
        if precheck:
            state.apply(answers, opened)
        else:
            state.apply_listed(answers, opened)
        self.log.append(("actions", list(answers)))

    def _act_listed(self, state: TaskGame, task: Task[Any], answers: list[tuple[Seat, Action]]) -> None:
        """:meth:`_act` without ``precheck`` for a :class:`TaskGame` whose ``reveals`` is the kit's own
        (:func:`_asks_top`): what it would do, asking the top ``task`` (the one whose Decide the answers are for)
        directly, without its test that the seats are asked (they are: ``play`` asked them).
        Every answer is one of its seat's listed actions, so a dict."""
        faces = self.faces
        opened: dict[Slot, CardId] = {}
        for seat, action in answers:
            for slot in task.reveals(state, seat, action):
                opened[slot] = faces[slot]
        if opened:
            self.public.update(opened)
            state.apply_listed(answers, opened)
        else:  # what apply_listed does then (TaskGame's own: _asks_top)
            state.stack.answer(state, answers, opened)
        self.log.append(("actions", list(answers)))

    def play(self, bots: Mapping[Seat, Bot] | None = None, max_steps: int = 1_000_000) -> GameOver:
        """Play to the end with ``bots`` (random bots for seats not given)."""
        bots = dict(bots or {})
        state, knowledge_of, act = self.state, self.knowledge, self._act
        rechecks = _rechecks(state)
        tasks = state if isinstance(state, TaskGame) and rechecks and _asks_top(state) else None  # then ask its
        stack = tasks.stack if tasks is not None else None  # top task directly
        for _ in range(max_steps):
            step = state.step()
            while type(step) is not Decide:  # the chance steps up to the next decision (run_chance, inlined)
                if isinstance(step, GameOver):
                    return step
                if isinstance(step, Decide):
                    break
                self.fulfil(step)
                step = state.step()
            answers = []
            listed = rechecks  # while every answer so far is one of its seat's listed actions
            task = stack.top if stack is not None else None  # the task asking (step is its pending Decide)
            for seat in step.seats:
                bot = bots.get(seat)
                if bot is None:
                    bot = bots[seat] = RandomBot((self.seed, seat).__repr__())
                knowledge = knowledge_of(seat)
                legal = task.legal(state, seat, knowledge) if task is not None else state.legal_actions(seat, knowledge)
                action = bot.choose(state, seat, knowledge, legal)
                answers.append((seat, action))
                if listed and id(action) not in map(id, legal):  # identity, not ==; ~2x faster than any(... is ...)
                    listed = False
            if tasks is not None and task is not None and listed:
                self._act_listed(tasks, task, answers)
            else:
                act(answers, not listed)
        raise RuntimeError(f"game did not end within {max_steps} steps")


def _rechecks(state: GameState) -> bool:
    """Does ``state``'s ``apply`` check every answer again: :class:`TaskGame`'s does (asking the task), and a
    game with its own ``apply`` says so with :attr:`~p2php.engine.contract.GameState.apply_checks` (UNO's)?

    Then a listed answer checked before ``apply`` is checked twice for nothing."""
    cls = type(state)
    if isinstance(state, TaskGame):
        return cls.check is TaskGame.check and cls.apply is TaskGame.apply
    return cls.apply_checks


_ASKS_TOP = ("legal_actions", "reveals", "apply_listed", "_answer", "waiting")
"""What :meth:`LocalTable.play`'s direct path does in their place: ``legal_actions``, ``reveals`` and
``apply_listed``, and what those three go through (``_answer``, which UNO overrides; ``waiting``)."""


def _asks_top(state: GameState) -> bool:
    """Are ``state``'s ``legal_actions``, ``reveals`` and ``apply_listed`` :class:`TaskGame`'s own, which ask the
    top task when the seat is asked?  Then :meth:`LocalTable.play` asks the top task itself (it knows the seats
    are asked): six calls less for most decisions of an engine-only game.  Not when the class or the state
    itself (a test's wrapper set on the instance) replaces any of :data:`_ASKS_TOP`: the direct path would skip
    it."""
    cls, own = type(state), getattr(state, "__dict__", {})
    return all(getattr(cls, name) is getattr(TaskGame, name) and name not in own for name in _ASKS_TOP)
