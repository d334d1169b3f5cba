"""The Dark Mark (黑魔标记) and the Order of the Phoenix (凤凰社): eight characters (rules §10.5, §10.6).

* 伏地魔 Lord Voldemort — 黑暗 (locked: his red spells have no effect on others, others' black
  spells have no effect on him: :meth:`Skill.spell_void`) and 复活 (play phase: HP below the HP
  lost → discard the difference, HP becomes the HP lost);
* 卢修斯·马尔福 Lucius Malfoy — 富有 (start phase: display the deck top, then judge until a card
  matches the previous one's colour; obtain one colour) and 阴谋 (play phase, once: give an
  equipment card away, recover 1 HP);
* 小矮星·彼得 Peter Pettigrew — 自残 (another character is about to enter the dying state: lose 2
  HP, it dies at once: timing point DYING_BEFORE) and 藏匿 (locked: strictly lowest HP → no
  damage from characters farther than 1: :meth:`Skill.prevents_damage_from`);
* 贝拉特里克斯·莱斯特兰奇 Bellatrix Lestrange — 酷刑 (a spade as 钻心剜骨: view-as) and 纵火 (a red
  爆破咒 deals damage → draw 2);
* 亚瑟·韦斯莱 Arthur Weasley — 着迷 (locked: reveal the deck top at the start of the turn; his hand
  cards of its suit count as that card this turn: :meth:`Skill.treat_as`) and 司法 (the same card
  name as the hand card he used before → discard another suit, the card takes effect directly:
  no 咒立停, no dodge);
* 莫丽·韦斯莱 Molly Weasley — 持家 (locked: others cannot touch her equipment:
  :meth:`Skill.locks_equipment`) and 忧心 (take 1 of another's damage above 1 and draw 1; at a
  death, discard a red card to deal 1 damage);
* 小天狼星·布莱克 Sirius Black — 冤狱 (damaged by another: judge, not red → it loses 1 HP) and 流亡
  (odd HP: skip the play phase, lose 1 HP, flip a character in range);
* 尼法朵拉·唐克斯 Nymphadora Tonks — 易容 (at the start of her turn obtain another character's skill
  for the turn; once used, damage she deals counts as that character's) and 苦恋 (more than 1
  damage in her turn → discard a card, a character of the other sex recovers 1 HP; once a turn).

Why the pieces look as they do: every pending step is a plain-data task, everything a skill must
remember lives in ``state.flags[seat]`` (ints), and hidden cards move only through the contract
(a discarded or given hand card is opened; a judgement or a display is a Reveal of the deck top).
Where a skill needs the resolution it sits in (the card being used, the damage being dealt, the
turn being played), it reads the task stack below its trigger — plain data, the same on every peer.
The rule decisions are in the package docstring (:mod:`p2php.games.hpsha`), block "Dark Mark and
Order of the Phoenix".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, auto
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar, cast

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.cards_basic import BombardaTask
from p2php.games.hpsha.cards_spells import flip
from p2php.games.hpsha.damage import DamageTask, DeathTask, LoseHpTask
from p2php.games.hpsha.data import CARDS, CHARACTERS, EQUIPMENT, KINDS, SPADE, SUITS, Card, is_delayed
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask, RevealTopTask
from p2php.games.hpsha.play import UseCardTask
from p2php.games.hpsha.skillkit import OpensChosenCard, named_targets, own_cards
from p2php.games.hpsha.tasks import AskCard, AskChoice, Task, as_int, as_slots
from p2php.games.hpsha.triggers import SKILLS, SKILLS_BY_CHARACTER, Skill, register_skills
from p2php.games.hpsha.windows import JudgeTask

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

Face = Callable[[Slot], CardId | None]
KIND_CODE = {k: i + 1 for i, k in enumerate(KINDS)}
"""Card names as small ints (state flags hold ints only)."""
CODE_KIND = {v: k for k, v in KIND_CODE.items()}


# ----------------------------------------------------------------------------- helpers


def _used_card(st: HpshaState) -> tuple[list[int], str]:
    """At CARD_USED / CARD_PLAYED: the slots and the view-as skill of the card being used: the nearest
    UseCardTask or answered AskCard, the task that fired the point.  Read from the top, the trigger task
    (neither) included: ``HpshaState.fire_last`` asks ``available`` before it pushes that task, so a
    reader that skipped the top (``stack[:-1]``) would skip the firing task itself there."""
    for t in reversed(st.stack):
        if isinstance(t, UseCardTask):
            return list(t.slots), t.skill
        if isinstance(t, AskCard) and t.result is not None:
            return list(t.result["slots"]), str(t.result.get("skill") or "")
    return [], ""


def _damage_task(st: HpshaState) -> DamageTask | None:
    """At a damage timing point: the damage being resolved (the nearest DamageTask below the trigger)."""
    for t in reversed(st.stack):
        if isinstance(t, DamageTask):
            return t
    return None


def _at_turn_end(st: HpshaState, task: Task) -> None:
    """Run ``task`` when the current turn is over, whatever happens in it (even if the current
    player dies): it goes into the stack right under the running TurnTask."""
    from p2php.games.hpsha.flow import TurnTask

    for i in range(len(st.stack) - 1, -1, -1):
        if isinstance(st.stack[i], TurnTask):
            st.stack.insert(i, task)
            return
    st.push(task)  # pragma: no cover - turn-start skills always run inside a turn




@dataclass
class RecoverTask(Task):
    """Recover HP after the tasks pushed above it (a cost paid first, then the effect)."""

    seat: int
    n: int

    def run(self, st: HpshaState) -> Outcome:
        st.recover(self.seat, self.n)
        return Done()


# ----------------------------------------------------------------------------- Lord Voldemort


class Darkness(Skill):
    """黑暗 (locked): red spells Voldemort uses have no effect on other characters; black spells other
    characters use on him have no effect.  The spell is still used (and spent) but does not resolve
    on that character: no 咒立停 window, no effect (※).  阿瓦达索命 is used by its first user on
    itself, so when it moves on to him it is judged as usual (※)."""

    key, zh, en, compulsory = "darkness", "黑暗", "Darkness", True

    def spell_void(self, st: HpshaState, owner: int, user: int, kind: str, target: int, colour: str) -> bool:
        if user == owner and target != owner:
            return colour == "red"
        if target == owner and user != owner and user >= 0:
            return colour == "black"
        return False


class Rebirth(Skill):
    """复活 (play phase): HP below the HP lost → discard that many hand cards more, and recover to the
    HP lost (max 4, HP 1: discard 2 → HP 3; max 5: HP 1 → discard 3 → 4, HP 2 → discard 1 → 3, ※)."""

    key, zh, en = "rebirth", "复活", "Rebirth"

    @staticmethod
    def _need(st: HpshaState, seat: int) -> int:
        lost = st.max_hp[seat] - st.hp[seat]
        return lost - st.hp[seat] if st.hp[seat] < lost else 0

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        d = self._need(st, seat)
        if d <= 0 or len(st.hands[seat]) < d:
            return []
        return [{"type": "skill", "skill": self.key, "slots": list(c), "targets": []}
                for c in combinations(st.hands[seat], d)]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        named_targets(action, 0)
        slots = as_slots(action)
        d = self._need(st, seat)
        if d <= 0:
            raise IllegalAction("复活 Rebirth: only while your HP is below the HP you have lost")
        if len(slots) != d or any(s not in st.hands[seat] for s in slots):
            raise IllegalAction(f"复活 Rebirth: discard exactly {d} of your hand cards")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        slots = [int(s) for s in action["slots"]]
        st.say("rebirth", seat, len(slots), st.hp[seat] + len(slots))
        st.push(RecoverTask(seat, len(slots)))  # HP + difference = the HP lost before
        st.push(DiscardCardsTask(slots, ["skill_name", "rebirth"]))


# ----------------------------------------------------------------------------- Lucius Malfoy


class Wealth(Skill):
    """富有: in the start phase, display the deck top, then judge; while the judgement card's colour
    differs from the previous card's he may judge again; then he obtains the cards of one colour
    and discards the rest.  The displayed card is no judgement card (no 捉弄 on it); the card that
    ends the chain is a judgement card but cannot be obtained (※)."""

    key, zh, en = "wealth", "富有", "Wealth"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_START})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and ctx.get("phase") == "start" and bool(st.deck or st.discard_available())

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(WealthTask(seat))


@dataclass
class WealthTask(Task):
    """The display, the chain of judgements (each asks whether to go on), the colour choice.
    Every card stays in the processing zone until the end (no reshuffle can take it).

    Stages: ``DISPLAY`` (reveal the deck top), ``DISPLAYED`` (it is the first card), ``JUDGE``,
    ``JUDGED`` (the chain ends on the same colour, else Lucius is asked whether to go on),
    ``GO_ON`` (his answer), ``CHOOSE_COLOUR``, ``TAKE`` (he obtains that colour, the rest is discarded).
    """

    class Stage(Enum):
        DISPLAY = auto()
        DISPLAYED = auto()
        JUDGE = auto()
        JUDGED = auto()
        GO_ON = auto()
        CHOOSE_COLOUR = auto()
        TAKE = auto()

    seat: int
    cards: list[int] = field(default_factory=list)
    last: int = -1  # the card that ended the chain (same colour as the one before)
    shown: list[int] | None = None  # the displayed card (RevealTopTask's slots)
    face: int | None = None  # the latest judgement card (JudgeTask's card id, -1: none)
    go_on: str | None = None  # "continue" or "stop"
    colour: str | None = None  # the colour he obtains
    stage: Stage = field(default=Stage.DISPLAY, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is WealthTask.Stage.DISPLAY:
            self.stage = WealthTask.Stage.DISPLAYED
            return Call(RevealTopTask(1), into="shown")
        if self.stage is WealthTask.Stage.DISPLAYED:
            if not self.shown:
                return Done()
            self.cards = [self.shown[0]]
            st.say("rich_show", self.seat, st.ids(self.cards))
            self.stage = WealthTask.Stage.JUDGE
        if self.stage is WealthTask.Stage.JUDGE:
            self.stage = WealthTask.Stage.JUDGED
            self.face = None
            return Call(JudgeTask(self.seat, Wealth.key), into="face")
        if self.stage is WealthTask.Stage.JUDGED:
            face = cast(int, self.face)
            self.stage = WealthTask.Stage.CHOOSE_COLOUR
            if face >= 0:
                slot = next(s for s in reversed(st.discard) if st.pub.get(s) == face)
                st.to_processing(slot)  # kept with the others until Lucius takes his colour
                before = CARDS[st.pub[self.cards[-1]]].colour
                self.cards.append(slot)
                if CARDS[face].colour == before:
                    self.last = slot
                else:
                    self.stage = WealthTask.Stage.GO_ON
                    self.go_on = None
                    return Call(AskChoice(self.seat, "wealth:continue", ["continue", "stop"]), into="go_on")
        if self.stage is WealthTask.Stage.GO_ON:
            self.stage = WealthTask.Stage.JUDGE if self.go_on == "continue" else WealthTask.Stage.CHOOSE_COLOUR
            return CONTINUE
        if self.stage is WealthTask.Stage.CHOOSE_COLOUR:
            pool = [s for s in self.cards if s != self.last]
            colours = sorted({CARDS[st.pub[s]].colour for s in pool})
            self.stage = WealthTask.Stage.TAKE
            if len(colours) > 1:
                return Call(AskChoice(self.seat, "wealth:colour", colours), into="colour")
            self.colour = colours[0]
        colour = str(self.colour)
        take = [s for s in self.cards if s != self.last and CARDS[st.pub[s]].colour == colour]
        rest = [s for s in self.cards if s not in take]
        for s in take:
            st.to_hand(self.seat, s)
        for s in rest:
            st.to_discard(s)
        st.say("rich_take", self.seat, st.ids(take), st.ids(rest))
        return Done()


class Scheme(Skill):
    """阴谋 (once per phase): give an equipment card (from the hand, opened, or equipped, ※) to
    another character and recover 1 HP."""

    key, zh, en = "scheme", "阴谋", "Scheme"

    @staticmethod
    def _used(st: HpshaState, seat: int) -> bool:
        return st.flags[seat].get("scheme_turn") == st.turn_no

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if self._used(st, seat):
            return []
        cards = [s for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].category == EQUIPMENT]
        cards += list(st.equip[seat].values())
        return [{"type": "skill", "skill": self.key, "slots": [s], "targets": [t]}
                for s in cards for t in st.order_from(seat) if t != seat]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Face) -> None:
        (t,) = named_targets(action, 1)
        slots = as_slots(action)
        if self._used(st, seat):
            raise IllegalAction("阴谋 Scheme: once per phase")
        if len(slots) != 1 or slots[0] not in own_cards(st, seat):
            raise IllegalAction("阴谋 Scheme: give one equipment card of your hand or equipment area")
        f = face(slots[0])
        if f is not None and CARDS[f].category != EQUIPMENT:
            raise IllegalAction("阴谋 Scheme: that card is not an equipment card")
        if not (0 <= t < st.n) or t == seat or not st.alive[t]:
            raise IllegalAction("阴谋 Scheme: give it to another living character")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        st.flags[seat]["scheme_turn"] = st.turn_no
        s, t = int(action["slots"][0]), int(action["targets"][0])
        st.to_hand(t, s)
        st.say("scheme", seat, st.ids([s]), t)
        st.recover(seat, 1)
        st.fire(tp.CARD_MOVED, {"owner": seat, "to": t, "slots": [s], "how": "give"})


# ----------------------------------------------------------------------------- Peter Pettigrew


class SelfMutilation(Skill):
    """自残: when another character is about to enter the dying state, Pettigrew may lose 2 HP; it then
    dies at once, skipping the dying state — after his own dying state, even if he died (※)."""

    key, zh, en = "self_mutilation", "自残", "Self-Mutilation"
    points: ClassVar[frozenset[str]] = frozenset({tp.DYING_BEFORE})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        who = int(ctx["who"])
        return who != seat and st.alive[who] and st.hp[who] <= 0

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(SelfMutilationTask(seat, int(ctx["who"])))


@dataclass
class SelfMutilationTask(Task):
    """Pettigrew's HP loss (his dying state, if any, first), then the other character's death.
    Stages: ``LOSE_HP``, ``KILL`` (the other character dies, skipping its dying state), ``DONE``."""

    class Stage(Enum):
        LOSE_HP = auto()
        KILL = auto()
        DONE = auto()

    seat: int
    who: int
    stage: Stage = field(default=Stage.LOSE_HP, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is SelfMutilationTask.Stage.LOSE_HP:
            self.stage = SelfMutilationTask.Stage.KILL
            return Push(LoseHpTask(self.seat, 2, "self_mutilation"))
        if self.stage is SelfMutilationTask.Stage.KILL:
            self.stage = SelfMutilationTask.Stage.DONE
            if st.alive[self.who]:
                st.say("self_harm_dies", self.who)
                return Push(DeathTask(self.who, self.seat))
            return CONTINUE
        return Done()


class Hiding(Skill):
    """藏匿 (locked): while Pettigrew's HP is strictly the lowest on the field, characters whose distance
    to him is greater than 1 cannot deal damage to him (gone at once on a tie, ※)."""

    key, zh, en, compulsory = "hiding", "藏匿", "Hiding", True

    def prevents_damage_from(self, st: HpshaState, owner: int, source: int) -> bool:
        if source < 0 or source == owner:
            return False
        others = [st.hp[s] for s in range(st.n) if st.alive[s] and s != owner]
        return bool(others) and st.hp[owner] < min(others) and st.distance(source, owner) > 1


# ----------------------------------------------------------------------------- Bellatrix Lestrange


class Torture(Skill):
    """酷刑: any spade hand card may be used as 钻心剜骨."""

    key, zh, en = "torture", "酷刑", "Torture"
    view_as = "crucio"

    def view_as_sets(self, st: HpshaState, seat: int, kn: Knowledge) -> list[list[Slot]]:
        return [[s] for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].suit == SPADE]

    def view_as_ok(self, cards: list[Card]) -> bool:
        return len(cards) == 1 and cards[0].suit == SPADE


class Arson(Skill):
    """纵火: whenever any character's red 爆破咒 deals damage, Bellatrix may draw 2.  The colour is that
    of the card(s) used as the 爆破咒 (※: a card whose name changed keeps its colour)."""

    key, zh, en = "arson", "纵火", "Arson"
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_AFTER})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        if ctx.get("via") != "bombarda":
            return False
        for t in reversed(st.stack):
            if isinstance(t, BombardaTask):
                return st.colour_of(t.slots) == "red"
        return False

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(DrawTask(seat, 2))


# ----------------------------------------------------------------------------- Arthur Weasley


class Fascination(Skill):
    """着迷 (locked): at the start of his turn Arthur reveals the deck top; unless it is an equipment
    card or a delayed spell, this turn his hand cards of its suit count as that card.  The card
    belongs to no one and stays on the table until the end of the turn (※)."""

    key, zh, en, compulsory = "fascination", "着迷", "Fascination", True
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_START})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and bool(st.deck or st.discard_available())

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(FascinationTask(seat))

    def treat_as(self, st: HpshaState, owner: int, card: Card) -> str | None:
        f = st.flags[owner]
        if f.get("fasc_turn") != st.turn_no or st.current != owner or SUITS[f["fasc_suit"]] != card.suit:
            return None
        return CODE_KIND[f["fasc_kind"]]


@dataclass
class FascinationTask(Task):
    """Reveal the deck top (it stays in the processing zone as the indicator) and set the effect.
    Stages: ``REVEAL``, ``APPLY`` (the revealed card's name and suit, unless it is equipment or delayed)."""

    class Stage(Enum):
        REVEAL = auto()
        APPLY = auto()

    seat: int
    shown: list[int] | None = None  # the revealed card (RevealTopTask's slots)
    stage: Stage = field(default=Stage.REVEAL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is FascinationTask.Stage.REVEAL:
            self.stage = FascinationTask.Stage.APPLY
            return Call(RevealTopTask(1), into="shown")
        if self.shown:
            slot = self.shown[0]
            card = st.card(slot)
            f = st.flags[self.seat]
            if card.category == EQUIPMENT or is_delayed(card.kind):
                st.say("fasc_void", st.ids([slot]))
            else:
                f["fasc_turn"], f["fasc_kind"] = st.turn_no, KIND_CODE[card.kind]
                f["fasc_suit"] = SUITS.index(card.suit)
                st.say("fasc", self.seat, card.suit, card.kind)
            _at_turn_end(st, FascinationEndTask(self.seat, slot))
        return Done()


@dataclass
class FascinationEndTask(Task):
    """At the end of Arthur's turn the indicator goes to the discard pile and the effect ends."""

    seat: int
    slot: int

    def run(self, st: HpshaState) -> Outcome:
        for k in ("fasc_turn", "fasc_kind", "fasc_suit"):
            st.flags[self.seat].pop(k, None)
        if self.slot in st.processing:
            st.to_discard(self.slot)
        return Done()


class Justice(OpensChosenCard):
    """司法: in his turn, when a hand card Arthur uses has the same name as the hand card he used just
    before it (any suit: "the same type is enough", ※, names changed by 着迷 included), he may, before
    it resolves, discard a hand card of another suit: it takes effect directly — no 咒立停 can cancel
    it and a 爆破咒 cannot be dodged (delayed spells excepted).

    ``witness`` keeps the names of the last two hand cards he used this turn (flags ``justice_last``
    and ``justice_cur``, stamped ``justice_turn``) and the suits of the last one; ``direct`` is the
    name made direct.  (Stamped rather than cleared at his turn start: 易容 may lend it.)"""

    key, zh, en = "justice", "司法", "Justice"
    points: ClassVar[frozenset[str]] = frozenset({tp.CARD_USED})

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if ctx.get("user") != seat or st.current != seat:
            return
        slots, _skill = _used_card(st)
        if not slots:
            return
        f, code = st.flags[seat], KIND_CODE[str(ctx["kind"])]
        if f.get("justice_turn") != st.turn_no:  # a new turn: nothing used before
            for k in ("justice_cur", "direct"):
                f.pop(k, None)
            f["justice_turn"] = st.turn_no
        f["justice_last"], f["justice_cur"] = f.get("justice_cur", 0), code
        f["justice_suits"] = sum(1 << SUITS.index(CARDS[st.pub[s]].suit) for s in slots if s in st.pub)
        if f.get("direct") == code:
            del f["direct"]  # the previous card of this name is over

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        f, kind = st.flags[seat], str(ctx.get("kind"))
        return (ctx.get("user") == seat and st.current == seat and f.get("justice_turn") == st.turn_no
                and f.get("justice_last") == KIND_CODE[kind]
                and f.get("justice_cur") == KIND_CODE[kind] and (kind == "bombarda" or KINDS[kind].sub == "instant")
                and bool(st.hands[seat]))

    def _suit_ok(self, st: HpshaState, seat: int, face: int) -> bool:
        return not (st.flags[seat].get("justice_suits", 0) >> SUITS.index(CARDS[face].suit)) & 1

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "slot": s} for s in st.hands[seat]
                if (f := kn.face(s)) is not None and self._suit_ok(st, seat, f)]

    def check_offer(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, kn: Knowledge
    ) -> None:
        s = as_int(action, "slot")
        if action.get("type") != "invoke" or s not in st.hands[seat] or len(action) != 2:
            raise IllegalAction("司法 Justice: discard one of your hand cards")
        f = kn.face(s)
        if f is not None and not self._suit_ok(st, seat, f):
            raise IllegalAction("司法 Justice: the card must be of another suit than the card used")

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        s = int(action["slot"])
        if not self._suit_ok(st, seat, st.pub[s]):
            raise IllegalAction("司法 Justice: the card must be of another suit than the card used")
        st.to_discard(s)
        st.flags[seat]["direct"] = KIND_CODE[str(ctx["kind"])]
        st.say("justice", seat, st.ids([s]), str(ctx["kind"]))

    @staticmethod
    def _direct(st: HpshaState, seat: int) -> int:
        f = st.flags[seat]
        return f.get("direct", 0) if st.current == seat and f.get("justice_turn") == st.turn_no else 0

    def uncounterable(self, st: HpshaState, seat: int, kind: str) -> bool:
        return self._direct(st, seat) == KIND_CODE.get(kind)

    def undodgeable(self, st: HpshaState, owner: int) -> bool:
        return self._direct(st, owner) == KIND_CODE["bombarda"]


