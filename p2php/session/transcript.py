"""Saved transcripts and their independent verification (``p2php verify``).

A transcript is one peer's record of a game: every hello and every signed
message in the order that peer processed them, plus its verdict.  Verifying
needs no secret: a spectator :class:`~p2php.session.lockstep.Lockstep` re-checks
every signature and chain, replays the engine through every step, and, when the
audit secrets are in the transcript, runs the whole audit again.

A transcript file may come from anyone, so reading it is as defensive as reading
the network: the file is bounded (:data:`MAX_FILE`), every hello and message is
decoded by the very rules a frame is (:func:`p2php.net.framing.decode_frame_body`:
at most :data:`~p2php.net.framing.MAX_DEPTH` levels of nesting, ``str`` map keys,
at most :data:`~p2php.net.framing.MAX_FRAME` bytes), and anything else is a
:class:`TranscriptError` with a one-line reason.  Then every message must verify
on its own (shape, its author's signature, its place in its author's chain) —
a single one that does not, wherever it is in the file, refuses the file — and
the replay must process every message and reach the verdict the file records.
Each fault is reported as ``message N (seat S, KIND at T.P): reason``, where
``N`` counts the file's messages from 0 and ``S`` is the seat that signed it.
"""

from __future__ import annotations

import errno
import io
import os
import re
import threading
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import msgpack
import trio

from p2php.canonical import NotCanonical, encode
from p2php.engine.contract import Game, OptionError
from p2php.engine.registry import get_game
from p2php.errors import P2phpError
from p2php.net.framing import (
    MAX_FRAME,
    MAX_VALUES,
    VALUE_BYTES,
    FrameError,
    TooManyValues,
    decode_checked,
    decode_counted,
)
from p2php.session import witness
from p2php.session.durable import path_key, replace_durably
from p2php.session.handshake import HandshakeRefused, Table, check_hello
from p2php.session.lockstep import MAX_REFUSED_KEPT, RECORD_VALUES, Lockstep, record_values, signed_shape_fault
from p2php.session.messages import BadMessage, Message, parse_message
from p2php.session.modes import crypto_mode, parse_table_options
from p2php.session.records import TIMING_CODES, Fault
from p2php.threads import in_thread, loop_limiter

FORMAT = "p2php-transcript"
VERSION = 1

MAX_FILE = 256 * 1024 * 1024
"""Largest transcript (or resume log) accepted, in bytes."""

MIN_ENTRY = 128
"""Fewest bytes of a hello or a message (a 64-byte signature and 32-byte keys or hashes): a longer list of them
than the file can hold is refused before any is decoded."""

MAX_REPORTED = 20
"""Faulty messages listed one by one before the rest are only counted."""

_LINE = 400  # longest line of a report (remote text is quoted, never at length)
_CHUNK = 1 << 20  # bytes read at a time from a file of no size (a pipe)


class TranscriptError(P2phpError, ValueError):
    """A file that is not a readable p2php transcript."""


def to_data(ls: Lockstep) -> dict[str, Any]:
    return _Taken(ls).data()


class _Taken:
    """What :func:`to_data` gives, taken now (as it is now); its messages (immutable) made wire forms, and the whole
    packed, later, in any thread: :func:`save_async`'s worker (red-team rt8-disk: a long game's 28 980 messages made
    wire forms and packed in the loop held it 414 ms)."""

    def __init__(self, ls: Lockstep) -> None:
        verdict = ls.verdict
        self.head = {
            "format": FORMAT,
            "version": VERSION,
            "seat": -1 if ls.seat is None else ls.seat,
            "game": ls.table.game,
            "options": ls.table.options,
            "hellos": list(ls.table.hellos),
        }
        self.messages = list(ls.transcript)
        self.tail = {
            "equivocations": _equivocation_proofs(ls),
            "refused": list(ls.refused),
            "verdict": None if verdict is None else {
                "clean": verdict.clean,
                "culprit": -1 if verdict.culprit is None else verdict.culprit,
                "reason": verdict.reason,
                "code": verdict.code,
                "seats": list(verdict.seats),
                "state_hash": verdict.state_hash,
            },
        }

    def data(self) -> dict[str, Any]:
        return {**self.head, "messages": [m.to_wire() for m in self.messages], **self.tail}  # (in this key order)

    def packed(self) -> bytes:
        """``msgpack.packb(self.data(), use_bin_type=True)``, byte for byte, a message at a time: one ``packb`` of
        the whole held the GIL, and so the loop, for all of it (108 ms for 28 980 messages)."""
        packer = msgpack.Packer(use_bin_type=True)
        parts = [packer.pack_map_header(len(self.head) + 1 + len(self.tail))]
        for key, value in self.head.items():
            parts += [packer.pack(key), packer.pack(value)]
        parts += [packer.pack("messages"), packer.pack_array_header(len(self.messages))]
        parts += [packer.pack(m.to_wire()) for m in self.messages]
        for key, value in self.tail.items():
            parts += [packer.pack(key), packer.pack(value)]
        return b"".join(parts)


