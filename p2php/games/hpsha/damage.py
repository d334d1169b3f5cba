"""Damage through its ordered timing points, HP loss, dying, death, and the end of the game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import (
    CardId,
    Reveal,
    Slot,
    Step,
)
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.data import (
    AUROR,
    DARK,
    MINISTER,
    ROLE_NAMES,
    SPY,
    identity_role,
)

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask
from p2php.games.hpsha.tasks import AskCard, Task
from p2php.games.hpsha.windows import WindowTask

# ----------------------------------------------------------------------------- damage, HP, dying, death


@dataclass
class DamageTask(Task):
    """Damage through ordered timing points.

    0 before (即将造成: locked prevention such as 万幸, DAMAGE_BEFORE skills) →
    1 the 呼神护卫 window → 2 the target's armour (gear point), then causing
    (造成伤害时: the source's weapon (gear point), DAMAGE_CAUSED) → 3 receiving
    (DAMAGE_RECEIVED) → 4 HP reduced, dying resolved first → 5 after
    (DAMAGE_AFTER).  ``source`` −1 is sourceless damage.  ``ret``: damage dealt.
    """

    source: int
    target: int
    amount: int
    via: str  # bombarda | sectumsempra | stupefy | crucio | avada | walnut | ...
    ignore_armour: bool = False
    nature: str = ""  # "" or "avada" (阿瓦达索命's own attribute)

    def run(self, st: HpshaState) -> Step | None:
        tgt = self.target
        if self.stage == 0:
            if not st.alive[tgt]:
                st.finish(0)
                return None
            if st.damage_prevented(tgt):
                st.say("no_more_damage", tgt)
                st.finish(0)
                return None
            if self.source >= 0:  # 唐克斯's 易容: the damage may count as another character's
                self.source = st.damage_source(self.source)
            if st.damage_prevented_from(tgt, self.source):  # 小矮星's 藏匿
                st.say("no_damage_from", tgt, self.source)
                st.finish(0)
                return None
            self.stage = 1
            st.ret = None  # a DAMAGE_BEFORE skill may set "prevented" in the ctx (邓布利多's 仁爱)
            st.fire(tp.DAMAGE_BEFORE, self._ctx())
            return None
        if self.stage == 1:
            if isinstance(st.ret, dict) and st.ret.get("prevented"):
                st.say("prevented", tgt)
                st.finish(0)
                return None
            self.stage = 2
            st.push(WindowTask("patronus", f"{self.amount} damage", tgt))
            return None
        if self.stage == 2:
            if st.ret:
                st.say("patronus_cancel", tgt)
                st.finish(0)
                return None
            if not st.alive[tgt]:
                st.finish(0)
                return None
            src = self.source
            armour = gear(st, tgt, gp.DAMAGE_ARMOUR, {"source": src, "target": tgt,  # 分院帽 Sorting Hat
                                                      "ignore_armour": self.ignore_armour, "prevented": False})
            if armour["prevented"]:
                st.finish(0)
                return None
            self.stage = 3
            if self.via == "bombarda" and src >= 0:  # 柳木 Willow, 槭木 Maple
                weapon = gear(st, src, gp.DAMAGE_WEAPON, {"source": src, "target": tgt, "amount": self.amount})
                self.amount = int(weapon["amount"])
            return None
        if self.stage == 3:
            self.stage = 35
            st.ret = None  # a DAMAGE_CAUSED skill may change the ctx "amount" (海格's 鲁莽)
            st.fire(tp.DAMAGE_CAUSED, self._ctx())
            return None
        if self.stage == 35:
            if isinstance(st.ret, dict) and "amount" in st.ret:
                self.amount = max(0, int(st.ret["amount"]))
            self.stage = 4
            st.fire(tp.DAMAGE_RECEIVED, self._ctx())
            return None
        if self.stage == 4:
            self.stage = 5
            if not st.alive[tgt]:
                self.amount = 0
                return None
            st.hp[tgt] -= self.amount
            st.damaged(tgt, self.amount)
            st.say("damage", tgt, self.amount, self.source, self.via, st.hp[tgt])
            if st.hp[tgt] <= 0:
                st.push(DyingTask(tgt, self.source))
            return None
        if self.stage == 5:
            self.stage = 6
            if self.amount > 0:
                st.fire(tp.DAMAGE_AFTER, self._ctx())
            return None
        st.finish(self.amount)
        return None

    def _ctx(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "amount": self.amount, "via": self.via}


@dataclass
class LoseHpTask(Task):
    """HP loss (流失体力): not damage, so no damage timing points and no 呼神护卫."""

    seat: int
    amount: int
    why: str = ""

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.stage = 1
            if not st.alive[self.seat]:
                st.finish(None)
                return None
            st.hp[self.seat] -= self.amount
            st.say("lose_hp", self.seat, self.amount, self.why, st.hp[self.seat])
            if st.hp[self.seat] <= 0:
                st.push(DyingTask(self.seat, -1))
            return None
        st.finish(None)
        return None


@dataclass
class DyingTask(Task):
    """濒死: ENTER_DYING skills, then every living seat in order (from the current player) is asked
    for 凤凰眼泪 until the character is back to 1 HP; a seat that gives one is asked again.
    Nobody saves → death.  Cards promised "after the dying state is resolved" are handed over last.
    """

    who: int
    killer: int
    uid: int = -1
    order: list[int] = field(default_factory=list)
    asked: int = -1
    about: bool = False  # DYING_BEFORE has fired

    def run(self, st: HpshaState) -> Step | None:
        who = self.who
        if not self.about:  # about to enter the dying state (DYING_BEFORE: 小矮星's 自残 may kill at once)
            self.about = True
            st.fire(tp.DYING_BEFORE, {"who": who, "killer": self.killer})
            return None
        if self.stage == 0 and (not st.alive[who] or st.hp[who] >= 1):
            st.finish(None)
            return None
        if self.stage == 0:
            self.uid = st.new_uid()
            st.say("dying", who, st.hp[who])
            self.stage = 1
            st.fire(tp.ENTER_DYING, {"who": who, "uid": self.uid})
            return None
        if self.stage == 1:
            self.order = st.order_from(st.current_or_first())
            self.stage = 2
        if self.stage == 3:
            if st.ret is not None:
                st.recover(who, 1, quiet=True)
                st.say("rescued", who, st.hp[who], self.order[0])
            else:
                self.order.pop(0)
            self.stage = 2
        if self.stage == 2:
            if st.hp[who] >= 1 or not st.alive[who]:
                self.stage = 5
            else:
                while self.order and not st.alive[self.order[0]]:
                    self.order.pop(0)
                if self.order:
                    self.stage = 3
                    st.push(AskCard(self.order[0], "respond:tears", "kind:tears", "use", target=who,
                                    note=["n_save", who]))
                    return None
                self.stage = 5
                st.push(DeathTask(who, self.killer))
                return None
        if self.stage == 5:
            for seat, slot in st.after_dying.pop(self.uid, []):
                if st.alive[seat] and st.locate(slot) is not None:
                    st.to_hand(seat, slot)
                    st.say("obtains", seat, st.ids([slot]))
                if slot in st.set_aside:
                    st.set_aside.remove(slot)
            st.finish(None)
        return None


@dataclass
class DeathTask(Task):
    """死亡: reveal the identity, check the end of the game, discard every card of the character
    (hand, equipment, judgement area), then the rewards and penalties."""

    who: int
    killer: int

    def run(self, st: HpshaState) -> Step | None:
        who = self.who
        if self.stage == 0:
            st.kill(who)
            if who in st.roles:
                self.stage = 2
                return None
            self.stage = 1
            return Reveal((st.identity_slot[who],))
        if self.stage == 2:
            role = st.roles[who]
            st.say("dies", who, self.killer, role)
            if st.game_decided():
                st.stack.reset([GameEndTask()])
                return None
            self.stage = 3
            st.fire(tp.DEATH, {"who": who, "killer": self.killer})
            return None
        if self.stage == 3:
            self.stage = 4
            cards = list(st.hands[who]) + list(st.equip[who].values()) + [s for s, _k in st.judge[who]]
            if cards:
                st.push(DiscardCardsTask(cards, ["n_cards_of", who]))
            return None
        if self.stage == 4:
            self.stage = 5
            k, role = self.killer, st.roles[who]
            if k >= 0 and st.alive[k]:
                if role == DARK:
                    st.say("dark_bounty", k)
                    st.push(DrawTask(k, 3))
                elif role == AUROR and k == st.minister:
                    cards = list(st.hands[k]) + list(st.equip[k].values())
                    st.say("auror_penalty", k)
                    if cards:
                        st.push(DiscardCardsTask(cards, ["n_penalty"]))
            return None
        st.finish(None)
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        st.roles[self.who] = identity_role(faces[st.identity_slot[self.who]])
        self.stage = 2


@dataclass
class GameEndTask(Task):
    """The game is decided (or the turn limit is reached): open every hidden identity, then GameOver."""

    aborted: bool = False

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.stage = 1
            hidden = tuple(st.identity_slot[s] for s in range(st.n) if s not in st.roles)
            if hidden:
                return Reveal(hidden)
        st.result = st.final_result(self.aborted)
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        for s in range(st.n):
            if s not in st.roles:
                st.roles[s] = identity_role(faces[st.identity_slot[s]])
        self.stage = 1


def winners_for(roles: Mapping[int, str], alive: Sequence[bool], aborted: bool) -> tuple[int, ...]:
    """Who won, from the (now all known) roles: §7 of the rules, each spy wins alone."""
    n = len(alive)
    if aborted:
        return ()
    minister = next(s for s in range(n) if roles[s] == MINISTER)
    if not alive[minister]:
        living = [s for s in range(n) if alive[s]]
        if len(living) == 1 and roles[living[0]] == SPY:
            return (living[0],)
        return tuple(s for s in range(n) if roles[s] == DARK)
    return tuple(s for s in range(n) if roles[s] in (MINISTER, AUROR))


def role_summary(roles: Mapping[int, str], n: int) -> str:
    return "; ".join(f"seat {s}: {ROLE_NAMES[roles[s]]}" for s in range(n))
