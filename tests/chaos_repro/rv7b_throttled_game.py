"""rv7b-disk: two honest bot seats of UNO over loopback in one trio loop (an app hosting tables); seat 0's resume-log
disk throttles its writers (every write() of queued records takes 3 s; timeout 2 -- the rt6-faults / 41bf2ab model).
Samples trio's default thread limiter (40 tokens, the whole loop's) and the latency of an unrelated
to_thread.run_sync (what the bridge's stdin reader, a transcript save, resume_peer's restore do), for 60 s."""
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())  # (run from a tree: its p2php)
import trio

from p2php.bots import RandomBot
from p2php.net.mesh import listen, listener_port
from p2php.session import resume
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, bot_decider, run_peer

real = resume.ResumeLog._write_queue
SLEPT = []

def write_queue(self):
    try:
        target = os.readlink(f"/proc/self/fd/{self._file.fileno()}")
    except (OSError, ValueError, AttributeError):
        target = ""
    if self._queue and target.endswith("seat0.resume"):
        SLEPT.append(1)
        time.sleep(3.0)
    real(self)

resume.ResumeLog._write_queue = write_queue
SYNCS = [0]
_real_sync = resume.ResumeWriter.sync

async def counted_sync(self, within):
    if self.path.name == "seat0.resume":
        SYNCS[0] += 1
    return await _real_sync(self, within)

resume.ResumeWriter.sync = counted_sync

async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    results = {}
    peak = [0, 0]
    worst = [0.0]

    async def one(seat):
        cfg = PeerConfig("uno", {}, 2, seat, f"p{seat}", timeout=2.0, resume_timeout=10.0,
                         secrets=seeded_secrets(7, seat), resume_path=tmp / f"seat{seat}.resume", linger=1.0)
        results[seat] = await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))

    async def sample():
        lim = trio.to_thread.current_default_thread_limiter()
        while True:
            peak[0] = max(peak[0], lim.borrowed_tokens)
            peak[1] = max(peak[1], threading.active_count())
            began = time.monotonic()
            with trio.move_on_after(10):
                await trio.to_thread.run_sync(lambda: None)
            worst[0] = max(worst[0], time.monotonic() - began)
            await trio.sleep(0.2)

    t0 = time.monotonic()
    async with trio.open_nursery() as n:
        n.start_soon(sample)
        with trio.move_on_after(60):
            async with trio.open_nursery() as game:
                for s in range(2):
                    game.start_soon(one, s)
        n.cancel_scope.cancel()
    print(f"after {time.monotonic() - t0:.0f} s: peak default-limiter tokens {peak[0]}/40, peak threads {peak[1]}, "
          f"worst latency of an unrelated to_thread call {worst[0]:.1f} s (10 s = starved, gave up)")
    print(f"seat 0 messages (syncs): {SYNCS[0]}, slow writes {len(SLEPT)}")
    for s, r in sorted(results.items()):
        v = r.lockstep.verdict
        print(f"seat {s}: verdict {v}")

trio.run(main)
