"""Remote text cannot draw on our terminal: names, reasons and listings are escaped and bounded wherever printed.

A peer chooses its own name (any string its hello frame can hold), a lobby host chooses the table view, and
anyone can answer a discovery query.  The hostile name used throughout, ``EVIL``, would — printed raw — erase
the line it lands on (``ESC[2K``, ``\\r``), draw a fake ``audit: clean`` and end the line, so that the real
verdict looks like it came after a clean one.  Unit tests of :mod:`p2php.text` first, then each printing
path with real data: loopback tables (the toy game from conftest), lobby views, discovery answers, saved
transcripts and ``p2php verify``, the ``peer``/``join``/``watch`` reports, the bridge's events.
"""

from __future__ import annotations

import argparse
import io
import json
import queue
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import trio

from p2php.bots import RandomBot
from p2php.discovery import TableInfo, format_tables, make_answer, parse_answer
from p2php.lobby import SeatView, TableView, format_options, format_table, parse_table
from p2php.session.local_net import run_local_table
from p2php.session.runner import PeerResult, bot_decider
from p2php.text import is_control, quote, safe

EVIL = "\x1b[2K\raudit: clean\n"
ESCAPED = "\\x1b[2K\\raudit: clean\\n"
MIB4 = 4 << 20

# Every character class a terminal acts on, and what it must look like once escaped.
CONTROLS = {
    "\x00": "\\x00", "\x07": "\\x07", "\x08": "\\x08", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\x1b",
    "\x7f": "\\x7f", "\x85": "\\x85", "\x9b": "\\x9b", "\u200b": "\\u200b", "\u200d": "\\u200d",
    "\u202e": "\\u202e", "\u2066": "\\u2066", "\u2028": "\\u2028", "\u2029": "\\u2029", "\ufeff": "\\ufeff",
    "\ud800": "\\ud800", "\U000e0001": "\\U000e0001",
}


