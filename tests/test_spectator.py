"""A spectator joins a running table and sees only public information, live."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from types import SimpleNamespace
from typing import Any, cast

import pytest
import trio
import trio.testing

from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, PeerResult, bot_decider, run_peer
from p2php.session.spectator import WatchError, keep_watching, watch


async def test_spectator_follows_the_game_and_sees_no_private_card() -> None:
    players = 3
    listeners = [await listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(players)}
    results: dict[int, PeerResult] = {}
    started = trio.Event()
    seen: list[int] = []

    def observe(ls: Lockstep, _: list[str]) -> None:
        if ls.tick >= 5:
            started.set()

    async def play(seat: int) -> None:
        cfg = PeerConfig("uno", {"rounds": 1}, players, seat, f"p{seat}", timeout=10.0,
                         secrets=seeded_secrets(3, seat))
        bot = bot_decider(get_game("uno").make_bot("heuristic", seat))
        results[seat] = await run_peer(cfg, addresses, listeners[seat], bot, observe if seat == 0 else None)

    async def spectate() -> None:
        await started.wait()  # join a game that is already running
        ls = await watch("127.0.0.1", addresses[0][1], observe=lambda ls: seen.append(ls.tick))
        results[-1] = PeerResult(ls, 0.0, 0.0, 0, 0, 0)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat in range(players):
                nursery.start_soon(play, seat)
            nursery.start_soon(spectate)
    spectator = results[-1].lockstep
    assert spectator.seat is None and spectator.finished
    assert spectator.verdict is not None and spectator.verdict.clean
    assert spectator.verdict.state_hash == results[0].lockstep.verdict.state_hash  # type: ignore[union-attr]
    assert spectator.private_faces == {}
    # it saw hands only as public faces: every face it knows was opened to all
    peer = results[0].lockstep
    assert set(spectator.public_faces) <= set(peer.public_faces)
    assert len(seen) > 10  # live, step by step


class _Link:
    """One fake watch link: shows the record's first ``reach`` events, then breaks (or, None, ends the game)."""

    def __init__(self, plan: list[int | None], why: str = "") -> None:
        self.plan, self.why, self.links = plan, why, 0

    async def __call__(self, observe: Callable[[Lockstep], None]) -> Lockstep:
        reach = self.plan[self.links]
        self.links += 1
        shown = SimpleNamespace(events=[])
        for event in range(reach if reach is not None else 3):  # each link replays from the start
            shown.events.append(event)
            observe(cast(Lockstep, shown))
        if reach is None:
            return cast(Lockstep, shown)
        raise WatchError(self.why or f"link {self.links} broke")


async def test_a_spectator_watches_on_through_any_number_of_breaks_while_each_link_shows_more() -> None:
    said: list[str] = []
    link = _Link([1, 2, 3, 4, 5, 6, None])
    with trio.fail_after(5):
        ls = await keep_watching(link, lambda ls: None, said.append, pause=0)
    assert link.links == 7 and len(ls.events) == 3
    assert said == [f"link {n} broke — watching again" for n in range(1, 7)]


async def test_a_table_never_seen_is_given_up_after_fifteen_seconds_with_one_line(autojump_clock: Any) -> None:
    said: list[str] = []
    link = _Link([0] * 40, why="cannot reach a peer at 10.0.0.9:4000")  # a wrong address
    with pytest.raises(WatchError, match="cannot reach"):
        await keep_watching(link, lambda ls: None, said.append)
    assert trio.current_time() == 15 and link.links == 16
    assert said == ["cannot reach a peer at 10.0.0.9:4000 — watching again"]  # one line, not sixteen


async def test_a_table_never_seen_through_slow_failing_links_is_given_up_after_three_of_them(
        autojump_clock: Any) -> None:
    """Links that each fail after 20 s: the first patience (15 s) has passed by the second failure, yet the third is
    tried too — three tries, however long each takes."""
    tries = 0

    async def slow(observe: Callable[[Lockstep], None]) -> Lockstep:
        nonlocal tries
        tries += 1
        await trio.sleep(20)
        raise WatchError("the peer did not answer in time")

    with pytest.raises(WatchError, match="did not answer"):
        await keep_watching(slow, lambda ls: None, lambda line: None)
    assert tries == 3


