"""Does ``check`` refuse everything ``legal_actions`` does not offer?  A property check against cheats.

Every honest peer runs the same engine, and a cheater is a peer that sends an action the rules
do not allow: each honest peer must refuse it (:class:`~p2php.engine.contract.IllegalAction` from
``check`` or ``apply``), or the cheater is never named.  So ``check`` and ``legal_actions`` must
agree: what one offers the other accepts, and what one does not offer the other refuses.

:func:`check_agreement` plays seeded random games on a :class:`~p2php.engine.local.LocalTable`
and, at each decision, for each asked seat with that seat's own knowledge:

1. every legal action passes ``check``, as it is and as it arrives from the wire (canonical
   form: keys sorted, tuples made lists), and is not too dense for the wire (a long list of small
   ints would make its seat's honest message one that every seat refuses: :mod:`p2php.testing.density`);
2. candidate *cheats* are made by mutating legal actions -- another slot (one the seat knows,
   one of another seat's hand, a face-down deck slot, a public slot, a slot never dealt), another
   seat (another, out of range, itself), a key added, removed or renamed, a value of another type
   (``True`` for ``1``: Python's ``==`` takes one for the other, the wire does not), another known
   name, an empty dict, a legal action of another decision seen earlier in the game, a list with a
   duplicate, a missing, an added or a reordered element -- and every candidate ``check`` accepts
   must equal (by :func:`p2php.canonical.encode`) some legal action.  One that does not is a
   :class:`Disagreement`.  It is then applied on a ``clone()`` of the state: ``apply`` may refuse it
   (a hole in ``check`` alone is less severe), fail with another exception (every peer stops and no
   one is named), or take it; a taken one that leaves the very state some legal action leaves is
   another *spelling* of that action (an extra key the game ignores), benign; any other is a cheat
   (the chance steps up to the next decision are then run too, to find a later failure).

A float never gets this far (a signed message must encode canonically), nor does a non-dict action.

A game whose rules call two different actions the same (a list that means a set, say) passes
``same(state, action)``: what identifies the action, compared by canonical encoding (see
:func:`unordered`).

    from p2php.testing.agreement import check_agreement

    def test_check_refuses_what_is_not_legal():
        report = check_agreement(MY_GAME, players=(2, 4), seeds=range(3))
        assert not report.cheats, report.summary()

Candidates are sampled (``per_decision`` of them at each decision, seeded), so a longer run
covers more; the report counts what was tried.  Nothing here is used in real play.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2php.canonical import decode, encode
from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    Game,
    GameOver,
    GameState,
    IllegalAction,
    RandomBot,
    Seat,
    Slot,
)
from p2php.engine.local import LocalTable, default_decks
from p2php.errors import P2phpError
from p2php.testing.density import density_fault, shown

__all__ = ["AgreementError", "AgreementReport", "Disagreement", "candidates", "check_agreement", "unordered"]

HISTORY = 12
"""Distinct values (and actions) remembered per key (per decision) to mutate with later."""


class AgreementError(P2phpError, AssertionError):
    """A legal action that ``check`` refuses (the message names the game, seed and decision)."""


@dataclass(frozen=True)
class Disagreement:
    """A candidate that ``check`` accepted although ``legal_actions`` does not offer it.

    ``apply`` says what a clone of the state did with it: ``"refused: ..."`` (``apply`` caught
    the cheat), ``"crashed: ..."`` (an exception other than IllegalAction: a peer would fail,
    not name the cheater), ``"crashed later: ..."`` (``apply`` took it, but the chance steps up to
    the next decision or its legal actions failed) or ``"accepted"`` (the cheat went through).
    """

    game: str
    players: int
    seed: int
    decision: int
    prompt: str
    task: str
    seat: Seat
    mutation: str
    action: Action
    legal: tuple[Action, ...]
    apply: str
    same_as: Action | None = None
    """A legal action that, applied instead, leaves the very same state (same ``state_hash``): the candidate
    is then another spelling of it (benign), not a cheat."""

    @property
    def caught_by_apply(self) -> bool:
        return self.apply.startswith("refused")

    @property
    def benign(self) -> bool:
        """Another spelling of a legal action: ``apply`` took it and reached the state that action reaches."""
        return self.same_as is not None

    @property
    def case(self) -> str:
        """What identifies this hole across seeds: ``"prompt/Task: mutation"``."""
        return f"{self.prompt}/{self.task}: {self.mutation}"

    def __str__(self) -> str:
        legal = ", ".join(str(a) for a in self.legal[:6]) + (" ..." if len(self.legal) > 6 else "")
        same = f" (same state as legal {self.same_as})" if self.same_as is not None else ""
        return (f"{self.game}, {self.players} players, seed {self.seed}, decision {self.decision} "
                f"({self.case}): seat {self.seat} {self.action} passed check, apply {self.apply}{same}; "
                f"legal: {legal}")


@dataclass
class AgreementReport:
    """What :func:`check_agreement` tried and found."""

    game: str
    games: int = 0
    decisions: int = 0
    legal_checked: int = 0
    candidates: int = 0
    refused: int = 0
    refused_not_illegal: Counter[str] = field(default_factory=Counter)
    """Candidates ``check`` refused with another exception than IllegalAction, by ``case: exception type``
    (the session names the sender of such malformed data too: lockstep's "malformed action", so no hole)."""
    disagreements: list[Disagreement] = field(default_factory=list)
    prompts: Counter[str] = field(default_factory=Counter)
    """Decisions checked, by ``prompt/Task``."""

    @property
    def cheats(self) -> list[Disagreement]:
        """The disagreements that are not merely another spelling of a legal action."""
        return [d for d in self.disagreements if not d.benign]

    def cases(self, benign: bool | None = False) -> dict[str, list[Disagreement]]:
        """The disagreements by :attr:`Disagreement.case`: the cheats (``benign=False``), the other spellings
        (``True``) or all (``None``)."""
        out: dict[str, list[Disagreement]] = {}
        for d in self.disagreements:
            if benign is None or d.benign == benign:
                out.setdefault(d.case, []).append(d)
        return out

    def summary(self, examples: int = 1) -> str:
        lines = [f"{self.game}: {self.games} games, {self.decisions} decisions, {self.legal_checked} legal "
                 f"actions checked, {self.candidates} candidates ({self.refused} refused); accepted though not "
                 f"legal: {len(self.cases())} cases of cheats, {len(self.cases(True))} of other spellings"]
        for case, found in sorted(self.cases().items()):
            applied = Counter(d.apply.split(":")[0] for d in found)
            lines.append(f"  CHEAT {case}: {len(found)} times (apply {dict(applied)})")
            lines.extend(f"    {d}" for d in found[:examples])
        spellings = Counter(d.mutation for d in self.disagreements if d.benign)
        if spellings:
            lines.append("  other spellings (same state as a legal action), by mutation: "
                         + ", ".join(f"{m} {k}" for m, k in sorted(spellings.items())))
        if self.refused_not_illegal:
            lines.append("  refused with another exception than IllegalAction: "
                         + ", ".join(f"{c} {k}" for c, k in sorted(self.refused_not_illegal.items())))
        return "\n".join(lines)


# ----------------------------------------------------------------------------- the candidates


@dataclass
class _Pools:
    """What a mutation may put in: slots and seats by kind, and what earlier decisions offered."""

    seat: Seat
    players: int
    slots: dict[str, list[Slot]]
    values: dict[str, list[Any]]
    """Values seen for each key in legal actions so far (lists: their elements under ``key[]``)."""
    others: list[tuple[str, Action]]
    """Legal actions of other decisions seen earlier, by prompt."""
    alongside: list[Action]
    """Legal actions of the other seats asked at this decision."""

    def ints(self) -> dict[str, list[int]]:
        seats = {"the seat itself": [self.seat],
                 "another seat": [s for s in range(self.players) if s != self.seat],
                 "no such seat": [self.players, -1]}
        return {**self.slots, **seats}


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _swaps(v: Any) -> list[tuple[str, Any]]:
    """``v`` as a value of another type."""
    if isinstance(v, bool):
        return [("bool as int", int(v)), ("bool as str", str(v).lower())]
    if _is_int(v):
        as_bool = bool(v) if v in (0, 1) else True  # equal to ``v`` in Python when it can be: ``x in legal`` lets it by
        return [("int as str", str(v)), ("int as list", [v]), ("int as bool", as_bool), ("int as None", None)]
    if isinstance(v, str):
        return [("str as int", 1), ("str as list", [v]), ("str as None", None)]
    if isinstance(v, list):
        return [("list as int", v[0] if v and _is_int(v[0]) else 0), ("list as str", "x"),
                ("list as dict", {})]
    if isinstance(v, dict):
        return [("dict as list", list(v)), ("dict as int", 0)]
    return [("None as int", 0)] if v is None else []


def _element_options(key: str, element: Any, pools: _Pools, rng: random.Random) -> list[tuple[str, Any]]:
    """Other elements to put where ``element`` is (in a list under ``key``)."""
    if _is_int(element):
        return [(kind, rng.choice(vals)) for kind, vals in pools.ints().items() if vals]
    seen = [x for x in pools.values.get(key + "[]", []) if encode(x) != encode(element)]
    out: list[tuple[str, Any]] = [("seen element", rng.choice(seen))] if seen else []
    if isinstance(element, str):
        out.append(("unknown name", element + "_x"))
    return out


def _mutate_value(key: str, v: Any, pools: _Pools, rng: random.Random) -> list[tuple[str, Any]]:
    """Other values for ``key`` (labels without the key)."""
    out = _swaps(v)
    seen = [x for x in pools.values.get(key, []) if encode(x) != encode(v)]
    if seen:
        out.append(("seen value", rng.choice(seen)))
    if _is_int(v):
        out += [(kind, rng.choice(vals)) for kind, vals in pools.ints().items() if vals]
        out += [("plus one", v + 1), ("minus one", v - 1)]
    elif isinstance(v, bool):
        out.append(("flipped", not v))
    elif isinstance(v, str):
        out += [("unknown name", v + "_x"), ("empty name", "")]
    elif isinstance(v, list):
        out.append(("empty list", []))
        if v:
            out += [("duplicate element", [*v, v[0]]), ("drop last", v[:-1]), ("drop first", v[1:])]
            i = rng.randrange(len(v))
            out += [(f"element {kind}", [*v[:i], x, *v[i + 1:]]) for kind, x in _element_options(key, v[i], pools, rng)]
            out += [(f"added {kind}", [*v, x]) for kind, x in _element_options(key, v[-1], pools, rng)]
            if len(v) > 1:
                out.append(("reordered", v[::-1]))
        else:
            out += [(f"added {kind}", [rng.choice(vals)]) for kind, vals in pools.ints().items() if vals]
    elif isinstance(v, dict):
        out.append(("emptied", {}))
    return out


def candidates(base: Action, pools: _Pools, rng: random.Random) -> list[tuple[str, Action]]:
    """Mutations of ``base``, each labelled with what was changed (``"slot: another seat's slot"``)."""
    out: list[tuple[str, Action]] = [("empty dict", {})]
    kind = base.get("type")
    if len(base) > 1:
        out.append(("type only", {"type": kind}))
    for key, v in base.items():
        rest = {k: x for k, x in base.items() if k != key}
        out.append((f"-{key}", rest))
        out.append((f"{key} renamed", {**rest, key + "_": v}))
        for label, new in _mutate_value(key, v, pools, rng):
            out.append((f"{key}: {label}", {**base, key: new}))
    for key, seen in pools.values.items():
        if key not in base and not key.endswith("[]") and seen:
            out.append((f"+{key}", {**base, key: rng.choice(seen)}))
    out.append(("+unknown key", {**base, "zz": 1}))
    if pools.others:
        prompt, other = rng.choice(pools.others)
        out.append((f"legal at {prompt}", dict(other)))
    out += [("another seat's legal", dict(a)) for a in pools.alongside]
    return out


def _remember(values: dict[str, list[Any]], action: Action) -> None:
    for key, v in action.items():
        _add(values.setdefault(key, []), v)
        if isinstance(v, list):
            for x in v:
                _add(values.setdefault(key + "[]", []), x)


def _add(seen: list[Any], v: Any) -> None:
    if len(seen) < HISTORY and all(encode(x) != encode(v) for x in seen):
        seen.append(v)


# ----------------------------------------------------------------------------- the run


def _slot_pools(tb: LocalTable, seat: Seat) -> dict[str, list[Slot]]:
    mine = tb.knowledge(seat).private
    theirs = {s for other, faces in tb.private.items() if other != seat for s in faces} - set(mine) - set(tb.public)
    everyone = set(tb.public) | {s for faces in tb.private.values() for s in faces}
    top = max(tb.faces, default=0)
    return {"slot it knows": sorted(set(mine) - set(tb.public)),
            "another seat's slot": sorted(theirs),
            "face-down slot": sorted(set(tb.faces) - everyone),
            "public slot": sorted(tb.public),
            "slot never dealt": [top + 1, top + 1000, -1]}


def _applied(st: GameState, tb: LocalTable, answers: list[tuple[Seat, Action]]) -> tuple[str, GameState | None]:
    """What ``apply`` on a clone does with ``answers`` (refused / crashed / accepted), and the clone if accepted."""
    twin = st.clone()
    faces: dict[Slot, CardId] = {}
    try:
        for seat, action in answers:
            for slot in twin.reveals(seat, action):
                if slot not in tb.faces:
                    return f"refused: the session opens no slot {slot!r} (no such card)", None
                faces[slot] = tb.faces[slot]
    except Exception as err:  # the session refuses an action whose reveals fail (lockstep._safe_reveals)
        return f"refused: reveals() failed: {type(err).__name__}: {err}", None
    try:
        twin.apply(answers, faces)
    except IllegalAction as err:
        return f"refused: {err}", None
    except Exception as err:
        return f"crashed: {type(err).__name__}: {err}", None
    return "accepted", twin


def _follow(reached: GameState, tb: LocalTable) -> str | None:
    """Play the chance steps after an accepted cheat up to the next decision, and list its legal actions: what
    crashes there (a peer would fail later, not name the cheater), or ``None``."""
    table = LocalTable(reached, "agreement/after", private_decks=tb.private_decks, faces=dict(tb.faces),
                       public=dict(tb.public), private={s: dict(f) for s, f in tb.private.items()})
    try:
        step = table.run_chance()
        if isinstance(step, Decide):
            for seat in step.seats:
                reached.legal_actions(seat, table.knowledge(seat))
    except Exception as err:
        return f"crashed later: {type(err).__name__}: {err}"
    return None


def _likeness(a: Action, b: Action) -> int:
    """How alike two actions look: the same type first, then the most equal fields."""
    shared = sum(2 if encode(b[k]) == encode(v) else 1 if b[k] == v else 0 for k, v in a.items() if k in b)
    return shared + (1000 if encode(a.get("type")) == encode(b.get("type")) else 0)


def _same_as(st: GameState, tb: LocalTable, answers: list[tuple[Seat, Action]], seat: Seat, cand: Action,
             reached: GameState, offered: Sequence[Action], limit: int = 24) -> Action | None:
    """A legal action of ``seat`` that, in its place, leads to the state the candidate reached (the ``limit``
    legal actions most like the candidate are tried)."""
    target = reached.state_hash()
    for action in sorted(offered, key=lambda a: -_likeness(cand, a))[:limit]:
        _outcome, twin = _applied(st, tb, [(s, action if s == seat else a) for s, a in answers])
        if twin is not None and twin.state_hash() == target:
            return action
    return None


def _task(st: GameState) -> str:
    stack = getattr(st, "stack", None)
    top = getattr(stack, "top", None) if stack is not None else None
    return type(top).__name__ if top is not None else ""


def _wire(action: Action) -> Any:
    return decode(encode(action))


def check_agreement(
    game: Game,
    players: Iterable[int] | None = None,
    seeds: Iterable[int] = range(2),
    options: Mapping[str, Any] | None = None,
    *,
    per_decision: int = 24,
    bases: int = 3,
    every: int = 1,
    max_decisions: int = 20_000,
    same: Callable[[GameState, Action], Any] | None = None,
    apply: bool = True,
) -> AgreementReport:
    """Play ``game`` from each seed at each player count, trying ``per_decision`` cheats at each decision.

    ``players`` defaults to the smallest and largest table; ``bases`` legal actions (of different types
    where there are) are mutated at each checked decision (every ``every``-th); a game stops after
    ``max_decisions``.  ``same(state, action)`` (default: the action itself) is compared by canonical
    encoding to tell whether an accepted candidate is one of the legal actions.  With ``apply``, each
    accepted illegal candidate is applied on a clone (and told a spelling or a cheat).  Raises
    :class:`AgreementError` if a legal action fails ``check`` or is too dense for the wire; returns what was
    found otherwise.
    """
    ident: Callable[[GameState, Action], Any] = same or (lambda _st, a: a)
    counts = list(players) if players is not None else sorted({game.min_players, game.max_players})
    report = AgreementReport(game.name)
    for n in counts:
        for seed in seeds:
            _play(game, n, seed, options, report, per_decision, bases, every, max_decisions, ident, apply)
    return report


def _play(game: Game, players: int, seed: int, options: Mapping[str, Any] | None, report: AgreementReport,
          per_decision: int, bases: int, every: int, max_decisions: int, ident: Callable[[GameState, Action], Any],
          apply: bool) -> None:
    opts = game.parse_options(dict(options or {}))
    st = game.new_state(players, opts)
    tb = LocalTable(st, seed, private_decks=default_decks(game, players, opts))
    rng = random.Random(f"agreement/{game.name}/{players}/{seed}")
    values: dict[str, list[Any]] = {}
    seen: dict[str, list[Action]] = {}
    report.games += 1
    for n in range(max_decisions):
        step = tb.run_chance()
        if isinstance(step, GameOver):
            return
        assert isinstance(step, Decide)
        legal = {seat: st.legal_actions(seat, tb.knowledge(seat)) for seat in step.seats}
        answers = [(seat, RandomBot(f"agreement/{seed}/{seat}/{n}").choose(st, seat, tb.knowledge(seat), legal[seat]))
                   for seat in step.seats]
        if n % every == 0:
            report.decisions += 1
            task = _task(st)
            report.prompts[f"{step.prompt}/{task}"] += 1
            for seat in step.seats:
                where = (game.name, players, seed, n, step.prompt, task, seat)
                _decide(st, tb, where, legal, answers, report, rng, values, seen, per_decision, bases, ident,
                        apply)
        for seat in step.seats:
            for a in legal[seat][:HISTORY]:
                _remember(values, a)
            kept = seen.setdefault(step.prompt, [])
            for a in rng.sample(legal[seat], min(2, len(legal[seat]))):
                _add(kept, a)
        tb.act(answers)


def _decide(st: GameState, tb: LocalTable, where: tuple[str, int, int, int, str, str, Seat],
            legal: dict[Seat, list[Action]], answers: list[tuple[Seat, Action]], report: AgreementReport,
            rng: random.Random, values: dict[str, list[Any]], seen: dict[str, list[Action]], per_decision: int,
            bases: int, ident: Callable[[GameState, Action], Any], apply: bool) -> None:
    name, players, seed, n, prompt, task, seat = where
    mine = tb.knowledge(seat)
    offered = legal[seat]
    for action in offered:
        for form in (action, _wire(action)):
            try:
                st.check(seat, form, mine)
            except Exception as err:
                raise AgreementError(f"{name}, {players} players, seed {seed}, decision {n} ({prompt}): seat "
                                     f"{seat}'s legal {form} fails check: {type(err).__name__}: {err}") from err
        dense = density_fault(action)
        if dense is not None:
            raise AgreementError(f"{name}, {players} players, seed {seed}, decision {n} ({prompt}): seat {seat}'s "
                                 f"legal {shown(action)} is too dense for the wire: {dense}")
        report.legal_checked += 1
    known = {encode(ident(st, a)) for a in offered}
    by_type: dict[Any, list[Action]] = {}
    for a in offered:
        by_type.setdefault(a.get("type"), []).append(a)
    picked = [rng.choice(group) for group in by_type.values()]
    rng.shuffle(picked)
    others = [(p, a) for p, acts in seen.items() if p != prompt for a in acts]
    pools = _Pools(seat, players, _slot_pools(tb, seat), values, others,
                   [a for s, acts in legal.items() if s != seat for a in acts[:2]])
    tried: dict[bytes, tuple[str, Action]] = {}
    for base in picked[:bases]:
        for label, cand in candidates(base, pools, rng):
            tried.setdefault(encode(cand), (label, cand))
    chosen = list(tried.values())
    if len(chosen) > per_decision:
        chosen = rng.sample(chosen, per_decision)
    for label, cand in chosen:
        report.candidates += 1
        try:
            st.check(seat, cand, mine)
        except IllegalAction:
            report.refused += 1
            continue
        except Exception as err:
            report.refused += 1
            report.refused_not_illegal[f"{prompt}/{task}: {label}: {type(err).__name__}"] += 1
            continue
        try:
            if encode(ident(st, cand)) in known:
                continue
        except Exception:
            pass  # ``same`` does not know the shape: not a legal action
        outcome, like = "not tried", None
        if apply:
            outcome, reached = _applied(st, tb, [(s, cand if s == seat else a) for s, a in answers])
            if reached is not None:
                like = _same_as(st, tb, answers, seat, cand, reached, offered)
                if like is None:
                    outcome = _follow(reached, tb) or outcome
        report.disagreements.append(Disagreement(name, players, seed, n, prompt, task, seat, label, cand,
                                                 tuple(offered), outcome, like))


def unordered(*keys: str) -> Callable[[GameState, Action], Any]:
    """A ``same`` for actions whose lists under ``keys`` are sets (``[3, 1]`` is ``[1, 3]``)."""

    def same(_state: GameState, action: Action) -> Any:
        return {k: sorted(v, key=encode) if k in keys and isinstance(v, list) else v for k, v in action.items()}

    return same
