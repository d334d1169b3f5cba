"""Saved transcripts and their independent verification (``p2php verify``).

A transcript is one peer's record of a game: every hello and every signed
message in the order that peer processed them, plus its verdict.  Verifying
needs no secret: a spectator :class:`~p2php.session.lockstep.Lockstep` re-checks
every signature and chain, replays the engine through every step, and, when the
audit secrets are in the transcript, runs the whole audit again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from p2php.engine.registry import get_game
from p2php.session.handshake import HandshakeRefused, Table, check_hello
from p2php.session.lockstep import Lockstep

FORMAT = "p2php-transcript"
VERSION = 1


class TranscriptError(ValueError):
    """A file that is not a readable p2php transcript."""


def to_data(ls: Lockstep) -> dict[str, Any]:
    verdict = ls.verdict
    return {
        "format": FORMAT,
        "version": VERSION,
        "seat": -1 if ls.seat is None else ls.seat,
        "game": ls.table.game,
        "options": ls.table.options,
        "hellos": list(ls.table.hellos),
        "messages": [m.to_wire() for m in ls.transcript],
        "verdict": None if verdict is None else {
            "clean": verdict.clean,
            "culprit": -1 if verdict.culprit is None else verdict.culprit,
            "reason": verdict.reason,
            "state_hash": verdict.state_hash,
        },
    }


def save(ls: Lockstep, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(msgpack.packb(to_data(ls), use_bin_type=True))
    tmp.replace(path)  # never leave a half-written transcript behind
    return path


def load(path: str | Path) -> dict[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise TranscriptError(f"{path}: {err.strerror or err}") from None
    try:
        data = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except Exception as err:
        raise TranscriptError(f"{path}: not a msgpack transcript ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TranscriptError(f"{path}: not a p2php transcript")
    if data.get("version") != VERSION:
        raise TranscriptError(f"{path}: transcript version {data.get('version')} is not supported")
    for key, kind in (("hellos", list), ("messages", list), ("game", str), ("options", dict)):
        if not isinstance(data.get(key), kind):
            raise TranscriptError(f"{path}: field {key!r} missing or malformed")
    return data


@dataclass
class Verification:
    ok: bool
    lines: list[str]
    spectator: Lockstep | None


def verify(path: str | Path) -> Verification:
    """Re-check a transcript from scratch; ``ok`` only if everything holds."""
    data = load(path)
    lines: list[str] = []
    game = get_game(data["game"])
    options = game.parse_options(data["options"])
    hellos = data["hellos"]
    try:
        for seat, hello in enumerate(hellos):
            check_hello(hello, seat=seat, players=len(hellos), game=game.name, options=options)
    except HandshakeRefused as err:
        return Verification(False, [f"handshake: {err}"], None)
    lines.append(f"handshake: {len(hellos)} signed hellos for {game.name} {options}")
    table = Table(game.name, options, tuple(hellos))
    spectator = Lockstep(game, table)
    for frame in data["messages"]:
        sender = frame.get("from") if isinstance(frame, dict) else None
        if not isinstance(sender, int) or not 0 <= sender < len(hellos):
            return Verification(False, lines + ["a message has no valid sender"], spectator)
        spectator.receive(sender, frame)
        spectator.poll()
    if not spectator.finished:
        spectator.timeout()  # whoever's audit secrets are missing refused the audit
    lines.append(f"messages: {len(data['messages'])} signatures and chains checked, "
                 f"{spectator.tick} engine steps replayed")
    verdict = spectator.verdict
    if verdict is None:
        return Verification(False, lines + ["the transcript ends before the game does"], spectator)
    lines.append(f"final state hash: {verdict.state_hash.hex()}")
    stored = data.get("verdict")
    if isinstance(stored, dict) and stored.get("state_hash") not in (None, verdict.state_hash):
        lines.append("the peer's recorded state hash differs from the replay")
        return Verification(False, lines, spectator)
    lines.append(f"audit: {verdict.text(table)}")
    return Verification(verdict.clean, lines, spectator)
