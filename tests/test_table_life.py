"""Table life: signed chat beside the game, a rematch at the same table, bot speed (protocol.md §3.8, §3.9)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio
import trio.testing  # noqa: F401  (the autojump_clock fixture's type)

from p2php import api, tags
from p2php.canonical import digest
from p2php.errors import RefusalCode
from p2php.net.mesh import listen, listener_port
from p2php.session import chat as chat_mod
from p2php.session.chat import ChatDesk, ChatDropped, ChatLine, ChatRefused, normalise
from p2php.session.handshake import HandshakeRefused, LocalSecrets, Table, make_hello
from p2php.session.rematch import Rematch

# ----------------------------------------------------------------------------- chat, sans-IO


def _table(players: int = 3) -> tuple[Table, list[LocalSecrets]]:
    secrets = [LocalSecrets() for _ in range(players)]
    hellos = tuple(make_hello(s, i, players, "toy", {}, f"p{i}") for i, s in enumerate(secrets))
    return Table("toy", {}, hellos), secrets


def test_normalise_keeps_one_printable_line() -> None:
    assert normalise("  hi\x1b[2K\r\n there\u202e\u200b  ") == "hi[2K there"
    assert normalise("e\u0301") == "é" and normalise("\x00\x07") == ""


def test_a_chat_line_travels_signed_and_bounded() -> None:
    table, secrets = _table()
    ann = ChatDesk(table, 0, secrets[0].identity.sign)
    bob = ChatDesk(table, 1, secrets[1].identity.sign)
    line = ann.compose("hello\tbob", 0.0)
    assert bob.receive(0, line, 0.0) == ChatLine(0, "hello bob")
    assert isinstance(bob.receive(0, line, 0.0), ChatDropped)  # the same line again: dropped, named
    # Forged: another seat's words, a bad signature, a line that claims to be seat 2's on seat 0's link.
    forged = {**ann.compose("x", 0.0), "text": "y"}
    assert bob.receive(0, forged, 0.0) == ChatDropped(0, "a chat line not signed by seat 0's key")
    carol = ChatDesk(table, 2, secrets[2].identity.sign)
    drop = bob.receive(0, carol.compose("I am carol", 0.0), 0.0)
    assert isinstance(drop, ChatDropped) and drop.seat == 0 and "claims to be seat 2's" in drop.reason
    for bad in ({"from": 0}, [], {"from": 0, "n": True, "text": "a", "sig": b"x" * 64},
                {"from": 0, "n": 9, "text": "a\x1b", "sig": b"x" * 64}):
        drop = bob.receive(0, bad, 100.0 + len(str(bad)))
        assert isinstance(drop, ChatDropped) and drop.seat == 0
    for sig in ("x" * 64, b"x" * 63, 7):  # not 64 bytes: refused before any key is asked
        drop = bob.receive(0, {"from": 0, "n": 9, "text": "a", "sig": sig}, 150.0 + len(str(sig)))
        assert isinstance(drop, ChatDropped) and "without a valid signature" in drop.reason, (sig, drop)
    # Oversize: refused at the sender, dropped at the receiver (even when well signed).
    with pytest.raises(ChatRefused, match="at most 280"):
        ann.compose("a" * 281, 200.0)
    assert ann.compose("a" * 280, 200.0)["text"] == "a" * 280  # exactly the limit goes
    big = "b" * 281
    n = 50
    sig = secrets[0].identity.sign(chat_mod.chat_bytes(table.session_id, 0, n, big))
    drop = bob.receive(0, {"from": 0, "n": n, "text": big, "sig": sig}, 300.0)
    assert isinstance(drop, ChatDropped) and "over 280" in drop.reason
    exactly = "b" * 280
    sig = secrets[0].identity.sign(chat_mod.chat_bytes(table.session_id, 0, n, exactly))
    assert bob.receive(0, {"from": 0, "n": n, "text": exactly, "sig": sig}, 300.0) == ChatLine(0, exactly)
    with pytest.raises(ChatRefused, match="nothing"):
        ann.compose(" \x1b ", 400.0)
    # Well signed but not normalised (a terminal escape, a doubled space): dropped, never shown.
    for raw in ("a\x1b[2Kb", "two  spaces"):
        n += 1
        sig = secrets[0].identity.sign(chat_mod.chat_bytes(table.session_id, 0, n, raw))
        drop = bob.receive(0, {"from": 0, "n": n, "text": raw, "sig": sig}, 500.0 + n)
        assert isinstance(drop, ChatDropped) and "not normalised" in drop.reason, drop
    # Typed with long runs of spaces: judged once normalised, up to 4 × 280 characters as typed.
    assert ann.compose("a" + " " * 1000 + "b", 600.0)["text"] == "a b"
    assert ann.compose("a" + " " * 1118 + "b", 650.0)["text"] == "a b"  # exactly 4 × 280 as typed
    with pytest.raises(ChatRefused, match="too long"):
        ann.compose("a" + " " * 1200 + "b", 700.0)
    with pytest.raises(ChatRefused, match="spectator"):
        ChatDesk(table, None, None).compose("hi", 800.0)


def test_a_flood_is_bounded_with_one_notice() -> None:
    table, secrets = _table()
    ann = ChatDesk(table, 0, secrets[0].identity.sign, burst=1000)  # a hostile sender ignores its own bucket
    bob = ChatDesk(table, 1, secrets[1].identity.sign)
    got = [bob.receive(0, ann.compose(f"spam {i}", 0.0), 0.0) for i in range(200)]
    lines = [g for g in got if isinstance(g, ChatLine)]
    notices = [g for g in got if isinstance(g, ChatDropped)]
    assert len(lines) == 5 and len(notices) == 1 and notices[0].seat == 0  # a burst of 5, as the API says
    assert "too many" in notices[0].reason and got.count(None) == 200 - 5 - 1
    assert isinstance(bob.receive(0, ann.compose("calm again", 3.0), 3.0), ChatLine)  # the bucket refills
    again = [bob.receive(0, ann.compose(f"spam {i}", 3.0), 3.0) for i in range(10)]  # a new flood, a new notice
    assert sum(isinstance(g, ChatDropped) for g in again) == 1
    me = ChatDesk(table, 2, secrets[2].identity.sign)
    for i in range(chat_mod.BURST):
        me.compose(f"line {i}", 0.0)
    with pytest.raises(ChatRefused, match="slow down"):
        me.compose("one more", 0.0)


def test_a_spectator_checks_relayed_chat_and_names_nobody() -> None:
    table, secrets = _table()
    ann = ChatDesk(table, 0, secrets[0].identity.sign)
    watcher = ChatDesk(table, None, None)
    assert watcher.receive(None, ann.compose("hi", 0.0), 0.0) == ChatLine(0, "hi")
    forged = {**ann.compose("x", 0.0), "from": 1}
    drop = watcher.receive(None, forged, 0.0)
    assert isinstance(drop, ChatDropped) and drop.seat == -1
    again = ann.compose("hi again", 1.0)
    assert watcher.receive(None, again, 1.0) == ChatLine(0, "hi again")
    assert watcher.receive(None, again, 1.0) == ChatDropped(-1, f"chat line {again['n']} of seat 0 came again")
    # (a relayed copy names nobody: the peer that relayed it twice need not be its author)
    # A relayed line from a seat the table does not have (one past the last, a bool): dropped, no key looked up.
    for author in (table.players, True, -1):
        drop = watcher.receive(None, {**ann.compose("x", 10.0 + author), "from": author}, 10.0 + author)
        assert isinstance(drop, ChatDropped) and drop.seat == -1 and "no seat" in drop.reason, (author, drop)


def test_a_spectator_counts_a_relayed_flood_by_its_author_and_names_no_seat_the_table_lacks() -> None:
    """The peer relays every line, so a spectator keeps one bucket per author it can name and one for lines from
    no seat; a flood of the latter names nobody (-1), not the seat number the lines made up."""
    table, secrets = _table()
    ann = ChatDesk(table, 0, secrets[0].identity.sign, burst=1000)
    watcher = ChatDesk(table, None, None)
    for authors, named in (([0] * 8, 0), ([table.players] * 8 + [99] * 8 + [True] * 8 + [-1] * 8, -1)):
        got = [watcher.receive(None, {**ann.compose("x", 0.0), "from": author}, 0.0) for author in authors]
        flood = [g for g in got if isinstance(g, ChatDropped) and "too many" in g.reason]
        assert len(flood) == 1 and flood[0].seat == named, (authors, got)


def test_a_chat_lines_number_fits_sixty_three_bits_and_its_signed_bytes_follow_the_spec() -> None:
    table, secrets = _table()
    bob = ChatDesk(table, 1, secrets[1].identity.sign)
    sid = table.session_id
    assert chat_mod.chat_bytes(sid, 2, 5, "hé") == digest(
        tags.CHAT, sid, b"\x00\x02", (5).to_bytes(8, "big"), "hé".encode())  # §3.8: u16 seat, u64 n
    for n, shown in ((2**63 - 1, True), (2**63, False)):
        sig = secrets[0].identity.sign(chat_mod.chat_bytes(sid, 0, n, "late"))
        got = bob.receive(0, {"from": 0, "n": n, "text": "late", "sig": sig}, float(n % 7))
        assert isinstance(got, ChatLine) == shown, (n, got)


# ----------------------------------------------------------------------------- chat over real sockets


Hook = Callable[[int, api.Peer, api.PeerEvent], Awaitable[None]]


async def _play_table(players: int, hook: Hook, game: str = "toy",
                      where: dict[int, tuple[str, int]] | None = None) -> list[list[api.PeerEvent]]:
    """``players`` API peers on loopback play to the end (first legal action), ``hook`` seeing every event first;
    ``where`` gets every seat's address."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", listener_port(x)) for s, x in enumerate(listeners)}
    if where is not None:
        where.update(addresses)
    seen: list[list[api.PeerEvent]] = [[] for _ in range(players)]

    async def seat(s: int) -> None:
        async with api.start_peer(game, players=players, seat=s, addresses=addresses, listener=listeners[s],
                                  name=f"p{s}") as peer:
            async for event in peer.events():
                seen[s].append(event)
                await hook(s, peer, event)
                if isinstance(event, api.YourTurn):
                    await peer.submit(0)

    try:
        async with trio.open_nursery() as nursery:
            for s in range(players):
                nursery.start_soon(seat, s)
    finally:
        for x in listeners:
            await x.aclose()
    return seen


