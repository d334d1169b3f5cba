"""An answer carrying a key its decision does not read is refused by every peer (protocol.md §6.4).

The rules of HP Sha, TCG and Hogwarts once read only the keys they need: a legal answer plus a key ``zz`` passed
every peer's ``check`` and ``apply``, so a cheater's junk (megabytes of it, a whole game long) was signed into the
record of every honest seat, and the same move had a second signed encoding. ``TaskGame`` now refuses any key
outside its game's ``action_keys`` for the answer's type (or, in a game that declares none, outside the keys of the
listed legal actions of that type).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from example_games import load_tiny_game

from p2php.bots import RandomBot
from p2php.engine.contract import Action, Decide, GameOver, GameState, IllegalAction, Knowledge
from p2php.engine.local import LocalTable, default_decks
from p2php.engine.registry import get_game
from p2php.engine.taskgame import TaskGame
from p2php.engine.tasks import Outcome, Task, TaskStack
from p2php.session import transcript
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory

JUNK = "x" * 2000


def _first(name: str, players: int, options: dict[str, Any], typ: str,
           seeds: range = range(8)) -> tuple[GameState, LocalTable, int, Action]:
    """The first decision of seeded random games where a seat is offered an action of type ``typ``."""
    game = get_game(name)
    opts = game.parse_options(options)
    for seed in seeds:
        st = game.new_state(players, opts)
        tb = LocalTable(st, seed, private_decks=default_decks(game, players, opts))
        for n in range(3000):
            step = tb.run_chance()
            if isinstance(step, GameOver):
                break
            assert isinstance(step, Decide)
            legal = {seat: st.legal_actions(seat, tb.knowledge(seat)) for seat in step.seats}
            for seat, actions in legal.items():
                for a in actions:
                    if a.get("type") == typ:
                        return st, tb, seat, a
            tb.act([(seat, RandomBot(f"{seed}/{seat}/{n}").choose(st, seat, tb.knowledge(seat), legal[seat]))
                    for seat in step.seats])
    pytest.skip(f"no {typ!r} action offered in {name}'s seeded games")


@pytest.mark.parametrize(("name", "players", "options", "typ"), [
    ("hpsha", 4, {}, "use"), ("hpsha", 10, {}, "pass"), ("hpsha", 4, {}, "discard"),
    ("tcg", 2, {}, "take"),
    ("hogwarts", 2, {}, "move"), ("hogwarts", 2, {}, "no_start"),
])
def test_a_legal_answer_with_a_stray_key_is_refused_by_every_view(
        name: str, players: int, options: dict[str, Any], typ: str) -> None:
    st, tb, seat, action = _first(name, players, options, typ)
    bad = {**action, "zz": JUNK}
    for knowledge in (tb.knowledge(seat), Knowledge(dict(tb.public), {}), tb.everything()):
        st.check(seat, action, knowledge)  # the honest answer passes
        with pytest.raises(IllegalAction, match="carries no 'zz'"):
            st.check(seat, bad, knowledge)
    twin = st.clone()
    with pytest.raises(IllegalAction, match="carries no 'zz'"):
        twin.apply([(seat, bad)], {s: tb.faces[s] for s in twin.reveals(seat, bad)})


def _cheater(peer: Lockstep, typ: str) -> dict[str, int]:
    """Make ``peer`` a modified client adding ``zz`` to its first answer of type ``typ``."""
    send, done = peer._send, {"n": 0}

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and body["action"].get("type") == typ and not done["n"]:
            done["n"] += 1
            body = {**body, "action": {**body["action"], "zz": JUNK}}
        return send(kind, body)

    peer._send = cheating_send  # type: ignore[method-assign]
    return done


@pytest.mark.parametrize(("name", "players", "options", "typ", "seed"), [
    ("hpsha", 4, {}, "use", 3),
    ("hogwarts", 2, {}, "move", 3),
])
def test_a_signed_answer_with_a_stray_key_names_its_sender_and_verify_agrees(
        name: str, players: int, options: dict[str, Any], typ: str, seed: int, tmp_path: Path) -> None:
    peers = make_peers(name, players, options, seed=seed)
    done = _cheater(peers[1], typ)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
    assert done["n"] == 1
    for p in peers:
        if p.seat == 1:
            continue
        assert p.finished and p.verdict is not None, p.seat
        assert (p.verdict.culprit, p.verdict.code) == (1, "illegal_action"), (p.seat, p.verdict)
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        v = result.spectator.verdict if result.spectator is not None else None
        assert v is not None and (v.culprit, v.code) == (1, "illegal_action"), (p.seat, result.lines)


def _face_dependent_snitch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example Snitch game with the documented hidden-face pattern and no ``action_keys``: its decision lists
    the cards whose faces the given knowledge sees, and its own check skips the face it cannot see."""
    tiny = load_tiny_game()

    def legal(self: Any, g: Any, seat: int, knowledge: Knowledge) -> list[Action]:
        return [{"type": "play", "slot": s} for s in g.hands[seat] if knowledge.face(s) is not None]

    def check(self: Any, g: Any, seat: int, action: Action, knowledge: Knowledge) -> None:
        if set(action) != {"type", "slot"} or action["type"] != "play" or action["slot"] not in g.hands[seat]:
            raise IllegalAction(f"not a card of seat {seat}: {action}")

    monkeypatch.setattr(tiny.Turn, "legal", legal)
    monkeypatch.setattr(tiny.Turn, "check", check)