MAX_EQUIVOCATIONS = 256
"""Signed copies of the ``equivocations`` field a verifier reads (an honest record holds two a proven equivocation)."""


def _equivocation_proofs(ls: Lockstep) -> list[dict[str, Any]]:
    """Both signed versions of every message we hold two of (§9.4): the proof of an equivocation, which the
    ``messages`` list, holding only the version processed, cannot carry (before, a seat that named an equivocator
    left a record whose replay named nobody; red-team rt6-verify)."""
    out: list[dict[str, Any]] = []
    total = 0
    for (seat, seq), wires in sorted(ls.equivocations.items()):
        group: list[dict[str, Any]] = []
        for wire in [m.to_wire() for m in ls._held(seat, seq)] + list(wires):
            if wire not in out and wire not in group:
                group.append(wire)
        # Only what a reader can afford (rv6-verify: a version packed with one-byte values, or many versions
        # together over MAX_VALUES, made the whole record unreadable); a proof is a pair, kept whole or not at all.
        counts = [record_values(encode(wire)) for wire in group]
        if (len(out) + len(group) > MAX_EQUIVOCATIONS or None in counts
                or total + sum(c or 0 for c in counts) > RECORD_VALUES):
            continue
        total += sum(c or 0 for c in counts)
        out += group
    return out


def save(ls: Lockstep, path: str | Path) -> Path:
    """Write ``ls``'s transcript to the file ``path``. A path that cannot name a file (``.``, ``/``, a directory)
    is an :class:`OSError`, as any other unwritable path is, so callers that say so in one line and keep the
    result do the same here (before, ``--transcript .`` raised ValueError after the game: a traceback, no
    verdict shown, the record lost)."""
    path = Path(path)
    _write(path, msgpack.packb(to_data(ls), use_bin_type=True))
    return path


_WRITING: dict[Path, threading.Lock] = {}  # a lock per file saved to (path_key: any spelling): its saves in turn
_WRITING_GUARD = threading.Lock()
_RUNNING: dict[threading.Event, Path] = {}  # saves of save_async not done yet, and their paths (under _WRITING_GUARD)


def _write(path: Path, data: bytes) -> None:
    if path.name in ("", ".", "..") or path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a directory, not a file", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    with _WRITING_GUARD:
        lock = _WRITING.setdefault(path_key(path), threading.Lock())
    # One save of a path at a time: a save past its wait runs on (:func:`save_async`), and the next one of that path
    # wrote the same ``path.tmp`` -- the late write landed in the file the next had renamed into place and said
    # "saved" of, which then did not load (review rv7-loopio). The last save asked for is the last one written.
    with lock:
        # Whole or not at all, and on the disk once saved: the file fsynced before its rename, the rename by an
        # fsync of its directory (before, a power cut soon after could leave no transcript, or an empty one).
        replace_durably(path, data)


SAVE_WAIT = 60.0
"""Seconds :func:`save_async` waits for a slow disk to write and ``fsync`` a transcript before it gives up waiting."""

CANCEL_SAVE_WAIT = 5.0
"""Seconds a cancelled :func:`save_async` still waits for it, shielded (its process may end at once after)."""

SAVE_THREADS = 8
"""Worker threads :func:`save_async` uses at most at once, in one trio loop: a thread left writing on a disk that
hangs keeps its place, and saves past that many are refused (their wait ends before they begin), not one thread more
each."""


