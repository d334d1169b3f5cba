"""``p2php host`` / ``join`` / ``discover`` in one process: what a person is told, and the exit status.

Mutation run V (benchmarks/mutation-results.md) found these paths of ``p2php/session/netplay.py`` reached only by
whole tables in subprocesses, or not at all: the exit statuses, the lines on stdout and stderr, the discovery
choice of ``join``, the host's lobby keys and Ctrl-C.  Everything here is in memory or on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from dataclasses import replace
from typing import Any

import pytest
import trio

from p2php import PROTOCOL_VERSION
from p2php.cli import build_parser
from p2php.discovery import BROADCAST, TableInfo, Tables
from p2php.errors import UsageError
from p2php.net.mesh import MeshError
from p2php.session import netplay
from p2php.session.modes import CRYPTO

UNO = TableInfo("10.0.0.5", 7711, "uno", {"rounds": 1}, 3, 1, "hana", ["hana"], b"tableid1")


# ----------------------------------------------------------------------------- run_trio: Ctrl-C and errors


def test_run_trio_returns_the_value_and_raises_a_lone_error_unwrapped() -> None:
    async def value() -> int:
        return 7

    async def fails() -> int:
        raise ValueError("bad")

    assert netplay.run_trio(value) == 7
    with pytest.raises(ValueError, match="bad") as caught:
        netplay.run_trio(fails)
    assert type(caught.value) is ValueError  # never an ExceptionGroup: the CLI prints its message


def test_a_ctrl_c_cancels_a_waiting_table_at_once_and_is_a_plain_keyboard_interrupt() -> None:
    """A SIGINT (or SIGTERM) while the table waits for a long timeout: a plain KeyboardInterrupt within a
    second, never after the timeout, never inside a group."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        async def waits(sig: int = sig) -> int:
            await trio.sleep(0.2)
            os.kill(os.getpid(), sig)
            await trio.sleep(30)
            return 0

        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt) as caught:
            netplay.run_trio(waits)
        assert type(caught.value) is KeyboardInterrupt
        assert time.monotonic() - start < 10


def test_a_keyboard_interrupt_inside_the_table_is_a_plain_keyboard_interrupt() -> None:
    async def interrupted() -> int:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.sleep, 30)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        netplay.run_trio(interrupted)
    assert type(caught.value) is KeyboardInterrupt


def test_a_ctrl_c_wins_over_an_error_raised_while_the_table_is_cancelled() -> None:
    """The person pressed Ctrl-C: the exit is "interrupted", not the error some cleanup raised on the way out."""
    async def fails_on_the_way_out() -> int:
        await trio.sleep(0.2)  # run_trio's watcher has started
        os.kill(os.getpid(), signal.SIGINT)
        try:
            await trio.sleep(30)
        finally:
            raise ValueError("raised while cancelled")
        return 0

    with pytest.raises(KeyboardInterrupt) as caught:
        netplay.run_trio(fails_on_the_way_out)
    assert type(caught.value) is KeyboardInterrupt


def test_first_leaf_prefers_a_keyboard_interrupt_at_any_depth() -> None:
    err = ValueError("first")
    assert netplay._first_leaf(err) is err
    group = BaseExceptionGroup("g", [ValueError("a"), ExceptionGroup("h", [OSError("b"), KeyError("c")])])
    assert str(netplay._first_leaf(group)) == "a"
    nested = BaseExceptionGroup("g", [ValueError("a"), BaseExceptionGroup("h", [OSError("b"), KeyboardInterrupt()])])
    assert isinstance(netplay._first_leaf(nested), KeyboardInterrupt)


# ----------------------------------------------------------------------------- the small helpers


def test_local_ip_is_loopback_for_a_wildcard_bind_only() -> None:
    for wildcard in ("", "0.0.0.0", "::"):
        assert netplay._local_ip(wildcard) == "127.0.0.1"
    assert netplay._local_ip("192.168.1.20") == "192.168.1.20"


def test_named_adds_the_name_of_each_seat_that_exists() -> None:
    names = ["ann", "bob"]
    assert netplay._named("seat 0 and seat 1 left", names) == "seat 0 (ann) and seat 1 (bob) left"
    assert netplay._named("seat 2 is no seat; seat 10 neither", names) == "seat 2 is no seat; seat 10 neither"
    assert netplay._named("seat 1", ["x\x1bname"] * 2) == "seat 1 (x\\x1bname)"


