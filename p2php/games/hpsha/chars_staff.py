"""The Hogwarts staff: six characters of the 霍格沃茨 faction and their skills (rules §10.2).

* 阿不思·邓布利多 Albus Dumbledore — 仁爱 (prevent damage he is about to deal, discard two of
  the target's cards; before 呼神护卫) and 亲和 (play phase: one character gives another a hand
  card, which the receiver uses at once as 清水如泉);
* 米勒娃·麦格 Minerva McGonagall — 变形 (a hand equipment card as 复制成双: view-as) and 斥责
  (after an instant spell that targeted her and dealt damage: take a card of the caster's
  equipment);
* 西弗勒斯·斯内普 Severus Snape — 魔药 (play phase: discard an equipment card, someone recovers
  1 HP, he draws 1) and 诘难 (play phase: a character plays a card of the named type or he
  discards one of its cards);
* 鲁伯·海格 Rubeus Hagrid — 巨力 (play phase: 拼点; won → range + the rank difference this
  turn, not won → range 1 this turn) and 鲁莽 (locked: damage above 1 costs a basic card, or
  the extra is void and the target's neighbours within distance 1 take 1 sourceless damage);
* 西比尔·特里劳妮 Sybill Trelawney — 预言 (before any judgement reveal a hand card; same colour
  as the judgement card that takes effect → draw 1) and 惶恐 (locked: skip the judgement or
  the discard phase by the living count against her max HP);
* 阿格斯·费尔奇 Argus Filch — 巡视 (someone flips face down → draw 2) and 禁闭 (after taking
  damage: discard a card; the current player loses its skills this turn, or he looks at the
  source's hand and sets half of it face down: unusable this turn).

Why the pieces look as they do: every pending step is a plain-data task (snapshot, clone,
hash), every hidden card moves through the contract (a blind pick of a hand card is joint
Randomness, looking at a hand is a Show, a 拼点 is one Decide of both sides with no reveal and
then one Reveal), and everything a skill must remember lives in ``state.flags[seat]``.
The rule decisions are in the package docstring (:mod:`p2php.games.hpsha`), block "Hogwarts staff".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.damage import DamageTask
from p2php.games.hpsha.data import CARDS, EQUIPMENT, KINDS, Card, is_instant
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask, LookAtHandTask, PickCardTask, PointDuelTask
from p2php.games.hpsha.play import UseCardTask
from p2php.games.hpsha.remask import RemaskHandTask, remask_groups
from p2php.games.hpsha.skillkit import OpensChosenCard, mark_used, named_targets, own_cards, used_this_turn
from p2php.games.hpsha.tasks import AskCard, CardGiven, Task, as_slots
from p2php.games.hpsha.triggers import Skill, register_skills
from p2php.games.hpsha.windows import TriggerTask

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

TYPES = ("basic", "spell", "equipment")
"""The card types 诘难 may name (the three types, as in the 羽毛笔 ruling)."""
KIND_CODE = {k: i + 1 for i, k in enumerate(KINDS)}
"""Card kinds as small ints (state flags hold ints only)."""

Face = Callable[[Slot], CardId | None]






# ----------------------------------------------------------------------------- Albus Dumbledore


class Benevolence(Skill):
    """仁爱: when Dumbledore is about to deal damage, he may prevent it and discard two of the
    target's cards (before the 呼神护卫 window, ※)."""

    key, zh, en = "benevolence", "仁爱", "Benevolence"
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_BEFORE})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("source") == seat and not ctx.get("prevented") and st.alive[int(ctx["target"])]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        ctx["prevented"] = True  # read by DamageTask after DAMAGE_BEFORE
        t = int(ctx["target"])
        st.say("benevolence", seat, t)
        st.push(BenevolenceTask(seat, t))


