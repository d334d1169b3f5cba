"""The ``p2php`` command as a person (or a script) uses it: real processes, real sockets."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2php.crypto import secp256k1

P2PHP = [sys.executable, "-m", "p2php.cli"]


LIBRARY_DEFAULT = "verified" if secp256k1.available() else "fast"


def run(*args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*P2PHP, *args], input=stdin, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("peers,deck", [(2, "base"), (4, "all"), (10, "hat")])
def test_demo_json_agrees_and_audits_clean(peers: int, deck: str) -> None:
    out = run("demo", "uno", "--peers", str(peers), "--seed", "7", "--option", f"deck={deck}",
              "--option", "rounds=1", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    for key in ("game", "peers", "winner", "scores", "state_hash", "audit", "seconds"):
        assert key in result
    assert result["peers"] == peers and result["audit"] == "clean" and result["agree"]
    assert isinstance(result["state_hash"], str) and len(result["state_hash"]) == 64
    assert result["crypto"] == LIBRARY_DEFAULT  # verified wherever coincurve is installed (issue 10)


@pytest.mark.parametrize("deck", ["voldemort", "magic"])
def test_every_deck_variant_plays_clean(deck: str) -> None:
    out = run("demo", "uno", "--peers", "3", "--seed", "2", "--option", f"deck={deck}", "--option", "rounds=1",
              "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["audit"] == "clean"


def test_demo_prints_the_play_and_transcripts_verify(tmp_path: Path) -> None:
    out = run("demo", "uno", "--peers", "3", "--seed", "4", "--option", "rounds=1", "--transcripts", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "audit: clean" in out.stdout and "winner" in out.stdout
    assert f"dealing: {LIBRARY_DEFAULT}" in out.stdout  # the table says how it deals
    check = run("verify", str(tmp_path / "seat1.p2php"))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "audit: clean" in check.stdout and "OK" in check.stdout


def test_verify_refuses_a_file_that_is_not_a_transcript(tmp_path: Path) -> None:
    bad = tmp_path / "x.p2php"
    bad.write_bytes(b"\x00\x01garbage")
    out = run("verify", str(bad))
    assert out.returncode == 2
    assert "not a" in out.stderr and "Traceback" not in out.stderr


def test_bad_options_get_clear_errors() -> None:
    for args, words in [
        (("demo", "uno", "--option", "deck=huge"), "deck"),
        (("demo", "uno", "--peers", "11"), "2–10 players"),
        (("demo", "chess"), "unknown game"),
        (("demo", "uno", "--option", "nonsense"), "key=value"),
    ]:
        out = run(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert words in out.stderr and "Traceback" not in out.stderr


def test_play_in_the_terminal_reasks_invalid_input_and_finishes() -> None:
    answers = "hello\n0\n99\n" + "1\n" * 400
    out = run("play", "uno", "--bots", "1", "--seed", "3", "--option", "rounds=1", stdin=answers)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "is not a choice" in out.stdout
    assert "Your view" in out.stdout and "audit: clean" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_play_ends_politely_when_input_ends() -> None:
    out = run("play", "uno", "--bots", "2", "--seed", "3", stdin="1\n", timeout=120)
    assert out.returncode == 0
    assert "You left the table" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_host_and_join_on_loopback() -> None:
    port = _free_port()
    host = subprocess.Popen([*P2PHP, "host", "uno", "--players", "3", "--bots", "1", "--auto", "--port", str(port),
                             "--bind", "127.0.0.1", "--option", "rounds=1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30  # until the host listens (it may take seconds to start on a loaded machine)
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    joiner = run("join", f"127.0.0.1:{port}", "--name", "ann", "--auto", "--bind", "127.0.0.1", timeout=120)
    host_out, host_err = host.communicate(timeout=120)
    assert joiner.returncode == 0, joiner.stdout[-1500:] + joiner.stderr[-1500:]
    assert host.returncode == 0, host_out[-1500:] + host_err[-1500:]
    assert "audit: clean" in joiner.stdout and "audit: clean" in host_out
    assert "ann joined" in host_out


def test_join_an_absent_table_is_a_clear_error() -> None:
    out = run("join", f"127.0.0.1:{_free_port()}", "--auto", timeout=60)
    assert out.returncode == 3
    assert "cannot reach the table" in out.stderr and "Traceback" not in out.stderr
