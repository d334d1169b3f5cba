"""The students: six characters of Gryffindor, Slytherin and Ravenclaw and their skills (rules §10).

* 罗恩·韦斯莱 Ron Weasley — 棋艺 (play phase: discard the last hand card, then move one card on the
  field to another legal place; repeatable) and 急才 (end of the turn, no hand cards: draw as many
  cards as his HP);
* 纳威·隆巴顿 Neville Longbottom — 勇气 (before the play phase: skip it to 拼点 someone and obtain
  both cards; won → skip the discard phase, not won → flip) and 健忘 (a play phase skipped in one
  turn gives an extra play phase after his next turn: the §12.3 marker);
* 金妮·韦斯莱 Ginny Weasley — 羞赧 (her 爆破咒 that ultimately dealt no damage goes back to her hand)
  and 蝠咒 (play phase: a spade hand card covers one equipment area of a character, which is out of
  the game until her next turn starts);
* 弗雷德&乔治 Fred & George — 逃课 (carry the discard phase out before the draw phase) and 搞怪
  (play phase: a diamond as 统统石化, a heart as 修复如初, each once per phase);
* 克拉布&高尔 Crabbe & Goyle — 尾随 (locked: at the end of the turn everyone within distance 1 draws
  1) and 贪吃 (before the draw phase: look at and arrange the top 4 deck cards, show and obtain those
  that share a suit; more cards than max HP then → skip the draw phase);
* 卢娜·洛夫古德 Luna Lovegood — 反调 (end phase: discard a hand card to swap the next turns of two
  other characters: the §12.2 markers, a turn-order hook) and 蝻钩 (in her turn, each time she
  replaces an equipment card: discard any number of hand cards and draw as many).

Why the pieces look as they do: every pending step is a plain-data task (snapshot, clone, hash),
every hidden card moves through the contract (a 拼点 is one Decide of both sides with no reveal and
then one Reveal; looking at the deck top is a Show to the looker alone; discarded or shown cards
are Revealed), every decision is asked explicitly of its seat, and whatever a skill must remember
(markers, covered areas, "once per phase") lives in ``state.flags[seat]`` as plain ints.  The rule
decisions are in the package docstring (:mod:`p2php.games.hpsha`), block "Students".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Replace
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.creature_marks import slot_closed
from p2php.games.hpsha.data import CARDS, DIAMOND, EQUIP_SLOTS, HEART, KINDS, SPADE
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask, PeekDeckTask, PointDuelTask
from p2php.games.hpsha.play import UseCardTask, targets_for
from p2php.games.hpsha.skillkit import OpensChosenCard, mark_used, used_this_turn
from p2php.games.hpsha.tasks import AskCard, AskChoice, Task, as_slots
from p2php.games.hpsha.triggers import Skill, register_skills

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

Face = Callable[[Slot], CardId | None]


def _one_slot(action: Action) -> int:
    slots = as_slots(action)
    if len(slots) != 1:
        raise IllegalAction("give exactly one hand card")
    return slots[0]




# ----------------------------------------------------------------------------- Ron Weasley


def field_moves(st: HpshaState, actor: int) -> list[tuple[int, int]]:
    """Every (card on the field, character) move ``actor`` may make that keeps "one card of a class
    per area": an equipment card (not one its owner's 持家 protects) into the same, empty and not
    covered equipment slot of another living character; a delayed spell into the judgement area of
    another living character without one of that name."""
    out: list[tuple[int, int]] = []
    living = [s for s in range(st.n) if st.alive[s]]
    for frm in living:
        for sub in EQUIP_SLOTS:
            x = st.equip[frm].get(sub)
            if x is None or st.equip_locked(frm, actor):
                continue
            out += [(x, to) for to in living
                    if to != frm and sub not in st.equip[to] and not st.flags[to].get("covered:" + sub)
                    and not slot_closed(st, to, sub)]
        for x, kind in st.judge[frm]:
            out += [(x, to) for to in living if to != frm and not st.has_judge(to, kind)]
    return out


class ChessMastery(Skill):
    """棋艺: in the play phase, discard the last hand card; then he may move one card on the field to
    another legal position.  As often as the conditions allow (※)."""

    key, zh, en = "chess_mastery", "棋艺", "Chess Mastery"

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        h = st.hands[seat]
        return [{"type": "skill", "skill": self.key, "slots": [h[0]], "targets": []}] if len(h) == 1 else []

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        s = _one_slot(action)
        if st.hands[seat] != [s]:
            raise IllegalAction("棋艺 Chess Mastery: only your last hand card may be discarded")
        if action.get("targets") != []:  # it names no one: seats there were read by nothing
            raise IllegalAction("棋艺 Chess Mastery names no target")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        st.push(ChessMoveTask(seat))
        st.push(DiscardCardsTask(as_slots(action), ["n_chess", seat]))


@dataclass
class ChessMoveTask(Task):
    """棋艺's optional move: ``{"type": "move", "slot": card, "to": seat}`` or pass."""

    class Stage(Enum):
        ASK = auto()
        ANSWERED = auto()  # moved (its CARD_MOVED resolved) or passed

    seat: int
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is ChessMoveTask.Stage.ASK and st.alive[self.seat] and field_moves(st, self.seat):
            return Decide((self.seat,), "skill:chess_mastery")
        return Done()

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "pass"}] + [{"type": "move", "slot": x, "to": to} for x, to in field_moves(st, seat)]

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        self.stage = ChessMoveTask.Stage.ANSWERED
        if action["type"] == "pass":
            return CONTINUE
        x, to = int(action["slot"]), int(action["to"])
        where = st.locate(x)
        assert where is not None
        zone, frm = where
        if zone == "judge":
            kind = next(k for s, k in st.judge[frm] if s == x)
            st.take(x)
            st.judge[to].append([x, kind])
        else:
            st.take(x)
            st.equip[to][zone] = x
        st.say("chess", seat, st.ids([x]), frm, to)
        if zone != "judge":
            return st.fire_last(tp.CARD_MOVED, {"owner": frm, "to": to, "slots": [x], "how": "move"})
        return CONTINUE


