"""A lie that shows only when a multi-seat decision's answers are applied together never convicts an honest seat.

HP Sha's set-up asks every seat at once: the Minister reveals its identity card, the others answer
``not_minister``. A Minister that answers ``not_minister`` passes every honest peer's check (nobody else sees its
card); ``apply`` then refuses the set ("exactly one seat must reveal the minister, not 0"). Lockstep looked for
the culprit by applying prefixes, which a TaskGame only checks: every prefix passed and the last seat of the
decision was named, whoever lied (before: an honest seat 3 convicted, ``illegal_action``, in both decks).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from held_delivery import run_holding

from p2php.bots import RandomBot
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory

PLAYERS = 4


def _hide_the_minister(peer: Lockstep, liar: list[int]) -> None:
    send = peer._send

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and body["action"].get("type") == "reveal_identity":
            liar.append(peer.seat)  # only the seat dealt the Minister is ever asked to reveal
            body = {k: ([] if isinstance(v, list) else v) for k, v in body.items()}  # no key released
            body["action"] = {"type": "not_minister"}
        return send(kind, body)

    peer._send = cheating_send  # type: ignore[method-assign]


def _a_hidden_minister(crypto: str, seed: int) -> tuple[int, list[Lockstep]]:
    """A 4-seat HP Sha game whose Minister (not the last seat, for these seeds) hides its card: its seat, and the
    honest peers once they finished."""
    peers = make_peers("hpsha", PLAYERS, {"crypto": crypto}, seed=seed)
    liar: list[int] = []
    for p in peers:
        _hide_the_minister(p, liar)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(PLAYERS)})
    assert liar and liar[0] != PLAYERS - 1
    honest = [p for p in peers if p.seat != liar[0]]
    assert all(p.finished for p in honest)
    return liar[0], honest


@pytest.mark.crypto("fast")
@pytest.mark.parametrize("seed", [1, 2])  # the Minister is seat 0 and seat 1 (v9 deals): not the last seat
def test_a_minister_hiding_its_card_is_named_by_the_fast_audit_never_the_last_seat(seed: int) -> None:
    """Every answer passed its check, so the decision's failure names nobody at once; the fast deck's audit opens
    every card and checks the answers again: the Minister's ``not_minister`` was a lie (``hidden_lie``)."""
    liar, honest = _a_hidden_minister("fast", seed)
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])  # the Minister is seat 1 and seat 2 (v10 deals)
def test_a_minister_hiding_its_card_in_a_verified_deck_never_gets_an_honest_seat_named(seed: int) -> None:
    """Never an honest seat (the witness opened by the audits names the liar: the next test)."""
    liar, honest = _a_hidden_minister("verified", seed)
    for p in honest:
        assert p.verdict is not None and not p.verdict.clean and p.verdict.culprit in (None, liar), (p.seat, p.verdict)


@pytest.mark.crypto("fast")
@pytest.mark.parametrize("seed", [1, 2])
def test_a_peer_that_hears_the_abort_before_the_last_answer_names_the_minister_too(seed: int) -> None:
    """Seat 3's identity answer reaches seat 0 only after another peer's abort: seat 0 never applies the batch (so
    it keeps no ``refused_answers``), but its audit holds the same signed answers and knows every face, so it
    must name the same liar as the peers that applied it (before: ``unfinished`` / ``accusation``, nobody)."""
    _abort_before_the_last_answer("fast", seed)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_a_verified_peer_that_hears_the_abort_before_the_last_answer_names_the_minister_too(seed: int) -> None:
    """The same delivery order in a verified deck: seat 0 stopped before it applied the batch, yet the liar's audit,
    signed at the decision, opens its witness there too (v9)."""
    _abort_before_the_last_answer("verified", seed)


