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
from typing import TYPE_CHECKING

from p2php.engine.contract import Step
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, DIAMOND, HEART, SPADE, kind_label
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.moves import DrawTask, PickCardTask, RevealTopTask
from p2php.games.hpsha.tasks import AskCard, AskChoice, Task
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
    """An instant spell used by ``user``: per target, immunity → 咒立停 window → effect."""

    user: int
    kind: str
    targets: list[int]
    idx: int = 0
    pool: list[int] = field(default_factory=list)
    colour: str = ""  # the colour of the card(s) used: red, black or "" (伏地魔's 黑暗 reads it)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.stage = 1
            if self.kind == "aguamenti":
                self.stage = 5
                st.push(RevealTopTask(sum(st.alive)))
                return None
        if self.stage == 5:
            self.pool = list(st.ret)
            st.say("aguamenti", st.ids(self.pool))
            self.stage = 1
        if self.stage == 3:
            if self.kind == "aguamenti" and isinstance(st.ret, int) and st.ret in self.pool:
                self.pool.remove(st.ret)
            self.idx += 1
            self.stage = 1
        if self.stage == 2:
            if st.ret:
                self.idx += 1
                self.stage = 1
            else:
                self.stage = 3
                self._effect(st, self.targets[self.idx])
                return None
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
            self.stage = 2
            st.push(CounterCheckTask(self.kind, self.user, t))
            return None
        for s in self.pool:
            if s in st.processing:
                st.to_discard(s)
        st.finish(None)
        return None

    def _effect(self, st: HpshaState, t: int) -> None:
        u, k = self.user, self.kind
        if k == "geminio":
            st.push(DrawTask(t, 2))
        elif k == "expelliarmus":
            st.push(PickCardTask(u, t, ["hand", "weapon", "judge"], "discard", "除你武器"))
        elif k == "legilimens":
            st.push(PickCardTask(u, t, ["hand", "equip", "judge"], "obtain", "摄神取念"))
        elif k == "sectumsempra":
            st.push(ApparateOrHurt(u, t, "sectumsempra", "kind:apparate"))
        elif k == "stupefy":
            st.push(ApparateOrHurt(u, t, "stupefy", "kind:bombarda"))
        elif k == "reparo":
            st.push(ReparoTask(t))
        elif k == "aguamenti":
            st.push(AguamentiPick(t, list(self.pool)))
        elif k == "out_of_body":
            st.push(OutOfBodyTask(u, t, self.targets[1]))
        elif k == "crucio":
            st.push(CrucioTask(u, t))
        else:  # pragma: no cover - every instant spell usable in the play phase is listed above
            raise AssertionError(k)
        st.ret = None


@dataclass
class ApparateOrHurt(Task):
    """神锋无影 (play 幻影移形 or take 1) and 昏昏倒地 (play 爆破咒, or take 1 / flip — the target chooses)."""

    user: int
    target: int
    kind: str
    spec: str

    def run(self, st: HpshaState) -> Step | None:
        t = self.target
        if self.stage == 0:
            self.stage = 1
            st.push(AskCard(t, f"respond:{self.kind}", self.spec, "play", target=t,
                            note=["n_against", self.kind]))
            return None
        if self.stage == 1:
            if st.ret is not None or not st.alive[t]:
                st.finish(None)
                return None
            self.stage = 2
            if self.kind == "stupefy":
                st.push(AskChoice(t, "stupefy", ["damage", "flip"]))
                return None
            st.ret = "damage"
        if self.stage == 2:
            self.stage = 3
            if st.ret == "flip":
                flip(st, t)
            else:
                st.push(DamageTask(self.user, t, 1, self.kind))
            return None
        st.finish(None)
        return None


@dataclass
class ReparoTask(Task):
    """修复如初 on one target: recover 1 HP or draw 1 card (the target chooses)."""

    target: int

    def run(self, st: HpshaState) -> Step | None:
        t = self.target
        if self.stage == 0:
            self.stage = 1
            opts = ["recover", "draw"] if st.hp[t] < st.max_hp[t] else ["draw"]
            if len(opts) == 1:
                st.ret = "draw"
                return None
            st.push(AskChoice(t, "reparo", opts))
            return None
        if self.stage == 1:
            self.stage = 2
            if st.ret == "recover":
                st.recover(t, 1)
            else:
                st.push(DrawTask(t, 1))
            return None
        st.finish(None)
        return None


