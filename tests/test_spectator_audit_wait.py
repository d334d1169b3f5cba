"""A watched seat may keep its spectator in the audit only as long as the waits it announced allow (§3.5)."""

from __future__ import annotations

import contextlib
from functools import cache
from typing import Any

import trio
import trio.testing

from p2php.engine.registry import get_game
from p2php.net.framing import FrameDecoder, encode_frame
from p2php.net.linkauth import seal_frame
from p2php.net.mesh import LinkSetup
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory, seeded_secrets
from p2php.session.spectator import WatchError, keep_watching, watch


@cache
def _game() -> tuple[Lockstep, tuple[dict[str, Any], ...]]:
    """Seat 0 of a finished three-seat UNO game (clean), and its record's messages as sent on the wire."""
    peers = make_peers("uno", 3, {"rounds": 1}, seed=3)
    run_in_memory(peers, {s: get_game("uno").make_bot("heuristic", s) for s in range(3)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers)
    return peers[0], tuple(m.to_wire() for m in peers[0].transcript)


class _Reset(trio.abc.Stream):
    """A stream whose end reads as a reset (a broken connection) instead of an end of stream."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if not (data := await self.inner.receive_some(max_bytes)):
            raise trio.BrokenResourceError("connection reset by peer")
        return bytes(data)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _watch(waits: dict[str, Any] | None, late_for: float | None, gone: str | None = None,
                 upto: int | None = None) -> tuple[Lockstep | str, list[str], float]:
    """Watch seat 0 (its key proven, its table real), which relays its whole record but seat 2's audit, then says
    only heartbeats (``at`` None: in its audit) — until ``late_for`` seconds have passed, when it relays that audit
    too and leaves (None: never). ``gone``: instead, the link is reset (``"reset"``) or brings nothing more
    (``"silent"``) after the relays, and the seat cannot be reached again. Returns the record or the error, what
    the spectator was told, and when it ended. ``upto``: relay only that many messages (mid-game), then heartbeats
    that say nothing of the game going on (``at`` the game's start)."""
    ls0, wires = _game()
    audit = next(w for w in wires if w.get("kind") == "audit" and w.get("from") == 2)
    table: dict[str, Any] = {"watch": "table", "game": "uno", "options": dict(ls0.table.options),
                             "hellos": list(ls0.table.hellos)}
    if waits is not None:
        table["waits"] = waits
    start = trio.current_time()

    async def seat(theirs: trio.testing.MemoryStream) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):  # the spectator hung up
            await serve(theirs)

    async def serve(theirs: trio.testing.MemoryStream) -> None:
        decoder = FrameDecoder()

        async def read() -> Any:
            while (frame := decoder.next_frame()) is None:
                decoder.receive_data(await theirs.receive_some(65536))
            return frame

        spectator = await read()
        mine = ls0.table.hellos[0]
        setup = LinkSetup(mine, spectator, dialer=False, sign=seeded_secrets(3, 0).identity.sign)
        await theirs.send_all(encode_frame(mine) + encode_frame(setup.challenge()))
        await theirs.send_all(encode_frame(setup.proof(await read())))
        await read()
        await theirs.send_all(encode_frame({"mesh": "ok"}))
        await read()
        assert setup.macs is not None
        for frame in [table, *({"relay": w} for w in wires[:upto] if w is not audit)]:
            await theirs.send_all(seal_frame(encode_frame(frame), setup.macs[0]))
        while upto is not None:
            await trio.sleep(2.0)
            await theirs.send_all(seal_frame(encode_frame({"hb": 1, "at": [0, 0]}), setup.macs[0]))
        if gone == "reset":
            await theirs.aclose()
        if gone is not None:
            await trio.sleep_forever()
        while late_for is None or trio.current_time() - start < late_for:
            await trio.sleep(2.0)
            await theirs.send_all(seal_frame(encode_frame({"hb": 1, "at": None}), setup.macs[0]))
        await theirs.send_all(seal_frame(encode_frame({"relay": audit}), setup.macs[0]))
        await trio.sleep_forever()

    said: list[str] = []
    async with trio.open_nursery() as nursery:
        links = 0

        async def connect() -> trio.abc.Stream:
            nonlocal links
            links += 1
            if gone is not None and links > 1:
                raise OSError("Connection refused")  # the seat's machine is gone
            ours, theirs = trio.testing.memory_stream_pair()
            nursery.start_soon(seat, theirs)
            return _Reset(ours) if gone == "reset" else ours

        async def attempt(show: Any) -> Lockstep:
            return await watch("seat-0", 0, connect=connect, observe=show)

        result: Lockstep | str
        with trio.fail_after(24 * 3600):
            try:
                result = await keep_watching(attempt, lambda ls: None, said.append)
            except WatchError as err:
                result = str(err)
        nursery.cancel_scope.cancel()
    return result, said, trio.current_time() - start


async def test_a_watched_seat_that_holds_its_spectator_in_the_audit_is_left_once_its_announced_waits_are_past(
        autojump_clock: Any) -> None:
    """Heartbeats in its audit, relaying nothing: an honest seat waiting for a seat that resumes, or a cheater
    holding back a seat's reveals. The spectator waited for ever (a day here, before); now at most what the seat's
    announced waits allow (4 timeouts, 2 resume_timeouts, its linger, a margin), then it closes its audit with what
    it holds, naming nobody, and says why."""
    waits = {"timeout": 2.0, "resume_timeout": 6.0, "linger": 1.0}
    bound = 4 * 2 + 2 * 6 + 1 + 30
    ls, said, took = await _watch(waits, None)
    assert isinstance(ls, Lockstep), ls
    assert ls.finished and ls.verdict is not None and ls.verdict.culprit is None
    assert ls.verdict.code == "refused_audit" and "seat 2" in ls.verdict.reason
    assert bound < took < bound + 3
    assert said == [f"unattributed: the watched seat held us in its audit for {bound:g} s, past its announced timeout "
                    "(2 s), resume_timeout (6 s) and linger (1 s) allow; closing the audit with what we hold, naming "
                    "nobody for what is missing"]


async def test_a_seat_announcing_nothing_or_nonsense_gets_the_most_we_believe_and_no_more_than_an_hour_each(
        autojump_clock: Any) -> None:
    """A seat that does not say its waits may have any (one of this protocol version from before ``waits``): each is
    taken as an hour, what a cheater could announce anyway (before: 30/60/10 s, and a person thinking 290 s at a
    table of 300 s lost its spectator)."""
    for waits, bound in [(None, 7 * 3600 + 30), ({"timeout": float("nan"), "resume_timeout": -1,
                                                   "linger": True}, 7 * 3600 + 30),
                         ({"timeout": 2.0}, 4 * 2 + 2 * 3600 + 3600 + 30),
                         ({"timeout": 1e300, "resume_timeout": 1e300, "linger": 1e300}, 7 * 3600 + 30)]:
        ls, _, took = await _watch(waits, None)
        assert isinstance(ls, Lockstep) and ls.verdict is not None and ls.verdict.culprit is None, ls
        assert bound < took < bound + 3, (waits, took)


async def test_a_spectator_of_an_honest_seat_waiting_within_its_waits_for_a_resumed_seat_gets_the_verdict(
        autojump_clock: Any) -> None:
    """The honest case: the seat waits for seat 2's audit (seat 2 resumed just before its resume_timeout ran out)
    and relays it; its spectator, in the audit all along, gets the table's clean verdict. So with a seat whose
    waits are long (a resume_timeout of ten minutes), far past the defaults' bound."""
    for waits, late in [({"timeout": 2.0, "resume_timeout": 6.0, "linger": 1.0}, 2.0 + 6.0 + 2.0),
                        ({"timeout": 30.0, "resume_timeout": 600.0, "linger": 10.0}, 30.0 + 600.0)]:
        ls, said, _ = await _watch(waits, late)
        assert isinstance(ls, Lockstep), ls
        assert ls.finished and ls.verdict is not None and ls.verdict.clean, (ls.verdict, said)
        assert ls.verdict.state_hash == _game()[0].verdict.state_hash  # type: ignore[union-attr]


async def test_a_link_reset_or_gone_silent_in_the_reveals_leaves_the_spectator_the_record_it_held(
        autojump_clock: Any) -> None:
    """The seat is not seen again: as after an end of stream, the spectator closes its audit on the record it held
    once its patience is out, naming nobody for the missing audit (before: a reset or a silent link dropped that
    record, and the spectator ended with no verdict)."""
    for gone in ("reset", "silent"):
        ls, said, _ = await _watch(None, None, gone)
        assert isinstance(ls, Lockstep), (gone, ls)
        assert ls.finished and ls.verdict is not None and ls.verdict.culprit is None, (gone, ls.verdict, said)
        assert ls.verdict.code == "refused_audit" and "seat 2" in ls.verdict.reason


async def test_a_watched_seat_whose_game_stands_still_past_its_announced_waits_is_left(autojump_clock: Any) -> None:
    """Mid-game, heartbeats that say nothing of the game going on read as a quiet game (someone thinking): a seat
    that relayed 40 messages and then only such heartbeats held its spectator for good (a day here, before). An
    honest seat's game moves, or it aborts, within its waits."""
    waits = {"timeout": 2.0, "resume_timeout": 6.0, "linger": 1.0}
    said, _, took = await _watch(waits, None, upto=40)
    assert isinstance(said, str) and said.startswith("unattributed: the watched seat relayed nothing for 51 s at step")
    assert 51 < took < 54
    # Stopped where it owes the move itself: the others time that, by waits no frame tells (each believed up to an
    # hour, as an announced one is), so it is left then, not sooner.
    said, _, took = await _watch(waits, None, upto=41)
    assert isinstance(said, str) and said.startswith("unattributed: the watched seat relayed nothing for 21631 s at "
                                                     "step 27, its own move"), said
    assert 21631 < took < 21634


async def _watch_a_thinking_seat(autojump_clock: Any, think: float, own: float, others: float,
                                 thinker: int = 0) -> tuple[Any, float]:
    """Real seats on the in-memory network: seat 0 (watched) waits ``own`` seconds for the others' moves, the others
    give it ``others`` for its own; the player of seat ``thinker`` thinks ``think`` seconds over one move. Returns
    what seat 0's spectator ended with and the seats' state hash."""
    from p2php.session.runner import PeerConfig, PeerResult, bot_decider, run_peer
    from p2php.testing.network import MemoryNetwork

    net = MemoryNetwork()
    listeners = [net.listen() for _ in range(3)]
    addresses = {s: net.address_of(listeners[s]) for s in range(3)}
    results: dict[int, PeerResult] = {}
    ended: dict[str, Any] = {}

    async def play(seat: int) -> None:
        cfg = PeerConfig("uno", {"rounds": 1}, 3, seat, f"p{seat}", secrets=seeded_secrets(3, seat),
                         timeout=own if seat == 0 else others, resume_timeout=own if seat == 0 else 60.0,
                         linger=1.0, connect=net.dial)
        bot = bot_decider(get_game("uno").make_bot("heuristic", seat))
        thought = False

        async def decide(ls: Lockstep) -> Any:
            nonlocal thought
            if seat == thinker and not thought and ls.tick >= 5:
                thought = True
                await trio.sleep(think)
            return await bot(ls)

        results[seat] = await run_peer(cfg, addresses, listeners[seat], decide)

    async def spectate() -> None:
        await trio.sleep(0.5)

        async def attempt(show: Any) -> Lockstep:
            return await watch(*addresses[0], observe=show, connect=lambda: net.dial(*addresses[0]))

        try:
            ended["ls"] = await keep_watching(attempt, lambda ls: None, lambda line: None)
        except WatchError as err:
            ended["ls"] = str(err)

    with trio.fail_after(24 * 3600):
        async with trio.open_nursery() as nursery:
            for seat in range(3):
                nursery.start_soon(play, seat)
            nursery.start_soon(spectate)
    assert all(r.lockstep.verdict is not None and r.lockstep.verdict.clean for r in results.values())
    return ended["ls"], results[0].lockstep.verdict.state_hash  # type: ignore[union-attr]


async def test_a_spectator_waits_for_the_watched_seats_own_move_as_long_as_the_other_seats_would(
        autojump_clock: Any) -> None:
    """The watched seat's own move is timed by the other seats, by their timeouts, not by its own: its player may
    think as long as they allow (here seat 0 waits 3 s for others, they give it 120 s, it thinks 60 s). Its spectator
    left that honest game after 4·3 + 2·3 + 1 + 30 = 49 s (before: `relayed nothing for 49 s`); it sees the end."""
    ls, state_hash = await _watch_a_thinking_seat(autojump_clock, think=60.0, own=3.0, others=120.0)
    assert isinstance(ls, Lockstep), ls
    assert ls.verdict is not None and ls.verdict.clean and ls.verdict.state_hash == state_hash


async def test_a_spectator_of_a_seat_that_announces_no_waits_does_not_leave_a_person_thinking_within_them(
        autojump_clock: Any, monkeypatch: Any) -> None:
    """A seat of the same protocol version from before ``waits`` (simulated: no waits told) at a table of people (each
    seat waits 300 s, ``p2php host``'s default): seat 1 thinks 290 s. Taking the 30/60/10 s defaults, its spectator
    left that honest game after 280 s; a table that says nothing of its waits may have any, up to what we believe."""
    from p2php.session import watchers

    init = watchers.Watchers.__init__
    monkeypatch.setattr(watchers.Watchers, "__init__", lambda self, mesh, linger, waits=None: init(self, mesh, linger))
    ls, state_hash = await _watch_a_thinking_seat(autojump_clock, think=290.0, own=300.0, others=300.0, thinker=1)
    assert isinstance(ls, Lockstep), ls
    assert ls.verdict is not None and ls.verdict.clean and ls.verdict.state_hash == state_hash