async def test_a_table_whose_mesh_is_still_forming_is_watched_once_it_lets_spectators_in(autojump_clock: Any) -> None:
    link = _Link([0] * 6 + [None], why="the peer refused us: seat -1 is not expected to connect to seat 0")
    ls = await keep_watching(link, lambda ls: None, lambda line: None)
    assert link.links == 7 and len(ls.events) == 3


async def test_a_spectator_waits_for_its_seat_as_long_as_the_seats_would_then_gives_up(autojump_clock: Any) -> None:
    """Once it saw the table, it links again a second apart until ``patience`` seconds passed without a new
    event (the seat it watches may be away, coming back); a link that shows more starts that time again."""
    said: list[str] = []
    link = _Link([3] * 40)  # link 1 shows 3 events, and no link after it shows more
    with pytest.raises(WatchError):
        await keep_watching(link, lambda ls: None, said.append, patience=10)
    assert link.links == 11 and trio.current_time() == 10  # failures at 0, 1, …, 10 s
    link = _Link([3] * 8 + [4] * 40)  # link 9 (at 8 s) shows a fourth event
    start = trio.current_time()
    with pytest.raises(WatchError):
        await keep_watching(link, lambda ls: None, said.append, patience=10)
    assert link.links == 19 and trio.current_time() - start == 18


async def _table_with_a_broken_spectator(spectator_linger: float, come_back: bool,
                                         then_wait: float = 0.0) -> tuple[dict[int, Any], dict[str, float]]:
    """Three UNO seats over real sockets; a spectator of seat 0 hangs up mid-game (seat 0 then waits ``then_wait``
    seconds before its next move) and, if ``come_back``, links again a second after the game ended. Returns the
    results (-1: the spectator's second link) and when the link broke, seat 0's game ended and its run returned."""
    players = 3
    listeners = [await listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(players)}
    results: dict[int, Any] = {}
    started, broke, ended = trio.Event(), trio.Event(), trio.Event()
    at: dict[str, float] = {}

    def observe(ls: Lockstep, _: list[str]) -> None:
        if ls.tick >= 5:
            started.set()
        if ls.finished and not ended.is_set():
            at["ended"] = trio.current_time()
            ended.set()

    async def play(seat: int) -> None:
        cfg = PeerConfig("uno", {"rounds": 1}, players, seat, f"p{seat}", timeout=10.0,
                         secrets=seeded_secrets(3, seat), spectator_linger=spectator_linger)
        bot = bot_decider(get_game("uno").make_bot("heuristic", seat))

        async def decide(ls: Lockstep) -> Any:
            if seat == 0 and started.is_set():
                await broke.wait()  # the game goes on past the break, however short the deal's round
            if seat == 0 and broke.is_set() and "waited" not in at:
                at["waited"] = trio.current_time()
                await trio.sleep(then_wait)
            return await bot(ls)

        results[seat] = await run_peer(cfg, addresses, listeners[seat], decide, observe if seat == 0 else None)
        if seat == 0:
            at["returned"] = trio.current_time()

    async def spectate() -> None:
        await started.wait()
        shown = trio.Event()
        with trio.CancelScope() as link:
            async with trio.open_nursery() as watching:
                watching.start_soon(partial(watch, "127.0.0.1", addresses[0][1], observe=lambda _: shown.set()))
                await shown.wait()  # seat 0 has us (it relayed its record), however slow the machine
                await trio.sleep(0.2)
                link.cancel()  # then our link breaks, mid-game
        at["broke"] = trio.current_time()
        broke.set()
        if come_back:
            await ended.wait()
            await trio.sleep(1.0)  # a relink's pause: the seats have all finished meanwhile
            results[-1] = await watch("127.0.0.1", addresses[0][1])

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            for seat in range(players):
                nursery.start_soon(play, seat)
            nursery.start_soon(spectate)
    return results, at