def _abort_before_the_last_answer(crypto: str, seed: int) -> None:

    peers = make_peers("hpsha", PLAYERS, {"crypto": crypto}, seed=seed)
    liar: list[int] = []
    for p in peers:
        _hide_the_minister(p, liar)
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == 3 and wire.get("kind") == "action", seed)
    assert liar and peers[0].refused_answers == []
    for p in peers:
        if p.seat != liar[0]:
            assert p.verdict is not None and (p.verdict.culprit, p.verdict.code) == (liar[0], "hidden_lie"), p.seat


@pytest.mark.crypto("fast")
def test_a_fast_minister_that_withholds_its_audit_is_named_by_the_deadline_only(tmp_path: Any) -> None:
    """Fast deck: the Minister answers ``not_minister``, then its audit never comes. Without its secret no face
    opens, and the elimination the verified deck uses is not sound here (a pass between the withholder's two passes
    cannot be recomputed, so a cheater there could have dealt a deal with no Minister, and an honest seat whose audit
    was lost would be the one unproven: protocol.md §10.4, rt7-verify). So the seats name it ``refused_audit`` and
    a verifier of their records nobody — never ``hidden_lie``, never an honest seat."""
    from p2php.session import transcript

    peers = make_peers("hpsha", PLAYERS, {"crypto": "fast"}, seed=1)
    liar: list[int] = []
    for p in peers:
        _hide_the_minister(p, liar)
    run_in_memory(peers, {s: RandomBot(10 + s) for s in range(PLAYERS)},
                  tamper=lambda s, r, f: None if liar and s == liar[0] and f.get("kind") == "audit" else f)
    assert liar
    for p in peers:
        if p.seat == liar[0]:
            continue
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar[0], "refused_audit"), (p.seat, v)
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        replayed = result.spectator.verdict if result.spectator is not None else None
        assert replayed is not None and replayed.culprit is None, result.lines


@pytest.mark.crypto("fast")
@pytest.mark.parametrize("liar", [0, 1, 3])  # seed 3: the Minister is seat 2 (v9 deals)
def test_a_seat_revealing_an_identity_that_is_not_the_ministers_is_named_at_once(liar: int) -> None:
    """The other way round: a seat that is not the Minister reveals its identity card beside the real Minister's.
    The first batch that fails once the faces it opened are known ends with that seat's answer (a shorter batch
    for seats 0 and 1; for the last seat, its own answer checked with the faces): that seat is named at once,
    ``illegal_action``, whatever its place in the decision."""
    peers = make_peers("hpsha", PLAYERS, {"crypto": "fast"}, seed=3)
    cheat = peers[liar]
    act = cheat.act

    def lying_act(action: Any) -> None:
        if isinstance(action, dict) and action.get("type") == "not_minister":
            cheat._send("action", cheat._action_body({"type": "reveal_identity"}))  # past its own check
            return
        act(action)

    cheat.act = lying_act  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(10 + s) for s in range(PLAYERS)})
    for p in peers:
        if p.seat != liar:
            assert p.finished and p.verdict is not None
            assert (p.verdict.culprit, p.verdict.code) == (liar, "illegal_action"), (p.seat, p.verdict)


# ----------------------------------------------------------------------------- a verified deck's witness (§6.4, v9)


