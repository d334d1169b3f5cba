"""(c) A command-line seat whose stderr is a pipe nobody reads (an app that reads the seat's stdout only) never
exits once more than the pipe holds was written to stderr: ``cli.main``'s ``piped_err.drain()`` waits for the
reader for good.

Seat 0 (``p2php peer uno``) has stdout to /dev/null and stderr to a 4 kB pipe (the default 64 kB fills the same
way, with 16x the warnings) that is never read; an outsider opens connections to its listener during play (one
warning each, as in tests/test_piped_output.py). Seat 1 ends the game cleanly; then we wait WAIT s for seat 0's exit.

    .venv/bin/python tests/chaos_repro/stderr_exit_hang.py [WAIT] [default]    (default: the system's pipe size, 64 kB)
"""
from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import P2PHP, free_ports  # noqa: E402

WAIT = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
ports = free_ports(2)
addresses = ",".join(f"127.0.0.1:{p}" for p in ports)
read_end, write_end = os.pipe()
if "default" not in sys.argv[2:]:
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ
print("stderr pipe:", fcntl.fcntl(write_end, 1032), "bytes")  # F_GETPIPE_SZ
common = ["uno", "--addresses", addresses, "--seed", "5", "--timeout", "5", "--resume-timeout", "5"]
seat0 = subprocess.Popen([*P2PHP, "peer", *common, "--seat", "0"], stdout=subprocess.DEVNULL, stderr=write_end)
os.close(write_end)
stop = threading.Event()
made = [0]


def outsider() -> None:
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", ports[0]), timeout=1.0) as conn:
                conn.sendall(b"\xff" * 8)
                conn.settimeout(1.0)
                conn.recv(1)
            made[0] += 1
        except OSError:
            time.sleep(0.05)


threading.Thread(target=outsider, daemon=True).start()
seat1 = subprocess.run([*P2PHP, "peer", *common, "--seat", "1"], capture_output=True, text=True, timeout=180)
stop.set()
ended = time.monotonic()
print(f"seat 1: exit {seat1.returncode}, {'audit: clean' in seat1.stdout and 'clean' or 'NOT clean'}; "
      f"outsider connections: {made[0]}")
try:
    code = seat0.wait(WAIT)
    print(f"seat 0 exited {code} {time.monotonic() - ended:.1f} s after seat 1")
except subprocess.TimeoutExpired:
    print(f"seat 0 still running {WAIT:.0f} s after seat 1 ended (its stderr never read): HANG")
    seat0.kill()
    seat0.wait()
os.close(read_end)
