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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import msgpack

from p2php.engine.registry import get_game
from p2php.session.handshake import LocalSecrets, Table, check_hello
from p2php.session.lockstep import Lockstep

if TYPE_CHECKING:
    from p2php.session.runner import PeerConfig

FORMAT = "p2php-resume"
VERSION = 1


class ResumeError(ValueError):
    """A resume log that cannot be used (missing, damaged, or not this peer's)."""


class ResumeLog:
    """Append-only msgpack stream: one header, then one record per message."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file

    @classmethod
    def create(cls, cfg: PeerConfig, ls: Lockstep, addresses: Mapping[int, tuple[str, int]]) -> ResumeLog:
        assert cfg.resume_path is not None and ls.secrets is not None
        cfg.resume_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = cfg.resume_path.with_name(cfg.resume_path.name + ".tmp")
        file = open(tmp, "wb")  # noqa: SIM115  (kept open for the whole game)
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
            "private_decks": cfg.private_decks,
            "addresses": [list(addresses[s]) for s in range(ls.players)],
        }
        file.write(msgpack.packb(header, use_bin_type=True))
        log = cls(file)
        # Everything held before the log was opened (all of it, when resuming again).
        for msg in ls.transcript:
            log.append(msg.to_wire())
        for queue in ls.inbox.values():
            for msg in queue:
                log.append(msg.to_wire())
        for frames in ls.parked.values():
            for frame in frames:
                log.append(frame)
        log.flush()
        tmp.replace(cfg.resume_path)  # the open handle follows the file
        return log

    def append(self, record: dict[str, Any]) -> None:
        self._file.write(msgpack.packb(record, use_bin_type=True))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the records of a resume log (a torn last record is dropped)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise ResumeError(f"{path}: {err.strerror or err}") from None
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(raw)
    items: Iterator[Any] = iter(unpacker)
    try:
        header = next(items)
    except (StopIteration, ValueError, msgpack.UnpackException) as err:
        raise ResumeError(f"{path}: not a resume log ({err or 'empty'})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != VERSION:
        raise ResumeError(f"{path}: not a p2php resume log")
    records: list[dict[str, Any]] = []
    try:
        for item in items:
            if isinstance(item, dict):
                records.append(item)
    except (ValueError, msgpack.UnpackException):
        pass  # the process died while writing its last record
    return header, records


def restore(path: str | Path) -> tuple[dict[str, Any], Lockstep]:
    """Rebuild the peer of a resume log, re-verifying every message in it."""
    header, records = read(path)
    game = get_game(str(header["game"]))
    options = game.parse_options(header["options"])
    hellos = header["hellos"]
    seat = header["seat"]
    if not isinstance(hellos, list) or not isinstance(seat, int) or not 0 <= seat < len(hellos):
        raise ResumeError(f"{path}: damaged header")
    for s, hello in enumerate(hellos):
        check_hello(hello, seat=s, players=len(hellos), game=game.name, options=options)
    secrets = LocalSecrets(master=header["master"])
    if secrets.identity.public.sign_key != hellos[seat]["sign_key"]:
        raise ResumeError(f"{path}: the secret in this log is not seat {seat}'s")
    ls = Lockstep(game, Table(game.name, options, tuple(hellos)), seat, secrets,
                  dict(header.get("private_decks") or {}))
    sealed: dict[str, Any] | None = None
    for record in records:
        if record.get("local") == "sealed":
            sealed = record
        elif not ls.receive_relayed(record):
            raise ResumeError(f"{path}: a logged message does not verify (the log was altered?)")
    ls.outbox = ls.poll()  # messages due now go out once the links are up again
    if ls.fault is not None and ls.fault.culprit == seat:
        raise ResumeError(f"{path}: replaying the log faults our own seat: {ls.fault.reason}")
    if sealed is not None and sealed.get("tick") == ls.tick and isinstance(sealed.get("action"), dict):
        ls.restore_sealed(ls.tick, sealed["action"])
    return header, ls