async def test_a_spectator_whose_link_broke_is_still_shown_the_end_of_a_game_that_ended_meanwhile() -> None:
    """The seat keeps its table open (``spectator_linger``) for a spectator that missed the end, so its next link
    replays the whole record; without that the seat had closed and the spectator could not tell how it ended."""
    results, _ = await _table_with_a_broken_spectator(30.0, come_back=True)
    spectator = results[-1]
    assert spectator.finished and spectator.verdict is not None and spectator.verdict.clean
    assert spectator.verdict.state_hash == results[0].lockstep.verdict.state_hash


async def test_a_seat_waits_for_a_spectator_that_missed_the_end_only_so_long() -> None:
    """Up to ``spectator_linger`` seconds from the break (6 s here); and not at all for one that left longer ago
    than that (the game went on 2 s after it left, with 1 s to wait): a friend who stopped watching costs nothing."""
    _, at = await _table_with_a_broken_spectator(6.0, come_back=False)
    assert at["returned"] >= at["broke"] + 6.0
    assert at["returned"] < max(at["ended"], at["broke"] + 6.0) + 2.5
    _, at = await _table_with_a_broken_spectator(1.0, come_back=False, then_wait=2.0)
    assert at["ended"] > at["broke"] + 2.0 and at["returned"] - at["ended"] < 1.5


async def test_a_link_that_breaks_while_it_opens_is_a_watch_error_not_a_crash() -> None:
    async def broken() -> trio.abc.Stream:
        raise trio.BrokenResourceError("libp2p stream write failed: StreamReset")

    with pytest.raises(WatchError, match="cannot reach a peer at seat-0: libp2p stream write failed"):
        await watch("seat-0", 0, connect=broken)


async def _watch_a_hostile_seat(frames: list[dict[str, Any]], hello: dict[str, Any] | None = None,
                                quiet: bool = False, **how: Any) -> str:
    """What ``watch`` raises against a seat that passes the handshake honestly (it proves its key), then sends
    ``frames`` on the authenticated link and hangs up (``quiet``: says nothing more and keeps the link open)."""
    said = await _watch_a_seat(frames, hello, quiet, **how)
    assert isinstance(said, str), "watch ended without an error"
    return said


async def _watch_a_seat(frames: list[dict[str, Any]], hello: dict[str, Any] | None = None,
                        quiet: bool = False, proves_with: int = 0, breaks: bool = False,
                        on_chat: Callable[[Any], None] | None = None, gap: float = 0.0) -> str | Lockstep:
    """What ``watch`` raises (its text) or returns, against a seat as in :func:`_watch_a_hostile_seat`;
    ``proves_with``: the seat whose key signs the proof (another than 0: a seat that cannot prove its hello's key);
    ``breaks``: the link breaks (a reset) where it would end; ``gap``: seconds between two frames."""
    from p2php.net.framing import FrameDecoder, encode_frame
    from p2php.net.linkauth import seal_frame
    from p2php.net.mesh import LinkSetup

    secrets = seeded_secrets(3, 0)
    ours, theirs = trio.testing.memory_stream_pair()

    async def seat() -> None:
        decoder = FrameDecoder()

        async def read() -> Any:
            while (frame := decoder.next_frame()) is None:
                decoder.receive_data(await theirs.receive_some(65536))
            return frame

        spectator = await read()
        mine = hello or {"seat": 0, "sign_key": secrets.identity.public.sign_key, "name": "seat 0"}
        setup = LinkSetup(mine, spectator, dialer=False, sign=seeded_secrets(3, proves_with).identity.sign)
        await theirs.send_all(encode_frame(mine) + encode_frame(setup.challenge()))
        await theirs.send_all(encode_frame(setup.proof(await read())))
        await read()  # its (empty) proof
        await theirs.send_all(encode_frame({"mesh": "ok"}))
        await read()  # its verdict
        assert setup.macs is not None
        for frame in frames:
            await theirs.send_all(seal_frame(encode_frame(frame), setup.macs[0]))
            await trio.sleep(gap)
        if quiet:
            await trio.sleep_forever()
        await theirs.aclose()

    class Reset(trio.abc.Stream):
        """``ours``, whose end reads as a reset (a broken connection) instead of an end of stream."""

        async def send_all(self, data: bytes | bytearray | memoryview) -> None:
            await ours.send_all(data)

        async def wait_send_all_might_not_block(self) -> None:
            await ours.wait_send_all_might_not_block()

        async def receive_some(self, max_bytes: int | None = None) -> bytes:
            data = await ours.receive_some(max_bytes)
            if not data:
                raise trio.BrokenResourceError("connection reset by peer")
            return bytes(data)

        async def aclose(self) -> None:
            await ours.aclose()

    async def connect() -> trio.abc.Stream:
        return Reset() if breaks else ours

    result: str | Lockstep
    async with trio.open_nursery() as nursery:
        nursery.start_soon(seat)
        with trio.fail_after(5):
            try:
                result = await watch("seat-0", 0, connect=connect, dead_after=0.5, on_chat=on_chat)
            except WatchError as err:
                result = str(err)
        nursery.cancel_scope.cancel()
    return result


