"""Damage through its ordered timing points, HP loss, dying, death, and the end of the game."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import (
    CardId,
    Reveal,
    Slot,
    Step,
)
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, stage_names
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

from p2php.games.hpsha.creature_marks import creature_blocks, no_recovery, werewolf_bite
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask
from p2php.games.hpsha.tasks import AskCard, CardGiven, Task
from p2php.games.hpsha.windows import WindowTask

# ----------------------------------------------------------------------------- damage, HP, dying, death

AFTER_DEATH: dict[str, Callable[[int, int], Task]] = {}
"""What resolves after a death's rewards, given (dead, killer): the creature pack's 判选 registers
``"selection"`` here (``creatures.SelectionTask``; only games with creatures reach that stage)."""


@dataclass
class DamageTask(Task):
    """Damage through ordered timing points.

    BEFORE (即将造成: locked prevention such as 万幸, DAMAGE_BEFORE skills) →
    PATRONUS (the 呼神护卫 window) → ARMOUR_AND_WEAPON (the target's armour (gear point),
    then the source's weapon (gear point)) → CAUSED (造成伤害时: DAMAGE_CAUSED) →
    RECEIVED (DAMAGE_RECEIVED) → REDUCED (HP reduced, dying resolved first) →
    AFTER (DAMAGE_AFTER) → DONE.  ``source`` −1 is sourceless damage.  Result: the damage dealt (int).
    """

    class Stage(Enum):
        BEFORE = auto()  # prevention checks, then DAMAGE_BEFORE
        PATRONUS = auto()  # ``before`` read (仁爱 may prevent): the 呼神护卫 window
        ARMOUR_AND_WEAPON = auto()  # ``cancelled`` read: the target's armour, the source's weapon
        CAUSED = auto()  # DAMAGE_CAUSED
        RECEIVED = auto()  # ``caused`` read (鲁莽 may change the amount): DAMAGE_RECEIVED
        REDUCED = auto()  # the target's HP goes down; dying resolved first
        AFTER = auto()  # DAMAGE_AFTER (only for damage actually dealt)
        BITE = auto()  # with the creature pack only: the 狼人's bite (creature_marks.werewolf_bite)
        DONE = auto()

    source: int
    target: int
    amount: int
    via: str  # bombarda | sectumsempra | stupefy | crucio | avada | walnut | ...
    ignore_armour: bool = False
    nature: str = ""  # "" or "avada" (阿瓦达索命's own attribute)
    before: dict[str, Any] | None = None  # DAMAGE_BEFORE's ctx (a skill may set "prevented": 邓布利多's 仁爱)
    cancelled: bool | None = None  # the 呼神护卫 window's result (True: a 呼神护卫 cancelled the damage)
    caused: dict[str, Any] | None = None  # DAMAGE_CAUSED's ctx (a skill may change "amount": 海格's 鲁莽)
    stage: Stage = field(default=Stage.BEFORE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        tgt = self.target
        S = DamageTaskStage
        if self.stage is S.BEFORE:
            if not st.alive[tgt]:
                return Done(0)
            if st.damage_prevented(tgt):
                st.say("no_more_damage", tgt)
                return Done(0)
            if st.creatures and creature_blocks(st, tgt, self.nature):  # 凤凰 Phoenix (creatures.py)
                st.say("phoenix_blocks", tgt)
                return Done(0)
            if self.source >= 0:  # 唐克斯's 易容: the damage may count as another character's
                self.source = st.damage_source(self.source)
            if st.damage_prevented_from(tgt, self.source):  # 小矮星's 藏匿
                st.say("no_damage_from", tgt, self.source)
                return Done(0)
            self.stage = S.PATRONUS
            return st.fire(tp.DAMAGE_BEFORE, self._ctx(), into="before")
        if self.stage is S.PATRONUS:
            if self.before is not None and self.before.get("prevented"):
                st.say("prevented", tgt)
                return Done(0)
            self.stage = S.ARMOUR_AND_WEAPON
            return Call(WindowTask("patronus", f"{self.amount} damage", tgt), into="cancelled")
        if self.stage is S.ARMOUR_AND_WEAPON:
            if self.cancelled:
                st.say("patronus_cancel", tgt)
                return Done(0)
            if not st.alive[tgt]:
                return Done(0)
            src = self.source
            armour = gear(st, tgt, gp.DAMAGE_ARMOUR, {"source": src, "target": tgt,  # 分院帽 Sorting Hat
                                                      "ignore_armour": self.ignore_armour, "prevented": False})
            if armour["prevented"]:
                return Done(0)
            self.stage = S.CAUSED
            if self.via == "bombarda" and src >= 0:  # 柳木 Willow, 槭木 Maple
                weapon = gear(st, src, gp.DAMAGE_WEAPON, {"source": src, "target": tgt, "amount": self.amount})
                self.amount = int(weapon["amount"])
            return CONTINUE
        if self.stage is S.CAUSED:
            self.stage = S.RECEIVED
            return st.fire(tp.DAMAGE_CAUSED, self._ctx(), into="caused")
        if self.stage is S.RECEIVED:
            if self.caused is not None and "amount" in self.caused:
                self.amount = max(0, int(self.caused["amount"]))
            self.stage = S.REDUCED
            return st.fire_last(tp.DAMAGE_RECEIVED, self._ctx())
        if self.stage is S.REDUCED:
            self.stage = S.AFTER
            if not st.alive[tgt]:
                self.amount = 0
                return CONTINUE
            st.hp[tgt] -= self.amount
            st.damaged(tgt, self.amount)
            st.say("damage", tgt, self.amount, self.source, self.via, st.hp[tgt])
            if st.hp[tgt] <= 0:
                return Push(DyingTask(tgt, self.source))
            return CONTINUE
        if self.stage is S.AFTER:
            self.stage = S.BITE if st.creatures else S.DONE
            if self.amount > 0:
                return st.fire_last(tp.DAMAGE_AFTER, self._ctx())
            return CONTINUE
        if self.stage is S.BITE:  # 狼人 Werewolf (creatures.py)
            self.stage = S.DONE
            bitten = werewolf_bite(st, self.source, tgt, self.via) if self.amount > 0 else -1
            if bitten >= 0:
                st.say("werewolf_bite", bitten)
                return Push(DamageTask(-1, bitten, 1, "werewolf"))
            return CONTINUE
        return Done(self.amount)

    def _ctx(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "amount": self.amount, "via": self.via}


@dataclass
class LoseHpTask(Task):
    """HP loss (流失体力): not damage, so no damage timing points and no 呼神护卫.

    LOSE (HP goes down; dying resolved first) → DONE.
    """

    class Stage(Enum):
        LOSE = auto()
        DONE = auto()

    seat: int
    amount: int
    why: str = ""
    stage: Stage = field(default=Stage.LOSE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is LoseHpTaskStage.LOSE:
            self.stage = LoseHpTaskStage.DONE
            if not st.alive[self.seat]:
                return Done()
            st.hp[self.seat] -= self.amount
            st.say("lose_hp", self.seat, self.amount, self.why, st.hp[self.seat])
            if st.hp[self.seat] <= 0:
                return Push(DyingTask(self.seat, -1))
            return CONTINUE
        return Done()


@dataclass
class DyingTask(Task):
    """濒死: ENTER_DYING skills, then every living seat in order (from the current player) is asked
    for 凤凰眼泪 until the character is back to 1 HP; a seat that gives one is asked again.
    Nobody saves → death.  Cards promised "after the dying state is resolved" are handed over last.

    ABOUT (DYING_BEFORE) → ENTER (ENTER_DYING) → ORDER → ASK ⇄ ANSWERED (one seat's 凤凰眼泪 or
    not; nobody left to ask: death) → AFTER (the promised cards).
    """

    class Stage(Enum):
        ABOUT = auto()  # about to enter the dying state: DYING_BEFORE (小矮星's 自残 may kill at once)
        ENTER = auto()  # still dying? the dying state begins: ENTER_DYING
        ORDER = auto()  # the seats to ask, from the current player
        ASK = auto()  # saved, or ask the next living seat for 凤凰眼泪 (nobody left: death)
        ANSWERED = auto()  # ``given`` read: a 凤凰眼泪 saves 1 HP (ask that seat again), a pass moves on
        AFTER = auto()  # the dying state is resolved: cards promised for after it are handed over

    who: int
    killer: int
    uid: int = -1
    order: list[int] = field(default_factory=list)
    asked: int = -1
    given: CardGiven | None = None  # the asked seat's answer (None: it passed)
    stage: Stage = field(default=Stage.ABOUT, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        who = self.who
        S = DyingTaskStage
        if self.stage is S.ABOUT:
            self.stage = S.ENTER
            return st.fire_last(tp.DYING_BEFORE, {"who": who, "killer": self.killer})
        if self.stage is S.ENTER:
            if not st.alive[who] or st.hp[who] >= 1:
                return Done()
            self.uid = st.new_uid()
            st.say("dying", who, st.hp[who])
            self.stage = S.ORDER
            return st.fire_last(tp.ENTER_DYING, {"who": who, "uid": self.uid})
        if self.stage is S.ORDER:
            self.order = st.order_from(st.current_or_first())
            self.stage = S.ASK
        if self.stage is S.ANSWERED:
            if self.given is not None:
                st.recover(who, 1, quiet=True)
                st.say("rescued", who, st.hp[who], self.order[0])
            else:
                self.order.pop(0)
            self.given = None
            self.stage = S.ASK
        if self.stage is S.ASK:
            if st.hp[who] >= 1 or not st.alive[who]:
                self.stage = S.AFTER
            else:
                while self.order and not st.alive[self.order[0]]:
                    self.order.pop(0)
                if no_recovery(st, who):  # 巨蜘蛛 Acromantula: 凤凰眼泪 cannot help, nobody is asked
                    self.order = []
                if self.order:
                    self.stage = S.ANSWERED
                    return Call(AskCard(self.order[0], "respond:tears", "kind:tears", "use", target=who,
                                        note=["n_save", who]), into="given")
                self.stage = S.AFTER
                return Push(DeathTask(who, self.killer))
        for seat, slot in st.after_dying.pop(self.uid, []):  # AFTER
            if st.alive[seat] and st.locate(slot) is not None:
                st.to_hand(seat, slot)
                st.say("obtains", seat, st.ids([slot]))
            if slot in st.set_aside:
                st.set_aside.remove(slot)
        return Done()


@dataclass
class DeathTask(Task):
    """死亡: reveal the identity, check the end of the game, discard every card of the character
    (hand, equipment, judgement area), then the rewards and penalties.

    KILL → IDENTITY (the identity card opened, unless known) → ANNOUNCE (the end of the game?
    DEATH) → DISCARD → REWARDS → (SELECTION, with creatures) → DONE.
    """

    class Stage(Enum):
        KILL = auto()  # the character dies; its identity card is opened unless already known
        IDENTITY = auto()  # waiting for the identity card's face
        ANNOUNCE = auto()  # the death and the role are announced; the game may end; DEATH
        DISCARD = auto()  # every card of the character is discarded
        REWARDS = auto()  # the killer's reward (a dark wizard) or penalty (the minister killed an auror)
        SELECTION = auto()  # with the creature pack only: 判选 (creatures.SelectionTask)
        DONE = auto()

    who: int
    killer: int
    stage: Stage = field(default=Stage.KILL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        who = self.who
        S = DeathTaskStage
        if self.stage is S.KILL:
            st.kill(who)
            if who in st.roles:
                self.stage = S.ANNOUNCE
                return CONTINUE
            self.stage = S.IDENTITY
            return Reveal((st.identity_slot[who],))
        if self.stage is S.ANNOUNCE:
            role = st.roles[who]
            st.say("dies", who, self.killer, role)
            if st.game_decided():
                st.stack.reset([GameEndTask()])
                return CONTINUE
            self.stage = S.DISCARD
            return st.fire_last(tp.DEATH, {"who": who, "killer": self.killer})
        if self.stage is S.DISCARD:
            self.stage = S.REWARDS
            cards = list(st.hands[who]) + list(st.equip[who].values()) + [s for s, _k in st.judge[who]]
            if cards:
                return Push(DiscardCardsTask(cards, ["n_cards_of", who]))
            return CONTINUE
        if self.stage is S.REWARDS:
            self.stage = S.SELECTION if st.creatures else S.DONE
            k, role = self.killer, st.roles[who]
            if k >= 0 and st.alive[k]:
                if role == DARK:
                    st.say("dark_bounty", k)
                    return Push(DrawTask(k, 3))
                if role == AUROR and k == st.minister:
                    cards = list(st.hands[k]) + list(st.equip[k].values())
                    st.say("auror_penalty", k)
                    if cards:
                        return Push(DiscardCardsTask(cards, ["n_penalty"]))
            return CONTINUE
        if self.stage is S.SELECTION:
            self.stage = S.DONE
            return Push(AFTER_DEATH["selection"](who, self.killer))
        return Done()

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        st.roles[self.who] = identity_role(faces[st.identity_slot[self.who]])
        self.stage = DeathTaskStage.ANNOUNCE
        return CONTINUE


@dataclass
class GameEndTask(Task):
    """The game is decided (or the turn limit is reached): open every hidden identity (REVEAL),
    then GameOver (OVER)."""

    class Stage(Enum):
        REVEAL = auto()  # every identity not yet known is opened
        OVER = auto()  # the result: GameOver

    aborted: bool = False
    stage: Stage = field(default=Stage.REVEAL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is GameEndTaskStage.REVEAL:
            self.stage = GameEndTaskStage.OVER
            hidden = tuple(st.identity_slot[s] for s in range(st.n) if s not in st.roles)
            if hidden:
                return Reveal(hidden)
        over = st.result = st.final_result(self.aborted)
        return over

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        for s in range(st.n):
            if s not in st.roles:
                st.roles[s] = identity_role(faces[st.identity_slot[s]])
        self.stage = GameEndTaskStage.OVER
        return CONTINUE


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


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
DamageTaskStage = stage_names(DamageTask.Stage)
LoseHpTaskStage = stage_names(LoseHpTask.Stage)
DyingTaskStage = stage_names(DyingTask.Stage)
DeathTaskStage = stage_names(DeathTask.Stage)
GameEndTaskStage = stage_names(GameEndTask.Stage)
