"""The conformance check every game passes: random play against the engine contract.

Like OpenSpiel's shared random-play test, :func:`check_game` plays a game to the
end from a few seeds on a :class:`~p2php.engine.local.LocalTable` and checks, at
every decision, what the session layer relies on:

* the pending step is stable (``step()`` and ``state_hash()`` twice give the same);
* every asked seat has legal actions, and each passes ``check`` with the seat's own
  knowledge, the auditor's (every face known) and the public view (what a peer who
  does not know the face validates with); ``describe`` gives a line for each; none is too dense
  for the wire (:mod:`p2php.testing.density`: every seat would refuse its honest message);
* on a :class:`~p2php.engine.taskgame.TaskGame`, a legal action of each type plus a key no answer carries is
  refused by ``check`` with each of those views (protocol.md §6.4: a key the rules do not read would be signed into
  every seat's record, and be a second encoding of the same move);
* ``snapshot`` and every seat's (and a spectator's) ``observation`` are canonical data;
* determinism: the same seed and the same actions give the same state hash at every step;
* ``clone`` is independent, and the clone given the same answers reaches the same hash;
* answers that are each legal apply together: at a decision that asks several seats, every set of legal answers
  (one for each seat) when there are at most :data:`TOGETHER_ALL`, else each legal action of each seat (up to
  :data:`TOGETHER_PER_SEAT`) beside the other seats' answers, every seat giving the same answer, and a few random
  sets, is applied on a clone, and ``apply`` must take every set and every proper prefix of it. The audit names a
  liar by elimination on this rule (protocol.md §6.4): when a decision's answers fail together, all but one are
  proven legal, so the one left lied — a game whose legal answers can fail together would get an honest seat
  named so. And the session applies prefixes to find the seat whose answer fails (§6.6: a partial call must only
  validate the answers it is given) — a game that refuses a prefix of legal answers for being one got the first
  seat named ``illegal_action`` at once, whoever lied.

A failure raises :class:`ConformanceError` naming the game, players, seed and decision.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from p2php.canonical import encode
from p2php.engine.contract import Action, Decide, Game, GameOver, GameState, IllegalAction, Knowledge, RandomBot, Seat
from p2php.engine.local import LocalTable, default_decks
from p2php.engine.taskgame import TaskGame
from p2php.errors import P2phpError
from p2php.testing.density import density_fault, shown


class ConformanceError(P2phpError, AssertionError):
    """A game broke the engine contract (the message says where and how)."""


@dataclass
class Played:
    """One checked game: how it ended, the state hashes at the checked decisions, the decisions made."""

    players: int
    seed: int
    result: GameOver
    hashes: dict[int, bytes]
    decisions: int


def _fail(where: str, what: str) -> ConformanceError:
    return ConformanceError(f"{where}: {what}")


def _check_decision(where: str, st: GameState, tb: LocalTable, step: Decide) -> None:
    if st.step() != step:
        raise _fail(where, "step() changed between two calls with nothing applied")
    if st.state_hash() != st.state_hash():
        raise _fail(where, "state_hash() is not stable")
    if not step.seats:
        raise _fail(where, f"a decision ({step.prompt!r}) asks no seat")
    for seat in step.seats:
        mine = tb.knowledge(seat)
        legal = st.legal_actions(seat, mine)
        if not legal:
            raise _fail(where, f"seat {seat} has no legal action at {step.prompt!r}")
        views = {"its own": mine, "the auditor's": tb.everything(), "the public": Knowledge(dict(tb.public), {})}
        for action in legal:
            for name, knowledge in views.items():
                try:
                    st.check(seat, action, knowledge)
                except Exception as err:
                    raise _fail(where, f"seat {seat}'s legal {action} fails check with {name} view: {err}") from err
            if not isinstance(st.describe(seat, action, {}), str):
                raise _fail(where, f"describe() of {action} is not a string")
            dense = density_fault(action)
            if dense is not None:
                raise _fail(where, f"seat {seat}'s legal {shown(action)} is too dense for the wire: {dense}")
        if isinstance(st, TaskGame):
            _check_stray_key(where, st, seat, legal, views)


STRAY = "p2php_stray"
"""The key :func:`_check_stray_key` adds to a legal action: no game's answer carries it."""


