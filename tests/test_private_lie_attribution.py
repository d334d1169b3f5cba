"""A lie that only the viewer of a private show can see is named by every honest peer (verified deck, v9).

UNO: a player challenged on a Wild Draw Four shows its hand to the challenger alone (``Show``), then says whether the
play was legal (``verdict``). A false verdict fails the challenger's check, which names the liar; the other seats
cannot see the hand, so before v9 they took the challenger's abort for an unconfirmed accusation (nobody named). The
abort now carries the message key of the liar's show (as a ``bad_show`` abort does, protocol.md §6.4): every peer
opens the liar's own signed box, whose proven shares open the hand, and checks the verdict itself.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from p2php.bots import RandomBot
from p2php.engine.contract import IllegalAction
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.records import Fault, FaultCode, FaultError

PLAYERS = 3
SEED = 0  # v10 deals: seat 1 is challenged on a Wild Draw Four


def _lying_verdict(peers: list[Lockstep], quiet: bool) -> list[int]:
    """Every peer flips its first verdict (the first one made is the liar); ``quiet``: the liar's own client does not
    abort on its own lie (a real cheater would not), it simply stops checking its own answers."""
    liar: list[int] = []
    for p in peers:
        send = p._send

        def lying(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
            if kind == "action" and body["action"].get("type") == "verdict" and not liar:
                liar.append(p.seat or 0)
                body = {**body, "action": {"type": "verdict", "legal": not body["action"]["legal"]}}
            return send(kind, body)

        p._send = lying  # type: ignore[method-assign]
        if quiet:
            check = p.state.check

            def own_unchecked(seat: int, action: Any, kn: Any, p: Lockstep = p, check: Any = check) -> None:
                if seat == p.seat and seat in liar:
                    return
                check(seat, action, kn)

            p.state.check = own_unchecked  # type: ignore[method-assign]
    return liar


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("quiet", [False, True], ids=["self-checking", "quiet"])
def test_a_false_verdict_seen_only_by_the_challenger_is_named_by_every_honest_peer(quiet: bool) -> None:
    peers = make_peers("uno", PLAYERS, {"crypto": "verified"}, seed=SEED)
    liar = _lying_verdict(peers, quiet)
    run_in_memory(peers, {s: RandomBot(SEED * 10 + s) for s in range(PLAYERS)})
    assert liar
    for p in peers:
        if p.seat != liar[0]:
            v = p.verdict
            assert v is not None and (v.culprit, v.code) == (liar[0], "illegal_action"), (p.seat, v)
    boxes = [m for m in peers[(liar[0] + 1) % PLAYERS].transcript if m.kind == "abort" and "box" in m.body]
    assert boxes and all(m.body["code"] == "illegal_action" and m.body["culprit"] == liar[0] for m in boxes)


@pytest.mark.crypto("verified")
def test_a_challenger_that_lies_about_an_honest_verdict_is_not_believed() -> None:
    """The accuser lies: the verdict is true, yet the challenger aborts naming the player ``illegal_action``, with the
    real key of its (honest) show. The opened hand proves the verdict right: nobody is named (``accusation``)."""
    peers = make_peers("uno", PLAYERS, {"crypto": "verified"}, seed=SEED)
    accusers: list[int] = []
    busy: list[bool] = []
    for p in peers:
        check = p.state.check

        def false_refusal(seat: int, action: Any, kn: Any, p: Lockstep = p, check: Any = check) -> None:
            check(seat, action, kn)
            if action.get("type") == "verdict" and seat != p.seat and not accusers and not busy:
                busy.append(True)  # (_lie_box runs the check again)
                try:
                    box = p._lie_box(seat, action)
                finally:
                    busy.clear()
                if box:  # the viewer of the show: its box key is real
                    accusers.append(p.seat or 0)
                    raise IllegalAction("invented: the verdict was true")

        p.state.check = false_refusal  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(SEED * 10 + s) for s in range(PLAYERS)})
    assert accusers
    accuser = peers[accusers[0]]
    assert accuser.fault is not None and accuser.fault.code == FaultCode.ILLEGAL_ACTION and accuser.show_box
    for p in peers:
        if p.seat != accusers[0]:
            v = p.verdict
            assert v is not None and not v.clean and v.culprit is None and v.code == "accusation", (p.seat, v)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("seed", [10, 37])
def test_a_verified_show_of_the_wrong_slot_is_named_by_every_seat(seed: int) -> None:
    """protocol.md §10.6 said a show of the wrong slots was named by its viewer alone: no longer so (red-team
    rt5-attrib). The owner proves its own share of another card of its hand: the viewer names it and publishes the
    box key, which opens the owner's signed box for everyone (``bad_show``)."""
    from p2php.engine.contract import Show

    peers = make_peers("toy", PLAYERS, {"crypto": "verified"}, seed=seed)
    cheats: list[int] = []
    for p in peers:
        assert p.vdeck is not None
        items = p.vdeck.own_items

        def other_slot(slots: list[int], *phase: str, items: Any = items, p: Lockstep = p) -> Any:
            if isinstance(p.step, Show) and slots and not cheats:
                cheats.append(p.seat or 0)
                return items([s for s in p.state.hands[p.seat] if s not in slots][:1], *phase)
            return items(slots, *phase)

        p.vdeck.own_items = other_slot  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(PLAYERS)})
    assert cheats
    for p in peers:
        if p.seat != cheats[0]:
            v = p.verdict
            assert v is not None and (v.culprit, v.code) == (cheats[0], "bad_show"), (p.seat, v)


