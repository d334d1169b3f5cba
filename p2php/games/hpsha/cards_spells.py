"""Instant spells (resolved target by target, each behind a 咒立停 window) and delayed spells.

Instant spells: for every target in order, the armour immunities are checked
(隐形斗篷: another's multi-target instant spell has no effect on the wearer; 分院帽:
昏昏倒地 and 神锋无影 have no effect), then a 咒立停 window (none when the user's
spells cannot be countered, e.g. 缄默), then the per-target effect task.

Delayed spells are judged in the owner's judgement phase, newest first: a 咒立停
window, then the judgement (with replacement), then the effect.  阿瓦达索命 moves on
to the next living character when it misses or is cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, stage_names
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, DIAMOND, HEART, SPADE
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.moves import DrawTask, PickCardTask, RevealTopTask
from p2php.games.hpsha.tasks import AskCard, AskChoice, CardGiven, Task
from p2php.games.hpsha.windows import CounterCheckTask, JudgeTask

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

MULTI = frozenset({"sectumsempra", "stupefy", "reparo", "aguamenti"})  # spells designating all / several


def flip(st: HpshaState, seat: int) -> None:
    """翻面: turn the character card over (face down → its next turn is skipped)."""
    st.face_down[seat] = not st.face_down[seat]
    st.say("flipped", seat, st.face_down[seat])
    if st.face_down[seat]:
        st.fire(tp.FLIPPED, {"who": seat})


def immune(st: HpshaState, user: int, kind: str, target: int, targets: int) -> str:
    """Why ``kind`` has no effect on ``target`` ("" if it has); ``targets``: how many it designated."""
    ctx = {"user": user, "kind": kind, "target": target, "targets": targets, "why": ""}
    return str(gear(st, target, gp.SPELL_ARMOUR, ctx)["why"])  # 隐形斗篷 Cloak, 分院帽 Sorting Hat


@dataclass
class SpellTask(Task):
    """An instant spell used by ``user``: per target, immunity → 咒立停 window → effect.

    Stages: START (清水如泉 first reveals its cards: REVEALED) → TARGET (the next target not immune)
    → COUNTERED (the 咒立停 window's verdict) → RESOLVED (the effect is done) → TARGET ...
    """

    class Stage(Enum):
        START = auto()
        REVEALED = auto()  # 清水如泉's cards are revealed
        TARGET = auto()  # find the next target the spell has an effect on: its 咒立停 window
        COUNTERED = auto()  # cancelled, or the effect on the target
        RESOLVED = auto()  # the effect on the target is done (清水如泉: the card taken leaves the pool)

    user: int
    kind: str
    targets: list[int]
    idx: int = 0
    pool: list[int] = field(default_factory=list)
    colour: str = ""  # the colour of the card(s) used: red, black or "" (伏地魔's 黑暗 reads it)
    cancelled: bool | None = None  # the verdict of the current target's 咒立停 window
    picked: int | None = None  # 清水如泉: the slot the current target took
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is SpellTaskStage.START:
            self.stage = SpellTaskStage.TARGET
            if self.kind == "aguamenti":
                self.stage = SpellTaskStage.REVEALED
                return Call(RevealTopTask(sum(st.alive)), into="pool")
        if self.stage is SpellTaskStage.REVEALED:
            self.pool = list(self.pool)
            st.say("aguamenti", st.ids(self.pool))
            self.stage = SpellTaskStage.TARGET
        if self.stage is SpellTaskStage.RESOLVED:
            if self.kind == "aguamenti" and self.picked is not None and self.picked in self.pool:
                self.pool.remove(self.picked)
            self.idx += 1
            self.stage = SpellTaskStage.TARGET
        if self.stage is SpellTaskStage.COUNTERED:
            if self.cancelled:
                self.idx += 1
                self.stage = SpellTaskStage.TARGET
            else:
                self.stage = SpellTaskStage.RESOLVED
                return self._effect(st, self.targets[self.idx])
        last = 1 if self.kind == "out_of_body" else len(self.targets)
        while self.idx < last:
            t = self.targets[self.idx]
            if not st.alive[t] or (self.kind == "aguamenti" and not self.pool):
                self.idx += 1
                continue
            why = immune(st, self.user, self.kind, t, len(self.targets))
            why = why or st.spell_void(self.user, self.kind, t, self.colour)  # 伏地魔's 黑暗: nothing to resolve
            if why:
                st.say("void", self.kind, t, why)
                self.idx += 1
                continue
            self.stage = SpellTaskStage.COUNTERED
            self.cancelled = None
            return Call(CounterCheckTask(self.kind, self.user, t), into="cancelled")
        for s in self.pool:
            if s in st.processing:
                st.to_discard(s)
        return Done()

    def _effect(self, st: HpshaState, t: int) -> Outcome:
        u, k = self.user, self.kind
        if k == "geminio":
            return Push(DrawTask(t, 2))
        if k == "expelliarmus":
            return Push(PickCardTask(u, t, ["hand", "weapon", "judge"], "discard", "expelliarmus"))
        if k == "legilimens":
            return Push(PickCardTask(u, t, ["hand", "equip", "judge"], "obtain", "legilimens"))
        if k == "sectumsempra":
            return Push(ApparateOrHurt(u, t, "sectumsempra", "kind:apparate"))
        if k == "stupefy":
            return Push(ApparateOrHurt(u, t, "stupefy", "kind:bombarda"))
        if k == "reparo":
            return Push(ReparoTask(t))
        if k == "aguamenti":
            self.picked = None
            return Call(AguamentiPick(t, list(self.pool)), into="picked")
        if k == "out_of_body":
            return Push(OutOfBodyTask(u, t, self.targets[1]))
        if k == "crucio":
            return Push(CrucioTask(u, t))
        raise AssertionError(k)  # pragma: no cover - every instant spell usable in the play phase is listed above


@dataclass
class ApparateOrHurt(Task):
    """神锋无影 (play 幻影移形 or take 1) and 昏昏倒地 (play 爆破咒, or take 1 / flip — the target chooses)."""

    class Stage(Enum):
        ASK = auto()  # the target may play the card that answers the spell
        ANSWERED = auto()  # it did not: 昏昏倒地 asks damage or flip
        CHOSEN = auto()  # take the damage, or flip
        DONE = auto()

    user: int
    target: int
    kind: str
    spec: str
    answered: CardGiven | None = None
    choice: str | None = None  # "damage" or "flip"
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        t = self.target
        if self.stage is ApparateOrHurtStage.ASK:
            self.stage = ApparateOrHurtStage.ANSWERED
            return Call(AskCard(t, f"respond:{self.kind}", self.spec, "play", target=t,
                                note=["n_against", self.kind]), into="answered")
        if self.stage is ApparateOrHurtStage.ANSWERED:
            if self.answered is not None or not st.alive[t]:
                return Done()
            self.stage = ApparateOrHurtStage.CHOSEN
            if self.kind == "stupefy":
                return Call(AskChoice(t, "stupefy", ["damage", "flip"]), into="choice")
            self.choice = "damage"
        if self.stage is ApparateOrHurtStage.CHOSEN:
            self.stage = ApparateOrHurtStage.DONE
            if self.choice == "flip":
                flip(st, t)
                return CONTINUE
            return Push(DamageTask(self.user, t, 1, self.kind))
        return Done()


@dataclass
class ReparoTask(Task):
    """修复如初 on one target: recover 1 HP or draw 1 card (the target chooses)."""

    class Stage(Enum):
        ASK = auto()  # recover or draw (only draw at full HP)
        CHOSEN = auto()
        DONE = auto()

    target: int
    choice: str | None = None  # "recover" or "draw"
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        t = self.target
        if self.stage is ReparoTaskStage.ASK:
            self.stage = ReparoTaskStage.CHOSEN
            opts = ["recover", "draw"] if st.hp[t] < st.max_hp[t] else ["draw"]
            if len(opts) == 1:
                self.choice = "draw"
                return CONTINUE
            return Call(AskChoice(t, "reparo", opts), into="choice")
        if self.stage is ReparoTaskStage.CHOSEN:
            self.stage = ReparoTaskStage.DONE
            if self.choice == "recover":
                st.recover(t, 1)
                return CONTINUE
            return Push(DrawTask(t, 1))
        return Done()


@dataclass
class AguamentiPick(Task):
    """清水如泉: the target picks one of the revealed cards into its hand.  Result: the slot."""

    class Stage(Enum):
        ASK = auto()  # which card (no question when one is left)
        CHOSEN = auto()  # the card goes to the target's hand

    target: int
    pool: list[int]
    slot: int = -1
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is AguamentiPickStage.ASK:
            self.stage = AguamentiPickStage.CHOSEN
            if len(self.pool) == 1:
                self.slot = self.pool[0]
                return CONTINUE
            return Call(AskChoice(self.target, "aguamenti", list(self.pool)), into="slot")
        self.slot = int(self.slot)
        st.to_hand(self.target, self.slot)
        st.say("takes", self.target, st.ids([self.slot]))
        return Done(self.slot)


@dataclass
class OutOfBodyTask(Task):
    """灵魂出窍: A must use a 爆破咒 on B, otherwise the user takes one of A's hand (random) or equipped cards."""

    class Stage(Enum):
        ASK = auto()  # A may use a 爆破咒 on B (only when B is alive and in A's range)
        ANSWERED = auto()  # the 爆破咒 resolves, or the user takes a card of A's
        DONE = auto()

    user: int
    a: int
    b: int
    used: CardGiven | None = None  # A's 爆破咒
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        from p2php.games.hpsha.cards_basic import BombardaTask

        a, b = self.a, self.b
        if self.stage is OutOfBodyTaskStage.ASK:
            self.stage = OutOfBodyTaskStage.ANSWERED
            if st.alive[b] and st.in_range(a, b):
                return Call(AskCard(a, "respond:out_of_body", "kind:bombarda", "use", target=b,
                                    note=["n_out_of_body", b]), into="used")
            self.used = None
            return CONTINUE
        if self.stage is OutOfBodyTaskStage.ANSWERED:
            self.stage = OutOfBodyTaskStage.DONE
            if self.used is not None:
                return Push(BombardaTask(a, b, list(self.used["slots"])))
            return Push(PickCardTask(self.user, a, ["hand", "equip"], "obtain", "out_of_body"))
        return Done()


@dataclass
class CrucioTask(Task):
    """钻心剜骨: from the target, the two sides alternately play 爆破咒; the first who does not takes 1
    damage whose source is the other side."""

    class Stage(Enum):
        START = auto()
        ASK = auto()  # the side whose ``turn`` it is may play a 爆破咒
        ANSWERED = auto()  # played: the other side's turn; not: that side takes 1 damage
        DAMAGED = auto()

    user: int
    target: int
    turn: int = -1
    played: CardGiven | None = None  # the answer of the side whose turn it is
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is CrucioTaskStage.START:
            self.turn = self.target
            self.stage = CrucioTaskStage.ASK
        if self.stage is CrucioTaskStage.ANSWERED:
            if self.played is None:
                other = self.user if self.turn == self.target else self.target
                self.stage = CrucioTaskStage.DAMAGED
                return Push(DamageTask(other if st.alive[other] else -1, self.turn, 1, "crucio"))
            self.turn = self.user if self.turn == self.target else self.target
            self.stage = CrucioTaskStage.ASK
        if self.stage is CrucioTaskStage.ASK:
            if not (st.alive[self.user] and st.alive[self.target]):
                return Done()
            self.stage = CrucioTaskStage.ANSWERED
            self.played = None
            return Call(AskCard(self.turn, "respond:crucio", "kind:bombarda", "play", note=["n_crucio"]),
                        into="played")
        return Done()


# ----------------------------------------------------------------------------- delayed spells


def avada_hits(card_id: int) -> bool:
    c = CARDS[card_id]
    return c.suit == SPADE and 2 <= c.rank <= 9


@dataclass
class JudgementPhaseTask(Task):
    """判定阶段: judge every delayed spell in the judgement area, the most recently placed first."""

    class Stage(Enum):
        NEXT = auto()  # the newest spell not judged yet: its 咒立停 window
        COUNTERED = auto()  # cancelled (阿瓦达索命 moves on), or the judgement
        JUDGED = auto()  # the spell's effect
        HIT = auto()  # 阿瓦达索命's damage is done

    seat: int
    slot: int = -1
    kind: str = ""
    done: list[int] = field(default_factory=list)
    cancelled: bool | None = None  # the verdict of the spell's 咒立停 window
    judged: int = -1  # the card id of the judgement card (-1: none)
    stage: Stage = field(default=Stage.NEXT, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        seat = self.seat
        if self.stage is JudgementPhaseTaskStage.NEXT:
            todo = [e for e in st.judge[seat] if e[0] not in self.done]
            if not st.alive[seat] or not todo:
                return Done()
            self.slot, self.kind = todo[-1]
            self.done.append(self.slot)
            st.to_processing(self.slot)
            self.stage = JudgementPhaseTaskStage.COUNTERED
            self.cancelled = None
            return Call(CounterCheckTask(self.kind, -1, seat), into="cancelled")
        if self.stage is JudgementPhaseTaskStage.COUNTERED:
            if self.cancelled:
                self._done(st, moved=self.kind == "avada")
                return CONTINUE
            self.stage = JudgementPhaseTaskStage.JUDGED
            self.judged = -1
            return Call(JudgeTask(seat, self.kind), into="judged")
        if self.stage is JudgementPhaseTaskStage.JUDGED:
            face = int(self.judged)
            suit = CARDS[face].suit if face >= 0 else ""
            k = self.kind
            if k == "bind":
                if face >= 0 and suit != HEART:
                    st.say("bind", seat)
                    st.skip.append("play")
                self._done(st)
                return CONTINUE
            if k == "impediment":
                if face >= 0 and suit != DIAMOND:
                    st.say("impediment", seat)
                    st.impeded = True
                self._done(st)
                return CONTINUE
            if face >= 0 and avada_hits(face):
                st.say("avada", seat)
                self.stage = JudgementPhaseTaskStage.HIT
                return Push(DamageTask(-1, seat, 3, "avada", nature="avada"))
            self._done(st, moved=True)
            return CONTINUE
        self._done(st)
        return CONTINUE

    def _done(self, st: HpshaState, moved: bool = False) -> None:
        if moved:
            nxt = st.next_alive(self.seat)
            while st.has_judge(nxt, "avada") and nxt != self.seat:
                nxt = st.next_alive(nxt)
            st.take(self.slot)
            st.judge[nxt].append([self.slot, "avada"])
            st.say("avada_on", nxt)
        elif self.slot in st.processing:
            st.to_discard(self.slot)
        self.stage = JudgementPhaseTaskStage.NEXT


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
SpellTaskStage = stage_names(SpellTask.Stage)
ApparateOrHurtStage = stage_names(ApparateOrHurt.Stage)
ReparoTaskStage = stage_names(ReparoTask.Stage)
AguamentiPickStage = stage_names(AguamentiPick.Stage)
OutOfBodyTaskStage = stage_names(OutOfBodyTask.Stage)
CrucioTaskStage = stage_names(CrucioTask.Stage)
JudgementPhaseTaskStage = stage_names(JudgementPhaseTask.Stage)
