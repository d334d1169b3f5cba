"""HP Sha's speed paths (issue 16) against their definitions, over seeded games step by step.

``HpshaState.fire_last`` skips the trigger task nobody's skill answers and ``AskCard.legal`` lists a card
name's answers from ``KIND_FACES``: each game is played once as the tree has it and once with the plain
definition in their place (``fire``; the generic ``spec_ok`` loop), and every state hash, legal list and
answer must be the same.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from p2php.engine import local
from p2php.engine.contract import Decide, GameOver, Knowledge
from p2php.engine.local import LocalTable, default_decks
from p2php.engine.registry import get_game
from p2php.games.hpsha.data import CARDS
from p2php.games.hpsha.state import HpshaState
from p2php.games.hpsha.tasks import AskCard, spec_ok

GAME = get_game("hpsha")


def _trace(players: int, bot: str, seed: int, options: dict[str, Any] | None = None) -> list[str]:
    """Every step's state hash, legal lists and answers of one seeded game."""
    options = options or {}
    table = LocalTable(GAME.new_state(players, options), seed=seed,
                       private_decks=default_decks(GAME, players, options))
    bots = {s: GAME.make_bot(bot, f"{seed}/{s}") for s in range(players)}
    state, out = table.state, []
    while True:
        step = state.step()
        if isinstance(step, GameOver):
            out.append(repr(step))
            return out
        if isinstance(step, Decide):
            answers = []
            for seat in step.seats:
                known = table.knowledge(seat)
                legal = state.legal_actions(seat, known)
                out.append(repr(legal))
                answers.append((seat, bots[seat].choose(state, seat, known, legal)))
            out.append(repr(answers))
            table.act(answers)
        else:
            table.fulfil(step)
        out.append(hashlib.sha256(state.state_hash()).hexdigest())


def _plain_legal(self: AskCard, st: HpshaState, seat: int, kn: Knowledge) -> list[Any]:
    """AskCard.legal's definition: every hand card whose face (as it counts now) meets the spec, then the
    view-as groups."""
    out: list[Any] = [{"type": "pass"}] if self.optional else []
    for s in st.hands[seat]:
        f = kn.face(s)
        if f is not None and spec_ok(self.spec, st.as_card(seat, f)) and (
                self.mode == "discard" or st.can_use(seat, s)):
            out.append({"type": "card", "slots": [s]})
    k = self._kind()
    if k:
        for sk in st.skills(seat):
            if sk.view_as == k:
                for group in sk.view_as_sets(st, seat, kn):
                    if self.mode == "discard" or all(st.can_use(seat, s) for s in group):
                        out.append({"type": "card", "slots": group, "skill": sk.key})
    if not out:
        out = [{"type": "card", "slots": [s]} for s in st.hands[seat]]
    return out


CASES = [(4, "random", 1), (4, "heuristic", 2), (10, "random", 3), (10, "heuristic", 4), (7, "random", 5)]