async def save_async(ls: Lockstep, path: str | Path, within: float = SAVE_WAIT) -> Path:
    """:func:`save` for a caller in a trio loop: the record is taken here (as it is now), and packed, written,
    ``fsync``ed and renamed into place (its folder ``fsync``ed) in a worker thread, so neither a long record nor a slow
    disk holds the loop (red-team rt7-loopio: 2 x 3 s fsyncs held it 6.0 s, and another table played in that loop had
    its honest seat named ``silent``; rt8-disk: a 28 980-message record's packing, 414 ms). Returns once the file is on
    the disk, or raises its :class:`OSError`; a disk that has not finished within ``within`` seconds is a
    :class:`TimeoutError` (an OSError; the write runs on, and may still put the whole file in place). Cancelled, it
    waits for the write at most :data:`CANCEL_SAVE_WAIT` more, shielded (the process may end at once after, its worker
    threads with it), then lets the cancel through."""
    path = Path(path)
    taken = _Taken(ls)  # (as it is now; packed by the worker)
    done = threading.Event()
    failed: list[BaseException] = []
    state: list[str] = []  # "began" (its thread) or "dropped" (its wait ended first), whichever came first
    with _WRITING_GUARD:
        _RUNNING[done] = path

    def work() -> None:
        with _WRITING_GUARD:
            if state:  # its wait ended before this thread began: never waited for, so never written
                return
            state.append("began")
        try:
            _write(path, taken.packed())
        except BaseException as err:
            failed.append(err)
        finally:
            with _WRITING_GUARD:
                _RUNNING.pop(done, None)
            done.set()

    def never_began() -> bool:
        """Whether the thread has not begun (and now never writes); then the exit's wait no longer waits for it."""
        with _WRITING_GUARD:
            if state:
                return False
            state.append("dropped")
            _RUNNING.pop(done, None)
            return True

    try:
        # Under a limiter of its own: trio's default one (40 threads, the whole loop's) may be spent by others, and
        # the wait ended while the save waited for a token -- a write that never began, said to run on, and waited
        # for for good by ``wait_for_saves`` at the process's end (review rv7b-disk).
        with trio.move_on_after(within):
            await in_thread(work, limiter=loop_limiter("saves", SAVE_THREADS))  # (the loop's own pool)
    except BaseException:  # (a Ctrl-C too: trio raises it in the main task as a KeyboardInterrupt, no Cancelled)
        if never_began():  # (cancelled before its thread began: it never writes)
            raise
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(done.wait, CANCEL_SAVE_WAIT,  # (bounded by its own timeout, and
                                          limiter=trio.CapacityLimiter(1))  # never by a spent default limiter)
        raise
    if failed:
        raise failed[0]
    if not done.is_set() and never_began():
        raise TimeoutError(errno.ETIMEDOUT, f"the disk's worker did not begin writing it within {within:.0f} s",
                           str(path))
    if not done.is_set():
        raise TimeoutError(errno.ETIMEDOUT, f"the disk did not finish writing it within {within:.0f} s (the write "
                           "runs on)", str(path))
    return path


def wait_for_saves(within: float | None = None) -> list[Path]:
    """Wait until every :func:`save_async` still running is done, at most ``within`` seconds (:data:`SAVE_WAIT`)
    in all: a process about to end calls it (``p2php``'s ``main``). A save past its wait runs on in a worker thread,
    which the process's end kills: a command-line seat's end-of-game save on a disk slower than :data:`SAVE_WAIT`
    left no transcript, a stray ``.tmp`` (review rv7-loopio, ``tests/chaos_repro/rv7_cli_save_timeout.py``). Bounded:
    on a disk that hangs, the process never ended (review rv7b-disk). A Ctrl-C ends the wait (short waits: on
    Windows a wait with no timeout takes no Ctrl-C). Returns the paths of the saves still running."""
    deadline = time.monotonic() + (SAVE_WAIT if within is None else within)
    while True:
        with _WRITING_GUARD:
            running = next(iter(_RUNNING), None)
            if running is None:
                return []
            if time.monotonic() >= deadline:
                return sorted(set(_RUNNING.values()))
        running.wait(max(0.0, min(0.5, deadline - time.monotonic())))


# ----------------------------------------------------------------------------- reading hostile files


def one_line(text: object, limit: int = _LINE) -> str:
    """``text`` on one printable line: control characters and terminal escapes escaped, at most ``limit`` chars."""
    s = str(text)
    if len(s) > 4 * limit:
        s = s[: 4 * limit]
    out = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in s)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def read_bounded(path: str | Path, error: Callable[[str], Exception], what: str) -> bytes:
    """The bytes of ``path``, refusing (with ``error``) a file larger than :data:`MAX_FILE`.

    Read for the size the file has, not for :data:`MAX_FILE`: ``read(MAX_FILE + 1)`` reserved 256 MiB of address
    space for every file, a 10 kB one too (a verifier under ``ulimit -v`` failed on it; red-team rt7-reader)."""
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            raw = b""
            if size <= MAX_FILE:  # (a larger one is refused unread)
                raw = file.read(size + 1)
                if len(raw) > size:  # it grew meanwhile (or has no size, a pipe): the rest, up to the limit, a
                    # chunk at a time (one read(MAX_FILE) reserved 256 MiB for a 10 kB pipe too; rv7-reader)
                    chunks, got = [raw], len(raw)
                    while got <= MAX_FILE and (chunk := file.read(min(_CHUNK, MAX_FILE + 1 - got))):
                        chunks.append(chunk)
                        got += len(chunk)
                    if got > MAX_FILE:
                        size = got  # refused below, never joined
                    else:
                        raw = b"".join(chunks)
    except OSError as err:
        raise error(f"{path}: {one_line(err.strerror or err)}") from None
    if size > MAX_FILE or len(raw) > MAX_FILE:
        raise error(f"{path}: larger than {MAX_FILE // (1024 * 1024)} MiB, too big for a {what}")
    return raw


