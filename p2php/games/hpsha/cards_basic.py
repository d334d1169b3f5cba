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
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import CardId, Reveal, Slot, Step
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, KINDS
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.tasks import AskCard, AskChoice, Task

TYPE_GUESSES = ["basic", "spell", "equipment"]

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


# BombardaTask stages, in the order of the rules
_AIM, _DODGE, _ASK, _ANSWER, _DODGED, _HIT, _DEALT, _AFTER, _END = range(1, 10)


@dataclass
class BombardaTask(Task):
    """One 爆破咒 from ``user`` at ``target``.  ``ret``: damage dealt.

    The user's weapon acts at the gear points (:mod:`.gear`) this task announces,
    through ``ctx``: ``undodgeable``, ``need`` (幻影移形 to dodge), ``ignore_armour``.
    """

    user: int
    target: int
    slots: list[int] = field(default_factory=list)
    undodgeable: bool = False
    ctx: dict[str, Any] = field(default_factory=dict)
    dodges: int = 0
    dealt: int = 0

    def run(self, st: HpshaState) -> Step | None:
        u, t, ctx = self.user, self.target, self.ctx
        s = self.stage
        if s == 0:
            if not st.alive[t]:
                st.finish(0)
                return None
            ctx.update(user=u, target=t, undodgeable=self.undodgeable, need=1, ignore_armour=False)
            self.stage = _AIM
            gear(st, u, gp.AIMED, ctx)  # 葡萄藤木 Vine, 冬青木 Holly
            return None
        if s == _AIM:
            if not ctx["undodgeable"] and any(sk.undodgeable(st, u) for sk in st.skills(u)):  # 亚瑟's 司法
                ctx["undodgeable"] = True
            if ctx["undodgeable"] or not st.alive[t]:
                self.stage = _HIT
                return None
            gear(st, u, gp.DODGE, ctx)  # 橡木 Oak
            self.stage = _ASK
        if self.stage == _ASK:
            self.stage = _ANSWER
            nth = self.dodges + 1 if ctx["need"] == 2 else 0  # 橡木魔杖: which of the two 幻影移形
            st.push(AskCard(t, "respond:bombarda", "kind:apparate", "use", target=t, note=["n_dodge", nth]))
            return None
        if s == _ANSWER:
            if st.ret is not None:
                self.dodges += 1
                self.stage = _DODGED if self.dodges >= ctx["need"] else _ASK
            else:
                self.stage = _HIT
            return None
        if s == _DODGED:
            st.say("dodged", t)
            self.stage = _AFTER
            gear(st, u, gp.DODGED, ctx)  # 游走球 Bludger
            return None
        if s == _HIT:
            self.stage = _DEALT
            gear(st, u, gp.HIT, ctx)  # 格兰芬多剑 Sword
            st.push(DamageTask(u, t, 1, "bombarda", ignore_armour=bool(ctx["ignore_armour"])))
            return None
        if s == _DEALT:
            self.dealt = int(st.ret)
            self.stage = _AFTER
            return None
        if s == _AFTER:
            self.stage = _END
            if self.dealt == 0:
                gear(st, u, gp.MISSED, ctx)  # 胡桃木 Walnut
            return None
        st.finish(self.dealt)
        return None


@dataclass
class QuillTask(Task):
    """羽毛笔: a hand card played face down at ``target`` counts as using a 爆破咒.

    The target names the card's type, then the card is revealed: right → the card is
    void; wrong → a colourless 爆破咒 that cannot be dodged.  Either way it used up
    the 爆破咒 of this play phase.
    """

    user: int
    slot: int
    target: int
    guess: str = ""

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            st.bombarda_used += 1
            st.say("quill", self.user, self.target)
            self.stage = 1
            st.push(AskChoice(self.target, "quill_guess", list(TYPE_GUESSES)))
            return None
        if self.stage == 1:
            self.guess = str(st.ret)
            self.stage = 2
        if self.stage == 2:
            return Reveal((self.slot,))
        if self.stage == 3:
            card = CARDS[st.pub[self.slot]]
            st.to_discard(self.slot)
            right = KINDS[card.kind].category == self.guess
            st.say("guess", self.target, self.guess, st.ids([self.slot]), right)
            self.stage = 4
            if not right:
                st.push(BombardaTask(self.user, self.target, [], undodgeable=True))
            return None
        st.finish(None)
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        self.stage = 3