# ----------------------------------------------------------------------------- Molly Weasley


class Homemaker(Skill):
    """持家 (locked): other characters cannot move, discard, obtain or replace her equipped cards."""

    key, zh, en, compulsory = "homemaker", "持家", "Homemaker", True

    def locks_equipment(self, st: HpshaState, owner: int, actor: int) -> bool:
        return actor != owner


class Worry(Skill):
    """忧心: when another character is about to take more than 1 damage (after 呼神护卫, ※), Molly may
    draw 1 and take 1 point of it in its place (same source, same attribute, ※); when a character
    dies, she may discard a red hand card to deal 1 damage to a character."""

    key, zh, en = "worry", "忧心", "Worry"
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_CAUSED, tp.DEATH})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        if point == tp.DAMAGE_CAUSED:
            t = int(ctx["target"])
            return t != seat and st.alive[t] and int(ctx["amount"]) > 1
        return bool(st.hands[seat])

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        if point == tp.DAMAGE_CAUSED:
            return [{"type": "invoke"}]
        red = [s for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].red]
        return [{"type": "invoke", "slot": s, "target": t} for s in red for t in st.order_from(seat)]

    def check_offer(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, kn: Knowledge
    ) -> None:
        if point == tp.DAMAGE_CAUSED:
            super().check_offer(st, seat, point, ctx, action, kn)
            return
        s, t = as_int(action, "slot"), as_int(action, "target")
        if action.get("type") != "invoke" or s not in st.hands[seat] or len(action) != 3:
            raise IllegalAction("忧心 Worry: discard one of your red hand cards")
        if not (0 <= t < st.n) or not st.alive[t]:
            raise IllegalAction("忧心 Worry: name a living character")
        f = kn.face(s)
        if f is not None and not CARDS[f].red:
            raise IllegalAction("忧心 Worry: the card must be red")

    def reveals(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action) -> tuple[Slot, ...]:
        return st.unopened([as_int(action, "slot")]) if point == tp.DEATH else ()

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        if point == tp.DAMAGE_CAUSED:
            dmg = _damage_task(st)
            ctx["amount"] = int(ctx["amount"]) - 1  # read back by the DamageTask after DAMAGE_CAUSED
            st.say("worry_take", seat, int(ctx["target"]))
            nature = dmg.nature if dmg is not None else ""
            st.push(DamageTask(int(ctx["source"]), seat, 1, str(ctx["via"]), nature=nature))
            st.push(DrawTask(seat, 1))
            return
        s, t = int(action["slot"]), int(action["target"])
        if not CARDS[st.pub[s]].red:
            raise IllegalAction("忧心 Worry: the card must be red")
        st.to_discard(s)
        st.say("worry_hit", seat, st.ids([s]), t)
        st.push(DamageTask(seat, t, 1, "worry"))