@dataclass
class BenevolenceTask(Task):
    """Two discards, one at a time: Dumbledore chooses hand (a random card) or an equipped card."""

    class Stage(Enum):
        FIRST_DISCARD = auto()
        SECOND_DISCARD = auto()
        DONE = auto()

    seat: int
    target: int
    stage: Stage = field(default=Stage.FIRST_DISCARD, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is BenevolenceTask.Stage.DONE:
            return Done()
        first = self.stage is BenevolenceTask.Stage.FIRST_DISCARD
        self.stage = BenevolenceTask.Stage.SECOND_DISCARD if first else BenevolenceTask.Stage.DONE
        return Push(PickCardTask(self.seat, self.target, ["hand", "equip"], "discard", Benevolence.key))


class Affinity(Skill):
    """亲和 (once per phase): a character with hand cards gives one to another character Dumbledore
    names, who uses it at once as 清水如泉 (the receiver is its user, so 聪颖 can trigger)."""

    key, zh, en = "affinity", "亲和", "Affinity"
    play_keys = frozenset({"type", "skill", "targets"})

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key):
            return []
        living = st.order_from(seat)
        return [{"type": "skill", "skill": self.key, "targets": [a, b]}
                for a in living if st.hands[a] for b in living if b != a]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        a, b = named_targets(action, 2)
        if used_this_turn(st, seat, self.key):
            raise IllegalAction("亲和 Affinity: once per phase")
        if not (0 <= a < st.n and 0 <= b < st.n) or a == b or not st.alive[a] or not st.alive[b]:
            raise IllegalAction("亲和 Affinity: name two different living characters")
        if not st.hands[a]:
            raise IllegalAction("亲和 Affinity: the giver must have hand cards")

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        a, b = action["targets"]
        st.say("affinity", seat, a, b)
        st.push(AffinityTask(a, b))


@dataclass
class AffinityTask(Task):
    """The giver picks the card (its own choice; opened, since it is used at once); it enters the
    receiver's hand and is used from there as 清水如泉 on every living character (its targets
    are counted when the card is given, before CARD_MOVED)."""

    class Stage(Enum):
        ASK = auto()  # the giver picks the card
        GIVEN = auto()  # the card moves to the receiver: CARD_MOVED
        USE = auto()  # the receiver uses it as 清水如泉
        DONE = auto()

    giver: int
    receiver: int
    slot: int = -1
    targets: list[int] = field(default_factory=list)
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is AffinityTask.Stage.ASK:
            if not st.hands[self.giver] or not st.alive[self.receiver]:
                return Done()
            return Decide((self.giver,), "skill:affinity")
        if self.stage is AffinityTask.Stage.GIVEN:
            s, b = self.slot, self.receiver
            st.to_hand(b, s)
            st.say("affinity_give", self.giver, st.ids([s]), b)
            st.to_processing(s)
            self.targets = st.order_from(b)
            self.stage = AffinityTask.Stage.USE
            return st.fire_last(tp.CARD_MOVED, {"owner": self.giver, "to": b, "slots": [s], "how": "give"})
        if self.stage is AffinityTask.Stage.USE:
            self.stage = AffinityTask.Stage.DONE
            return Push(UseCardTask(self.receiver, "aguamenti", [self.slot], self.targets, "affinity"))
        return Done()

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "card", "slots": [s]} for s in st.hands[seat]]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        slots = as_slots(action)
        if action.get("type") != "card" or len(slots) != 1 or slots[0] not in st.hands[seat] or len(action) != 2:
            raise IllegalAction("亲和 Affinity: give one of your hand cards")

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        self.slot = int(action["slots"][0])
        self.stage = AffinityTask.Stage.GIVEN
        return CONTINUE


# ----------------------------------------------------------------------------- Minerva McGonagall


class Transfiguration(Skill):
    """变形: an equipment card in the hand may be used as 复制成双."""

    key, zh, en = "transfiguration", "变形", "Transfiguration"
    view_as = "geminio"

    def view_as_sets(self, st: HpshaState, seat: int, kn: Knowledge) -> list[list[Slot]]:
        return [[s] for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].category == EQUIPMENT]

    def view_as_ok(self, cards: list[Card]) -> bool:
        return len(cards) == 1 and cards[0].category == EQUIPMENT


