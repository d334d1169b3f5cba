"""rv7b-disk: a resume log whose write() hangs (or is throttled) leaks one trio worker thread per message of ours,
each holding a token of trio's default thread limiter (40): after 40 messages every to_thread.run_sync of the whole
loop waits for good -- the bridge's stdin reader, another table's log, a transcript's save (which then never starts,
and p2php's main waits for it for good in wait_for_saves)."""
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, "tests")
import toygame  # noqa
import trio
from p2php.session import resume, transcript
from p2php.session.memory import make_peers
from p2php.session.runner import PeerConfig

hang = threading.Event()
real = resume.ResumeLog._write_queue

def write_queue(self):
    if self._queue and getattr(self, "hung", False):
        hang.wait()  # this log's disk: the write() never returns
    real(self)

resume.ResumeLog._write_queue = write_queue

async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    ls = make_peers("toy", 2, seed=1)[0]
    w = resume.ResumeWriter(PeerConfig("toy", {}, 2, 0, "p0", timeout=2.0, resume_path=tmp / "s.resume"), ls,
                            {0: ("127.0.0.1", 1), 1: ("127.0.0.1", 2)})
    w.write_now()
    w.file.hung = True
    async with trio.open_nursery() as n:
        n.start_soon(w.run)
        for i in range(45):
            w.append({"local": "x", "n": i})
            await w.sync(0.01)
        print("threads alive:", threading.active_count())
        with trio.move_on_after(3) as s:
            await trio.to_thread.run_sync(lambda: None)  # e.g. the bridge's next stdin line
        print("another to_thread.run_sync (the bridge's stdin read):", "STARVED 3 s" if s.cancelled_caught else "ran")
        try:
            await transcript.save_async(ls, tmp / "game.transcript", within=2)  # a healthy disk
            print("transcript saved")
        except OSError as err:
            print("save_async:", err)
        print("transcript exists:", (tmp / "game.transcript").exists())
        n.cancel_scope.cancel()
    hang.set()  # the hung disk comes back
    time.sleep(1)
    waiter = threading.Thread(target=transcript.wait_for_saves, daemon=True)
    waiter.start()
    waiter.join(5)
    print("wait_for_saves (p2php main's exit), disk back, 5 s later:",
          "STILL WAITING" if waiter.is_alive() else "returned")

trio.run(main)