# ----------------------------------------------------------------------------- Sirius Black


class WrongfulImprisonment(Skill):
    """冤狱: each time another character deals damage to Sirius, he may judge; not red → that
    character loses 1 HP (red: nothing happens, ※)."""

    key, zh, en = "wrongful_imprisonment", "冤狱", "Wrongful Imprisonment"
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_AFTER})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        src = int(ctx["source"])
        return ctx.get("target") == seat and 0 <= src != seat and st.alive[src]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(ImprisonmentTask(seat, int(ctx["source"])))


@dataclass
class ImprisonmentTask(Task):
    """The judgement (replaceable), then the HP loss on a black card.
    Stages: ``JUDGE``, ``JUDGED`` (not red: the source loses 1 HP), ``DONE``."""

    class Stage(Enum):
        JUDGE = auto()
        JUDGED = auto()
        DONE = auto()

    seat: int
    source: int
    face: int | None = None  # the judgement card (JudgeTask's card id, -1: none)
    stage: Stage = field(default=Stage.JUDGE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is ImprisonmentTask.Stage.JUDGE:
            self.stage = ImprisonmentTask.Stage.JUDGED
            return Call(JudgeTask(self.seat, WrongfulImprisonment.key), into="face")
        if self.stage is ImprisonmentTask.Stage.JUDGED:
            self.stage = ImprisonmentTask.Stage.DONE
            face = cast(int, self.face)
            if face >= 0 and not CARDS[face].red and st.alive[self.source]:
                return Push(LoseHpTask(self.source, 1, "wrongful_imprisonment"))
            st.say("wrongful_none")
            return CONTINUE
        return Done()


class Fugitive(Skill):
    """流亡: in his turn, with odd HP, before the play phase begins, Sirius may skip it and lose 1 HP,
    then flip another character within his attack range (chosen when he declares it)."""

    key, zh, en = "fugitive", "流亡", "Fugitive"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_BEFORE})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return (ctx.get("who") == seat and ctx.get("phase") == "play" and st.hp[seat] % 2 == 1
                and not st.skips(seat, "play") and any(st.in_range(seat, t) for t in range(st.n)))

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "target": t} for t in st.order_from(seat) if st.in_range(seat, t)]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.skip.append("play")
        st.push(FugitiveTask(seat, int(action["target"])))


