"""HP Sha's tasks on the kit's task stack, and the two ways of asking a seat.

Resolution is a stack of small plain-data tasks (:mod:`p2php.engine.tasks`): decisions and
crypto steps interrupt it at any depth, and the whole state must stay snapshot-able and
cloneable.  A task's :meth:`~p2php.engine.tasks.Task.run` returns an outcome -- a contract
step to wait for (its result comes back through ``answer`` or ``received``), ``Push``/``Call``
for sub-tasks (a ``Call`` hands the sub-task's result to a named field), ``Done`` with a result,
``CONTINUE`` after moving to another named stage.

This module holds the HP Sha base class and the two ways of asking a seat (for a card, for a
choice).  The generic tasks built on them live in :mod:`.moves` (drawing, reshuffling,
revealing, taking cards, 拼点), :mod:`.windows` (timing points, 咒立停 / 呼神护卫 windows,
judgement) and :mod:`.damage` (damage, HP loss, dying, death, the end of the game).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any, TypedDict

from p2php.engine.contract import (
    Action,
    CardId,
    IllegalAction,
    Knowledge,
    Seat,
    Slot,
)
from p2php.engine.tasks import CONTINUE, Done, Outcome, ask_one, stage_names
from p2php.engine.tasks import Task as KitTask
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.data import (
    BASIC,
    CARDS,
    KIND_FACES,
    Card,
    kind_label,
)

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


# ----------------------------------------------------------------------------- helpers


def as_int(action: Action, key: str) -> int:
    """An int field of an action, or IllegalAction (actions arrive from the network)."""
    v = action.get(key)
    if type(v) is not int:
        raise IllegalAction(f"action field {key!r} must be an int, got {v!r}")
    return v


def as_slots(action: Action, key: str = "slots") -> list[int]:
    v = action.get(key)
    if type(v) is list and len(v) == 1 and type(v[0]) is int:  # the commonest answer: one slot or target
        return [v[0]]
    if not isinstance(v, list) or not all(type(x) is int for x in v) or len(set(v)) != len(v):
        raise IllegalAction(f"action field {key!r} must be a list of distinct ints, got {v!r}")
    return list(v)


def spec_ok(spec: str, card: Card) -> bool:
    """Does a physical card satisfy a card spec?

    Specs are plain strings so they can live in task fields:
    ``kind:<k>`` (that card name), ``any``, ``nonbasic``, ``colour_not:<red|black>``,
    ``suit_not:<suits>`` (none of those suit symbols), ``category:<basic|spell|equipment>``.
    """
    if spec.startswith("kind:"):
        return card.kind == spec[5:]
    if spec.startswith("category:"):
        return card.category == spec[9:]
    if spec == "any":
        return True
    if spec == "nonbasic":
        return card.category != BASIC
    if spec.startswith("colour_not:"):
        return card.colour != spec[11:]
    if spec.startswith("suit_not:"):
        return card.suit not in spec[9:]
    raise ValueError(f"unknown card spec {spec!r}")


# ----------------------------------------------------------------------------- base


class Task(KitTask["HpshaState"]):
    """Base of every HP Sha task: a :class:`p2php.engine.tasks.Task` over :class:`HpshaState`.

    A task returns outcomes (``Done``, ``Call``, ``Push``, ``Replace``, ``CONTINUE`` or a contract
    step), names its stages (``class Stage(Enum)`` and a ``stage`` field) and receives the results
    of the tasks it calls in fields of its own (``Call(task, into="field")``).
    """


# ----------------------------------------------------------------------------- asking


class CardGiven(TypedDict):
    """What a seat gave for an :class:`AskCard`: the slots, the card name they count as, and the
    view-as skill that converted them (``""``: none)."""

    slots: list[int]
    kind: str
    skill: str


@dataclass
class AskCard(Task):
    """Ask one seat for hand card(s) matching ``spec`` (or pass, when ``optional``).

    ``mode`` is ``use`` (使用), ``play`` (打出) or ``discard`` (弃置): the three are
    kept distinct — they fire different timing points and read differently in
    the log.  For ``kind:<k>`` specs the seat's view-as skills add conversions.
    Result: :class:`CardGiven`, or ``None`` when the seat passed.
    """

    class Stage(Enum):
        ASK = auto()
        GIVEN = auto()  # the card is given: its CARD_USED / CARD_PLAYED point
        DONE = auto()

    seat: int
    prompt: str
    spec: str
    mode: str = "play"
    optional: bool = True
    target: int = -1
    note: list[Any] = field(default_factory=list)  # a fragment for the log line (see words.py)
    result: CardGiven | None = None
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is AskCardStage.ASK:
            if not st.alive[self.seat]:
                return Done(None)
            return ask_one(self.seat, self.prompt)
        if self.stage is AskCardStage.GIVEN:
            self.stage = AskCardStage.DONE
            r = self.result
            if r is not None and self.mode != "discard":
                point = tp.CARD_USED if self.mode == "use" else tp.CARD_PLAYED
                return st.fire_last(point, {"user": self.seat, "kind": r["kind"], "targets": [self.target]})
            return CONTINUE
        return Done(self.result)

    def _kind(self) -> str:
        return self.spec[5:] if self.spec.startswith("kind:") else ""

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "pass"}] if self.optional else []
        spec, any_use = self.spec, self.mode == "discard"
        treat, view = st.hooks_of(seat, "treat_as", "view_as_sets")
        face = kn.face
        want = spec[5:] if spec.startswith("kind:") else ""
        if want and not treat:  # the commonest ask (a window's), no card counting as another: by card name
            ids = KIND_FACES.get(want, ())
            for s in st.hands[seat]:
                if face(s) in ids and (any_use or st.can_use(seat, s)):
                    out.append({"type": "card", "slots": [s]})
        else:
            for s in st.hands[seat]:
                f = face(s)
                if f is not None and spec_ok(spec, st.as_card(seat, f) if treat else CARDS[f]) and (
                        any_use or st.can_use(seat, s)):
                    out.append({"type": "card", "slots": [s]})
        if want:
            for sk in view:
                if sk.view_as == want:
                    for group in sk.view_as_sets(st, seat, kn):
                        if any_use or all(st.can_use(seat, s) for s in group):
                            out.append({"type": "card", "slots": group, "skill": sk.key})
        if not out:  # a compulsory answer with nothing known (spectator view): offer every hand card
            out = [{"type": "card", "slots": [s]} for s in st.hands[seat]]
        return out

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        self._validate(st, seat, action, kn.face)

    def _validate(self, st: HpshaState, seat: Seat, action: Action, face: Any) -> tuple[list[int], str]:
        t = action.get("type")
        if t == "pass":
            if not self.optional:
                raise IllegalAction(f"{self.prompt}: you must give a card")
            return [], ""
        if t != "card":
            raise IllegalAction(f"{self.prompt}: answer pass or card, not {t!r}")
        slots = as_slots(action)
        for s in slots:
            if s not in st.hands[seat]:
                raise IllegalAction(f"slot {s} is not in your hand")
            if self.mode != "discard" and not st.can_use(seat, s):
                raise IllegalAction(f"slot {s} is set face down (禁闭): it cannot be used or played this turn")
        skill = action.get("skill")
        if "skill" in action:  # (a null skill was read as none: a second form of the plain card)
            sk = next((x for x in st.skills(seat) if x.key == skill), None)
            if sk is None or not self._kind() or sk.view_as != self._kind():
                raise IllegalAction(f"skill {skill!r} cannot give {self.spec}")
            if len(slots) != sk.view_as_count:
                raise IllegalAction(f"{sk.label} needs {sk.view_as_count} card(s)")
            cards = [face(s) for s in slots]
            if all(c is not None for c in cards) and not sk.view_as_ok([CARDS[c] for c in cards]):
                raise IllegalAction(f"{sk.label}: those cards cannot be used as {kind_label(sk.view_as)}")
            return slots, str(skill)
        if len(slots) != 1:
            raise IllegalAction("give exactly one card")
        f = face(slots[0])
        if f is not None and not spec_ok(self.spec, st.as_card(seat, f)):  # as_card: 亚瑟's 着迷
            raise IllegalAction(f"{CARDS[f].kind} does not answer {self.spec}")
        return slots, ""

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "card":
            return st.unopened(as_slots(action))
        return ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        if self.optional and action.get("type") == "pass":  # the commonest answer (a window's): _validate's first test
            self.stage = AskCardStage.DONE
            return Done(self.result)
        slots, skill = self._validate(st, seat, action, st.pub.get)
        if not slots:  # a pass: what stages GIVEN and DONE would do at once (no point fires, no result)
            self.stage = AskCardStage.DONE
            return Done(self.result)
        self.stage = AskCardStage.GIVEN
        kind = self._kind() or CARDS[st.pub[slots[0]]].kind
        st.say("card", seat, self.mode, st.ids(slots), kind if skill else "", skill, self.note)
        for s in slots:
            st.to_discard(s)
        self.result = {"slots": slots, "kind": kind, "skill": skill}
        return CONTINUE


@dataclass
class AskChoice(Task):
    """Ask one seat to choose one of public ``options`` (str or int values).  Result: the value."""

    seat: int
    prompt: str
    options: list[Any]

    def run(self, st: HpshaState) -> Outcome:
        return ask_one(self.seat, self.prompt)

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "choose", "value": v} for v in self.options]

    def forced_in_public(self, st: HpshaState, seat: Seat) -> bool:
        return len(self.options) == 1  # the options are public

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        return Done(action["value"])


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
AskCardStage = stage_names(AskCard.Stage)
