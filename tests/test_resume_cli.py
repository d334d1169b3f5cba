"""``p2php peer`` processes on loopback: one is killed mid-game and ``p2php resume`` brings it back."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from cli_helpers import P2PHP, free_ports


def test_kill_and_resume_a_peer_process(tmp_path: Path) -> None:
    addresses = ",".join(f"127.0.0.1:{p}" for p in free_ports(3))
    procs = []
    for seat in range(3):
        procs.append(subprocess.Popen(
            [*P2PHP, "peer", "uno", "--seat", str(seat), "--addresses", addresses, "--seed", "5",
             "--timeout", "10", "--resume-timeout", "60", "--resume-log", str(tmp_path / f"seat{seat}.resume"),
             "--transcript", str(tmp_path / f"seat{seat}.p2php")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    log = tmp_path / "seat1.resume"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or log.stat().st_size < 150_000):
        assert procs[1].poll() is None, "seat 1 ended before it could be killed"
        time.sleep(0.02)
    procs[1].send_signal(signal.SIGKILL)
    procs[1].wait()
    resumed = subprocess.run([*P2PHP, "resume", str(log), "--transcript", str(tmp_path / "seat1.p2php")],
                             capture_output=True, text=True, timeout=120)
    outs = [p.communicate(timeout=120) for p in (procs[0], procs[2])]
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert "resumed seat 1" in resumed.stdout and "audit: clean" in resumed.stdout
    for p, (out, err) in zip((procs[0], procs[2]), outs, strict=True):
        assert p.returncode == 0, out[-1500:] + err[-1500:]
        assert "audit: clean" in out
    check = subprocess.run([*P2PHP, "verify", str(tmp_path / "seat1.p2php")], capture_output=True, text=True,
                           timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def test_p2php_resume_of_a_finished_games_log_gives_its_verdict_and_transcript(tmp_path: Path) -> None:
    """The log is the record when the transcript could not be saved at the end (a full disk, a bad path): ``p2php
    resume LOG --transcript FILE`` gives it back (red-team rt4-faults). Before, it waited for the gone seats and
    ended "no connection with seat(s) [0]" (exit 3), no transcript written."""
    addresses = ",".join(f"127.0.0.1:{p}" for p in free_ports(2))
    procs = [subprocess.Popen([*P2PHP, "peer", "uno", "--seat", str(seat), "--addresses", addresses, "--seed", "3",
                               "--resume-log", str(tmp_path / f"seat{seat}.resume")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seat in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and "audit: clean" in out, out[-1500:] + err[-1500:]
    saved = tmp_path / "seat1.p2php"
    resumed = subprocess.run([*P2PHP, "resume", str(tmp_path / "seat1.resume"), "--transcript", str(saved)],
                             capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert "the game in this log is over" in resumed.stdout and "audit: clean" in resumed.stdout
    check = subprocess.run([*P2PHP, "verify", str(saved)], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