@dataclass
class FugitiveTask(Task):
    """The HP loss (a dying state, if any, first), then the flip (even if Sirius died meanwhile).
    Stages: ``LOSE_HP``, ``FLIP``."""

    class Stage(Enum):
        LOSE_HP = auto()
        FLIP = auto()

    seat: int
    target: int
    stage: Stage = field(default=Stage.LOSE_HP, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is FugitiveTask.Stage.LOSE_HP:
            self.stage = FugitiveTask.Stage.FLIP
            return Push(LoseHpTask(self.seat, 1, "fugitive"))
        if st.alive[self.target]:
            flip(st, self.target)
        return Done()


# ----------------------------------------------------------------------------- Nymphadora Tonks


def _borrowable(st: HpshaState, seat: int) -> list[str]:
    """易容's options: "<seat>/<skill key>" for every skill of every other living character."""
    out = []
    for s in st.order_from(seat):
        if s != seat and st.char[s] >= 0:
            out += [f"{s}/{sk.key}" for sk in SKILLS_BY_CHARACTER.get(CHARACTERS[st.char[s]].key, ())]
    return out


class Disguise(Skill):
    """易容: at the start of her turn Tonks obtains one skill of another living character (declared
    then, ※) and may use it this turn.  Once she has used it, damage she deals this turn counts as
    dealt by that character (sourceless if it has died)."""

    key, zh, en, compulsory = "disguise", "易容", "Disguise", True
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_START})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and bool(_borrowable(st, seat))

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(DisguiseTask(seat))

    def damage_source(self, st: HpshaState, owner: int) -> int | None:
        f = st.flags[owner]
        if "borrowed" not in f or f.get("disguise_used") != st.turn_no or st.current != owner:
            return None
        other = f["disguise_seat"]
        return other if st.alive[other] else -1


