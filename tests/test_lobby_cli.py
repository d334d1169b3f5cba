"""LAN tables as people use them: real ``p2php host`` / ``join`` / ``discover`` processes on loopback.

Every socket here is bound to 127.0.0.1 and discovery is asked with ``--to
127.0.0.1``, so no test sends a packet off the machine.
"""

from __future__ import annotations

import codecs
import json
import os
import socket
import subprocess
import sys
import threading
import time

from p2php import PROTOCOL_VERSION
from p2php.net.framing import FrameDecoder, encode_frame

P2PHP = [sys.executable, "-m", "p2php.cli"]
ENV = {**os.environ, "NO_COLOR": "1"}


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A p2php process whose output is collected as it comes, so a test can wait for a line."""

    def __init__(self, *args: str, stdin: bool = False) -> None:
        self.p = subprocess.Popen([*P2PHP, *args], stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        self.out: list[str] = []
        self.err: list[str] = []
        self.pumps = [threading.Thread(target=self._pump, args=(stream.fileno(), sink), daemon=True)
                      for stream, sink in ((self.p.stdout, self.out), (self.p.stderr, self.err))
                      if stream is not None]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(fd: int, sink: list[str]) -> None:
        # Raw reads, not lines: a prompt ("Press Enter when ready: ") has no newline yet.
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while chunk := os.read(fd, 65536):
            sink.append(decoder.decode(chunk))

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    @property
    def stderr(self) -> str:
        return "".join(self.err)

    def wait_for(self, text: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.stdout + self.stderr:
            if time.monotonic() > deadline or self.p.poll() is not None and text not in self.stdout + self.stderr:
                time.sleep(0.2)
                raise AssertionError(f"{text!r} never came:\n{self.stdout[-3000:]}\n{self.stderr[-2000:]}")
            time.sleep(0.05)

    def send(self, text: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def finish(self, timeout: float = 60) -> int:
        code = self.p.wait(timeout=timeout)
        for pump in self.pumps:
            pump.join(5)
        return code

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*P2PHP, *args], capture_output=True, text=True, timeout=timeout, env=ENV,
                          stdin=subprocess.DEVNULL)


def no_traceback(*texts: str) -> bool:
    return all("Traceback" not in t for t in texts)


def host(port: int, udp: int, *extra: str) -> Proc:
    proc = Proc("host", "--port", str(port), "--discovery-port", str(udp), "--bind", "127.0.0.1", *extra)
    proc.wait_for("Table open")
    return proc


def test_discover_host_join_and_play_to_the_end() -> None:
    """discover → host (with a bot) → two joiners → a whole game of UNO, four peers, audited clean."""
    port, udp = free_port(), free_port(socket.SOCK_DGRAM)
    table = host(port, udp, "uno", "--players", "4", "--bots", "1", "--name", "hana", "--auto",
                 "--option", "rounds=1")
    try:
        found = run("discover", "--to", f"127.0.0.1:{udp}", "--timeout", "0.5", "--json")
        assert found.returncode == 0, found.stderr
        tables = json.loads(found.stdout)
        assert len(tables) == 1
        t = tables[0]
        assert t["address"] == f"127.0.0.1:{port}" and t["game"] == "uno" and t["options"]["rounds"] == 1
        assert (t["players"], t["taken"], t["free"], t["host"], t["names"]) == (4, 2, 2, "hana", ["hana", "bot1"])
        listing = run("discover", "--to", f"127.0.0.1:{udp}", "--timeout", "0.5")
        assert f"p2php join 127.0.0.1:{port} --name NAME" in listing.stdout

        ann = Proc("join", t["address"], "--name", "ann", "--auto", "--bind", "127.0.0.1", "--game", "uno",
                   "--option", "rounds=1")
        table.wait_for("ann joined")
        bob = Proc("join", t["address"], "--name", "bob", "--auto", "--bind", "127.0.0.1")
        for proc in (ann, bob, table):
            assert proc.finish() == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
            assert "audit: clean" in proc.stdout and no_traceback(proc.stdout, proc.stderr)
        assert "bob is ready" in table.stdout and "everyone is ready: the game starts" in table.stdout
        assert "seat 3  bob  ready" in table.stdout  # the host showed the table as it filled
        assert "seat 2  ann  ready  ← you" in ann.stdout  # so did the joiners
        assert "Forming the mesh: hana (seat 0), bot1 (seat 1), ann (seat 2), bob (seat 3)" in table.stdout
        after = run("discover", "--to", f"127.0.0.1:{udp}", "--timeout", "0.3", "--json")
        assert json.loads(after.stdout) == []  # the host answered only while the table was open
    finally:
        table.kill()


def test_refusals_name_clash_game_options_full_and_leaving() -> None:
    port, udp = free_port(), free_port(socket.SOCK_DGRAM)
    table = host(port, udp, "uno", "--players", "2", "--name", "hana", "--auto", "--option", "rounds=1")
    address = f"127.0.0.1:{port}"
    try:
        for args, words in [
            (("--name", "Hana"), "the name 'Hana' is already taken"),
            (("--game", "hpsha"), "game mismatch: this table plays uno, you asked for hpsha"),
            (("--option", "rounds=2"), "option mismatch: you asked for rounds=2, this table plays rounds=1"),
            (("--option", "colour=red"), "uno has no option 'colour'"),
        ]:
            out = run("join", address, "--bind", "127.0.0.1", *args)
            assert out.returncode == 3, (args, out.stdout, out.stderr)
            assert words in out.stderr and no_traceback(out.stdout, out.stderr), (args, out.stderr)
        # A person sits down and thinks; meanwhile the table is full for anyone else.
        ann = Proc("join", address, "--name", "ann", "--bind", "127.0.0.1", stdin=True)
        ann.wait_for("Press Enter when ready")
        ann.wait_for("seat 1  ann  not ready  ← you")  # the table view may come just after the prompt
        full = run("join", address, "--name", "bob", "--bind", "127.0.0.1")
        assert full.returncode == 3 and "the table is full (2/2: hana, ann)" in full.stderr
        ann.send("q\n")
        assert ann.finish() == 0 and "You left the table" in ann.stdout
        table.wait_for("ann left; seat 1 is free again")
        assert "refused bob" in table.stdout and no_traceback(table.stdout, table.stderr)
    finally:
        table.kill()


def test_protocol_version_mismatch_over_the_wire() -> None:
    """A joiner from another protocol version (simulated with a raw socket) is refused with a clear reason."""
    port, udp = free_port(), free_port(socket.SOCK_DGRAM)
    table = host(port, udp, "uno", "--players", "2", "--auto")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(encode_frame({"lobby": "join", "v": PROTOCOL_VERSION + 1, "name": "future", "port": 9}))
            decoder = FrameDecoder()
            frames: list[dict[str, object]] = []
            while not frames:
                frames = decoder.feed(s.recv(65536))
        assert frames[0]["lobby"] == "refused" and frames[0]["code"] == "version"
        assert f"you speak v{PROTOCOL_VERSION + 1}" in str(frames[0]["reason"])
        table.wait_for("protocol version mismatch")
    finally:
        table.kill()


def test_unreachable_peer_after_the_start_is_named() -> None:
    """A seated peer whose listener is dead: everyone's mesh fails, naming that seat and person."""
    port, udp = free_port(), free_port(socket.SOCK_DGRAM)
    dead = free_port()
    table = host(port, udp, "uno", "--players", "3", "--name", "hana", "--auto", "--connect-timeout", "2")
    try:
        ghost = socket.create_connection(("127.0.0.1", port), timeout=10)  # takes seat 1 and never listens
        ghost.sendall(encode_frame({"lobby": "join", "v": PROTOCOL_VERSION, "name": "ghost", "port": dead}))
        ghost.sendall(encode_frame({"lobby": "ready", "ready": True}))
        table.wait_for("ghost is ready")
        cy = run("join", f"127.0.0.1:{port}", "--name", "cy", "--auto", "--bind", "127.0.0.1",
                 "--connect-timeout", "2")
        assert cy.returncode == 3, cy.stdout + cy.stderr
        assert f"no connection with seat 1 (ghost at 127.0.0.1:{dead})" in cy.stderr
        assert table.finish(30) == 3
        assert "no connection with seat 1 (ghost" in table.stderr
        assert no_traceback(cy.stdout, cy.stderr, table.stdout, table.stderr)
        ghost.close()
    finally:
        table.kill()


