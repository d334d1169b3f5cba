"""v9's trust code seen from a record: ``p2php verify`` names whom the table named, with the same code (mutation run U).

The witness shares of a verified audit (p2php/session/witness.py) and the ``box`` of an ``illegal_action`` abort are
proofs anyone can check, so a verifier holding only the signed record reaches the honest peers' verdict: the liar,
its code, never an honest seat. Also the witness module's own edges: the slots it asks for, in order, once each, at
most :data:`~p2php.session.witness.MAX_WITNESS`, never a spent slot, nor anything that is no slot.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from held_delivery import run_holding
from test_multi_answer_attribution import _verified_liar
from test_private_lie_attribution import PLAYERS as UNO_PLAYERS
from test_private_lie_attribution import SEED as UNO_SEED
from test_private_lie_attribution import _lying_verdict, uno_liar

from p2php.bots import RandomBot
from p2php.engine.contract import IllegalAction
from p2php.session import transcript, witness
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory


def _verify(peer: Lockstep, tmp_path: Path) -> transcript.Verification:
    result = transcript.verify(transcript.save(peer, tmp_path / f"seat{peer.seat}.p2php"))
    assert result.spectator is not None and result.spectator.verdict is not None, result.lines
    return result


def _named(result: transcript.Verification) -> tuple[int | None, str]:
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None
    return v.culprit, v.code


# ------------------------------------------------------------------------------------------ the witness shares


@pytest.mark.crypto("verified")
def test_verify_names_the_hidden_minister_from_its_own_witness_share(tmp_path: Path) -> None:
    """HP Sha, verified: the Minister answers ``not_minister``; every honest peer names it ``hidden_lie`` at the
    identity decision, and so does ``p2php verify`` of each honest record, which agrees with the stored verdict."""
    liar, honest = _verified_liar(1)
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)
        assert "opened by the audits" in v.reason and f"step {p.tick}:" in v.reason, v
        result = _verify(p, tmp_path)
        assert _named(result) == (liar, "hidden_lie"), result.lines
        assert not result.ok
        assert not any("recorded verdict" in line for line in result.lines), result.lines
        assert result.lines[-1].startswith(f"audit: seat {liar} "), result.lines


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("audit", ["none", "wrong"])
def test_verify_names_a_witness_kept_back_bad_audit(audit: str, tmp_path: Path) -> None:
    liar, honest = _verified_liar(1, audit)
    for p in honest:
        result = _verify(p, tmp_path)
        assert _named(result) == (liar, "bad_audit"), result.lines
        assert not any("recorded verdict" in line for line in result.lines), result.lines


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("how", ["later", "withheld"])
def test_verify_names_a_liar_whose_witness_never_opens_by_the_others(how: str, tmp_path: Path) -> None:
    """Its audit signed at a later tick (owing no witness there) or withheld whole: the answers were refused
    together and the other answers are proven legal by their witnesses, so ``p2php verify`` of every honest record
    names the liar ``hidden_lie``, as the seats do (before: nobody, while the seats named ``refused_audit`` or
    nobody; red-team rt6-verify)."""
    liar, honest = _verified_liar(1, "later") if how == "later" else _verified_liar(1, lost=("liar",))
    for p in honest:
        result = _verify(p, tmp_path)
        assert _named(result) == (liar, "hidden_lie"), result.lines
        assert not any("recorded" in line for line in result.lines), result.lines


@pytest.mark.crypto("verified")
def test_verify_of_an_honest_seats_lost_audit_names_nobody(tmp_path: Path) -> None:
    """The control: an honest Minister whose audit never came is named by the seats' deadline only; a record
    proves no deadline, so ``p2php verify`` names nobody, and never ``hidden_lie``."""
    minister, peers = _verified_liar(1, lost=("liar",), lie=False)
    for p in peers:
        if p.seat == minister:
            continue
        assert p.verdict is not None and (p.verdict.culprit, p.verdict.code) == (minister, "refused_audit")
        result = _verify(p, tmp_path)
        assert _named(result) == (None, "refused_audit"), result.lines


def _stopped_before_the_batch(seed: int, lie: bool = True) -> tuple[int, list[Lockstep]]:
    """HP Sha, verified: seat 3's identity answer to seat 0 is held until seat 0 audits, so seat 0 stops on another
    seat's abort before it applies the decision's answers and reads seat 3's in its audit round; the Minister's
    audit never leaves it. ``lie``: the Minister answers ``not_minister`` (the seats that applied the batch find it
    refused together and abort, naming nobody); else seat 3 (not the Minister for these seeds) aborts, groundless,
    once it answered, and the Minister reveals its card honestly."""
    from test_multi_answer_attribution import PLAYERS, _hide_the_minister

    peers = make_peers("hpsha", PLAYERS, {"crypto": "verified"}, seed=seed)
    minister: list[int] = []
    for p in peers:
        if lie:
            _hide_the_minister(p, minister)
        send, poll = p._send, p.poll

        def noting(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
            if kind == "action" and body["action"].get("type") == "reveal_identity":
                minister.append(p.seat or 0)
            msg = send(kind, body)
            if not lie and p.seat == PLAYERS - 1 and kind == "action" and not p.auditing:
                from p2php.session.records import Fault, FaultCode, FaultError
                with contextlib.suppress(FaultError):
                    p._raise_fault(Fault(0, "lied about its identity card", (p.tick, 0), FaultCode.HIDDEN_LIE))
            return msg

        def withholding(p: Lockstep = p, poll: Any = poll) -> list[Any]:
            return [m for m in poll() if not (p.seat in minister and m.kind == "audit")]

        if not lie:
            p._send = noting  # type: ignore[method-assign]
        p.poll = withholding  # type: ignore[method-assign]
    run_holding(peers, lambda sender, to, wire: to == 0 and sender == PLAYERS - 1 and wire.get("kind") == "action",
                seed)
    assert minister and minister[0] != PLAYERS - 1 and peers[0].refused_answers == []
    return minister[0], [p for p in peers if p.seat != minister[0]]


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_a_liar_that_withholds_its_audit_at_a_decision_stopped_before_its_answers_is_named(
        seed: int, tmp_path: Path) -> None:
    """Seat 0 never applied the batch (an abort came before the last answer), so it held no ``refused_answers`` to
    eliminate from: it named the Minister ``refused_audit`` (a judgement of time) and ``p2php verify`` of its record
    nobody, while the seats that applied it named ``hidden_lie`` (red-team rt7-verify). Every input of the
    elimination is signed and in the record: each seat's answer, the batch the engine refuses when applied as the
    others did, and every other answer's witness opened by its audit. Seat 0 and a verifier of any honest record now
    name it ``hidden_lie`` too."""
    liar, honest = _stopped_before_the_batch(seed)
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "hidden_lie"), (p.seat, v)
        assert _named(_verify(p, tmp_path)) == (liar, "hidden_lie"), p.seat


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [1, 2])
def test_an_honest_ministers_lost_audit_at_a_decision_stopped_before_its_answers_names_no_liar(
        seed: int, tmp_path: Path) -> None:
    """The control: every answer is honest (the Minister reveals its card), seat 3 aborts groundlessly once it
    answered, seat 0 stops before it applies the batch, and the Minister's audit never comes. The batch applies
    (nothing was refused together), so no honest peer, nor a verifier of its record, names anyone ``hidden_lie``:
    not the Minister, whose witness stays shut (who is named otherwise is a matter of time: ``silent``,
    ``refused_audit``)."""
    minister, peers = _stopped_before_the_batch(seed, lie=False)
    for p in peers:
        if p.seat == 3:
            continue  # the accuser (its own verdict is its own business)
        v = p.verdict
        assert v is not None and v.code != "hidden_lie", (p.seat, v)
        assert _named(_verify(p, tmp_path))[1] != "hidden_lie", p.seat


def _show_toy() -> str:
    """A toy game (tests/toygame.py's) whose bid asks the face of the bidder's first card, with an optional ``show``
    field that ``reveals`` refuses unless it is a card of the bidder's hand, and that ``check`` never looks at: a
    game ``check_game`` passes (no listed action has the field). Registered once, as ``toy-show``."""
    from toygame import ToyGame, ToyState  # type: ignore[import-not-found]

    from p2php.engine.registry import register

    class ShowState(ToyState):  # type: ignore[misc]
        def legal_actions(self, seat: int, knowledge: Any) -> list[dict[str, Any]]:
            if self.phase == "bid":
                f = knowledge.face(self.hands[seat][0])
                return [{"type": "bid", "n": k} for k in range(1 + (2 if f is None else min(2, f % 6)))]
            return list(super().legal_actions(seat, knowledge))

        def check(self, seat: int, action: dict[str, Any], knowledge: Any) -> None:
            super().check(seat, action, knowledge)
            f = knowledge.face(self.hands[seat][0]) if self.phase == "bid" else None
            if f is not None and action["n"] > f % 6:
                raise IllegalAction("bid above your first card")

        def reveals(self, seat: int, action: dict[str, Any]) -> tuple[int, ...]:
            if self.phase == "bid" and "show" in action:
                if type(action["show"]) is not int or action["show"] not in self.hands[seat]:
                    raise IllegalAction("show one of your own cards")
                return (action["show"],)
            return tuple(super().reveals(seat, action))

    class ShowGame(ToyGame):  # type: ignore[misc]
        name = "toy-show"

        def new_state(self, players: int, options: Any) -> ShowState:
            return ShowState(players, self.parse_options(dict(options)))

    register(ShowGame())
    return "toy-show"


@pytest.mark.crypto("verified")
def test_an_answer_whose_reveals_fail_never_gets_an_honest_seats_lost_audit_named(tmp_path: Path) -> None:
    """Seat 3 bids with ``"show": "x"``, which passes the game's check but not its ``reveals``: the seats that got
    it named seat 3 ``illegal_action`` at once (``Lockstep._safe_reveals``), never kept the batch as refused
    together. Seat 1 stopped on their abort before it got seat 3's answer, and seat 0's audit never reached it (a
    dropped link). Rebuilding the batch, seat 1 took the ``reveals`` refusal for a batch refused together, so the
    elimination named the one answer left unproven, honest seat 0's, ``hidden_lie`` — at seat 1 and in ``p2php
    verify`` of its record (rv7-verify; before rt7: ``refused_audit``, a judgement of time, and nobody)."""
    peers = make_peers(_show_toy(), 4, {"crypto": "verified"}, seed=1)
    cheater, stopped = peers[3], peers[1]
    send = cheater._send

    def crafted(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and cheater.state.phase == "bid":  # type: ignore[attr-defined]
            body = {**body, "action": {**body["action"], "show": "x"}}
        return send(kind, body)

    cheater._send = crafted  # type: ignore[method-assign]
    for name in ("receive", "receive_relayed"):
        orig = getattr(stopped, name)

        def dropping(*args: Any, orig: Any = orig) -> Any:
            return None if args[-1].get("from") == 0 and args[-1].get("kind") == "audit" else orig(*args)

        setattr(stopped, name, dropping)
    run_holding(peers, lambda sender, to, wire: to == 1 and sender == 3 and wire.get("kind") == "action", 1)
    assert stopped.refused_answers == [] and all(p.verdict is not None for p in peers)
    assert [(p.verdict.culprit, p.verdict.code) for p in (peers[0], peers[2])] == [(3, "illegal_action")] * 2
    v = stopped.verdict  # (the lost audit is named by the deadline only, as the test above says: not a conviction)
    assert v is not None and v.code != "hidden_lie" and (v.culprit != 0 or v.code == "refused_audit"), v
    assert _named(_verify(stopped, tmp_path))[0] != 0


# -------------------------------------------------------------------------------------------- the abort's box


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("own_abort", [None, "nobody", "another"])
def test_verify_names_the_false_verdict_by_the_challengers_box(own_abort: str | None, tmp_path: Path) -> None:
    """UNO, verified: the challenged player lies in its verdict after showing its hand to the challenger alone (and,
    with ``own_abort``, sends a groundless abort of its own right behind it). Exactly one abort carries a ``box``:
    the challenger's, naming the liar ``illegal_action`` with the key of the liar's show to it; every honest peer and
    ``p2php verify`` of each honest record name the liar, ``illegal_action``, from that box."""
    liar, honest = uno_liar(own_abort)
    for p in honest:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "illegal_action"), (p.seat, v)
        boxed = [m for m in p.transcript if m.kind == "abort" and "box" in m.body]
        assert len(boxed) == 1, boxed
        challenger = boxed[0].sender
        assert boxed[0].body["culprit"] == liar and boxed[0].body["code"] == "illegal_action"
        seq, key = boxed[0].body["box"]
        show = next(m for m in p.transcript if m.sender == liar and m.seq == seq)
        assert show.kind == "show" and show.body["to"] == challenger and isinstance(key, bytes) and len(key) == 32
        if p.seat != challenger:
            assert f"private show {seq} to seat {challenger}" in v.reason, v
        result = _verify(p, tmp_path)
        assert _named(result) == (liar, "illegal_action"), result.lines
        assert not any("recorded verdict" in line for line in result.lines), result.lines
        # The challenger stopped on its own check, before it applied the verdict, which the replay applies: its
        # recorded state is the one the step began in, said so, never a mismatch (before: "the peer's recorded
        # state hash differs from the replay" on the challenger's record; red-team rt6-verify).
        assert not any("state hash differs" in line for line in result.lines), result.lines
        if p.seat == challenger:
            assert any(line.startswith(f"the peer's recorded state is the one step {v_tick(p)} began in")
                       for line in result.lines), result.lines
        spectator = result.spectator
        assert spectator is not None and spectator.verdict is not None
        assert f"private show {seq} to seat {challenger}" in spectator.verdict.reason, spectator.verdict


def v_tick(p: Lockstep) -> int:
    """The step of ``p``'s own abort."""
    return next(m.at[0] for m in p.transcript if m.kind == "abort" and m.sender == p.seat)


@pytest.mark.crypto("verified")
def test_a_recorded_state_that_is_neither_the_replays_nor_its_stop_is_still_a_mismatch(tmp_path: Path) -> None:
    """The challenger's record with another state hash written in (or its own abort's step's state, but in the
    third seat's record, which holds no abort of its own there): ``p2php verify`` reports the mismatch."""
    import msgpack

    liar, honest = uno_liar(None)
    challenger = next(p for p in honest if p.show_box is not None)
    third = next(p for p in honest if p is not challenger)
    start = witness.decision_start(challenger, v_tick(challenger))[0].state_hash()
    for p, fake in ((challenger, bytes(32)), (third, start)):
        path = transcript.save(p, tmp_path / f"seat{p.seat}.p2php")
        data = msgpack.unpackb(path.read_bytes(), raw=False)
        data["verdict"]["state_hash"] = fake
        path.write_bytes(msgpack.packb(data, use_bin_type=True))
        result = transcript.verify(path)
        assert "the peer's recorded state hash differs from the replay" in result.lines, (p.seat, result.lines)


@pytest.mark.crypto("verified")
def test_verify_of_a_challenger_lying_about_a_true_verdict_names_nobody(tmp_path: Path) -> None:
    """The accuser's box opens the player's hand, which proves the verdict right: no peer, nor ``p2php verify``,
    names the player; the challenger's word stays an ``accusation``."""
    peers = make_peers("uno", UNO_PLAYERS, {"crypto": "verified"}, seed=UNO_SEED)
    accusers: list[int] = []
    busy: list[bool] = []
    for p in peers:
        check = p.state.check

        def false_refusal(seat: int, action: Any, kn: Any, p: Lockstep = p, check: Any = check) -> None:
            check(seat, action, kn)
            if action.get("type") == "verdict" and seat != p.seat and not accusers and not busy:
                busy.append(True)
                try:
                    box = p._lie_box(seat, action)
                finally:
                    busy.clear()
                if box:
                    accusers.append(p.seat or 0)
                    raise IllegalAction("invented: the verdict was true")

        p.state.check = false_refusal  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(UNO_SEED * 10 + s) for s in range(UNO_PLAYERS)})
    assert accusers
    for p in peers:
        if p.seat == accusers[0]:
            continue
        result = _verify(p, tmp_path)
        assert _named(result) == (None, "accusation"), result.lines


