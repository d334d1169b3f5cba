"""How long a table takes to get going over real loopback TCP, and what it costs afterwards.

Times the set-up of a game played by bot peers, each with its own keys and its
own TCP connections on 127.0.0.1: handshake and mesh, the joint shuffle (every
pass of every peer), the initial deal, until every peer is ready for the first
decision that follows the deal.  Then, optionally, the time per decision and the
bytes of a whole game.

    python benchmarks/deal.py --game uno --peers 4 --option deck=hat [--repeat 3] [--json]
    python benchmarks/deal.py --game uno --peers 4 --option rounds=1 --full-game
    python benchmarks/deal.py --all --json        # uno deck=hat 2/4/6/10 peers (+ hpsha if present)
    python benchmarks/deal.py --game tcg --peers 2 [--option crypto=verified]   # two 60-card secret decks
    python benchmarks/deal.py --game tcg --peers 2 --deck 0=mine.deck --deck 1=theirs.deck

A trading-card game's seat may bring its own deck (``--deck SEAT=FILE``, as ``p2php play --deck``): its list
stays on its peer, and the deck is a secret-composition deck (its owner's first pass feeds the list).  The TCG
run without ``--deck`` or deck options measures two such decks: seeded random legal 60-card constructed decks
(:func:`p2php.testing.tcg.random_deck_text`), one per seat, each its seat's secret.

Every peer runs in this one process, on one trio loop and so on one core: the
crypto of all peers is serialised, so the times are those of a single core doing
every peer's work (a real table spreads it over the players' machines).  Step
times are observed on seat 0 with :func:`time.perf_counter` after every
:meth:`~p2php.session.lockstep.Lockstep.poll`.

The peers run a copy of the loop of :func:`p2php.session.runner.run_peer` with
timestamps added and a stop once enough has been measured (``run_peer`` always
plays to the end).  ``--full-game`` uses :func:`p2php.session.local_net.run_local_table`
itself, unmodified.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio
from machine_info import machine

from p2php.engine.contract import Deal, Decide, Game, OptionError, Reveal, Shuffle, Step
from p2php.engine.registry import get_game, parse_option_pairs
from p2php.net.mesh import Frame, HandshakeError, listen, listener_port, open_mesh
from p2php.session.handshake import HandshakeRefused, LocalSecrets, Table, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.modes import game_options, parse_table_options
from p2php.session.runner import Decider, Observer, bot_decider

ALL_MATRIX: tuple[tuple[str, dict[str, str], tuple[int, ...]], ...] = (
    ("uno", {"deck": "hat"}, (2, 4, 6, 10)),  # 112 cards
    ("hpsha", {}, (4, 6, 10)),  # 104 cards; measured only once the game is registered
    ("tcg", {}, (2,)),  # two secret 60-card decks (SECRET_DECKS); measured only once the game is registered
)
"""The matrix of ``--all``: (game, options, peer counts)."""

NOTE = ("all peers run in one process on one core: every peer's crypto is serialised, "
        "so times are one core doing the whole table's work")


SECRET_DECKS: dict[str, tuple[str, ...]] = {"tcg": ("deck0", "deck1", "decklist0", "decklist1", "format")}
"""Games whose seats bring their own secret decks: without ``--deck`` and without any of these options, each seat
gets a seeded random legal 60-card constructed deck of its own (:func:`own_decks`)."""


def own_decks(game: Game, players: int, raw: dict[str, str],
              files: Sequence[tuple[int, str]]) -> dict[int, dict[str, list[int]]]:
    """Each seat's secret deck lists (kept on its peer), and the public options they imply added to ``raw``.

    ``files``: ``(seat, FILE)`` deck files, read as the CLI reads ``--deck``.  None given, for a game of
    :data:`SECRET_DECKS` whose options name no deck: a seeded random legal 60-card deck per seat.
    """
    from p2php.session.owndecks import read_own_decks

    if files:
        return read_own_decks(game, list(files), raw)
    if game.name not in SECRET_DECKS or any(k in raw for k in SECRET_DECKS[game.name]):
        return {}
    from p2php.testing.tcg import random_deck_text

    out: dict[int, dict[str, list[int]]] = {}
    raw.setdefault("format", "constructed")
    for seat in range(players):
        lists, implied = game.read_private_deck(random_deck_text(f"deal.py/{seat}"), seat, raw)
        raw.update(implied)
        out[seat] = lists
    return out


class BenchError(Exception):
    """The measured game went wrong (a fault, a timeout): the numbers would be meaningless."""




def category(step: Step) -> str:
    """The set-up bucket a resolved step belongs to."""
    if isinstance(step, Shuffle):
        return "shuffle"
    if isinstance(step, Deal | Reveal):
        return "deal"
    return "other"


def is_ready(ls: Lockstep) -> bool:
    """True at the first decision after the set-up (the game's ``setup_done``) and the initial deal."""
    return (
        isinstance(ls.step, Decide)
        and ls.state.setup_done()
        and any(isinstance(e.step, Deal) for e in ls.events)
    )


# ----------------------------------------------------------------------------- seat 0's clock


@dataclass
class StepClock:
    """Times the steps one peer resolves, from its observations after every poll.

    The time between two observations at which steps were resolved is charged to
    the first step resolved then (the one that was being waited for; the others
    finished within the same poll).  A decision lasts from the first observation
    at which it is the current step to the one at which it is resolved.
    """

    start: float
    mesh_at: float = 0.0
    last: float = 0.0
    seen: int = 0
    buckets: dict[str, float] = field(default_factory=lambda: {"shuffle": 0.0, "deal": 0.0, "other": 0.0})
    cards: int = 0
    shuffles: int = 0
    ready_at: float = 0.0
    decide_began: dict[int, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    resolved_at: list[float] = field(default_factory=list)

    def mesh_formed(self, now: float) -> None:
        self.mesh_at = self.last = now

    def observe(self, now: float, ls: Lockstep) -> None:
        new = ls.events[self.seen:]
        self.seen = len(ls.events)
        for event in new:
            if isinstance(event.step, Decide) and self.ready_at:
                began = self.decide_began.pop(event.tick, None)
                if began is not None:
                    self.latencies.append(now - began)
                    self.resolved_at.append(now)
            if not self.ready_at and isinstance(event.step, Shuffle):
                self.cards += event.step.count
                self.shuffles += 1
        if new and not self.ready_at:
            self.buckets[category(new[0].step)] += now - self.last
            self.last = now
        if not self.ready_at and is_ready(ls):
            self.ready_at = now
        if self.ready_at and isinstance(ls.step, Decide) and not ls.auditing:
            self.decide_began.setdefault(ls.tick, now)


# ----------------------------------------------------------------------------- counting crypto operations


@dataclass(frozen=True)
class Counted:
    """One call that makes a crypto operation: where it is defined, what it is, and how to charge a call.

    ``more``: the units one call makes beyond the first (a sum of ``k`` points is ``k − 2`` points beyond a
    two-point sum, a product of ``N`` points by one key ``N − 1`` points beyond a one-point call), counted as
    the separate kind ``kind + "_more"``."""

    kind: str
    module: str
    attr: str  # a function of ``module``, or "Class.method"
    group: bool  # a curve operation (else a signature or key exchange)
    more: Callable[[tuple[Any, ...]], int] | None = None


COUNTED: tuple[Counted, ...] = (
    # verified dealing: secp256k1 through libsecp256k1 (p2php/crypto/secp256k1.py)
    Counted("multiply", "p2php.crypto.secp256k1", "_mul", True),
    Counted("from_secret", "p2php.crypto.secp256k1", "_gen", True),
    Counted("combine_keys", "p2php.crypto.secp256k1", "_combine", True, lambda a: max(0, len(a[-1]) - 2)),
    Counted("decode", "p2php.crypto.secp256k1", "_parse", True),
    # fast dealing: P-256 products through OpenSSL's ECDH (p2php/crypto/group.py)
    Counted("p256_mul", "p2php.crypto.group", "mul", True),
    Counted("p256_mul_many", "p2php.crypto.group", "mul_many", True, lambda a: max(0, len(a[0]) - 1)),
    Counted("p256_is_point", "p2php.crypto.group", "is_point", True),
    # both: every signed message, every check of one, every sealed payload's key exchange
    Counted("ed25519_sign", "p2php.crypto.identity", "Identity.sign", False),
    Counted("ed25519_verify", "p2php.crypto.identity", "PublicIdentity.verify", False),
    Counted("x25519", "p2php.crypto.identity", "Identity.shared_secret", False),
    # the handshake, per end of each link: an X25519 key pair, the exchange (and the link keys derived from it),
    # the check of the other end's signed link proof (its own proof is an ``ed25519_sign`` above)
    Counted("link_x25519_key", "p2php.net.linkauth", "KeyExchange.__init__", False),
    Counted("link_x25519", "p2php.net.linkauth", "KeyExchange.link_macs", False),
    Counted("link_ed25519_verify", "p2php.net.mesh", "check_proof", False),
)
"""Every call through which the library makes an elliptic-curve or signature operation. Until 7 December 2026 the
handshake's were not counted (made with ``cryptography`` directly; at 10 peers 90 key pairs and 90 exchanges, ~1 %
of a fast HP Sha set-up's CPU), so the floor left them out while the set-up's CPU had them. The peers here open
their mesh without a signing key, as before, so no link proof is signed or checked (a real table's mesh adds one
of each per link end: 90 more signatures and checks at 10 peers)."""

_LEGACY = {"multiply": "multiply", "from_secret": "from_secret", "combine_keys": "combine_keys"}
"""In a tree from before ``p2php.crypto.secp256k1`` had ``_mul``: the ``coincurve.PublicKey`` methods it used."""


class CryptoOps:
    """Counts and times the crypto operations of a run while it is installed, and measures their unit cost.

    Benchmark-only instrumentation: for the duration of a ``with`` block it wraps each call of :data:`COUNTED`
    (in its own module and in every ``p2php`` module that imported it by name), so the set-up's CPU time can be
    compared with (operations × unit cost) measured in the same process: the floor the issue measures against.
    A kind with a ``more`` rule is charged per call plus per further unit (``combine_more``: one more point in a
    sum; ``p256_mul_many_more``: one more point under the same key), so a long call is neither free nor charged
    as that many separate calls.
    """

    EVERY = 8
    """One call in ``EVERY`` of each kind is timed (a thread CPU clock read is a system call, ~0.6 µs, twice per
    timed call): timing every call cost ~0.3 s of a 10-peer HP Sha set-up's CPU, which the run then reported."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.inside: dict[str, int] = {}  # CPU nanoseconds spent in the timed calls of each kind
        self.timed: dict[str, int] = {}  # how many calls of each kind were timed
        self._saved: list[tuple[Any, str, Any]] = []

    @staticmethod
    def kinds() -> list[str]:
        return [k for c in COUNTED for k in ((c.kind, c.kind + "_more") if c.more else (c.kind,))]

    @staticmethod
    def group_kinds() -> set[str]:
        return {k for c in COUNTED if c.group for k in ((c.kind, c.kind + "_more") if c.more else (c.kind,))}

    def __enter__(self) -> CryptoOps:
        self.counts = dict.fromkeys(self.kinds(), 0)
        for c in COUNTED:
            found = self._find(c)
            if found is None:
                continue
            owner, attr, original = found
            self.inside[c.kind] = self.timed[c.kind] = 0
            wrapped = self._wrap(c, original)
            self._replace(owner, attr, original, wrapped)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, attr, original in reversed(self._saved):
            setattr(owner, attr, original)
        self._saved.clear()

    @staticmethod
    def _find(c: Counted) -> tuple[Any, str, Any] | None:
        """``(owner, attribute, original)`` of a counted call in this tree, or ``None`` if it has no such call."""
        try:
            module = importlib.import_module(c.module)
        except ImportError:
            return None
        owner: Any = module
        *classes, attr = c.attr.split(".")
        for name in classes:
            owner = getattr(owner, name, None)
        if owner is not None and attr in vars(owner):
            return owner, attr, vars(owner)[attr]
        if c.kind in _LEGACY:  # an older tree: coincurve's PublicKey methods
            try:
                from coincurve import PublicKey
            except ImportError:
                return None
            return PublicKey, _LEGACY[c.kind], vars(PublicKey)[_LEGACY[c.kind]]
        return None

    def _replace(self, owner: Any, attr: str, original: Any, wrapped: Any) -> None:
        """Install ``wrapped`` on ``owner`` and in every loaded ``p2php`` module that imported ``original``."""
        self._saved.append((owner, attr, original))
        setattr(owner, attr, wrapped)
        if isinstance(owner, type):
            return
        for name, module in list(sys.modules.items()):
            if name.startswith("p2php") and module is not owner and vars(module).get(attr) is original:
                self._saved.append((module, attr, original))
                setattr(module, attr, wrapped)

    def inside_seconds(self, kinds: Iterable[str] | None = None) -> float:
        """CPU seconds inside the counted calls during the run: the timed calls' total, scaled by calls / timed."""
        chosen = self.inside if kinds is None else [k for k in kinds if k in self.inside]
        return sum(self.inside[k] * self.counts[k] / self.timed[k] for k in chosen if self.timed[k]) / 1e9

    def _wrap(self, c: Counted, original: Any) -> Any:
        counts, inside, timed, clock, every = self.counts, self.inside, self.timed, time.thread_time_ns, self.EVERY
        kind, more, more_kind = c.kind, c.more, c.kind + "_more"

        def counted(*args: Any, **kwargs: Any) -> Any:
            n = counts[kind] = counts[kind] + 1
            if more is not None:
                counts[more_kind] += more(args)
            if n % every:
                return call(*args, **kwargs)
            timed[kind] += 1
            t = clock()
            try:
                return call(*args, **kwargs)
            finally:
                inside[kind] += clock() - t

        if isinstance(original, classmethod):
            call = original.__func__
            return classmethod(counted)
        call = original
        return counted

    @staticmethod
    def unit_costs(block: float = 0.04) -> dict[str, float]:
        """Seconds per operation, measured now (CPU time, median of 3 blocks of about ``block`` seconds each),
        through the same calls that are counted; a ``_more`` kind is (a call with 66 units − a call with 2) / 64."""
        jobs = {**_p256_jobs(), **_identity_jobs(), **_secp256k1_jobs()}
        out = {}
        for kind, job in jobs.items():
            t = time.process_time()
            for _ in range(5):
                job()
            n = max(5, int(block / max((time.process_time() - t) / 5, 1e-7)))  # calls in one block
            blocks = []
            for _ in range(3):
                t = time.process_time()
                for _ in range(n):
                    job()
                blocks.append((time.process_time() - t) / n)
            out[kind] = statistics.median(blocks)
        for kind in [k for k in out if k.endswith("_66")]:
            base = kind[:-3]
            out[base + "_more"] = max(0.0, (out.pop(kind) - out[base + "_2"]) / 64)
            out[base] = out.pop(base + "_2")
        return out

    @staticmethod
    def mean_units(*runs: Mapping[str, float]) -> dict[str, float]:
        """The mean unit cost of each kind over quiet loops measured at different times: the machine's speed
        drifts (by up to 20 % over a minute here), and a loop before and one after a run bracket it."""
        return {k: statistics.mean(r[k] for r in runs) for k in runs[0]}


def _secp256k1_jobs() -> dict[str, Callable[[], object]]:
    """One call of each secp256k1 kind (``combine_keys_2``/``_66``: sums of 2 and 66 points)."""
    import os

    try:
        from coincurve import PublicKey
    except ImportError:
        return {}
    from p2php.crypto import secp256k1 as module

    if hasattr(module, "_mul"):
        k = int.from_bytes(os.urandom(32), "big") % module.Q or 1
        point = module._gen(k)
        many = [module._gen(k + i) for i in range(66)]
        jobs: dict[str, Callable[[], object]] = {
            "multiply": lambda: module._mul(point, k),
            "from_secret": lambda: module._gen(k),
            "combine_keys_2": lambda: module._combine([point, point]),
            "combine_keys_66": lambda: module._combine(many),
        }
        if hasattr(module, "_parse"):
            encoded = module._encode(point)
            jobs["decode"] = lambda: module._parse(encoded)
        return jobs
    key = PublicKey.from_secret(os.urandom(32))
    scalar = os.urandom(32)
    keys = [PublicKey.from_secret(os.urandom(32)) for _ in range(66)]
    return {
        "multiply": lambda: key.multiply(scalar),
        "from_secret": lambda: PublicKey.from_secret(scalar),
        "combine_keys_2": lambda: PublicKey.combine_keys([key, key]),
        "combine_keys_66": lambda: PublicKey.combine_keys(keys),
    }


def _p256_jobs() -> dict[str, Callable[[], object]]:
    """One call of each P-256 kind (``p256_mul_many_2``/``_66``: 2 and 66 points under one key)."""
    from p2php.crypto import group
    from p2php.rng import DetRng

    rng = DetRng(b"deal.py/unit costs")
    points = [group.hash_to_point(b"deal.py", bytes([i])) for i in range(66)]
    k = group.random_scalar(rng)
    return {
        "p256_mul": lambda: group.mul(points[0], k),
        "p256_mul_many_2": lambda: group.mul_many(points[:2], k),
        "p256_mul_many_66": lambda: group.mul_many(points, k),
        "p256_is_point": lambda: group.is_point(points[1]),
    }


def _identity_jobs() -> dict[str, Callable[[], object]]:
    """A signature of a typical signed message's 32-byte digest, its check, one X25519 exchange; the handshake's
    key pair, exchange with its link keys, and proof check."""
    from p2php.crypto.identity import Identity

    me, peer = Identity.from_secret(bytes(32)), Identity.from_secret(bytes([1]) * 32)
    data = bytes(range(32))
    sig = me.sign(data)
    public = me.public
    jobs: dict[str, Callable[[], object]] = {
        "ed25519_sign": lambda: me.sign(data),
        "ed25519_verify": lambda: public.verify(sig, data),
        "x25519": lambda: me.shared_secret(peer.public.box_key),
    }
    try:  # the handshake's (a tree without these calls counts none of them)
        from p2php.net.linkauth import KeyExchange
        from p2php.net.mesh import check_proof
    except ImportError:
        return jobs
    ours, theirs = KeyExchange(), KeyExchange()
    hello = {"sign_key": public.sign_key}
    jobs["link_x25519_key"] = KeyExchange
    jobs["link_x25519"] = lambda: ours.link_macs(theirs.public, data, True)
    jobs["link_ed25519_verify"] = lambda: check_proof(hello, sig, data)
    return jobs


# ----------------------------------------------------------------------------- one measured run


@dataclass
class RunResult:
    """What one run measured (times in seconds from the start of the run)."""

    setup_seconds: float
    setup_cpu_seconds: float  # this process's CPU time until every seat was ready (all peers run in it)
    handshake_seconds: float
    shuffle_seconds: float
    deal_seconds: float
    other_seconds: float
    bytes_on_wire: int
    messages: int
    cards: int
    shuffles: int
    latencies: list[float]
    action_span: float


class _Run:
    """Shared bookkeeping of the peers of one run, and the decision to stop it."""

    def __init__(self, players: int, actions: int, start: float) -> None:
        self.players = players
        self.actions = actions
        self.clock = StepClock(start)
        self.ready_at: list[float | None] = [None] * players
        self.cpu_start = time.process_time()
        self.ready_cpu = 0.0
        self.setup_bytes = [0] * players
        self.setup_frames = [0] * players
        self.scope = trio.CancelScope()
        self.peer0: Lockstep | None = None
        self.stopped = False

    def check_stop(self) -> None:
        if self.stopped or any(t is None for t in self.ready_at):
            return
        ls0 = self.peer0
        ended = ls0 is not None and (ls0.auditing or ls0.finished)
        if len(self.clock.latencies) >= self.actions or ended:
            self.stopped = True
            self.scope.cancel()


async def _bench_peer(
    run: _Run,
    game: Game,
    options: dict[str, Any],
    seat: int,
    addresses: Mapping[int, tuple[str, int]],
    listener: trio.SocketListener,
    decide: Decider,
    secrets: LocalSecrets,
    timeout: float,
    private_decks: Mapping[str, list[int]] | None = None,
) -> None:
    """:func:`p2php.session.runner.run_peer`'s loop, timed, until ``run`` says stop."""
    players = run.players
    hello = make_hello(secrets, seat, players, game.name, options, f"bot{seat}")
    hellos: dict[int, dict[str, Any]] = {seat: hello}

    def accept_hello(other: int, their: dict[str, Any]) -> None:
        try:
            hellos[other] = check_hello(their, seat=other, players=players, game=game.name, options=options)
        except HandshakeRefused as err:
            raise HandshakeError(str(err), other) from None

    try:
        mesh = await open_mesh(seat, dict(addresses), listener, hello, accept_hello,
                               connect_timeout=timeout)
    finally:
        await listener.aclose()
    handshake_bytes = sum(mesh.bytes_sent.values())  # hello and verdict frames, written already
    if seat == 0:
        run.clock.mesh_formed(time.perf_counter())
    table = Table(game.name, options, tuple(hellos[s] for s in range(players)))
    ls = Lockstep(game, table, seat, secrets, private_decks=private_decks)
    if seat == 0:
        run.peer0 = ls
    ready = False
    async with mesh:
        events = mesh.receive()
        while True:
            for msg in ls.poll():
                # v8: a fast pass's points go to the next passer only (a tree before v8 sends one form to all).
                forms = ls.deliveries(msg, mesh.seats) if hasattr(ls, "deliveries") else [(msg.to_wire(), mesh.seats)]
                for frame, to in forms:
                    await mesh.broadcast(frame, to)
                if not ready:
                    run.setup_frames[seat] += 1
            now = time.perf_counter()
            if ls.fault is not None:
                raise BenchError(f"seat {seat}: the game faulted: {ls.fault.describe(table)}")
            if seat == 0:
                run.clock.observe(now, ls)
            if not ready and is_ready(ls):
                ready = True
                run.ready_at[seat] = now
                run.ready_cpu = time.process_time()
                # What was queued (the writer tasks may not have flushed it yet), as the mesh counted it when it
                # encoded each frame: encoding every frame again here cost the set-up's CPU ~1 %.
                run.setup_bytes[seat] += sum(mesh.frame_bytes.values()) + handshake_bytes
            run.check_stop()
            if ls.finished:
                return
            if ls.awaiting_me():
                ls.act(await decide(ls))
                continue
            with trio.move_on_after(timeout) as scope:
                event = await events.receive()
            if scope.cancelled_caught:
                raise BenchError(f"seat {seat}: no message from seat(s) {ls.waiting_for()} in {timeout}s")
            if isinstance(event, Frame):
                ls.receive(event.seat, event.frame)
            elif not ls.finished:
                raise BenchError(f"seat {seat}: lost seat {event.seat}: {event.reason}")


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


async def measure_run(
    game: Game,
    players: int,
    options: dict[str, Any],
    actions: int,
    seed: int | None,
    run_no: int,
    bot: str,
    timeout: float,
    decks: Mapping[int, Mapping[str, list[int]]] | None = None,
) -> RunResult:
    """One table: set up, then ``actions`` decisions (or the end of the game), then stop."""
    start = time.perf_counter()
    run = _Run(players, actions, start)
    listeners = [await listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(players)}
    try:
        with run.scope:
            async with trio.open_nursery() as nursery:
                for seat in range(players):
                    secrets = seeded_secrets(f"{seed}/{run_no}", seat) if seed is not None else LocalSecrets()
                    decide = bot_decider(game.make_bot(bot, f"{seed}/{run_no}/{seat}"))
                    nursery.start_soon(_bench_peer, run, game, options, seat, addresses, listeners[seat],
                                       decide, secrets, timeout, (decks or {}).get(seat))
    except BaseExceptionGroup as group:
        leaf = _first_leaf(group)
        if isinstance(leaf, BenchError):
            raise leaf from None
        if isinstance(leaf, Exception):
            raise BenchError(f"{type(leaf).__name__}: {leaf}") from group
        raise
    for listener in listeners:  # those of peers that never got as far as the mesh
        with trio.CancelScope(shield=True):
            await listener.aclose()
    if any(t is None for t in run.ready_at):
        raise BenchError("the game ended before every peer reached a decision after the deal")
    clock = run.clock
    setup = max(t for t in run.ready_at if t is not None) - start
    handshake = clock.mesh_at - start
    shuffle, deal = clock.buckets["shuffle"], clock.buckets["deal"]
    other = setup - handshake - shuffle - deal  # randomness, shows, and the last peers catching up
    # Peers finish their last poll before the stop takes effect: keep exactly the decisions asked for.
    timed = clock.latencies[:actions]
    span = clock.resolved_at[len(timed) - 1] - clock.ready_at if timed else 0.0
    return RunResult(setup, run.ready_cpu - run.cpu_start, handshake, shuffle, deal, other, sum(run.setup_bytes),
                     sum(run.setup_frames),
                     clock.cards, clock.shuffles, timed, span)


# ----------------------------------------------------------------------------- a whole game


class _DecisionTimer:
    """An ``observe`` callback for seat 0: counts and times decisions over a whole game."""

    def __init__(self) -> None:
        self.clock = StepClock(time.perf_counter())

    def __call__(self, ls: Lockstep, _lines: list[str]) -> None:
        self.clock.observe(time.perf_counter(), ls)


async def measure_full_game(
    game: Game, players: int, options: Mapping[str, Any], seed: int | None, bot: str, timeout: float,
    decks: Mapping[int, Mapping[str, list[int]]] | None = None, deflate: bool = True,
) -> dict[str, Any]:
    """Play one whole game with :func:`run_local_table` and report its cost on the wire.

    ``deflate=False``: no peer offers the ``deflate`` link feature (the same game, signed byte for byte, with
    plain frames), to measure what the feature saves."""
    from p2php.session.local_net import run_local_table

    deciders = [bot_decider(game.make_bot(bot, f"{seed}/full/{seat}")) for seat in range(players)]
    timer = _DecisionTimer()
    observe: Observer = timer
    start, cpu_start = time.perf_counter(), time.process_time()
    results = await run_local_table(game.name, players, deciders, options, seed=seed, timeout=timeout,
                                    observe=observe, private_decks=decks, deflate=deflate)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    verdicts = [r.lockstep.verdict for r in results]
    clean = len(results) == players and all(v is not None and v.clean for v in verdicts)
    agree = len({v.state_hash for v in verdicts if v is not None}) == 1
    total = sum(r.bytes_sent for r in results)
    decisions = sum(1 for e in results[0].lockstep.events if isinstance(e.step, Decide))
    return {
        "game_seconds": round(seconds, 3),
        "game_cpu_seconds": round(cpu, 3),
        "cpu_ms_per_decision": round(cpu * 1e3 / decisions, 3) if decisions else None,
        "game_steps": results[0].lockstep.tick,
        "game_decisions": decisions,
        "game_messages": sum(r.frames_sent for r in results),
        "bytes_per_game": total,
        "bytes_per_game_per_peer": round(total / players),
        "bytes_per_decision": round(total / decisions) if decisions else None,
        "game_action_latency_ms": _ms(statistics.median(timer.clock.latencies)) if timer.clock.latencies
        else None,
        "game_audit": "clean" if clean and agree else "NOT CLEAN",
        "bytes_by_kind": _by_kind(r.frame_bytes for r in results),
    }


def _by_kind(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Frame bytes per kind summed over peers (or games), largest first: before deflate and link tags, so they
    say what the wire carries, not what it saves."""
    total: dict[str, int] = {}
    for c in counts:
        for kind, n in c.items():
            total[kind] = total.get(kind, 0) + n
    return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))


# ----------------------------------------------------------------------------- one configuration


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 2)


def _frac(part: float, whole: float) -> float:
    return round(part / whole, 3) if whole > 0 else 0.0


WARM_PACKAGES = ("p2php.crypto", "p2php.engine", "p2php.games", "p2php.net", "p2php.session")
"""What :func:`warm_imports` loads before anything is timed."""


def warm_imports() -> None:
    """Import every module a table may load lazily, before any timing: else the first run's set-up CPU includes
    Python compiling them (with ``PYTHONDONTWRITEBYTECODE``, every run), about 0.3 s for a verified HP Sha table.
    A module whose optional dependency is missing is skipped (a table that needed it could not run anyway)."""
    for name in WARM_PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            try:
                importlib.import_module(info.name)
            except ImportError:
                continue


def ops_report(ops: CryptoOps, units: Mapping[str, float], setup_cpu: float) -> dict[str, Any]:
    """The set-up's crypto operations against its CPU time: the curve operations alone (``group_*``) and with the
    signatures and key exchanges (``crypto_*``), each as (count × unit cost) and as CPU timed inside them."""
    counts = {k: n for k, n in ops.counts.items() if n}
    out: dict[str, Any] = {"crypto_ops": counts,
                           "crypto_unit_us": {k: round(units[k] * 1e6, 2) for k in counts if k in units},
                           "group_ops": {k: n for k, n in counts.items() if k in CryptoOps.group_kinds()}}
    for key, kinds in (("group", out["group_ops"]), ("crypto", counts)):
        predicted = sum(counts[k] * units.get(k, 0.0) for k in kinds)
        inside = ops.inside_seconds(kinds)
        out[f"{key}_ops_seconds"] = round(predicted, 4)
        out[f"setup_cpu_over_{key}_ops"] = round(setup_cpu / predicted, 2) if predicted else None
        out[f"{key}_ops_cpu_seconds"] = round(inside, 4)  # measured inside the operations during the run itself
        out[f"{key}_ops_cpu_fraction"] = _frac(inside, setup_cpu)
        out[f"setup_cpu_over_{key}_ops_in_run"] = round(setup_cpu / inside, 2) if inside else None
    return out


def benchmark(
    game_name: str,
    peers: int,
    raw_options: Mapping[str, str],
    *,
    repeat: int = 3,
    actions: int = 20,
    full_game: bool = False,
    seed: int | None = None,
    bot: str = "random",
    timeout: float = 60.0,
    deck_files: Sequence[tuple[int, str]] = (),
    games: Sequence[int] = (),
    deflate: bool = True,
) -> dict[str, Any]:
    """Measure one (game, peers, options) configuration; raises OptionError on bad input.

    ``games``: also play one whole game per seed and pool them (:func:`pooled_games`); ``deflate``: whether the
    whole games' peers offer the ``deflate`` link feature."""
    game = get_game(game_name)
    game.check_players(peers)
    warm_imports()
    raw = dict(raw_options)
    decks = own_decks(game, peers, raw, deck_files)  # secret lists, each kept on its seat's peer
    options = parse_table_options(game, raw)  # the game's options and the session's (crypto)
    game.make_bot(bot, 0)  # an unknown bot kind is an input error, found before any run
    runs: list[RunResult] = []
    counted_ops: list[CryptoOps] = []
    unit_runs: list[dict[str, float]] = []
    for run_no in range(max(1, repeat)):
        ops = CryptoOps()
        units_before = CryptoOps.unit_costs() if actions == 0 else {}
        with ops:
            runs.append(trio.run(measure_run, game, peers, options, actions, seed, run_no, bot, timeout, decks))
        if actions == 0:  # the counts cover the set-up only when no decision follows it
            counted_ops.append(ops)
            unit_runs.append(CryptoOps.mean_units(units_before, CryptoOps.unit_costs()))
    chosen = sorted(runs, key=lambda r: r.setup_seconds)[(len(runs) - 1) // 2]  # the median (low) run
    setup = chosen.setup_seconds
    latencies = [x for r in runs for x in r.latencies]
    measured = sum(len(r.latencies) for r in runs)
    span = sum(r.action_span for r in runs)
    out: dict[str, Any] = {
        "game": game.name,
        "peers": peers,
        "options": options,
        "cards": chosen.cards,
        "shuffles": chosen.shuffles,
        "universe": game.universe_size(game_options(options)),
        "secret_decks": {str(seat): sum(len(v) for v in lists.values()) for seat, lists in sorted(decks.items())},
        "repeat": len(runs),
        "setup_seconds": round(setup, 4),
        "setup_seconds_runs": [round(r.setup_seconds, 4) for r in runs],
        "setup_cpu_seconds": round(statistics.median(r.setup_cpu_seconds for r in runs), 4),
        "setup_cpu_seconds_runs": [round(r.setup_cpu_seconds, 4) for r in runs],
        "handshake_seconds": round(chosen.handshake_seconds, 4),
        "shuffle_seconds": round(chosen.shuffle_seconds, 4),
        "deal_seconds": round(chosen.deal_seconds, 4),
        "other_seconds": round(chosen.other_seconds, 4),
        "handshake_fraction": _frac(chosen.handshake_seconds, setup),
        "shuffle_fraction": _frac(chosen.shuffle_seconds, setup),
        "deal_fraction": _frac(chosen.deal_seconds, setup),
        "other_fraction": _frac(chosen.other_seconds, setup),
        "bytes_on_wire": chosen.bytes_on_wire,
        "messages": chosen.messages,
        "actions": actions,
        "actions_measured": measured,
        "action_latency_ms": _ms(statistics.median(latencies)) if latencies else None,
        "action_latency_ms_p90": _ms(statistics.quantiles(latencies, n=10)[-1]) if len(latencies) >= 2
        else None,
        "seconds_per_action": round(span / measured, 4) if measured else None,
        "machine": machine(),
        "note": NOTE,
    }
    if counted_ops:
        chosen_no = runs.index(chosen)
        out.update(ops_report(counted_ops[chosen_no], unit_runs[chosen_no], chosen.setup_cpu_seconds))
    if full_game:
        out.update(trio.run(measure_full_game, game, peers, options, seed, bot, timeout, decks, deflate))
    if games:
        out["games"] = pooled_games([trio.run(measure_full_game, game, peers, options, s, bot, timeout, decks, deflate)
                                     for s in games], games)
    out["deflate"] = deflate
    return out


def pooled_games(results: Sequence[Mapping[str, Any]], seeds: Sequence[int]) -> dict[str, Any]:
    """Whole games of several seeds as one figure: all bytes over all decisions, and the spread per game.

    Pooling is what compares two protocol versions: a version change changes every session id, so one seed
    deals a different game in each, and one game's bytes per decision depend on its length and its reshuffles.
    """
    decisions = sum(r["game_decisions"] for r in results)
    sent = sum(r["bytes_per_game"] for r in results)
    cpu = sum(r["game_cpu_seconds"] for r in results)
    per_game = [r["bytes_per_decision"] for r in results]
    return {
        "seeds": list(seeds),
        "decisions": decisions,
        "bytes": sent,
        "bytes_per_decision": round(sent / decisions) if decisions else None,
        "bytes_per_decision_mean_of_games": round(statistics.mean(per_game)) if per_game else None,
        "bytes_per_decision_per_game": per_game,
        "cpu_ms_per_decision": round(cpu * 1e3 / decisions, 3) if decisions else None,
        "audits": [r["game_audit"] for r in results],
        "bytes_by_kind": _by_kind(r["bytes_by_kind"] for r in results),
    }

def registered(name: str) -> bool:
    """Whether ``name`` is a game this installation knows."""
    try:
        get_game(name)
    except OptionError:
        return False
    return True


def run_all(**kwargs: Any) -> list[dict[str, Any]]:
    """The issue's matrix (see :data:`ALL_MATRIX`); games not registered are left out."""
    out = []
    for game_name, options, peer_counts in ALL_MATRIX:
        if not registered(game_name):
            print(f"deal.py: game {game_name!r} is not registered: skipped", file=sys.stderr)
            continue
        for peers in peer_counts:
            print(f"deal.py: {game_name} {options} {peers} peers...", file=sys.stderr)
            out.append(benchmark(game_name, peers, options, **kwargs))
    return out


# ----------------------------------------------------------------------------- output


def print_report(r: dict[str, Any]) -> None:
    """A readable table of one configuration."""
    opts = " ".join(f"{k}={v}" for k, v in r["options"].items())
    m = r["machine"]
    print(f"{r['game']} with {r['peers']} peers ({opts}); {r['cards']} cards shuffled during set-up "
          f"({r['shuffles']} shuffles of a {r['universe']}-card universe)")
    if r.get("secret_decks"):
        sizes = ", ".join(f"seat {s}: {n} cards" for s, n in r["secret_decks"].items())
        print(f"secret decks (each list kept on its own peer): {sizes}")
    print(f"machine: {m['nproc']} cores, Python {m['python']}, {m['cpu']}")
    print(f"note: {r['note']}")
    runs = ", ".join(f"{s:.3f}" for s in r["setup_seconds_runs"])
    print(f"{'set-up (median of ' + str(r['repeat']) + ')':<28}{r['setup_seconds']:>10.3f} s   runs: {runs}")
    cpu = ", ".join(f"{s:.3f}" for s in r["setup_cpu_seconds_runs"])
    print(f"{'  CPU of this process':<28}{r['setup_cpu_seconds']:>10.3f} s   runs: {cpu}  (wall minus waiting for "
          "other jobs on the machine)")
    if "crypto_ops" in r:
        ops, unit = r["crypto_ops"], r["crypto_unit_us"]
        for label, key, kinds in (("group operations", "group", r["group_ops"]), ("+ signatures, X25519", "crypto",
                                                                                  ops)):
            terms = ", ".join(f"{ops[k]} {k} × {unit[k]} µs" for k in kinds)
            print(f"  {label:<26}{r[key + '_ops_seconds']:>10.3f} s   CPU / that = "
                  f"{r['setup_cpu_over_' + key + '_ops']}; timed inside them during the run "
                  f"{r[key + '_ops_cpu_seconds']:.3f} s = {r[key + '_ops_cpu_fraction'] * 100:.1f} % of the CPU "
                  f"(CPU / that = {r['setup_cpu_over_' + key + '_ops_in_run']})")
            print(f"    ({terms})")
    for part in ("handshake", "shuffle", "deal", "other"):
        print(f"  {part:<26}{r[part + '_seconds']:>10.3f} s   {r[part + '_fraction'] * 100:5.1f} %")
    print(f"{'bytes on the wire (set-up)':<28}{r['bytes_on_wire']:>10}")
    print(f"{'messages (set-up)':<28}{r['messages']:>10}")
    if r["actions_measured"]:
        print(f"{'decision latency (median)':<28}{r['action_latency_ms']:>10.2f} ms  "
              f"p90 {r['action_latency_ms_p90']} ms over {r['actions_measured']} decisions")
        print(f"{'time per decision':<28}{r['seconds_per_action'] * 1e3:>10.2f} ms  (draws and reshuffles included)")
    if "bytes_per_game" in r:
        print(f"{'whole game':<28}{r['game_seconds']:>10.3f} s   {r['game_decisions']} decisions, "
              f"{r['game_steps']} steps, audit {r['game_audit']}")
        print(f"{'bytes per game':<28}{r['bytes_per_game']:>10}   per peer {r['bytes_per_game_per_peer']}, "
              f"per decision {r['bytes_per_decision']}")
        _print_kinds(r["bytes_by_kind"])
    if "games" in r:
        g = r["games"]
        print(f"{'games (pooled)':<28}{g['bytes_per_decision']:>10}   bytes per decision over {g['decisions']} "
              f"decisions of seeds {g['seeds']}")
        _print_kinds(g["bytes_by_kind"])


def _print_kinds(by_kind: Mapping[str, int]) -> None:
    total = sum(by_kind.values()) or 1
    shares = ", ".join(f"{kind} {n * 100 / total:.1f} %" for kind, n in by_kind.items())
    print(f"{'  by frame kind':<28}{'':>10}   {shares} (of {total} bytes before deflate)")


def print_matrix(rows: Sequence[dict[str, Any]]) -> None:
    """One line per configuration."""
    print(f"{'game':<8}{'deck':>5}{'shuf':>5}{'peers':>6}{'setup s':>9}{'hs %':>7}{'shuf %':>8}{'deal %':>8}"
          f"{'other %':>8}{'bytes':>10}{'msgs':>6}{'act ms':>8}")
    for r in rows:
        act = r["action_latency_ms"]
        print(f"{r['game']:<8}{r['universe']:>5}{r['shuffles']:>5}{r['peers']:>6}{r['setup_seconds']:>9.3f}"
              f"{r['handshake_fraction'] * 100:>7.1f}{r['shuffle_fraction'] * 100:>8.1f}"
              f"{r['deal_fraction'] * 100:>8.1f}{r['other_fraction'] * 100:>8.1f}"
              f"{r['bytes_on_wire']:>10}{r['messages']:>6}{act if act is not None else '-':>8}")
    if rows:
        m = rows[0]["machine"]
        print(f"machine: {m['nproc']} cores, Python {m['python']}; {NOTE}")




def parse_deck_files(pairs: Sequence[str]) -> list[tuple[int, str]]:
    """``SEAT=FILE`` pairs of ``--deck``."""
    out = []
    for pair in pairs:
        seat, sep, name = pair.partition("=")
        if not sep or not seat.strip().isdigit() or not name:
            raise OptionError(f"--deck {pair[:80]!r}: expected SEAT=FILE, e.g. 0=mine.deck")
        out.append((int(seat), name))
    return out


def parse_seeds(text: str) -> list[int]:
    """``--games``: ``1-12``, ``1,3,7`` or a mix (``1-3,7``); empty for none."""
    seeds: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, sep, high = part.partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise OptionError(f"--games {text[:80]!r}: expected seeds like 1-12 or 1,3,7")
        seeds.extend(range(int(low), int(high) + 1) if sep else [int(low)])
    return seeds


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="uno", help="a registered game (default: uno)")
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option, e.g. deck=hat (repeatable)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per configuration; the median is reported")
    ap.add_argument("--actions", type=int, default=20,
                    help="decisions to time after the set-up, per run (0: stop at the set-up)")
    ap.add_argument("--full-game", action="store_true",
                    help="also play one whole game and report its bytes on the wire")
    ap.add_argument("--games", default="", metavar="SEEDS",
                    help="also play one whole game per seed (e.g. 1-12 or 1,3,7) and report them pooled ('games')")
    ap.add_argument("--no-deflate", action="store_true",
                    help="whole games without the deflate link feature (the same games, plain frames)")
    ap.add_argument("--deck", action="append", default=[], metavar="SEAT=FILE",
                    help="a seat's own deck file (a trading-card game; repeatable): its list stays on its peer")
    ap.add_argument("--all", action="store_true",
                    help="run the matrix: uno deck=hat with 2/4/6/10 peers, hpsha with 4/6/10, tcg with 2 "
                         "(two secret 60-card decks) if registered")
    ap.add_argument("--seed", type=int, default=None,
                    help="reproducible peer secrets and bots (default: fresh secrets, as in real play)")
    ap.add_argument("--bot", default="random", help="bot kind making the decisions (default: random)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for any one message")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="import a module that registers more games (repeatable)")
    ap.add_argument("--json", action="store_true", help="print JSON (one object; a list with --all)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        for module in args.imports:
            importlib.import_module(module)
        kwargs: dict[str, Any] = {"repeat": args.repeat, "actions": max(0, args.actions),
                                  "full_game": args.full_game, "seed": args.seed, "bot": args.bot,
                                  "timeout": args.timeout, "games": parse_seeds(args.games),
                                  "deflate": not args.no_deflate}
        if args.all:
            rows = run_all(**kwargs)
            if args.json:
                print(json.dumps(rows))
            else:
                print_matrix(rows)
            return 0
        result = benchmark(args.game, args.peers, parse_option_pairs(list(args.option)),
                           deck_files=parse_deck_files(args.deck), **kwargs)
    except (OptionError, ImportError) as err:
        print(f"deal.py: {err}", file=sys.stderr)
        return 2
    except BenchError as err:
        print(f"deal.py: the measured game failed: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