_MAP_HEADERS = frozenset(range(0x80, 0x90)) | {0xDE, 0xDF}
_ARRAY_HEADERS = frozenset(range(0x90, 0xA0)) | {0xDC, 0xDD}


class Spans:
    """Walks a msgpack byte string one value at a time, building nothing but what it is asked for.

    ``msgpack.Unpacker.skip`` steps over a value without allocating it, so the
    structure of a hostile file is bounded before any object exists; each value
    is then decoded by :func:`decode_frame_body`, the network's own rules.
    """

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        # Values the whole file may hold (one object each when decoded): a genuine record spends 7 bytes or more
        # on each, a file of one-byte values cost 71 bytes of memory per byte read.
        # A seat accepts no message denser than that (lockstep.too_dense, §5.2), so no honest record is refused.
        self.values_left = max(MAX_VALUES, len(raw) // VALUE_BYTES)
        # Read from the bytes themselves, a chunk at a time: its buffer holds the value being walked, not a second
        # copy of the file (``feed(raw)`` copied it whole; rt7-reader).
        self._unpacker = msgpack.Unpacker(io.BytesIO(raw), raw=False, max_buffer_size=max(1, len(raw)),
                                          read_size=min(max(1, len(raw)), 1 << 20))

    @property
    def pos(self) -> int:
        return int(self._unpacker.tell())

    @property
    def done(self) -> bool:
        return self.pos >= len(self.raw)

    def header(self, kind: str) -> int:
        """The item count of the map or array that starts here (``ValueError`` otherwise)."""
        try:
            n = self._unpacker.read_map_header() if kind == "map" else self._unpacker.read_array_header()
        except msgpack.OutOfData:
            raise ValueError("the file is truncated") from None
        except Exception:
            raise ValueError(f"a {kind} was expected at byte {self.pos}") from None
        if n > len(self.raw) - self.pos:
            raise ValueError(f"a {kind} at byte {self.pos} declares {n} items, more than the file can hold")
        return int(n)

    def span(self) -> tuple[int, int]:
        """Skip one value; its ``(start, end)`` in the file (``ValueError`` if it is not one)."""
        start = self.pos
        try:
            self._unpacker.skip()
        except msgpack.OutOfData:
            raise ValueError(f"the file is truncated (a value starting at byte {start} is cut off)") from None
        except msgpack.StackError:
            raise ValueError(f"a value at byte {start} is nested too deeply") from None
        except Exception as err:
            raise ValueError(f"not valid msgpack at byte {start}: {one_line(str(err) or type(err).__name__, 80)}") \
                from None
        return start, self.pos

    def frame(self, limit: int = MAX_FRAME) -> dict[str, Any]:
        """The next value, which must be a map a peer could have sent in one frame."""
        start, end = self.span()
        if self.raw[start] not in _MAP_HEADERS:
            raise ValueError("not a map")
        if end - start > limit:
            raise ValueError(f"{end - start} bytes, over the {limit}-byte frame limit")
        return self._decode(self.raw[start:end])

    def value(self) -> Any:
        """The next value, of any type, checked by the frame rules (nesting, ``str`` keys)."""
        start, end = self.span()
        return self._decode(b"\x81\xa1v" + self.raw[start:end])["v"]  # {"v": value}

    def _decode(self, body: bytes) -> dict[str, Any]:
        budget = min(MAX_VALUES, self.values_left)
        try:
            decoded, values = decode_counted(body, budget)
        except TooManyValues as err:
            if budget < MAX_VALUES:
                raise ValueError("the file holds more values than a record of its size can") from None
            raise ValueError(one_line(err, 160)) from None
        except FrameError as err:
            raise ValueError(one_line(err, 160)) from None
        self.values_left -= values
        return decoded


class Frames(Sequence[dict[str, Any]]):
    """The hellos or messages of a file, kept as the file's bytes and decoded afresh each time one is read.

    Decoded at once, a file at the reader's density limit (a value per 4 bytes, a list of empty maps padded by a
    blob) held 18 bytes of objects for each byte of it, on top of the bytes: 666 MiB for a 32 MiB file, 5.3 GB for
    one of 256 MiB (red-team rt7-reader). The reader still decodes every entry once, by the frame rules, before
    accepting the file (:meth:`Spans.frame`); it keeps only where each one lies.
    """

    __slots__ = ("_raw", "_bounds")

    def __init__(self, raw: bytes, bounds: array[int]) -> None:
        self._raw = raw
        self._bounds = bounds  # entry i is raw[bounds[i]:bounds[i + 1]]

    def __len__(self) -> int:
        return len(self._bounds) - 1

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if not -n <= index < n:
            raise IndexError("entry index out of range")
        index %= n
        return decode_checked(self._raw[self._bounds[index]:self._bounds[index + 1]])  # accepted at load

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Frames):
            return list(self) == list(other)
        return isinstance(other, list | tuple) and len(other) == len(self) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} entries of {self._bounds[-1] - self._bounds[0] if len(self) else 0} bytes>"


