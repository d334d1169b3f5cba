"""The scenario harness: one scripted rule test, run on a trusted dealer and through the real protocol.

A :class:`Scenario` is a game with stacked decks that a test drives decision by
decision.  Two modes run the same script:

* ``engine``: a :class:`~p2php.engine.local.LocalTable` with a stacked
  :class:`~p2php.engine.local.Chance` (no crypto; fixed joint randomness allowed);
* ``protocol``: one real peer per seat, in memory (:class:`~p2php.testing.protocol.ProtocolTable`),
  decks stacked through the crypto; every decision is the awaited peer's action and
  the scenario ends with every peer's audit, which must be clean with equal state hashes.

Tests choose the mode with :func:`scenario_mode` (the ``mode`` fixture of
:mod:`p2php.testing.plugin` enters it for each of :data:`MODES`).  Games add thin
helpers on top (:mod:`p2php.testing.hpsha`); nothing here is used in real play.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Literal, cast

from p2php.engine.contract import Action, CardId, Decide, Game, GameOver, GameState, IllegalAction, Seat, Shuffle, Step
from p2php.engine.local import LocalTable
from p2php.session.modes import game_options
from p2php.testing.edits import EditedGame, SharedState
from p2php.testing.protocol import ProtocolTable
from p2php.testing.stacking import StackedChance, StackingError

Mode = Literal["engine", "protocol"]
MODES: tuple[Mode, ...] = ("engine", "protocol")
_MODE: list[Mode] = ["engine"]
_OPEN: list[list[Scenario]] = [[]]


@contextmanager
def scenario_mode(mode: Mode) -> Iterator[list[Scenario]]:
    """Scenarios created inside run in ``mode``; on a clean exit every protocol scenario is
    finished and audited (:meth:`Scenario.finish`: clean verdicts, equal state hashes)."""
    _MODE.append(mode)
    _OPEN.append([])
    try:
        yield _OPEN[-1]
        for sc in _OPEN[-1]:
            sc.finish()
    finally:
        _MODE.pop()
        _OPEN.pop()


def current_mode() -> Mode:
    """The mode set by the innermost :func:`scenario_mode` (``"engine"`` outside any)."""
    return _MODE[-1]


class Scenario:
    """A game of ``game`` for ``players`` seats with decks stacked by :meth:`arrange`.

    Subclasses override :meth:`arrange` (or pass ``arrange``); ``random`` fixes the
    joint random values, in order (engine mode only: through the protocol they are
    joint by design).  ``reads`` names the state's read-only methods (protocol mode:
    calling them is no edit).
    """

    def __init__(
        self,
        game: Game,
        players: int,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        mode: Mode | None = None,
        *,
        random: Sequence[bytes] = (),
        reads: frozenset[str] = frozenset(),
        editable: bool = True,
    ) -> None:
        self.game = game
        self.n = players
        self.mode: Mode = mode or current_mode()
        self.options = dict(options or {})
        self.table: LocalTable | ProtocolTable
        self.state: GameState
        if self.mode == "engine":
            self.state = self.engine_state()
            decks = {(s, purpose): list(cards) for s in range(players)
                     for purpose, cards in game.private_decks(game_options(self.options), s).items()}
            self.table = LocalTable(self.state, seed, chance=StackedChance(self.arrange, random), private_decks=decks)
        else:
            if random:
                raise StackingError("fixed joint randomness needs a trusted dealer (engine mode): "
                                    "through the protocol every seat contributes to it")
            self.table = self.protocol_table(seed, reads, editable)
            self.state = self.shared_state()
            if len(_OPEN) > 1:  # inside scenario_mode: finished and audited on exit (else call finish())
                _OPEN[-1].append(self)

    # ---- what a game's helper may override
    def arrange(self, step: Shuffle) -> Sequence[CardId]:
        """The stacked order of a deck (a pure function of the scenario: every peer asks)."""
        return list(step.cards)

    def engine_state(self) -> GameState:
        return self.game.new_state(self.n, game_options(self.options))  # a trusted table has no deck protocol

    def protocol_table(self, seed: int, reads: frozenset[str], editable: bool) -> ProtocolTable:
        return ProtocolTable(self.game, self.n, self.options, seed, self.arrange, editable=editable, reads=reads)

    wrap: tuple[type, ...] = ()
    """Protocol mode: types inside the state (besides lists, dicts and sets) whose writes are edits too."""

    def shared_state(self) -> GameState:
        """Protocol mode: what ``self.state`` is — every peer's state at once if editable, else seat 0's."""
        assert isinstance(self.table, ProtocolTable)
        if not isinstance(self.table.game, EditedGame):
            return self.table.peers[0].state
        return cast(GameState, SharedState(self.table, wrap=self.wrap))

    def finish(self) -> None:
        """Protocol mode: end the game, run every peer's audit and check the verdicts (engine: nothing)."""
        if isinstance(self.table, ProtocolTable):
            self.table.finish()

    # ---- driving
    def step(self) -> Step:
        """Run chance steps until a decision (or the end)."""
        return self.table.run_chance()

    def decide(self) -> Decide:
        s = self.step()
        assert isinstance(s, Decide), f"expected a decision, got {s}"
        return s

    def over(self) -> GameOver:
        s = self.step()
        assert isinstance(s, GameOver), f"expected the end, got {s}"
        return s

    def prompt(self) -> tuple[tuple[Seat, ...], str]:
        d = self.decide()
        return d.seats, d.prompt

    def expect(self, seats: Iterable[Seat] | Seat, prompt: str | None = None) -> Decide:
        """Assert who is asked (and, if given, the prompt); return the decision."""
        want = (seats,) if isinstance(seats, int) else tuple(seats)
        d = self.decide()
        assert d.seats == want, f"expected seats {want} to decide, got {d.seats} ({d.prompt})"
        assert prompt is None or d.prompt == prompt, f"expected prompt {prompt!r}, got {d.prompt!r}"
        return d

    def legal(self, seat: Seat) -> list[Action]:
        self.decide()
        return self.state.legal_actions(seat, self.table.knowledge(seat))

    def assert_legal(self, seat: Seat, action: Action) -> None:
        """``action`` is among ``seat``'s legal actions and passes ``check``."""
        legal = self.legal(seat)
        assert action in legal, f"{action} is not among seat {seat}'s legal actions: {legal}"
        self.state.check(seat, action, self.table.knowledge(seat))

    def assert_illegal(self, seat: Seat, action: Action) -> None:
        """``check`` refuses ``action`` for ``seat``."""
        self.decide()
        try:
            self.state.check(seat, action, self.table.knowledge(seat))
        except IllegalAction:
            return
        raise AssertionError(f"seat {seat} may play {action}")

    def act(self, seat: Seat, action: Action, prompt: str | None = None) -> None:
        """``seat`` (the only seat asked) answers ``action``."""
        self.expect(seat, prompt)
        self.table.act([(seat, action)])

    def answer(self, answers: Sequence[tuple[Seat, Action]]) -> None:
        """Several seats answer one decision at once (a simultaneous or sealed decision)."""
        d = self.decide()
        assert {s for s, _ in answers} == set(d.seats), f"{d.seats} decide, answers are from {answers}"
        self.table.act(list(answers))

    def script(self, actions: Iterable[tuple[Seat, Action] | tuple[Seat, Action, str]]) -> None:
        """Play ``(seat, action)`` or ``(seat, action, prompt)`` decisions in order."""
        for item in actions:
            self.act(item[0], item[1], item[2] if len(item) == 3 else None)
