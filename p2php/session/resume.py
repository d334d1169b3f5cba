"""The resume log: how a peer that crashed or lost its link picks the game up again.

While it plays, a peer appends to its resume log every signed message it accepts
or sends, in that order, after a header holding what it needs to be itself again
(its master secret, seat, the table's hellos and addresses).  **The log holds the
peer's secrets: keep it private** (a transcript, by contrast, is safe to share).

``p2php resume LOG`` rebuilds the peer: a fresh :class:`Lockstep` re-checks every
message of the log (signatures, chains, the engine replay — nothing is taken on
trust, not even its own file), then the peer forms its links again and asks the
others for what it missed; they relay the signed originals.  It cannot rewrite
history: its old messages are in the others' hands, and a different message with
an old number would be equivocation.

Because it holds the seat's secrets, the log is created with mode 0600 (only its
owner may read or write it) and renamed into place only once its header is whole.
A log is read as defensively as the network: a crafted, damaged or incomplete
one is a :class:`ResumeError` with a one-line reason, never anything else.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import msgpack
import trio

from p2php.engine.contract import OptionError
from p2php.engine.registry import get_game
from p2php.errors import P2phpError
from p2php.session.durable import path_key, sync_directory
from p2php.session.handshake import HandshakeRefused, LocalSecrets, Table, check_hello
from p2php.session.lockstep import Lockstep
from p2php.session.messages import Message
from p2php.session.modes import parse_table_options
from p2php.session.pass_digests import wire_with_points
from p2php.session.transcript import Frames, Spans, one_line, read_bounded
from p2php.text import safe
from p2php.threads import in_thread

if TYPE_CHECKING:
    from p2php.session.runner import PeerConfig

log = logging.getLogger(__name__)

FORMAT = "p2php-resume"
VERSION = 1


class ResumeError(P2phpError, ValueError):
    """A resume log that cannot be used (missing, damaged, or not this peer's)."""


class ResumeLog:
    """Append-only msgpack stream: one header, then one record per message.

    Safe to share between the game's thread and a worker thread: :meth:`append` only queues the record (packed at
    once), and :meth:`flush` writes the queue, in order, under a lock (one writer at a time, records never
    interleaved), so the game never waits on the disk while a worker writes and ``fsync``s (:class:`ResumeWriter`).
    The ``fsync`` is not under that lock (a lock of its own, which :meth:`close` takes too): while a slow one runs,
    another worker can still hand the system what was appended, before a message of its own leaves. (The game's
    thread itself never writes: :meth:`ResumeWriter.flush`.)
    """

    def __init__(self, file: BinaryIO | None, make: Callable[[ResumeLog], BinaryIO] | None = None) -> None:
        self._file = file  # None: still to be made (``make``, by the first writer), or a make that failed
        self._make = make
        self._queue: list[bytes] = []  # records appended, not written yet (in order)
        self._held: list[bytes | tuple[Message, Any]] = []  # (a log still to be made) records before the queue's:
        # a message and its points still to be packed (by :meth:`_pack_held`), or a record packed
        self._queue_lock = threading.Lock()
        self._write_lock = threading.Lock()  # the file: one writer at a time
        self._sync_lock = threading.Lock()  # one fsync at a time, never of a closed file (taken before _write_lock)
        self._folder: Path | None = None  # a new log renamed into place, its folder not fsynced yet
        self.identity: tuple[int, int] | None = None  # (device, inode) of the file made: what a give-up sets aside

    @classmethod
    def create(cls, cfg: PeerConfig, ls: Lockstep, addresses: Mapping[int, tuple[str, int]]) -> ResumeLog:
        """The log of ``ls``'s seat, at ``cfg.resume_path``: its header and every message held so far are taken at once
        (what the seat holds now, in order; the messages packed when the file is made, in its thread), but nothing
        touches the disk until the first :meth:`flush` or :meth:`close`, which makes the file: written to ``….tmp``
        (mode 0600), ``fsync``ed, renamed into place and the rename made durable. A :class:`ResumeWriter` does that in
        its worker thread: a slow disk's ``fsync``s (two of them) never stop the game's loop (red-team rt6-faults:
        2 x 6 s made the others give an honest, running seat up as unreachable). An :class:`OSError` of that making is
        raised by the call that made it."""
        assert cfg.resume_path is not None and ls.secrets is not None
        path = cfg.resume_path
        header = {
            "format": FORMAT,
            "version": VERSION,
            "game": ls.table.game,
            "options": ls.table.options,
            "seat": ls.seat,
            "name": cfg.name,
            "master": ls.secrets.master,
            "hellos": list(ls.table.hellos),
            "timeout": cfg.timeout,
            "resume_timeout": cfg.resume_timeout,
            "bot": cfg.bot,
            "private_decks": ls.private_decks,  # a rematch's own (its copy numbers drawn afresh), not cfg's
            "addresses": [list(addresses[s]) for s in range(ls.players)],
        }
        if cfg.online is not None:
            header["online"] = dict(cfg.online)
        log = cls(None, partial(_make_log, path, msgpack.packb(header, use_bin_type=True)))
        # Everything held before the log was opened (all of it, when resuming again): taken here, as it is now, but
        # a message (immutable) is packed by the thread that makes the file: a resumed seat's whole log was packed
        # in the game's loop, 256 ms for 28 980 messages (red-team rt8-disk). The rest (few) is packed here.
        held = log._held
        for msg in ls.transcript:
            held.append((msg, ls.logged_points(msg)))
        for queue in ls.inbox.values():
            for msg in queue:
                held.append((msg, ls.logged_points(msg)))
        for frames in ls.parked.values():
            for frame in frames:
                held.append(msgpack.packb(frame, use_bin_type=True))
        sealed = ls.sealed_choice()
        if sealed is not None:  # resumed again before revealing it: without it, the seat could never reveal
            held.append(msgpack.packb({"local": "sealed", "tick": ls.tick, "action": sealed}, use_bin_type=True))
        return log

    def _pack_held(self) -> list[bytes]:
        """(In the thread that makes the file, before it takes the queue.) The records :meth:`create` took, packed."""
        held, self._held = self._held, []
        return [item if isinstance(item, bytes) else msgpack.packb(wire_with_points(*item), use_bin_type=True)
                for item in held]

    def _ready(self) -> bool:
        """(Under the write lock.) Whether there is an open file to write to; a log still to be made is made now."""
        if self._file is None and self._make is not None:
            make, self._make = self._make, None  # (made once: a make that failed leaves no file, and raises)
            self._file = make(self)
            made = os.fstat(self._file.fileno())
            self.identity = (made.st_dev, made.st_ino)
        return self._file is not None and not self._file.closed

    def append(self, record: dict[str, Any]) -> None:
        """Queue ``record`` for the next :meth:`flush` (any thread; never touches the file)."""
        packed = msgpack.packb(record, use_bin_type=True)
        with self._queue_lock:
            self._queue.append(packed)

    @property
    def queued(self) -> bool:
        """Whether records wait for a :meth:`flush`."""
        return bool(self._queue)

    def flush(self, durable: bool = False) -> None:
        """Write what was appended, in order, and hand it to the system; ``durable``: and wait until it is on the
        disk (``fsync``). Our own messages should be before they are sent (:class:`ResumeWriter` waits a bounded
        time): a log that lost them in a power cut lacks what the seat sent. Any thread, one writer at a time."""
        with self._write_lock:
            if not self._ready():
                return
            assert self._file is not None
            self._write_queue()
            self._file.flush()
        if durable:  # (the write lock is free meanwhile: the game's thread can hand the system more records)
            with self._sync_lock:
                if not self._file.closed:
                    os.fsync(self._file.fileno())
                    self._sync_folder()

    def flush_if_free(self) -> bool:
        """:meth:`flush` (not durable) unless another thread is writing, or the file is still to be made (then
        nothing: making it ``fsync``s): whether it was done."""
        if self._make is not None or not self._write_lock.acquire(blocking=False):
            return False
        try:
            if self._file is not None and not self._file.closed:
                self._write_queue()
                self._file.flush()
        finally:
            self._write_lock.release()
        return True

    def close(self, block: bool = True, durable: bool = False) -> None:
        """Write what was appended and close the file (any thread; after a :meth:`flush` running in another);
        ``durable``: ``fsync`` it first. ``block=False``: if another thread is writing, leave the file as it is (to
        be closed when collected)."""
        if not self._sync_lock.acquire(blocking=block):
            return
        try:
            if not self._write_lock.acquire(blocking=block):
                return
            try:
                # (block=False, a log given up: one still to be made is never made)
                if (self._ready() if block else self._file is not None and not self._file.closed):
                    assert self._file is not None
                    self._write_queue()
                    if durable:
                        self._file.flush()
                        os.fsync(self._file.fileno())
                        self._sync_folder()
            finally:
                try:
                    self._make = None
                    if self._file is not None:
                        self._file.close()
                finally:
                    self._write_lock.release()
        finally:
            self._sync_lock.release()

    def _sync_folder(self) -> None:
        """(Under the sync lock, after the file's ``fsync``.) A new log's rename made durable, once."""
        folder, self._folder = self._folder, None
        if folder is not None:
            sync_directory(folder)

    def _write_queue(self) -> None:
        """(Under the write lock.) A log closed meanwhile — given up by the game's thread while a worker's step was
        starting — takes nothing more."""
        with self._queue_lock:
            queue, self._queue = self._queue, []
        if self._file is not None and not self._file.closed:
            self._file.writelines(queue)


_SETTING_ASIDE: dict[Path, threading.Event] = {}
"""Logs a give-up's worker thread is still setting aside (:meth:`ResumeWriter._give_up`), by :func:`path_key` (any
spelling of the path: before, by absolute path, ``logs/../logs/x.resume`` or a symlinked folder got past it): never
resumed from, nor made anew, until it is done. Before, a game cancelled while a slow disk renamed its given-up log
aside (its wait, 5 s, ended first) and resumed at once (``api.resume_peer``) restored the seat from the log it had
said it cannot resume from, and the rename then moved the resumed game's new log aside (review rv7-loopio,
``tests/chaos_repro/rv7_resume_while_set_aside.py``)."""
_SETTING_ASIDE_LOCK = threading.Lock()


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``; None if there is none (or it cannot be told)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _being_set_aside(path: str | Path) -> threading.Event | None:
    with _SETTING_ASIDE_LOCK:
        return _SETTING_ASIDE.get(path_key(path))


def _make_log(path: Path, header: bytes, log: ResumeLog) -> BinaryIO:
    """(Under ``log``'s write lock, in the thread of its first writer.) Make the file of :meth:`ResumeLog.create`:
    ``header`` and what ``log`` queued, in ``path.tmp`` (0600), ``fsync``ed, renamed to ``path`` (durably); the file
    opened again to append to. An :class:`OSError` leaves what it made to :meth:`ResumeWriter._give_up`."""
    pending = _being_set_aside(path)
    if pending is not None and not pending.wait(CLOSE_WAIT):  # (an older log of this path: its rename first)
        raise OSError(errno.EBUSY, "an older log of this path is still being set aside", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    # The log holds this seat's secrets: owner-only from the first byte (0600).
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # a stale .tmp left by an older version keeps its mode otherwise
        file = os.fdopen(fd, "wb")  # closed for the rename, then opened again to append
    except BaseException:
        os.close(fd)
        raise
    # A new game's log (no older one at ``path``) is renamed into place before its fsyncs, which the first durable
    # flush does, under no write lock (:meth:`ResumeLog.flush`): the seat's messages leave after a bounded wait, and a
    # kill during a slow disk's fsyncs left only the .tmp, no log, and the records appended meanwhile in memory
    # (review rv6-faults: 3 s fsyncs, timeout 2, two messages sent before the log existed; `p2php resume` said "No
    # such file"). A power cut before them may leave it empty or torn (no worse than none). A resume's (an older
    # log in place) is renamed only once fsynced: it must never replace a whole older log with one a power cut
    # left empty.
    fresh = not path.exists()
    with file:
        file.write(header)
        file.writelines(log._pack_held())  # (before the queue: appended after them)
        with log._queue_lock:
            queue, log._queue = log._queue, []
        file.writelines(queue)  # (what is appended meanwhile, during the fsync, goes to the file opened again)
        file.flush()
        if not fresh:
            os.fsync(file.fileno())
    # Renamed closed (Windows refuses to rename an open file), then opened again to append for the whole game.
    tmp.replace(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    try:
        if fresh:
            log._folder = path.parent  # (its fsync, and the file's, by the first durable flush)
        else:
            sync_directory(path.parent)  # the rename too: else a power cut may bring the older log back
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def read(path: str | Path) -> tuple[dict[str, Any], Sequence[dict[str, Any]]]:
    """The header and the records of a resume log (a torn last record, or a tail of zero bytes, is dropped:
    what a crash or a power cut leaves after the last ``fsync``; our own messages are all before it -- also another
    seat's last record whose end lies in those zeros).

    Every value is checked by the network's frame rules before it is built (see
    :class:`p2php.session.transcript.Spans`) and the header's fields by type; a
    log that breaks either is a :class:`ResumeError`. The records are kept as the file's bytes, each decoded
    when it is read (:class:`~p2php.session.transcript.Frames`): decoded at once, a log at the reader's density
    limit held 18 bytes of objects for each of its bytes (red-team rt7-reader).
    """
    raw = read_bounded(path, ResumeError, "resume log")
    if not raw:
        raise ResumeError(f"{path}: not a resume log (the file is empty)")
    spans = Spans(raw)
    try:
        header = spans.frame(limit=len(raw))
    except ValueError as err:
        raise ResumeError(f"{path}: not a resume log (its header: {err})") from None
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise ResumeError(f"{path}: not a p2php resume log")
    _check_header(path, header)
    bounds = array("Q", [spans.pos])  # record i is raw[bounds[i]:bounds[i + 1]]
    zeros = len(raw.rstrip(b"\0"))  # where the file's last run of zero bytes begins
    while not spans.done:
        start = spans.pos
        try:
            spans.frame()  # decoded by the rules, then dropped
            bounds.append(spans.pos)
        except ValueError as err:
            if _is_torn(raw, start):
                break  # the process died while writing its last record
            if start >= zeros or _is_torn(raw[:zeros], start):
                # A power cut: the file's new length reached the disk, its last (unsynced) bytes did not -- from this
                # record on, or from within it (the page holding its start was written back, the next one not).
                break
            raise ResumeError(f"{path}: record {len(bounds) - 1}: {err}") from None
    records = Frames(raw, bounds)
    last = records[-1] if records else {}
    end = bounds[-1]  # the end of the last whole record
    if zeros < end < len(raw) and isinstance(last.get("from"), int) and last.get("from") != header.get("seat"):
        records = Frames(raw, bounds[:-1])  # another seat's message whose end may be such zeros (it is relayed
        # again); ours are fsynced
    return header, records


def _is_torn(raw: bytes, start: int) -> bool:
    """Whether the bytes from ``start`` are the beginning of a value whose end was never written."""
    try:
        Spans(raw[start:]).span()
    except ValueError as err:
        return "truncated" in str(err)
    return False


def _check_header(path: str | Path, header: dict[str, Any]) -> None:
    """Refuse a header whose fields do not have the types the writer gives them."""

    def bad(what: str) -> ResumeError:
        return ResumeError(f"{path}: damaged header: {what}")

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not isinstance(header.get("game"), str):
        raise bad("'game' is not a string")
    if not isinstance(header.get("options"), dict):
        raise bad("'options' is not a map")
    hellos = header.get("hellos")
    if not isinstance(hellos, list) or not hellos or not all(isinstance(h, dict) for h in hellos):
        raise bad("'hellos' is not a list of hellos")
    seat = header.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(hellos):
        raise bad(f"'seat' is not one of the {len(hellos)} seats")
    master = header.get("master")
    if not isinstance(master, bytes) or len(master) != 32:
        raise bad("'master' is not 32 bytes")
    if not isinstance(header.get("name", ""), str):
        raise bad("'name' is not a string")
    if not isinstance(header.get("bot"), str | None):
        raise bad("'bot' is not a string")
    for key in ("timeout", "resume_timeout"):
        value = header.get(key, 1.0)
        if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:  # nan too
            raise bad(f"{key!r} is not a positive number of seconds")
    decks = header.get("private_decks")
    if decks is not None and not (
        isinstance(decks, dict)
        and all(isinstance(v, list) and all(is_int(c) for c in v) for v in decks.values())
    ):
        raise bad("'private_decks' is not a map of card lists")
    addresses = header.get("addresses")
    if not isinstance(addresses, list) or len(addresses) != len(hellos) or not all(
        isinstance(a, list) and len(a) == 2 and isinstance(a[0], str) and is_int(a[1]) and 0 <= a[1] < 65536
        for a in addresses
    ):
        raise bad("'addresses' is not one [host, port] per seat")
    online = header.get("online")
    if online is not None and not (
        isinstance(online, dict) and isinstance(online.get("relay"), str | None) and is_int(online.get("port"))
        and 0 <= online["port"] < 65536 and isinstance(online.get("advertise", []), list)
        and all(isinstance(ip, str) and len(ip) <= 64 for ip in online.get("advertise", []))
        and isinstance(online.get("relay_only", False), bool)
    ):
        raise bad("'online' is not this seat's libp2p settings (relay, port, advertise, relay_only)")


def restore(path: str | Path) -> tuple[dict[str, Any], Lockstep]:
    """Rebuild the peer of a resume log, re-verifying every message in it.

    Raises :class:`ResumeError` (one line) for any log that cannot be used.
    """
    if _being_set_aside(path) is not None:
        raise ResumeError(f"{path}: this log was given up after a disk error and is being set aside: this seat "
                          "cannot resume from it")
    try:
        header, records = read(path)
        return header, _restore(path, header, records)
    except ResumeError:
        raise
    except (HandshakeRefused, OptionError) as err:
        raise ResumeError(f"{path}: {one_line(err)}") from None
    except Exception as err:  # a crafted log must not crash `p2php resume`
        raise ResumeError(f"{path}: cannot rebuild the peer from this log: "
                          f"{type(err).__name__}: {one_line(err, 200)}") from None


def _restore(path: str | Path, header: dict[str, Any], records: Sequence[dict[str, Any]]) -> Lockstep:
    game = get_game(header["game"])
    options = parse_table_options(game, header["options"])
    hellos = header["hellos"]
    seat = header["seat"]
    game.check_players(len(hellos))
    for s, hello in enumerate(hellos):
        check_hello(hello, seat=s, players=len(hellos), game=game.name, options=options)
    secrets = LocalSecrets(master=header["master"])
    if secrets.identity.public.sign_key != hellos[seat]["sign_key"]:
        raise ResumeError(f"{path}: the secret in this log is not seat {seat}'s")
    ls = Lockstep(game, Table(game.name, options, tuple(hellos)), seat, secrets,
                  dict(header.get("private_decks") or {}))
    sealed: dict[str, Any] | None = None
    ls.replaying_log = True  # every message of the game waits at once until the poll below: no flood bounds
    # Our own abort stopped us where we were when we sent it: the others' messages logged after it (a late one of
    # the seat it named, another seat's abort) are read only once the rebuilt peer has stopped there too, else they
    # took it past that point (to messages of ours it never sent) or made another abort its fault (review 5).
    mine = next((n for n, r in enumerate(records) if r.get("from") == seat and r.get("kind") == "abort"), None)
    # Each record with its number: a record is decoded afresh each time it is read, so ``records.index`` of one
    # holding a NaN found no equal copy (a ValueError instead of the record's number; rv7-reader).
    # Taken one at a time, never as lists: decoded at once, the records after our abort held 20 bytes of objects
    # for each byte of a planted log at the reader's density limit (red-team rt8-red2; what ``Frames`` prevents).
    first: Iterable[tuple[int, dict[str, Any]]] = enumerate(records)
    later: Iterable[tuple[int, dict[str, Any]]] = ()
    if mine is not None:
        rest = range(mine + 1, len(records))
        first = chain(((n, records[n]) for n in range(mine + 1)),
                      ((n, r) for n in rest if (r := records[n]).get("from") == seat))
        later = ((n, r) for n in rest if (r := records[n]).get("from") != seat)
    try:
        out = []
        for part in (first, later):
            for n, record in part:
                if record.get("local") == "sealed":
                    sealed = record
                elif not ls.receive_relayed(record):
                    raise ResumeError(f"{path}: record {n}: a logged message does not verify "
                                      "(the log was altered?)")
            out += ls.poll()
        ls.outbox = out  # messages due now go out once the links are up again
    finally:
        ls.replaying_log = False
    if ls.fault is not None and ls.fault.culprit == seat:
        raise ResumeError(f"{path}: replaying the log faults our own seat: {one_line(ls.fault.reason, 200)}")
    if sealed is not None and sealed.get("tick") == ls.tick and isinstance(sealed.get("action"), dict):
        ls.restore_sealed(ls.tick, sealed["action"])
    return ls


async def _in_thread(step: Callable[[], object], limiter: trio.CapacityLimiter | None = None) -> None:
    """``step`` in a worker thread, left to finish alone if we are cancelled (a write of the log is never cut).

    Never under trio's default thread limiter (40 tokens, the whole loop's): a thread left to finish alone keeps its
    token until it does, and a log's hung disk spent them all -- one blocked write per message of ours -- after which
    every ``to_thread`` of the app's loop (the bridge's stdin reader, another table's log, a transcript's save)
    waited for good (review rv7b-disk). ``limiter``: the caller's own (one per log, for its writes), else a fresh
    one."""
    await in_thread(step, limiter=trio.CapacityLimiter(1) if limiter is None else limiter)


SYNC_WAIT = 0.25
"""Of ``timeout``: how long a message of our own waits for the log's ``fsync`` before it is sent all the same.

Before, it waited for the whole ``fsync``: one slower than ``timeout`` (an SD card or a USB stick with much unwritten
data) made the others name this honest seat ``silent`` (red-team rt5-disk). Sending before the ``fsync`` is done is
safe since a seat rebuilt from its log makes nothing of its own until every linked seat's ``sync`` has said which of
its messages it holds (the runner's REJOIN_HOLD): a message the log lost in a crash is handed back, never answered
again. A normal ``fsync`` (milliseconds) is still waited for in full."""

LATE_STREAK = 3
"""Syncs late in a row after which a message no longer waits for the fsync (only for its write), until one is done
in time again."""

CLOSE_WAIT = 60.0
"""Seconds the end of a game waits for a slow disk to finish the resume log (a step still running, then the rest)."""

CANCEL_CLOSE_WAIT = 5.0
"""Seconds a game that is cancelled (the app gives it up, a Ctrl-C) or fails waits for the same, shielded from the
cancel: its process may end at once after, and its worker threads with it."""


class ResumeWriter:
    """Appends to the resume log every message this peer accepts or sends.

    The log is made (its first step), written and ``fsync``ed by :meth:`run`, a task of the runner's that does each
    step in a worker thread (one at a time, in order): the game's loop never waits on the disk, but for :meth:`sync`,
    which waits for the ``fsync`` at most a bounded time (:data:`SYNC_WAIT`).

    A log that cannot be written (a full disk, a path that cannot be made) must not stop the game: the peer plays
    on without it, and the log is moved aside (``….incomplete``) so ``p2php resume`` cannot start from a log that
    lacks what was sent after it failed — a resumed seat would answer some point again, differently, and be
    named an equivocator. One warning says so.
    """

    def __init__(self, cfg: PeerConfig, ls: Lockstep, addresses: Mapping[int, tuple[str, int]]) -> None:
        assert cfg.resume_path is not None
        self.path = cfg.resume_path
        self.ls = ls
        self.file: ResumeLog | None = None
        self.late_syncs = 0  # syncs not done within the wait of :meth:`sync` (the message was sent all the same)
        self._asked = 0  # durable flushes asked for (:meth:`sync`)
        self._synced = 0  # the last of them done
        self._late_streak = 0  # syncs late in a row (an fsync done within SYNC_WAIT of its start ends it)
        self._within = 0.0
        self._wake = trio.Event()  # a step is wanted (set: the worker runs one)
        self._done = trio.Event()  # set when the worker ends a step (then replaced)
        self._closing: ResumeLog | None = None  # a log whose close ran on past aclose's wait (its error still counts)
        self._aside: threading.Event | None = None  # a given-up log's file work (a worker thread): set when done
        self._writes: trio.CapacityLimiter | None = None  # a late sync's write: one thread at a time (see sync)
        try:
            self._token: trio.lowlevel.TrioToken | None = trio.lowlevel.current_trio_token()  # (the game's loop)
        except RuntimeError:
            self._token = None
        try:
            self.file = ResumeLog.create(cfg, ls, addresses)
        except OSError as err:
            self._give_up(err)
            return
        ls.record = self.append
        self._wake.set()  # the worker's first step makes the file (its fsyncs off the game's loop)

    def write_now(self) -> None:
        """Do a step of the worker now, in this thread (for a caller with no worker): make the log's file if it is
        still to be made, and write what was appended; a failure gives the log up, as there."""
        file = self.file
        if file is None:
            return
        try:
            file.flush()
        except OSError as err:
            self._give_up(err)

    def append(self, record: dict[str, Any]) -> None:
        if self.file is not None:
            self.file.append(record)

    def flush(self) -> None:
        """Have the worker hand what was appended to the system, never waiting for it. Never in the game's thread:
        a disk that throttles its writers (much unwritten data) holds the write() itself, and 4 s writes with
        ``timeout`` 2 had the other seat name this honest seat ``refused_audit`` (red-team rt6-faults,
        ``tests/chaos_repro/repro_slow_write.py``). A message of our own is written before it leaves all the same
        (:meth:`sync`, a bounded wait)."""
        if self.file is not None and self.file.queued:
            self._wake.set()

    async def sync(self, within: float) -> bool:
        """Have what was appended written and ``fsync``ed (by the worker); wait for it at most ``within`` seconds:
        whether it was done (or the log given up) by then. The ``fsync`` runs on after a wait that ends first; then
        what was appended is handed to the system, a wait of at most ``within`` more (a slow write runs on too)."""
        if self.file is None:
            return True
        self._within = within
        self._asked += 1
        asked = self._asked
        self._wake.set()
        # A disk proven slower than the wait (its last LATE_STREAK syncs late, no fsync within ``within`` since):
        # waiting again only delays the message, which leaves before its fsync all the same. Only the write is
        # waited for (below); the worker's fsyncs run on, and one done in time ends the streak.
        with trio.move_on_after(0 if self._late_streak >= LATE_STREAK else within):
            while self.file is not None and self._synced < asked:
                await self._done.wait()
        if self.file is None or self._synced >= asked:
            return True
        self._late_streak += 1
        # Late: the fsync runs on, but what was appended reaches the system before the message leaves (the write
        # lock is not held through an fsync), so a crash of this process, a kill or a Ctrl-C, loses none of it:
        # only a power cut can, and a local record (a sealed answer's) nobody else holds is not lost by less.
        # That wait is bounded too (``within`` again): a disk that throttles its writers (much unwritten data) holds
        # the worker's write itself, and the lock with it; waiting it out got the honest seat named silent (review
        # of 41bf2ab: 3 s writes, ``timeout`` 2). The write then runs on alone, as the fsync does.
        file = self.file
        # One such write at a time: ours waits (bounded) for one still running, as its thread waited for the file's
        # lock; a thread per message, each left blocked behind a hung write, leaked one per message (rv7b-disk).
        if self._writes is None:
            self._writes = trio.CapacityLimiter(1)
        with trio.move_on_after(within):
            try:
                await _in_thread(partial(self._reported, file, file.flush), self._writes)
            except OSError as err:
                if self.file is file:
                    self._give_up(err)
        if not self.late_syncs:
            log.warning("the disk of the resume log %s is slow (an fsync took more than %.1f s): this seat sends its "
                        "messages before they are on the disk, and a resume of it waits for the others to hand "
                        "them back", safe(str(self.path), 200), within)
        self.late_syncs += 1
        return False

    async def run(self) -> None:
        """The worker: each step (write what was appended; ``fsync`` too when a :meth:`sync` asked) in a thread, one
        at a time, until the log is given up or the task is cancelled (a step then still running finishes alone,
        and :meth:`aclose` waits for it)."""
        while self.file is not None:
            await self._wake.wait()
            self._wake = trio.Event()  # (a wake that comes during this step asks for the next)
            file, asked = self.file, self._asked
            if file is None:
                break
            durable = asked > self._synced
            began = trio.current_time()
            try:  # (a step the end of the game leaves running still reports its failure: :meth:`_reported`)
                await _in_thread(partial(self._reported, file, partial(file.flush, durable)))
            except OSError as err:
                if self.file is file:
                    self._give_up(err)
            else:
                if durable:
                    self._synced = asked
                    if trio.current_time() - began <= self._within:
                        self._late_streak = 0
            done, self._done = self._done, trio.Event()
            done.set()
        self._done.set()

    async def aclose(self, within: float = CLOSE_WAIT) -> None:
        """Write what is left, ``fsync`` and close the log (in a thread, after a step the worker left running): the
        log is whole, and on the disk, when the game ends. Wait for it at most ``within`` seconds (a disk that hangs
        must not hold the end of the game for good), then leave it to finish alone, with a warning."""
        file = self.file
        if file is None:
            await self._set_aside_within(within)
            return
        with trio.move_on_after(within) as scope:
            try:
                await _in_thread(partial(self._reported, file, partial(file.close, durable=True)))
            except OSError as err:
                if self.file is file:
                    self._give_up(err)
                await self._set_aside_within(within)
                return
        self.file = None
        if scope.cancelled_caught:
            self._closing = file  # (its OSError, if it comes, still gives the log up: :meth:`_reported`)
            log.warning("the disk of the resume log %s did not finish writing it within %.0f s: it may lack its last "
                        "records (a resume of this seat gets them back from the others)", safe(str(self.path), 200),
                        within)

    def _reported(self, file: ResumeLog, step: Callable[[], object]) -> None:
        """(In a worker thread.) ``step`` of ``file``, whose :class:`OSError` gives the log up even once nobody waits
        for it any more: a late sync's write (or the end's close) runs on alone past its bounded wait, and before, its
        failure was never seen -- the log stayed in place, a hole in it, and no warning (red-team rt7-loopio: a write
        of 4 records failed 1 s after the wait; ``p2php resume`` took the log and rebuilt the seat at its start). It
        is handed to the game's loop (its give-up is the loop's, as an on-time failure's is), or given up here if that
        loop has ended."""
        try:
            step()
        except OSError as err:
            try:
                if self._token is None:
                    raise trio.RunFinishedError
                self._token.run_sync_soon(self._late_failure, file, err)
            except trio.RunFinishedError:
                self._late_failure(file, err)
            raise

    def _late_failure(self, file: ResumeLog, err: OSError) -> None:
        """(In the game's loop, between its tasks; or in the worker once the loop ended.) Never raises."""
        try:
            if self.file is file or self._closing is file:
                self._closing = None
                self._give_up(err, file)
        except Exception:  # (a callback of the loop must never raise)
            log.exception("giving the resume log %s up", safe(str(self.path), 200))

    async def _set_aside_within(self, within: float) -> None:
        """Wait at most ``within`` seconds for a given-up log's file work (:meth:`_give_up`) to end."""
        done = self._aside
        if done is None or done.is_set():
            return
        with trio.move_on_after(within):
            await _in_thread(partial(done.wait, within))
        if not done.is_set():
            log.warning("the disk of the resume log %s did not finish setting it aside within %.0f s: do not resume "
                        "from it", safe(str(self.path), 200), within)

    def _give_up(self, err: OSError, of: ResumeLog | None = None) -> None:
        """Play on without the log: nothing more is recorded, and the file work (closing the file, writing what was
        queued; the log renamed aside, or removed; the warning) is left to a worker thread when a trio loop runs here,
        waited for by :meth:`aclose`: a disk that fails often hangs too, and that work in the game's loop held it
        (red-team rt7-loopio: a 3 s write and a 3 s rename after an EIO, 6.0 s, and the other seat named this honest
        seat ``silent``)."""
        self.ls.record = None
        file, self.file = self.file, None
        given = file if file is not None else of  # (``of``: a log whose close ran on past aclose's wait)
        identity = None if given is None else given.identity
        try:
            trio.lowlevel.current_trio_token()
        except RuntimeError:  # no loop here (a caller with no worker, or a worker once the loop ended)
            self._set_aside(file, err, identity)
            return
        done = self._aside = threading.Event()
        key = path_key(self.path)  # (its folders were just walked by the log's writes: no slow disk wait here)
        with _SETTING_ASIDE_LOCK:
            _SETTING_ASIDE[key] = done  # (no resume from it, no new log there, until it is done)

        def work() -> None:
            try:
                self._set_aside(file, err, identity)
            finally:
                with _SETTING_ASIDE_LOCK:
                    if _SETTING_ASIDE.get(key) is done:
                        del _SETTING_ASIDE[key]
                done.set()

        threading.Thread(target=work, name="p2php-resume-aside", daemon=True).start()

    def _set_aside(self, file: ResumeLog | None, err: OSError, identity: tuple[int, int] | None = None) -> None:
        """The file work of :meth:`_give_up` (any thread). ``identity``: the file the log was made as; another one
        at its path now is left as it is -- a late failure of a close that ran on past the end's wait came after
        the app had resumed the seat, and renamed the resumed game's new log aside (review rv7-loopio,
        ``tests/chaos_repro/rv7_late_close_failure.py``)."""
        if file is not None:
            with contextlib.suppress(OSError):
                file.close(block=False)  # (a write another thread still runs keeps the file open)
        aside = self.path.with_name(self.path.name + ".incomplete")
        if identity is None:
            with contextlib.suppress(OSError):  # a log that was being made when it failed
                self.path.with_name(self.path.name + ".tmp").unlink(missing_ok=True)
        where = f"what was logged is in {safe(str(aside), 200)}"
        try:
            if identity is not None and _identity(self.path) not in (identity, None):
                where = "a newer log now at its path is left as it is"
            elif self.path.exists():
                os.replace(self.path, aside)
        except OSError:
            try:
                self.path.unlink()
                where = "it was removed"
            except OSError:  # a file system gone read-only: say so, never that the log was moved
                where = "it could not be set aside either: do not resume from it"
        log.warning("the resume log %s cannot be written (%s): this seat plays on without it and cannot resume "
                    "this game; %s", safe(str(self.path), 200), safe(err.strerror or str(err), 100), where)