class Reprimand(Skill):
    """斥责: when McGonagall is a target of an instant spell that deals damage, after the spell has
    resolved (once, however many damages) she may obtain a card of the caster's equipment.

    ``witness`` remembers, per spell, that she was targeted (TARGET_CHOSEN) and whether that
    spell dealt damage (DAMAGE_AFTER of the same kind) — the flags ``reprimand`` (kind code)
    and ``reprimand_hit``; CARD_RESOLVED then offers the card."""

    key, zh, en = "reprimand", "斥责", "Reprimand"
    points: ClassVar[frozenset[str]] = frozenset({tp.TARGET_CHOSEN, tp.DAMAGE_AFTER, tp.CARD_RESOLVED})

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        f = st.flags[seat]
        if point == tp.TARGET_CHOSEN:
            kind = str(ctx["kind"])
            if ctx.get("target") == seat and ctx.get("user") != seat and is_instant(kind):
                f["reprimand"], f["reprimand_hit"] = KIND_CODE[kind], 0
        elif point == tp.DAMAGE_AFTER and f.get("reprimand") == KIND_CODE.get(str(ctx.get("via")), -1):
            f["reprimand_hit"] = 1

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        if point != tp.CARD_RESOLVED:
            return False
        f, user = st.flags[seat], int(ctx["user"])
        return (f.get("reprimand") == KIND_CODE.get(str(ctx["kind"]), -1) and f.get("reprimand_hit") == 1
                and seat in ctx["targets"] and user != seat and st.alive[user] and bool(st.equip[user])
                and not st.equip_locked(user, seat))  # 莫丽's 持家 keeps her equipment

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "slot": s} for s in st.equip[int(ctx["user"])].values()]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        user, s = int(ctx["user"]), int(action["slot"])
        st.flags[seat].pop("reprimand", None)
        st.flags[seat].pop("reprimand_hit", None)
        st.to_hand(seat, s)
        st.say("rebuke", seat, st.ids([s]), user)
        st.fire(tp.CARD_MOVED, {"owner": user, "to": seat, "slots": [s], "how": "obtain"})


# ----------------------------------------------------------------------------- Severus Snape


class Potions(Skill):
    """魔药 (once per phase): discard an equipment card (hand or equipped, ※) → a wounded character
    recovers 1 HP; then Snape draws 1."""

    key, zh, en = "potions", "魔药", "Potions"

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key):
            return []
        cards = [s for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].category == EQUIPMENT]
        cards += list(st.equip[seat].values())
        hurt = [t for t in st.order_from(seat) if st.hp[t] < st.max_hp[t]]
        return [{"type": "skill", "skill": self.key, "slots": [s], "targets": [t]} for s in cards for t in hurt]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        (t,) = named_targets(action, 1)
        slots = as_slots(action)
        if used_this_turn(st, seat, self.key):
            raise IllegalAction("魔药 Potions: once per phase")
        if len(slots) != 1 or (slots[0] not in st.hands[seat] and slots[0] not in st.equip[seat].values()):
            raise IllegalAction("魔药 Potions: discard one equipment card of your hand or equipment area")
        f = face(slots[0])
        if f is not None and CARDS[f].category != EQUIPMENT:
            raise IllegalAction("魔药 Potions: that card is not an equipment card")
        if not (0 <= t < st.n) or not st.alive[t] or st.hp[t] >= st.max_hp[t]:
            raise IllegalAction("魔药 Potions: name a wounded living character")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        st.say("potions", seat, int(action["targets"][0]))
        st.push(PotionsTask(seat, int(action["slots"][0]), int(action["targets"][0])))


@dataclass
class PotionsTask(Task):
    """Discard the equipment card, the recovery, then Snape's draw."""

    class Stage(Enum):
        DISCARD = auto()
        RECOVER = auto()  # the recovery, then Snape draws
        DONE = auto()

    seat: int
    slot: int
    target: int
    stage: Stage = field(default=Stage.DISCARD, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is PotionsTask.Stage.DISCARD:
            self.stage = PotionsTask.Stage.RECOVER
            return Push(DiscardCardsTask([self.slot], ["skill_name", "potions"]))
        if self.stage is PotionsTask.Stage.RECOVER:
            self.stage = PotionsTask.Stage.DONE
            st.recover(self.target, 1)
            return Push(DrawTask(self.seat, 1))
        return Done()


class Interrogation(Skill):
    """诘难 (once per phase): name a character and a card type; it plays a hand card of that type,
    or (even holding one, ※) refuses and Snape discards one of its cards."""

    key, zh, en = "interrogation", "诘难", "Interrogation"
    play_keys = frozenset({"type", "skill", "targets", "value"})

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key):
            return []
        return [{"type": "skill", "skill": self.key, "targets": [t], "value": v}
                for t in st.order_from(seat) if t != seat for v in TYPES]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        (t,) = named_targets(action, 1)
        if used_this_turn(st, seat, self.key):
            raise IllegalAction("诘难 Interrogation: once per phase")
        if not (0 <= t < st.n) or t == seat or not st.alive[t]:
            raise IllegalAction("诘难 Interrogation: name another living character")
        if action.get("value") not in TYPES:
            raise IllegalAction(f"诘难 Interrogation: name a type, one of {', '.join(TYPES)}")

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        st.push(InterrogationTask(seat, int(action["targets"][0]), str(action["value"])))