def _verified_liar(seed: int, audit: str = "honest", lost: tuple[str, ...] = (),
                   lie: bool = True) -> tuple[int, list[Lockstep]]:
    """A verified HP Sha game whose Minister hides its card, and whose audit is then ``honest`` (its witness
    share, as the reference makes it), ``none`` (leaves the witness out), ``wrong`` (another slot's share in its
    place) or ``later`` (signed at the next tick, as if it had passed the decision). ``lost``: whose audit never
    reaches any other seat (``"liar"``: the Minister withholds it whole; ``"next"``: the honest seat after it, its
    link dropped). ``lie=False``: the Minister reveals its card honestly (its seat is still returned first)."""
    peers = make_peers("hpsha", PLAYERS, {"crypto": "verified"}, seed=seed)
    liar: list[int] = []
    for p in peers:
        if lie:
            _hide_the_minister(p, liar)
        else:
            send0 = p._send

            def noting(kind: str, body: dict[str, Any], p: Lockstep = p, send0: Any = send0) -> Any:
                if kind == "action" and body["action"].get("type") == "reveal_identity":
                    liar.append(p.seat or 0)
                return send0(kind, body)

            p._send = noting  # type: ignore[method-assign]
        if audit == "none":
            p._own_witness = lambda p=p: {} if p.seat in liar else Lockstep._own_witness(p)  # type: ignore[method-assign]
        elif audit == "wrong":
            def wrong(p: Lockstep = p) -> dict[str, list[Any]]:
                out = Lockstep._own_witness(p)
                if p.seat in liar and out:
                    assert p.vdeck is not None and p.seat is not None
                    other = p.state.identity_slot[(p.seat + 1) % PLAYERS]
                    share = p.vdeck.own_items([other], phase="witness")["shares"][0][1]
                    out = {**out, "shares": [[slot, share] for slot, _ in out["shares"]]}
                return out
            p._own_witness = wrong  # type: ignore[method-assign]
        elif audit == "later":
            send = p._send

            def later(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
                if kind == "audit" and p.seat in liar:
                    p.tick += 1
                    try:
                        return send(kind, {k: v for k, v in body.items() if k not in ("shares", "proofs")})
                    finally:
                        p.tick -= 1
                return send(kind, body)

            p._send = later  # type: ignore[method-assign]
    def drop(sender: int, to: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if not liar or frame.get("kind") != "audit":
            return frame
        gone = ({liar[0]} if "liar" in lost else set()) | ({(liar[0] + 1) % PLAYERS} if "next" in lost else set())
        return None if sender in gone else frame

    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(PLAYERS)}, tamper=drop if lost else None)
    assert liar
    honest = [p for p in peers if p.seat != liar[0]] if lie else list(peers)
    assert all(p.finished for p in honest)
    return liar[0], honest


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_a_verified_minister_hiding_its_card_is_named_by_its_own_witness_share(seed: int) -> None:
    """Every seat that answered the decision opens, in its audit, the cards its answer's check needs (its own
    identity card): the Minister's opens to the Minister, so its ``not_minister`` is named ``hidden_lie`` by
    every honest peer (before: unattributed), and a spectator's replay of the record agrees."""
    liar, honest = _verified_liar(seed)
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)
    audits = [m for m in honest[0].transcript if m.kind == "audit"]
    assert len(audits) == PLAYERS and all(len(m.body.get("shares", [])) == 1 for m in audits)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("audit", ["none", "wrong"])
def test_a_verified_liar_that_keeps_its_witness_back_is_named_bad_audit(audit: str) -> None:
    """Its witness follows from its own signed answer, so leaving it out, or proving another slot's share in its
    place, names it (``bad_audit``) at every honest peer: no way out but withholding the whole audit."""
    liar, honest = _verified_liar(1, audit)
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "bad_audit"), (p.seat, v)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("how", ["later", "withheld"])
def test_a_verified_liar_whose_witness_never_opens_is_named_by_the_others_witnesses(seed: int, how: str) -> None:
    """An audit signed past the decision owes no witness, and a withheld audit opens none: the liar's answer is the
    one left unproven. The answers were refused together and every other answer is proven legal by its opened
    witness, so every honest peer names it ``hidden_lie`` (before: ``later`` left it unattributed at every peer,
    ``withheld`` was named ``refused_audit``, a judgement of time no record proves; red-team rt6-verify)."""
    liar, honest = _verified_liar(seed, "later") if how == "later" else _verified_liar(seed, lost=("liar",))
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)
        assert "proven legal by its opened witness" in v.reason, v


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_an_honest_ministers_lost_audit_never_gets_it_named_a_liar(seed: int) -> None:
    """The control: the Minister reveals its card honestly and the game goes on; its audit never reaches the others
    (a dropped link). Nothing but the deadline names it (``refused_audit``, a judgement of time), never
    ``hidden_lie``; and with a liar whose audit came, an honest seat's lost audit does not shield or shift it."""
    minister, peers = _verified_liar(seed, lost=("liar",), lie=False)
    for p in peers:
        assert p.verdict is not None and p.verdict.code != "hidden_lie", (p.seat, p.verdict)
    liar, honest = _verified_liar(seed, lost=("next",))
    for p in honest:
        assert p.verdict is not None and (p.verdict.culprit, p.verdict.code) == (liar, "hidden_lie"), p.seat


