"""Timing points (trigger resolution), response windows (咒立停 / 呼神护卫 chains) and judgement.

Every eligible seat answers explicitly, in seat order from the current player: a
peer never skips a seat because it "knows" that seat cannot respond (it cannot
know, and a skip would leak it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    Knowledge,
    Seat,
    Slot,
    Step,
)
from p2php.games.hpsha import triggers as tp

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

from p2php.games.hpsha.moves import RevealTopTask
from p2php.games.hpsha.tasks import AskCard, Task

# ----------------------------------------------------------------------------- triggers


@dataclass
class TriggerTask(Task):
    """Resolve one timing point: skills in seat order from the current player.

    Locked skills apply; optional ones are asked (pass always allowed) when their
    public conditions hold.  ``ret``: the (possibly updated) ctx.
    """

    point: str
    ctx: dict[str, Any]
    cands: list[list[Any]] = field(default_factory=list)
    asking: list[Any] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.cands = [
                [s, sk.key] for s in st.order_from(st.current_or_first()) for sk in st.skills(s)
                if self.point in sk.points
            ]
            self.stage = 1
        while self.cands:
            seat, key = self.cands.pop(0)
            sk = tp.SKILLS[key]
            if st.alive[seat]:
                sk.witness(st, seat, self.point, self.ctx)
            if not st.alive[seat] or not sk.available(st, seat, self.point, self.ctx):
                continue
            if sk.compulsory or sk.automatic(st, seat, self.point, self.ctx):
                st.say("triggers", seat, sk.key)
                sk.invoke(st, seat, self.point, self.ctx, {}, {})
                return None
            self.asking = [seat, key]
            return Decide((seat,), f"skill:{key}")
        st.finish(self.ctx)
        return None

    def _skill(self) -> tp.Skill:
        return tp.SKILLS[self.asking[1]]

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "pass"}] + self._skill().offers(st, seat, self.point, self.ctx, kn)

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        if action.get("type") == "pass":
            return
        self._skill().check_offer(st, seat, self.point, self.ctx, action, kn)

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "pass":
            return ()
        return self._skill().reveals(st, seat, self.point, self.ctx, action)

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        ((seat, action),) = answers
        sk = self._skill()
        if action.get("type") != "pass":
            self.check(st, seat, action, Knowledge(st.pub))
        self.asking = []
        if action.get("type") != "pass":
            st.say("skill", seat, sk.key)
            sk.invoke(st, seat, self.point, self.ctx, action, dict(faces))


# ----------------------------------------------------------------------------- response windows


@dataclass
class WindowTask(Task):
    """A response window for 咒立停 (``want="counter"``) or 呼神护卫 (``want="patronus"``).

    Every living seat is asked in seat order from the current player and answers
    explicitly.  The first response opens a nested counter window for it (a
    咒立停 can be countered, LIFO); if the response stands, the window closes with
    ``ret = True`` (the spell / the damage is cancelled).  If the response is
    itself cancelled, the seats after the responder are still asked; seats that
    declined stay out ("once you decline, you may not respond again in this
    resolution").  ``subject`` is the spell kind being countered (or the damage
    for a patronus), ``on`` the character it affects.
    """

    want: str
    subject: str
    on: int
    order: list[int] = field(default_factory=list)
    responder: int = -1

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.order = st.order_from(st.current_or_first())
            self.stage = 1
        if self.stage == 1:
            while self.order and not st.alive[self.order[0]]:
                self.order.pop(0)
            if not self.order:
                st.finish(False)
                return None
            self.responder = self.order.pop(0)
            self.stage = 2
            st.push(AskCard(self.responder, f"respond:{self.want}", f"kind:{self.want}", "use",
                            target=self.on, note=["n_against_on", self.subject, self.on]))
            return None
        if self.stage == 2:
            got = st.ret
            if got is None:
                self.stage = 1
                return None
            why = st.spell_void(self.responder, "patronus", self.on, st.colour_of(got["slots"])) \
                if self.want == "patronus" else ""  # 咒立停 aims at a spell, not at a character
            if why:  # 伏地魔's 黑暗: that 呼神护卫 has no effect; the others may still respond
                st.say("patronus_void", self.on, why)
                self.stage = 1
                return None
            self.stage = 3
            if st.uncounterable(self.responder, self.want):
                st.ret = False
            else:
                st.push(WindowTask("counter", self.want, self.on))
            return None
        # stage 3: the response stands unless its own counter window cancelled it
        if st.ret:
            self.stage = 1
            return None
        st.finish(True)
        return None


@dataclass
class CounterCheckTask(Task):
    """Before a spell takes effect on ``on``: a 咒立停 window unless the user's spell is uncounterable."""

    kind: str
    user: int
    on: int

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.stage = 1
            if self.user >= 0 and st.uncounterable(self.user, self.kind):
                st.ret = False
                return None
            st.push(WindowTask("counter", self.kind, self.on))
            return None
        cancelled = bool(st.ret)
        if cancelled:
            st.say("cancelled", self.kind, self.on)
        st.finish(cancelled)
        return None


# ----------------------------------------------------------------------------- judgement


@dataclass
class JudgeTask(Task):
    """A judgement for ``seat``: reveal the deck top, offer replacement (JUDGE_REPLACE), then settle.

    ``ret``: the card id of the judgement card that takes effect (or -1 if no card
    could be revealed).  The judgement card is discarded when this task finishes;
    the caller applies the result.
    """

    seat: int
    why: str
    slot: int = -1
    cands: list[list[Any]] = field(default_factory=list)
    asking: list[Any] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:  # "before a judgement" (JUDGE_BEFORE), then the reveal
            self.stage = 10
            st.fire(tp.JUDGE_BEFORE, {"who": self.seat, "why": self.why})
            return None
        if self.stage == 10:
            self.stage = 1
            st.push(RevealTopTask(1))
            return None
        if self.stage == 1:
            got = st.ret
            if not got:
                st.finish(-1)
                return None
            self.slot = got[0]
            st.say("judgement", self.seat, self.why, st.ids([self.slot]))
            self.cands = [[s, sk.key] for s in st.order_from(st.current_or_first()) for sk in st.skills(s)
                          if tp.JUDGE_REPLACE in sk.points]
            self.stage = 2
        if self.stage == 3:
            got = st.ret
            if got is not None:
                old = self.slot
                self.slot = got["slots"][0]
                st.discard.remove(self.slot)
                st.processing.append(self.slot)
                st.processing.remove(old)
                st.discard.append(old)
                st.say("judgement_now", st.ids([self.slot]))
            self.stage = 2
        while self.cands:
            seat, key = self.cands.pop(0)
            if not st.alive[seat] or not st.hands[seat]:
                continue
            spec = tp.SKILLS[key].replace_spec(st, seat, st.card(self.slot))
            if spec is None:
                continue
            self.stage = 3
            st.push(AskCard(seat, f"skill:{key}", spec, "play", note=["n_replace_judgement"]))
            return None
        if self.stage != 4:  # the judgement card takes effect (JUDGE_RESULT), then it is discarded
            self.stage = 4
            st.fire(tp.JUDGE_RESULT, {"who": self.seat, "why": self.why, "slot": self.slot,
                                      "card": st.pub[self.slot]})
            return None
        face = st.pub[self.slot]
        st.processing.remove(self.slot)
        st.discard.append(self.slot)
        st.finish(face)
        return None