_FIELDS = frozenset({"format", "version", "seat", "game", "options", "hellos", "messages", "equivocations",
                     "refused", "verdict"})
"""The top-level fields a transcript has (§9.4): any other is read by the rules, then dropped (each is at most
:data:`~p2php.net.framing.MAX_VALUES` values, but a file may hold many)."""


def _read_structure(raw: bytes) -> dict[str, Any]:
    """The top-level map of a transcript; ``ValueError`` says what breaks the rules."""
    if not raw:
        raise ValueError("the file is empty")
    spans = Spans(raw)
    try:
        n = spans.header("map")
    except ValueError:
        raise ValueError("not a p2php transcript (the file is not a msgpack map)") from None
    data: dict[str, Any] = {}
    for _ in range(n):
        key = spans.value()
        if not isinstance(key, str):
            raise ValueError("a top-level key is not a string")
        if key in ("hellos", "messages") and not spans.done and raw[spans.pos] in _ARRAY_HEADERS:
            count = spans.header("array")
            if count > (len(raw) - spans.pos) // MIN_ENTRY:
                raise ValueError(f"{key} declares {count} entries, more than the file can hold ({MIN_ENTRY} bytes "
                                 "each at least)")
            bounds = array("Q", [spans.pos])
            for i in range(count):
                try:
                    start = spans.pos
                    spans.frame()  # decoded by the rules, then dropped: kept as its bytes (Frames)
                    if spans.pos - start < MIN_ENTRY:
                        raise ValueError(f"{spans.pos - start} bytes, too short to be a signed {key[:-1]}")
                except ValueError as err:
                    raise ValueError(f"{key[:-1]} {i}: {err}") from None
                bounds.append(spans.pos)
            data[key] = Frames(raw, bounds)
        else:
            try:
                value = spans.value()
            except ValueError as err:
                raise ValueError(f"field {one_line(key, 40)!r}: {err}") from None
            if key in _FIELDS:  # (another one is dropped)
                data[key] = value
    if not spans.done:
        raise ValueError(f"{len(raw) - spans.pos} stray byte(s) after the transcript")
    return data


def load(path: str | Path) -> dict[str, Any]:
    """Read a transcript file; a :class:`TranscriptError` with a one-line reason if it is not one."""
    raw = read_bounded(path, TranscriptError, "transcript")
    try:
        data = _read_structure(raw)
    except ValueError as err:
        raise TranscriptError(f"{path}: {err}") from None
    if data.get("format") != FORMAT:
        raise TranscriptError(f"{path}: not a p2php transcript")
    if data.get("version") != VERSION:
        raise TranscriptError(f"{path}: transcript version {one_line(data.get('version'), 40)} is not supported")
    for key, kind in (("hellos", Frames), ("messages", Frames), ("game", str), ("options", dict)):
        if not isinstance(data.get(key), kind):
            raise TranscriptError(f"{path}: field {key!r} missing or malformed")
    return data


# ----------------------------------------------------------------------------- verifying


@dataclass
class Verification:
    ok: bool
    lines: list[str]
    spectator: Lockstep | None


def label(index: int, frame: Any) -> str:
    """``message N (seat S, KIND at T.P)`` from whatever of it can be read."""
    if not isinstance(frame, dict):
        return f"message {index}"
    sender = frame.get("from")
    kind = frame.get("kind")
    at = frame.get("at")
    who = f"seat {sender}" if isinstance(sender, int) and not isinstance(sender, bool) else "seat ?"
    what = one_line(kind, 16) if isinstance(kind, str) else "?"
    where = (f"{at[0]}.{at[1]}" if isinstance(at, list) and len(at) == 2
             and all(isinstance(x, int) and not isinstance(x, bool) for x in at) else "?")
    return f"message {index} ({who}, {what} at {where})"


