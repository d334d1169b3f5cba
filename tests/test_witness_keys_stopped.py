"""A verified deck's audit opens an answer's witness with the shares the seats' signed ``keys`` of that decision
released, also at a peer that stopped on an abort before it took them (protocol.md §10.6, red-team rt10-red).

A Hogwarts seat answers a duel's defence with a card of its hand that is no defence card (only its face says so),
then its own peer aborts (its check knows the face). The honest peer that took the other seat's keys opened the
card, applied and named it; the one that took the abort first read those keys only in the audit round, so the
witness stayed shut for it: it ended ``accusation`` (nobody named), as did ``p2php verify`` of its record.

Only each seat's one keys message of that decision is read (red-team rv10-red: every ``keys`` of the tick was
proof-checked, each share it listed, so a liar's keys queued behind its abort, each listing its witness slot
thousands of times, cost every peer stopped there, and a verifier, seconds of proofs each).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p2php.bots import RandomBot
from p2php.crypto import secp256k1
from p2php.crypto import verified_deck as vd
from p2php.session import audit, transcript
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory

SEED, CHEATER = 404, 2
LIE = {"type": "card", "slot": 123}  # Expelliarmus (an attack card) as a defence


def _play(flood: int = 0) -> list[Lockstep]:
    """The game, the liar's answer followed by ``flood`` signed ``keys`` messages at a later phase of its tick (queued
    behind its own abort), each listing its witness slot 500 times with one proof that fails."""
    peers = make_peers("hogwarts", 3, {"length": "quick", "mode": "qualified"}, seed=SEED)
    cheat, count = peers[CHEATER], {"n": 0}
    act = cheat.act
    junk = secp256k1.base_mul(7).encode()

    def lying_act(action: dict[str, Any]) -> None:
        if count["n"] or cheat.state.step().prompt != "defend" or LIE["slot"] not in cheat.state.hand[CHEATER]:
            act(action)
            return
        count["n"] += 1
        cheat._send("action", cheat._action_body(LIE))  # a modified client: no check of its own answer
        phase, cheat.phase = cheat.phase, 7
        for _ in range(flood):
            cheat._send("keys", {"shares": [[LIE["slot"], junk]] * 500, "proofs": [b"\x01" * 64]})
        cheat.phase = phase

    cheat.act = lying_act  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(f"{SEED}/{s}") for s in range(3)})
    assert count["n"] == 1
    return peers


def test_a_lie_opened_by_keys_read_in_the_audit_round_is_named_by_every_honest_peer(tmp_path: Path) -> None:
    peers = _play()
    for p in peers[:CHEATER]:
        assert p.vdeck is not None and p.verdict is not None
        assert (p.verdict.culprit, p.verdict.code) == (CHEATER, "hidden_lie"), (p.seat, p.verdict)
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        v = result.spectator.verdict if result.spectator is not None else None
        assert v is not None and (v.culprit, v.code) == (CHEATER, "hidden_lie"), (p.seat, result.lines)


def test_only_each_seats_keys_message_of_the_decision_is_proof_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = {"in": False, "shares": 0}
    released_at, check_shares = audit._released_at, vd.check_shares

    def counting_released_at(*args: Any) -> None:
        checked["in"] = True
        try:
            released_at(*args)
        finally:
            checked["in"] = False

    def counting_check_shares(*args: Any, **kwargs: Any) -> None:
        if checked["in"]:
            checked["shares"] += len(args[3])
        check_shares(*args, **kwargs)

    monkeypatch.setattr(audit, "_released_at", counting_released_at)
    monkeypatch.setattr(vd, "check_shares", counting_check_shares)
    peers = _play(flood=4)
    for p in peers[:CHEATER]:
        assert p.verdict is not None and p.verdict.culprit == CHEATER, (p.seat, p.verdict)
    assert checked["shares"] <= 3 * len(peers), checked  # (before: 2 000 at each peer, the liar's own included)