class QuickWit(Skill):
    """急才: at the end of his turn, with no hand cards, he may draw as many cards as his current HP."""

    key, zh, en = "quick_wit", "急才", "Quick Wit"
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_END})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and not st.hands[seat] and st.hp[seat] > 0

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(DrawTask(seat, st.hp[seat]))


# ----------------------------------------------------------------------------- Neville Longbottom


class Courage(Skill):
    """勇气: before his play phase (which he must have the right to carry out: not when 统统石化
    already skips it, ※), skip it to 拼点 another character; he obtains both cards; won → skip the
    discard phase, not won → flip."""

    key, zh, en = "courage", "勇气", "Courage"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_BEFORE})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return (ctx.get("who") == seat and ctx.get("phase") == "play" and not st.skips(seat, "play")
                and bool(st.hands[seat]) and bool(self.named_targets(st, seat)))

    @staticmethod
    def named_targets(st: HpshaState, seat: int) -> list[int]:
        return [t for t in st.order_from(seat) if t != seat and st.hands[t]]

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "target": t} for t in self.named_targets(st, seat)]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        target = int(action["target"])
        st.skip.append("play")
        st.say("courage", seat, target)
        st.push(CourageTask(seat, target))


@dataclass
class CourageTask(Task):
    """勇气's 拼点 and its outcome (the flip comes last: it may fire FLIPPED, whose trigger runs before
    this task's last stage)."""

    class Stage(Enum):
        DUEL = auto()
        RESULT = auto()  # he obtains both cards; won → skip the discard phase, not won → flip
        DONE = auto()

    seat: int
    target: int
    duel: dict[str, Any] | None = None  # the 拼点's result: {"won": bool, "slots": [mine, theirs]}
    stage: Stage = field(default=Stage.DUEL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is CourageTask.Stage.DUEL:
            self.stage = CourageTask.Stage.RESULT
            return Call(PointDuelTask(self.seat, self.target), into="duel")
        result = self.duel
        if self.stage is CourageTask.Stage.DONE or not isinstance(result, dict):
            return Done()
        self.stage = CourageTask.Stage.DONE
        for s in result["slots"]:
            st.to_hand(self.seat, s)
        st.say("courage_get", self.seat, st.ids(result["slots"]))
        if result["won"]:
            st.say("courage_won", self.seat)
            st.skip.append("discard")
            return Done()
        from p2php.games.hpsha.cards_spells import flip

        flip(st, self.seat)  # may push the FLIPPED trigger on top of this task
        return CONTINUE


class Forgetfulness(Skill):
    """健忘: each play phase he skips (统统石化, 勇气, ...) puts a marker on him; at the end of his next
    (real) turn he spends it on an extra play phase carried out right after that turn, or gives it up.

    ``witness`` keeps the markers at his TURN_END (no decision): those of earlier turns become due
    now (``fg_due``), the one of this turn waits for the next turn (``fg``) — "last turn's marker
    must be spent this turn, a marker gained this turn cannot be spent early" (§12.3).  A turn lost
    to a flip has no TURN_END: it neither adds nor spends a marker (※)."""

    key, zh, en = "forgetfulness", "健忘", "Forgetfulness"
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_END})

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if ctx.get("who") == seat and st.current == seat:
            f = st.flags[seat]
            f["fg_due"] = f.get("fg", 0)
            f["fg"] = st.skip.count("play")

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and st.flags[seat].get("fg_due", 0) > 0

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        for _ in range(st.flags[seat].get("fg_due", 0)):
            st.add_extra_phase(seat, "play")
        st.flags[seat]["fg_due"] = 0


