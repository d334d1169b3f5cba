"""The wands and armour of Harry Potter Sha, each an effect attached to its card (see :mod:`.gear`).

Weapons (the wielder's 爆破咒 and its damage): 葡萄藤木 Vine (at a target of the
other gender: it discards a hand card or the user draws), 冬青木 Holly (discard a
non-basic card: cannot be dodged), 橡木 Oak (two 幻影移形 to dodge), 游走球 Bludger
(dodged: another 爆破咒 at the same target), 格兰芬多剑 Sword (ignores armour),
胡桃木 Walnut (any number of 爆破咒; one that deals no damage in the user's own
turn deals 1 to the user), 柳木 Willow (+1 damage to a target without hand
cards), 槭木 Maple (discard one of the target's brooms first), 羽毛笔 Quill (a card
played face down as a 爆破咒: the play action lives in play.py and cards_basic.py).
Armour: 分院帽 Sorting Hat (no damage from the same faction outside the wearer's
turn; 昏昏倒地 and 神锋无影 have no effect), 隐形斗篷 Invisibility Cloak (multi-target
instant spells of others have no effect; distance 1 to everyone).  Attack ranges
and brooms are plain data (data.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha.cards_basic import BombardaTask
from p2php.games.hpsha.cards_spells import MULTI
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, MINUS, PLUS
from p2php.games.hpsha.gear import Gear, parent_ctx, register_gear
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask
from p2php.games.hpsha.tasks import AskCard, AskChoice, CardGiven, Task, as_slots, spec_ok

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


# ----------------------------------------------------------------------------- weapons


class Vine(Gear):
    kind, points = "vine", frozenset({gp.AIMED})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        t = int(ctx["target"])
        if st.gender(seat) and st.gender(t) and st.gender(seat) != st.gender(t):
            st.push(VineTask(seat, t))


@dataclass
class VineTask(Task):
    """葡萄藤木魔杖: the user may make the target discard a hand card; if it does not, the user draws 1."""

    class Stage(Enum):
        ASK = auto()  # the user chooses to use the wand or not
        CHOSEN = auto()  # used: the target discards a hand card, or the user draws
        DISCARDED = auto()  # the target kept its cards: the user draws
        DONE = auto()

    user: int
    target: int
    choice: str | None = None
    discarded: CardGiven | None = None
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        u, t = self.user, self.target
        if self.stage is VineTask.Stage.ASK:
            self.stage = VineTask.Stage.CHOSEN
            return Call(AskChoice(u, "weapon:vine", ["use", "pass"]), into="choice")
        if self.stage is VineTask.Stage.CHOSEN:
            if self.choice != "use":
                return Done()
            st.say("vine", t, u)
            if st.hands[t]:
                self.stage = VineTask.Stage.DISCARDED
                return Call(AskCard(t, "weapon:vine", "any", "discard", note=["n_vine"]), into="discarded")
            self.stage = VineTask.Stage.DONE  # nothing to discard: the user draws
            return Push(DrawTask(u, 1))
        if self.stage is VineTask.Stage.DISCARDED:
            self.stage = VineTask.Stage.DONE
            if self.discarded is None:  # the target kept its cards: the user draws
                return Push(DrawTask(u, 1))
            return CONTINUE
        return Done()


class Holly(Gear):
    kind, points = "holly", frozenset({gp.AIMED})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if not ctx["undodgeable"] and (st.hands[seat] or st.equip[seat]):
            st.push(HollyTask(seat, int(ctx["target"]), len(st.stack) - 1))


@dataclass
class HollyTask(Task):
    """冬青木魔杖: the user may discard a non-basic card; then the 爆破咒 (``parent``) cannot be dodged.

    「弃置一张非基本牌」 does not say "hand card": an equipped card (every equipment card is
    non-basic) may be discarded too, the wand itself included -- its effect has already begun
    (our reading of the original, issue 15).  A hand card opens with the answer, so a basic
    card given as non-basic is refused when its face is seen.
    """

    user: int
    target: int
    parent: int

    def run(self, st: HpshaState) -> Outcome:
        if not st.alive[self.user]:
            return Done()
        return Decide((self.user,), "weapon:holly")

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "pass"}]
        for s in st.hands[seat]:
            f = kn.face(s)
            if f is not None and spec_ok("nonbasic", st.as_card(seat, f)):
                out.append({"type": "card", "slots": [s]})
        out.extend({"type": "card", "slots": [s]} for s in st.equip[seat].values())
        return out

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        self._slot(st, seat, action, kn.face)

    def _slot(self, st: HpshaState, seat: int, action: Action, face: Any) -> int:
        """The slot discarded (``-1``: passed), or IllegalAction."""
        t = action.get("type")
        if t == "pass":
            return -1
        if t != "card":
            raise IllegalAction(f"冬青木魔杖 Holly: answer pass or card, not {t!r}")
        slots = as_slots(action)
        if len(slots) != 1:
            raise IllegalAction("冬青木魔杖 Holly: discard exactly one card")
        (slot,) = slots
        if slot in st.equip[seat].values():
            return slot
        if slot not in st.hands[seat]:
            raise IllegalAction(f"slot {slot} is neither in your hand nor in your equipment area")
        f = face(slot)
        if f is not None and not spec_ok("nonbasic", st.as_card(seat, f)):
            raise IllegalAction(f"冬青木魔杖 Holly: {CARDS[f].kind} is a basic card")
        return slot

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "card":
            return st.unopened(as_slots(action))
        return ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        slot = self._slot(st, seat, action, st.pub.get)  # the hand card's face is open now
        if slot < 0:
            return Done()
        parent_ctx(st, self.parent)["undodgeable"] = True
        return Replace(DiscardCardsTask([slot], ["n_holly"]))


class Oak(Gear):
    kind, points = "oak", frozenset({gp.DODGE})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        ctx["need"] = 2


class Bludger(Gear):
    kind, points = "bludger", frozenset({gp.DODGED})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        t = int(ctx["target"])
        if st.alive[seat] and st.alive[t] and st.hands[seat]:
            st.push(BludgerTask(seat, t))


@dataclass
class BludgerTask(Task):
    """游走球: after a dodge the user may use another 爆破咒 at the same target."""

    class Stage(Enum):
        ASK = auto()  # the user may use another 爆破咒
        USED = auto()  # it did: the 爆破咒 resolves
        DONE = auto()

    user: int
    target: int
    used: CardGiven | None = None
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is BludgerTask.Stage.ASK:
            self.stage = BludgerTask.Stage.USED
            return Call(AskCard(self.user, "weapon:bludger", "kind:bombarda", "use", target=self.target,
                                note=["n_bludger"]), into="used")
        if self.stage is BludgerTask.Stage.USED and self.used is not None:
            self.stage = BludgerTask.Stage.DONE
            return Push(BombardaTask(self.user, self.target, list(self.used["slots"])))
        return Done()


class Sword(Gear):
    kind, points = "sword", frozenset({gp.HIT})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        ctx["ignore_armour"] = True


class Walnut(Gear):
    kind, points = "walnut", frozenset({gp.MISSED, gp.BOMBARDA_LIMIT})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if point == gp.BOMBARDA_LIMIT:
            ctx["unlimited"] = True
        elif st.alive[seat] and st.current == seat:  # the backlash, in the user's own turn only
            st.say("walnut")
            st.push(DamageTask(-1, seat, 1, "walnut"))


class Willow(Gear):
    kind, points = "willow", frozenset({gp.DAMAGE_WEAPON})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if not st.hands[int(ctx["target"])]:
            ctx["amount"] = int(ctx["amount"]) + 1
            st.say("willow")


class Maple(Gear):
    kind, points = "maple", frozenset({gp.DAMAGE_WEAPON})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        t = int(ctx["target"])
        brooms = [st.equip[t][k] for k in (PLUS, MINUS) if k in st.equip[t]]
        if brooms and not st.equip_locked(t, seat):  # 莫丽's 持家 keeps hers
            st.push(MapleTask(seat, t, brooms))


@dataclass
class MapleTask(Task):
    """槭木魔杖: before the damage resolves, the source may discard one of the target's brooms."""

    class Stage(Enum):
        ASK = auto()  # the source may choose a broom
        CHOSEN = auto()  # the chosen broom is discarded

    source: int
    target: int
    brooms: list[int]
    choice: int | str | None = None  # a broom's slot, or "pass"
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is MapleTask.Stage.ASK:
            self.stage = MapleTask.Stage.CHOSEN
            return Call(AskChoice(self.source, "weapon:maple", ["pass", *self.brooms]), into="choice")
        if self.choice != "pass" and self.choice in self.brooms:
            st.say("maple", self.source, st.ids([int(self.choice)]))
            st.to_discard(int(self.choice))
        return Done()


