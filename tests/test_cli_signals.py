"""A ``p2php peer`` seat playing in a terminal is stopped by Ctrl-C (SIGINT) or ``kill`` (SIGTERM) mid-game
(red-team rt4-faults): one line, exit 130, and the terminal's flow control (IXON) given back."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

termios = pytest.importorskip("termios")
pty = pytest.importorskip("pty")

from cli_helpers import P2PHP, free_ports  # noqa: E402


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_seat_stopped_mid_game_says_one_line_and_gives_the_terminal_back(sig: signal.Signals) -> None:
    """Before: Ctrl-C printed a 60-line exception-group traceback (exit 1: ``p2php peer`` and ``resume`` ran
    ``trio.run``, not ``run_trio``); SIGTERM killed the seat at once (exit -15) with IXON still off."""
    addresses = ",".join(f"127.0.0.1:{p}" for p in free_ports(2))
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[0] |= termios.IXON
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    args = ["peer", "uno", "--addresses", addresses, "--seed", "3", "--bot-delay", "0.3"]
    other = subprocess.Popen([*P2PHP, *args, "--seat", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seat = subprocess.Popen([*P2PHP, *args, "--seat", "0"], stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    try:
        out = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and b"plays" not in out:
            out += os.read(master, 65536)
        assert b"plays" in out
        assert not termios.tcgetattr(slave)[0] & termios.IXON  # off while the seat plays
        seat.send_signal(sig)
        code = seat.wait(timeout=30)
        os.set_blocking(master, False)
        try:
            while chunk := os.read(master, 65536):
                out += chunk
        except OSError:
            pass
        text = out.decode(errors="replace")
        assert code == 130, text[-3000:]
        assert text.rstrip().endswith("interrupted") and "Traceback" not in text, text[-3000:]
        assert termios.tcgetattr(slave)[0] & termios.IXON  # the person's settings are back
    finally:
        for p in (seat, other):
            p.kill()
            p.wait()
        os.close(master)
        os.close(slave)