# ----------------------------------------------------------------------------- Ginny Weasley


class Bashfulness(Skill):
    """羞赧: when a 爆破咒 she used ultimately dealt no damage to its target (dodged, stopped by armour,
    呼神护卫, ...), she may take that 爆破咒 back into her hand.  The 羽毛笔's face-down card is not a
    爆破咒 used as such (※): it resolves outside :class:`UseCardTask` and never reaches this point.

    ``witness`` marks her 爆破咒 as used (CARD_USED) and as having hit (DAMAGE_AFTER of a 爆破咒 she is
    the source of), so CARD_RESOLVED knows whether it dealt damage."""

    key, zh, en = "bashfulness", "羞赧", "Bashfulness"
    points: ClassVar[frozenset[str]] = frozenset({tp.CARD_USED, tp.DAMAGE_AFTER, tp.CARD_RESOLVED})

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        f = st.flags[seat]
        if point == tp.CARD_USED and ctx.get("user") == seat and ctx.get("kind") == "bombarda":
            f["bash"] = 1
        elif point == tp.DAMAGE_AFTER and ctx.get("source") == seat and ctx.get("via") == "bombarda":
            f["bash"] = 2

    @staticmethod
    def _slots(st: HpshaState, seat: int) -> list[int]:
        for t in reversed(st.stack):
            if isinstance(t, UseCardTask) and t.user == seat and t.kind == "bombarda":
                return [s for s in t.slots if s in st.processing]
        return []

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return (point == tp.CARD_RESOLVED and ctx.get("user") == seat and ctx.get("kind") == "bombarda"
                and st.flags[seat].get("bash") == 1 and bool(self._slots(st, seat)))

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        got = self._slots(st, seat)
        for s in got:
            st.to_hand(seat, s)
        st.flags[seat]["bash"] = 0
        st.say("shy", seat, st.ids(got))


class BatBogeyHex(Skill):
    """蝠咒: in the play phase, once per phase, place a spade hand card sideways in a character's
    equipment area over one area (slot) she designates: until her next turn starts, that area is
    out of the game — its equipment card (if any) has no effect and no owner and cannot be moved,
    obtained, replaced or discarded, and nothing can be equipped there.  Then the spade card goes to
    the discard pile and the equipment card comes back (※).

    The covered card and the spade are held out of every zone; Ginny's flags say where they belong
    (``bat_card``, ``bat_t``, ``bat_area``, ``bat_eq``) and the covered character's flag
    ``covered:<slot>`` blocks equipping there.  The effect also ends when she dies."""

    key, zh, en = "bat_bogey_hex", "蝠咒", "Bat-Bogey Hex"

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key) or "bat_card" in st.flags[seat]:
            return []
        spades = [s for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].suit == SPADE]
        return [{"type": "skill", "skill": self.key, "slots": [s], "targets": [t]}
                for s in spades for t in st.order_from(seat)]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        s = _one_slot(action)
        targets = as_slots(action, "targets")
        if used_this_turn(st, seat, self.key) or "bat_card" in st.flags[seat]:
            raise IllegalAction("蝠咒 Bat-Bogey Hex: once per phase")
        if s not in st.hands[seat]:
            raise IllegalAction(f"slot {s} is not in your hand")
        f = face(s)
        if f is not None and CARDS[f].suit != SPADE:
            raise IllegalAction("蝠咒 Bat-Bogey Hex needs a spade hand card")
        if len(targets) != 1 or not (0 <= targets[0] < st.n) or not st.alive[targets[0]]:
            raise IllegalAction("蝠咒 Bat-Bogey Hex: name one living character")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        s = as_slots(action)[0]
        st.take(s)  # sideways over the area: out of every zone until the effect ends
        st.push(BatBogeyTask(seat, int(action["targets"][0]), s))

    def on_own_turn_start(self, st: HpshaState, seat: int) -> None:
        release_cover(st, seat)

    def on_own_death(self, st: HpshaState, seat: int) -> None:
        release_cover(st, seat)


