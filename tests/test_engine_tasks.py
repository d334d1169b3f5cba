"""The game-agnostic task stack (p2php.engine.tasks) on a tiny game-free example.

The example: seat 0 names a number; a sub-task rolls a die (a Randomness step) and
hands its typed result to the caller; the caller then asks both seats to pass and
finishes the game.  Nothing here is a card game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any

import pytest

from p2php.canonical import hash_value
from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    GameOver,
    IllegalAction,
    Knowledge,
    Randomness,
    Seat,
    Slot,
    Step,
)
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace, Task, TaskStack


@dataclass
class Board:
    """The 'game': what tasks change."""

    log: list[str] = field(default_factory=list)
    guess: int = -1
    result: GameOver | None = None


@dataclass
class Roll(Task[Board]):
    """Roll a die with joint randomness; the result is the face (an int)."""

    sides: int

    def run(self, game: Board) -> Outcome:
        return Randomness("die")

    def received(self, game: Board, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return Done(1 + random[0] % self.sides)


@dataclass
class Note(Task[Board]):
    text: str

    def run(self, game: Board) -> Outcome:
        game.log.append(self.text)
        return Done()


@dataclass
class Finish(Task[Board]):
    def run(self, game: Board) -> Outcome:
        assert game.result is not None
        return game.result


@dataclass
class Round(Task[Board]):
    """Guess, roll, notes, everyone passes, then the end (stages named, results typed)."""

    class Stage(Enum):
        GUESS = auto()
        ROLL = auto()
        NOTES = auto()
        PASS = auto()

    stage: Stage = Stage.GUESS
    rolled: int = 0  # Roll's result arrives here

    def run(self, game: Board) -> Outcome:
        if self.stage is Round.Stage.GUESS:
            return Decide((0,), "guess")
        if self.stage is Round.Stage.ROLL:
            self.stage = Round.Stage.NOTES
            return Call(Roll(6), into="rolled")
        if self.stage is Round.Stage.NOTES:
            self.stage = Round.Stage.PASS
            return Push(Note(f"rolled {self.rolled}"), Note("notes done"))
        return Decide((0, 1), "pass")

    def legal(self, game: Board, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.stage is Round.Stage.GUESS:
            return [{"type": "guess", "value": v} for v in range(1, 7)]
        return [{"type": "pass"}]

    def answer(self, game: Board, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        if self.stage is Round.Stage.GUESS:
            game.guess = answers[0][1]["value"]
            self.stage = Round.Stage.ROLL
            return CONTINUE
        won = (0,) if game.guess == self.rolled else (1,)
        game.result = GameOver(won, (0, 0))
        return Replace(Note("bye"), Finish())


def new() -> tuple[Board, TaskStack[Board]]:
    board = Board()
    stack: TaskStack[Board] = TaskStack([Finish(), Round()])
    return board, stack


def play(guess: int, die: bytes) -> tuple[Board, TaskStack[Board], list[Any]]:
    board, stack = new()
    snaps = [stack.snapshot()]
    step = stack.settle(board)
    assert step == Decide((0,), "guess")
    assert stack.top.legal(board, 0, Knowledge({}))[0] == {"type": "guess", "value": 1}
    stack.top.check(board, 0, {"type": "guess", "value": guess}, Knowledge({}))
    step = stack.answer(board, [(0, {"type": "guess", "value": guess})], {})
    assert step == Randomness("die") and isinstance(stack.top, Roll)
    snaps.append(stack.snapshot())
    step = stack.advance(board, random=die)
    assert step == Decide((0, 1), "pass")
    assert board.log == [f"rolled {1 + die[0] % 6}", "notes done"]
    snaps.append(stack.snapshot())
    step = stack.answer(board, [(0, {"type": "pass"}), (1, {"type": "pass"})], {})
    assert isinstance(step, GameOver)
    return board, stack, snaps


def test_push_call_answer_result_and_replace() -> None:
    board, stack, snaps = play(3, bytes([2]) * 32)  # 1 + 2 % 6 = 3: a right guess
    assert board.result == GameOver((0,), (0, 0))
    assert board.log[-1] == "bye" and len(stack) == 2  # Finish (from Replace) above the first Finish
    # the typed result went to the named field; stages snapshot by name
    assert snaps[1][-2][0] == {"kind": "Round", "stage": "NOTES", "rolled": 0}
    assert snaps[1][-1] == [{"kind": "Roll", "sides": 6}, "rolled"]
    assert snaps[2][-1][0] == {"kind": "Round", "stage": "PASS", "rolled": 3}
    hash_value(snaps)  # canonical


def test_illegal_and_misused() -> None:
    board, stack = new()
    stack.settle(board)
    with pytest.raises(IllegalAction):
        stack.top.check(board, 0, {"type": "guess", "value": 9}, Knowledge({}))
    with pytest.raises(IllegalAction):
        stack.advance(board, random=b"x" * 32)  # a Decide is pending
    with pytest.raises(TypeError):
        stack.push(Roll(6), into="no_such_field")


def test_clone_is_independent_and_snapshot_equal() -> None:
    board, stack = new()
    stack.settle(board)
    stack.answer(board, [(0, {"type": "guess", "value": 5})], {})
    twin = stack.clone()
    assert twin.snapshot() == stack.snapshot() and twin.pending == stack.pending
    twin_board = Board(list(board.log), board.guess)
    twin.advance(twin_board, random=bytes([0]) * 32)
    assert twin.snapshot() != stack.snapshot()  # the original did not move
    assert isinstance(stack.top, Roll) and isinstance(twin.top, Round)


def test_determinism() -> None:
    a = play(4, bytes([9]) * 32)
    b = play(4, bytes([9]) * 32)
    assert hash_value(a[2]) == hash_value(b[2]) and a[0] == b[0]
    c = play(4, bytes([10]) * 32)
    assert hash_value(a[2]) != hash_value(c[2])


@dataclass
class Picky(Task[Board]):
    """Asks seat 0 and refuses any answer but 'ok' in ``answer`` (as a task refuses an opened face)."""

    def run(self, game: Board) -> Outcome:
        return Decide((0,), "ok?")

    def answer(self, game: Board, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        if answers[0][1] != {"type": "ok"}:
            raise IllegalAction("not ok")
        return Done()


def test_a_refused_answer_leaves_the_decision_pending() -> None:
    board = Board()
    stack: TaskStack[Board] = TaskStack([Finish(), Picky()])
    step = stack.settle(board)
    before = stack.snapshot()
    with pytest.raises(IllegalAction):
        stack.answer(board, [(0, {"type": "no"})], {})
    assert stack.pending == step and stack.snapshot() == before


@dataclass
class EndNow(Task[Board]):
    """Throws every pending task away and ends the game (a game decided in the middle of a turn)."""

    def run(self, game: Board) -> Outcome:
        game.result = GameOver((1,), (0, 0))
        game.log.append("ended")
        stack_of[id(game)].reset([Finish()])
        return CONTINUE


stack_of: dict[int, TaskStack[Board]] = {}


def test_reset_inside_a_running_settle_starts_again_from_the_new_tasks() -> None:
    board = Board()
    stack: TaskStack[Board] = TaskStack([Round(), Round(), EndNow()])
    stack_of[id(board)] = stack
    assert stack.settle(board) == GameOver((1,), (0, 0))
    assert board.log == ["ended"] and len(stack) == 1 and isinstance(stack.top, Finish)


def test_a_task_pushed_over_a_pending_step_runs_first() -> None:
    board, stack = new()
    assert stack.settle(board) == Decide((0,), "guess")
    stack.push(Note("first"))
    assert stack.pending is None
    assert stack.settle(board) == Decide((0,), "guess") and board.log == ["first"]


@dataclass
class Effecty(Task[Board]):
    """Pushes a note itself (as an effect does) and then finishes with a result."""

    how: str = "done"

    def run(self, game: Board) -> Outcome:
        stack_of[id(game)].push(Note("pushed by an effect"))
        if self.how == "insert":  # a task slipped in under the caller, as an extra turn is
            stack_of[id(game)].insert(0, Note("at the bottom"))
        if self.how == "step":
            return Decide((0,), "wrong")
        return Done(7)


@dataclass
class Caller(Task[Board]):
    how: str = "done"
    got: int = 0

    def run(self, game: Board) -> Outcome:
        if not self.got:
            return Call(Effecty(self.how), into="got")
        game.log.append(f"got {self.got}")
        return Decide((0,), "end")


@pytest.mark.parametrize("how", ["done", "insert"])
def test_done_removes_the_task_that_finished_not_what_it_pushed(how: str) -> None:
    board = Board()
    stack: TaskStack[Board] = TaskStack([Finish(), Caller(how)])
    stack_of[id(board)] = stack
    assert stack.settle(board) == Decide((0,), "end")
    assert board.log == ["pushed by an effect", "got 7"]  # the effect's task ran, the result reached the caller
    assert [type(t).__name__ for t in stack] == (["Note"] if how == "insert" else []) + ["Finish", "Caller"]


def test_waiting_for_a_step_after_pushing_is_refused_with_a_clear_error() -> None:
    board = Board()
    stack: TaskStack[Board] = TaskStack([Finish(), Caller("step")])
    stack_of[id(board)] = stack
    with pytest.raises(RuntimeError, match="pushed tasks and then waited"):
        stack.settle(board)


def test_offered_tells_true_from_1_where_in_does_not() -> None:
    from p2php.engine.tasks import offered

    legal = [{"type": "play", "slot": 1}, {"type": "stop"}]
    assert {"type": "play", "slot": True} in legal  # Python's own membership: the hole
    assert not offered({"type": "play", "slot": True}, legal)
    assert not offered({"type": "play", "slot": 1.0}, legal)
    assert offered({"type": "play", "slot": 1}, legal) and offered({"type": "stop"}, legal)
    assert not offered({"type": "play", "slot": 2}, legal)


def test_a_task_game_refuses_true_or_false_outside_the_keys_its_game_names() -> None:
    from p2php.engine.contract import IllegalAction
    from p2php.engine.taskgame import _refuse_stray_bools

    _refuse_stray_bools({"type": "move", "wait": True, "path": [3, 4]}, frozenset({"wait"}))
    for action, where in (({"type": "play", "slot": True}, "'slot'"),
                          ({"type": "x", "targets": [2, False]}, "'targets'"),
                          ({"type": "x", "deep": {"slot": True}}, "'slot'"),
                          ({"type": "x", "wait": [True]}, "'wait'")):
        with pytest.raises(IllegalAction, match=where):
            _refuse_stray_bools(action, frozenset({"wait"}))


@dataclass
class Miscaller(Task[Board]):
    """Calls a task into a field it lacks (a typo), from ``run``, from ``answer`` or from ``received``."""

    when: str = "run"
    got: int = 0

    def run(self, game: Board) -> Outcome:
        if game.log:  # the called task ran: nothing refused the call
            return Decide((0,), "after")
        if self.when == "run":
            return Call(Note("called"), into="gott")
        return Decide((0,), "go") if self.when == "answer" else Randomness("go")

    def answer(self, game: Board, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        return Call(Note("called"), into="gott")

    def received(self, game: Board, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return Call(Note("called"), into="")


@pytest.mark.parametrize("when", ["run", "answer", "received"])
def test_a_call_into_a_field_the_caller_lacks_is_refused_wherever_it_is_returned(when: str) -> None:
    """The loop takes a top task's ``Call`` itself (not through ``_follow``), and an answer's and a chance step's
    outcome in the same loop: it refuses a field the caller lacks as ``_follow`` does, and never runs the called
    task (its result would be set on no field of the snapshot, or dropped)."""
    board = Board()
    stack: TaskStack[Board] = TaskStack([Finish(), Miscaller(when)])
    with pytest.raises(TypeError, match="no field"):
        if when == "run":
            stack.settle(board)
        elif when == "answer":
            stack.settle(board)
            stack.answer(board, [(0, {"type": "go"})], {})
        else:
            stack.settle(board)
            stack.advance(board, random=bytes(32))
    assert board.log == [] and [type(t).__name__ for t in stack] == ["Finish", "Miscaller"]
