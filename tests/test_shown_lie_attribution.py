"""A verified liar whose answer opens a card, read by a peer that stopped before it applied the answers (rt10-attrib).

``toy-holder-shown`` (tests/sealed_holder.py): every seat says, sealed, whether it holds card 0, and every answer also
opens the answerer's last hand card (its own share in its signed ``action``, the others' public since the deal). The
holder says it does not and withholds its audit; seat 3's answer reaches seat 0 only once seat 0 audits (it stops on
the abort of a seat that applied the batch). The seats that applied the batch open the answers' cards and name the
liar ``hidden_lie``: by elimination (the answers fail together, every other answer proven by its opened witness), or,
when the card its answer opens is card 0, by the check of its answer with that face. Before, seat 0 and ``p2php
verify`` of its record took no batch that opens a card (``_refused_together``) and checked no answer with the faces it
opens: the liar was named ``refused_audit`` at seat 0 (a judgement of time) and nobody by the verifier. Now those
faces are rebuilt from the shares in the record, each checked against its proof as the peers that applied the batch
checked it; a missing or failing share leaves the decision undecided, and honest answers are never named.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from held_delivery import run_holding
from sealed_holder import ensure, hide_the_holder

from p2php.engine.contract import Decide
from p2php.session import audit, transcript, witness
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers
from p2php.session.records import Fault, FaultCode, FaultError


def _stopped_before(seed: int, lie: bool = True, shown: str = "own") -> tuple[int, list[Lockstep]]:
    """The run; the holder's seat (the liar, with ``lie``) and the peers. ``lie=False``: every answer honest, seat 3
    aborts groundlessly once it answered; the holder's audit is withheld either way. ``shown="next"``: the answers
    open the next seat's card (its share in its ``keys`` message)."""
    peers = make_peers(ensure(shown), 4, {"crypto": "verified"}, seed=seed)
    liar: list[int] = []
    for p in peers:
        if lie:
            hide_the_holder(p, liar)
        else:
            send = p._send

            def accusing(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
                msg = send(kind, body)
                if p.seat == 3 and kind == "action" and not p.auditing:
                    with contextlib.suppress(FaultError):
                        p._raise_fault(Fault(0, "lied", (p.tick, 0), FaultCode.HIDDEN_LIE))
                return msg

            p._send = accusing  # type: ignore[method-assign]
        poll = p.poll

        def withholding(p: Lockstep = p, poll: Any = poll) -> list[Any]:
            holder = p.seat in liar or (not lie and p.seat is not None and 0 in [
                p.private_faces.get(s) for s in p.state.hands[p.seat]])
            return [m for m in poll() if not (holder and m.kind == "audit")]

        p.poll = withholding  # type: ignore[method-assign]
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == 3 and wire.get("kind") == "action", seed)
    assert peers[0].refused_answers == []  # seat 0 never applied the batch
    holder = liar[0] if lie else next(p.seat for p in peers if p.seat is not None and 0 in [
        p.private_faces.get(s) for s in p.state.hands[p.seat]])
    return holder, peers


def _verified(p: Lockstep, tmp_path: Path) -> tuple[int | None, str]:
    result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None, result.lines
    return v.culprit, v.code


def _batch_faces(p: Lockstep) -> Any:
    state, _ = witness.decision_start(p)
    assert isinstance(p.step, Decide)
    return audit._batch_faces(p, state, p.step, audit._stopped_answers(p))