def raw_controls(text: str) -> list[str]:
    """The control characters (C0, DEL, C1, Cf, separators, surrogates) present raw in ``text``."""
    return [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


def fake_verdicts(text: str) -> list[str]:
    """Lines of ``text`` that start like a clean verdict (the escaped name contains the words, not a line)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("audit: clean")]


def assert_printable(lines: list[str] | str) -> None:
    for line in [lines] if isinstance(lines, str) else lines:
        assert raw_controls(line) == [], repr(line)


# ----------------------------------------------------------------------------- p2php.text


def test_safe_escapes_every_kind_of_control_character_visibly() -> None:
    for char, escape in CONTROLS.items():
        assert is_control(char)
        assert safe(f"a{char}b") == f"a{escape}b"
    assert safe(EVIL) == ESCAPED


def test_safe_keeps_printable_text_of_any_script_and_is_idempotent() -> None:
    text = "哈利·波特 Harry ♥ é 🙂 “quoted” a\\b"
    assert safe(text) == text
    once = safe("".join(CONTROLS) * 2, 500)
    assert safe(once, 500) == once


def test_safe_bounds_the_length_and_says_how_much_was_cut() -> None:
    out = safe("x" * 1000, 80)
    assert out.startswith("x" * 80) and "+920" in out and len(out) <= 100
    escaped = safe("\x1b" * 1000, 80)  # escapes count toward the limit
    assert_printable(escaped)
    assert len(escaped) <= 100 and "+980" in escaped
    assert safe("short", 80) == "short"
    assert safe(12345) == "12345"


def test_safe_and_quote_are_cheap_on_a_4_mib_input() -> None:
    big = ("\x1b[2K" * MIB4)[:MIB4]
    raw = big.encode()
    start = time.perf_counter()
    for _ in range(20):
        a, b, c = safe(big), quote(big), quote(raw)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, elapsed  # 60 calls: O(limit) each, not O(4 MiB)
    for out in (a, b, c):
        assert_printable(out)
        assert len(out) <= 100, out


def test_quote_is_a_bounded_repr_with_the_same_escapes() -> None:
    assert quote("ann") == "'ann'"
    assert quote("it's \\") == "'it\\'s \\\\'"
    assert quote(EVIL) == f"'{ESCAPED}'"
    assert quote(b"\x00ab") == "b'\\x00ab'"
    assert quote(None) == "None" and quote(7) == "7"
    hostile: list[Any] = [
        "x" * MIB4, EVIL * 100_000, b"\xff" * MIB4, ["y" * MIB4] * 1000, {"k" * MIB4: EVIL * 1000},
        ValueError(EVIL * 100_000), 10 ** 5000, list(range(1_000_000)),
    ]
    deep: list[Any] = []
    for _ in range(10_000):  # deeper than the recursion limit
        deep = [deep]
    hostile.append(deep)

    class Nasty:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    hostile.append(Nasty())
    for value in hostile:
        for limit in (10, 60, 200):
            out = quote(value, limit)
            assert_printable(out)
            assert len(out) <= limit + 25, (limit, out[:300])


# ----------------------------------------------------------------------------- loopback tables


def _slow(seat: int, seconds: float) -> Any:
    """A bot that takes ``seconds`` over its first decision (longer than the table's timeout: named silent)."""
    fast = bot_decider(RandomBot(seat))
    slept: list[int] = []

    async def decide(ls: Any) -> Any:
        if not slept:
            slept.append(1)
            await trio.sleep(seconds)
        return await fast(ls)

    return decide


async def _hostile_table(tmp_path: Path | None = None, silent: bool = True) -> list[PeerResult]:
    """Two toy peers, seat 1 named EVIL; ``silent``: seat 1 outlasts the timeout, so the verdict names it."""
    deciders = [bot_decider(RandomBot(0)), _slow(1, 3.0) if silent else bot_decider(RandomBot(1))]
    with trio.fail_after(30):
        return await run_local_table("toy", 2, deciders, seed=5, timeout=1.0, transcripts=tmp_path,
                                     names=["ann", EVIL])


async def test_the_terminal_log_and_summary_escape_a_hostile_name() -> None:
    from p2php.terminal import TerminalUI, summary_lines

    out = io.StringIO()
    ui = TerminalUI(out=out, colour=False, tty=False)
    with trio.fail_after(30):
        results = await run_local_table("toy", 2, [bot_decider(RandomBot(s)) for s in range(2)], seed=5,
                                        names=["ann", EVIL], observe=ui.observe)
    printed = out.getvalue()
    assert_printable(printed.replace("\n", ""))  # the only newlines are our own line ends …
    assert fake_verdicts(printed) == []  # … so the fake verdict line was never drawn
    assert ESCAPED.removesuffix("\\n") in printed  # the name shows, visibly escaped
    for r in results:
        lines = summary_lines(r.lockstep)
        assert_printable(lines)
        assert [line for line in lines if line.startswith("audit:")] == ["audit: clean"]


async def test_a_verdict_naming_a_hostile_seat_is_printed_escaped() -> None:
    from p2php.cli import _summary
    from p2php.terminal import summary_lines, verdict_text

    results = await _hostile_table()
    for r in results:  # (the slow seat too: its own clock agrees it was late)
        ls = r.lockstep
        assert ls.verdict is not None and ls.verdict.culprit == 1, ls.verdict
        lines = summary_lines(ls)
        assert_printable(lines)
        audit = [line for line in lines if line.startswith("audit:")]
        assert len(audit) == 1 and audit[0].startswith(f"audit: seat 1 ({ESCAPED})"), audit
        assert_printable(verdict_text(ls.verdict, ls.table))
    summary = _summary("toy", results, 0.0)  # what `p2php demo` prints (and puts in its --json)
    assert_printable(summary["audit"])
    assert ESCAPED in summary["audit"]


async def test_peer_and_join_reports_escape_a_hostile_name(capsys: pytest.CaptureFixture[str]) -> None:
    from p2php.peercli import _report as peer_report
    from p2php.session.netplay import _report as join_report

    results = await _hostile_table()
    capsys.readouterr()
    assert peer_report(results[0]) == 1
    assert join_report(results[0], None) == 1
    printed = capsys.readouterr().out
    assert_printable(printed.replace("\n", ""))
    audit = [line for line in printed.splitlines() if line.startswith("audit:")]
    assert len(audit) == 2 and all(line.startswith(f"audit: seat 1 ({ESCAPED}): ") for line in audit), audit
    assert ESCAPED in printed


async def test_a_huge_hostile_name_is_bounded_on_screen() -> None:
    from p2php.terminal import TerminalUI, summary_lines

    huge = EVIL * 12_000  # ~200 KB: fits a frame before the link is proven (256 KiB)
    out = io.StringIO()
    ui = TerminalUI(out=out, colour=False, tty=False)
    deciders = [bot_decider(RandomBot(0)), _slow(1, 3.0)]
    with trio.fail_after(30):
        results = await run_local_table("toy", 2, deciders, seed=5, timeout=1.0, names=["ann", huge],
                                        observe=ui.observe)
    lines = out.getvalue().splitlines() + summary_lines(results[0].lockstep)
    assert_printable(lines)
    assert max(len(line) for line in lines) < 1200


async def test_verify_prints_a_hostile_transcript_name_escaped(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from p2php.cli import main

    await _hostile_table(tmp_path)
    for seat in range(2):
        capsys.readouterr()
        main(["verify", str(tmp_path / f"seat{seat}.p2php")])
        printed = capsys.readouterr().out
        assert_printable(printed.replace("\n", ""))
        assert fake_verdicts(printed) == []
        assert ESCAPED in printed  # the verdict names seat 1, by its (escaped) name


def test_watch_prints_a_hostile_name_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    """``p2php watch`` against a live loopback table whose seat 1 is named EVIL and goes silent."""
    from p2php.net.mesh import listen, listener_port
    from p2php.peercli import cmd_watch
    from p2php.session.memory import seeded_secrets
    from p2php.session.runner import PeerConfig, run_peer

    ports: queue.Queue[int] = queue.Queue()
    running = threading.Event()
    failure: list[BaseException] = []

    async def table() -> None:
        listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
        addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
        ports.put(addresses[0][1])
        deciders = [_slow(0, 1.5), _slow(1, 6.0)]  # seat 0 waits for the spectator; seat 1 then goes silent

        def observe(ls: Any, _: Any) -> None:
            running.set()

        async def one(seat: int) -> None:
            cfg = PeerConfig("toy", {}, 2, seat, ["ann", EVIL][seat], timeout=2.0, secrets=seeded_secrets(9, seat))
            await run_peer(cfg, addresses, listeners[seat], deciders[seat], observe if seat == 0 else None)

        async with trio.open_nursery() as nursery:
            for seat in range(2):
                nursery.start_soon(one, seat)

    def run_table() -> None:
        try:
            trio.run(table)
        except BaseException as err:  # noqa: BLE001  (reported by the test below)
            failure.append(err)

    thread = threading.Thread(target=run_table, daemon=True)
    thread.start()
    port = ports.get(timeout=10)
    assert running.wait(10)
    code = cmd_watch(argparse.Namespace(address=f"127.0.0.1:{port}", name="spectator"))
    thread.join(30)
    assert not failure, failure
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert code == 1, printed
    assert_printable(printed.replace("\n", ""))
    assert fake_verdicts(printed) == []
    assert ESCAPED in printed


# ----------------------------------------------------------------------------- lobby


def _hostile_view() -> TableView:
    seats = (SeatView(0, EVIL, "host", True), SeatView(1, "ann" + EVIL * 1000, "human", False),
             SeatView(2, None, None, False))
    return TableView("uno" + EVIL, {"rounds": 1, EVIL: EVIL, "big": ["x" * MIB4]}, 3, EVIL * 1000, seats)


def test_a_lobby_view_with_a_hostile_host_and_names_is_escaped_and_bounded() -> None:
    lines = format_table(_hostile_view(), 1)
    assert_printable(lines)
    assert not any(line.startswith("audit") for line in lines)
    assert ESCAPED in "\n".join(lines)
    assert max(len(line) for line in lines) < 400


def test_a_hostile_table_frame_prints_safely() -> None:
    frame = {"lobby": "table", "v": 1, "game": "uno", "options": {"deck": EVIL, 3: [EVIL] * 5, "a": {"b": EVIL}},
             "players": 2, "host": EVIL,
             "seats": [{"seat": 0, "name": EVIL, "kind": "host", "ready": True},
                       {"seat": 1, "name": None, "kind": None, "ready": False}]}
    lines = format_table(parse_table(frame), None)  # mixed option key types do not make it raise
    assert_printable(lines)


def test_format_options_escapes_remote_keys_and_values() -> None:
    text = format_options({EVIL: EVIL, "n": 3, "deck": "all", 5: ["x" * MIB4]})
    assert_printable(text)
    assert "deck=all" in text and "n=3" in text and len(text) < 300
    assert format_options({"deck": "all", "rounds": 1}) == "deck=all, rounds=1"


def test_join_and_host_lines_are_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    from p2php.session.netplay import _err, _say, _table_line

    _say(f"{EVIL} sits at seat 1")
    _err(f"the table refused us: {EVIL}")
    print(_table_line(TableInfo("127.0.0.1", 7700, EVIL, {EVIL: EVIL}, 3, 1, EVIL, [EVIL])))
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert_printable(stream.replace("\n", ""))
        assert fake_verdicts(stream) == []


def test_a_mesh_failure_quoting_a_hostile_name_is_escaped() -> None:
    from p2php.net.mesh import MeshError
    from p2php.session.netplay import mesh_failure

    err = MeshError(f"hello from seat 1 ({EVIL * 10_000!r}): bad signature", [1])
    text = mesh_failure(err, ["ann", EVIL], {0: ("127.0.0.1", 1), 1: ("10.0.0.2", 2)})
    assert_printable(text)
    assert len(text) < 1000


# ----------------------------------------------------------------------------- discovery


def test_a_discovery_listing_with_hostile_names_is_escaped() -> None:
    summary = {"game": EVIL, "options": {EVIL: EVIL, "rounds": 1}, "players": 4, "taken": 2,
               "names": [EVIL, "ann"], "host": EVIL, "port": 7700, "id": b"12345678"}
    nonce = b"n" * 8
    data = make_answer(nonce, summary)
    assert data is not None
    info = parse_answer(data, nonce, "127.0.0.1")
    assert info is not None
    built = TableInfo("10.0.0.9" + EVIL, 7701, EVIL, {EVIL: EVIL, 7: [EVIL]}, 4, 1, EVIL * 1000, [EVIL] * 40)
    lines = format_tables([info, built])
    assert_printable(lines)
    assert ESCAPED in "\n".join(lines)  # visibly escaped, not silently replaced
    assert max(len(line) for line in lines) < 1000
    assert_printable(json.dumps([info.as_json()]))


# ----------------------------------------------------------------------------- the bridge


def test_bridge_events_bound_remote_names_and_reasons() -> None:
    from p2php import api
    from p2php.bridge.session import event_json

    huge = EVIL * 200_000
    started = event_json(api.Started("toy", {}, 2, 0, ("ann", huge)))
    assert len(started["names"][1]) < 200
    failed = event_json(api.Failed(huge))
    lobby = event_json(api.LobbyNews(huge))
    assert len(failed["message"]) < 3000 and len(lobby["message"]) < 3000


async def test_a_table_shows_every_peers_chosen_name_escaped_wherever_it_goes() -> None:
    """A hello's name is its peer's own word: an embedding client or the web page got it raw (a newline, a bidi
    override and a zero-width space drew fake lines and reversed text there). The table itself now gives it escaped
    and bounded, so the bridge's ``started`` names, the API's finished names and every log line agree."""
    from p2php import api
    from p2php.bridge.session import event_json

    with trio.fail_after(30):
        results = await run_local_table("toy", 2, [bot_decider(RandomBot(s)) for s in range(2)], seed=5,
                                        names=["ann", "\u202eyou\u200b" + EVIL + "x" * 500])
    name = results[0].lockstep.table.name(1)
    assert_printable(name)
    assert name.startswith("\\u202eyou\\u200b" + ESCAPED) and len(name) <= 48 + 20
    started = event_json(api.Started("toy", {}, 2, 0, tuple(results[0].lockstep.table.name(s) for s in range(2))))
    assert started["names"] == ["ann", name]


async def test_bridge_game_over_bounds_a_hostile_reason() -> None:
    from p2php import api
    from p2php.bridge.session import dumps, event_json

    results = await _hostile_table()
    ls = results[0].lockstep
    event = event_json(api.Finished(ls.result, ls.verdict, tuple(ls.table.name(s) for s in range(2))))
    line = dumps(event)
    assert "\n" not in line and "\x1b" not in line  # JSON escapes them
    assert event["culprit"] == 1


async def test_join_prints_a_hostile_lobby_host_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    """``p2php join`` against a lying lobby host on loopback: its table view and its closing reason are escaped."""
    from p2php import PROTOCOL_VERSION
    from p2php.cli import build_parser
    from p2php.net.framing import FrameDecoder, encode_frame
    from p2php.session.netplay import join_game

    async def fake_host(stream: trio.SocketStream) -> None:
        decoder = FrameDecoder()
        while decoder.next_frame() is None:
            decoder.receive_data(await stream.receive_some(65536))
        seats = [{"seat": 0, "name": EVIL, "kind": "host", "ready": True},
                 {"seat": 1, "name": "bob", "kind": "human", "ready": False}]
        for frame in ({"lobby": "welcome", "v": PROTOCOL_VERSION, "seat": 1},
                      {"lobby": "table", "v": PROTOCOL_VERSION, "game": "uno", "options": {"rounds": 1},
                       "players": 2, "host": EVIL, "seats": seats},
                      {"lobby": "closed", "v": PROTOCOL_VERSION, "reason": EVIL * 1000}):
            await stream.send_all(encode_frame(frame))
        await trio.sleep(1)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            from functools import partial

            listeners = await nursery.start(partial(trio.serve_tcp, fake_host, 0, host="127.0.0.1"))
            port = listeners[0].socket.getsockname()[1]
            args = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--ready",
                                              "--bind", "127.0.0.1"])
            capsys.readouterr()
            code = await join_game(args)
            nursery.cancel_scope.cancel()
    captured = capsys.readouterr()
    assert code == 3
    assert "table of " in captured.out and "the host closed the table" in captured.err
    for stream in (captured.out, captured.err):
        assert_printable(stream.replace("\n", ""))
        assert fake_verdicts(stream) == []
        assert max(len(line) for line in stream.splitlines()) < 1100
    assert ESCAPED.removesuffix("\\n") in captured.out


def test_seats_named_reads_whole_seat_numbers() -> None:
    from p2php.text import seats_named

    assert seats_named("seat 10's deck: too few cards; seat 2 waits", range(12)) == [2, 10]
    assert seats_named("deck1=own needs character1=NAME", range(2)) == []


# ----------------------------------------------------------------------------- reasons that quote another peer


def test_an_accusers_abort_reason_reaches_the_verdict_and_the_bridge_escaped() -> None:
    """A cheater's abort carries a reason of its choosing; it became the honest peers' verdict reason raw, so the
    API's ``Finished.text()``, the bridge's ``game_over`` (raw NEL, CSI, U+2028 in its JSON line: a break for
    ``str.splitlines()``) and the page's game-over ``<pre>`` (a new line per ``\\n``) showed the cheater's lines."""
    from p2php import api
    from p2php.bridge.session import dumps, event_json
    from p2php.session.memory import make_peers, run_in_memory

    evil = EVIL + "Game over \u2014 You win\n\u2028\x85\x9b\u202e"
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=9)
    send = peers[2]._send
    done: list[bool] = []

    def lying_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and not done:
            done.append(True)
            send("abort", {"culprit": 1, "reason": evil, "at": [0, 0], "evidence": [], "claims": []})
            peers[2].auditing = True
            return send("audit", {"decks": peers[2].secrets.decks_secret, "boxes": [], "evidence": []})
        return send(kind, body)

    peers[2]._send = lying_send  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    for ls in peers[:2]:
        assert ls.verdict is not None and ls.verdict.culprit is None
        assert ESCAPED in ls.verdict.reason  # visibly escaped, not dropped
        finished = api.Finished(ls.result, ls.verdict, tuple(ls.table.name(s) for s in range(3)))
        assert_printable(ls.verdict.reason)
        assert finished.text().count("\n") == (ls.result is not None)  # only the summary's own line break
        line = dumps(event_json(finished))
        assert len(line.splitlines()) == 1 and raw_controls(line) == []
        decoded = json.loads(line)
        assert_printable(decoded["reason"])
        assert fake_verdicts(decoded["text"]) == []


