"""A YourTurn withdrawn (its decider cancelled: a question asked in the rejoin hold for a point a message of ours,
handed back, answered since; rt7-stale) must not take an answer: one submitted for it would wait in the channel
and answer the next, different question the moment it is asked, before the embedder has seen it."""

from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing

from p2php.api import NotYourTurn, Peer, StaleTurn, YourTurn
from p2php.bridge import BridgeSession, event_json


class _Stub:
    seat = 1
    events: list[Any] = []
    step = None

    def __init__(self, legal: list[dict[str, Any]]) -> None:
        self.legal = legal
        self.state = SimpleNamespace(observation=lambda seat, knowledge: {})

    def legal_actions(self) -> list[dict[str, Any]]:
        return self.legal

    def knowledge(self) -> None:
        return None


async def test_an_answer_to_a_withdrawn_turn_does_not_answer_the_next() -> None:
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    with trio.move_on_after(0.2):  # question A, withdrawn while the embedder's user thinks
        await peer._decide(ls)
    assert not peer.is_my_turn()
    with pytest.raises(NotYourTurn):  # the user's click for A comes now: refused, A is no longer asked
        await peer.submit(0)
    got: list[Any] = []
    with trio.move_on_after(0.5):  # question B: waits for its own answer
        got.append(await peer._decide(ls))
    assert got == [], got


async def test_an_answer_submitted_as_the_turn_is_withdrawn_does_not_answer_the_next() -> None:
    """The withdrawal (the runner cancelling the decider) and the user's click come in the same scheduling round: the
    submit runs after the cancel and before the cancelled decider has run its end, so the turn still looked open and
    the action was left in the channel, where the next question took it the moment it was asked (rv7-stale)."""
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    scope = trio.CancelScope()

    async def question_a() -> None:
        with scope:
            await peer._decide(ls)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(question_a)
        await trio.testing.wait_all_tasks_blocked()
        assert peer.is_my_turn()
        scope.cancel()  # A withdrawn (the runner's loop) ...
        with contextlib.suppress(NotYourTurn):
            await peer.submit(0)  # ... and the user's click for A, before the cancelled decider ran again
    got: list[Any] = []
    with trio.move_on_after(0.5):  # question B: waits for its own answer
        got.append(await peer._decide(ls))
    print("question B got:", got)
    assert got == [], got


async def test_a_leave_made_as_the_turn_is_withdrawn_still_leaves() -> None:
    peer = Peer()
    ls: Any = _Stub([{"type": "draw"}])
    peer._ls = ls
    scope = trio.CancelScope()

    async def question_a() -> None:
        with scope:
            await peer._decide(ls)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(question_a)
        await trio.testing.wait_all_tasks_blocked()
        scope.cancel()
        peer.leave()  # in the same round: the turn still looked open
    assert peer._leave.is_set()  # the runner makes the leave (out of turn), not the next question


async def test_a_withdrawn_turn_ending_after_the_next_was_asked_leaves_the_next_open() -> None:
    """The runner cancels the withdrawn decider and starts the owed one in one step; trio may run the new one first.
    The withdrawn one's end then cleared the new YourTurn's open flag: is_my_turn() was False, every submit raised
    NotYourTurn, and the seat was named silent (rv7-stale; 3 of 4 runs of test_resume_hold_stale_ask's app case)."""
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    scope = trio.CancelScope()
    got: list[Any] = []

    async def question_a() -> None:
        with scope:
            await peer._decide(ls)

    seen: list[bool] = []

    async def user() -> None:
        await trio.testing.wait_all_tasks_blocked()
        seen.append(peer.is_my_turn())
        with contextlib.suppress(NotYourTurn):
            await peer.submit(1)  # the user answers B

    async with trio.open_nursery() as nursery:
        nursery.start_soon(question_a)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(user)
        scope.cancel()  # A withdrawn, and B asked (here, in this task) before A's task has run again
        with trio.move_on_after(1.0):
            got.append(await peer._decide(ls))
    print("B open, is_my_turn():", seen, "B got:", got)
    assert seen == [True] and got == [{"type": "draw"}], (seen, got)