def test_a_mesh_failure_names_the_unreached_seats_their_people_and_addresses() -> None:
    names = ["ann", "bob", "cy"]
    addresses = {0: ("10.0.0.1", 7000), 1: ("10.0.0.2", 7001), 2: ("10.0.0.3", 7002)}
    err = MeshError("seat 1 did not answer", missing=[1, 2])
    text = netplay.mesh_failure(err, names, addresses)
    assert text.startswith("the game could not start: no connection with seat 1 (bob at 10.0.0.2:7001), "
                           "seat 2 (cy at 10.0.0.3:7002). Details: seat 1 (bob) did not answer"), text
    # a missing seat with no address, or past the names: its number only
    text = netplay.mesh_failure(MeshError("x", missing=[2, 3]), names[:2], {**addresses, 3: ("10.0.0.4", 1)})
    assert "no connection with seat 2, seat 3. Details" in text, text
    assert netplay.mesh_failure(MeshError("seat 0 refused", missing=[]), names, addresses) == \
        "the game could not start: seat 0 (ann) refused"


def test_check_name_is_a_usage_error_naming_the_flag() -> None:
    assert netplay._check_name("ann") == "ann"
    with pytest.raises(UsageError, match="^--name: "):
        netplay._check_name(" ann")


def test_err_and_say_print_one_flushed_line(capsys: pytest.CaptureFixture[str]) -> None:
    netplay._err("bad\x1b[2J")
    netplay._say("news\x07")
    out = capsys.readouterr()
    assert out.err == "p2php: bad\\x1b[2J\n" and out.out == "news\\x07\n"


def test_the_discovery_answer_is_the_open_tables_summary_with_the_lobby_port() -> None:
    from p2php.engine.registry import get_game
    from p2php.lobby import HOST, Table

    table = Table(get_game("uno"), {"rounds": 1}, 3, "hana")
    table.seat_local("hana", HOST, 7001, ready=True)
    summary = netplay._summary(table, 7711)
    assert summary is not None and summary["port"] == 7711 and summary["taken"] == 1
    table.closed = True
    assert netplay._summary(table, 7711) is None


def test_the_report_exit_status_is_0_only_for_a_clean_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netplay, "summary_lines", lambda lockstep, lang: ["a line"])

    class Verdict:
        def __init__(self, clean: bool) -> None:
            self.clean = clean

    def result(verdict: Any) -> Any:
        return argparse.Namespace(lockstep=argparse.Namespace(verdict=verdict))

    assert netplay._report(result(Verdict(True)), None) == 0
    assert netplay._report(result(Verdict(False)), None) == 1
    assert netplay._report(result(None), None) == 1


# ----------------------------------------------------------------------------- join: which discovered table fits


def test_a_table_fits_only_with_a_free_seat_our_protocol_the_game_and_the_options_asked() -> None:
    assert netplay.table_fits(UNO, None, {})
    assert netplay.table_fits(UNO, "uno", {"rounds": "1"})
    assert not netplay.table_fits(replace(UNO, taken=3), None, {})  # full
    assert not netplay.table_fits(replace(UNO, version=PROTOCOL_VERSION + 1), None, {})  # another protocol
    assert not netplay.table_fits(UNO, "toy", {})  # another game
    assert not netplay.table_fits(replace(UNO, game="no-such-game"), None, {})  # a game we do not know
    assert not netplay.table_fits(UNO, None, {"rounds": "2"})  # another value
    assert not netplay.table_fits(UNO, None, {"no_such_option": "1"})  # an option the game does not have
    assert not netplay.table_fits(UNO, None, {"rounds": "many"})  # a value that does not parse
    assert netplay.table_fits(replace(UNO, options={"rounds": 1, CRYPTO: "fast"}), None, {CRYPTO: "fast"})
    assert not netplay.table_fits(replace(UNO, options={"rounds": 1, CRYPTO: "fast"}), None, {CRYPTO: "verified"})


def test_a_table_line_says_incompatible_and_contested() -> None:
    line = netplay._table_line(UNO)
    assert "hana" in line and "1/3 seated, 2 free" in line and "10.0.0.5:7711" in line
    assert "incompatible" not in line and "same table id" not in line
    both = netplay._table_line(replace(UNO, version=PROTOCOL_VERSION + 1, contested=True))
    assert both.endswith(f"[protocol v{PROTOCOL_VERSION + 1}: incompatible]   [same table id as another answer]")


def test_discovery_asks_the_to_addresses_or_the_lan_and_this_machine() -> None:
    assert netplay._discovery_targets(["10.0.0.5", "10.0.0.6:9"], 7700) == [("10.0.0.5", 7700), ("10.0.0.6", 9)]
    assert netplay._discovery_targets([], 7700) == [(BROADCAST, 7700), ("127.0.0.1", 7700)]


def _join_args(*extra: str) -> argparse.Namespace:
    return build_parser().parse_args(["join", "--name", "ann", "--discover-timeout", "0.1", *extra])


async def _find(monkeypatch: pytest.MonkeyPatch, tables: list[TableInfo], args: argparse.Namespace,
                wanted: dict[str, str] | None = None) -> tuple[Any, list[Any]]:
    asked: list[Any] = []

    async def fake_discover(targets: Any, timeout: float) -> Tables:
        asked.append((targets, timeout))
        return Tables(tables)

    monkeypatch.setattr(netplay, "discover", fake_discover)
    return await netplay.find_table(args, wanted or {}), asked