def test_a_view_listing_no_action_of_the_type_does_not_refuse_an_honest_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every other peer lists none of a seat's plays (it cannot see their faces): the keys of that empty list
    refused the honest answer's every key, ``type`` too, and named the honest seat ``illegal_action``."""
    _face_dependent_snitch(monkeypatch)
    peers = make_peers("snitch", 3, {}, seed=5)
    run_in_memory(peers, {s: RandomBot(50 + s) for s in range(3)})
    assert [(p.finished, p.verdict is not None and p.verdict.culprit) for p in peers] == [(True, None)] * 3


def _find(name: str, players: int, options: dict[str, Any], want: Any, seeds: range = range(4),
          kind: str = "random") -> tuple[GameState, LocalTable, Decide, dict[int, list[Action]], int, Action]:
    """The first decision of seeded random games where a seat is offered an action ``want(prompt, action)`` holds."""
    game = get_game(name)
    opts = game.parse_options(options)
    for seed in seeds:
        st = game.new_state(players, opts)
        tb = LocalTable(st, seed, private_decks=default_decks(game, players, opts))
        bots = {seat: game.make_bot(kind, f"{seed}/{seat}") for seat in range(players)}
        for _n in range(600):
            step = tb.run_chance()
            if isinstance(step, GameOver):
                break
            assert isinstance(step, Decide)
            legal = {seat: st.legal_actions(seat, tb.knowledge(seat)) for seat in step.seats}
            for seat, actions in legal.items():
                for a in actions:
                    if want(step.prompt, a):
                        return st, tb, step, legal, seat, a
            tb.act([(seat, bots[seat].choose(st, seat, tb.knowledge(seat), legal[seat])) for seat in step.seats])
    pytest.skip(f"no such decision in {name}'s seeded games")


@pytest.mark.parametrize(("name", "players", "options", "want", "alter"), [
    # a key its type has elsewhere, read by nothing at this decision (any value, up to the 64 KiB of an action)
    ("hpsha", 5, {}, lambda p, a: p == "skill:affinity" and a["type"] == "card", lambda a: {**a, "skill": JUNK}),
    ("hpsha", 4, {"creatures": 11}, lambda p, a: p == "skill:sneer" and a["type"] == "invoke",
     lambda a: {**a, "option": JUNK}),
    ("hpsha", 5, {}, lambda p, a: a.get("skill") == "affinity", lambda a: {**a, "kind": JUNK}),
    ("hpsha", 5, {}, lambda p, a: a.get("skill") == "affinity", lambda a: {**a, "slots": [JUNK]}),
    ("hogwarts", 2, {}, lambda p, a: a["type"] == "move" and "wait" not in a, lambda a: {**a, "wait": JUNK}),
    # a value the rules read nothing of: seats no one names, a null read as absent
    ("hpsha", 4, {"creatures": 11}, lambda p, a: a.get("skill") == "chess_mastery",
     lambda a: {**a, "targets": list(range(2000))}),
    ("hpsha", 4, {}, lambda p, a: p.startswith("respond") and a["type"] == "card", lambda a: {**a, "skill": None}),
    ("hpsha", 4, {}, lambda p, a: a["type"] == "use" and "skill" not in a, lambda a: {**a, "skill": None}),
    # UNO (not a kit game): nulls, and a call no rule reads
    ("uno", 3, {}, lambda p, a: a["type"] == "play" and set(a) == {"type", "slot"}, lambda a: {**a, "colour": None}),
    ("uno", 3, {}, lambda p, a: a["type"] == "play" and set(a) == {"type", "slot"}, lambda a: {**a, "dump": None}),
    ("uno", 3, {"deck": "all"}, lambda p, a: a["type"] == "play" and "colour" in a and "uno" not in a,
     lambda a: {**a, "uno": True}),
])
def test_an_answer_carrying_what_its_decision_reads_nothing_of_is_refused(
        name: str, players: int, options: dict[str, Any], want: Any, alter: Any) -> None:
    """Each altered answer was taken by every view and reached the honest answer's state: a second signed form of
    the move, kept in every record (a cheater filled every honest Hogwarts record 14-fold this way)."""
    st, tb, step, legal, seat, action = _find(name, players, options, want)
    bad = alter(action)
    for knowledge in (tb.knowledge(seat), Knowledge(dict(tb.public), {}), tb.everything()):
        st.check(seat, action, knowledge)  # the honest answer passes
        with pytest.raises(IllegalAction):
            st.check(seat, bad, knowledge)
    twin = st.clone()
    answers = [(s, bad if s == seat else legal[s][0]) for s in step.seats]
    with pytest.raises(IllegalAction):
        twin.apply(answers, {sl: tb.faces[sl] for s, a in answers for sl in twin.reveals(s, a)})