@dataclass
class DisguiseTask(Task):
    """Tonks names the skill (a choice among the other characters' skills), which she holds until
    the end of the turn (flag ``borrowed``: character index * 10 + position).
    Stages: ``CHOOSE`` (asked only when there is more than one skill), ``OBTAIN``."""

    class Stage(Enum):
        CHOOSE = auto()
        OBTAIN = auto()

    seat: int
    choice: str | None = None  # "<seat>/<skill key>"
    stage: Stage = field(default=Stage.CHOOSE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is DisguiseTask.Stage.CHOOSE:
            self.stage = DisguiseTask.Stage.OBTAIN
            opts = _borrowable(st, self.seat)
            if len(opts) == 1:
                self.choice = opts[0]
                return CONTINUE
            return Call(AskChoice(self.seat, "skill:disguise", opts), into="choice")
        owner, key = str(self.choice).split("/")
        other = int(owner)
        own = SKILLS_BY_CHARACTER[CHARACTERS[st.char[other]].key]
        pos = next(i for i, sk in enumerate(own) if sk.key == key)
        f = st.flags[self.seat]
        f["borrowed"], f["disguise_seat"] = st.char[other] * 10 + pos, other
        st.characters_changed()
        st.say("disguise", self.seat, other, own[pos].key)
        _at_turn_end(st, DisguiseEndTask(self.seat))
        return Done()


@dataclass
class DisguiseEndTask(Task):
    """The end of Tonks's turn: the obtained skill is gone."""

    seat: int

    def run(self, st: HpshaState) -> Outcome:
        for k in ("borrowed", "disguise_seat", "disguise_used"):
            st.flags[self.seat].pop(k, None)
        st.characters_changed()
        return Done()


class _Disguised(Skill):
    """The copy of a skill that 易容 lends Tonks: a subclass of the original's class (so it behaves
    exactly like it, every hook included) with its own key (``disguise:<key>``, so its per-turn
    flags are hers) that records when she uses it (flag ``disguise_used``).  A view-as use is seen
    at CARD_USED / CARD_PLAYED from the card being used."""

    inner: ClassVar[str] = ""

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if point in (tp.CARD_USED, tp.CARD_PLAYED) and ctx.get("user") == seat and _used_card(st)[1] == self.key:
            st.flags[seat]["disguise_used"] = st.turn_no
        if point in SKILLS[self.inner].points:
            super().witness(st, seat, point, ctx)

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return point in SKILLS[self.inner].points and super().available(st, seat, point, ctx)

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.flags[seat]["disguise_used"] = st.turn_no
        super().invoke(st, seat, point, ctx, action, faces)

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        st.flags[seat]["disguise_used"] = st.turn_no
        super().play(st, seat, action)


_LENT: dict[int, Skill] = {}


def borrowed(code: int) -> Skill:
    """The skill 易容 lent (code = character index * 10 + its position), made once and registered."""
    sk = _LENT.get(code)
    if sk is None:
        inner = SKILLS_BY_CHARACTER[CHARACTERS[code // 10].key][code % 10]
        cls = type(f"Disguised{type(inner).__name__}", (_Disguised, type(inner)), {
            "key": f"disguise:{inner.key}", "zh": f"{inner.zh}（易容）", "en": f"{inner.en} (Disguise)",
            "inner": inner.key, "points": inner.points | {tp.CARD_USED, tp.CARD_PLAYED},
            "__doc__": f"易容's copy of {inner.zh} {inner.en}."})
        sk = _LENT[code] = cast(Skill, cls())
        SKILLS[sk.key] = sk
    return sk


class UnrequitedLove(Skill):
    """苦恋 (once per turn): when the damage dealt during her turn (to anyone, from anyone, in any
    phase, ※) adds up to more than 1, Tonks may discard one of her cards to make a character of the
    other sex recover 1 HP.  ``witness`` adds up the turn's damage (flags ``ul_turn``, ``ul_dmg``)."""

    key, zh, en = "unrequited_love", "苦恋", "Unrequited Love"
    points: ClassVar[frozenset[str]] = frozenset({tp.DAMAGE_AFTER})

    def witness(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        if st.current != seat:
            return
        f = st.flags[seat]
        if f.get("ul_turn") != st.turn_no:
            f["ul_turn"], f["ul_dmg"] = st.turn_no, 0
        f["ul_dmg"] += int(ctx["amount"])

    def _partners(self, st: HpshaState, seat: int) -> list[int]:
        g = st.gender(seat)
        return [t for t in st.order_from(seat) if st.gender(t) and st.gender(t) != g]

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        f = st.flags[seat]
        return (st.current == seat and f.get("ul_turn") == st.turn_no and f.get("ul_dmg", 0) > 1
                and f.get("ul_used") != st.turn_no and bool(own_cards(st, seat)) and bool(self._partners(st, seat)))

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        partners = self._partners(st, seat)
        return [{"type": "invoke", "slot": s, "target": t} for s in own_cards(st, seat) for t in partners]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.flags[seat]["ul_used"] = st.turn_no
        t = int(action["target"])
        st.say("unrequited", seat, t)
        st.push(RecoverTask(t, 1))
        st.push(DiscardCardsTask([int(action["slot"])], ["skill_name", "unrequited_love"]))


register_skills("voldemort", Darkness(), Rebirth())
register_skills("lucius", Wealth(), Scheme())
register_skills("pettigrew", SelfMutilation(), Hiding())
register_skills("bellatrix", Torture(), Arson())
register_skills("arthur", Fascination(), Justice())
register_skills("molly", Homemaker(), Worry())
register_skills("sirius", WrongfulImprisonment(), Fugitive())
register_skills("tonks", Disguise(), UnrequitedLove())
