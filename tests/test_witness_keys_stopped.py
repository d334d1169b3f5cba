"""A verified deck's audit opens an answer's witness with the shares the seats' signed ``keys`` of that decision
released, also at a peer that stopped on an abort before it took them (protocol.md §10.6, red-team rt10-red).

A Hogwarts seat answers a duel's defence with a card of its hand that is no defence card (only its face says so),
then its own peer aborts (its check knows the face). The honest peer that took the other seat's keys opened the
card, applied and named it; the one that took the abort first read those keys only in the audit round, so the
witness stayed shut for it: it ended ``accusation`` (nobody named), as did ``p2php verify`` of its record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from p2php.bots import RandomBot
from p2php.session import transcript
from p2php.session.memory import make_peers, run_in_memory

SEED, CHEATER = 404, 2
LIE = {"type": "card", "slot": 123}  # Expelliarmus (an attack card) as a defence


def test_a_lie_opened_by_keys_read_in_the_audit_round_is_named_by_every_honest_peer(tmp_path: Path) -> None:
    peers = make_peers("hogwarts", 3, {"length": "quick", "mode": "qualified"}, seed=SEED)
    cheat, count = peers[CHEATER], {"n": 0}
    act = cheat.act

    def lying_act(action: dict[str, Any]) -> None:
        if count["n"] or cheat.state.step().prompt != "defend" or LIE["slot"] not in cheat.state.hand[CHEATER]:
            act(action)
            return
        count["n"] += 1
        cheat._send("action", cheat._action_body(LIE))  # a modified client: no check of its own answer

    cheat.act = lying_act  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(f"{SEED}/{s}") for s in range(3)})
    assert count["n"] == 1
    for p in peers[:CHEATER]:
        assert p.vdeck is not None and p.verdict is not None
        assert (p.verdict.culprit, p.verdict.code) == (CHEATER, "hidden_lie"), (p.seat, p.verdict)
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        v = result.spectator.verdict if result.spectator is not None else None
        assert v is not None and (v.culprit, v.code) == (CHEATER, "hidden_lie"), (p.seat, result.lines)
