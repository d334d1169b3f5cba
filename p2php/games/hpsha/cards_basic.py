"""爆破咒 Bombarda resolution (with the weapon skills that hook into it) and the 羽毛笔 Quill play.

One 爆破咒 against one target runs through these stages, in the order the rules
fix: target chosen (葡萄藤木 Vine option, 冬青木 Holly "cannot be dodged") → the
target's dodge with 幻影移形 (two in a row against the 橡木 Oak; no dodge when
undodgeable) → dodged: 游走球 Bludger follow-up; not dodged: damage (格兰芬多剑
Sword ignores armour; 柳木/槭木 act inside the damage task) → 胡桃木 Walnut
backlash when it dealt no damage during the user's own turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p2php.engine.contract import CardId, Reveal, Slot, Step
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, KINDS
from p2php.games.hpsha.moves import DrawTask
from p2php.games.hpsha.tasks import AskCard, AskChoice, Task

TYPE_GUESSES = ["basic", "spell", "equipment"]

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


@dataclass
class BombardaTask(Task):
    """One 爆破咒 from ``user`` at ``target``.  ``ret``: damage dealt."""

    user: int
    target: int
    slots: list[int] = field(default_factory=list)
    undodgeable: bool = False
    need: int = 1
    dodges: int = 0
    dealt: int = 0

    def run(self, st: HpshaState) -> Step | None:
        u, t = self.user, self.target
        s = self.stage
        if s == 0:
            if not st.alive[t]:
                st.finish(0)
                return None
            w = st.weapon(u)
            if w == "vine" and st.gender(u) and st.gender(t) and st.gender(u) != st.gender(t):
                self.stage = 10
                st.push(AskChoice(u, "weapon:vine", ["use", "pass"]))
                return None
            self.stage = 20
            return None
        if s == 10:
            if st.ret == "use":
                st.say("vine", t, u)
                if st.hands[t]:
                    self.stage = 11
                    st.push(AskCard(t, "weapon:vine", "any", "discard", note=["n_vine"]))
                    return None
                st.push(DrawTask(u, 1))
            self.stage = 20
            return None
        if s == 11:
            if st.ret is None:
                st.push(DrawTask(u, 1))
            self.stage = 20
            return None
        if s == 20:
            self.stage = 30
            if st.weapon(u) == "holly" and not self.undodgeable and st.hands[u]:
                self.stage = 21
                st.push(AskCard(u, "weapon:holly", "nonbasic", "discard", note=["n_holly"]))
            return None
        if s == 21:
            if st.ret is not None:
                self.undodgeable = True
            self.stage = 30
            return None
        if s == 30:
            if not self.undodgeable and any(sk.undodgeable(st, u) for sk in st.skills(u)):  # 亚瑟's 司法
                self.undodgeable = True
            if self.undodgeable or not st.alive[t]:
                self.stage = 50
                return None
            self.need = 2 if st.weapon(u) == "oak" else 1
            self.stage = 31
        if self.stage == 31:
            self.stage = 32
            nth = self.dodges + 1 if self.need == 2 else 0  # 橡木魔杖: which of the two 幻影移形
            st.push(AskCard(t, "respond:bombarda", "kind:apparate", "use", target=t, note=["n_dodge", nth]))
            return None
        if s == 32:
            if st.ret is not None:
                self.dodges += 1
                self.stage = 40 if self.dodges >= self.need else 31
            else:
                self.stage = 50
            return None
        if s == 40:
            st.say("dodged", t)
            self.stage = 60
            if st.weapon(u) == "bludger" and st.alive[u] and st.alive[t] and st.hands[u]:
                self.stage = 41
                st.push(AskCard(u, "weapon:bludger", "kind:bombarda", "use", target=t,
                                note=["n_bludger"]))
            return None
        if s == 41:
            self.stage = 60
            if st.ret is not None:
                self.stage = 61
                st.push(BombardaTask(u, t, list(st.ret["slots"])))
            return None
        if s == 50:
            self.stage = 51
            st.push(DamageTask(u, t, 1, "bombarda", ignore_armour=st.weapon(u) == "sword"))
            return None
        if s == 51:
            self.dealt = int(st.ret)
            self.stage = 60
            return None
        if s == 60:
            self.stage = 61
            if self.dealt == 0 and st.alive[u] and st.weapon(u) == "walnut" and st.current == u:
                st.say("walnut")
                st.push(DamageTask(-1, u, 1, "walnut"))
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
