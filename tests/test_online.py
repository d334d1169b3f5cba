"""Online tables over libp2p, as people run them: ``p2php relay``, ``host --online`` with its invite code,
``join CODE`` — each a separate process on loopback, through the relay or directly.

Skipped as a whole where py-libp2p (the ``p2php[internet]`` extra) is not installed.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import pytest

pytest.importorskip("libp2p", reason="py-libp2p is not installed (pip install 'p2php[internet]'): "
                                     "online tables are not tested here")

P2PHP = [sys.executable, "-m", "p2php.cli"]
GAME = ["uno", "--option", "crypto=fast", "--option", "rounds=1"]


class _Output:
    """Everything a process prints, read by a thread as it comes.

    A pipe nobody reads fills at 64 kB; the process then blocks on its next line, its event loop with it,
    and the other seats see it vanish (a host's game to 500 points prints 30 kB or more)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.lines: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        assert proc.stdout is not None
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _read(self, pipe: IO[bytes]) -> None:
        for raw in iter(pipe.readline, b""):
            with self._changed:
                self.lines.append(raw.decode(errors="replace"))
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def first(self, pattern: str, timeout: float) -> str | None:
        """The first line matching ``pattern``, waiting up to ``timeout``; None if the output ended first."""
        limit = time.monotonic() + timeout
        with self._changed:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    if re.search(pattern, line):
                        return line.strip()
                seen = len(self.lines)
                left = limit - time.monotonic()
                if self.ended or left <= 0:
                    return None
                self._changed.wait(left)

    def text(self, settle: float = 10) -> str:
        """What was printed, once the output ended (or ``settle`` seconds passed)."""
        self._thread.join(settle)
        with self._changed:
            return "".join(self.lines)


_OUTPUTS: dict[subprocess.Popen[bytes], _Output] = {}


def spawn(*args: str) -> subprocess.Popen[bytes]:
    """A p2php process whose output is read as it comes (:func:`wait_for`, :func:`finish`)."""
    proc = subprocess.Popen([*P2PHP, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _OUTPUTS[proc] = _Output(proc)
    return proc


def wait_for(proc: subprocess.Popen[bytes], pattern: str, timeout: float = 120) -> str:
    """The first line of ``proc``'s output that matches ``pattern`` (it may have been printed already)."""
    output = _OUTPUTS[proc]
    line = output.first(pattern, timeout)
    if line is None:
        state = "ended" if proc.poll() is not None else f"still runs after {timeout:.0f} s"
        raise AssertionError(f"p2php printed no {pattern!r} ({state}):\n{output.text(settle=0)[-3000:]}")
    return line


@contextmanager
def started(*args: str, until: str | None) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A p2php process and the first line of its output that matches ``until`` (None: at once, no line);
    killed on the way out."""
    proc = spawn(*args)
    try:
        yield proc, "" if until is None else wait_for(proc, until)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        _OUTPUTS.pop(proc).text()


def finish(proc: subprocess.Popen[bytes]) -> str:
    """Everything ``proc`` printed, once it ended by itself (it must, with status 0, within 120 s)."""
    proc.wait(timeout=120)
    out = _OUTPUTS[proc].text()
    assert proc.returncode == 0, out[-3000:]
    return out


def test_three_seats_behind_no_direct_path_play_a_whole_game_through_a_relay_by_invite_code() -> None:
    with started("relay", "--bind", "127.0.0.1", "--port", "0", "--max-reservations", "8",
                 until=r"--relay /ip4/") as (relay, line):
        address = line.split("--relay ", 1)[1]
        host_args = ["host", *GAME, "--players", "3", "--bots", "1", "--online", "--relay", address,
                     "--relay-only", "--auto"]
        with started(*host_args, until=r"^\s*p2php-") as (host, code):
            assert address in "".join(host_args) and len(code) < 400
            joined = subprocess.run([*P2PHP, "join", code, "--name", "ann", "--auto", "--relay-only"],
                                    capture_output=True, text=True, timeout=120)
            assert joined.returncode == 0, joined.stdout + joined.stderr
            hosted = finish(host)
        assert relay.poll() is None  # the relay serves on: it is nobody's seat
    for out in (joined.stdout, hosted):
        assert "audit: clean" in out
        links = next(x for x in out.splitlines() if x.startswith("links: "))
        assert links.count("relayed") == 2, links  # listening nowhere: every link through the relay
    codes = {re.search(r"safety code: (\S+)", out).group(1) for out in (joined.stdout, hosted)}  # type: ignore[union-attr]
    assert len(codes) == 1  # one table, the same keys on both sides


def test_with_no_relay_an_invite_names_the_hosts_addresses_and_seats_connect_directly() -> None:
    with started("host", *GAME, "--players", "2", "--online", "--advertise", "127.0.0.1", "--auto",
                 until=r"^\s*p2php-") as (host, code):
        joined = subprocess.run([*P2PHP, "join", code, "--name", "ann", "--auto", "--advertise", "127.0.0.1"],
                                capture_output=True, text=True, timeout=120)
        assert joined.returncode == 0, joined.stdout + joined.stderr
        hosted = finish(host)
    assert "only peers that can reach this machine directly can join" in hosted
    for out in (joined.stdout, hosted):
        assert "audit: clean" in out and re.search(r"^links: seat \d \(\w+\) direct$", out, re.M), out


def test_a_bad_code_a_bad_relay_and_a_bad_limit_each_get_one_clear_line() -> None:
    bad = subprocess.run([*P2PHP, "join", "p2php-AAAAmistyped", "--name", "ann"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "invite code" in bad.stderr, bad.stderr
    relay = subprocess.run([*P2PHP, "host", "uno", "--online", "--relay", "/ip4/1.2.3.4/tcp/1", "--ready"],
                           capture_output=True, text=True, timeout=60)
    assert relay.returncode == 2 and "/p2p/RELAY_ID" in relay.stderr, relay.stderr
    limit = subprocess.run([*P2PHP, "relay", "--port", "0", "--max-circuits", "0"], capture_output=True,
                           text=True, timeout=60)
    assert limit.returncode == 2 and "circuits must be a positive" in limit.stderr, limit.stderr
    per_ip = subprocess.run([*P2PHP, "relay", "--port", "0", "--max-per-ip", "0"], capture_output=True, text=True,
                            timeout=60)
    assert per_ip.returncode == 2 and "per_ip must be a positive" in per_ip.stderr, per_ip.stderr


def test_a_killed_seat_comes_back_from_its_resume_log_through_the_relay(tmp_path: object) -> None:
    """The resumed node has the same peer id (its key comes from the seat's secrets) and reserves again."""
    log = f"{tmp_path}/ann.resume"
    with started("relay", "--bind", "127.0.0.1", "--port", "0", until=r"--relay /ip4/") as (_, line):
        address = line.split("--relay ", 1)[1]
        host_args = ["host", "uno", "--option", "crypto=fast", "--option", "rounds=3", "--players", "3", "--bots", "1",
                     "--online", "--relay", address, "--relay-only", "--auto"]
        with started(*host_args, until=r"^\s*p2php-") as (host, code):
            with started("join", code, "--name", "ann", "--auto", "--relay-only", "--resume-log", log,
                         until=r"^ann: plays") as (ann, _):
                ann.kill()  # mid-game, its log on disk
            back = subprocess.run([*P2PHP, "resume", log], capture_output=True, text=True, timeout=120)
            assert back.returncode == 0, back.stdout + back.stderr
            hosted = finish(host)
    assert "resumed seat 2" in back.stdout
    for out in (back.stdout, hosted):
        assert "audit: clean" in out, out[-2000:]
    codes = {re.search(r"safety code: (\S+)", out).group(1) for out in (back.stdout, hosted)}  # type: ignore[union-attr]
    assert len(codes) == 1


def test_a_spectator_watches_an_online_table_by_its_invite_code() -> None:
    """``p2php watch CODE`` reaches the host's seat the code names and sees the game to its clean audit.

    Directly, and a whole game to 500 points, so the watcher (a new process) arrives before the table has
    finished. Through a py-libp2p 0.8 relay the host's circuit is at times refused mid-game ("no reservation",
    status 204) while the players' own relayed links carry on (issue 13's note): not this test's subject."""
    host_args = ["host", "uno", "--option", "crypto=fast", "--option", "rounds=0", "--option", "target=500",
                 "--players", "2", "--online", "--advertise", "127.0.0.1", "--auto"]
    with started(*host_args, until=r"^\s*p2php-") as (host, code), \
            started("join", code, "--name", "ann", "--auto", "--advertise", "127.0.0.1",
                    until=r"^ann: plays") as (ann, _):
        watcher = subprocess.run([*P2PHP, "watch", code, "--name", "eve"], capture_output=True, text=True,
                                 timeout=120)
        finish(ann)
        hosted = finish(host)
    assert watcher.returncode == 0, watcher.stdout[-2000:] + watcher.stderr
    assert "audit: clean" in watcher.stdout and "audit: clean" in hosted
    code_of = re.compile(r"safety code: (\S+)")
    assert code_of.search(watcher.stdout).group(1) == code_of.search(hosted).group(1)  # type: ignore[union-attr]


async def test_autonat_through_the_relay_tells_a_reachable_seat_from_one_that_listens_nowhere() -> None:
    """On loopback the relay dials the seat back at its own address: public; relay-only: nothing to ask."""
    import trio

    from p2php.net.libp2p import RelayLimitsSpec, serve_relay
    from p2php.net.online import OnlineSeat
    from p2php.session.handshake import LocalSecrets

    async with trio.open_nursery() as nursery:
        relay = await nursery.start(serve_relay, "/ip4/127.0.0.1/tcp/0", RelayLimitsSpec())
        address = f"{relay.get_transport_addrs()[0]}/p2p/{relay.get_id()}"
        open_seat = OnlineSeat(LocalSecrets(), address, listen="/ip4/127.0.0.1/tcp/0")
        hidden = OnlineSeat(LocalSecrets(), address, listen=None)
        for seat in (open_seat, hidden):
            await nursery.start(seat.run)
        assert await open_seat.reachability() == "public"
        assert await hidden.reachability() == "unknown"
        nursery.cancel_scope.cancel()


def test_the_invite_names_the_lobby_and_only_the_options_that_differ_from_the_defaults() -> None:
    """What ``host --online`` prints (and any other front end would show) reads back to the same table."""
    from p2php.engine.registry import get_game
    from p2php.lobby import Table
    from p2php.net.invite import Locator, parse_invite
    from p2php.session.modes import parse_table_options
    from p2php.session.online_play import table_invite

    game = get_game("uno")
    peer = "12D3KooWAg32d38pkErNFDRWQtUqRgCVtY5u73w46rzxmu8RxNDs"
    relay = "/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWCAxWYiKdcAy81dqjefUESUAbCUAUKE9SiXscDSv3ZeKs"
    options = {**parse_table_options(game, {}), "rounds": 1}
    table = Table(game, options, 3, "host", online=True)
    read = parse_invite(table_invite(Locator(peer, ("/ip4/127.0.0.1/tcp/40123",), (relay,)), table).code())
    assert (read.peer, read.addrs, read.relays) == (peer, ("/ip4/127.0.0.1/tcp/40123",), (relay,))
    assert (read.table, read.game, read.players) == (table.table_id, "uno", 3)
    assert dict(read.options) == {"rounds": 1}


async def test_a_seat_answers_hole_punching_from_the_seats_it_watches_and_is_told_links_formed_before() -> None:
    """Mutation run of 2026-12-07 (online.py): ``watch_links`` makes the table's seats the peers our node may
    hole-punch with (protocol.md §3.6) and tells at once how links formed before it are carried; a seat serves
    no lobby unless asked, punches only when asked and with a relay and a listen address; and a seat that listens
    nowhere needs a relay."""
    from functools import partial

    import trio

    from p2php.net.invite import Locator
    from p2php.net.online import OnlineSeat
    from p2php.session.handshake import LocalSecrets

    with pytest.raises(ValueError, match="needs a relay"):
        OnlineSeat(LocalSecrets(), None, listen=None)
    seat, other, third = (OnlineSeat(LocalSecrets(), None, listen="/ip4/127.0.0.1/tcp/0") for _ in range(3))
    assert not seat.node.serves_lobby
    relay = f"/ip4/127.0.0.1/tcp/1/p2p/{other.peer}"
    punches = [OnlineSeat(LocalSecrets(), r, listen=lis, punch=p).node.punch
               for r, lis, p in ((relay, "/ip4/127.0.0.1/tcp/0", True), (relay, None, True),
                                 (relay, "/ip4/127.0.0.1/tcp/0", False))]
    assert [seat.node.punch, *punches] == [False, True, False, False]  # DCUtR only with a relay and a listen address
    where = {1: Locator(other.peer, ("/ip4/127.0.0.1/tcp/1",), ()).text(),
             2: Locator(third.peer, ("/ip4/127.0.0.1/tcp/2",), ()).text()}
    seat.node.carried[other.peer] = "direct"  # a link formed before we watched
    told: list[tuple[int, str]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(seat.watch_links, where, lambda s, how: told.append((s, how)))
        await trio.sleep(0.1)
        assert seat.node.seats == {other.peer, third.peer}
        assert told == [(1, "direct")]
        nursery.cancel_scope.cancel()
    # a relayed link that could move onto a punched connection: the runner is asked to relink it once a stream
    relinked: list[int] = []
    seat.node.streams[other.peer] = object()  # type: ignore[assignment]
    seat.node.better_path = lambda peer: peer == other.peer  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(seat.watch_links, where, lambda s, how: None, relinked.append, every=0.01))
        await trio.sleep(0.2)
        nursery.cancel_scope.cancel()
    assert relinked == [1]
