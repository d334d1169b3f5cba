"""The kit's hand re-mask task (engine/remask.py) on its own: the steps it asks for, in order, for any game's
three answers (which groups, where their fresh slots lie, what the state notes) -- mutation run T."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from p2php.engine.contract import Deal, Reshuffle, Slot
from p2php.engine.remask import HandRemask, put_in_place
from p2php.engine.tasks import CONTINUE, Done


@dataclass
class _Game:
    hand: list[Slot]
    groups: list[list[Slot]]
    full: set[Slot] = field(default_factory=set)  # a group whose first slot is here has no room left
    next_free: Slot = 1000
    mixed: list[tuple[Slot, ...]] = field(default_factory=list)


@dataclass
class _Remask(HandRemask[_Game]):
    def plan(self, game: _Game) -> list[list[Slot]]:
        return [list(g) for g in game.groups]

    def fresh_slots(self, game: _Game, group: list[Slot]) -> tuple[Slot, str] | None:
        if group[0] in game.full:
            return None
        first, game.next_free = game.next_free, game.next_free + len(group)
        return first, f"hand{self.seat}"

    def mixed(self, game: _Game, step: Reshuffle) -> None:
        game.mixed.append(step.slots)
        put_in_place(game.hand, step.slots, step.new_slots)


def _steps(task: _Remask, game: _Game) -> list[object]:
    """Run ``task`` to its end as the engine would, answering each step; the steps it asked for, in order."""
    asked: list[object] = []
    for _ in range(20):
        out = task.run(game)
        if isinstance(out, Done):
            return asked
        asked.append(out)
        assert task.received(game, out, {}, b"") is CONTINUE  # type: ignore[arg-type]
    raise AssertionError(f"the task never ended: {asked}")


def test_a_group_with_no_room_left_stays_as_it_is_and_the_next_groups_are_mixed() -> None:
    """``fresh_slots`` answering ``None`` (Hogwarts: no room left in the deck's span) skips that group only: the
    groups after it are still mixed, in the plan's order, and the one Deal gives the holder the new slots alone."""
    game = _Game(hand=[1, 2, 3, 4, 5, 6], groups=[[1, 2], [3, 4], [5, 6]], full={3})
    steps = _steps(_Remask(seat=2), game)
    assert steps == [
        Reshuffle((1, 2), 1000, "hand2"),
        Reshuffle((5, 6), 1002, "hand2"),
        Deal(((1000, 2), (1001, 2), (1002, 2), (1003, 2))),
    ]
    assert game.mixed == [(1, 2), (5, 6)]
    assert game.hand == [1000, 1001, 3, 4, 1002, 1003]


def test_a_plan_whose_every_group_has_no_room_asks_for_nothing() -> None:
    game = _Game(hand=[1, 2, 3, 4], groups=[[1, 2], [3, 4]], full={1, 3})
    assert _steps(_Remask(seat=0), game) == []
    assert game.hand == [1, 2, 3, 4] and game.mixed == []


def test_the_plan_is_made_once_from_the_state_as_it_is_when_the_task_first_runs() -> None:
    game = _Game(hand=[1, 2, 3], groups=[[1, 2, 3]])
    task = _Remask(seat=1)
    game.groups = [[2, 3]]  # the state changed after the task was pushed, before it ran
    first = task.run(game)
    assert first == Reshuffle((2, 3), 1000, "hand1")
    game.groups = [[1, 2, 3]]  # a later change is not planned again
    assert task.run(game).slots == (2, 3)  # type: ignore[union-attr]


@pytest.mark.parametrize("missing", ["plan", "fresh_slots", "mixed"])
def test_a_game_that_does_not_answer_the_kits_questions_is_an_error_not_a_silent_no_op(missing: str) -> None:
    """A game's subclass must answer all three; one that forgot ``plan`` must not pass for a hand nobody else
    knows (no re-mask at all, every pick recognised by its slot again)."""
    answers = {name: getattr(_Remask, name) for name in ("plan", "fresh_slots", "mixed") if name != missing}
    partial = dataclass(type("Partial", (HandRemask,), answers))
    game = _Game(hand=[1, 2], groups=[[1, 2]])
    task = partial(seat=0)
    with pytest.raises(NotImplementedError):
        step = task.run(game)
        task.received(game, step, {}, b"")