async def test_an_answer_submitted_as_the_turn_is_withdrawn_does_not_answer_the_owed_question_asked_first() -> None:
    """As above, with the owed question's decider started in the same step as the withdrawal (as the runner does):
    trio may run it before the withdrawn one's end, and the click for A, left in the channel, answered B the moment it
    was asked (rv7-stale). Twenty tries: trio picks the order at random."""
    taken = 0
    for _ in range(20):
        peer = Peer()
        ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
        peer._ls = ls
        scope = trio.CancelScope()
        got: list[Any] = []

        async def question_a(peer: Peer = peer, ls: Any = ls, scope: trio.CancelScope = scope) -> None:
            with scope:
                await peer._decide(ls)

        async def question_b(peer: Peer = peer, ls: Any = ls, got: list[Any] = got) -> None:
            with trio.move_on_after(0.2):
                got.append(await peer._decide(ls))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(question_a)
            await trio.testing.wait_all_tasks_blocked()
            scope.cancel()  # A withdrawn and B started, in one step (the runner's) ...
            nursery.start_soon(question_b)
            with contextlib.suppress(NotYourTurn):
                await peer.submit(0)  # ... and the click for A, before either task ran
        taken += bool(got)
    print("B took A's click in", taken, "of 20 tries")
    assert taken == 0


async def _withdrawn_then_next(peer: Peer, ls: Any, nursery: trio.Nursery,
                               got: list[Any]) -> tuple[YourTurn, YourTurn]:
    """Question A asked and read by the app, then withdrawn and B asked (the runner's step); both YourTurns."""
    scope = trio.CancelScope()

    async def question_a() -> None:
        with scope:
            await peer._decide(ls)

    async def question_b() -> None:
        got.append(await peer._decide(ls))

    nursery.start_soon(question_a)
    await trio.testing.wait_all_tasks_blocked()
    a = peer._events_rx.receive_nowait()
    scope.cancel()
    nursery.start_soon(question_b)
    await trio.testing.wait_all_tasks_blocked()
    b = peer._events_rx.receive_nowait()
    assert isinstance(a, YourTurn) and isinstance(b, YourTurn)
    return a, b


async def test_an_app_answer_echoing_a_withdrawn_turns_number_is_refused_and_the_next_stays_open() -> None:
    """The app read A, chose, and submits after B was asked (it has not read B yet): with A's number the answer is
    refused (both numbers named), B stays open and takes the answer made for it. Without the number it answered B."""
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    got: list[Any] = []
    async with trio.open_nursery() as nursery:
        a, b = await _withdrawn_then_next(peer, ls, nursery, got)
        assert b.turn > a.turn >= 1 and peer.turn == b.turn
        with pytest.raises(StaleTurn, match=f"question {a.turn}, but question {b.turn} is open"):
            await peer.submit(0, turn=a.turn)
        await trio.testing.wait_all_tasks_blocked()
        assert got == [] and peer.is_my_turn() and peer.turn == b.turn
        await peer.submit(1, turn=b.turn)
    assert got == [{"type": "draw"}] and peer.turn is None
    with pytest.raises(StaleTurn, match=f"no question is open \\(the last was {b.turn}\\)"):
        await peer.submit(0, turn=b.turn)


async def test_a_bridge_act_echoing_a_withdrawn_turns_number_is_refused_and_the_next_stays_open() -> None:
    """The same through the bridge's act: the your_turn events carry the numbers; an act for A that arrives once B is
    asked gets one error line naming both and is not played; B's own act is."""
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    out: list[dict[str, Any]] = []
    session = BridgeSession(out.append)
    session.peer = peer
    got: list[Any] = []
    async with trio.open_nursery() as nursery:
        a, b = await _withdrawn_then_next(peer, ls, nursery, got)
        shown = [event_json(a), event_json(b)]
        assert [e["turn"] for e in shown] == [a.turn, b.turn]
        await session.handle(json.dumps({"op": "act", "index": 0, "turn": a.turn}))
        await trio.testing.wait_all_tasks_blocked()
        assert len(out) == 1 and out[0]["event"] == "error" and out[0]["op"] == "act", out
        assert f"question {a.turn}" in out[0]["message"] and f"question {b.turn}" in out[0]["message"]
        assert got == [] and peer.is_my_turn()
        await session.handle(json.dumps({"op": "legal"}))
        assert out[1]["turn"] == b.turn and out[1]["your_turn"]
        await session.handle(json.dumps({"op": "act", "index": 1, "turn": b.turn}))
    assert out[2] == {"event": "ok", "op": "act", "action": {"type": "draw"}, "turn": b.turn}, out
    assert got == [{"type": "draw"}]