_ENVELOPE = re.compile(r"^message( \d+)?( from seat -?\d+)?: ")  # parse_message's own prefix


def _check_messages(table: Table, frames: Sequence[dict[str, Any]]) -> list[str]:
    """Every message on its own: its shape, its author's signature, its place in its author's chain."""
    problems: list[str] = []
    publics = [table.public(s) for s in range(table.players)]
    session = table.session_id
    next_seq = {s: 0 for s in range(table.players)}
    last_hash: dict[int, bytes | None] = {s: session for s in range(table.players)}
    for i, frame in enumerate(frames):
        where = label(i, frame)
        try:
            msg = parse_message(frame)
        except BadMessage as err:
            problems.append(f"{where}: malformed: {_ENVELOPE.sub('', str(err))}")
            continue
        s = msg.sender
        if not 0 <= s < table.players:
            problems.append(f"{where}: from seat {s}, which is not at this table")
            continue
        try:
            signed = publics[s].verify(msg.sig, msg.signing_digest(session))
            msg_hash = msg.msg_hash
        except (NotCanonical, ValueError) as err:
            problems.append(f"{where}: malformed: {err}")
            continue
        expected, prev = next_seq[s], last_hash[s]
        next_seq[s], last_hash[s] = msg.seq + 1, msg_hash
        if not signed:
            problems.append(f"{where}: signature does not verify (not signed by seat {s}, or altered)")
            last_hash[s] = None  # the chain check resumes after the altered message
        elif msg.seq != expected:
            problems.append(f"{where}: out of place: seat {s}'s message number {msg.seq} "
                            f"where its number {expected} was next")
        elif prev is not None and msg.prev != prev:
            problems.append(f"{where}: broken chain: 'prev' is not the hash of seat {s}'s message {msg.seq - 1}"
                            if msg.seq else f"{where}: broken chain: 'prev' of seat {s}'s first message "
                            "is not the session id")
    return problems


def _signed_message(table: Table, wire: Any) -> Message | None:
    """``wire`` as a message of one of ``table``'s seats whose signature verifies, else None (it proves nothing)."""
    try:
        msg = parse_message(wire)
        if 0 <= msg.sender < table.players and table.public(msg.sender).verify(
                msg.sig, msg.signing_digest(table.session_id)):
            return msg
    except (BadMessage, NotCanonical, ValueError, TypeError):
        pass
    return None


def _equivocations(table: Table, proofs: Any) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """The file's ``equivocations`` (§9.4): the signed messages among its first :data:`MAX_EQUIVOCATIONS` entries
    (a copy whose signature fails, or that is not a message of a seat, is dropped: it proves nothing)."""
    out: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for wire in proofs[:MAX_EQUIVOCATIONS] if isinstance(proofs, list) else []:
        msg = _signed_message(table, wire)
        if msg is None:
            continue
        copies = out.setdefault((msg.sender, msg.seq), [])
        if wire not in copies:
            copies.append(wire)
    return out


def _refused_faults(table: Table, refused: Any, frames: Sequence[dict[str, Any]] | None = None,
                    seat: Any = None) -> list[Fault]:
    """The file's ``refused`` (§9.4): each of its first :data:`MAX_REFUSED_KEPT` entries that is a message its
    author signed and that the arrival check refuses by its shape alone names its author (``bad_message``), as it
    did at the seat; anything else proves nothing and is dropped.

    It is named at the recording seat's step (:func:`_seat_step`), where the seat named it, not at the message's
    own signed ``at`` (which its author chooses): between two cheaters, a verifier then names the one the seat
    named (red-team rt7-verify: a message signed at 0.0, sent once another cheater's fault had stopped the game,
    was named first by ``p2php verify``, last by the seat)."""
    out: list[Fault] = []
    for wire in refused[:MAX_REFUSED_KEPT] if isinstance(refused, list) else []:
        msg = _signed_message(table, wire)
        if msg is None:
            continue
        try:
            reason = signed_shape_fault(msg, table.players, crypto_mode(table.options))
        except (BadMessage, NotCanonical, ValueError, TypeError):
            continue
        if reason is not None:
            at = _seat_step(table, frames or [], seat, msg.sender)
            out.append(Fault(msg.sender, f"bad message: {reason} (signed, kept by the record)",
                             msg.at if at is None else at))
    return out


