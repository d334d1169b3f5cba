"""A resume log whose write() hangs (a hung disk): each late sync of ours starts a new write thread, blocked."""
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, "tests")
import toygame  # noqa
import trio
from p2php.session import resume
from p2php.session.memory import make_peers
from p2php.session.runner import PeerConfig

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
hang = threading.Event()
real = resume.ResumeLog._write_queue

def write_queue(self):
    if self._queue and getattr(self, "hung", False):
        hang.wait()  # the write() never returns
    real(self)

resume.ResumeLog._write_queue = write_queue

async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    ls = make_peers("toy", 2, seed=1)[0]
    w = resume.ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", timeout=2.0, resume_path=tmp / "s.resume"), ls,
                            {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)})
    w.write_now()
    w.file.hung = True
    before = threading.active_count()
    t0 = time.monotonic()
    async with trio.open_nursery() as n:
        n.start_soon(w.run)
        for i in range(N):
            w.append({"local": "x", "n": i})
            await w.sync(0.005)
        print(f"{N} messages in {time.monotonic() - t0:.1f} s; threads before {before}, after "
              f"{threading.active_count()} (+{threading.active_count() - before})")
        n.cancel_scope.cancel()
    hang.set()

trio.run(main)