def _chats(events: list[api.PeerEvent]) -> list[tuple[int, str, bool]]:
    return [(e.seat, e.text, e.own) for e in events if isinstance(e, api.Chat)]


async def test_three_peers_chat_during_a_game() -> None:
    heard = [trio.Event() for _ in range(3)]

    async def hook(s: int, peer: api.Peer, event: api.PeerEvent) -> None:
        if isinstance(event, api.Started):
            assert not peer.lockstep.finished
            peer.say(f"hello from p{s} \x1b[31m")
        if isinstance(event, api.Chat) and sum(isinstance(e, api.Chat) for e in seen_by[s]) == 2:
            heard[s].set()
        if isinstance(event, api.YourTurn):
            with trio.fail_after(10):
                await heard[s].wait()  # every line arrives while the game waits for this seat

    seen_by: list[list[api.PeerEvent]] = [[], [], []]

    async def recording(s: int, peer: api.Peer, event: api.PeerEvent) -> None:
        seen_by[s].append(event)
        await hook(s, peer, event)

    seen = await _play_table(3, recording)
    for s in range(3):
        chats = _chats(seen[s])
        assert sorted(chats) == sorted((o, f"hello from p{o} [31m", o == s) for o in range(3)), chats
        over = seen[s][-1]
        assert isinstance(over, api.Finished) and over.clean
        assert not any(isinstance(e, api.ChatNotice) for e in seen[s])