@pytest.mark.crypto("verified")
@pytest.mark.parametrize(("seed", "shown"), [
    (1, "own"), (2, "own"), (3, "own"),  # seed 2: the card the liar's answer opens is card 0 itself
    (5, "next"), (8, "next"),  # the next seat's shares, in its keys message (seed 5: the liar's own card is card 0)
])
def test_a_liar_whose_answer_opens_a_card_is_named_by_a_peer_stopped_before_its_answers(
        seed: int, shown: str, tmp_path: Path) -> None:
    liar, peers = _stopped_before(seed, shown=shown)
    assert liar != 0
    for p in peers:
        if p.seat == liar:
            continue
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)
        assert _verified(p, tmp_path) == (liar, "hidden_lie"), p.seat
    assert _batch_faces(peers[0]), "seat 0 rebuilt the faces the answers open"


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_honest_answers_that_open_cards_at_a_peer_stopped_before_them_name_no_liar(seed: int, tmp_path: Path) -> None:
    """The control: every answer honest (each opens a card), seat 3 aborts groundlessly once it answered, seat 0
    stops before it applies the batch, and the holder's audit never comes. Seat 0 rebuilds the faces; the batch
    applies with them, so nobody is named ``hidden_lie`` there, nor by a verifier of any record."""
    _, peers = _stopped_before(seed, lie=False)
    assert _batch_faces(peers[0])
    for p in peers:
        if p.seat == 3:
            continue  # the accuser
        v = p.verdict
        assert v is not None and v.code != "hidden_lie", (p.seat, v)
        assert _verified(p, tmp_path)[1] != "hidden_lie", p.seat


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("how", ["missing", "bad"])
def test_a_share_missing_or_failing_its_proof_leaves_the_decision_undecided(seed: int, how: str) -> None:
    """Seat 0's record with one share the re-applied batch needs gone (another seat's, public since the deal) or
    replaced in an honest answer's signed body (it fails its proof): no face is rebuilt and nobody is named
    ``hidden_lie`` by seat 0's audit of the decision, neither by elimination nor by a check with an unproven face."""
    liar, peers = _stopped_before(seed)
    ls = peers[0]
    assert ls.vdeck is not None
    assert any(f.code == FaultCode.HIDDEN_LIE for f in audit._verified_witness(ls))  # intact: named
    state, _ = witness.decision_start(ls)
    honest = next(s for s in (1, 2, 3) if s != liar)
    slot = state.hands[honest][-1]
    if how == "missing":
        other = next(s for s in range(4) if s not in (honest, liar))
        del ls.vdeck.shares[slot][other]
    else:
        msg = next(m for m in ls.processed[honest].values() if m.kind == "action" and m.at == (ls.tick, 1))
        wrong = ls.vdeck.shares[state.hands[honest][0]][liar].encode()  # a point, but no share of this slot
        msg.body["shares"] = [[s, wrong] for s, _ in msg.body["shares"]]
    assert _batch_faces(ls) is None
    assert not any(f.code == FaultCode.HIDDEN_LIE for f in audit._verified_witness(ls)), how


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [5, 8])
def test_a_keys_phase_share_missing_leaves_the_decision_undecided(seed: int) -> None:
    """The answers open the next seat's card: with the keys message of one seat that owed a share left out of seat 0's
    record, no face is rebuilt and nobody is named ``hidden_lie`` by seat 0's audit of the decision."""
    liar, peers = _stopped_before(seed, shown="next")
    ls = peers[0]
    assert any(f.code == FaultCode.HIDDEN_LIE for f in audit._verified_witness(ls))
    keys = [(s, m.seq) for s in range(4) if s != liar for m in ls.processed[s].values()
            if m.kind == "keys" and m.at[0] == ls.tick]
    assert keys
    del ls.processed[keys[0][0]][keys[0][1]]
    assert _batch_faces(ls) is None
    assert not any(f.code == FaultCode.HIDDEN_LIE for f in audit._verified_witness(ls))


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_an_answer_whose_check_leaves_its_opened_face_to_apply_proves_nothing(seed: int, tmp_path: Path) -> None:
    """``toy-holder-claim``: the holder's answer opens its card 0, and its check takes any card of its hand (the
    engine contract lets a check leave the face an answer opens to ``apply``). A non-holder claims card 0 with a card
    of its own, so the answers fail together; an honest seat answers ``not_holder`` and its audit is lost on every
    link; seat 0 stops before the batch. The false claim's check passes without asking the face it opens, so it is
    no proof: nobody is named ``hidden_lie``, at any seat or by a verifier (before, rv10-attrib: the honest seat whose
    audit was lost, the one answer left unproven, at every seat, seat 0 and every verifier included)."""
    peers = make_peers(ensure("claim"), 4, {"crypto": "verified"}, seed=seed)
    roles: dict[str, int] = {}

    def cast() -> None:
        if not roles:
            holder = next(q.seat for q in peers if q.seat is not None and 0 in [
                q.private_faces.get(s) for s in q.state.hands[q.seat]])
            cheater, lost = [s for s in (1, 2, 3) if s != holder][:2]
            roles.update(cheater=cheater, lost=lost)

    for p in peers:
        act, poll = p.act, p.poll

        def claiming(action: Any, p: Lockstep = p, act: Any = act) -> Any:
            cast()
            if p.seat == roles["cheater"] and isinstance(action, dict) and action.get("type") == "not_holder":
                return act({"type": "holder", "slot": p.state.hands[p.seat][0]})
            return act(action)

        def losing(p: Lockstep = p, poll: Any = poll) -> list[Any]:
            return [m for m in poll() if not (roles and p.seat == roles["lost"] and m.kind == "audit")]

        p.act = claiming  # type: ignore[method-assign]
        p.poll = losing  # type: ignore[method-assign]
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == 3 and wire.get("kind") == "action", seed)
    assert peers[0].refused_answers == [] and peers[1].refused_answers  # seat 0 stopped before the batch
    assert _batch_faces(peers[0])  # the faces were rebuilt
    for p in peers:
        v = p.verdict
        assert v is not None and v.code != "hidden_lie", (p.seat, v)
        assert _verified(p, tmp_path)[1] != "hidden_lie", p.seat
