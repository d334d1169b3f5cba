"""Standard output that a slow reader, or one gone quiet, cannot stall a seat through.

A command-line seat prints from its event loop. Where its stdout is a pipe or a file (a program that runs
``p2php`` and reads what it prints, a script, ``| tee``), a reader that stops reading fills the pipe (64 kB on
Linux) and the next line blocks the whole loop: no heartbeats, no answers, and after ``resume_timeout`` the other
seats end the game naming this one unreachable. The bridge writes its events from a task of their own for the same
reason (:mod:`p2php.bridge.stdio`). :class:`PipedOutput` hands each write to a thread that writes them in order;
what waits for that thread is bounded (:data:`HELD` characters): past it, whole lines are left out and counted, and
one line says how many once the reader has caught up. A terminal is written directly, as before: its prompts and its
progress line, redrawn in place, must reach the person the moment they are drawn.
"""

from __future__ import annotations

import contextlib
import errno
import io
import sys
import threading
from collections import deque
from collections.abc import Iterator
from typing import Any, TextIO

try:
    import termios
except ImportError:  # (not on Windows)
    termios = None  # type: ignore[assignment]

__all__ = ["ERR_DRAIN", "HELD", "PIECE", "PipedOutput", "flow_control_off", "unblock_stderr", "unblock_stdout"]

HELD = 8 * 1024 * 1024
"""Characters that may wait for a reader before whole lines are left out (a whole game prints well under 1 MB)."""

ERR_DRAIN = 10.0
"""Seconds a command's end waits for its stderr's reader to take more of what is left (:meth:`PipedOutput.drain`):
a reader that never reads (an app that reads a seat's stdout only) held the process at its end for good (red-team
rt8-disk). One that reads on, however slowly, is waited for (a bound on the whole wait left out the last lines of a
live 20 KB/s reader: 749 warnings and the command's own error line; review rv8-disk). What a reader has not taken
once it took nothing for that long is left out (nothing more can be said on that stream)."""

PIECE = 16 * 1024
"""Characters handed to the reader at a time (a batch may be megabytes): what :meth:`PipedOutput.drain` sees it take."""


class PipedOutput(io.TextIOBase):
    """A text stream whose writes never wait for ``raw``'s reader (see the module's docstring)."""

    def __init__(self, raw: TextIO, held: int = HELD) -> None:
        super().__init__()
        self._raw = raw
        self._limit = held
        self._changed = threading.Condition()
        self._waiting: deque[str] = deque()
        self._held = 0  # characters queued and not yet written (the batch the thread is writing too)
        self._writing = False  # the thread holds a batch it took from _waiting
        self._skipping = False  # leaving out the rest of a line, or lines, until the reader catches up
        self._left_out = 0  # whole lines left out since the reader last caught up
        self._mid_line = False  # the last text left out did not end its line (resume at a line's start only)
        self._open_line = False  # the last text queued did not end its line (it is ended before lines are left out)
        self._read_on = False  # the reader took a batch since lines began to be left out (so it is reading again)
        self._taken = 0  # pieces the reader took (:meth:`drain` waits on while it takes them)
        self._broken: OSError | None = None
        self._failed: OSError | None = None  # the file under it failed (a full disk, EIO): output dropped from then
        self._thread = threading.Thread(target=self._run, name="p2php stdout", daemon=True)
        self._thread.start()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._raw, "encoding", "utf-8"))

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        written = len(text)
        with self._changed:
            if self._broken is not None:
                raise BrokenPipeError(*self._broken.args)
            if not text or self._failed is not None:
                return written
            if self._skipping and self._read_on and not self._mid_line and self._held < self._limit // 2:  # caught up
                self._skipping = False
                self._queue(self._notice())
            if not self._skipping:
                if self._held + len(text) <= self._limit:
                    self._queue(text)
                    return written
                if self._open_line and self._held < 2 * self._limit:  # end the line begun (print writes its "\n" apart)
                    head, newline, text = text.partition("\n")
                    self._queue(head + newline)
                    if not text:
                        return written
                self._skipping = True
                self._read_on = False
            self._left_out += text.count("\n")
            self._mid_line = not text.endswith("\n")
        return written

    def _notice(self) -> str:
        left, self._left_out = self._left_out, 0
        return f"[p2php: {left} lines left out here: nothing read this output for a while]\n"

    def _queue(self, text: str) -> None:
        self._open_line = not text.endswith("\n")
        self._waiting.append(text)
        self._held += len(text)
        self._changed.notify_all()

    def flush(self) -> None:
        """Nothing to do: the thread flushes after every batch (:meth:`drain` waits for it)."""

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until everything written so far has reached ``raw`` (or failed to); False once ``raw``'s reader took
        nothing for ``timeout`` seconds (a reader that reads on is waited for).

        Lines still being left out are said first (the output ends here: the reader has all the time it needs)."""
        with self._changed:
            if self._skipping and self._broken is None:
                self._skipping = False
                self._queue(("\n" if self._open_line else "") + self._notice())

            taken = [self._taken]  # (what the reader had taken when this wait began)

            def done() -> bool:
                return ((not self._waiting and not self._writing) or self._broken is not None
                        or self._failed is not None)

            def done_or_read() -> bool:
                return done() or self._taken != taken[0]

            while True:
                taken[0] = self._taken
                if not self._changed.wait_for(done_or_read, timeout):
                    return False
                if done():
                    return True

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._waiting))
                batch = "".join(self._waiting)
                self._waiting.clear()
                self._writing = True
            try:
                for start in range(0, len(batch), PIECE):  # (a piece at a time: drain sees the reader read on)
                    self._write(batch[start:start + PIECE])
                    with self._changed:
                        self._taken += 1
                        self._changed.notify_all()
            except (OSError, ValueError) as exc:  # the reader is gone (or the stream closed): stop for good
                with self._changed:
                    if isinstance(exc, OSError) and exc.errno not in _READER_GONE:
                        # A file on a full or failing disk: the output is dropped, the seat plays on. As a broken
                        # pipe, its next line ended the seat at once, exit 0 and not a word, and the other seats
                        # ended the game without it (red-team rt8-red2: ``p2php peer … > game.log``, ENOSPC)
                        self._failed = exc
                        self._waiting.clear()
                        self._held = 0
                    else:
                        self._broken = exc if isinstance(exc, OSError) else BrokenPipeError(str(exc))
                    self._writing = False
                    self._changed.notify_all()
                return
            with self._changed:
                self._held -= len(batch)
                self._writing = False
                self._read_on = True
                self._changed.notify_all()

    def _write(self, batch: str) -> None:
        try:
            self._raw.write(batch)
        except UnicodeEncodeError:  # a character the reader's encoding lacks: a "?", not a lost batch
            self._raw.write(batch.encode(self.encoding, "replace").decode(self.encoding))
        self._raw.flush()


_READER_GONE = frozenset({errno.EPIPE, errno.ECONNRESET, errno.ESHUTDOWN, None})
"""Errors of a write that say the reader went away (a broken pipe, a closed socket): not a disk's."""