@dataclass
class BatBogeyTask(Task):
    """蝠咒: Ginny designates the area (weapon, armour, +1 or −1 broom slot) the spade card covers."""

    class Stage(Enum):
        CHOOSE = auto()  # Ginny designates the area
        COVER = auto()

    seat: int
    target: int
    card: int
    area: str | None = None  # the area Ginny designated
    stage: Stage = field(default=Stage.CHOOSE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is BatBogeyTask.Stage.CHOOSE:
            self.stage = BatBogeyTask.Stage.COVER
            return Call(AskChoice(self.seat, "skill:bat_bogey_hex", list(EQUIP_SLOTS)), into="area")
        area = str(self.area)
        t = self.target
        eq = st.equip[t].get(area)
        if eq is not None:
            st.take(eq)
        f = st.flags[self.seat]
        f["bat_card"], f["bat_t"], f["bat_area"] = self.card, t, EQUIP_SLOTS.index(area)
        f["bat_eq"] = -1 if eq is None else eq
        st.flags[t]["covered:" + area] = 1
        st.say("bat", st.ids([self.card]), t, area, st.ids([] if eq is None else [eq]))
        return Done()


def release_cover(st: HpshaState, ginny: int) -> None:
    """End 蝠咒's effect: the spade card to the discard pile, the covered card back to its area (to the
    discard pile if its character died or the slot was filled meanwhile)."""
    f = st.flags[ginny]
    if "bat_card" not in f:
        return
    card, t, area, eq = f.pop("bat_card"), f.pop("bat_t"), EQUIP_SLOTS[f.pop("bat_area")], f.pop("bat_eq")
    st.flags[t].pop("covered:" + area, None)
    st.discard.append(card)
    back = -1  # no covered card
    if eq >= 0:
        if st.alive[t] and area not in st.equip[t] and not slot_closed(st, t, area):
            st.equip[t][area] = eq
            back = 1
        else:
            st.discard.append(eq)
            back = 0
    st.say("bat_end", t, area, st.ids([eq] if eq >= 0 else []), back)


# ----------------------------------------------------------------------------- Fred & George


class SkipClass(Skill):
    """逃课: the discard phase may be carried out before the draw phase (it is moved, not added)."""

    key, zh, en = "skip_class", "逃课", "Skip Class"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_BEFORE})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and ctx.get("phase") == "draw" and not st.skips(seat, "discard")

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        mark_used(st, seat, self.key)
        st.say("truant", seat)
        st.push(EarlyDiscardTask(seat, st.phase))

    def skips_phase(self, st: HpshaState, seat: int, phase: str) -> bool:
        return phase == "discard" and st.current == seat and used_this_turn(st, seat, self.key)


@dataclass
class EarlyDiscardTask(Task):
    """The moved discard phase, with its own PHASE_START / PHASE_END (嘲哂 and friends see it)."""

    class Stage(Enum):
        START = auto()  # the phase begins: PHASE_START
        DISCARD = auto()  # down to the hand limit
        END = auto()  # PHASE_END with the cards discarded
        DONE = auto()  # back to the phase it interrupted

    seat: int
    before: str
    discarded: list[int] = field(default_factory=list)  # the discard phase's result: the slots discarded
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        from p2php.games.hpsha.flow import DiscardPhaseTask

        if self.stage is EarlyDiscardTask.Stage.START:
            st.phase = "discard"
            self.stage = EarlyDiscardTask.Stage.DISCARD
            return st.fire_last(tp.PHASE_START, {"who": self.seat, "phase": "discard"})
        if self.stage is EarlyDiscardTask.Stage.DISCARD:
            self.stage = EarlyDiscardTask.Stage.END
            if st.alive[self.seat]:
                return Call(DiscardPhaseTask(self.seat), into="discarded")
            return CONTINUE
        if self.stage is EarlyDiscardTask.Stage.END:
            self.discarded = list(self.discarded or [])
            self.stage = EarlyDiscardTask.Stage.DONE
            if st.alive[self.seat]:
                return st.fire_last(tp.PHASE_END, {"who": self.seat, "phase": "discard",
                                                   "discarded": list(self.discarded)})
            return CONTINUE
        st.phase = self.before
        return Done()