def uno_liar(own_abort: str | None, seed: int = SEED) -> tuple[int, list[Lockstep]]:
    """A verified UNO table whose challenged player lies in its verdict (``own_abort``: and sends an abort of its own
    right behind it, naming ``"nobody"`` or ``"another"`` seat), played to the end: the liar and the other peers.
    ``seed`` 0: the liar is seat 1; 6: seat 0 (v10 deals)."""
    peers = make_peers("uno", PLAYERS, {"crypto": "verified"}, seed=seed)
    liar = _lying_verdict(peers, quiet=own_abort is not None)
    if own_abort is not None:
        for p in peers:
            send = p._send

            def abort_behind(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
                msg = send(kind, body)
                if kind == "action" and body["action"].get("type") == "verdict" and p.seat in liar:
                    assert p.seat is not None
                    culprit = None if own_abort == "nobody" else (p.seat + 1) % PLAYERS
                    with contextlib.suppress(FaultError):
                        p._raise_fault(Fault(culprit, "groundless", (p.tick, p.phase),
                                             FaultCode.INTERNAL if culprit is None else FaultCode.BAD_MESSAGE))
                return msg

            p._send = abort_behind  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(PLAYERS)})
    assert liar
    return liar[0], [p for p in peers if p.seat != liar[0]]


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("own_abort", ["nobody", "another"])
def test_a_liar_whose_own_abort_arrives_first_is_still_named_by_the_box(own_abort: str) -> None:
    """The liar sends an abort of its own right behind its false verdict (naming nobody, or the third seat): the third
    seat stops on that abort, which it cannot confirm, and before the fix never opened the challenger's box, which
    came second (verdict: unfinished / accusation, the liar unnamed; review of 6c2ed3f).
    Every boxed ``illegal_action`` abort is a proof, whichever abort came first."""
    liar, others = uno_liar(own_abort)
    for p in others:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "illegal_action"), (p.seat, v)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("own_abort", ["nobody", "another"])
def test_a_liar_at_seat_0_whose_own_abort_arrives_first_is_still_named_by_the_box(own_abort: str) -> None:
    """As above with the liar at seat 0 (seed 6): seat 0 is a seat like any other to the box's check (mutation run
    U: ``0 <= culprit`` made ``0 < culprit`` passed every test, the liar being seat 2 in all of them)."""
    liar, others = uno_liar(own_abort, seed=6)
    assert liar == 0
    for p in others:
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar, "illegal_action"), (p.seat, v)