@dataclass
class InterrogationTask(Task):
    """Ask the target for a card of the type (it may refuse); refused → Snape discards one of its cards."""

    class Stage(Enum):
        ASK = auto()  # the target plays a card of the type, or refuses
        ANSWERED = auto()  # refused: Snape discards one of its cards
        DONE = auto()

    seat: int
    target: int
    type: str
    played: CardGiven | None = None  # what the target played (None: it refused)
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        t = self.target
        if self.stage is InterrogationTask.Stage.ASK:
            self.stage = InterrogationTask.Stage.ANSWERED
            st.say("interrogation", self.seat, t, self.type)
            return Call(AskCard(t, "skill:interrogation", f"category:{self.type}", "play", target=t,
                                note=["n_skill", "interrogation"]), into="played")
        if self.stage is InterrogationTask.Stage.ANSWERED:
            self.stage = InterrogationTask.Stage.DONE
            if self.played is None and st.alive[t] and st.alive[self.seat]:
                return Push(PickCardTask(self.seat, t, ["hand", "equip"], "discard", Interrogation.key))
            return CONTINUE
        return Done()


# ----------------------------------------------------------------------------- Rubeus Hagrid


class GiantStrength(Skill):
    """巨力 (once per phase): 拼点 with a character; won → this turn his attack range + the rank
    difference; not won → his attack range is 1 for the rest of this turn (weapon or not, ※).
    The result is a continuous effect (flags ``gs_turn``/``gs_bonus``, −1 = lost)."""

    key, zh, en = "giant_strength", "巨力", "Giant Strength"
    play_keys = frozenset({"type", "skill", "targets"})

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key) or not st.hands[seat]:
            return []
        return [{"type": "skill", "skill": self.key, "targets": [t]}
                for t in st.order_from(seat) if t != seat and st.hands[t]]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        (t,) = named_targets(action, 1)
        if used_this_turn(st, seat, self.key):
            raise IllegalAction("巨力 Giant Strength: once per phase")
        if not st.hands[seat] or not (0 <= t < st.n) or t == seat or not st.alive[t] or not st.hands[t]:
            raise IllegalAction("巨力 Giant Strength: 拼点 needs a hand card on both sides")

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        st.say("giant", seat, int(action["targets"][0]))
        st.push(GiantStrengthTask(seat, int(action["targets"][0])))

    def attack_range(self, st: HpshaState, seat: int, rng: int) -> int:
        f = st.flags[seat]
        if f.get("gs_turn") != st.turn_no:
            return rng
        bonus = f.get("gs_bonus", 0)
        return 1 if bonus < 0 else rng + bonus


@dataclass
class GiantStrengthTask(Task):
    """The 拼点 (one Decide of both sides, no reveal, then one Reveal), its result, then both
    cards go to the discard pile."""

    class Stage(Enum):
        DUEL = auto()
        RESULT = auto()  # the range effect; both cards to the discard pile

    seat: int
    target: int
    duel: dict[str, Any] | None = None  # the 拼点's result: {"won": bool, "slots": [mine, theirs]}
    stage: Stage = field(default=Stage.DUEL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is GiantStrengthTask.Stage.DUEL:
            self.stage = GiantStrengthTask.Stage.RESULT
            return Call(PointDuelTask(self.seat, self.target), into="duel")
        r = self.duel
        if r is not None:
            mine, theirs = (CARDS[st.pub[s]].rank for s in r["slots"])
            f = st.flags[self.seat]
            f["gs_turn"] = st.turn_no
            f["gs_bonus"] = mine - theirs if r["won"] else -1
            for s in r["slots"]:
                if s in st.processing:
                    st.to_discard(s)
            st.say("giant_result", self.seat, mine - theirs if r["won"] else 0)
        return Done()


class Recklessness(Skill):
    """鲁莽 (locked): about to deal more than 1 damage at once, Hagrid discards a basic card; if he
    does not, the extra damage is void and every other character within distance 1 of the target
    (measured from the target, ※) takes 1 sourceless damage."""

    key, zh, en, compulsory = "recklessness", "鲁莽", "Recklessness", True
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_CAUSED})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("source") == seat and int(ctx["amount"]) > 1 and st.alive[int(ctx["target"])]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        # the TriggerTask carrying ctx is the top task now; the follow-up writes the amount back into it
        st.push(RecklessTask(seat, int(ctx["target"]), len(st.stack) - 1))