async def test_join_sits_at_the_one_table_that_fits(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    other = replace(UNO, address="10.0.0.6", game="toy", table_id=b"tableid2")
    found, asked = await _find(monkeypatch, [other, UNO], _join_args("--to", "10.0.0.5", "--game", "uno"))
    assert found == ("10.0.0.5", 7711)
    assert asked == [([("10.0.0.5", 7700)], 0.1)]
    out = capsys.readouterr()
    assert out.err == "" and "Found hana's uno table at 10.0.0.5:7711 (1/3 seated)." in out.out


async def test_join_with_no_table_or_none_that_fits_says_so_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert (await _find(monkeypatch, [], _join_args()))[0] == 3
    err = capsys.readouterr().err
    assert err.startswith("p2php: no open table found on the LAN (UDP port 7700). Is a host running") and \
        "firewalls" in err
    full = replace(UNO, taken=3)
    assert (await _find(monkeypatch, [full], _join_args("--game", "uno"), {"rounds": "1"}))[0] == 3
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("p2php: found 1 open table(s), but none with a free seat for this p2php matching "
                        "--game uno --option rounds=1:")
    assert len(lines) == 2 and "3/3 seated" in lines[1]


async def test_join_with_several_tables_that_fit_lists_them_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    other = replace(UNO, address="10.0.0.6", table_id=b"tableid2")
    assert (await _find(monkeypatch, [UNO, other], _join_args()))[0] == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "p2php: 2 open tables found; pick one and run: p2php join ADDRESS --name NAME"
    assert len(lines) == 3 and "10.0.0.5:7711" in lines[1] and "10.0.0.6:7711" in lines[2]
    assert (await _find(monkeypatch, [UNO, other], _join_args("--game", "uno")))[0] == 2
    assert capsys.readouterr().err.splitlines()[0].startswith("p2php: 2 open tables match --game uno; pick one")


async def test_join_gives_its_discovery_status_back_and_refuses_an_address_with_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def none(args: Any, wanted: Any) -> int:
        return 3

    monkeypatch.setattr(netplay, "find_table", none)
    assert await netplay.join_game(_join_args()) == 3
    with pytest.raises(UsageError, match="either an ADDRESS or --to"):
        await netplay.join_game(_join_args("10.0.0.5", "--to", "10.0.0.6"))
    with pytest.raises(UsageError, match=r"\(e\.g\. 192\.168\.1\.20:"):
        await netplay.join_game(_join_args("10.0.0.5:port"))


def test_the_options_a_joiner_asks_for_are_checked_against_its_game_before_any_connection() -> None:
    from p2php.engine.contract import OptionError

    assert netplay.wanted_options(_join_args("--option", "rounds=2")) == {"rounds": "2"}
    with pytest.raises(OptionError):
        netplay.wanted_options(_join_args("--game", "uno", "--option", "rounds=many"))
    # an option the game does not have is left to table_fits (no table will match it), not an error here
    assert netplay.wanted_options(_join_args("--game", "uno", "--option", "nothing=1")) == {"nothing": "1"}


async def test_discover_lists_tables_as_text_or_json_and_refuses_a_timeout_of_zero(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def fake_discover(targets: Any, timeout: float) -> Tables:
        return Tables([UNO])

    monkeypatch.setattr(netplay, "discover", fake_discover)
    parser = build_parser()
    assert await netplay.discover_tables(parser.parse_args(["discover", "--json", "--timeout", "0.1"])) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [t["address"] for t in listed] == ["10.0.0.5:7711"]
    assert await netplay.discover_tables(parser.parse_args(["discover", "--timeout", "0.1"])) == 0
    assert "10.0.0.5:7711" in capsys.readouterr().out
    with pytest.raises(UsageError, match="--timeout must be positive"):
        await netplay.discover_tables(argparse.Namespace(timeout=0, to=[], port=7700, json=False))


# ----------------------------------------------------------------------------- host: its checks, keys and exits


def _host_args(*extra: str) -> argparse.Namespace:
    return build_parser().parse_args(["host", "toy", "--port", "0", "--bind", "127.0.0.1", "--discovery-port", "0",
                                      "--name", "hana", *extra])


def _keyboard(monkeypatch: pytest.MonkeyPatch, lobby: list[str | None], game: str = "1") -> list[str]:
    """The person at the host: ``lobby`` answers the lobby prompt in turn (None: input ends), then ``game`` at
    every choice and no to a rematch.  Returns the prompts seen."""
    prompts: list[str] = []
    script = list(lobby)

    def person(prompt: str = "") -> str:
        prompts.append(prompt)
        if prompt.startswith("Press Enter when ready"):
            line = script.pop(0) if script else None
            if line is None:
                raise EOFError
            return line
        if "Play again" in prompt:
            return "n"
        return game

    monkeypatch.setattr("builtins.input", person)
    return prompts


async def test_a_host_needs_a_seat_for_itself_and_each_bot() -> None:
    for bots, players in ((-1, 2), (2, 2), (3, 2)):
        with pytest.raises(UsageError, match=f"{bots} bots and the host need {bots + 1} seats; the table has 2"):
            await netplay.host_game(_host_args("--players", str(players), "--bots", str(bots)))
    from p2php.engine.contract import OptionError

    with pytest.raises(OptionError, match="toy needs 2"):
        await netplay.host_game(_host_args("--players", "1"))  # the game's own player count


async def test_a_host_with_every_other_seat_a_bot_plays_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    """``--bots players-1 --auto``: the last seat is the host's, the table starts without anyone joining."""
    with trio.fail_after(60):
        assert await netplay.host_game(_host_args("--players", "2", "--bots", "1", "--auto")) == 0
    out = capsys.readouterr().out
    assert "Table open: toy for 2 players" in out and "Forming the mesh: hana (seat 0), " in out, out[-2000:]
    assert "\ndealing: " in out and "audit: clean" in out  # the crypto notice
    assert "p2php discover" not in out  # --discovery-port 0: discovery is off, and not offered
    assert "seat 0  hana (host)  ready  ← you" in out and "(bot)  ready  ← you" not in out


async def test_the_host_closes_its_table_with_q_exit_0(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    prompts = _keyboard(monkeypatch, ["what", "k 1", "k1", "k", "q"])
    with trio.fail_after(30):
        assert await netplay.host_game(_host_args("--players", "2")) == 0
    out = capsys.readouterr().out
    assert len(prompts) == 5
    assert "  type Enter (ready), b (fill empty seats with bots), k N (remove the joiner at seat N) or q" in out
    assert out.count("  seat 1 has no joiner to remove") == 2
    assert out.count("  type Enter (ready)") == 2  # "what" and a bare "k"
    assert "The table is closed: the host closed the table" in out


async def test_the_hosts_input_ending_closes_the_table_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    prompts = _keyboard(monkeypatch, [None])
    with trio.fail_after(15):
        assert await netplay.host_game(_host_args("--players", "2")) == 3
    out = capsys.readouterr()
    assert len(prompts) == 1
    assert "p2php: input ended before the host was ready (use --ready to host without a keyboard)" in out.err
    assert "The table is closed: the host's input ended" in out.out


async def test_the_host_fills_the_empty_seats_with_bots_and_plays_when_ready(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    prompts = _keyboard(monkeypatch, ["b", ""])
    with trio.fail_after(60):
        assert await netplay.host_game(_host_args("--players", "3")) == 0
    out = capsys.readouterr().out
    lobby = [p for p in prompts if p.startswith("Press Enter when ready")]
    assert len(lobby) == 2, prompts
    assert "Forming the mesh: hana (seat 0), " in out and "(seat 2)" in out, out[-2000:]
    assert "audit: clean" in out and any("Play again" in p for p in prompts)


async def test_a_host_that_quits_at_its_first_choice_has_left_exit_0(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    prompts = _keyboard(monkeypatch, [""], game="q")
    with trio.fail_after(60):
        assert await netplay.host_game(_host_args("--players", "2", "--bots", "1")) == 0
    out = capsys.readouterr().out
    assert "You left the table; the others were told at once. Bye!" in out, out[-2000:]
    assert "audit: clean" not in out and not any("Play again" in p for p in prompts)


async def test_a_host_saves_its_transcript_or_says_why_it_cannot_exit_3(tmp_path: Any,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.p2t"
    with trio.fail_after(60):
        assert await netplay.host_game(_host_args("--bots", "1", "--auto", "--transcript", str(path))) == 0
    out = capsys.readouterr()
    assert f"transcript saved: {path} — check it with: p2php verify {path}" in out.out and path.stat().st_size > 0
    bad = tmp_path  # a directory
    with trio.fail_after(60):
        assert await netplay.host_game(_host_args("--bots", "1", "--auto", "--transcript", str(bad))) == 3
    out = capsys.readouterr()
    assert "audit: clean" in out.out and "transcript saved" not in out.out
    assert out.err.startswith(f"p2php: cannot save the transcript to {bad}: ")
    assert out.err.count("\n") == 1


# ----------------------------------------------------------------------------- a table's seats: _play_seats


async def _seats(n: int, links: Any = None) -> tuple[dict[int, netplay.Place], dict[int, tuple[str, int]]]:
    from p2php.net.mesh import listen, listener_port

    places = {}
    for s in range(n):
        listener = await listen("127.0.0.1", 0)
        places[s] = netplay.Place(listener, listener_port(listener), links=links if s == 0 else None)
    return places, {s: ("127.0.0.1", p.port) for s, p in places.items()}


def _toy_options() -> dict[str, Any]:
    from p2php.engine.registry import get_game
    from p2php.session.modes import parse_table_options

    return parse_table_options(get_game("toy"), {})


async def test_a_table_that_cannot_form_names_the_seat_and_person_it_could_not_reach_exit_3(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Seat 0 plays here, seat 1 (bob) is an address where nobody listens: one line, exit 3."""
    from p2php.net.mesh import listen, listener_port

    places, addresses = await _seats(1)
    gone = await listen("127.0.0.1", 0)
    addresses[1] = ("127.0.0.1", listener_port(gone))
    await gone.aclose()
    args = _host_args("--auto", "--connect-timeout", "1")
    start = time.monotonic()
    with trio.fail_after(60):
        code = await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann", "bob"], addresses, places, None,
                                         netplay._ui(args))
    out = capsys.readouterr()
    assert code == 3 and time.monotonic() - start < 15  # --connect-timeout 1, not the rematch's wait
    assert out.err.startswith(f"p2php: the game could not start: no connection with seat 1 (bob at "
                              f"127.0.0.1:{addresses[1][1]})"), out.err
    assert out.err.count("\n") == 1 and "audit" not in out.out


async def test_a_table_says_how_each_link_was_carried_and_asks_nobody_to_play_again(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An online seat's ``links`` (here a stand-in): one line naming every other seat, never our own."""
    asked: list[Any] = []

    def links(others: dict[int, str]) -> dict[int, str]:
        asked.append(others)
        return {1: "direct"}

    prompts = _keyboard(monkeypatch, [])
    places, addresses = await _seats(3, links)
    args = _host_args("--auto")
    with trio.fail_after(60):
        code = await netplay._play_seats(args, "toy", _toy_options(), 3, ["ann", "bob", "cy"], addresses, places,
                                         None, netplay._ui(args))
    out = capsys.readouterr().out
    assert code == 0 and out.count("audit: clean") == 1, out[-2000:]
    assert asked == [{1: "127.0.0.1", 2: "127.0.0.1"}]
    assert "links: seat 1 (bob) direct, seat 2 (cy) not connected\n" in out
    assert prompts == []  # no person at this table: nobody is asked to play again


# ----------------------------------------------------------------------------- join: sitting down


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _host_and_join(host: argparse.Namespace, guest: argparse.Namespace,
                         wait: float = 10) -> tuple[int | None, int]:
    """The host's status (None: still open when the joiner was done, then closed) and the joiner's."""
    codes: dict[str, int] = {}

    async def run_host() -> None:
        codes["host"] = await netplay.host_game(host)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_host)
            await trio.sleep(0.3)
            codes["guest"] = await netplay.join_game(guest)
            with trio.move_on_after(wait):
                while "host" not in codes:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    return codes.get("host"), codes["guest"]


async def test_a_joiner_who_says_ready_plays_its_seat(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    prompts = _keyboard(monkeypatch, [""])
    host = _host_args("--port", str(port), "--ready")
    guest = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--bind", "127.0.0.1"])
    assert await _host_and_join(host, guest) == (0, 0)
    out = capsys.readouterr().out
    assert f"Joining the table at 127.0.0.1:{port} as bob…" in out
    assert "The game starts: you are seat 1 of 2 (toy, " in out and out.count("audit: clean") == 2, out[-3000:]
    assert [p for p in prompts if p.startswith("Press Enter")] == ["Press Enter when ready (q to leave): "]


@pytest.mark.parametrize("answer", ["q", None])
async def test_a_joiner_who_leaves_at_the_ready_prompt_exits_0(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str],
                                                               answer: str | None) -> None:
    port = _free_port()
    _keyboard(monkeypatch, [answer])
    host = _host_args("--port", str(port), "--ready")
    guest = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--bind", "127.0.0.1"])
    assert (await _host_and_join(host, guest, wait=0))[1] == 0
    out = capsys.readouterr()
    assert "You left the table. Bye!" in out.out and "p2php:" not in out.err


async def _fake_lobby(nursery: trio.Nursery, table: dict[str, Any]) -> int:
    """A lobby host on loopback that seats us at 1 and shows ``table``; its port."""
    from functools import partial

    from p2php.net.framing import FrameDecoder, encode_frame

    async def fake_host(stream: trio.SocketStream) -> None:
        decoder = FrameDecoder()
        while decoder.next_frame() is None:
            decoder.receive_data(await stream.receive_some(65536))
        seats = [{"seat": 0, "name": "hana", "kind": "host", "ready": True},
                 {"seat": 1, "name": "bob", "kind": "human", "ready": False}]
        for frame in ({"lobby": "welcome", "v": PROTOCOL_VERSION, "seat": 1},
                      {"lobby": "table", "v": PROTOCOL_VERSION, "players": 2, "host": "hana", "seats": seats,
                       **table}):
            await stream.send_all(encode_frame(frame))
        await trio.sleep(5)

    listeners = await nursery.start(partial(trio.serve_tcp, fake_host, 0, host="127.0.0.1"))
    return int(listeners[0].socket.getsockname()[1])


async def test_a_table_this_p2php_cannot_play_is_refused_in_one_line_exit_3(
        capsys: pytest.CaptureFixture[str]) -> None:
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            port = await _fake_lobby(nursery, {"game": "uno", "options": {"rounds": "many"}})
            args = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--ready",
                                              "--bind", "127.0.0.1"])
            code = await netplay.join_game(args)
            nursery.cancel_scope.cancel()
    out = capsys.readouterr()
    assert code == 3
    assert out.err.startswith("p2php: the table plays uno rounds=many, which this p2php cannot play: "), out.err
    assert out.err.count("\n") == 1 and "seat 0" not in out.out  # the table is not shown


# ----------------------------------------------------------------------------- failures a seat meets, rematches


async def test_a_network_fault_at_a_seat_is_one_line_exit_3_and_anything_else_is_raised(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for fault in (OSError("connection reset by peer"), trio.BrokenResourceError("gone")):
        async def broken(*args: Any, fault: BaseException = fault, **kwargs: Any) -> Any:
            raise fault

        monkeypatch.setattr(netplay, "run_peer", broken)
        places, addresses = await _seats(1)
        args = _host_args("--auto")
        code = await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann\x1b", "bob"], addresses, places,
                                         None, netplay._ui(args))
        err = capsys.readouterr().err
        assert code == 3 and err == f"p2php: network error at seat 0 (ann\\x1b): {fault}\n", err

    async def bug(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(netplay, "run_peer", bug)
    places, addresses = await _seats(1)
    with pytest.raises(BaseException) as raised:  # a traceback to report, never "a network error"
        await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann", "bob"], addresses, places, None,
                                  netplay._ui(args))
    leaf = netplay._first_leaf(raised.value)  # as run_trio raises it to the CLI
    assert isinstance(leaf, RuntimeError) and str(leaf) == "a bug of ours"
    assert capsys.readouterr().err == ""


async def test_a_bad_bot_delay_is_a_usage_error_naming_the_flag() -> None:
    with pytest.raises(UsageError, match="^--bot-delay: a bot delay is a number of seconds"):
        await netplay.host_game(_host_args("--bots", "1", "--auto", "--bot-delay", "-1"))


async def test_a_discovery_port_in_use_is_said_and_the_table_opens_anyway(monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    import errno

    async def taken(bind: str, port: int) -> Any:
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr(netplay, "open_responder", taken)
    args = build_parser().parse_args(["host", "toy", "--port", "0", "--bind", "127.0.0.1", "--discovery-port",
                                      "7799", "--bots", "1", "--auto"])
    with trio.fail_after(60):
        assert await netplay.host_game(args) == 0
    out = capsys.readouterr().out
    assert "(discovery is off: cannot use UDP port 7799: Address already in use)" in out
    assert "(or find it with: p2php discover)" not in out and "audit: clean" in out


async def test_a_rematch_that_cannot_listen_again_says_so_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import errno

    async def taken(bind: str, port: int) -> Any:
        raise OSError(errno.EADDRINUSE, "Address already in use")

    answers = iter(["y"])

    def person(prompt: str = "") -> str:
        return next(answers) if "Play again" in prompt else "1"

    monkeypatch.setattr("builtins.input", person)
    places, addresses = await _seats(2)
    monkeypatch.setattr(netplay, "listen", taken)
    args = _host_args()
    with trio.fail_after(60):
        code = await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann", "bob"], addresses, places, 0,
                                         netplay._ui(args))
    out = capsys.readouterr()
    assert code == 3 and "audit: clean" in out.out and "Rematch: waiting up to" in out.out
    assert out.err == "p2php: cannot listen again for the rematch: Address already in use\n"


async def test_a_seeded_rematch_gives_its_bots_new_seeds(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``--seed``: the first game's bots play as they always did, a rematch's bots differently (never a replay)."""
    from p2php import bots

    seeds: list[tuple[Any, int]] = []

    def bot_seed(seed: Any, seat: int) -> Any:
        seeds.append((seed, seat))
        return bots.bot_seed(seed, seat)

    answers = iter(["y", "n"])

    def person(prompt: str = "") -> str:
        return next(answers) if "Play again" in prompt else "1"

    monkeypatch.setattr(netplay, "bot_seed", bot_seed)
    monkeypatch.setattr("builtins.input", person)
    places, addresses = await _seats(2)
    args = _host_args("--seed", "7")
    with trio.fail_after(60):
        code = await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann", "bob"], addresses, places, 0,
                                         netplay._ui(args))
    assert code == 0 and capsys.readouterr().out.count("audit: clean") == 2
    assert seeds == [("7", 1), ("7/rematch1", 1)]


async def test_a_fault_at_one_of_this_machines_seats_ends_its_other_seats_at_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The host's bot seat meets a network error: the host's own seat is not left waiting for its timeout."""
    async def run_peer(cfg: Any, *args: Any, **kwargs: Any) -> Any:
        if cfg.seat == 1:
            raise OSError("connection reset by peer")
        await trio.sleep(3600)

    monkeypatch.setattr(netplay, "run_peer", run_peer)
    places, addresses = await _seats(2)
    args = _host_args("--auto")
    with trio.fail_after(10):
        code = await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann", "bob"], addresses, places, None,
                                         netplay._ui(args))
    assert code == 3 and capsys.readouterr().err == "p2php: network error at seat 1 (bob): connection reset by peer\n"


async def test_the_discovery_socket_is_closed_when_the_table_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hosts on one machine share the UDP port: a socket left open there would take queries nobody answers."""
    closed: list[bool] = []

    class Responder:
        def close(self) -> None:
            closed.append(True)

    async def responder(bind: str, port: int) -> Any:
        return Responder()

    served: list[Any] = []

    async def serve(sock: Any, summary: Any) -> None:
        served.append((sock, summary()))
        await trio.sleep_forever()

    monkeypatch.setattr(netplay, "open_responder", responder)
    monkeypatch.setattr(netplay, "serve_discovery", serve)
    args = build_parser().parse_args(["host", "toy", "--port", "0", "--bind", "127.0.0.1", "--discovery-port",
                                      "7799", "--bots", "1", "--auto"])
    with trio.fail_after(20):
        assert await netplay.host_game(args) == 0
    assert closed == [True]
    assert len(served) == 1 and isinstance(served[0][0], Responder)  # discovery was answered while the lobby ran
    assert served[0][1] is None or served[0][1]["game"] == "toy"


async def test_a_hosts_resume_log_says_where_its_own_seat_listens(tmp_path: Any) -> None:
    from p2php.session import resume

    log = tmp_path / "host.log"
    args = _host_args("--bots", "1", "--auto", "--resume-log", str(log))
    with trio.fail_after(60):
        assert await netplay.host_game(args) == 0
    header, _ = resume.read(log)
    assert header["seat"] == 0 and header["name"] == "hana"  # the host's own seat keeps the log, not its bot
    own, bot = header["addresses"]
    assert own[0] == "127.0.0.1" and isinstance(own[1], int) and own[1] > 0 and bot[0] == "127.0.0.1"


async def test_the_person_at_a_lan_table_chats_and_hears_the_others(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The chat hooks go to the person's seat (host and joiner here, both people): a line typed after ">" is
    printed at the other one."""
    port = _free_port()
    said: list[str] = []

    def person(prompt: str = "") -> str:
        if prompt.startswith("Press Enter when ready"):
            return ""
        if "Play again" in prompt:
            return "n"
        if not said:
            said.append(prompt)
            return "> hello table"
        return "1"

    monkeypatch.setattr("builtins.input", person)
    host = _host_args("--port", str(port), "--ready")
    guest = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--bind", "127.0.0.1"])
    assert await _host_and_join(host, guest) == (0, 0)
    out = capsys.readouterr().out
    import re

    assert re.search(r"» (hana \(seat 0\)|bob \(seat 1\)): hello table\n", out), out[-3000:]  # whoever was asked first


async def test_a_hosts_bots_play_at_the_bot_delay_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[float] = []
    slowed = netplay.slowed

    def recorded(decide: Any, delay: float) -> Any:
        delays.append(delay)
        return slowed(decide, 0.0)

    monkeypatch.setattr(netplay, "slowed", recorded)
    with trio.fail_after(60):
        assert await netplay.host_game(_host_args("--bots", "1", "--auto", "--bot-delay", "0.25")) == 0
    assert delays == [0.25, 0.25]  # the host's own seat (--auto) and its bot


async def test_the_host_removes_a_joiner_with_k_n(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import threading

    seated = threading.Event()
    host_prompts: list[str] = []

    def joiner(prompt: str = "") -> str:  # seated: it waits to be removed
        seated.set()
        time.sleep(5)
        return ""

    def host_person(prompt: str = "") -> str:
        host_prompts.append(prompt)
        if len(host_prompts) == 1:
            assert seated.wait(20)
            return "k 1"
        return "q"

    # Two people in one process: each reads its own input (one input is read by one thread at a time, §read_line).
    read_line = netplay.read_line

    async def routed(prompt: str, ask: Any = None) -> str | None:
        return await read_line(prompt, joiner if prompt == "Press Enter when ready (q to leave): " else host_person)

    monkeypatch.setattr(netplay, "read_line", routed)
    port = _free_port()
    host = _host_args("--port", str(port), "--players", "2")
    guest = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--bind", "127.0.0.1"])
    assert await _host_and_join(host, guest) == (0, 3)
    out = capsys.readouterr()
    assert "  removed bob: that address may not sit down again" in out.out
    assert "p2php: " in out.err and "the host removed you from this table" in out.err


async def test_an_online_seats_link_watcher_runs_tells_and_hands_its_relinks_to_the_runner() -> None:
    told: list[tuple[int, str]] = []
    seen: list[Any] = []

    async def watch_links(others: Any, tell: Any, relink: Any) -> None:
        seen.append(dict(others))
        tell(1, "direct")
        relink(1)
        await trio.sleep_forever()

    lan = netplay.Place(None, 0)  # type: ignore[arg-type]
    online = netplay.Place(None, 0, watch_links=watch_links)  # type: ignore[arg-type]
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            assert netplay._watch_links(nursery, trio.CancelScope(), lan, {1: "x"}, told.append) is None
            scope = trio.CancelScope()
            relinks = netplay._watch_links(nursery, scope, online, {1: "/p2p/peer1"},
                                           lambda s, how: told.append((s, how)))
            assert relinks is not None
            assert await relinks.receive() == 1
            assert told == [(1, "direct")] and seen == [{1: "/p2p/peer1"}]
            scope.cancel()  # the runner's end: the watcher stops, the nursery closes


async def test_a_joiner_whose_deck_the_starting_table_does_not_carry_refuses_it_exit_3(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``join --deck``: a host that starts the table without our deck's options (deck1=own, our character) — an old
    or hostile host that ignored our ``deck`` frame — is refused in one line before any game forms."""
    from functools import partial

    from p2php.games.tcg.game import GAME
    from p2php.net.framing import FrameDecoder, encode_frame
    from p2php.session.modes import parse_table_options
    from p2php.testing.tcg import random_deck_text

    deck = tmp_path / "ann.deck"
    deck.write_text(random_deck_text(22))
    options = parse_table_options(GAME, {"format": "constructed"})
    got: list[Any] = []

    async def fake_host(stream: trio.SocketStream) -> None:
        decoder = FrameDecoder()
        seats = [{"seat": 0, "name": "hana", "kind": "host", "ready": True},
                 {"seat": 1, "name": "ann", "kind": "human", "ready": False}]
        for frame in ({"lobby": "welcome", "v": PROTOCOL_VERSION, "seat": 1},
                      {"lobby": "table", "v": PROTOCOL_VERSION, "game": "tcg", "options": options, "players": 2,
                       "host": "hana", "seats": seats}):
            await stream.send_all(encode_frame(frame))
        while len(got) < 3:  # hello, deck, ready
            frame = decoder.next_frame()
            if frame is None:
                decoder.receive_data(await stream.receive_some(65536))
                continue
            got.append(frame)
        await stream.send_all(encode_frame({"lobby": "start", "v": PROTOCOL_VERSION,
                                            "addresses": [[None, 9], [None, 10]]}))
        await trio.sleep(5)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(partial(trio.serve_tcp, fake_host, 0, host="127.0.0.1"))
            port = listeners[0].socket.getsockname()[1]
            args = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "ann", "--ready",
                                              "--bind", "127.0.0.1", "--deck", str(deck)])
            code = await netplay.join_game(args)
            nursery.cancel_scope.cancel()
    out = capsys.readouterr()
    assert [f.get("lobby") for f in got][1:] == ["deck", "ready"], got
    assert code == 3 and "The game starts" not in out.out
    assert out.err.startswith("p2php: the host's table does not carry your deck: ") and "deck1=own" in out.err
    assert out.err.count("\n") == 1


async def test_an_online_seats_link_watcher_is_stopped_when_its_game_ends() -> None:
    stopped: list[bool] = []
    watched: dict[int, Any] = {}

    def watcher(seat: int) -> Any:
        async def watch_links(others: Any, tell: Any, relink: Any) -> None:
            watched[seat] = sorted(others)
            try:
                await trio.sleep_forever()
            finally:
                stopped.append(True)
        return watch_links

    places, addresses = await _seats(2)
    for seat, place in places.items():
        place.watch_links = watcher(seat)
    args = _host_args("--auto")
    with trio.fail_after(30):
        code = await netplay._play_seats(args, "toy", _toy_options(), 2, ["ann", "bob"], addresses, places, None,
                                         netplay._ui(args))
    assert code == 0 and stopped == [True, True]
    assert watched == {0: [1], 1: [0]}  # each seat watches its links to the others, never itself


async def test_a_joiner_with_auto_is_ready_at_once_and_its_bot_plays(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    prompts = _keyboard(monkeypatch, [])
    host = _host_args("--port", str(port), "--auto")
    guest = build_parser().parse_args(["join", f"127.0.0.1:{port}", "--name", "bob", "--bind", "127.0.0.1",
                                       "--auto"])
    assert await _host_and_join(host, guest) == (0, 0)
    assert prompts == []  # nobody was asked anything: not ready, not a move, not a rematch
    assert capsys.readouterr().out.count("audit: clean") == 2
