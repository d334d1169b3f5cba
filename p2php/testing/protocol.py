"""A scenario's table as real peers in memory: stacked decks, every frame delivered, every audit checked.

:class:`ProtocolTable` has :class:`~p2php.engine.local.LocalTable`'s surface
(``act``, ``run_chance``, ``knowledge``, ``faces``, ``public``, ``private``,
``log``), so one scripted test runs on a trusted dealer and through the protocol:
one :class:`~p2php.session.lockstep.Lockstep` per seat after a real handshake,
every deck stacked through the crypto (:class:`~p2php.testing.stacking.StackedSecrets`),
so shuffles, deals, reveals, private shows and joint randomness all go through
mental poker.  :meth:`ProtocolTable.finish` ends an unfinished scenario with a
test-only "game over" edit so that every peer runs the audit; a scenario passes
only when every peer's verdict is clean and all final state hashes are equal.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from p2php.crypto import deck
from p2php.engine.contract import Action, CardId, Decide, Game, GameOver, GameState, Knowledge, Seat, Shuffle, Slot
from p2php.engine.taskgame import TaskGame
from p2php.session.handshake import Table, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.modes import CRYPTO, FAST, parse_table_options
from p2php.session.records import DeckRecord
from p2php.testing.edits import CONTRACT_READS, Edit, EditedGame, EditedState, edited_game
from p2php.testing.stacking import Arrange, StackedSecrets, StackingError, checked_order
from p2php.testing.tasks import EndHere


class ScenarioLockstep(Lockstep):
    """A lockstep that can re-read its pending step after a test-only edit (never used in real play)."""

    def reload_step(self) -> None:
        """Re-read the engine's pending step; only before anyone answered the current point."""
        if self.phase != 0 or set(self.waiting_for()) != set(self.expected()):
            raise AssertionError("an edit changed the pending step after peers had answered it; "
                                 "call sc.step() before such an edit")
        self._load_step()  # what Lockstep._next_tick does; the tick stays (no event)


class _PublicFaces(MutableMapping[Slot, CardId]):
    """Seat 0's public faces; a test-only write opens the face on every peer."""

    def __init__(self, peers: Sequence[Lockstep]) -> None:
        self.peers = peers

    def __getitem__(self, slot: Slot) -> CardId:
        return self.peers[0].public_faces[slot]

    def __setitem__(self, slot: Slot, card: CardId) -> None:
        for ls in self.peers:
            ls.public_faces[slot] = card

    def __delitem__(self, slot: Slot) -> None:
        for ls in self.peers:
            del ls.public_faces[slot]

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.peers[0].public_faces)

    def __len__(self) -> int:
        return len(self.peers[0].public_faces)


class _ArrangedDecks(dict[str, list[CardId]]):
    """A peer's secret deck lists, read in the order the test stacks them (:meth:`ProtocolTable.secret_order`)."""

    def __init__(self, base: Mapping[str, list[CardId]], table: ProtocolTable, seat: Seat) -> None:
        super().__init__(base)
        self.table = table
        self.seat = seat

    def get(self, purpose: str, default: Any = None) -> Any:
        cards = super().get(purpose)
        if cards is None:
            return default
        return self.table.secret_order(self.seat, purpose, list(cards))