def unblock_stdout() -> PipedOutput | None:
    """Put a :class:`PipedOutput` in front of ``sys.stdout`` unless it is a terminal; returns it (None: a terminal,
    or already done). Call :meth:`PipedOutput.drain` before the process ends."""
    if not _pipe_or_file(sys.stdout):
        return None
    sys.stdout = PipedOutput(sys.stdout)
    return sys.stdout


def unblock_stderr() -> PipedOutput | None:
    """:func:`unblock_stdout` for ``sys.stderr``: a seat's warnings are written from its loop too, and an outsider
    writes them at will (one per connection to the seat's listener whose handshake fails). With stderr a pipe its
    reader did not drain, 533 such connections filled it and the next warning held the seat's loop 38.9 s: the other
    seat named the honest seat ``silent`` (red-team rt7-loopio, ``tests/chaos_repro/repro_stderr_unread.py``)."""
    if not _pipe_or_file(sys.stderr):
        return None
    sys.stderr = PipedOutput(sys.stderr)
    return sys.stderr


def _pipe_or_file(stream: TextIO | None) -> bool:
    """Whether ``stream`` is one to put a :class:`PipedOutput` in front of: not a terminal, not one already, and
    there at all -- closed at the start (``2>&-``) or under ``pythonw``, Python's is None, and asking it
    ``isatty()`` killed every seat command at once, its traceback nowhere (review rv7-loopio)."""
    if stream is None or isinstance(stream, PipedOutput):
        return False
    try:
        return not stream.isatty()
    except (ValueError, OSError):  # (a stream closed under us: left as it is)
        return False


@contextlib.contextmanager
def flow_control_off(stream: TextIO) -> Iterator[None]:
    """While a seat plays in a terminal, turn off the terminal's output flow control (``IXON``), as full-screen
    programs do. With it on, Ctrl-S (XOFF) — a save key in some editors, pressed by habit — stops the terminal
    taking output: the seat's next line blocked its whole event loop, and the others named it silent. Ctrl-S and
    Ctrl-Q then reach the program as the characters they are. The terminal's settings come back on the way out.
    Anything but a terminal (or a system without ``termios``) is left as it is."""
    before = _terminal_settings(stream)
    if termios is None or before is None or not before[0] & termios.IXON:
        yield
        return
    fd = stream.fileno()
    after = list(before)
    after[0] &= ~termios.IXON
    termios.tcsetattr(fd, termios.TCSANOW, after)  # (clearing IXON also restarts output stopped by an XOFF)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)


def _terminal_settings(stream: TextIO) -> list[Any] | None:
    """``stream``'s terminal settings (``termios.tcgetattr``), or None where it is no terminal."""
    if termios is None:
        return None
    try:
        return termios.tcgetattr(stream.fileno()) if stream.isatty() else None
    except (termios.error, OSError, ValueError, io.UnsupportedOperation):
        return None
