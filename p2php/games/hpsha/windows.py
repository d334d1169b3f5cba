"""Timing points (trigger resolution), response windows (咒立停 / 呼神护卫 chains) and judgement.

Every eligible seat answers explicitly, in seat order from the current player: a
peer never skips a seat because it "knows" that seat cannot respond (it cannot
know, and a skip would leak it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, stage_names
from p2php.engine.timing import TimingPoint
from p2php.games.hpsha import triggers as tp

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

from p2php.games.hpsha.moves import RevealTopTask
from p2php.games.hpsha.tasks import AskCard, CardGiven, Task

# ----------------------------------------------------------------------------- triggers


@dataclass
class TriggerTask(TimingPoint["HpshaState"]):
    """One of HP Sha's timing points: the kit's :class:`~p2php.engine.timing.TimingPoint`, resolving
    skills in seat order from the current player (locked ones apply; optional ones are asked, pass
    always allowed, when their public conditions hold).  Result: the (possibly edited) ctx."""


# ----------------------------------------------------------------------------- response windows

_ASKS = {want: (f"respond:{want}", f"kind:{want}") for want in ("counter", "patronus")}
"""A window's AskCard prompt and spec by what it wants (the same strings, made once)."""


@dataclass
class WindowTask(Task):
    """A response window for 咒立停 (``want="counter"``) or 呼神护卫 (``want="patronus"``).

    Every living seat is asked in seat order from the current player and answers
    explicitly.  The first response opens a nested counter window for it (a
    咒立停 can be countered, LIFO); if the response stands, the window closes with
    result ``True`` (the spell / the damage is cancelled).  If the response is
    itself cancelled, the seats after the responder are still asked; seats that
    declined stay out ("once you decline, you may not respond again in this
    resolution").  ``subject`` is the spell kind being countered (or the damage
    for a patronus), ``on`` the character it affects.
    """

    class Stage(Enum):
        START = auto()
        ASK_NEXT = auto()  # ask the next living seat in order
        RESPONDED = auto()  # the seat answered: a response opens its counter window
        COUNTERED = auto()  # the response's own counter window closed

    want: str
    subject: str
    on: int
    order: list[int] = field(default_factory=list)
    responder: int = -1
    response: CardGiven | None = None
    countered: bool | None = None
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is WindowTaskStage.START:
            self.order = st.order_from(st.current_or_first())
            self.stage = WindowTaskStage.ASK_NEXT
        if self.stage is WindowTaskStage.RESPONDED and self.response is None:  # a pass: ask the next seat now
            self.stage = WindowTaskStage.ASK_NEXT
        if self.stage is WindowTaskStage.ASK_NEXT:
            while self.order and not st.alive[self.order[0]]:
                self.order.pop(0)
            if not self.order:
                return Done(False)
            self.responder = self.order.pop(0)
            self.stage = WindowTaskStage.RESPONDED
            self.response = None
            prompt, spec = _ASKS.get(self.want) or (f"respond:{self.want}", f"kind:{self.want}")
            # st.stack.push: Call(task, into) would do the same (the task above this one), by way of _follow
            st.stack.push(AskCard(self.responder, prompt, spec, "use", target=self.on,
                                  note=["n_against_on", self.subject, self.on]), "response")
            return CONTINUE
        if self.stage is WindowTaskStage.RESPONDED:
            got = self.response
            if got is None:
                self.stage = WindowTaskStage.ASK_NEXT
                return CONTINUE
            why = st.spell_void(self.responder, "patronus", self.on, st.colour_of(got["slots"])) \
                if self.want == "patronus" else ""  # 咒立停 aims at a spell, not at a character
            if why:  # 伏地魔's 黑暗: that 呼神护卫 has no effect; the others may still respond
                st.say("patronus_void", self.on, why)
                self.stage = WindowTaskStage.ASK_NEXT
                return CONTINUE
            self.stage = WindowTaskStage.COUNTERED
            self.countered = False
            if st.uncounterable(self.responder, self.want):
                return CONTINUE
            return Call(WindowTask("counter", self.want, self.on), into="countered")
        # COUNTERED: the response stands unless its own counter window cancelled it
        if self.countered:
            self.stage = WindowTaskStage.ASK_NEXT
            return CONTINUE
        return Done(True)


