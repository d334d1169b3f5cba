"""``p2php bridge``: JSON lines over stdio (a real subprocess) and over a local WebSocket."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from p2php import api
from p2php.bridge import BridgeSession, dumps, event_json, to_json

BRIDGE = [sys.executable, "-m", "p2php.cli", "bridge"]


class Bridge:
    """A ``p2php bridge`` child process, spoken to as a client in another language would."""

    def __init__(self, *extra: str) -> None:
        self.proc = subprocess.Popen([*BRIDGE, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.proc.stdout.close()
        self.lines.put(None)

    def send(self, command: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((command if isinstance(command, str) else json.dumps(command)) + "\n")
        self.proc.stdin.flush()

    def next(self, timeout: float = 30) -> dict[str, Any]:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the bridge closed its output"
        event = json.loads(line)  # every line the bridge writes is one JSON object
        assert isinstance(event, dict) and isinstance(event.get("event"), str)
        return event

    def until(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        while (event := self.next(timeout))["event"] != kind:
            pass
        return event

    def close(self) -> tuple[int, str]:
        try:
            code = self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        assert self.proc.stderr is not None and self.proc.stdin is not None
        stderr = self.proc.stderr.read()
        for pipe in (self.proc.stdin, self.proc.stderr):
            pipe.close()
        return code, stderr


def test_stdio_bridge_plays_a_full_game_and_survives_bad_input(tmp_path: Path) -> None:
    bridge = Bridge()
    ready = bridge.next()
    assert ready["event"] == "ready" and ready["bridge"] == 2 and "uno" in ready["games"]
    bridge.send({"op": "legal", "id": 1})
    early = bridge.next()
    assert early == {"event": "error", "message": early["message"], "op": "legal", "id": 1}
    bridge.send({"op": "demo", "game": "uno", "bots": 2, "options": {"rounds": 1}, "seed": 3, "name": "luna",
                 "id": "d"})
    assert bridge.next() == {"event": "ok", "op": "demo", "id": "d"}
    started = bridge.until("started")
    assert started["seat"] == 0 and started["names"] == ["luna", "bot1", "bot2"]

    errors: list[dict[str, Any]] = []
    turns = 0
    steps = 0
    while True:
        event = bridge.next()
        if event["event"] == "step":
            steps += 1
            assert isinstance(event["lines"], list) and isinstance(event["random"], str)
        elif event["event"] == "your_turn":
            turns += 1
            assert event["legal"] and len(event["labels"]) == len(event["legal"]) and event["view"]["seat"] == 0
            if turns == 1:
                # A client's bugs, one after another, in the middle of the game: each gets an error event.
                for bad in ("this is not JSON", "[1, 2]", json.dumps({"op": "fly"}),
                            json.dumps({"op": "act", "action": {"type": "bogus"}}),
                            json.dumps({"op": "act", "index": 999}), json.dumps({"op": "act"}),
                            json.dumps({"op": "act", "index": "one"}),
                            json.dumps({"op": "demo", "bots": 1}), json.dumps({"op": "save"}), "[" * 50000):
                    bridge.send(bad)
                    errors.append(bridge.until("error"))
                bridge.send({"op": "view", "id": 2})
                view = bridge.until("view")
                assert view["id"] == 2 and view["your_turn"] and view["view"]["hand"]
                bridge.send({"op": "legal"})
                assert bridge.until("legal")["legal"] == event["legal"]
            # Answer with the legal action itself, as JSON (the last one: often a draw, so the game moves on).
            bridge.send({"op": "act", "action": event["legal"][-1]})
            ok = bridge.until("ok")
            assert ok["op"] == "act" and ok["action"] == event["legal"][-1]
        elif event["event"] == "game_over":
            break
    assert event["clean"] and event["winners"] and len(event["state_hash"]) == 64 and "audit: clean" in event["text"]
    assert turns >= 1 and steps > 5
    messages = [e["message"] for e in errors]
    assert "not JSON" in messages[0] and "JSON object" in messages[1] and "unknown op" in messages[2]
    assert "bogus" in messages[3] and "999" in messages[4] and "action" in messages[5] and "int" in messages[6]
    assert "already running" in messages[7] and "path" in messages[8] and "not JSON" in messages[9]

    bridge.send({"op": "act", "index": 0})
    assert "not your turn" in bridge.until("error")["message"]
    path = tmp_path / "luna.p2php"
    bridge.send({"op": "save", "path": str(path)})
    saved = bridge.until("saved")
    assert saved["complete"] and path.exists()
    bridge.send({"op": "verify", "path": str(path)})
    verified = bridge.until("verified")
    assert verified["ok"] and verified["state_hash"] == event["state_hash"]
    bridge.send({"op": "quit"})
    assert bridge.until("bye") == {"event": "bye"}
    code, stderr = bridge.close()
    assert code == 0 and "Traceback" not in stderr
    assert api.verify_transcript(path).ok


def test_stdio_bridge_refuses_an_answer_for_another_question_than_the_open_one() -> None:
    """Every your_turn carries a number; an act echoing another number (a question withdrawn meanwhile, its next one
    asked at once; or one already answered) is refused naming both and not played: the open question stays open.
    Before, the bridge could not tell, and an answer meant for one question was played on the next (its index 0
    another move). An act without the number works as before."""
    bridge = Bridge()
    bridge.next()
    bridge.send({"op": "demo", "game": "uno", "bots": 1, "options": {"rounds": 1, "crypto": "fast"}, "seed": 5})
    first = bridge.until("your_turn")
    assert isinstance(first["turn"], int) and first["turn"] >= 1
    bridge.send({"op": "act", "index": len(first["legal"]) - 1, "turn": first["turn"]})
    ok = bridge.until("ok")
    assert ok["op"] == "act" and ok["turn"] == first["turn"]
    second = bridge.until("your_turn")
    assert second["turn"] > first["turn"]
    bridge.send({"op": "act", "index": 0, "turn": first["turn"], "id": "late"})  # an answer for the first question
    refused = bridge.next()
    assert refused["event"] == "error" and refused["id"] == "late", refused
    message = refused["message"]
    assert "\n" not in message and f"question {first['turn']}" in message and f"question {second['turn']}" in message
    bridge.send({"op": "legal"})
    legal = bridge.until("legal")
    assert legal["your_turn"] and legal["turn"] == second["turn"] and legal["legal"] == second["legal"]  # still open
    bridge.send({"op": "act", "index": len(second["legal"]) - 1})  # no number: as before
    ok = bridge.until("ok")
    assert ok["turn"] == second["turn"] and ok["action"] == second["legal"][-1]
    bridge.send({"op": "quit"})
    assert bridge.until("bye") == {"event": "bye"}
    code, stderr = bridge.close()
    assert code == 0, stderr


def test_stdio_bridge_ends_cleanly_at_end_of_input_even_mid_game() -> None:
    bridge = Bridge()
    bridge.next()
    bridge.send({"op": "demo", "bots": 1, "options": {"rounds": 1}, "seed": 1})
    bridge.until("your_turn")
    assert bridge.proc.stdin is not None
    bridge.proc.stdin.close()  # the client went away: the bridge leaves the table and exits
    assert bridge.until("bye")["event"] == "bye"
    code, stderr = bridge.close()
    assert code == 0 and "Traceback" not in stderr


def test_bridge_rejects_a_bad_ws_address() -> None:
    out = subprocess.run([*BRIDGE, "--ws", "nowhere"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "HOST:PORT" in out.stderr and "Traceback" not in out.stderr


def test_missing_wsproto_gets_a_clear_message(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from p2php import bridge

    monkeypatch.setitem(sys.modules, "wsproto", None)
    monkeypatch.delitem(sys.modules, "p2php.bridge.ws", raising=False)
    assert bridge.main(ws="127.0.0.1:0") == 2
    assert "p2php[ws]" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the protocol core, in process


def test_values_become_json_safe() -> None:
    value = {1: b"\x00\xff", "t": (1, 2), "s": {3}, "f": float("nan"), b"k": None}
    assert to_json(value) == {"1": "00ff", "t": [1, 2], "s": [3], "f": "nan", "6b": None}
    assert to_json({True: "yes", None: 1}) == {"true": "yes", "null": 1}
    step = api.StepResolved(4, "randomness", ("· joint random draw",), random=b"\x01\x02")
    assert event_json(step)["random"] == "0102"
    assert json.loads(dumps({"event": "x", "b": b"\xab"})) == {"event": "x", "b": "ab"}


async def drive(session: BridgeSession, commands: trio.MemoryReceiveChannel[str]) -> None:
    async def lines() -> Any:
        async for line in commands:
            yield line

    await session.run(lines())


async def test_session_answers_every_command_with_one_reply() -> None:
    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)
    session = BridgeSession(out.append)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drive, session, rx)
        for cmd in ({"op": "games", "id": 7}, {"op": "join", "id": 8}, {"op": "join", "address": "nowhere"},
                    {"op": "start", "game": "uno", "seat": 0, "addresses": [[1, 2]]},
                    {"op": "demo", "game": "chess"}, {"op": "demo", "bots": True}, {"op": "leave"},
                    {"op": "verify", "path": "/nonexistent/x.p2php"}):
            await tx.send(json.dumps(cmd))
        await tx.send('{"op": "quit"}')
    kinds = [e["event"] for e in out]
    assert kinds[0] == "ready" and kinds[-1] == "bye"
    replies = out[1:-1]
    assert len(replies) == 8
    games = replies[0]
    assert games["event"] == "games" and games["id"] == 7
    assert {g["name"] for g in games["games"]} >= {"uno", "hpsha"}
    assert all(e["event"] == "error" for e in replies[1:])
    assert replies[1]["id"] == 8 and "address" in replies[1]["message"]
    assert "HOST:PORT" in replies[2]["message"] and "HOST:PORT" in replies[3]["message"]
    assert "chess" in replies[4]["message"] and "int" in replies[5]["message"]
    assert "no table" in replies[6]["message"] and "x.p2php" in replies[7]["message"]


async def test_session_matches_actions_by_their_json_form() -> None:
    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)
    session = BridgeSession(out.append)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drive, session, rx)
        await tx.send(json.dumps({"op": "demo", "game": "toy", "bots": 2, "seed": 9}))
        acted = 0
        while not any(e["event"] == "game_over" for e in out):
            await trio.sleep(0.01)
            turns = [e for e in out if e["event"] == "your_turn"]
            if len(turns) > acted:
                legal = turns[-1]["legal"]
                # Key order does not matter: the JSON form is compared canonically.
                await tx.send(json.dumps({"op": "act", "action": dict(reversed(list(legal[0].items())))}))
                acted += 1
        await tx.send('{"op": "quit"}')
    over = next(e for e in out if e["event"] == "game_over")
    assert over["clean"] and acted >= 2
    assert not [e for e in out if e["event"] == "error"]


async def wait_for(out: list[dict[str, Any]], kind: str, count: int = 1) -> None:
    with trio.fail_after(20):
        while sum(1 for e in out if e["event"] == kind) < count:
            await trio.sleep(0.01)


async def test_leave_ends_the_table_and_another_can_start() -> None:
    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drive, BridgeSession(out.append), rx)
        await tx.send(json.dumps({"op": "demo", "game": "toy", "bots": 1, "seed": 2}))
        await wait_for(out, "your_turn")
        await tx.send(json.dumps({"op": "leave", "id": "L"}))
        await wait_for(out, "game_over")
        await wait_for(out, "ok", 2)
        await tx.send(json.dumps({"op": "demo", "game": "toy", "bots": 1, "seed": 3}))
        await wait_for(out, "started", 2)
        await tx.send('{"op": "quit"}')
    kinds = [e["event"] for e in out]
    over = kinds.index("game_over")  # on our turn: a signed leave, the table ends at once naming us
    assert out[over]["culprit"] == 0 and out[over]["code"] == "left" and "left the table" in out[over]["reason"]
    assert out[over + 1] == {"event": "ok", "op": "leave", "id": "L"}
    assert kinds[-1] == "bye"


# ----------------------------------------------------------------------------- WebSocket


async def test_websocket_bridge_handshakes_refuses_foreign_origins_and_plays() -> None:
    from p2php.bridge import ws

    async with trio.open_nursery() as nursery:
        port = await nursery.start(ws.serve, "127.0.0.1", 0, ("http://localhost:3000",))
        with pytest.raises(ws.WebSocketError, match="403"):
            await ws.connect("127.0.0.1", port, origin="http://evil.example")
        allowed = await ws.connect("127.0.0.1", port, origin="http://localhost:3000")
        assert json.loads(await allowed.receive_text() or "")["event"] == "ready"
        await allowed.aclose()

        client = await ws.connect("127.0.0.1", port)
        assert json.loads(await client.receive_text() or "")["event"] == "ready"
        await client.send_text("not json")
        assert json.loads(await client.receive_text() or "")["event"] == "error"
        await client.send_text(json.dumps({"op": "demo", "game": "toy", "bots": 2, "seed": 4}))
        turns = 0
        with trio.fail_after(30):
            while True:
                event = json.loads(await client.receive_text() or "")
                if event["event"] == "your_turn":
                    turns += 1
                    await client.send_text(json.dumps({"op": "act", "index": len(event["legal"]) - 1}))
                elif event["event"] == "game_over":
                    break
        assert event["clean"] and turns >= 2
        await client.send_text('{"op": "quit"}')
        while (text := await client.receive_text()) is not None:
            last = json.loads(text)
        assert last == {"event": "bye"}
        nursery.cancel_scope.cancel()


async def test_idle_connections_without_the_key_hold_at_most_max_waiting_places(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Any program on the machine may connect: idle connections that never finished a handshake held every file
    descriptor of the process (its games could then neither redial nor save a transcript). Past MAX_WAITING, the
    oldest idle one is closed at once; a client let in no longer counts."""
    from adversarial.squatter import fill_the_door

    from p2php.bridge import ws

    monkeypatch.setattr(ws, "MAX_WAITING", 4)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(ws.serve, "127.0.0.1", 0)
        client = await ws.connect("127.0.0.1", port)  # let in: not waiting
        idle = await fill_the_door(port, 4)
        again = await ws.connect("127.0.0.1", port)  # in, in the place of the oldest idle one
        assert json.loads(await again.receive_text() or "")["event"] == "ready"
        assert json.loads(await client.receive_text() or "")["event"] == "ready"
        for stream in idle:
            await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_program_holding_every_place_at_the_door_never_keeps_a_client_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Red-team rt10-web: a program on the machine held every place at the door from 127.0.0.1 (the clients' own
    address), opening a new connection as each was closed: every client was closed at once, for good. A newcomer
    now takes the place of the oldest idle connection."""
    from adversarial.squatter import Squatter

    from p2php.bridge import ws

    monkeypatch.setattr(ws, "MAX_WAITING", 4)
    async with trio.open_nursery() as nursery:
        key = ws.new_key()
        port = await nursery.start(partial(ws.serve, "127.0.0.1", 0, key=key))
        squatter = Squatter(port, ["127.0.0.1"], 4)
        await nursery.start(squatter.run)
        for _ in range(3):
            with trio.fail_after(5):
                client = await ws.connect("127.0.0.1", port, f"/?key={key}")
                assert json.loads(await client.receive_text() or "")["event"] == "ready"
            await client.aclose()
        nursery.cancel_scope.cancel()


def test_a_connection_just_arrived_is_not_idle_at_the_door() -> None:
    """Review rv10-web: a program held the door's other places with connections that each sent a whole request and
    read nothing of the answer (shown: kept); the page's connection, in for the oldest of them, counted idle until
    its request was read a scheduling round later, and the program's next newcomer took its place (9 of 12 page
    loads in Chromium never got their socket). A connection is idle once it had FRESH seconds to send a request."""
    from p2php.bridge import ws

    room = ws.WaitingRoom(3)
    held = [room.enter("127.0.0.2") for _ in range(3)]
    for ticket in held:
        assert ticket is not None
        room.showed(ticket)  # a whole request each, its answer never read
    page = room.enter("127.0.0.1")
    assert page is not None and held[0].evicted
    assert room.enter("127.0.0.2") is not None  # the program's next, before the page's request is read
    assert not page.evicted and held[1].evicted
    now = [0.0]
    room = ws.WaitingRoom(2, clock=lambda: now[0])
    quiet, busy = room.enter("127.0.0.1"), room.enter("127.0.0.1")
    assert quiet is not None and busy is not None
    room.showed(busy)
    now[0] = ws.FRESH  # silent for FRESH seconds: idle, it makes way first
    assert room.enter("127.0.0.1") is not None and quiet.evicted and not busy.evicted


async def test_a_websocket_command_holding_a_raw_line_separator_is_one_command() -> None:
    """JavaScript's JSON.stringify leaves U+2028, U+2029 and U+0085 raw inside strings (a pasted chat line, a name):
    the bridge split its messages at them (str.splitlines), so such a command got two "not JSON" errors and no reply
    of its own."""
    from p2php.bridge import ws

    async with trio.open_nursery() as nursery:
        port = await nursery.start(ws.serve, "127.0.0.1", 0)
        client = await ws.connect("127.0.0.1", port)
        assert json.loads(await client.receive_text() or "")["event"] == "ready"
        await client.send_text('{"op": "settings", "id": "one\u2028two\u0085three"}\n{"op": "games", "id": 2}')
        with trio.fail_after(10):
            first = json.loads(await client.receive_text() or "")
            second = json.loads(await client.receive_text() or "")
        assert first["event"] == "ok" and first["id"] == "one\u2028two\u0085three"
        assert second["event"] == "games" and second["id"] == 2
        await client.aclose()
        nursery.cancel_scope.cancel()


def test_ws_bridge_command_announces_its_url_and_answers() -> None:
    proc = subprocess.Popen([*BRIDGE, "--ws", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "listening" and first["url"].startswith("ws://127.0.0.1:")
        port_text, path = first["url"].removeprefix("ws://127.0.0.1:").split("/", 1)
        port, path = int(port_text), "/" + path
        assert path.startswith("/?key=") and len(path) > 20

        async def talk() -> dict[str, Any]:
            from p2php.bridge import ws

            for keyless in ("/", "/?key=nope"):  # any program on the machine can reach the port: it needs the key
                with pytest.raises(ws.WebSocketError, match="403.*lacks its key"):
                    await ws.connect("127.0.0.1", port, keyless)
            client = await ws.connect("127.0.0.1", port, path)
            await client.receive_text()
            await client.send_text(json.dumps({"op": "games"}))
            answer: dict[str, Any] = json.loads(await client.receive_text() or "")
            await client.aclose()
            return answer

        answer = trio.run(talk)
        assert answer["event"] == "games" and any(g["name"] == "uno" for g in answer["games"])
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def test_a_link_change_is_an_event_with_the_seat_its_name_and_the_time_left() -> None:
    from p2php import api

    down = event_json(api.LinkChanged(2, "cy" * 500, False, 60.0))
    assert (down["event"], down["seat"], down["up"], down["wait"]) == ("link", 2, False, 60.0)
    assert len(down["name"]) < 200  # a peer's name is capped like every other name
    assert event_json(api.LinkChanged(2, "cy", True, 0.0))["up"] is True


def test_an_id_that_cannot_be_echoed_and_text_utf8_cannot_carry_end_nothing() -> None:
    """One bad line must never end a client's session. An ``id`` 900 lists deep (echoed, it overflowed the writer
    and the bridge died with RecursionError) or a megabyte long is refused without echo; a lone surrogate in an
    echoed id (valid JSON, but not UTF-8: the writer stopped for good, every later reply lost) is written escaped;
    a NaN or negative ``timeout`` is refused before any table starts."""
    bridge = Bridge()
    bridge.next()
    bridge.send('{"op": "games", "id": ' + "[" * 900 + "]" * 900 + "}")
    refused = bridge.next()
    assert refused["event"] == "error" and "id" not in refused and "at most 200 characters" in refused["message"]
    bridge.send({"op": "games", "id": "x" * 5000})
    assert bridge.next()["event"] == "error"
    bridge.send('{"op": "games", "id": "\\ud800 lone"}')
    games = bridge.next()
    assert games["event"] == "games" and games["id"] == "\ud800 lone"  # escaped on the wire, the same id read back
    bridge.send('{"op": "no such op, a megabyte long' + "x" * 100_000 + '", "id": 5}')
    unknown = bridge.next()
    assert unknown["event"] == "error" and "op" not in unknown and len(json.dumps(unknown)) < 3000
    for timeout in ("NaN", "Infinity", "-5", "0"):
        bridge.send('{"op": "demo", "game": "uno", "bots": 1, "id": 7, "timeout": ' + timeout + "}")
        bad = bridge.next()
        assert bad["event"] == "error" and "finite number of seconds above 0" in bad["message"], (timeout, bad)
    bridge.send({"op": "quit", "id": 8})
    assert bridge.until("bye") == {"event": "bye"}  # still answering after all of it
    assert bridge.close()[0] == 0


def test_dumps_writes_any_event_as_one_utf8_line() -> None:
    assert dumps({"event": "x", "text": "雪 ok"}) == '{"event":"x","text":"雪 ok"}'  # UTF-8 as it is
    escaped = dumps({"event": "x", "text": "雪\ud800"})
    assert escaped.isascii() and json.loads(escaped)["text"] == "雪\ud800"
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    broken = json.loads(dumps({"event": "x", "value": deep}))
    assert broken["event"] == "error" and "could not be written" in broken["message"]


async def test_a_client_that_sends_and_never_reads_makes_the_bridge_stop_reading_not_hold_every_reply() -> None:
    """Each command's reply waits for the client; one that only sends would have the bridge hold them all (a
    megabyte of ``games`` commands: about half a gigabyte of replies). Paced, the bridge reads no further command
    while ``limit`` events wait, and reads on once the client takes them."""
    from p2php.bridge.session import paced

    tx, rx = trio.open_memory_channel[dict[str, Any]](float("inf"))
    sent = 0

    async def lines() -> Any:
        nonlocal sent
        while True:
            sent += 1
            yield '{"op": "games"}'

    session = BridgeSession(tx.send_nowait)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run, paced(lines(), lambda: rx.statistics().current_buffer_used, limit=50,
                                              pause=0.01))
        await trio.sleep(0.3)
        held, read = rx.statistics().current_buffer_used, sent
        assert 50 <= held <= 52 and read <= 53  # (the ready event, and the line read before the pause)
        for _ in range(held):
            rx.receive_nowait()
        await trio.sleep(0.3)
        assert sent > read and rx.statistics().current_buffer_used >= 50  # read on, and paused again
        nursery.cancel_scope.cancel()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="writes to /dev/full")
async def test_a_bridge_whose_stdout_fails_reads_its_commands_on() -> None:
    """Stdout a file on a full disk (ENOSPC): the writer stopped at its first failure, yet the events went on being
    queued, and once ``MAX_UNREAD`` of them waited ``paced`` read no further command, for good -- a client still
    sending moves was never read again (red-team rt9-small: 1 001 of 3 001 commands read). The events are dropped
    now, and every command read."""
    import io

    from p2php.bridge.session import MAX_UNREAD
    from p2php.bridge.stdio import serve_stdio

    commands = MAX_UNREAD + 100
    stdin = io.BytesIO(b'{"op": "settings"}\n' * commands + b'{"op": "quit"}\n')
    stdout = open("/dev/full", "wb", buffering=0)  # noqa: SIM115 (every write fails: ENOSPC)
    try:
        with trio.fail_after(20):
            await serve_stdio(stdin, stdout)
    finally:
        stdout.close()
    assert stdin.tell() == len(stdin.getvalue())  # read to the end: the quit too


async def test_a_bridge_host_removes_a_joiner_before_the_start() -> None:
    """``{"op": "remove", "seat": N}``: the page or program hosting a table sends away one who never gets ready."""
    from p2php.lobby import JoinSession, Refusal
    from p2php.lobby import join_table as lobby_join

    out: list[dict[str, Any]] = []

    async def until(kind: str, text: str = "") -> dict[str, Any]:
        with trio.fail_after(20):
            while not (found := [e for e in out if e.get("event") == kind and text in json.dumps(e)]):
                await trio.sleep(0.02)
            return found[-1]

    tx, rx = trio.open_memory_channel[str](10)

    async def lines() -> Any:
        async for line in rx:
            yield line

    async with trio.open_nursery() as nursery:
        nursery.start_soon(BridgeSession(out.append).run, lines())
        await tx.send(json.dumps({"op": "remove", "seat": 1, "id": "early"}))
        assert "no table is open" in (await until("error", "early"))["message"]
        await tx.send(json.dumps({"op": "host", "game": "toy", "players": 2, "port": 0, "bind": "127.0.0.1"}))
        port = (await until("table_open"))["port"]

        async def squat() -> None:
            with pytest.raises(Refusal, match="the host removed you"):
                await lobby_join("127.0.0.1", port, JoinSession("squat", 6001), ready=False,
                                 ask_ready=trio.sleep_forever)

        nursery.start_soon(squat)
        await until("lobby", "squat joined")
        await tx.send(json.dumps({"op": "remove", "seat": 0, "id": "own"}))
        assert "seat 0 has no joiner to remove" in (await until("error", "own"))["message"]
        await tx.send(json.dumps({"op": "remove", "seat": 1, "id": "r"}))
        assert (await until("ok", '"remove"'))["name"] == "squat"
        await until("lobby", "squat was removed by the host")
        await tx.send('{"op": "quit"}')


def test_an_event_with_remote_line_separators_stays_one_line_of_json() -> None:
    """JSON leaves U+0085, U+2028 and U+2029 raw; Python's ``splitlines`` (and other line readers) end a line at
    each, so remote text holding them cut an event into pieces that are not JSON (red-team rt3-text)."""
    from p2php.bridge.session import dumps

    text = "x\x85y\u2028z\u2029 é ok"
    line = dumps({"event": "chat", "text": text})
    assert line.splitlines() == [line]
    assert json.loads(line)["text"] == text


@pytest.mark.parametrize("again", [False, True])
async def test_a_leave_read_with_the_command_that_starts_a_table_leaves_that_table(again: bool) -> None:
    """One WebSocket message may hold several commands, read with no pause between them: a leave right behind a
    demo (or a rematch) ran before the table's task had its peer, so it told nothing (or the last game's peer) to
    leave and then waited for the new game to end, reading no command: the client's answers went unread and the
    others named its seat ``silent``."""
    out: list[dict[str, Any]] = []
    replied = trio.Event()

    def emit(event: dict[str, Any]) -> None:
        out.append(event)
        if event.get("op") == "leave" or event["event"] == "game_over" and not again:
            replied.set()

    demo = json.dumps({"op": "demo", "game": "toy", "bots": 2, "seed": 4, "timeout": 2})

    async def lines() -> Any:
        if again:  # a first game, played to its end (the bots answer for us: index 0 whenever asked)
            yield demo
            while not any(e["event"] == "game_over" for e in out):
                await trio.sleep(0.01)
                while sum(e["event"] == "your_turn" for e in out) > sum(e.get("op") == "act" for e in out):
                    yield json.dumps({"op": "act", "index": 0})
                    await trio.sleep(0.01)
            del out[:]
        yield json.dumps({"op": "rematch"}) if again else demo
        yield '{"op": "leave", "id": "L"}'  # no checkpoint between the two: as a message's lines are read
        with trio.fail_after(10):
            await replied.wait()
        yield '{"op": "quit"}'

    with trio.fail_after(30):
        await BridgeSession(emit).run(lines())
    kinds = [e["event"] for e in out]
    assert "game_over" not in kinds and "your_turn" not in kinds, out
    assert out[-1] == {"event": "bye"} and out[-2] == {"event": "ok", "op": "leave", "id": "L"}
    assert out[-3] == {"event": "failed", "message": "you left the table"}


@pytest.mark.parametrize("how", ["quit", "end of input"])
async def test_quitting_or_dropping_the_bridge_amid_a_game_leaves_it_with_a_signed_leave(how: str) -> None:
    """A ``quit``, or the client's input ending (a closed page, a dropped WebSocket), amid a game cancelled the peer
    outright: it told nobody, and the other seats waited ``resume_timeout`` and ended the game ``unreachable``. Now
    the bridge leaves first: every seat ends at once naming ours ``left``."""
    out: list[dict[str, Any]] = []

    async def lines() -> Any:
        yield json.dumps({"op": "demo", "game": "toy", "bots": 2, "seed": 5})
        await wait_for(out, "your_turn")
        if how == "quit":
            yield '{"op": "quit"}'

    with trio.fail_after(30):
        await BridgeSession(out.append).run(lines())
    over = [e for e in out if e["event"] == "game_over"]
    assert over and over[0]["code"] == "left" and over[0]["culprit"] == 0, out[-4:]
    assert out[-1] == {"event": "bye"}


async def test_the_commands_of_one_message_let_the_rest_of_the_process_run_between_them() -> None:
    """A WebSocket message's commands were run back to back: 1 000 ``settings`` (or ``save``s) in one message held
    every other session and table of the process for 1–3 s (rt4-embed). ``paced`` now checkpoints at each."""
    from p2php.bridge.session import paced

    ticks = 0

    async def other_table() -> None:
        nonlocal ticks
        while True:
            await trio.sleep(0)
            ticks += 1

    async def one_message() -> Any:
        for _ in range(300):
            yield json.dumps({"op": "settings", "auto_forced": True})

    out: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(other_table)
        await trio.sleep(0)
        before = ticks
        await BridgeSession(out.append).run(paced(one_message(), lambda: 0))
        nursery.cancel_scope.cancel()
    assert sum(e.get("op") == "settings" for e in out) == 300
    assert ticks - before >= 250, ticks - before


async def test_stdio_bridge_writes_nothing_more_once_a_write_failed() -> None:
    """Once a write of stdout failed (a full disk, say, that has room again later), every later event is dropped,
    not written: after a line torn by the failure, a later line would be glued to it in the client's stream."""
    import errno
    import math

    from p2php.bridge.stdio import write_lines

    class _Flaky:
        def __init__(self) -> None:
            self.calls = 0
            self.written: list[bytes] = []

        def write(self, data: bytes) -> int:
            self.calls += 1
            if self.calls == 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.written.append(data)
            return len(data)

        def flush(self) -> None:
            pass

    stream = _Flaky()
    tx, rx = trio.open_memory_channel[dict[str, Any]](math.inf)
    for n in range(3):
        tx.send_nowait({"event": "lobby", "message": f"line {n}"})
    tx.close()
    with trio.fail_after(5):
        await write_lines(rx, stream)  # type: ignore[arg-type]
    assert stream.calls == 1 and stream.written == []