class Mischief(Skill):
    """搞怪: in the play phase, a diamond hand card may be used as 统统石化 and a heart hand card as
    修复如初, each once per phase (※)."""

    key, zh, en = "mischief", "搞怪", "Mischief"
    play_keys = frozenset({"type", "skill", "kind", "slots", "targets"})
    AS: ClassVar[dict[str, str]] = {"bind": DIAMOND, "reparo": HEART}

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        out: list[Action] = []
        for kind, suit in self.AS.items():
            if used_this_turn(st, seat, f"{self.key}_{kind}"):
                continue
            cards = [s for s in st.hands[seat]
                     if (f := kn.face(s)) is not None and CARDS[f].suit == suit and st.can_use(seat, s)]
            tgs = targets_for(st, seat, kind) if cards else []
            out += [{"type": "skill", "skill": self.key, "kind": kind, "slots": [s], "targets": tg}
                    for s in cards for tg in tgs]
        return out

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        kind = action.get("kind")
        if not isinstance(kind, str) or kind not in self.AS:  # (a list is unhashable: a crash, not a refusal)
            raise IllegalAction("搞怪 Mischief gives 统统石化 (diamond) or 修复如初 (heart)")
        if used_this_turn(st, seat, f"{self.key}_{kind}"):
            raise IllegalAction(f"搞怪 Mischief: once per phase as {KINDS[str(kind)].zh}")
        s = _one_slot(action)
        if s not in st.hands[seat] or not st.can_use(seat, s):
            raise IllegalAction(f"slot {s} is not a hand card you may use")
        f = face(s)
        if f is not None and CARDS[f].suit != self.AS[str(kind)]:
            raise IllegalAction(f"搞怪 Mischief: {KINDS[str(kind)].zh} needs a {self.AS[str(kind)]} card")
        if as_slots(action, "targets") not in targets_for(st, seat, str(kind)):
            raise IllegalAction(f"{KINDS[str(kind)].zh} cannot target {action.get('targets')}")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        kind = str(action["kind"])
        mark_used(st, seat, f"{self.key}_{kind}")
        slots = as_slots(action)
        for s in slots:
            st.to_processing(s)
        st.push(UseCardTask(seat, kind, slots, as_slots(action, "targets"), self.key))


# ----------------------------------------------------------------------------- Crabbe & Goyle


class TagAlong(Skill):
    """尾随 (locked): at the end of their turn, every character within distance 1 of them (themselves
    included: distance 0) draws 1 card, one after another from them in turn order."""

    key, zh, en, compulsory = "tag_along", "尾随", "Tag Along", True
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_END})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        near = [t for t in st.order_from(seat) if st.distance(seat, t) <= 1]
        for t in reversed(near):  # pushed in reverse: the first in order draws first
            st.push(DrawTask(t, 1))


class Gluttony(Skill):
    """贪吃: before their draw phase, with no more hand cards than their max HP, they may look at and
    arrange the top 4 deck cards, then show and obtain the cards whose suit is shared (whole suit
    groups: one group or all of them, or none, ※); more hand cards than max HP then → skip the draw."""

    key, zh, en = "gluttony", "贪吃", "Gluttony"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_BEFORE})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return (ctx.get("who") == seat and ctx.get("phase") == "draw" and len(st.hands[seat]) <= st.max_hp[seat]
                and (bool(st.deck) or st.discard_available()))

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(GluttonyTask(seat))


def suit_groups(slots: Sequence[int], face: Face) -> list[list[int]]:
    """The known cards among ``slots`` grouped by suit, groups of two or more only."""
    by: dict[str, list[int]] = {}
    for s in slots:
        f = face(s)
        if f is not None:
            by.setdefault(CARDS[f].suit, []).append(s)
    return [g for g in by.values() if len(g) >= 2]