def _seat_step(table: Table, frames: Sequence[dict[str, Any]], seat: Any, author: int) -> tuple[int, int] | None:
    """The step at which the recording ``seat`` refused a message of ``author`` by its shape, from its own signed
    messages in the record, or None (a spectator's record: it sends nothing). The first refusal stops a seat: its
    abort names ``author`` (``bad_message``) and carries the step in its ``at``; one that came after the seat
    stopped was found at the point it stopped at (its step stays there through the audit round), where its own
    ``abort`` or ``audit`` is signed. Only the order of findings follows from it: the author is named by its own
    signature whatever the step."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < table.players:
        return None
    stops: dict[str, Message] = {}
    for frame in frames:
        if frame.get("from") != seat or frame.get("kind") not in ("abort", "audit") or frame.get("kind") in stops:
            continue
        try:
            stops[frame["kind"]] = parse_message(frame)
        except (BadMessage, NotCanonical, ValueError, TypeError):
            continue
    abort = stops.get("abort")
    if abort is not None and abort.body.get("culprit") == author and abort.body.get("code") == "bad_message":
        at = abort.body.get("at")
        if (isinstance(at, list) and len(at) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in at)):
            return at[0], at[1]
    stop = abort or stops.get("audit")
    return None if stop is None else stop.at


def _replay(game: Game, table: Table, frames: Sequence[dict[str, Any]],
            hold_from: int | None = None, proofs: Any = None,
            refused: Any = None, seat: Any = None) -> tuple[Lockstep, int | None, int | None]:
    """Feed the messages to a spectator in file order: ``(spectator, first fault at, finished at)``.

    With ``hold_from``, messages from that index on are all delivered before the
    spectator polls again: the peer processed them in one last sweep of its
    audit round (it drains every queue before it closes the audit).
    """
    spectator = Lockstep(game, table)
    spectator.equivocations.update(_equivocations(table, proofs))  # weighed by its audit as a seat's own (§9.4)
    spectator.later_faults.extend(_refused_faults(table, refused, frames, seat))  # and these as its own findings
    fault_at: int | None = None
    finished_at: int | None = None
    last = len(frames) - 1
    for i, frame in enumerate(frames):
        spectator.receive(frame["from"], frame)
        if hold_from is None or not hold_from <= i < last:
            spectator.poll()
        if fault_at is None and spectator.fault is not None:
            fault_at = i
        if finished_at is None and spectator.finished:
            finished_at = i
    return spectator, fault_at, finished_at


def _fault_line(spectator: Lockstep, frames: Sequence[dict[str, Any]], fault: Fault, fault_at: int | None) -> str:
    """The replay's fault, on the message that shows it."""
    table = spectator.table
    index: int | None = None
    if spectator.fault_from is not None:  # adopted from a peer's abort: show that abort
        index = next((i for i, f in enumerate(frames)
                      if f.get("from") == spectator.fault_from and f.get("kind") == "abort"), None)
    if index is None and fault_at is not None and frames[fault_at].get("from") == fault.culprit:
        index = fault_at
    if index is None and fault.culprit is not None:
        at = list(fault.at)
        matching = [i for i, f in enumerate(frames) if f.get("from") == fault.culprit and f.get("at") == at]
        plain = [i for i in matching if frames[i].get("kind") not in ("abort", "audit")]
        if plain or matching:
            index = (plain or matching)[0]
    if index is None:
        index = fault_at
    if index is None:
        return f"at {fault.at[0]}.{fault.at[1]}: {fault.describe(table)}"
    sender = frames[index].get("from")
    reason = fault.reason if fault.culprit is not None and fault.culprit == sender else fault.describe(table)
    return f"{label(index, frames[index])}: {reason}"


def _verdict_text(stored: dict[str, Any]) -> str:
    if stored.get("clean") is True:
        return "clean"
    culprit = stored.get("culprit")
    reason = one_line(stored.get("reason", ""), 120)
    if isinstance(culprit, int) and culprit >= 0:
        return f"seat {culprit}: {reason}"
    return f"unattributed: {reason}"