def test_bad_addresses_and_names_are_clear_errors() -> None:
    for args, code, words in [
        (("join", "127.0.0.1:notaport"), 2, "expected HOST:PORT"),
        (("join", f"127.0.0.1:{free_port()}", "--name", "ann"), 3, "cannot reach the table"),
        (("join", "127.0.0.1:7", "--name", " "), 2, "--name"),
        (("host", "uno", "--players", "2", "--bots", "2"), 2, "need 3 seats"),
        (("discover", "--to", "nowhere:x"), 2, "expected HOST:PORT"),
    ]:
        out = run(*args)
        assert out.returncode == code, (args, out.stdout, out.stderr)
        assert words in out.stderr and no_traceback(out.stdout, out.stderr), (args, out.stderr)


def test_a_host_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = run("host", "uno", "--port", str(port), "--bind", "127.0.0.1", "--discovery-port", "0", "--auto")
    assert out.returncode == 3 and "cannot open the table on 127.0.0.1" in out.stderr
    assert no_traceback(out.stdout, out.stderr)


def test_a_tcg_table_where_each_player_brings_a_secret_deck(tmp_path: object) -> None:
    """host --deck and join --deck: the lists stay on each player's machine; the table only names Characters."""
    from pathlib import Path

    from p2php.games.tcg.game import GAME
    from p2php.testing.tcg import random_deck_text

    root = Path(str(tmp_path))
    mine, theirs = root / "hana.deck", root / "ann.deck"
    mine.write_text(random_deck_text(21))
    theirs.write_text(random_deck_text(22))
    _, implied = GAME.read_private_deck(theirs.read_text(), 1, {})
    port, udp = free_port(), free_port(socket.SOCK_DGRAM)
    # The host knows nothing of ann's deck: her peer sets her seat's options once seated.
    table = host(port, udp, "tcg", "--players", "2", "--name", "hana", "--auto", "--deck", str(mine))
    try:
        ann = Proc("join", f"127.0.0.1:{port}", "--name", "ann", "--auto", "--bind", "127.0.0.1",
                   "--deck", str(theirs))
        for proc in (ann, table):
            assert proc.finish(120) == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
            assert "audit: clean" in proc.stdout and no_traceback(proc.stdout, proc.stderr)
        assert "decklist0=, decklist1=," in table.stdout  # the table's options hold no list
        assert f"ann brings their own deck (character1={implied['character1']}, deck1=own)" in table.stdout
    finally:
        table.kill()