# ---------------------------------------------------------------------------------------- the witness module


class _Asking:
    """A state whose check asks the face of each slot in ``slots`` (in order), then refuses or raises."""

    def __init__(self, slots: list[Any], end: BaseException | None = None) -> None:
        self.slots = slots
        self.end = end

    def check(self, seat: int, action: Any, knowledge: Any) -> None:
        for s in self.slots:
            knowledge.face(s)
        if self.end is not None:
            raise self.end


class _Table:
    def __init__(self, deck: int, spent: set[int]) -> None:
        self.slot_deck = dict.fromkeys(range(deck), 0)
        self._spent = spent


def test_witness_slots_are_the_hidden_live_slots_asked_in_order_once_each() -> None:
    ls: Any = _Table(200, {7})
    public = {3: 11}
    asked = [5, 3, 5, 7, True, "9", 9, 1000, -1, 2]
    for end in (None, IllegalAction("no"), ValueError("broken")):
        assert witness.witness_slots(ls, _Asking(asked, end), public, 0, {}) == [5, 9, 2]  # type: ignore[arg-type]


def test_witness_slots_are_at_most_max_witness() -> None:
    ls: Any = _Table(200, set())
    many = list(range(witness.MAX_WITNESS + 5))
    assert witness.MAX_WITNESS == 64
    assert witness.witness_slots(ls, _Asking(many), {}, 0, {}) == many[:64]  # type: ignore[arg-type]
    assert witness.witness_slots(ls, _Asking(many[:64]), {}, 0, {}) == many[:64]  # type: ignore[arg-type]