class Quill(Gear):
    kind, points = "quill", frozenset({gp.PLAY_GRANTS})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        ctx["grants"].append("quill")


# ----------------------------------------------------------------------------- armour


class SortingHat(Gear):
    kind, points = "hat", frozenset({gp.DAMAGE_ARMOUR, gp.SPELL_ARMOUR})
    SPELLS: ClassVar[frozenset[str]] = frozenset({"stupefy", "sectumsempra"})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if point == gp.SPELL_ARMOUR:
            if ctx["kind"] in self.SPELLS:
                ctx["why"] = self.kind
            return
        src = int(ctx["source"])
        if (not ctx["ignore_armour"] and src >= 0 and src != seat and st.current != seat
                and st.faction(src) == st.faction(seat)):
            st.say("hat", src, seat)
            ctx["prevented"] = True


class Cloak(Gear):
    kind, points = "cloak", frozenset({gp.SPELL_ARMOUR, gp.DISTANCE})

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if point == gp.DISTANCE:
            ctx["distance"] = 1
        elif ctx["kind"] in MULTI and int(ctx["targets"]) > 1 and int(ctx["user"]) != seat:
            ctx["why"] = self.kind


register_gear(Vine(), Holly(), Oak(), Bludger(), Sword(), Walnut(), Willow(), Maple(), Quill(), SortingHat(),
              Cloak())
