"""The kit's timing points (p2php.engine.timing) on a game-free example.

The example: a 'hit' of some amount is about to land on seat 1.  Three seats have effects on the
point "hit": seat 0 a compulsory one that adds 1, seat 1 an optional shield that halves the hit
(offered only while the hit is at least 2), seat 2 one that writes to the log through a task it
pushes.  The task that fires the point reads the edited context from its own field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import Call, Done, Outcome, Task, TaskStack
from p2php.engine.timing import Effect, TimingPoint


@dataclass
class Table:
    """The 'game' state; it is the timing points' Listeners."""

    out: list[int] = field(default_factory=list)  # seats no longer taking part
    log: list[str] = field(default_factory=list)
    stack: TaskStack[Table] = field(default_factory=TaskStack)

    def listening(self, point: str) -> list[tuple[Seat, str]]:
        return [(seat, key) for seat, key in ((0, "plus"), (1, "shield"), (2, "scribe"))
                if point in EFFECTS[key].points]

    def effect(self, key: str) -> Effect[Any]:
        return EFFECTS[key]

    def may_respond(self, seat: Seat) -> bool:
        return seat not in self.out

    def announce(self, seat: Seat, key: str, chosen: bool) -> None:
        self.log.append(f"{seat}:{key}:{'chose' if chosen else 'must'}")

    def public(self) -> Knowledge:
        return Knowledge({})


class Plus(Effect[Table]):
    key = "plus"
    points: ClassVar[frozenset[str]] = frozenset({"hit"})
    compulsory = True

    def available(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return True

    def invoke(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        ctx["amount"] += 1


class Shield(Effect[Table]):
    key = "shield"
    points: ClassVar[frozenset[str]] = frozenset({"hit"})

    def available(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return bool(owner == ctx["target"] and ctx["amount"] >= 2)

    def offers(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any], knowledge: Knowledge) -> list[Action]:
        return [{"type": "invoke", "half": True}]

    def invoke(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        ctx["amount"] //= 2


@dataclass
class Write(Task[Table]):
    text: str

    def run(self, game: Table) -> Outcome:
        game.log.append(self.text)
        return Done()


class Scribe(Effect[Table]):
    key = "scribe"
    points: ClassVar[frozenset[str]] = frozenset({"hit"})
    compulsory = True

    def available(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return True

    def invoke(self, game: Table, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        game.stack.push(Write(f"hit for {ctx['amount']}"))  # an effect adds work by pushing a task


EFFECTS: dict[str, Effect[Any]] = {"plus": Plus(), "shield": Shield(), "scribe": Scribe()}


@dataclass
class Hit(Task[Table]):
    """Fire "hit" and keep what the effects made of it."""

    amount: int
    landed: dict[str, Any] | None = None

    def run(self, game: Table) -> Outcome:
        if self.landed is None:
            return Call(TimingPoint("hit", {"target": 1, "amount": self.amount}), into="landed")
        return Done(self.landed["amount"])


@dataclass
class Top(Task[Table]):
    got: int | None = None

    def run(self, game: Table) -> Outcome:
        if self.got is None:
            return Call(Hit(3), into="got")
        return Decide((0,), f"final {self.got}")


def start(out: Sequence[int] = ()) -> tuple[Table, Decide]:
    table = Table(out=list(out))
    table.stack.push(Top())
    step = table.stack.settle(table)
    assert isinstance(step, Decide)
    return table, step


def answer(table: Table, seat: Seat, action: Action) -> Decide:
    task = table.stack.top
    task.check(table, seat, action, table.public())
    step = table.stack.answer(table, [(seat, action)], {})
    assert isinstance(step, Decide)
    return step


def test_effects_resolve_in_order_and_the_firing_task_reads_the_edited_context() -> None:
    table, step = start()
    assert step == Decide((1,), "skill:shield")  # 3 + 1 = 4 >= 2: the shield is offered to its owner
    assert table.stack.top.legal(table, 1, table.public()) == [{"type": "pass"}, {"type": "invoke", "half": True}]
    step = answer(table, 1, {"type": "invoke", "half": True})
    assert step == Decide((0,), "final 2")
    assert table.log == ["0:plus:must", "1:shield:chose", "2:scribe:must", "hit for 2"]


def test_passing_leaves_the_context_and_an_effect_that_is_not_offered_is_not_asked() -> None:
    table, step = start()
    assert answer(table, 1, {"type": "pass"}) == Decide((0,), "final 4")
    assert table.log == ["0:plus:must", "2:scribe:must", "hit for 4"]


def test_a_seat_out_of_the_game_takes_no_part() -> None:
    table, step = start(out=[1])
    assert step == Decide((0,), "final 4")
    assert table.log == ["0:plus:must", "2:scribe:must", "hit for 4"]


def test_an_answer_that_is_not_an_offer_is_refused() -> None:
    table, _step = start()
    with pytest.raises(IllegalAction):
        table.stack.top.check(table, 1, {"type": "invoke", "half": False}, table.public())


def test_a_point_in_progress_snapshots_and_clones_as_plain_data() -> None:
    table, _step = start()
    snap = table.stack.snapshot()
    point = snap[-1][0]
    assert point["kind"] == "TimingPoint" and point["ctx"] == {"target": 1, "amount": 4}
    assert point["asking"] == [1, "shield"] and point["cands"] == [[2, "scribe"]]
    twin = table.stack.clone()
    answer(table, 1, {"type": "pass"})
    assert twin.snapshot() == snap  # the clone did not move with the original
