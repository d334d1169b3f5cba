"""The envelope's bytes are assembled from parts (p2php.session.messages._envelope): they must stay ``encode``'s.

Signatures and message hashes are taken over these bytes, so one differing byte would split honest peers.
"""

from __future__ import annotations

import random

import pytest

from p2php import tags
from p2php.canonical import NotCanonical, digest, encode
from p2php.session.messages import Message, parse_message, signing_bytes

SESSION = bytes(range(32))


def _frame(rng: random.Random) -> dict[str, object]:
    body: dict[str, object] = {
        "zeta": rng.randrange(-(2**63), 2**64),
        "action": {"play": rng.randrange(300), "to": [rng.randrange(10)], "nested": {"b": None, "a": True}},
        "keys": [[rng.randrange(1000), rng.randbytes(32)] for _ in range(rng.randrange(4))],
        "cards": [rng.randbytes(33) for _ in range(rng.randrange(0, 200))],
        "text": "ä" * rng.randrange(40),
        "": b"",
    }
    if rng.random() < 0.5:
        body = dict(reversed(list(body.items())))  # insertion order must not matter
    return {
        "from": rng.randrange(10),
        "seq": rng.choice([0, 1, 127, 128, 255, 65535, 65536, 2**32, 2**63 - 1]),
        "prev": rng.randbytes(32),
        "at": [rng.choice([0, 5, 300, 70000]), rng.randrange(25)],
        "state": rng.randbytes(32),
        "seen": [[s, rng.choice([-1, 0, 3, 1000, True]), rng.randbytes(32)] for s in range(rng.randrange(10))],
        "kind": rng.choice(["action", "keys", "shuffle", "audit"]),
        "body": body,
        "sig": rng.randbytes(64),
    }


def test_assembled_bytes_equal_the_canonical_encoding() -> None:
    rng = random.Random(16)
    for _ in range(300):
        frame = _frame(rng)
        msg = parse_message(frame)
        assert msg.wire_bytes == encode(msg.to_wire()) == encode(frame)
        assert msg.signed_bytes == encode(msg.fields())
        assert msg.signing_digest(SESSION) == signing_bytes(SESSION, msg.fields())
        assert msg.msg_hash == digest(tags.MSGID, encode(frame))


def test_a_body_without_canonical_form_is_still_refused() -> None:
    frame = _frame(random.Random(1))
    frame["body"] = {"x": 1.5}
    msg: Message = parse_message(frame)
    with pytest.raises(NotCanonical, match="float"):
        _ = msg.signed_bytes


def test_the_values_counted_from_the_body_alone_equal_the_whole_walk() -> None:
    """``lockstep.wire_values`` walks the encoded body only; it must count what the walk of the whole wire form
    counts (``too_dense``'s verdict rests on it), at the nesting limit and past it too."""
    from p2php.net.framing import MAX_DEPTH, FrameError, body_values
    from p2php.session.lockstep import too_dense, wire_values

    def nested(levels: int) -> object:
        value: object = 1
        for i in range(levels):
            value = [value] if i % 2 else {"k": value}
        return value

    rng = random.Random(17)
    bodies: list[dict[str, object]] = [_frame(rng)["body"] for _ in range(200)]  # type: ignore[misc]
    bodies += [{"deep": nested(levels)} for levels in range(MAX_DEPTH - 4, MAX_DEPTH + 2)]
    bodies += [{"action": {1: "x"}}, {"keys": [[i, rng.randbytes(32)] for i in range(40)]}, {"a": [[1]] * 500}, {}]
    walked = refused = 0
    for body in bodies:
        frame = _frame(rng)
        frame["body"] = body
        msg = parse_message(frame)
        try:
            whole = body_values(msg.wire_bytes)
        except FrameError:  # (body_values never raises: it says 0 for a body it refuses)
            raise AssertionError("unreachable") from None
        assert wire_values(msg) == whole
        assert too_dense(msg.wire_bytes, wire_values(msg)) == too_dense(msg.wire_bytes)
        walked += 1
        refused += whole == 0
    assert walked == len(bodies) and refused >= 3  # the bodies nested past the limit and the int-keyed map


def test_the_body_walk_counts_as_the_whole_walk_on_every_message_a_game_checks(
        monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    """Every message ``signed_shape_fault`` judges in real games (compact rebuilds, full-form answers, relays, the
    audit, and ``p2php verify``'s replay of the record): ``wire_values`` says what the whole walk says. Catches an
    envelope that gains a field or a value the fixed count (``_ENVELOPE_VALUES``) does not know of (rv7-density)."""
    from pathlib import Path

    from p2php.engine.contract import RandomBot
    from p2php.net.framing import body_values
    from p2php.session import lockstep, transcript
    from p2php.session.memory import make_peers, run_in_memory

    counted = lockstep.wire_values
    kinds: set[str] = set()

    def both(msg: Message) -> int:
        new = counted(msg)
        assert new == body_values(msg.wire_bytes), (msg.kind, msg.seq, msg.sender)
        kinds.add(msg.kind)
        return new

    monkeypatch.setattr(lockstep, "wire_values", both)
    for options, compact in (({}, True), ({"crypto": "verified"}, False)):
        peers = make_peers("toy", 3, options, seed=9)
        run_in_memory(peers, {s: RandomBot(f"9/{s}") for s in range(3)}, compact=compact)
        assert all(p.verdict is not None and p.verdict.clean for p in peers)
        assert transcript.verify(transcript.save(peers[0], Path(str(tmp_path)) / f"{compact}.p2php")).ok
    assert {"keys", "action", "audit", "deckkey", "pass"} <= kinds, kinds