def test_the_recorder_knows_public_faces_and_records_only_hidden_slots() -> None:
    rec = witness.WitnessRecorder({1: 10})
    assert rec.face(1) == 10 and rec.face(2) is None and rec.face(2) is None and rec.asked == [2]
    assert rec.public == {1: 10} and not rec.everything


class _State:
    def __init__(self, h: bytes) -> None:
        self.h = h

    def state_hash(self) -> bytes:
        return self.h


def test_answer_at_is_the_seats_action_at_that_tick_signed_against_that_state() -> None:
    from types import SimpleNamespace as NS

    def msg(kind: str, tick: int, action: Any, state: bytes = b"s") -> Any:
        return NS(kind=kind, at=(tick, 0), body={"action": action}, state=state)

    ls: Any = NS(processed={0: {1: msg("show", 4, {"a": 0}), 2: msg("action", 3, {"a": 1}),
                                3: msg("action", 4, "not a dict"), 4: msg("action", 4, {"a": 2})},
                            1: {1: msg("action", 4, {"b": 1}, state=b"other")}})
    assert witness.answer_at(ls, 0, 4) == {"a": 2}
    assert witness.answer_at(ls, 0, 3) == {"a": 1}
    assert witness.answer_at(ls, 0, 5) is None
    assert witness.answer_at(ls, 0, 4, _State(b"s")) == {"a": 2}  # type: ignore[arg-type]
    assert witness.answer_at(ls, 1, 4) == {"b": 1}
    assert witness.answer_at(ls, 1, 4, _State(b"s")) is None  # type: ignore[arg-type]  # signed against another state
    assert witness.answer_at(ls, 1, 4, _State(b"other")) == {"b": 1}  # type: ignore[arg-type]