@pytest.mark.parametrize(("table", "why"), [
    ({"game": "\x1b[2J" * 30, "hellos": []}, r"cannot watch: unknown game '\\x1b\[2J"),
    ({"game": "uno", "options": [1], "hellos": []}, "options are not a map"),
    ({"game": "uno", "options": {"rounds": "\x07" * 500}, "hellos": []}, r"cannot watch: option rounds: '\\x07"),
    ({"game": "uno", "hellos": [{"seat": 0}, {"seat": 1}]}, "cannot watch: hello field"),
    ({"game": "uno", "hellos": []}, "cannot watch: uno needs 2–10 players, not 0"),
    ({"game": "uno"}, "sent no hellos"),
])
async def test_a_watched_seat_that_shows_no_real_table_gets_a_one_line_watch_error(table: dict[str, Any],
                                                                                  why: str) -> None:
    """Before, each of these escaped ``watch`` as the parser's own exception: a traceback, not a reason."""
    said = await _watch_a_hostile_seat([{"watch": "table", **table}])
    assert "\n" not in said and "\x1b" not in said and "\x07" not in said and len(said) < 300
    assert re.search(why, said), said


def _real_table() -> tuple[dict[str, Any], dict[str, Any]]:
    """A two-seat UNO table's ``watch`` frame, every hello real, and seat 0's hello (the seat that shows it)."""
    from p2php.session.handshake import make_hello
    from p2php.session.modes import parse_table_options

    options = parse_table_options(get_game("uno"), {})
    hellos = [make_hello(seeded_secrets(3, s), s, 2, "uno", options, f"p{s}") for s in range(2)]
    return {"watch": "table", "game": "uno", "options": options, "hellos": hellos}, hellos[0]


async def test_a_watched_seat_that_shows_the_table_twice_is_refused() -> None:
    table, hello = _real_table()
    assert await _watch_a_hostile_seat([table], hello) == "the peer hung up before the game ended (step 0)"
    assert await _watch_a_hostile_seat([table, table], hello) == "the peer showed the table twice"


async def test_a_watched_seat_that_hangs_up_before_it_shows_the_table_is_a_watch_error() -> None:
    """Before, with that check gone, ``watch`` raised an ``AttributeError`` on the table it never got."""
    assert await _watch_a_hostile_seat([]) == "the peer never showed the table"
    table, hello = _real_table()
    assert await _watch_a_hostile_seat([table], hello, breaks=True) == "the connection broke: connection reset by peer"