@dataclass
class CounterCheckTask(Task):
    """Before a spell takes effect on ``on``: a 咒立停 window unless the user's spell is uncounterable.
    Result: whether the spell was cancelled."""

    kind: str
    user: int
    on: int
    cancelled: bool | None = None
    asked: bool = False

    def run(self, st: HpshaState) -> Outcome:
        if not self.asked:
            self.asked = True
            if self.user >= 0 and st.uncounterable(self.user, self.kind):
                return Done(False)
            return Call(WindowTask("counter", self.kind, self.on), into="cancelled")
        if self.cancelled:
            st.say("cancelled", self.kind, self.on)
        return Done(bool(self.cancelled))


# ----------------------------------------------------------------------------- judgement


@dataclass
class JudgeTask(Task):
    """A judgement for ``seat``: JUDGE_BEFORE, reveal the deck top, offer replacement
    (JUDGE_REPLACE), JUDGE_RESULT, then the card is discarded.

    Result: the card id of the judgement card that takes effect (or -1 if no card
    could be revealed); the caller applies it.
    """

    class Stage(Enum):
        BEFORE = auto()  # "before a judgement" (JUDGE_BEFORE)
        REVEAL = auto()  # the deck top is revealed
        REVEALED = auto()  # the judgement card is known: replacement candidates
        REPLACE = auto()  # offer the next candidate to replace it
        REPLACED = auto()  # a candidate answered
        RESULT = auto()  # the judgement card takes effect (JUDGE_RESULT)
        DISCARD = auto()

    seat: int
    why: str  # a key: the card (a delayed spell) or the skill the judgement is for; words.py names it
    slot: int = -1
    cands: list[list[Any]] = field(default_factory=list)
    asking: list[Any] = field(default_factory=list)
    revealed: list[int] | None = None
    replacement: CardGiven | None = None
    stage: Stage = field(default=Stage.BEFORE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        stage = self.stage
        if stage is JudgeTaskStage.BEFORE:
            self.stage = JudgeTaskStage.REVEAL
            return st.fire_last(tp.JUDGE_BEFORE, {"who": self.seat, "why": self.why})
        if stage is JudgeTaskStage.REVEAL:
            self.stage = JudgeTaskStage.REVEALED
            return Call(RevealTopTask(1), into="revealed")
        if stage is JudgeTaskStage.REVEALED:
            if not self.revealed:
                return Done(-1)
            self.slot = self.revealed[0]
            st.say("judgement", self.seat, self.why, st.ids([self.slot]))
            self.cands = [[s, sk.key] for s in st.order_from(st.current_or_first()) for sk in st.skills(s)
                          if tp.JUDGE_REPLACE in sk.points]
            self.stage = JudgeTaskStage.REPLACE
        if stage is JudgeTaskStage.REPLACED:
            got = self.replacement
            if got is not None:
                old = self.slot
                self.slot = got["slots"][0]
                st.discard.remove(self.slot)
                st.processing.append(self.slot)
                st.processing.remove(old)
                st.discard.append(old)
                st.say("judgement_now", st.ids([self.slot]))
            self.stage = JudgeTaskStage.REPLACE
        if self.stage is JudgeTaskStage.REPLACE:
            while self.cands:
                seat, key = self.cands.pop(0)
                if not st.alive[seat] or not st.hands[seat]:
                    continue
                spec = tp.SKILLS[key].replace_spec(st, seat, st.card(self.slot))
                if spec is None:
                    continue
                self.stage = JudgeTaskStage.REPLACED
                self.replacement = None
                return Call(AskCard(seat, f"skill:{key}", spec, "play", note=["n_replace_judgement"]),
                            into="replacement")
            self.stage = JudgeTaskStage.RESULT
        if self.stage is JudgeTaskStage.RESULT:
            self.stage = JudgeTaskStage.DISCARD
            return st.fire_last(tp.JUDGE_RESULT, {"who": self.seat, "why": self.why, "slot": self.slot,
                                             "card": st.pub[self.slot]})
        face = st.pub[self.slot]
        st.processing.remove(self.slot)
        st.discard.append(self.slot)
        return Done(face)


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
WindowTaskStage = stage_names(WindowTask.Stage)
JudgeTaskStage = stage_names(JudgeTask.Stage)
