"""A lie at a sealed decision, read by a peer that stopped before it applied the answers (red-team rt8-verify).

``toy-holder`` (tests/sealed_holder.py): every seat says, sealed, whether it holds card 0; the holder that says it
does not passes every other seat's check, and the answers fail only together. Seat 3's phase-1 answer reaches seat 0
only once seat 0 audits (it stops on the abort of a seat that applied the batch). Before, seat 0 never took a sealed
decision's answers for the batch (``_stopped_answers``, ``_refused_together``): in a verified deck, with the liar's
audit withheld, it named the liar ``refused_audit`` and ``p2php verify`` of its record nobody; in a fast deck, with
the liar's audit sent (every face known), it named nobody at all — while the seats that applied the batch named the
liar ``hidden_lie``. Each answer is taken only if its nonce opens its sender's signed commitment.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from held_delivery import run_holding
from sealed_holder import ensure, hide_the_holder

from p2php.session import transcript
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers
from p2php.session.records import Fault, FaultCode, FaultError


def _stopped_before(crypto: str, seed: int, withhold: bool, lie: bool = True) -> tuple[list[int], list[Lockstep]]:
    peers = make_peers(ensure(), 4, {"crypto": crypto}, seed=seed)
    liar: list[int] = []
    for p in peers:
        if lie:
            hide_the_holder(p, liar)
        else:
            send = p._send

            def accusing(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
                msg = send(kind, body)
                if p.seat == 3 and kind == "action" and not p.auditing:  # a groundless abort once it answered
                    with contextlib.suppress(FaultError):
                        p._raise_fault(Fault(0, "lied", (p.tick, 0), FaultCode.HIDDEN_LIE))
                return msg

            p._send = accusing  # type: ignore[method-assign]
        poll = p.poll

        def withholding(p: Lockstep = p, poll: Any = poll) -> list[Any]:
            holder = p.seat in liar or (not lie and p.seat is not None and 0 in [
                p.private_faces.get(s) for s in p.state.hands[p.seat]])
            return [m for m in poll() if not (withhold and holder and m.kind == "audit")]

        p.poll = withholding  # type: ignore[method-assign]
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == 3 and wire.get("kind") == "action", seed)
    assert peers[0].refused_answers == []  # seat 0 never applied the batch
    return liar, peers


@pytest.mark.parametrize(("crypto", "seed", "withhold"), [
    pytest.param("verified", 1, True, marks=pytest.mark.crypto("verified")),
    pytest.param("verified", 4, True, marks=pytest.mark.crypto("verified")),
    pytest.param("fast", 5, False, marks=pytest.mark.crypto("fast")),
])
def test_a_liar_at_a_sealed_decision_is_named_by_a_peer_stopped_before_its_answers(
        crypto: str, seed: int, withhold: bool, tmp_path: Path) -> None:
    liar, peers = _stopped_before(crypto, seed, withhold)
    assert liar and liar[0] != 0
    for p in peers:
        if p.seat == liar[0]:
            continue
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar[0], "hidden_lie"), (p.seat, v)
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        replayed = result.spectator.verdict if result.spectator is not None else None
        assert replayed is not None and (replayed.culprit, replayed.code) == (liar[0], "hidden_lie"), result.lines


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 4])
def test_an_honest_holders_lost_audit_at_a_sealed_decision_names_no_liar(seed: int, tmp_path: Path) -> None:
    """The control: every answer honest, seat 3 aborts groundlessly once it answered, seat 0 stops before it applies
    the batch, and the holder's audit never comes. The batch applies, so nobody is named ``hidden_lie``."""
    _, peers = _stopped_before("verified", seed, withhold=True, lie=False)
    for p in peers:
        if p.seat == 3:
            continue
        v = p.verdict
        assert v is not None and v.code != "hidden_lie", (p.seat, v)
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        replayed = result.spectator.verdict if result.spectator is not None else None
        assert replayed is not None and replayed.code != "hidden_lie", result.lines


def test_answers_are_refused_together_only_when_every_seat_answered_once_and_two_at_least() -> None:
    """``_refused_together``'s conditions on the batch, on toy-holder's decision (every answer passes its check, the
    whole batch fails: no seat says it holds card 0): two seats' answers are a refusal together; a decision of one
    seat (its answer refused on its own: the peers that applied it named it at once) or a batch that is not every
    seat's answer once (here one seat's twice) is none, so the elimination never runs on it."""
    from sealed_holder import HolderGame, HolderState

    from p2php.engine.contract import Decide
    from p2php.session.audit import _refused_together

    no = {"type": "not_holder"}
    options = HolderGame().parse_options({})

    def at_the_decision(players: int) -> tuple[HolderState, Decide]:
        state = HolderState(players, options)
        state.phase = "bid"  # (no deal: every hand empty, every not_holder passes its check)
        return state, Decide(tuple(range(players)), "holder", sealed=True)

    state, step = at_the_decision(2)
    assert _refused_together(state, step, [(0, no), (1, no)], {}, {}) == [(0, no), (1, no)]
    assert _refused_together(state, step, [(0, no), (0, no)], {}, {}) == []
    state, step = at_the_decision(1)
    assert _refused_together(state, step, [(0, no)], {}, {}) == []


def test_a_stopped_sealed_answer_is_opened_against_the_commitment_of_its_own_decision() -> None:
    """``_sealed_answer`` opens a phase-1 answer with the sender's commit of this decision (``(tick, 0)``), not the
    first commit in its record: at a game's second sealed decision, an earlier decision's commit opens nothing, and
    the stopped peer would drop every answer (its liar left to ``refused_audit`` or nobody)."""
    from types import SimpleNamespace

    from p2php.canonical import encode
    from p2php.crypto import beacon
    from p2php.session.audit import _sealed_answer

    context = b"seal context of seat 1"
    action = {"type": "not_holder"}
    nonce, old_nonce = bytes(range(32)), bytes(32)
    msg = SimpleNamespace
    earlier = msg(kind="commit", at=(3, 0), body={"commit": beacon.commit(context, encode({"type": "holder"}),
                                                                           old_nonce)})
    own = msg(kind="commit", at=(9, 0), body={"commit": beacon.commit(context, encode(action), nonce)})
    answer = msg(kind="action", at=(9, 1), body={"action": action, "nonce": nonce})
    ls: Any = SimpleNamespace(tick=9, processed={1: {4: earlier, 11: own, 12: answer}},
                              _seal_context=lambda seat: context)
    assert _sealed_answer(ls, 1, answer) == action
    ls.processed[1] = {4: earlier, 12: answer}  # no commit of this decision: nothing opens it
    assert _sealed_answer(ls, 1, answer) is None