@pytest.mark.parametrize(("players", "bot", "seed"), CASES)
def test_fire_last_is_fire(players: int, bot: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _trace(players, bot, seed)
    monkeypatch.setattr(HpshaState, "fire_last", lambda self, point, ctx: self.fire(point, ctx))
    assert _trace(players, bot, seed) == fast


@pytest.mark.parametrize(("players", "bot", "seed"), CASES)
def test_ask_card_legal_is_its_definition(players: int, bot: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _trace(players, bot, seed)
    monkeypatch.setattr(AskCard, "legal", _plain_legal)
    assert _trace(players, bot, seed) == fast


def test_fire_last_skips_only_a_task_that_would_do_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted over a game: fire_last pushes fewer trigger tasks than fire (else it saves nothing), and the
    game is the same (above)."""
    pushed = {"n": 0}
    real_fire = HpshaState.fire

    def counting(self: HpshaState, point: str, ctx: dict[str, Any], into: str = "") -> Any:
        before = len(self.stack)
        out = real_fire(self, point, ctx, into)
        pushed["n"] += len(self.stack) - before
        return out

    monkeypatch.setattr(HpshaState, "fire", counting)
    monkeypatch.setattr(HpshaState, "fire_last", lambda self, point, ctx: self.fire(point, ctx))
    _trace(10, "random", 3)
    every = pushed["n"]
    monkeypatch.undo()
    from p2php.games.hpsha import windows

    made = {"n": 0}
    real_init = windows.TriggerTask.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        made["n"] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(windows.TriggerTask, "__init__", init)
    _trace(10, "random", 3)
    assert 0 < made["n"] < every


def test_kind_faces_is_the_card_table() -> None:
    from p2php.games.hpsha.data import KIND_FACES

    for card in CARDS:
        assert card.id in KIND_FACES[card.kind]
    assert sum(len(ids) for ids in KIND_FACES.values()) == len(CARDS)


def test_used_card_is_the_same_when_fire_last_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    """fire_last asks ``available`` before it pushes the trigger task: a stack reader there must find the card
    being used as it does from the trigger task's run (chars_adults._used_card read below the top, and saw the
    card used before it, or none)."""
    from p2php.games.hpsha import triggers as tp
    from p2php.games.hpsha.chars_adults import _used_card
    from p2php.games.hpsha.windows import TriggerTask

    real, seen = HpshaState.fire_last, {"n": 0}

    def fire_last(self: HpshaState, point: str, ctx: dict[str, Any]) -> Any:
        if point in (tp.CARD_USED, tp.CARD_PLAYED):
            now = _used_card(self)
            self.stack.push(TriggerTask(point, ctx))
            assert _used_card(self) == now != ([], "")
            self.stack.pop()
            seen["n"] += 1
        return real(self, point, ctx)

    monkeypatch.setattr(HpshaState, "fire_last", fire_last)
    _trace(4, "random", 1)
    assert seen["n"] > 10


def _played(players: int, bot: str, seed: int) -> tuple[str, bytes]:
    """One seeded game with ``LocalTable.play``: its log and its last state hash."""
    table = LocalTable(GAME.new_state(players, {}), seed=seed, private_decks=default_decks(GAME, players, {}))
    table.play({s: GAME.make_bot(bot, f"{seed}/{s}") for s in range(players)})
    return repr(table.log), table.state.state_hash()


@pytest.mark.parametrize(("players", "bot", "seed"), CASES)
def test_play_asking_the_top_task_is_play(players: int, bot: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LocalTable.play`` asks a task game's top task directly (``_asks_top``): the same log and state as through
    ``legal_actions``, ``reveals`` and ``apply_listed`` (fails if the direct path answered another task)."""
    fast = _played(players, bot, seed)
    monkeypatch.setattr(local, "_asks_top", lambda state: False)
    assert _played(players, bot, seed) == fast


def test_play_goes_through_a_replaced_answer_or_listing() -> None:
    """``LocalTable.play``'s direct path (``_asks_top``) is for the kit's own methods only: a subclass that
    replaces ``_answer`` (the funnel of ``apply`` and ``apply_listed``, as UNO does) and a state whose instance
    wraps ``legal_actions`` are still asked at every decision (the direct path skipped both)."""
    class Counting(HpshaState):
        answered = 0

        def _answer(self, answers: Any, faces: Any) -> None:
            type(self).answered += 1
            super()._answer(answers, faces)

    state = GAME.new_state(4, {})
    state.__class__ = Counting
    table = LocalTable(state, seed=1, private_decks=default_decks(GAME, 4, {}))
    table.play({s: GAME.make_bot("random", f"1/{s}") for s in range(4)})
    assert Counting.answered == sum(1 for kind, _ in table.log if kind == "actions") > 0

    state = GAME.new_state(4, {})
    listed = state.legal_actions
    asked: list[int] = []

    def legal_actions(seat: int, knowledge: Knowledge) -> list[Any]:
        asked.append(seat)
        return listed(seat, knowledge)

    state.legal_actions = legal_actions  # type: ignore[method-assign]
    table = LocalTable(state, seed=1, private_decks=default_decks(GAME, 4, {}))
    table.play({s: GAME.make_bot("random", f"1/{s}") for s in range(4)})
    assert len(asked) >= sum(1 for kind, _ in table.log if kind == "actions") > 0