async def test_a_forged_chat_is_dropped_and_names_its_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 2 signs its line as seat 0 would never: the others drop it, name seat 2, and the game stays clean."""
    honest = ChatDesk.compose

    def forging(self: ChatDesk, text: str, now: float) -> dict[str, Any]:
        chat = honest(self, text, now)
        return {**chat, "from": 0} if self.seat == 2 else chat

    monkeypatch.setattr(ChatDesk, "compose", forging)

    async def hook(s: int, peer: api.Peer, event: api.PeerEvent) -> None:
        if isinstance(event, api.Started) and s == 2:
            peer.say("ann says: I resign")
        if isinstance(event, api.YourTurn) and s != 2:
            with trio.fail_after(10):
                while not any(isinstance(e, api.ChatNotice) for e in peer_events[s]):
                    await trio.sleep(0.05)

    peer_events: list[list[api.PeerEvent]] = [[], [], []]

    async def recording(s: int, peer: api.Peer, event: api.PeerEvent) -> None:
        peer_events[s].append(event)
        await hook(s, peer, event)

    seen = await _play_table(3, recording)
    for s in (0, 1):
        notices = [e for e in seen[s] if isinstance(e, api.ChatNotice)]
        assert len(notices) == 1 and notices[0].seat == 2 and notices[0].name == "p2"
        assert "claims to be seat 0's" in notices[0].reason
        assert not [c for c in _chats(seen[s]) if not c[2]]  # nothing shown as anyone's line
        over = seen[s][-1]
        assert isinstance(over, api.Finished) and over.clean  # talk never convicts


async def test_an_oversize_line_and_a_flood_over_sockets_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 2 ignores every bound of its own: one well-signed 1000-character line, then 40 lines at once. The
    others show at most a burst, say so in a few notices naming seat 2, and the game ends clean."""
    honest = ChatDesk.compose

    def hostile(self: ChatDesk, text: str, now: float) -> dict[str, Any]:
        if self.seat != 2:
            return honest(self, text, now)
        self.buckets.pop(2, None)  # never short of tokens
        if text == "BIG":
            n, self.sent = self.sent, self.sent + 1
            big = "x" * 1000
            assert self.sign is not None
            return {"from": 2, "n": n, "text": big, "sig": self.sign(chat_mod.chat_bytes(self.session_id, 2, n, big))}
        return honest(self, text, now)

    monkeypatch.setattr(ChatDesk, "compose", hostile)
    sent = trio.Event()

    async def hook(s: int, peer: api.Peer, event: api.PeerEvent) -> None:
        if isinstance(event, api.Started) and s == 2:
            peer.say("BIG")
            for i in range(40):
                peer.say(f"spam {i}")
                await trio.sleep(0.001)  # (our own say() queue holds 16)
            sent.set()
        if isinstance(event, api.YourTurn) and s != 2:
            with trio.fail_after(10):
                await sent.wait()
                await trio.sleep(0.3)  # the lines are in flight on the link

    seen = await _play_table(3, hook)
    for s in (0, 1):
        shown = [c for c in _chats(seen[s]) if c[0] == 2]
        notices = [e for e in seen[s] if isinstance(e, api.ChatNotice)]
        # The big line spent a token too; a token may come back during the flood (one a second) and let one
        # line through, and the next line refused is named once more: bounded, not exact.
        assert 1 <= len(shown) <= chat_mod.BURST + 1 and len(shown) + len(notices) <= 10, (shown, notices)
        assert {n.seat for n in notices} == {2} and len(notices) >= 2, notices
        assert "over 280" in notices[0].reason and all("too many" in n.reason for n in notices[1:])
        over = seen[s][-1]
        assert isinstance(over, api.Finished) and over.clean