async def _act_as_withdrawn(order: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """Question A asked by the runner's own decider task, its act read by a bridge in the round the runner withdraws
    A and asks B; what the runner got from A's decider, and the bridge's replies to the act."""
    from p2php.session.runner import _Runner

    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    out: list[dict[str, Any]] = []
    session = BridgeSession(out.append)
    session.peer = peer
    runner: Any = SimpleNamespace(decide=peer._decide, ls=ls)
    to_runner, from_deciders = trio.open_memory_channel[Any](16)
    async with trio.open_nursery() as nursery:
        scope_a = trio.CancelScope()
        nursery.start_soon(_Runner._run_decider, runner, to_runner.clone(), 1, scope_a)
        await trio.testing.wait_all_tasks_blocked()
        a = peer._events_rx.receive_nowait()
        assert isinstance(a, YourTurn)
        act = json.dumps({"op": "act", "index": 1, "turn": a.turn})

        def withdraw() -> None:  # the runner's loop: A withdrawn and B asked, in one step
            scope_a.cancel()
            nursery.start_soon(_Runner._run_decider, runner, to_runner.clone(), 2, trio.CancelScope())

        if order == "cancel first":
            withdraw()
            await session.handle(act)  # the act for A, read before A's task ran its end
        else:
            async def runner_loop() -> None:
                withdraw()

            nursery.start_soon(runner_loop)  # runs in the round that A's task, handed the act's action, runs in
            await session.handle(act)
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    got = []
    with contextlib.suppress(trio.WouldBlock):
        while True:
            got.append(from_deciders.receive_nowait())
    return got, [o for o in out if o.get("op") == "act"]


@pytest.mark.parametrize("order", ["cancel first", "act first"])
async def test_a_bridge_act_for_a_question_withdrawn_in_the_same_round_gets_no_ok(order: str) -> None:
    """The runner withdraws question A (cancels its decider) in the round a client's act for A, echoing A's number, is
    read: A was still the open question, so the act passed the number check. The bridge replied `ok` with the action,
    though A's end dropped it (or the runner's cancelled send did) and nothing was played (rv8-qid: 20 of 20 and 14
    of 20 tries). Now `ok` comes once the question took the answer; else one error line, and B stays open."""
    for _ in range(10):
        got, replies = await _act_as_withdrawn(order)
        played = [g for g in got if g[0] == "act" and g[2] == 1]
        assert len(replies) == 1, replies
        if replies[0]["event"] == "ok":
            assert played == [("act", {"type": "draw"}, 1)], (replies, got)
        else:
            assert played == [] and "\n" not in replies[0]["message"], (replies, got)
            assert "was not played" in replies[0]["message"], replies


async def test_a_turn_that_is_no_question_number_is_refused_in_one_short_line() -> None:
    """``submit(..., turn=)`` with a string, float or bool, or an int too large to print: StaleTurn in one short line
    (before: "7" and 7.0 were refused as "question 7, but question 7 is open", True answered question 1, a 5000-digit
    int raised ValueError, and the bridge echoed up to 2 000 of the digits a client sent)."""
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    out: list[dict[str, Any]] = []
    session = BridgeSession(out.append)
    session.peer = peer
    got: list[Any] = []
    async with trio.open_nursery() as nursery:
        async def question() -> None:
            got.append(await peer._decide(ls))

        nursery.start_soon(question)
        await trio.testing.wait_all_tasks_blocked()
        asked = peer.turn
        assert asked is not None and asked >= 1
        for bad in ("1", 1.0, True, 10**5000, -(10**30)):
            with pytest.raises(StaleTurn) as refused:
                await peer.submit(0, turn=bad)  # type: ignore[arg-type]
            assert len(str(refused.value)) < 120 and "\n" not in str(refused.value), refused.value
        await session.handle('{"op": "act", "index": 0, "turn": ' + "9" * 4300 + "}")
        assert out[-1]["event"] == "error" and len(out[-1]["message"]) < 120, out[-1]
        assert got == [] and peer.turn == asked
        await peer.submit(1, turn=asked)
    assert got == [{"type": "draw"}]


async def test_a_new_tables_questions_never_reuse_an_earlier_tables_numbers() -> None:
    """Each table of a bridge session has its own Peer: an answer a slow client sent for the last game's question
    (echoing its number) must not match the next game's first question (before: every Peer counted from 1)."""
    numbers: list[int | None] = []
    for _table in range(2):
        peer = Peer()
        peer._ls = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])  # type: ignore[assignment]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer._decide, peer._ls)
            await trio.testing.wait_all_tasks_blocked()
            numbers.append(peer.turn)
            await peer.submit(0, turn=peer.turn)
    assert None not in numbers and numbers[1] > numbers[0], numbers  # type: ignore[operator]