@dataclass
class RecklessTask(Task):
    """Ask Hagrid for a basic card to discard (he may decline; with no hand he is asked nothing).
    Declined → the damage (the trigger's ctx ``amount``) becomes 1 and the neighbours are hit."""

    class Stage(Enum):
        ASK = auto()  # Hagrid may discard a basic card
        PENALTY = auto()  # declined: the amount becomes 1, the neighbours are hit
        DONE = auto()

    seat: int
    target: int
    trigger: int  # stack index of the DAMAGE_CAUSED TriggerTask whose ctx is changed
    discarded: CardGiven | None = None  # the basic card Hagrid discarded (None: declined or no hand)
    stage: Stage = field(default=Stage.ASK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is RecklessTask.Stage.ASK:
            self.stage = RecklessTask.Stage.PENALTY
            if st.hands[self.seat]:
                return Call(AskCard(self.seat, "skill:recklessness", "category:basic", "discard",
                                    note=["n_reckless"]), into="discarded")
            return CONTINUE
        if self.stage is RecklessTask.Stage.PENALTY:
            self.stage = RecklessTask.Stage.DONE
            if self.discarded is not None:
                return CONTINUE
            trig = st.stack[self.trigger]
            if isinstance(trig, TriggerTask) and trig.point == tp.DAMAGE_CAUSED:
                trig.ctx["amount"] = 1
            t = self.target
            near = [s for s in st.order_from(st.current_or_first()) if s != t and st.distance(t, s) <= 1]
            st.say("reckless", near)
            return Push(*(DamageTask(-1, s, 1, "recklessness") for s in near))  # in order from the current
        return Done()


# ----------------------------------------------------------------------------- Sybill Trelawney


class Prophecy(OpensChosenCard):
    """预言: before any judgement, reveal a hand card (it stays open, in her hand); when the
    judgement card takes effect (the final one, after any replacement, ※), same colour → draw 1.
    The follow-up at JUDGE_RESULT is automatic (flag ``prophecy`` = the revealed slot)."""

    key, zh, en = "prophecy", "预言", "Prophecy"
    points: ClassVar[frozenset[str]] = frozenset({tp.JUDGE_BEFORE, tp.JUDGE_RESULT})

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if point == tp.JUDGE_BEFORE:
            st.flags[seat].pop("prophecy", None)  # a judgement that never took effect leaves nothing

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        if point == tp.JUDGE_BEFORE:
            return bool(st.hands[seat])
        return "prophecy" in st.flags[seat]

    def automatic(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return point == tp.JUDGE_RESULT

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "slot": s} for s in st.hands[seat]]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        if point == tp.JUDGE_BEFORE:
            s = int(action["slot"])
            st.flags[seat]["prophecy"] = s
            st.say("prophecy", seat, st.ids([s]))
            return
        s = st.flags[seat].pop("prophecy")
        same = CARDS[st.pub[s]].colour == CARDS[int(ctx["card"])].colour
        st.say("prophecy_result", CARDS[int(ctx["card"])].colour, same)
        if same:
            st.push(DrawTask(seat, 1))


class Trepidation(Skill):
    """惶恐 (locked): more living characters than her max HP → skip her judgement phase (the
    delayed spells stay); otherwise skip her discard phase."""

    key, zh, en, compulsory = "trepidation", "惶恐", "Trepidation", True

    def skips_phase(self, st: HpshaState, seat: int, phase: str) -> bool:
        crowded = sum(st.alive) > st.max_hp[seat]
        return phase == ("judge" if crowded else "discard")