async def test_a_spectator_sees_the_seats_chat_checked() -> None:
    from p2php.session.spectator import watch

    where: dict[int, tuple[str, int]] = {}
    started, watching, heard = trio.Event(), trio.Event(), trio.Event()
    lines: list[ChatLine | ChatDropped] = []

    def on_chat(note: ChatLine | ChatDropped) -> None:
        lines.append(note)
        heard.set()

    async def spectate() -> None:
        await started.wait()
        await watch(*where[0], "eve", lambda ls: watching.set(), on_chat=on_chat)

    async def hook(s: int, peer: api.Peer, event: api.PeerEvent) -> None:
        if isinstance(event, api.Started) and s == 0:
            started.set()
        if isinstance(event, api.YourTurn) and not heard.is_set():
            with trio.fail_after(10):
                await watching.wait()
                if s == 1:
                    peer.say("hello watchers")  # to seat 0, which shows it to its spectator
                await heard.wait()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectate)
        seen = await _play_table(2, hook, where=where)
    assert lines == [ChatLine(1, "hello watchers")]
    assert all(isinstance(events[-1], api.Finished) and events[-1].clean for events in seen)


async def test_say_refuses_what_cannot_be_sent() -> None:
    async with api.local_table("toy", bots=1, seed=3) as peer:
        with pytest.raises(api.NotStarted):
            peer.say("too early")
        async for event in peer.events():
            if isinstance(event, api.YourTurn):
                with pytest.raises(api.ApiError, match="at most 280"):
                    peer.say("x" * 300)
                with pytest.raises(api.ApiError, match="nothing"):
                    peer.say("\x07")
                await peer.submit(0)