def _check_stray_key(where: str, st: GameState, seat: Seat, legal: list[Action],
                     views: Mapping[str, Knowledge]) -> None:
    """A legal action of each type plus a key no answer carries must be refused with every view."""
    for action in {str(a.get("type")): a for a in reversed(legal)}.values():  # the first of each type
        stray = {**action, STRAY: 0}
        for name, knowledge in views.items():
            try:
                st.check(seat, stray, knowledge)
            except IllegalAction:
                continue
            raise _fail(where, f"seat {seat}'s legal {shown(action)} with a key {STRAY!r} added passes check with "
                        f"{name} view: declare the keys of each answer type in TaskGame.action_keys "
                        "(p2php.engine.taskgame.keys_by_type)")


def _check_views(where: str, st: GameState, tb: LocalTable, players: int) -> None:
    try:
        encode(st.snapshot())
        for seat in (None, *range(players)):
            knowledge = tb.knowledge(seat) if seat is not None else Knowledge(dict(tb.public), {})
            encode(st.observation(seat, knowledge))
    except Exception as err:
        raise _fail(where, f"snapshot or observation is not canonical data: {err}") from err


def _check_clone(where: str, st: GameState, tb: LocalTable, answers: list[tuple[Seat, Action]]) -> None:
    twin = st.clone()
    before = st.state_hash()
    if twin.state_hash() != before or encode(twin.snapshot()) != encode(st.snapshot()):
        raise _fail(where, "a clone differs from its original")
    tb.act(answers)
    if twin.state_hash() != before:
        raise _fail(where, "acting on the original changed its clone")
    opened = {slot: tb.faces[slot] for seat, a in answers for slot in twin.reveals(seat, a)}
    twin.apply(answers, opened)
    if twin.state_hash() != st.state_hash():
        raise _fail(where, "the clone given the same answers reached another state")


TOGETHER_ALL = 256
"""At a decision that asks several seats, every set of legal answers is applied when there are at most this many."""

TOGETHER_PER_SEAT = 8
"""Else: legal actions of each seat tried beside the others' answers ..."""

TOGETHER_RANDOM = 16
"""... and random sets of legal answers (one for each asked seat) tried besides."""


def _check_together(where: str, st: GameState, tb: LocalTable, step: Decide,
                    answers: list[tuple[Seat, Action]]) -> None:
    """Answers each legal alone must apply together (the engine contract the audit's elimination rests on)."""
    seats = [seat for seat, _ in answers]
    if len(set(seats)) < 2:
        return
    legal = {seat: st.legal_actions(seat, tb.knowledge(seat)) for seat in set(seats)}
    rng = random.Random(f"together/{where}")
    sets: list[list[tuple[Seat, Action]]] = []
    if math.prod(len(legal[seat]) for seat in seats) <= TOGETHER_ALL:
        sets = [list(zip(seats, chosen, strict=True)) for chosen in itertools.product(*(legal[s] for s in seats))]
    else:
        for i, seat in enumerate(seats):
            offered = legal[seat]
            tried = offered if len(offered) <= TOGETHER_PER_SEAT else rng.sample(offered, TOGETHER_PER_SEAT)
            sets += [[*answers[:i], (seat, action), *answers[i + 1:]] for action in tried]
        offered_to = [{encode(a): a for a in legal[seat]} for seat in seats]  # the same answer from every seat
        sets += [[(seat, offered_to[0][key]) for seat in seats] for key in offered_to[0]
                 if all(key in o for o in offered_to)][:TOGETHER_PER_SEAT]
        sets += [[(seat, rng.choice(legal[seat])) for seat in seats] for _ in range(TOGETHER_RANDOM)]
    seen: set[bytes] = set()
    for together in sets:
        for k in range(1, len(together) + 1):  # every prefix too: the session applies prefixes to find a culprit
            part = together[:k]
            key = encode([[seat, action] for seat, action in part])
            if key in seen:
                continue
            seen.add(key)
            twin = st.clone()
            try:
                opened = {slot: tb.faces[slot] for seat, a in part for slot in twin.reveals(seat, a)}
                twin.apply(part, opened)
            except Exception as err:
                what = "; ".join(f"seat {seat} {shown(action, 60)}" for seat, action in part)
                why = " ".join(str(err).split())[:200]
                if k < len(together):
                    raise _fail(where, f"legal answers fail as a prefix of the answers at {step.prompt!r} ({what}): "
                                f"{type(err).__name__}: {why} (apply given a prefix must only validate it: the "
                                "session applies prefixes to name the seat whose answer fails, protocol.md §6.6)"
                                ) from err
                raise _fail(where, f"answers each legal alone fail together at {step.prompt!r} ({what}): "
                            f"{type(err).__name__}: {why} (legal answers must apply together: the audit names a "
                            "liar by elimination on it, protocol.md §6.4)") from err


