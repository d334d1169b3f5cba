"""A whole game of real ``p2php peer`` processes, one seat on a disk whose every ``fsync`` takes ``--fsync`` seconds
(and every write of its log's records ``--write``): chaos soak seeds 304 (``--extra slowdisk,slowwrite``: HP Sha 4
seats, verified deck, seat 2's fsync 2 s) and 311 (seat 1's writes 3 s), which ran past the soak's 240 / 360 s bound
with every seat still playing in step, nobody named.

No proxies, no kills: only the slow disk. The slow seat counts, and prints at its end, its own messages, its log's
``sync`` waits (how long each held a message, how many ran out), its ``fsync``s (how many, how long, how many records
each made durable), so where the game's time went is numbers.

    .venv/bin/python tests/chaos_repro/repro_slow_fsync_game.py [--fsync 2.0] [--write 0] [--seat 2] [--seed 304]
        [--bound 600]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _instrument(stats_path: str) -> None:
    """(In the slow seat's process.) Slow ``os.fsync`` by ``P2PHP_CHAOS_FSYNC_SLEEP``; time every sync wait and
    fsync; write them to ``stats_path`` at exit."""
    import atexit
    import threading

    import trio

    from p2php.session import resume

    sleep = float(os.environ.get("P2PHP_CHAOS_FSYNC_SLEEP", "0") or 0)
    t0 = time.monotonic()
    fsyncs: list[tuple[float, float, int]] = []  # (start, seconds, records made durable by it)
    syncs: list[tuple[float, float, bool]] = []  # (start, seconds the message waited, done in time)
    written = {"n": 0}  # records handed to the system so far
    durable = {"n": 0}
    lock = threading.Lock()
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        start = time.monotonic()
        with lock:
            covers = written["n"]
        time.sleep(sleep)
        real_fsync(fd)
        with lock:
            fsyncs.append((round(start - t0, 3), round(time.monotonic() - start, 3), covers - durable["n"]))
            durable["n"] = max(durable["n"], covers)

    os.fsync = slow_fsync
    real_write_queue = resume.ResumeLog._write_queue

    write_sleep = float(os.environ.get("P2PHP_CHAOS_WRITE_SLEEP", "0") or 0)

    def write_queue(self: resume.ResumeLog) -> None:
        with self._queue_lock:
            n = len(self._queue)
        if n and write_sleep:
            time.sleep(write_sleep)  # a disk that throttles its writers (chaos_slowdisk.py)
        real_write_queue(self)
        with lock:
            written["n"] += n

    resume.ResumeLog._write_queue = write_queue  # type: ignore[method-assign]
    real_sync = resume.ResumeWriter.sync

    async def sync(self: resume.ResumeWriter, within: float) -> bool:
        start = trio.current_time()
        ok = await real_sync(self, within)
        syncs.append((round(time.monotonic() - t0, 3), round(trio.current_time() - start, 3), ok))
        return ok

    resume.ResumeWriter.sync = sync  # type: ignore[method-assign]

    def dump() -> None:
        Path(stats_path).write_text(json.dumps({"fsyncs": fsyncs, "syncs": syncs, "seconds": time.monotonic() - t0}))

    atexit.register(dump)


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fsync", type=float, default=2.0, help="seconds every fsync of the slow seat sleeps")
    ap.add_argument("--write", type=float, default=0.0, help="seconds every write of its log's records sleeps")
    ap.add_argument("--seat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=304)
    ap.add_argument("--game", default="hpsha")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--crypto", default="verified")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--bound", type=float, default=600.0)
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="p2php-slowfsync-"))
    work.mkdir(parents=True, exist_ok=True)
    ports = _free_ports(args.players)
    addrs = ",".join(f"127.0.0.1:{p}" for p in ports)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = []
    stats = work / "stats.json"
    start = time.monotonic()
    for s in range(args.players):
        argv = ["peer", args.game, "--seat", str(s), "--addresses", addrs, "--seed", str(args.seed),
                "--option", f"crypto={args.crypto}", "--timeout", str(args.timeout), "--resume-timeout", "20",
                "--resume-log", str(work / f"seat{s}.resume"), "--transcript", str(work / f"seat{s}.p2php")]
        if s == args.seat:
            code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
                    f"import repro_slow_fsync_game as r; r._instrument({str(stats)!r}); "
                    "from p2php.cli import main; sys.exit(main(sys.argv[1:]))")
            cmd = [sys.executable, "-c", code, *argv]
            penv = {**env, "P2PHP_CHAOS_FSYNC_SLEEP": str(args.fsync), "P2PHP_CHAOS_WRITE_SLEEP": str(args.write)}
        else:
            cmd, penv = [sys.executable, "-m", "p2php.cli", *argv], env
        out = open(work / f"seat{s}.out", "wb")  # noqa: SIM115
        procs.append(subprocess.Popen(cmd, stdout=out, stderr=out, cwd=ROOT, env=penv))
    ended: dict[int, float] = {}
    while len(ended) < len(procs) and time.monotonic() - start < args.bound:
        for s, p in enumerate(procs):
            if s not in ended and p.poll() is not None:
                ended[s] = round(time.monotonic() - start, 1)
        time.sleep(0.2)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)  # (a Ctrl-C: the slow seat still writes its stats)
    for p in procs:
        p.wait()
    from p2php.session.resume import read

    _, records = read(work / f"seat{args.seat}.resume")
    own = sum(r.get("from") == args.seat for r in records)
    verdicts = []
    for s in range(args.players):
        lines = [ln for ln in (work / f"seat{s}.out").read_text(errors="replace").splitlines()
                 if ln.startswith("audit: ")]
        verdicts.append(lines[-1] if lines else "(none)")
    print(f"game {args.game}/{args.crypto} seed {args.seed}, seat {args.seat} fsync {args.fsync} s, write {args.write} "
          f"s, timeout {args.timeout}: seats ended at {ended} s (bound {args.bound:.0f}); {len(records)} records, "
          f"{own} own")
    print("verdicts:", verdicts)
    if stats.exists():
        st = json.loads(stats.read_text())
        syncs, fsyncs = st["syncs"], st["fsyncs"]
        waited = sum(w for _, w, _ in syncs)
        late = sum(not ok for _, _, ok in syncs)
        print(f"sync waits: {len(syncs)} (late {late}), {waited:.1f} s held in all, "
              f"mean {waited / max(1, len(syncs)):.3f} s, max {max((w for _, w, _ in syncs), default=0):.3f} s")
        covers = [c for _, _, c in fsyncs]
        print(f"fsyncs: {len(fsyncs)}, {sum(d for _, d, _ in fsyncs):.1f} s in all; records per fsync: mean "
              f"{sum(covers) / max(1, len(covers)):.1f}, max {max(covers, default=0)}")
    else:
        print("(no stats: the slow seat did not exit normally)")
    return 0 if len(ended) == len(procs) else 1


if __name__ == "__main__":
    sys.exit(main())