# ----------------------------------------------------------------------------- rematch


def test_a_rematch_hello_is_vouched_by_the_old_seat_key() -> None:
    table, secrets = _table(2)

    class Ended:
        finished = True

        def __init__(self, seat: int) -> None:
            self.seat, self.secrets, self.table = seat, secrets[seat], table

    mine = Rematch.of(Ended(1))
    fresh = LocalSecrets()
    hello = make_hello(fresh, 1, 2, "toy", {}, "p1", {"rematch": mine.vouch(fresh)})
    Rematch.of(Ended(0)).check(1, hello)
    with pytest.raises(ValueError, match="fresh"):
        mine.vouch(secrets[1])
    with pytest.raises(HandshakeRefused, match="not signed by its key") as err:
        Rematch.of(Ended(0)).check(0, {**hello, "seat": 0})  # seat 0's old key never vouched for it
    assert err.value.code is RefusalCode.SIGNATURE
    with pytest.raises(HandshakeRefused, match="another game"):
        Rematch.of(Ended(0)).check(1, {**hello, "rematch": {**hello["rematch"], "of": b"\0" * 32}})
    with pytest.raises(HandshakeRefused, match="no rematch"):
        Rematch.of(Ended(0)).check(1, make_hello(fresh, 1, 2, "toy", {}, "p1"))
    stale = make_hello(secrets[1], 1, 2, "toy", {}, "p1", {"rematch": {"of": table.session_id, "sig": b"x" * 64}})
    with pytest.raises(HandshakeRefused, match="ended game's keys"):
        Rematch.of(Ended(0)).check(1, stale)


async def _finish(peer: api.Peer) -> list[api.PeerEvent]:
    events: list[api.PeerEvent] = []
    async for event in peer.events():
        events.append(event)
        if isinstance(event, api.YourTurn):
            await peer.submit(0)
    return events


def _dealt(events: list[api.PeerEvent]) -> list[int]:
    return [c.card for e in events if isinstance(e, api.StepResolved) for c in e.received]


async def test_a_rematch_at_a_local_table_is_a_fresh_clean_game() -> None:
    async with api.local_table("toy", bots=2, seed=11, bot_delay=0) as peer:
        assert not peer.can_rematch
        first = await _finish(peer)
        assert peer.can_rematch
        old = peer.lockstep
    async with api.rematch_table(peer) as again:
        second = await _finish(again)
        new = again.lockstep
    with pytest.raises(api.ApiError, match="no rematch"):
        api.rematch_table(peer)  # one rematch per ended game
    for events in (first, second):
        over = events[-1]
        assert isinstance(over, api.Finished) and over.clean
    assert new.session_id != old.session_id and new.table.safety_code != old.table.safety_code
    assert all(h["rematch"]["of"] == old.session_id for h in new.table.hellos)
    assert [h["sign_key"] for h in new.table.hellos] != [h["sign_key"] for h in old.table.hellos]
    assert _dealt(first) != _dealt(second)
    started = [e for e in second if isinstance(e, api.Started)]
    assert started and started[0].names == ("you", "bot1", "bot2")