def _answers(st: GameState, tb: LocalTable, step: Decide, seed: int, n: int) -> list[tuple[Seat, Action]]:
    answers = []
    for seat in step.seats:
        knowledge = tb.knowledge(seat)
        bot = RandomBot(f"conformance/{seed}/{seat}/{n}")
        answers.append((seat, bot.choose(st, seat, knowledge, st.legal_actions(seat, knowledge))))
    return answers


def play_checked(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    every: int = 1,
    clone_every: int = 25,
    max_decisions: int = 100_000,
) -> Played:
    """Play one game with random bots, checking the contract at every ``every``-th decision and at the end.

    Hashing a large state is the costly part: big games pass a larger ``every``.
    """
    st, tb = _table(game, players, seed, options)
    hashes: dict[int, bytes] = {}
    for n in range(max_decisions):
        where = f"{game.name}, {players} players, seed {seed}, decision {n}"
        try:
            step = tb.run_chance()
        except Exception as err:
            raise _fail(where, f"the chance steps before it failed: {type(err).__name__}: {err}") from err
        if isinstance(step, GameOver):
            hashes[n] = st.state_hash()
            _check_views(where, st, tb, players)
            return Played(players, seed, step, hashes, n)
        if n % every == 0:
            hashes[n] = st.state_hash()
            _check_decision(where, st, tb, step)
            _check_views(where, st, tb, players)
        answers = _answers(st, tb, step, seed, n)
        if n % every == 0:
            _check_together(where, st, tb, step, answers)
        try:
            if n % clone_every == clone_every - 1:
                _check_clone(where, st, tb, answers)
            else:
                tb.act(answers)
        except ConformanceError:
            raise
        except Exception as err:
            raise _fail(where, f"applying legal answers {answers} failed: {type(err).__name__}: {err}") from err
    raise ConformanceError(f"{game.name}, {players} players, seed {seed}: no end within {max_decisions} decisions")


def _table(game: Game, players: int, seed: int, options: Mapping[str, Any] | None) -> tuple[GameState, LocalTable]:
    """A fresh state on a trusted table, with the secret decks each seat brings by default."""
    opts = game.parse_options(dict(options or {}))
    st = game.new_state(players, opts)
    return st, LocalTable(st, seed, private_decks=default_decks(game, players, opts))


def replay_hashes(
    game: Game, players: int, seed: int, options: Mapping[str, Any] | None, at: Iterable[int]
) -> dict[int, bytes]:
    """The same game again, unchecked: the state hash at the decisions ``at``."""
    want = set(at)
    st, tb = _table(game, players, seed, options)
    out: dict[int, bytes] = {}
    n = 0
    while want - set(out):
        step = tb.run_chance()
        if n in want:
            out[n] = st.state_hash()
        if isinstance(step, GameOver):
            break
        tb.act(_answers(st, tb, step, seed, n))
        n += 1
    return out


def check_game(
    game: Game,
    players: Iterable[int] | None = None,
    seeds: Iterable[int] = range(3),
    options: Mapping[str, Any] | None = None,
    **play: Any,
) -> list[Played]:
    """Run the conformance check for ``game`` (players default: the smallest and largest table).

    Each game is played twice from the same seed with the same actions; the state
    hashes at the checked decisions must agree (determinism).
    """
    counts = list(players) if players is not None else sorted({game.min_players, game.max_players})
    out = []
    for n in counts:
        for seed in seeds:
            first = play_checked(game, n, seed, options, **play)
            again = replay_hashes(game, n, seed, options, first.hashes)
            differ = [i for i in sorted(first.hashes) if again.get(i) != first.hashes[i]]
            if differ:
                raise ConformanceError(f"{game.name}, {n} players, seed {seed}: the same seed and actions "
                                       f"gave another state at decision {differ[0]} (not deterministic)")
            out.append(first)
    return out