def test_an_answer_applied_to_a_clone_leaves_the_original_as_it_was() -> None:
    """Hogwarts' Return mode kept its campaign (the Death Eaters, their life points and hands) in a dataclass its
    bottom task's clone shared: an answer applied to a clone (the audit's trial of a batch) changed the original."""
    st, tb, step, legal, seat, _ = _find("hogwarts", 2, {"mode": "return_of_voldemort"},
                                         lambda p, a: p == "trip" and a["type"] == "portal", seeds=range(1),
                                         kind="heuristic")
    for action in legal[seat]:
        before = st.state_hash()
        twin = st.clone()
        twin.apply([(seat, action)], {sl: tb.faces[sl] for sl in twin.reveals(seat, action)})
        assert st.state_hash() == before, action


@pytest.mark.parametrize(("name", "players", "options", "typ"), [("tcg", 2, {}, "take"), ("hogwarts", 2, {}, "move")])
def test_an_answer_with_only_listed_keys_is_still_checked_by_its_rules(
        name: str, players: int, options: dict[str, Any], typ: str) -> None:
    """``TaskGame.check`` asks the task's own check first: an answer whose keys are all listed but whose value no rule
    allows (a number no legal action of its type has) is refused, by the seat's view and the public one."""
    st, tb, seat, action = _first(name, players, options, typ)
    ints = [k for k, v in action.items() if type(v) is int]
    if not ints:
        pytest.skip(f"{typ!r} has no number to change")
    bad = {**action, ints[0]: 10**6}
    for knowledge in (tb.knowledge(seat), Knowledge(dict(tb.public), {})):
        st.check(seat, action, knowledge)
        with pytest.raises(IllegalAction):
            st.check(seat, bad, knowledge)


@dataclass
class _TwoTypes(Task["_TwoTypeGame"]):
    """One decision of seat 0 offering two action types with different keys: ``play`` (a slot) and ``pass``."""

    def run(self, g: _TwoTypeGame) -> Outcome:
        return Decide((0,), "play or pass")

    def legal(self, g: _TwoTypeGame, seat: int, knowledge: Knowledge) -> list[Action]:
        return [{"type": "play", "slot": 0}, {"type": "pass"}]

    def check(self, g: _TwoTypeGame, seat: int, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") not in ("play", "pass") or action.get("slot", 0) != 0:
            raise IllegalAction(f"not an answer here: {action}")


class _TwoTypeGame(TaskGame):
    """A kit game declaring no ``action_keys``: its allowed keys come from the listed actions of each type."""

    def __init__(self) -> None:
        self.pub = {}
        self.stack: TaskStack[_TwoTypeGame] = TaskStack([_TwoTypes()])
        self.stack.settle(self)

    def observation(self, seat: int | None, knowledge: Knowledge) -> dict[str, Any]:
        return {}

    def snapshot(self) -> Any:
        return self.stack.snapshot()

    def clone(self) -> _TwoTypeGame:
        return self


def test_the_keys_an_undeclared_kit_game_allows_are_those_of_the_answers_own_type() -> None:
    """Without ``action_keys``, an answer's keys are checked against the listed actions of its own type: taken from
    the other types' instead, the honest ``play`` was refused (``pass`` lists no slot) and a ``pass`` carrying the
    ``play``'s slot passed."""
    g = _TwoTypeGame()
    view = Knowledge({}, {})
    for honest in ({"type": "play", "slot": 0}, {"type": "pass"}):
        g.check(0, honest, view)
    with pytest.raises(IllegalAction, match="carries no 'slot'"):
        g.check(0, {"type": "pass", "slot": 0}, view)