@pytest.mark.crypto("verified")
@pytest.mark.parametrize("junk", [8, 9])
def test_a_liar_flooding_junk_boxed_aborts_is_still_named_by_the_challengers_box(junk: int) -> None:
    """The liar sends, right behind its false verdict, ``junk`` aborts of its own naming the third seat
    ``illegal_action``, each with a box that opens nothing. Only the first abort of each sender is tried, so the
    challenger's box is opened: the third seat, and ``p2php verify`` of its record, name the liar (before: 8 junk boxes
    used the budget up, the liar unnamed there, ``accusation``; mutation run U)."""
    import tempfile
    from pathlib import Path

    from p2php.session import transcript

    peers = make_peers("uno", PLAYERS, {"crypto": "verified"}, seed=SEED)
    liar = _lying_verdict(peers, quiet=True)
    for p in peers:
        send = p._send

        def flood(kind: str, body: dict[str, Any], p: Lockstep = p, send: Any = send) -> Any:
            msg = send(kind, body)
            if kind == "action" and body["action"].get("type") == "verdict" and p.seat in liar:
                assert p.seat is not None
                for i in range(junk):
                    send("abort", {"culprit": (p.seat + 1) % PLAYERS, "reason": "groundless", "code": "illegal_action",
                                   "at": [p.tick, p.phase], "evidence": [], "claims": [], "box": [i, bytes(32)]})
            return msg

        p._send = flood  # type: ignore[method-assign]
    from p2php.session import audit

    tried: list[int] = []
    confirm = audit._confirm_lie_box

    def counted(*args: Any) -> Any:
        if args[0].seat not in liar:  # (the liar's own audit, stopped by its own aborts, is not what is counted)
            tried.append(args[1])
        return confirm(*args)

    audit._confirm_lie_box = counted  # type: ignore[assignment]
    try:
        run_in_memory(peers, {s: RandomBot(SEED * 10 + s) for s in range(PLAYERS)})
    finally:
        audit._confirm_lie_box = confirm  # type: ignore[assignment]
    assert liar
    # The third seat's audit: the liar's abort it judged (its boxes, at most MAX_BOXES_TRIED), then one box a sender.
    assert 0 < tried.count(liar[0]) <= audit.MAX_BOXES_TRIED + 1 and len(tried) <= audit.MAX_BOXES_TRIED + PLAYERS
    for p in peers:
        if p.seat == liar[0]:
            continue
        assert sum(m.kind == "abort" and m.sender == liar[0] for m in p.transcript) == junk
        v = p.verdict
        assert v is not None and (v.culprit, v.code) == (liar[0], "illegal_action"), (p.seat, v)
        with tempfile.TemporaryDirectory() as d:
            result = transcript.verify(transcript.save(p, Path(d) / "game.p2php"))
        assert result.spectator is not None and result.spectator.verdict is not None
        assert (result.spectator.verdict.culprit, result.spectator.verdict.code) == (liar[0], "illegal_action")


def test_the_boxed_aborts_tried_are_at_most_8_one_per_sender_in_the_order_processed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """protocol.md §6.4: at most 8 boxes, one per sender (its first such abort), the first confirmed a finding —
    a bound that binds only at a table of 9 or 10 seats (mutation run U), so checked here on the aborts alone."""
    from types import SimpleNamespace

    from p2php.session import audit

    players = 10
    aborts = [SimpleNamespace(sender=s, at=(5, 0), body={"code": "illegal_action", "culprit": (s + 1) % players,
                                                          "box": [s, bytes(32)]})
              for s in [0, 0, *range(1, players)]]  # seat 0 sends two
    tried: list[int] = []
    proven: dict[int, Fault] = {}

    def confirm(ls: Any, viewer: int, sender: int, fault: Fault, box: Any) -> Fault | None:
        tried.append(viewer)
        return proven.get(viewer)

    monkeypatch.setattr(audit, "_confirm_lie_box", confirm)
    ls: Any = SimpleNamespace(players=players, abort_messages=aborts)
    assert audit._boxed_lies(ls) == []
    assert tried == list(range(8))
    proven[7] = Fault(8, "illegal action", (5, 0), FaultCode.ILLEGAL_ACTION)
    proven[8] = Fault(9, "illegal action", (5, 0), FaultCode.ILLEGAL_ACTION)
    tried.clear()
    assert audit._boxed_lies(ls) == [proven[7]] and tried == list(range(8))
    del proven[7]
    tried.clear()
    assert audit._boxed_lies(ls) == [] and tried == list(range(8))  # the ninth sender's box is never opened