def test_a_joiners_option_value_is_quoted_escaped_and_bounded_in_the_hosts_news() -> None:
    """A join frame insisting on a free-text option (TCG's ``decklist0``) was quoted whole and raw in the refusal
    the host's lobby announces: an embedding host got a 60 000-character ``LobbyNews`` with ESC and newlines."""
    from p2php import PROTOCOL_VERSION
    from p2php.engine.registry import get_game
    from p2php.lobby import Refusal
    from p2php.lobby import Table as LobbyTable

    table = LobbyTable(get_game("tcg"), {}, 2, "ann")
    frame = {"lobby": "join", "v": PROTOCOL_VERSION, "name": "mallory", "port": 9,
             "options": {"decklist0": EVIL + "A" * 60_000}}
    with pytest.raises(Refusal) as caught:
        table.join(1, frame, None)
    assert_printable(caught.value.reason)
    assert len(caught.value.reason) < 300 and ESCAPED in caught.value.reason


def test_a_discovery_answer_with_a_thousand_options_prints_bounded_lines() -> None:
    """One answer under 4 KiB can hold ~1000 options; ``p2php discover`` printed them on one 10 000-character line
    (64 answers: 660 kB on the terminal), where every other printed line is cut to ``text.LINE``."""
    import msgpack

    nonce = b"n" * 8
    options = {chr(a) + chr(b): 0 for a in range(1, 32) for b in range(1, 32)}
    while True:
        data = msgpack.packb({"p2php": "table", "v": 8, "nonce": nonce, "id": b"12345678", "game": "uno",
                              "options": options, "players": 4, "taken": 1, "names": ["x"], "host": "x",
                              "port": 7000}, use_bin_type=True)
        if len(data) <= 4096:
            break
        options.popitem()
    info = parse_answer(data, nonce, "127.0.0.1")
    assert info is not None and len(info.options) > 900
    lines = format_tables([info])
    assert_printable(lines)
    assert max(len(line) for line in lines) < 1100