@pytest.mark.crypto("verified")
def test_decision_start_is_the_state_and_public_faces_before_that_step() -> None:
    """Rebuilt from the resolved steps before the tick: at the tick we stopped at it is our state, and the faces
    public then are exactly those the earlier steps opened (a face opened at or after the tick is not in it)."""
    _, honest = uno_liar(None)
    p = honest[0]
    state, public = witness.decision_start(p)
    assert state.state_hash() == p.state.state_hash()
    assert public == {s: f for e in p.events for s, f in e.faces.items()} and public
    opened = [e.tick for e in p.events if e.faces]
    tick = opened[-1]
    state, public = witness.decision_start(p, tick)
    assert public == {s: f for e in p.events if e.tick < tick for s, f in e.faces.items()}
    assert not set(next(e for e in p.events if e.tick == tick).faces) <= set(public)
    assert state.state_hash() != p.state.state_hash()


# ------------------------------------------------------------------------------------------ the abort's box key


@pytest.mark.crypto("fast")
def test_a_fast_deck_abort_carries_no_box(tmp_path: Path) -> None:
    """The box of an ``illegal_action`` abort is a verified deck's (§6.4, v9): in a fast deck the challenger still
    names the liar, and no abort carries a message key."""
    peers = make_peers("uno", UNO_PLAYERS, {"crypto": "fast"}, seed=UNO_SEED)
    liar = _lying_verdict(peers, quiet=False)
    run_in_memory(peers, {s: RandomBot(UNO_SEED * 10 + s) for s in range(UNO_PLAYERS)})
    assert liar
    aborts = [m for p in peers for m in p.transcript if m.kind == "abort"]
    assert any(m.body["code"] == "illegal_action" and m.body["culprit"] == liar[0] for m in aborts)
    assert all(p.show_box is None for p in peers) and not any("box" in m.body for m in aborts)
    for p in peers:  # the challenger stopped before it applied the verdict: no spurious state mismatch either
        if p.seat != liar[0]:
            result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
            assert result.spectator is not None and result.spectator.verdict is not None, result.lines
            assert result.spectator.verdict.culprit == liar[0], result.lines
            assert not any("state hash differs" in line for line in result.lines), (p.seat, result.lines)