def test_a_joiner_whose_deck_the_table_cannot_take_is_told_in_one_line(tmp_path: object) -> None:
    """A 60-card deck at a starter table: refused before the joiner says ready, naming the format."""
    from pathlib import Path

    from p2php.testing.tcg import random_deck_text

    deck = Path(str(tmp_path)) / "ann.deck"
    deck.write_text(random_deck_text(22))
    port, udp = free_port(), free_port(socket.SOCK_DGRAM)
    table = host(port, udp, "tcg", "--players", "2", "--name", "hana", "--auto")
    try:
        ann = run("join", f"127.0.0.1:{port}", "--name", "ann", "--auto", "--bind", "127.0.0.1", "--deck", str(deck))
        assert ann.returncode == 3 and ann.stderr.count("\n") == 1, ann.stderr
        assert "starter" in ann.stderr and no_traceback(ann.stdout, ann.stderr)
    finally:
        table.kill()


def test_a_joiner_whose_deck_the_table_does_not_name_is_told_which_options_the_host_needs(tmp_path: object) -> None:
    from pathlib import Path

    import pytest

    from p2php.engine.contract import OptionError
    from p2php.games.tcg.game import GAME
    from p2php.session.owndecks import check_implied
    from p2php.testing.tcg import random_deck_text

    deck = Path(str(tmp_path)) / "ann.deck"
    deck.write_text(random_deck_text(22))
    _, implied = GAME.read_private_deck(deck.read_text(), 1, {})
    fits = {**GAME.parse_options({"format": "constructed"}), **implied}
    assert len(check_implied(GAME, str(deck), 1, fits)["deck1"]) == 60
    needs = r"needs the table's options deck1=own character1=.* format=constructed for seat 1"
    with pytest.raises(OptionError, match=needs):
        check_implied(GAME, str(deck), 1, GAME.parse_options({}))