async def test_a_seat_whose_hello_takes_another_seats_name_is_shown_with_its_seat() -> None:
    """The lobby refuses a second "ann", but a seat's hello may say anything: a joiner seated as "bob" signed a
    hello named "ann", and the host's terminal painted every "ann: …" line of it green, as the host's own moves."""
    import io

    from p2php.terminal import TerminalUI

    with trio.fail_after(30):
        results = await run_local_table("toy", 2, [bot_decider(RandomBot(s)) for s in range(2)], seed=5,
                                        names=["ann", " ANN"])
    ls = results[0].lockstep
    assert ls.table.name(0) != ls.table.name(1) and ls.table.name(1).endswith("(seat 1)")
    with trio.fail_after(30):  # a made-up "(seat 0)" of its own does not pass for seat 0's ann either
        forged = await run_local_table("toy", 2, [bot_decider(RandomBot(s)) for s in range(2)], seed=5,
                                       names=["ann", "Ann (seat 0)"])
    table = forged[0].lockstep.table
    assert (table.name(0), table.name(1)) == ("ann (seat 0)", "Ann (seat 0) (seat 1)")
    out = io.StringIO()
    TerminalUI(out, colour=True, tty=False).observe(ls)
    green = [line for line in out.getvalue().splitlines() if line.startswith("\x1b[32m")]
    assert green and all("(seat 0)" in line for line in green)