def test_a_stale_turns_number_is_shown_up_to_18_digits() -> None:
    """``check_turn`` names a stale question's number when it has at most 18 digits (either sign), and says it is
    longer otherwise (``str`` of 5 000 digits raises): the bound is exact."""
    peer = Peer()
    for turn in (10**18 - 1, -(10**18 - 1)):
        with pytest.raises(StaleTurn, match=f"question {turn}, but no question is open"):
            peer.check_turn(turn)
    for turn in (10**18, -(10**18)):
        with pytest.raises(StaleTurn, match=r"question \(a number of more than 18 digits\)"):
            peer.check_turn(turn)


async def test_a_leave_in_turn_ends_the_question_with_leave_table() -> None:
    """``leave()`` while a question is open: the decider raises ``LeaveTable`` (the runner sends the signed leave),
    it returns no action."""
    from p2php.session.runner import LeaveTable

    peer = Peer()
    ls: Any = _Stub([{"type": "draw"}])
    peer._ls = ls
    raised: list[BaseException] = []

    async def question() -> None:
        try:
            await peer._decide(ls)
        except LeaveTable as err:
            raised.append(err)

    with trio.fail_after(2):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(question)
            await trio.testing.wait_all_tasks_blocked()
            peer.leave()
    assert len(raised) == 1 and not peer.is_my_turn()


async def test_a_leave_made_as_the_turn_is_withdrawn_leaves_when_the_next_is_asked_first() -> None:
    """A withdrawn, the user's leave in the same round, and B asked (here, in this task) before A's end ran: B ends with
    ``LeaveTable`` at once instead of dropping the leave and waiting for an answer (the seat would stay)."""
    from p2php.session.runner import LeaveTable

    peer = Peer()
    ls: Any = _Stub([{"type": "draw"}])
    peer._ls = ls
    scope = trio.CancelScope()

    async def question_a() -> None:
        with scope:
            await peer._decide(ls)

    left = False
    with trio.move_on_after(1.0):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(question_a)
            await trio.testing.wait_all_tasks_blocked()
            scope.cancel()
            peer.leave()  # the turn still looked open: the leave goes in the channel
            try:
                await peer._decide(ls)  # B, before A's task ran again
            except LeaveTable:
                left = True
    assert left


async def test_a_submit_waiting_when_the_table_ends_returns_stale() -> None:
    """An answer still in the channel when the peer's run ends (no decider takes it any more) is dropped: its
    ``submit`` raises ``StaleTurn`` instead of waiting for good."""
    peer = Peer()
    ls: Any = _Stub([{"type": "draw"}])
    peer._ls = ls
    peer._awaiting = True  # a question open, whose decider is gone with the table
    refused: list[BaseException] = []

    async def user() -> None:
        try:
            await peer.submit(0)
        except StaleTurn as err:
            refused.append(err)

    async def play(_peer: Peer) -> Any:
        raise RuntimeError("the table ended")

    with trio.fail_after(2):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(user)
            await trio.testing.wait_all_tasks_blocked()
            await peer._run(play, None)  # type: ignore[arg-type]
    assert len(refused) == 1 and "was not played" in str(refused[0])


async def test_an_answer_handed_to_a_question_withdrawn_before_it_ran_is_not_taken() -> None:
    """The answer is handed to the waiting question, and the question is withdrawn (its decider cancelled) before its
    task ran again: the question does not take it, and ``submit`` raises ``StaleTurn`` (not a return, an ``ok`` for a
    move never played). The order is forced here: the withdrawal comes in the submit's own send."""
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    scope = trio.CancelScope()
    got: list[Any] = []

    async def question_a() -> None:
        with scope:
            got.append(await peer._decide(ls))

    real = peer._actions_tx

    class _WithdrawnOnSend:
        def send_nowait(self, value: Any) -> None:
            real.send_nowait(value)  # handed to question A's task, rescheduled ...
            scope.cancel()  # ... and A withdrawn before that task runs

    with trio.fail_after(2):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(question_a)
            await trio.testing.wait_all_tasks_blocked()
            peer._actions_tx = _WithdrawnOnSend()  # type: ignore[assignment]
            with pytest.raises(StaleTurn, match="withdrawn before it took your answer"):
                await peer.submit(1)
    assert got == [] and not peer.is_my_turn()