@dataclass
class GluttonyTask(Task):
    """贪吃: the look and arrangement (:class:`PeekDeckTask`), then the take decision — always asked,
    since only the looker knows whether suits repeat — ``{"type": "take", "slots": [...]}`` or pass;
    the taken cards are shown (opened) as they are obtained."""

    class Stage(Enum):
        PEEK = auto()  # look at and arrange the top 4
        PEEKED = auto()  # fewer than two cards: nothing to ask
        ASK = auto()  # the take decision
        DONE = auto()

    seat: int
    top: list[int] = field(default_factory=list)  # the look's result: the top cards, in their new order
    stage: Stage = field(default=Stage.PEEK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is GluttonyTask.Stage.PEEK:
            self.stage = GluttonyTask.Stage.PEEKED
            return Call(PeekDeckTask(self.seat, 4, reorder=True), into="top")
        if self.stage is GluttonyTask.Stage.PEEKED:
            self.top = list(self.top or [])
            if len(self.top) < 2:  # nothing can share a suit: public, so no question
                return Done()
            self.stage = GluttonyTask.Stage.ASK
        if self.stage is GluttonyTask.Stage.ASK:
            return Decide((self.seat,), "skill:gluttony")
        return Done()

    def _options(self, face: Face) -> list[list[int]]:
        groups = suit_groups(self.top, face)
        out: list[list[int]] = []
        for k in range(1, len(groups) + 1):
            for combo in combinations(groups, k):
                out.append(sorted((s for g in combo for s in g), key=self.top.index))
        return out

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "pass"}] + [{"type": "take", "slots": o} for o in self._options(kn.face)]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        if action.get("type") == "pass":
            return
        if action.get("type") != "take":
            raise IllegalAction("贪吃 Gluttony: take cards or pass")
        slots = as_slots(action)
        if len(slots) < 2 or any(s not in self.top for s in slots):
            raise IllegalAction("贪吃 Gluttony: take two or more of the top cards")
        if all(kn.face(s) is not None for s in self.top):
            if slots not in self._options(kn.face):
                raise IllegalAction("贪吃 Gluttony: take whole groups of cards that share a suit")
        else:
            self._validate(slots, kn.face)

    @staticmethod
    def _validate(slots: list[int], face: Face) -> None:
        """Could the chosen cards all share suits?  Exact when every face is known (``apply``); a
        peer that knows only some refuses only what no faces of the unknown ones could make right."""
        suits: dict[str, int] = {}
        unknown = 0
        for s in slots:
            f = face(s)
            if f is None:
                unknown += 1
            else:
                suits[CARDS[f].suit] = suits.get(CARDS[f].suit, 0) + 1
        short = sum(1 for c in suits.values() if c < 2)
        if short > unknown or (unknown - short == 1 and not suits):
            raise IllegalAction("贪吃 Gluttony: only cards that share a suit")

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action)) if action.get("type") == "take" else ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        if action.get("type") == "take":
            slots = as_slots(action)
            self._validate(slots, st.pub.get)
            for s in slots:
                st.to_hand(seat, s)
            st.say("greedy", seat, st.ids(slots))
            if len(st.hands[seat]) > st.max_hp[seat]:
                st.say("greedy_skip", seat)
                st.skip.append("draw")
        self.stage = GluttonyTask.Stage.DONE
        return CONTINUE


# ----------------------------------------------------------------------------- Luna Lovegood