async def test_a_rematch_over_explicit_addresses_waits_for_every_seat() -> None:
    """Two people at start_peer seats: the rematch forms only once both asked for it (one asks 1 s later)."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(x)) for s, x in enumerate(listeners)}
    firsts: list[Any] = [None, None]
    seconds: list[Any] = [None, None]

    async def seat(s: int) -> None:
        async with api.start_peer("toy", players=2, seat=s, addresses=addresses, listener=listeners[s]) as peer:
            await _finish(peer)
            firsts[s] = peer.lockstep
        if s == 1:
            await trio.sleep(1.0)
        async with api.rematch_table(peer) as again:
            events = await _finish(again)
            assert isinstance(events[-1], api.Finished) and events[-1].clean
            seconds[s] = again.lockstep

    try:
        async with trio.open_nursery() as nursery:
            for s in range(2):
                nursery.start_soon(seat, s)
    finally:
        for x in listeners:
            await x.aclose()
    assert seconds[0].session_id == seconds[1].session_id != firsts[0].session_id


# ----------------------------------------------------------------------------- bot speed


async def test_a_slowed_bot_answers_after_its_delay_and_only_then(autojump_clock: trio.testing.MockClock) -> None:
    calls: list[float] = []

    async def bot(_ls: Any) -> dict[str, Any]:
        calls.append(trio.current_time())
        return {"type": "pass"}

    start = trio.current_time()
    assert await api.slowed(bot, 2.5)(None) == {"type": "pass"}  # type: ignore[arg-type]
    assert calls and calls[0] - start >= 2.5
    assert api.slowed(bot, 0) is bot
    for bad in (-1, float("nan"), 61, True):
        with pytest.raises(ValueError, match="bot delay"):
            api.check_delay(bad)


async def test_a_local_table_with_slow_bots_takes_that_long() -> None:
    start = trio.current_time()
    async with api.local_table("toy", bots=1, seed=4, bot_delay=0.4) as peer:
        events = await _finish(peer)
    bot_turns = sum(1 for e in events if isinstance(e, api.StepResolved) and e.kind == "decide"
                    and any(seat == 1 for seat, _ in e.actions))
    assert bot_turns >= 1 and trio.current_time() - start >= 0.4 * bot_turns


# ----------------------------------------------------------------------------- the bridge


async def _drive(session: Any, rx: trio.MemoryReceiveChannel[str]) -> None:
    async def lines() -> Any:
        async for line in rx:
            yield line

    await session.run(lines())


async def _until(out: list[dict[str, Any]], kind: str, count: int = 1) -> None:
    with trio.fail_after(30):
        while sum(1 for e in out if e["event"] == kind) < count:
            await trio.sleep(0.01)


async def test_the_bridge_chats_rematches_and_slows_its_bots() -> None:
    from p2php.bridge.session import BridgeSession

    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)
    acted = 0

    async def answer() -> None:
        nonlocal acted
        while True:
            await trio.sleep(0.01)
            turns = [e for e in out if e["event"] == "your_turn"]
            if len(turns) > acted:
                acted += 1
                await tx.send('{"op": "act", "index": 0}')

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_drive, BridgeSession(out.append), rx)
        await tx.send('{"op": "demo", "game": "toy", "bots": 1, "seed": 8, "bot_delay": -1, "id": "bad"}')
        await tx.send('{"op": "rematch", "id": "early"}')
        await tx.send('{"op": "demo", "game": "toy", "bots": 1, "seed": 8, "bot_delay": 0.05}')
        await _until(out, "started")
        await tx.send(json.dumps({"op": "chat", "text": "hi <b>all</b>\u001b[2J", "id": "c"}))
        await _until(out, "chat")
        nursery.start_soon(answer)
        await _until(out, "game_over")
        await tx.send('{"op": "rematch", "id": "again"}')
        await _until(out, "game_over", 2)
        await tx.send('{"op": "quit"}')
        nursery.cancel_scope.cancel()
    errors = {e.get("id"): e["message"] for e in out if e["event"] == "error"}
    assert "bot delay" in errors["bad"] and "no rematch" in errors["early"]
    chat = next(e for e in out if e["event"] == "chat")
    assert chat == {"event": "chat", "seat": 0, "name": "you", "text": "hi <b>all</b>[2J", "own": True}
    overs = [e for e in out if e["event"] == "game_over"]
    assert all(o["clean"] and o["rematch"] for o in overs)
    codes = [e["safety_code"] for e in out if e["event"] == "started"]
    assert len(codes) == 2 and codes[0] != codes[1]


# ----------------------------------------------------------------------------- the terminal


def test_the_terminal_sends_chat_after_a_greater_than_and_prints_it_escaped() -> None:
    import io

    from p2php.terminal import TerminalUI, chat_hooks

    out = io.StringIO()
    ui = TerminalUI(out=out, colour=False, tty=False)
    hooks = chat_hooks(ui, ["ann", "b\x1b[2Job"])
    ui.chat_line(1, "gg \x1b]0;pwned\x07 \u202eevil")
    ui.chat_line(1, "a chat line not signed by seat 1's key", dropped=True)
    ui.chat_line(7, "from nowhere")
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "» b\\x1b[2Job (seat 1): gg \\x1b]0;pwned\\x07 \\u202eevil" in text
    assert "! dropped a chat line from b\\x1b[2Job (seat 1): a chat line not signed" in text
    assert "» seat 7: from nowhere" in text
    ui.send_chat("hello table")
    assert hooks["chat"].receive_nowait() == "hello table"


def test_play_again_at_the_same_table_in_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import re

    from p2php.cli import main

    asked: list[str] = []

    def person(prompt: str = "") -> str:
        if "Play again" in prompt:
            asked.append(prompt)
            return "y" if len(asked) == 1 else "n"
        return "1"

    monkeypatch.setattr("builtins.input", person)
    code = main(["play", "toy", "--bots", "1", "--seed", "4", "--bot-delay", "0.01"])
    out = capsys.readouterr().out
    assert code == 0 and len(asked) == 2, out[-2000:]
    assert out.count("audit: clean") == 2 and "A rematch at this table" in out
    codes = re.findall(r"^safety code: (\S+)$", out, re.M)
    assert len(set(codes)) == 2, codes
    assert main(["play", "toy", "--bots", "1", "--bot-delay", "99"]) == 2
    assert "--bot-delay" in capsys.readouterr().err


async def test_a_lan_host_and_joiner_rematch_from_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``p2php host`` and ``p2php join`` (in one process here): both answer y after the game, a second game
    forms at the same table, then both answer n."""
    import socket

    from p2php.cli import build_parser
    from p2php.session.netplay import host_game, join_game

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    asked: list[str] = []

    def person(prompt: str = "") -> str:
        if "Play again" in prompt:
            asked.append(prompt)
            return "y" if len(asked) <= 2 else "n"
        if "Choose" in prompt:
            return "1"
        return ""

    monkeypatch.setattr("builtins.input", person)
    parser = build_parser()
    host = parser.parse_args(["host", "toy", "--players", "2", "--port", str(port), "--bind", "127.0.0.1",
                              "--ready", "--discovery-port", "0", "--name", "ann"])
    guest = parser.parse_args(["join", f"127.0.0.1:{port}", "--ready", "--bind", "127.0.0.1", "--name", "bob"])
    codes: list[int] = []

    async def run(coro: Any) -> None:
        codes.append(await coro)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run, host_game(host))
            await trio.sleep(0.5)
            nursery.start_soon(run, join_game(guest))
    out = capsys.readouterr().out
    assert codes == [0, 0] and len(asked) == 4, out[-3000:]
    assert out.count("audit: clean") == 4 and out.count("Rematch: waiting") == 2
    import re

    assert len(set(re.findall(r"^safety code: (\S+)$", out, re.M))) == 2


async def test_a_rematch_nobody_else_asks_for_fails_naming_the_seat() -> None:
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(x)) for s, x in enumerate(listeners)}
    peers: list[Any] = [None, None]

    async def seat(s: int) -> None:
        async with api.start_peer("toy", players=2, seat=s, addresses=addresses, listener=listeners[s]) as peer:
            await _finish(peer)
            peers[s] = peer

    try:
        async with trio.open_nursery() as nursery:
            for s in range(2):
                nursery.start_soon(seat, s)
        async with api.rematch_table(peers[1], wait=1.0) as alone:  # seat 0 went home
            events = await _finish(alone)
    finally:
        for x in listeners:
            await x.aclose()
    failed = events[-1]
    assert isinstance(failed, api.Failed) and "seat(s) [0]" in failed.message, failed


def test_watch_prints_relayed_chat_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    from p2php.peercli import _print_chat

    _print_chat(ChatLine(1, "hi\x1b[2J"))
    _print_chat(ChatDropped(-1, "a chat line not signed by seat 0's key"))
    out = capsys.readouterr().out
    assert out == "» seat 1: hi\\x1b[2J\n! dropped a chat line: a chat line not signed by seat 0's key\n"