class ProtocolTable:
    """``players`` real peers of ``game`` in memory, with decks stacked by ``arrange``.

    With ``editable`` the peers' states take test-only edits (:mod:`p2php.testing.edits`);
    ``reads`` names the state's methods that only read (so calling them is no edit).
    With ``stack_secret`` secret-composition decks are stacked too: ``arrange`` gets their Shuffle step
    (``cards`` empty, ``owner`` and ``purpose`` set) and returns the owner's list in the wanted order, which the
    owner's peer feeds its first pass; nobody permutes that deck.
    """

    def __init__(
        self,
        game: Game,
        players: int,
        options: Mapping[str, Any],
        seed: int | str,
        arrange: Arrange,
        *,
        editable: bool = True,
        reads: frozenset[str] = frozenset(),
        stack_secret: bool = False,
    ) -> None:
        self.game = edited_game(game) if editable else game
        self.arrange = arrange
        self.pure_methods = CONTRACT_READS | reads
        # Scenarios deal with the fast deck unless they ask (``options={"crypto": "verified"}``): the engine cannot
        # tell the two apart, and stacking works in both.
        opts = parse_table_options(self.game, {CRYPTO: FAST, **dict(options)})
        secrets = [seeded_secrets(f"scenario/{seed}", s) for s in range(players)]
        hellos = [make_hello(secrets[s], s, players, self.game.name, opts, f"peer{s}") for s in range(players)]
        for s, h in enumerate(hellos):
            check_hello(h, seat=s, players=players, game=self.game.name, options=opts)
        table = Table(self.game.name, opts, tuple(hellos))
        self.faces: dict[Slot, CardId] = {}
        self._orders: dict[Slot, list[CardId]] = {}
        source = StackedSecrets(self._stacked, players, inputs=self._input_faces, secret=stack_secret)
        self._inputs: dict[int, list[CardId]] = {}
        self._secret_orders: dict[tuple[Seat, str, Slot], list[CardId]] = {}
        self.peers = [ScenarioLockstep(self.game, table, s, secrets[s], deck_source=source) for s in range(players)]
        if stack_secret:  # each owner feeds its secret list in the order ``arrange`` gives (a test table only)
            for ls in self.peers:
                assert ls.seat is not None
                ls.private_decks = _ArrangedDecks(ls.private_decks, self, ls.seat)
        self._queues: dict[Seat, deque[tuple[Seat, dict[str, Any]]]] = {s: deque() for s in range(players)}
        self.frames = 0
        self.public: MutableMapping[Slot, CardId] = _PublicFaces(self.peers)
        self.finished = False
        self.stacking_error: StackingError | None = None

    # ---- LocalTable's surface
    def _stacked(self, step: Shuffle) -> Sequence[CardId]:
        """The arrangement as every peer (and the audit) asks for it: answered once per deck."""
        order = self._orders.get(step.first_slot)
        if order is None:
            try:
                order = checked_order(step, step.cards, self.arrange(step))
            except StackingError as err:
                self.stacking_error = err  # the peer makes it a fault; the test gets the reason
                raise
            self._orders[step.first_slot] = order
            self.faces.update(zip(step.slots, order, strict=True))
        return order

    def secret_order(self, seat: Seat, purpose: str, cards: list[CardId]) -> list[CardId]:
        """``seat``'s secret ``purpose`` list in the stacked order, asked when its peer makes that deck's first pass."""
        step = self.peers[seat].step
        if not (isinstance(step, Shuffle) and step.owner == seat and step.purpose == purpose):
            return cards
        key = (seat, purpose, step.first_slot)
        order = self._secret_orders.get(key)
        if order is None:
            try:
                order = checked_order(step, cards, self.arrange(step))
            except StackingError as err:
                self.stacking_error = err
                raise
            self._secret_orders[key] = order
            self.faces.update(zip(step.slots, order, strict=True))
        return list(order)

    def _input_faces(self, rec: DeckRecord) -> list[CardId]:
        """The faces in a reshuffle's old slots, in order (asked by every peer; answered once per deck)."""
        faces = self._inputs.get(rec.number)
        if faces is None:
            faces = self._inputs[rec.number] = [self.face_of(slot) for slot in rec.inputs]
        return faces

    def face_of(self, slot: Slot) -> CardId:
        """The face of any slot, whoever knows it (test-only: a slot nobody knows is opened with every seat's
        secret, which no real peer can do)."""
        if slot in self.faces:
            return self.faces[slot]
        for ls in self.peers:
            known = ls.public_faces.get(slot, ls.private_faces.get(slot))
            if known is not None:
                return known
        first = self.peers[0]
        d, index = first.slot_deck[slot]
        rec = first.decks[d]
        if first.vdeck is not None:
            from p2php.crypto import verified_deck as vd

            points = {}
            for ls in self.peers:
                assert ls.vdeck is not None and ls.seat is not None
                points[ls.seat] = ls.vdeck.own_point(slot)
            return vd.open_slot(first.vdeck.book, rec.cts[index], points, len(self.peers), slot=slot)
        keys = [ls._my_key(slot) for ls in self.peers]
        card = first.points.card_of(deck.open_point(rec.current[index], keys))
        if card is None:
            raise StackingError(f"slot {slot} opens to no card (a bad pass?)")
        return card

    def first_state(self) -> GameState:
        return self.peers[0].state

    def knowledge(self, seat: Seat) -> Knowledge:
        return self.peers[seat].knowledge()

    @property
    def private(self) -> dict[Seat, dict[Slot, CardId]]:
        """Each peer's privately known faces (its own memory, not the test's)."""
        return {ls.seat: ls.private_faces for ls in self.peers if ls.seat is not None}

    @property
    def log(self) -> list[tuple[str, object]]:
        """Seat 0's resolved steps, in LocalTable's format."""
        out: list[tuple[str, object]] = []
        for event in self.peers[0].events:
            if isinstance(event.step, Decide):
                out.append(("actions", list(event.answers)))
            else:
                out.append((type(event.step).__name__, event.step))
        return out

    def act(self, answers: Sequence[tuple[Seat, Action]]) -> None:
        """Each answering peer acts; frames flow until every peer has applied the decision.

        Like ``LocalTable.act`` this stops right after the decision: the chance steps
        that follow are carried out by the next :meth:`run_chance`.
        """
        tick = self.peers[0].tick
        for seat, action in answers:
            self.peers[seat].act(action)
        self._pump(lambda ls: ls.tick > tick or ls.finished)

    def run_chance(self) -> GameOver | Decide:
        """Deliver every frame until every peer waits for a decision (or has finished its audit)."""
        self._pump(None)
        self._check_agreement()
        step = self.peers[0].step
        assert isinstance(step, Decide | GameOver), f"peers stopped at {step}"
        return step

    # ---- delivery
    def _collect(self, ls: Lockstep) -> None:
        for msg in ls.poll():
            for other in self.peers:
                if other is not ls and other.seat is not None:
                    assert ls.seat is not None
                    self._queues[other.seat].append((ls.seat, ls.wire_for(msg, other.seat)))
                    self.frames += 1

    def _pump(self, done: Callable[[Lockstep], bool] | None) -> None:
        for ls in self.peers:
            if done is None or not done(ls):
                self._collect(ls)
        moved = True
        while moved:
            moved = False
            for ls in self.peers:
                assert ls.seat is not None
                queue = self._queues[ls.seat]
                while queue and (done is None or not done(ls)):
                    sender, frame = queue.popleft()
                    ls.receive(sender, frame)
                    self._collect(ls)
                    moved = True
        if self.stacking_error is not None:
            raise self.stacking_error
        for ls in self.peers:
            if ls.fault is not None:
                raise AssertionError(f"peer {ls.seat}: protocol fault: {ls.fault.describe()}")

    def _check_agreement(self) -> None:
        live = [ls for ls in self.peers if not ls.finished]
        if not live:
            return
        assert len(live) == len(self.peers), "some peers finished, others did not"
        assert len({(ls.tick, ls.phase) for ls in live}) == 1, "peers stopped at different points"
        assert len({ls.state.state_hash() for ls in live}) == 1, "peers' states differ (desync)"

    # ---- test-only edits
    def record(self, edit: Edit, made_on_first: bool = False) -> None:
        """Log an edit and make it on every peer's state (seat 0's may have made it already)."""
        if not isinstance(self.game, EditedGame):
            raise TypeError("this protocol table was built with editable=False: its states take no edits")
        states = [ls.state for ls in self.peers]
        assert all(isinstance(st, EditedState) for st in states)
        points = {st._transitions for st in states if isinstance(st, EditedState)}
        assert len(points) == 1, "a scenario may only edit the state when all peers are at the same point"
        self.game.edits.append(dataclasses.replace(edit, at=points.pop()))
        for i, st in enumerate(states):
            assert isinstance(st, EditedState)
            if i == 0 and made_on_first:
                st._applied += 1
            else:
                st.sync()
        for ls in self.peers:  # an edit may change the pending step (a pushed task)
            if ls.state.step() != ls.step:
                ls.reload_step()

    def finish(self) -> None:
        """End the game (test-only, if it has not ended), run every peer's audit, check the verdicts."""
        if self.finished:
            return
        self.finished = True
        step = self.run_chance()
        if not isinstance(step, GameOver):
            self.end_here()
            self.run_chance()
        verdicts = [ls.verdict for ls in self.peers]
        for ls, v in zip(self.peers, verdicts, strict=True):
            assert ls.finished and v is not None, f"peer {ls.seat} did not finish its audit"
            assert v.clean, f"peer {ls.seat}: audit not clean: {v.text()}"
        assert len({v.state_hash for v in verdicts if v is not None}) == 1, "final state hashes differ"

    def end_here(self) -> None:
        """Make the game end at this point (a test-only edit): a game on a task stack gets an
        :class:`~p2php.testing.tasks.EndHere` pushed; another game's helper overrides this."""
        if isinstance(self.first_state(), TaskGame):
            over = GameOver((), (0,) * len(self.peers), "the scenario ends here (test only)")
            self.record(Edit(0, (("attr", "stack"),), "call", "push", (EndHere(over),)))
            return
        raise AssertionError("the scenario has not ended and this game has no test-only way to end it here: "
                             "play it to the end before finish()")