async def test_the_seats_chat_reaches_the_spectator_once_it_knows_the_table_and_not_before() -> None:
    """A chat line can be checked only against the table's keys: one before the table is dropped, not a crash."""
    from p2php.session.chat import ChatDesk, ChatLine
    from p2php.session.handshake import Table

    table, hello = _real_table()
    desk = ChatDesk(Table("uno", table["options"], tuple(table["hellos"])), 0, seeded_secrets(3, 0).identity.sign)
    chat = {"chat": desk.compose("good game", 0.0)}
    heard: list[Any] = []
    said = await _watch_a_hostile_seat([chat, table, chat], hello, on_chat=heard.append)
    assert said == "the peer hung up before the game ended (step 0)"
    assert len(heard) == 1 and isinstance(heard[0], ChatLine) and heard[0].text == "good game"  # (the one after)
    assert await _watch_a_hostile_seat([chat, table], hello) == "the peer hung up before the game ended (step 0)"


async def test_a_watched_peer_that_cannot_prove_its_hellos_key_is_refused() -> None:
    """It claims seat 0's hello and signs its proof with seat 1's key: nothing it sends is read."""
    table, hello = _real_table()
    assert await _watch_a_hostile_seat([table], hello, proves_with=1) == \
        "the peer did not prove it holds the key of its hello"


async def test_a_watched_peer_that_never_answers_the_handshake_is_given_ten_seconds(autojump_clock: Any) -> None:
    async def silent() -> trio.abc.Stream:
        ours, _ = trio.testing.memory_stream_pair()
        return ours

    with pytest.raises(WatchError, match="did not answer in time"):
        await watch("seat-0", 0, connect=silent)
    assert trio.current_time() == 10


async def test_a_watched_seat_that_hangs_up_in_its_audit_leaves_the_spectator_a_verdict_from_what_it_holds() -> None:
    """Seat 0 left the table (its signed leave, an abort naming itself) and hangs up: the table has stopped and the
    seat is done, so the spectator closes its own audit round with what it holds instead of waiting for more."""
    from p2php.session.memory import make_peers

    peers = make_peers("uno", 2, {}, seed=3)
    peers[0].leave()
    table = {"watch": "table", "game": "uno", "options": dict(peers[0].table.options),
             "hellos": list(peers[0].table.hellos)}
    ls = await _watch_a_seat([table, *({"relay": m.to_wire()} for m in peers[0].outbox)], peers[0].table.hellos[0])
    assert isinstance(ls, Lockstep), ls
    assert ls.finished and ls.verdict is not None and (ls.verdict.culprit, ls.verdict.code) == (0, "left")


async def test_a_watched_peer_that_sends_only_heartbeats_is_given_table_wait_to_show_its_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each heartbeat restarted ``dead_after``: a peer that proved a key of its own and then sent only heartbeats
    held a spectator (``p2php watch``, ``api.watch_table``) for good, with no table and no error."""
    from p2php.session import spectator

    monkeypatch.setattr(spectator, "TABLE_WAIT", 0.6)
    said = await _watch_a_hostile_seat([{"hb": 1, "at": [0, 0]}] * 40, gap=0.1, quiet=True)
    assert said == "the peer did not show its table in time"


async def test_a_link_that_brings_nothing_not_even_a_heartbeat_is_dead_soon() -> None:
    """Before, a spectator gave a link ten minutes for the whole game: a seat whose machine vanished without
    closing the link held it that long, and a game longer than that broke every link at ten minutes."""
    table, hello = _real_table()
    said = await _watch_a_hostile_seat([table, {"hb": 1, "at": [0, 0]}], hello, quiet=True)
    assert said == "the peer sent nothing for 0.5 s, not even a heartbeat"


async def test_a_watched_peer_that_shows_its_table_and_then_only_heartbeats_past_us_is_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After its table, a peer whose heartbeats said its game had gone on but that relayed nothing held a
    spectator for good (a quiet game may last; a game that goes on and is not relayed is not watched). Heartbeats
    at our own point are a quiet game, and are waited for."""
    from p2php.session import spectator

    monkeypatch.setattr(spectator, "RELAY_LAG", 0.6)
    table, hello = _real_table()
    ahead = await _watch_a_hostile_seat([table, *[{"hb": 1, "at": [5, 0]}] * 30], hello, gap=0.1, quiet=True)
    assert ahead == "the peer's game went on, but it relayed nothing for 0.6 s"
    level = await _watch_a_hostile_seat([table, *[{"hb": 1, "at": [0, 0]}] * 12], hello, gap=0.1)
    assert level == "the peer hung up before the game ended (step 0)"