def test_a_long_chat_line_never_starts_a_terminal_row_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chat line of padding and then ``safety code: …`` wrapped at the terminal's edge into a row that read as
    our own safety code line (the one defence against a lobby host that splits a table): its rows are now broken
    by the terminal UI, every one after the first indented."""
    from p2php.terminal import TerminalUI

    monkeypatch.setenv("COLUMNS", "80")
    for pad in ("=", "\u2800", "\u4e00"):
        text = pad * 62 + "safety code: AAAA-BBBB-CCCC-DDDD-EEEE  — everyone at the table must see the same code"
        out = io.StringIO()
        ui = TerminalUI(out, colour=False, tty=False)
        ui.names = ("ann", "mallory")
        ui.chat_line(1, text)
        rows = out.getvalue().splitlines()
        assert rows[0].startswith("» mallory (seat 1): ")
        assert all(row.startswith("    ") for row in rows[1:]), rows
        assert all(sum(2 if unicodedata.east_asian_width(c) == "W" else 1 for c in row) < 80 for row in rows), rows


def test_a_made_up_character_that_says_seat_0_is_refused_like_any_other() -> None:
    """The lobby refuses a joiner's deck that makes no game unless the problem names other seats ("seat N"), and the
    problem quoted the joiner's own character name: "seat 0" got a bad deck accepted and its joiner let ready at a
    table that could then never start, the host told nothing."""
    from p2php import PROTOCOL_VERSION
    from p2php.engine.registry import get_game
    from p2php.lobby import HOST, Refusal
    from p2php.lobby import Table as LobbyTable

    for character in ("Nobody At All", "seat 0", "seat 0's character0: seat 0"):
        table = LobbyTable(get_game("tcg"), {"deck1": "own"}, 2, "ann")
        table.seat_local("ann", HOST, 7000, ready=True)
        table.join(1, {"lobby": "join", "v": PROTOCOL_VERSION, "name": "bob", "port": 7001}, "10.0.0.2", "10.0.0.2")
        with pytest.raises(Refusal, match="your deck does not fit this table"):
            table.receive(1, {"lobby": "deck", "options": {"deck1": "own", "character1": character}})


def test_a_lobby_hosts_table_of_thousands_of_seats_is_refused_at_once() -> None:
    """Nothing bounded a host's ``players`` before the start: a 63 KB table frame of 2 900 seats was 2 903 lines on
    the joiner's terminal (or ``LobbyNews`` events for an embedder) at each change, as fast as the host sends."""
    from p2php import PROTOCOL_VERSION
    from p2php.lobby import JoinSession, LobbyError

    session = JoinSession("bob", 9)
    session.receive({"lobby": "welcome", "v": PROTOCOL_VERSION, "seat": 1})
    seats = [{"seat": s, "kind": None, "ready": False} for s in range(2900)]
    seats[1] = {"seat": 1, "kind": "human", "ready": True, "name": "bob"}
    with pytest.raises(LobbyError, match="cannot play"):
        session.receive({"lobby": "table", "v": PROTOCOL_VERSION, "game": "uno", "options": {}, "players": 2900,
                         "host": "h", "seats": seats})