def _stopped_by_own_abort(spectator: Lockstep, frames: Sequence[dict[str, Any]], seat: Any,
                          recorded: Any) -> int | None:
    """The step the recording seat's own (first) abort stands at, if its recorded state hash is the state that step
    began in: a seat that stops on its own check (the viewer of a private show, refusing a lie about the cards it
    saw) stops before it applies the step, which the replay, unable to make that check, applies. ``None``: no such
    abort, or another state."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(recorded, bytes):
        return None
    at = next((f.get("at") for f in frames if f.get("from") == seat and f.get("kind") == "abort"), None)
    if not (isinstance(at, list) and at and isinstance(at[0], int) and not isinstance(at[0], bool)
            and 0 <= at[0] <= spectator.tick):
        return None
    try:
        state, _ = witness.decision_start(spectator, at[0])
        return at[0] if state.state_hash() == recorded else None
    except Exception:  # a verifier reports, it never crashes on a file
        return None


def verify(path: str | Path) -> Verification:
    """Re-check a transcript from scratch; ``ok`` only if everything holds."""
    data = load(path)
    lines, ok, spectator = _verify(data)
    return Verification(ok, [one_line(line) for line in lines], spectator)


def _verify(data: dict[str, Any]) -> tuple[list[str], bool, Lockstep | None]:
    lines: list[str] = []
    hellos = data["hellos"]
    try:
        game = get_game(data["game"])
        options = parse_table_options(game, data["options"])
        game.check_players(len(hellos))
        for seat, hello in enumerate(hellos):
            check_hello(hello, seat=seat, players=len(hellos), game=game.name, options=options)
    except (HandshakeRefused, OptionError, NotCanonical) as err:
        return [f"handshake: {err}"], False, None
    lines.append(f"handshake: {len(hellos)} signed hellos for {game.name} {options}")
    table = Table(game.name, options, tuple(hellos))
    # What the people at the table saw: a record of another table reads the same otherwise.
    seats = ", ".join(f"{seat} {table.name(seat)}" for seat in range(len(hellos)))
    lines.append(one_line(f"table: seats {seats}; safety code {table.safety_code}"))
    frames: Sequence[dict[str, Any]] = data["messages"]

    problems = _check_messages(table, frames)
    if problems:
        lines += problems[:MAX_REPORTED]
        if len(problems) > MAX_REPORTED:
            lines.append(f"… and {len(problems) - MAX_REPORTED} more")
        lines.append(f"refused: {len(problems)} of {len(frames)} messages do not verify on their own")
        return lines, False, None

    try:
        proofs, refused = data.get("equivocations"), data.get("refused")
        recorder = data.get("seat")
        spectator, fault_at, finished_at = _replay(game, table, frames, proofs=proofs, refused=refused,
                                                   seat=recorder)
        if finished_at is not None and finished_at < len(frames) - 1:
            spectator, fault_at, finished_at = _replay(game, table, frames, hold_from=finished_at, proofs=proofs,
                                                       refused=refused, seat=recorder)
        if not spectator.finished:
            spectator.timeout()  # whoever's audit secrets are missing refused the audit
    except Exception as err:  # a verifier reports, it never crashes on a file
        return lines + [f"the replay failed: {type(err).__name__}: {err}"], False, None
    ok = True
    lines.append(f"messages: {len(frames)} signatures and chains checked, "
                 f"{spectator.tick} engine steps replayed")
    if spectator.fault is not None:
        lines.append(_fault_line(spectator, frames, spectator.fault, fault_at))
    processed = {(m.sender, m.seq) for m in spectator.transcript}
    unprocessed = [i for i, f in enumerate(frames) if (f["from"], f["seq"]) not in processed]
    for i in unprocessed[:MAX_REPORTED]:
        lines.append(f"{label(i, frames[i])}: the replay never processed it "
                     "(it is out of place, or comes after the end of the audit)")
    if len(unprocessed) > MAX_REPORTED:
        lines.append(f"… and {len(unprocessed) - MAX_REPORTED} more")
    if unprocessed:
        ok = False
    verdict = spectator.verdict
    if verdict is None:
        return lines + ["the transcript ends before the game does"], False, spectator
    lines.append(f"final state hash: {verdict.state_hash.hex()}")
    stored = data.get("verdict")
    if not isinstance(stored, dict):
        lines.append("the transcript records no verdict")
        ok = False
    else:
        if stored.get("state_hash") not in (None, verdict.state_hash):
            stopped = _stopped_by_own_abort(spectator, frames, data.get("seat"), stored.get("state_hash"))
            if stopped is not None:
                lines.append(f"the peer's recorded state is the one step {stopped} began in: its own abort stopped it "
                             "there, before it applied the step (on a check the replay cannot make)")
            else:
                lines.append("the peer's recorded state hash differs from the replay")
                ok = False
        culprit = -1 if verdict.culprit is None else verdict.culprit
        if stored.get("clean") is not verdict.clean or stored.get("culprit") != culprit:
            code = stored.get("code")
            if verdict.culprit is None and isinstance(code, str) and code in TIMING_CODES:
                lines.append(f"the peer's recorded verdict ({_verdict_text(stored)}) is a judgement of time, which "
                             "no record can prove: the replay names nobody")
            else:
                lines.append(f"the peer's recorded verdict ({_verdict_text(stored)}) differs from the replay's")
            ok = False
    lines.append(f"audit: {verdict.text(table)}")
    return lines, ok and verdict.clean, spectator