@pytest.mark.crypto("verified")
def test_two_answers_without_an_opened_witness_name_nobody_by_elimination() -> None:
    """The liar withholds its audit and an honest seat's is lost too: two answers are unproven, so nobody is named
    ``hidden_lie`` by elimination at a peer that lacks both (the deadline still names who it names)."""
    liar, honest = _verified_liar(1, lost=("liar", "next"))
    nxt = (liar + 1) % PLAYERS
    for p in honest:
        v = p.verdict
        assert v is not None and not (v.code == "hidden_lie" and v.culprit == nxt), (p.seat, v)
        if p.seat != nxt:
            assert v.code != "hidden_lie", (p.seat, v)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_a_groundless_abort_at_the_identity_decision_convicts_no_honest_seat(seed: int) -> None:
    """The accuser lies: every seat answers honestly, then seat 3 aborts naming the Minister (``hidden_lie``).
    Every answerer opens its witness; the Minister's opens to the Minister, so its ``reveal_identity`` passes
    and nobody is named (an unconfirmed ``accusation``); the honest seats' identities are what the audit
    shows, the price of a game that ended at that decision."""
    peers = make_peers("hpsha", PLAYERS, {"crypto": "verified"}, seed=seed)
    accuser = peers[PLAYERS - 1]
    send = accuser._send
    done: list[bool] = []

    def accuse(kind: str, body: dict[str, Any]) -> Any:
        msg = send(kind, body)
        if kind == "action" and not done:
            done.append(True)
            victim = 0 if accuser.seat != 0 else 1
            from p2php.session.records import Fault, FaultCode, FaultError
            with contextlib.suppress(FaultError):
                accuser._raise_fault(Fault(victim, "lied about its identity card", (accuser.tick, 0),
                                           FaultCode.HIDDEN_LIE))
        return msg

    accuser._send = accuse  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(PLAYERS)})
    assert done
    for p in peers[:-1]:
        v = p.verdict
        assert v is not None and not v.clean and v.culprit is None and v.code == "accusation", (p.seat, v)
        answered = {m.sender for m in p.transcript if m.kind == "action"}
        opened = {m.sender for m in p.transcript if m.kind == "audit" and m.body.get("shares")}
        assert len(answered) >= 2 and opened == answered, (p.seat, answered, opened)  # each answer's witness opened


def _held_back_bogus(crypto: str, game: str, players: int, seed: int) -> list[Lockstep]:
    """The last seat's first action is one every peer's check refuses (``no_such_action``); its copy to seat 0 is
    held back until seat 0 audits, so seat 0 stops on another seat's abort and reads the action in its audit."""

    peers = make_peers(game, players, {"crypto": crypto}, seed=seed)
    cheat = peers[players - 1]
    send = cheat._send
    done: list[bool] = []

    def bogus(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and not done:
            done.append(True)
            body = {**body, "action": {"type": "no_such_action"}}
        return send(kind, body)

    cheat._send = bogus  # type: ignore[method-assign]
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == players - 1 and wire.get("kind") == "action",
                seed)
    assert done
    return peers