class Contrarian(Skill):
    """反调: in her end phase, once, discard a hand card to swap the next turns of two other characters
    (§12.2 markers: B's turn comes first in the normal order, A's later).  When B's turn is about to
    begin, A takes its turn, then B; play goes on from B, and when A's seat comes round A has already
    had its turn and is skipped.  The swap comes before flipping (※): a face-down A or B turns up and
    skips the turn at its swapped place.  If A or B dies before the swap, the effect ends (※).

    Flags of Luna: ``ct_b``, ``ct_a``, ``ct_st`` (1 set, 2 A's early turn under way, 3 waiting to skip
    A at its seat).  The order change is :meth:`turn_redirect`, consulted even after Luna dies so a
    swap already set is carried through."""

    key, zh, en = "contrarian", "反调", "Contrarian"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_START})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return (ctx.get("who") == seat and ctx.get("phase") == "end" and not ctx.get("extra")
                and bool(st.hands[seat]) and not st.flags[seat].get("ct_st") and len(self._others(st, seat)) >= 2)

    @staticmethod
    def _others(st: HpshaState, seat: int) -> list[int]:
        return [t for t in st.order_from(seat) if t != seat]

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "targets": [b, a]} for b, a in combinations(self._others(st, seat), 2)]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        b, a = (int(x) for x in action["targets"])
        st.push(ContrarianTask(seat, b, a))

    def turn_redirect(self, st: HpshaState, owner: int, seat: int) -> int:
        f = st.flags[owner]
        state = f.get("ct_st", 0)
        if not state:
            return seat
        a, b = f["ct_a"], f["ct_b"]
        if state == 1:
            if not (st.alive[a] and st.alive[b]):
                self._clear(st, owner, "died")  # a words.py key
                return seat
            if seat != b:
                return seat
            f["ct_st"] = 2
            st.say("contra", a, b)
            return a
        if state == 2:  # A's early turn (or its flipped-away slot) is over: now B
            f["ct_st"] = 3
            if st.alive[b]:
                return b
            return self.turn_redirect(st, owner, st.next_alive(b))
        if not st.alive[a]:
            self._clear(st, owner, "")
            return seat
        if seat != a:
            return seat
        self._clear(st, owner, "")
        if st.face_down[a]:  # its own flip skips the same, already paid, turn
            return a
        st.say("contra_skip", a)
        return st.next_alive(a)

    @staticmethod
    def _clear(st: HpshaState, owner: int, why: str) -> None:
        for k in ("ct_st", "ct_a", "ct_b"):
            st.flags[owner].pop(k, None)
        if why:
            st.say("contra_end", why)


@dataclass
class ContrarianTask(Task):
    """反调: Luna discards a hand card (her choice), then the markers go on B and A."""

    class Stage(Enum):
        DISCARD = auto()
        MARK = auto()  # the markers go on B and A

    luna: int
    b: int
    a: int
    stage: Stage = field(default=Stage.DISCARD, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is ContrarianTask.Stage.DISCARD:
            self.stage = ContrarianTask.Stage.MARK
            return Push(AskCard(self.luna, "skill:contrarian", "any", "discard", optional=False,
                                note=["n_skill", "contrarian"]))
        f = st.flags[self.luna]
        f["ct_b"], f["ct_a"], f["ct_st"] = self.b, self.a, 1
        st.say("contra_marks", self.b, self.a)
        return Done()


class Nargles(OpensChosenCard):
    """蝻钩: in her turn, each time she replaces a card in her equipment area (equips into an occupied
    slot), she may discard any number of hand cards and draw as many.  Several times a turn (※)."""

    key, zh, en = "nargles", "蝻钩", "Nargles"
    points: ClassVar[frozenset[str]] = frozenset({tp.CARD_MOVED})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return (ctx.get("how") == "replace" and ctx.get("owner") == seat and st.current == seat
                and bool(st.hands[seat]))

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "slot": s} for s in st.hands[seat]]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        s = int(action["slot"])
        st.to_discard(s)
        st.push(NarglesTask(seat, [s]))


@dataclass
class NarglesTask(Task):
    """蝻钩 after the first card: discard more (one at a time, each opened) or stop; then draw as many."""

    class Stage(Enum):
        MORE = auto()  # discard another card, or stop
        DRAW = auto()  # stopped: draw as many as discarded

    seat: int
    slots: list[int]
    stage: Stage = field(default=Stage.MORE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is NarglesTask.Stage.MORE and st.hands[self.seat]:
            return Decide((self.seat,), "nargles_more")
        st.say("hook", self.seat, st.ids(self.slots))
        return Replace(DrawTask(self.seat, len(self.slots)))

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "pass"}] + [{"type": "discard", "slots": [s]} for s in st.hands[seat]]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        if action.get("type") == "pass":
            return
        if action.get("type") != "discard" or _one_slot(action) not in st.hands[seat]:
            raise IllegalAction("蝻钩 Nargles: discard one of your hand cards, or stop")

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action)) if action.get("type") == "discard" else ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        if action.get("type") == "pass":
            self.stage = NarglesTask.Stage.DRAW
            return CONTINUE
        s = as_slots(action)[0]
        st.to_discard(s)
        self.slots.append(s)
        return CONTINUE


register_skills("ron", ChessMastery(), QuickWit())
register_skills("neville", Courage(), Forgetfulness())
register_skills("ginny", Bashfulness(), BatBogeyHex())
register_skills("fred_george", SkipClass(), Mischief())
register_skills("crabbe_goyle", TagAlong(), Gluttony())
register_skills("luna", Contrarian(), Nargles())