@pytest.mark.crypto("verified")
def test_the_box_is_the_key_of_the_liars_show_to_us_at_a_tick_that_showed_the_needed_cards() -> None:
    """``_lie_box`` picks, among the accused's shows, only one sent to us at a step whose show held a slot the
    action's check needs: a later show of the accused (to another seat, at another step) is never the box."""
    from types import SimpleNamespace as NS

    liar, honest = uno_liar(None)
    challenger = next(p for p in honest if p.show_box is not None)
    assert challenger.seat is not None
    action = witness.answer_at(challenger, liar, challenger.tick)
    assert action is not None
    box = challenger._lie_box(liar, action)
    assert box == challenger.show_box
    seq = box[0]
    other = next(s for s in range(UNO_PLAYERS) if s not in (liar, challenger.seat))
    later = [NS(kind="show", at=(0, 0), body={"to": challenger.seat}, seq=seq + 100),
             NS(kind="show", at=(challenger.tick, 0), body={"to": other}, seq=seq + 101),
             NS(kind="action", at=(challenger.tick, 0), body={"to": challenger.seat}, seq=seq + 102)]
    for fake in later:
        challenger.processed[liar][fake.seq] = fake  # type: ignore[assignment]
    try:
        assert challenger._lie_box(liar, action) == box
    finally:
        for fake in later:
            del challenger.processed[liar][fake.seq]