@dataclass
class AguamentiPick(Task):
    """清水如泉: the target picks one of the revealed cards into its hand.  ``ret``: the slot."""

    target: int
    pool: list[int]
    slot: int = -1

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.stage = 1
            if len(self.pool) == 1:
                st.ret = self.pool[0]
                return None
            st.push(AskChoice(self.target, "aguamenti", list(self.pool)))
            return None
        self.slot = int(st.ret)
        st.to_hand(self.target, self.slot)
        st.say("takes", self.target, st.ids([self.slot]))
        st.finish(self.slot)
        return None


@dataclass
class OutOfBodyTask(Task):
    """灵魂出窍: A must use a 爆破咒 on B, otherwise the user takes one of A's hand (random) or equipped cards."""

    user: int
    a: int
    b: int

    def run(self, st: HpshaState) -> Step | None:
        from p2php.games.hpsha.cards_basic import BombardaTask

        a, b = self.a, self.b
        if self.stage == 0:
            self.stage = 1
            if st.alive[b] and st.in_range(a, b):
                st.push(AskCard(a, "respond:out_of_body", "kind:bombarda", "use", target=b,
                                note=["n_out_of_body", b]))
            else:
                st.ret = None
            return None
        if self.stage == 1:
            self.stage = 2
            if st.ret is not None:
                st.push(BombardaTask(a, b, list(st.ret["slots"])))
            else:
                st.push(PickCardTask(self.user, a, ["hand", "equip"], "obtain", "灵魂出窍"))
            return None
        st.finish(None)
        return None


@dataclass
class CrucioTask(Task):
    """钻心剜骨: from the target, the two sides alternately play 爆破咒; the first who does not takes 1
    damage whose source is the other side."""

    user: int
    target: int
    turn: int = -1

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.turn = self.target
            self.stage = 1
        if self.stage == 2:
            if st.ret is None:
                other = self.user if self.turn == self.target else self.target
                self.stage = 3
                st.push(DamageTask(other if st.alive[other] else -1, self.turn, 1, "crucio"))
                return None
            self.turn = self.user if self.turn == self.target else self.target
            self.stage = 1
        if self.stage == 1:
            if not (st.alive[self.user] and st.alive[self.target]):
                st.finish(None)
                return None
            self.stage = 2
            st.push(AskCard(self.turn, "respond:crucio", "kind:bombarda", "play", note=["n_crucio"]))
            return None
        st.finish(None)
        return None


# ----------------------------------------------------------------------------- delayed spells


def avada_hits(card_id: int) -> bool:
    c = CARDS[card_id]
    return c.suit == SPADE and 2 <= c.rank <= 9


@dataclass
class JudgementPhaseTask(Task):
    """判定阶段: judge every delayed spell in the judgement area, the most recently placed first."""

    seat: int
    slot: int = -1
    kind: str = ""
    done: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        seat = self.seat
        if self.stage == 0:
            todo = [e for e in st.judge[seat] if e[0] not in self.done]
            if not st.alive[seat] or not todo:
                st.finish(None)
                return None
            self.slot, self.kind = todo[-1]
            self.done.append(self.slot)
            st.to_processing(self.slot)
            self.stage = 1
            st.push(CounterCheckTask(self.kind, -1, seat))
            return None
        if self.stage == 1:
            if st.ret:
                self._done(st, moved=self.kind == "avada")
                return None
            self.stage = 2
            st.push(JudgeTask(seat, kind_label(self.kind)))
            return None
        if self.stage == 2:
            face = int(st.ret)
            suit = CARDS[face].suit if face >= 0 else ""
            k = self.kind
            if k == "bind":
                if face >= 0 and suit != HEART:
                    st.say("bind", seat)
                    st.skip.append("play")
                self._done(st)
                return None
            if k == "impediment":
                if face >= 0 and suit != DIAMOND:
                    st.say("impediment", seat)
                    st.impeded = True
                self._done(st)
                return None
            if face >= 0 and avada_hits(face):
                st.say("avada", seat)
                self.stage = 3
                st.push(DamageTask(-1, seat, 3, "avada", nature="avada"))
                return None
            self._done(st, moved=True)
            return None
        self._done(st)
        return None

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
        self.stage = 0