@pytest.mark.crypto("verified")
def test_a_verified_peer_that_reads_a_publicly_illegal_answer_after_the_abort_names_its_sender(tmp_path: Any) -> None:
    """UNO, verified: the last seat plays an action every check refuses, its copy to seat 0 held back until seat 0
    audits. Seat 0 stopped on another seat's abort (no box: no private show is involved) and no witness opens; its
    audit still checks the answers it holds to the step it stopped at, so it names the sender ``hidden_lie``, as the
    fast deck's audit does, and so does ``p2php verify`` of its record (before: ``accusation``, the cheater unnamed
    there; mutation run U)."""
    from p2php.session import transcript

    peers = _held_back_bogus("verified", "uno", 3, 1)
    zero = peers[0]
    assert zero.fault is not None and zero.fault_from not in (None, 0)
    for p in peers[:-1]:
        v = p.verdict
        assert v is not None and v.culprit == 2 and v.code in ("illegal_action", "hidden_lie"), (p.seat, v)
    assert zero.verdict is not None and zero.verdict.code == "hidden_lie"
    result = transcript.verify(transcript.save(zero, tmp_path / "seat0.p2php"))
    assert result.spectator is not None and result.spectator.verdict is not None, result.lines
    assert (result.spectator.verdict.culprit, result.spectator.verdict.code) == (2, "hidden_lie"), result.lines


def _minister_after_a_strange_audit(audit: str) -> tuple[int, list[Lockstep]]:
    """Seed 5: the hiding Minister is seat 1 (v10 deals); seat 0, which answered the same decision before it, sends
    an audit signed at the next tick (``later``: it owes no witness) or proving another slot's share (``wrong``)."""
    peers = make_peers("hpsha", PLAYERS, {"crypto": "verified"}, seed=5)
    liar: list[int] = []
    for p in peers:
        _hide_the_minister(p, liar)
        if p.seat != 0:
            continue
        if audit == "wrong":
            def wrong(p: Lockstep = p) -> dict[str, list[Any]]:
                out = Lockstep._own_witness(p)
                assert p.vdeck is not None and out
                other = p.state.identity_slot[1]
                share = p.vdeck.own_items([other], phase="witness")["shares"][0][1]
                return {**out, "shares": [[slot, share] for slot, _ in out["shares"]]}
            p._own_witness = wrong  # type: ignore[method-assign]
        else:
            send = p._send

            def later(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
                if kind == "audit":
                    p.tick += 1
                    try:
                        return send(kind, {k: v for k, v in body.items() if k not in ("shares", "proofs")})
                    finally:
                        p.tick -= 1
                return send(kind, body)

            p._send = later  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(20 + s) for s in range(PLAYERS)})
    assert liar == [1]
    return 1, [p for p in peers if p.seat not in (0, 1)]


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("audit", ["later", "wrong"])
def test_the_minister_is_named_whatever_the_audit_of_a_seat_that_answered_before_it(audit: str) -> None:
    """Two answerers of one decision (mutation run U): the first one's audit owing nothing (signed later) must not
    stop the check of the second's witness: seats 2 and 3 name the Minister ``hidden_lie``. With the first one's
    witness wrong, both are cheaters found at the same step, (2, 0): the first found, seat 0's ``bad_audit``, is
    named (never an honest seat)."""
    liar, others = _minister_after_a_strange_audit(audit)
    for p in others:
        v = p.verdict
        expected = (liar, "hidden_lie") if audit == "later" else (0, "bad_audit")
        assert v is not None and (v.culprit, v.code) == expected, (p.seat, v)


@pytest.mark.crypto("verified")
def test_a_check_that_fails_otherwise_for_one_answer_does_not_stop_the_check_of_the_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 5 (the hiding Minister is seat 1, v10 deals): the audit's check of seat 0's answer raises something other
    than IllegalAction (no proof against seat 0, skipped): seat 1's answer, next, is still checked and named."""
    from p2php.session import witness

    start = witness.decision_start

    def decision_start(ls: Lockstep, *args: Any) -> Any:
        state, public = start(ls, *args)
        check = state.check

        def failing(seat: int, action: Any, knowledge: Any) -> None:
            if seat == 0:
                raise RuntimeError("an engine fault")
            check(seat, action, knowledge)

        state.check = failing
        return state, public

    monkeypatch.setattr(witness, "decision_start", decision_start)
    liar, honest = _verified_liar(5)
    assert liar == 1
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)
