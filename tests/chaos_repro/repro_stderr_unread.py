"""A seat's WARNINGS go to stderr from its game loop (red-team rt7-loopio, item 4): where stderr is a pipe its
reader does not drain (a program that runs ``p2php`` and reads its stdout only; ``2>&1 | tee`` whose reader
stalls), the pipe fills (64 kB on Linux) and the next warning blocks the whole loop. stdout is guarded
(``p2php.piped_output``), stderr is not, and an outsider writes warnings at will: each connection to a seat's
listener whose handshake fails logs one ("seat 0: connection from … dropped: …", ``p2php.net.mesh``).

Two seats play the toy game, each in a loop (thread) of its own; this process's stderr is a pipe nobody reads
(until the end); an outsider opens connections to seat 0's listener during play and sends 8 bytes of junk on each.

    PYTHONPATH=tests .venv/bin/python tests/chaos_repro/repro_stderr_unread.py [guarded]

``guarded``: stderr behind ``p2php.piped_output.unblock_stderr`` first (as ``p2php``'s main does since).
"""

from __future__ import annotations

import io
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.net.mesh import listen
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer, slowed


def main(guarded: bool) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from repro_save_in_loop import Ticker, _free_port

    out = sys.__stdout__
    assert out is not None
    r, w = os.pipe()
    sys.stderr = io.TextIOWrapper(os.fdopen(w, "wb", buffering=0), line_buffering=True)  # nobody reads r (yet)
    if guarded:
        from p2php.piped_output import unblock_stderr

        unblock_stderr()
    addresses = {s: ("127.0.0.1", _free_port()) for s in range(2)}
    verdicts: dict[int, Any] = {}
    ticker = Ticker(0.02)
    stop = threading.Event()
    t0 = time.perf_counter()

    async def seat_task(seat: int) -> None:
        listener = await listen("127.0.0.1", addresses[seat][1])
        cfg = PeerConfig("toy", {}, 2, seat, f"p{seat}", timeout=2.0, resume_timeout=5.0,
                         secrets=seeded_secrets(7, seat), linger=0.5)
        async with trio.open_nursery() as nursery:
            if seat == 0:
                nursery.start_soon(ticker.run)
            result = await run_peer(cfg, addresses, listener, slowed(bot_decider(RandomBot(seat)), 0.5))
            nursery.cancel_scope.cancel()
        v = result.lockstep.verdict
        verdicts[seat] = v
        print(f"{time.perf_counter() - t0:6.2f}s seat {seat}: {None if v is None else (v.code, v.culprit, v.reason)}",
              file=out, flush=True)
        await listener.aclose()

    def outsider() -> None:
        time.sleep(1.0)  # the mesh formed, the game runs
        n = 0
        while not stop.is_set() and n < 3000:
            try:
                with socket.create_connection(addresses[0], timeout=1.0) as s:
                    s.sendall(b"\xff" * 8)
                    s.settimeout(1.0)
                    s.recv(1)
            except OSError:
                pass
            n += 1
        print(f"{time.perf_counter() - t0:6.2f}s outsider: {n} connections", file=out, flush=True)

    def drain_later() -> None:  # the reader comes back after 40 s (else a blocked seat would block for ever)
        time.sleep(40)
        while os.read(r, 65536):
            pass

    threading.Thread(target=drain_later, daemon=True).start()
    threads = [threading.Thread(target=trio.run, args=(seat_task, s)) for s in range(2)]
    threads.append(threading.Thread(target=outsider))
    for thread in threads:
        thread.start()
    threads[1].join()
    stop.set()
    threads[0].join()
    threads[2].join()
    print(f"seat 0's loop's largest gap: {ticker.largest * 1000:.0f} ms", file=out, flush=True)
    clean = all(v is not None and v.clean for v in verdicts.values())
    print("every seat clean" if clean else "NOT CLEAN", file=out, flush=True)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import toygame  # noqa: F401  (registers "toy")

    os._exit(main(len(sys.argv) > 1 and sys.argv[1] == "guarded"))