@pytest.mark.crypto("verified")
def test_our_witness_is_that_of_our_own_answer_at_the_tick_we_stopped_at() -> None:
    """``_own_witness``: the slots of our answer to the decision we stopped at (an honest HP Sha seat's
    ``not_minister``: its own identity card), not those of an action of ours at another step."""
    from types import SimpleNamespace as NS

    _, honest = _verified_liar(1)
    p = honest[0]
    assert p.seat is not None
    slots = [s for s, _ in p._own_witness()["shares"]]
    assert slots == [p.state.identity_slot[p.seat]]
    fake = NS(kind="action", at=(p.tick - 1, 0), body={"action": {"type": "no such action"}}, seq=-1, sender=p.seat)
    before = p.processed[p.seat]
    p.processed[p.seat] = {-1: fake, **before}  # type: ignore[dict-item]
    try:
        assert [s for s, _ in p._own_witness()["shares"]] == slots
    finally:
        p.processed[p.seat] = before


# ------------------------------------------------------------------------------- boxes that are no proof, and timing


def _junk_boxes(crypto: str) -> tuple[list[Lockstep], list[Any]]:
    """Seat 2, after its first action, sends aborts naming seat 0 ``illegal_action`` at its tick, each with a box of
    another wrong shape (or a key to a message that is no show of seat 0 to seat 2)."""
    peers = make_peers("uno", UNO_PLAYERS, {"crypto": crypto}, seed=UNO_SEED)
    cheat = peers[2]
    send = cheat._send
    boxes: list[Any] = [[10**6, bytes(32)], 5, [1], [1, bytes(32), 0], [True, bytes(32)], [0, b"short"],
                        [0, "k" * 32], [0, bytes(32)]]  # (at most MAX_BOXES_TRIED of one sender are tried)
    done: list[bool] = []

    def flood(kind: str, body: dict[str, Any]) -> Any:
        msg = send(kind, body)
        if kind == "action" and not done:
            done.append(True)
            for box in boxes:
                send("abort", {"culprit": 0, "reason": "junk box", "code": "illegal_action",
                               "at": [cheat.tick, cheat.phase], "evidence": [], "claims": [], "box": box})
        return msg

    cheat._send = flood  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(UNO_SEED * 10 + s) for s in range(UNO_PLAYERS)})
    assert done
    return peers, boxes