# ----------------------------------------------------------------------------- Argus Filch


class Patrol(Skill):
    """巡视: whenever a character flips from face up to face down, Filch may draw 2."""

    key, zh, en = "patrol", "巡视", "Patrol"
    points: ClassVar[frozenset[str]] = frozenset({tp.FLIPPED})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return True

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(DrawTask(seat, 2))


class Detention(OpensChosenCard):
    """禁闭: after taking damage (once per damage, however many points), Filch may discard one of
    his cards and choose: 1 — the current player cannot activate its skills until the end of this
    turn (flag ``skills_off``; locked skills and effects already in force go on); 2 — he looks at
    the damage source's hand (Show) and sets half of it (rounded down) face down: those cards
    cannot be used or played this turn (flags ``sealed:<slot>``; they may still be discarded,
    given, shown)."""

    key, zh, en = "detention", "禁闭", "Detention"
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_AFTER})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("target") == seat and bool(own_cards(st, seat))

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        src = int(ctx["source"])
        opts = [1, 2] if src >= 0 and src != seat and st.alive[src] else [1]
        return [{"type": "invoke", "slot": s, "option": o} for s in own_cards(st, seat) for o in opts]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(DetentionTask(seat, int(action["option"]), int(ctx["source"]), int(action["slot"])))


@dataclass
class DetentionTask(Task):
    """Discard Filch's card, then option 1 (skills off) or option 2 (Show the source's hand to
    Filch, then he picks the cards to set face down one Decide at a time)."""

    class Stage(Enum):
        DISCARD = auto()  # Filch's card
        EFFECT = auto()  # option 1 at once; option 2 looks at the source's hand
        LOOKED = auto()  # half the cards seen (rounded down) are to be set face down
        SEAL = auto()  # Filch picks them one at a time, then they are sealed

    seat: int
    option: int
    source: int
    slot: int
    k: int = 0
    chosen: list[int] = field(default_factory=list)
    seen: list[int] | None = None  # the source's hand as Filch saw it
    mixed: bool = False  # the source's hand was re-masked before the look, if it had to be
    stage: Stage = field(default=Stage.DISCARD, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is DetentionTask.Stage.DISCARD:
            self.stage = DetentionTask.Stage.EFFECT
            return Push(DiscardCardsTask([self.slot], ["skill_name", "detention"]))
        if self.stage is DetentionTask.Stage.EFFECT:
            if self.option == 1:
                cur = st.current
                if cur >= 0:
                    st.flags[cur]["skills_off"] = st.turn_no
                    st.say("detention_seal", cur)
                return Done()
            if not st.alive[self.source]:
                return Done()
            if not self.mixed:  # the seals are public by slot: a face another seat knows must not tell (H12)
                self.mixed = True
                if remask_groups(st, self.source):
                    return Push(RemaskHandTask(self.source))
            self.stage = DetentionTask.Stage.LOOKED
            return Call(LookAtHandTask(self.seat, self.source), into="seen")
        if self.stage is DetentionTask.Stage.LOOKED:
            self.k = len(self.seen or []) // 2
            self.stage = DetentionTask.Stage.SEAL
            st.say("detention", self.seat, self.source, self.k)
        if len(self.chosen) < self.k and self._pool(st):
            return Decide((self.seat,), "skill:detention")
        f = st.flags[self.source]
        for key in [x for x in f if x.startswith("sealed:") and f[x] != st.turn_no]:
            del f[key]  # old turns' marks are void anyway
        for s in self.chosen:
            f[f"sealed:{s}"] = st.turn_no
        return Done()

    def _pool(self, st: HpshaState) -> list[int]:
        return [s for s in st.hands[self.source] if s not in self.chosen]

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "choose", "value": s} for s in self._pool(st)]

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        self.chosen.append(int(action["value"]))
        return CONTINUE


register_skills("dumbledore", Benevolence(), Affinity())
register_skills("mcgonagall", Transfiguration(), Reprimand())
register_skills("snape", Potions(), Interrogation())
register_skills("hagrid", GiantStrength(), Recklessness())
register_skills("trelawney", Prophecy(), Trepidation())
register_skills("filch", Patrol(), Detention())