async def test_a_watched_peer_whose_heartbeats_say_it_audits_while_it_relayed_no_end_is_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A heartbeat's ``at`` is None once the peer is in its audit, which an honest peer reaches only after it relayed
    the game's end: a peer that said None while our record was mid-game and relayed nothing held a spectator for
    good (``at`` None was never past us)."""
    from p2php.session import spectator

    monkeypatch.setattr(spectator, "RELAY_LAG", 0.6)
    table, hello = _real_table()
    auditing = await _watch_a_hostile_seat([table, *[{"hb": 1, "at": None}] * 30], hello, gap=0.1, quiet=True)
    assert auditing == "the peer's game went on, but it relayed nothing for 0.6 s"


async def test_a_spectator_closes_its_audit_on_the_fullest_record_a_link_held_not_the_latest(
        autojump_clock: Any) -> None:
    """Two links end in the reveals: the second (the watched seat resumed from a log lacking some reveals) holds
    fewer messages than the first; the verdict is closed on the first. Of equals, the latest is kept."""
    def record(seqs: list[int]) -> Any:
        return SimpleNamespace(players=len(seqs), known_seq=lambda seat: seqs[seat], timeout=lambda: None)

    async def check(plan: list[Any]) -> Any:
        links = iter(plan)

        async def attempt(observe: Callable[[Lockstep], None]) -> Lockstep:
            raise WatchError("the watched seat left before the record's end", held=next(links, None))

        return await keep_watching(attempt, lambda ls: None, lambda line: None, patience=5)

    full, poor = record([9, 9, 8]), record([9, 5, 5])
    assert await check([full, poor]) is full
    assert await check([poor, full]) is full
    again = record([9, 8, 9])
    assert await check([full, again]) is again


def test_a_heartbeat_is_ahead_of_a_record_only_past_its_point_and_null_only_mid_game() -> None:
    """``_ahead``: a heartbeat's point past ours is ahead; a peer in its audit (``at`` null) is ahead of a record still
    mid-game, not of one in its audit too or finished (there nothing more may come, and the RELAY_LAG check would end
    a link that waits for the reveals)."""
    from types import SimpleNamespace

    from p2php.session.spectator import _ahead

    def record(auditing: bool = False, finished: bool = False) -> Any:
        return SimpleNamespace(auditing=auditing, finished=finished, tick=5, phase=1)

    assert _ahead(None, record()) is True
    assert _ahead(None, record(auditing=True)) is False
    assert _ahead(None, record(finished=True)) is False
    assert _ahead(None, record(auditing=True, finished=True)) is False
    assert _ahead([5, 2], record()) and _ahead([6, 0], record())
    assert not _ahead([5, 1], record()) and not _ahead([4, 9], record()) and not _ahead([5, True], record())


async def test_a_record_held_in_the_audit_is_closed_with_what_it_holds_once_patience_runs_out() -> None:
    """``keep_watching``: when links keep failing past ``patience`` and one ended in the audit (``WatchError.held``),
    that record's audit is closed (``timeout()``: its verdict on what it holds) and it is returned."""
    from types import SimpleNamespace

    from p2php.session.spectator import WatchError, keep_watching

    closed: list[bool] = []
    held: Any = SimpleNamespace(players=2, known_seq=lambda seat: 3, timeout=lambda: closed.append(True))

    async def attempt(observe: Any) -> Any:
        raise WatchError("the watched seat left before the record's end (step 7)", held=held)

    with trio.fail_after(5):
        got = await keep_watching(attempt, lambda ls: None, lambda line: None, patience=0.0, pause=0.0)
    assert got is held and closed == [True]