@pytest.mark.crypto("verified")
def test_aborts_with_boxes_that_are_no_proof_never_crash_an_audit_nor_name_the_accused(tmp_path: Path) -> None:
    """Each box is refused by its shape (not a pair, a bool for a number, a key of another length or type) or by what
    it points at (no message, a message of seat 0 that is no show to seat 2): the honest seats finish, never name
    seat 0, and ``p2php verify`` of their records agrees."""
    peers, boxes = _junk_boxes("verified")
    for p in peers[:2]:
        assert p.finished and p.verdict is not None, p.seat
        assert p.fault is not None and p.fault_from == 2 and p.fault.culprit == 0
        assert sum(m.kind == "abort" and m.sender == 2 for m in p.transcript) == len(boxes)
        assert p.verdict.culprit != 0 and p.verdict.code == "accusation", (p.seat, p.verdict)
        result = _verify(p, tmp_path)
        assert _named(result) == (None, "accusation"), result.lines


@pytest.mark.crypto("fast")
def test_a_box_in_a_fast_decks_abort_is_ignored() -> None:
    """A fast deck opens no box (its audit opens every card): a boxed abort there is an accusation like any other."""
    peers, _ = _junk_boxes("fast")
    for p in peers[:2]:
        assert p.finished and p.verdict is not None, p.seat
        assert p.verdict.culprit in (None, 2) and p.verdict.code != "internal", (p.seat, p.verdict)  # the audit ran


@pytest.mark.crypto("verified")
def test_a_third_seat_that_hears_the_challengers_abort_before_the_lie_names_the_liar(tmp_path: Path) -> None:
    """The liar's false verdict reaches the third seat only once it audits: it stopped on the challenger's abort at the
    very step of the verdict (its own tick), read the verdict in its audit round, opened the box and names the liar,
    as does ``p2php verify`` of its record."""
    peers = make_peers("uno", UNO_PLAYERS, {"crypto": "verified"}, seed=UNO_SEED)
    liar = _lying_verdict(peers, quiet=True)

    def hold(sender: int, to: int, wire: dict[str, Any]) -> bool:
        return bool(liar) and sender == liar[0] and to != sender and wire.get("kind") == "action" \
            and to == next(s for s in range(UNO_PLAYERS) if s != liar[0] and peers[s].show_box is None
                           and s != _challenger(peers, liar[0]))

    run_holding(peers, hold, UNO_SEED)
    assert liar
    third = peers[next(s for s in range(UNO_PLAYERS) if s not in (liar[0], _challenger(peers, liar[0])))]
    assert third.fault is not None and third.fault_from == _challenger(peers, liar[0])
    assert third.fault.at[0] == third.tick
    v = third.verdict
    assert v is not None and (v.culprit, v.code) == (liar[0], "illegal_action"), v
    result = _verify(third, tmp_path)
    assert _named(result) == (liar[0], "illegal_action"), result.lines


def _challenger(peers: list[Lockstep], liar: int) -> int:
    """The seat the liar showed its hand to (in UNO's Wild Draw Four challenge: the seat after it in play order)."""
    shows = [m for p in peers for m in p.transcript if m.kind == "show" and m.sender == liar]
    to = {m.body["to"] for m in shows}
    assert len(to) == 1, to
    return int(to.pop())


@pytest.mark.crypto("verified")
def test_a_proven_liar_comes_before_a_seat_whose_answer_was_lost_at_the_same_decision(tmp_path: Path) -> None:
    """HP Sha, verified: the Minister (seat 1 for seed 1) answers ``not_minister`` and sends its audit, whose witness
    share proves the lie; seat 2's honest answer is lost on every link. Seats 0 and 3 time seat 2 out (``silent``, at
    the decision's point, as the lie): the proven lie now comes first there, so they name the liar ``hidden_lie``, as
    ``p2php verify`` of their records does (before: the honest seat whose answer a dropped link lost, ``silent``;
    red-team rt8-verify)."""
    from test_multi_answer_attribution import PLAYERS, _hide_the_minister

    peers = make_peers("hpsha", PLAYERS, {"crypto": "verified"}, seed=1)
    liar: list[int] = []
    for p in peers:
        _hide_the_minister(p, liar)

    def lose(sender: int, to: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        answer = frame.get("body", {}).get("action", {}) if frame.get("kind") == "action" else {}
        return None if sender == 2 and answer.get("type") in ("not_minister", "reveal_identity") else frame

    run_in_memory(peers, {s: RandomBot(10 + s) for s in range(PLAYERS)}, tamper=lose)
    assert liar == [1]
    for p in (peers[0], peers[3]):
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (1, "hidden_lie"), (p.seat, v)
        assert _named(_verify(p, tmp_path)) == (1, "hidden_lie"), p.seat
