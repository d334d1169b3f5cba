"""爆破咒 Bombarda resolution and the 羽毛笔 Quill play.

One 爆破咒 against one target runs through these stages, in the order the rules
fix: aimed (the weapon may act: 葡萄藤木 Vine, 冬青木 Holly "cannot be dodged") →
the target's dodge with 幻影移形 (as many as the weapon says: 橡木 Oak; none when
undodgeable) → dodged (游走球 Bludger follow-up) or hit (格兰芬多剑 Sword ignores
armour; 柳木/槭木 act inside the damage task) → no damage dealt (胡桃木 Walnut
backlash).  The weapons themselves are effects in :mod:`.equipment`, attached
to the gear points this task announces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import CardId, Reveal, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, stage_names
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, KINDS
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.tasks import AskCard, AskChoice, CardGiven, Task

TYPE_GUESSES = ["basic", "spell", "equipment"]

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


@dataclass
class BombardaTask(Task):
    """One 爆破咒 from ``user`` at ``target``.  Result: damage dealt.

    The user's weapon acts at the gear points (:mod:`.gear`) this task announces,
    through ``ctx``: ``undodgeable``, ``need`` (幻影移形 to dodge), ``ignore_armour``.
    Stages, in the order of the rules: START → AIMED → ASK ⇄ ANSWERED → DODGED or
    HIT → AFTER → END.
    """

    class Stage(Enum):
        START = auto()  # the 爆破咒 is aimed: the AIMED gear point
        AIMED = auto()  # can it be dodged?  The DODGE gear point
        ASK = auto()  # ask the target for a 幻影移形
        ANSWERED = auto()  # dodged (enough 幻影移形), ask again, or hit
        DODGED = auto()  # the DODGED gear point
        HIT = auto()  # the HIT gear point, then the damage
        AFTER = auto()  # no damage dealt: the MISSED gear point
        END = auto()

    user: int
    target: int
    slots: list[int] = field(default_factory=list)
    undodgeable: bool = False
    ctx: dict[str, Any] = field(default_factory=dict)
    dodges: int = 0
    dealt: int = 0
    dodge: CardGiven | None = None  # the target's answer to the last ASK
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        u, t, ctx = self.user, self.target, self.ctx
        s = self.stage
        if s is BombardaTaskStage.START:
            if not st.alive[t]:
                return Done(0)
            ctx.update(user=u, target=t, undodgeable=self.undodgeable, need=1, ignore_armour=False)
            self.stage = BombardaTaskStage.AIMED
            gear(st, u, gp.AIMED, ctx)  # 葡萄藤木 Vine, 冬青木 Holly
            return CONTINUE
        if s is BombardaTaskStage.AIMED:
            if not ctx["undodgeable"] and any(sk.undodgeable(st, u) for sk in st.skills(u)):  # 亚瑟's 司法
                ctx["undodgeable"] = True
            if ctx["undodgeable"] or not st.alive[t]:
                self.stage = BombardaTaskStage.HIT
                return CONTINUE
            gear(st, u, gp.DODGE, ctx)  # 橡木 Oak
            s = self.stage = BombardaTaskStage.ASK
        if s is BombardaTaskStage.ASK:
            self.stage = BombardaTaskStage.ANSWERED
            nth = self.dodges + 1 if ctx["need"] == 2 else 0  # 橡木魔杖: which of the two 幻影移形
            self.dodge = None
            return Call(AskCard(t, "respond:bombarda", "kind:apparate", "use", target=t, note=["n_dodge", nth]),
                        into="dodge")
        if s is BombardaTaskStage.ANSWERED:
            if self.dodge is not None:
                self.dodges += 1
                self.stage = BombardaTaskStage.DODGED if self.dodges >= ctx["need"] else BombardaTaskStage.ASK
            else:
                self.stage = BombardaTaskStage.HIT
            return CONTINUE
        if s is BombardaTaskStage.DODGED:
            st.say("dodged", t)
            self.stage = BombardaTaskStage.AFTER
            gear(st, u, gp.DODGED, ctx)  # 游走球 Bludger
            return CONTINUE
        if s is BombardaTaskStage.HIT:
            self.stage = BombardaTaskStage.AFTER
            gear(st, u, gp.HIT, ctx)  # 格兰芬多剑 Sword
            return Call(DamageTask(u, t, 1, "bombarda", ignore_armour=bool(ctx["ignore_armour"])), into="dealt")
        if s is BombardaTaskStage.AFTER:
            self.stage = BombardaTaskStage.END
            if self.dealt == 0:
                gear(st, u, gp.MISSED, ctx)  # 胡桃木 Walnut
            return CONTINUE
        return Done(self.dealt)


@dataclass
class QuillTask(Task):
    """羽毛笔: a hand card played face down at ``target`` counts as using a 爆破咒.

    The target names the card's type, then the card is revealed: right → the card is
    void; wrong → a colourless 爆破咒 that cannot be dodged.  Either way it used up
    the 爆破咒 of this play phase.
    """

    class Stage(Enum):
        GUESS = auto()  # the target names a card type
        REVEAL = auto()  # the card is revealed
        REVEALED = auto()  # right: void; wrong: an undodgeable 爆破咒
        DONE = auto()

    user: int
    slot: int
    target: int
    guess: str = ""
    stage: Stage = field(default=Stage.GUESS, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is QuillTaskStage.GUESS:
            st.bombarda_used += 1
            st.say("quill", self.user, self.target)
            self.stage = QuillTaskStage.REVEAL
            return Call(AskChoice(self.target, "quill_guess", list(TYPE_GUESSES)), into="guess")
        if self.stage is QuillTaskStage.REVEAL:
            self.guess = str(self.guess)
            return Reveal((self.slot,))
        if self.stage is QuillTaskStage.REVEALED:
            card = CARDS[st.pub[self.slot]]
            st.to_discard(self.slot)
            right = KINDS[card.kind].category == self.guess
            st.say("guess", self.target, self.guess, st.ids([self.slot]), right)
            self.stage = QuillTaskStage.DONE
            if not right:
                return Push(BombardaTask(self.user, self.target, [], undodgeable=True))
            return CONTINUE
        return Done()

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.stage = QuillTaskStage.REVEALED
        return CONTINUE


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
BombardaTaskStage = stage_names(BombardaTask.Stage)
QuillTaskStage = stage_names(QuillTask.Stage)