def test_a_long_clashing_name_keeps_its_seat_wherever_it_is_cut() -> None:
    """Two hellos with the same name of NAME characters: Table.name added " (seat N)" past NAME, and the terminal's
    clean() (cut at NAME) took it off again: both seats read "AAAA…(+9 chars)", the clash shown as one name."""
    from p2php.session.handshake import Table
    from p2php.terminal import clean
    from p2php.text import NAME

    for name in ("A" * NAME, "B" * (NAME - 5), "é" * (NAME + 30)):
        table = Table("toy", {}, ({"name": name}, {"name": name}))
        shown = [clean(table.name(s)) for s in range(2)]
        assert shown[0] != shown[1], shown
        assert all(text.endswith(f"(seat {s})") for s, text in enumerate(shown)), shown


def test_a_name_drawn_like_another_is_shown_with_its_seat_and_refused_in_the_lobby() -> None:
    """A hello named "Аnn" with a Cyrillic "А" (or "Hermi0ne", a full-width "Ｒon", "Bi1l") passed the clash check,
    which compared case only: its moves read as the real Ann's on every screen. Now every seat shows both with their
    seats, and a lobby refuses the second name; names that only a careless fold would merge stay apart."""
    from p2php import PROTOCOL_VERSION
    from p2php.engine.registry import get_game
    from p2php.lobby import HOST, Refusal
    from p2php.lobby import Table as LobbyTable
    from p2php.session.handshake import Table

    for real, fake in (("Ann", "\u0410nn"), ("Hermione", "Hermi0ne"), ("Ron", "\uff32on"), ("Bill", "BIll"),
                       ("Bill", "Bi1l"), ("Ian", "lan"), ("JOHN", "J0HN"), ("Paco", "\u0420a\u0441o")):
        table = Table("toy", {}, ({"name": real}, {"name": fake}, {"name": "Luna"}))
        assert [table.name(s) for s in range(3)] == [f"{real} (seat 0)", f"{fake} (seat 1)", "Luna"]
        lobby = LobbyTable(get_game("uno"), {}, 3, real)
        lobby.seat_local(real, HOST, 7000, ready=True)
        with pytest.raises(Refusal, match="looks like|already taken"):
            lobby.join(1, {"lobby": "join", "v": PROTOCOL_VERSION, "name": fake, "port": 7001}, "10.0.0.2",
                       "10.0.0.2")
    # Names people really hold that only look alike to a careless fold (the review's): accents, dakuten, I and L.
    for one, other in (("Ann", "Anne"), ("Ian", "Lan"), ("Ali", "All"), ("Eli", "Ell"), ("Arnie", "Amie"),
                       ("H\u00e0", "H\u1ea1"), ("\u3086\u3046\u3058", "\u3086\u3046\u3057"), ("Draco", "Dr\u00e1co")):
        table = Table("toy", {}, ({"name": one}, {"name": other}))
        assert [table.name(s) for s in range(2)] == [one, other]
        lobby = LobbyTable(get_game("uno"), {}, 3, one)
        lobby.seat_local(one, HOST, 7000, ready=True)
        lobby.join(1, {"lobby": "join", "v": PROTOCOL_VERSION, "name": other, "port": 7001}, "10.0.0.2", "10.0.0.2")


def test_a_bot_name_is_not_drawn_like_a_seated_name() -> None:
    """Review of 2be9970: the lobby refuses a name drawn like a seated one, but bot_name skipped only exact (case
    folded) names, so a host named "Boti", or a joiner named "botl", had every bot the host added refused."""
    from p2php.engine.registry import get_game
    from p2php.lobby import BOT, HOST, Table

    for name in ("Boti", "botl", "BOT1"):
        table = Table(get_game("uno"), {}, 3, name)
        table.seat_local(name, HOST, 4001, ready=True)
        assert table.seat_local(table.bot_name(), BOT, 4002, ready=True) == 1
        assert table.seat_local(table.bot_name(), BOT, 4003, ready=True) == 2
