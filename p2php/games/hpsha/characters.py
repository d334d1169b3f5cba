"""The first five characters, which together exercise every kind of hook of
:mod:`p2php.games.hpsha.triggers` (the other twenty live in ``chars_students``,
``chars_staff`` and ``chars_adults``):

* 哈利·波特 Harry Potter — 万幸 (locked damage limit) and 擅飞 (turn-start choice +
  distance override, a marker that lasts until his next real turn);
* 赫敏·格兰杰 Hermione Granger — 聪颖 (on using an instant spell) and 解危 (when another
  character enters the dying state; the card is obtained after the dying state);
* 德拉科·马尔福 Draco Malfoy — 捉弄 (judgement replacement) and 嘲哂 (after another
  character's discard phase);
* 莱姆斯·卢平 Remus Lupin — 呼神 (two red cards as 呼神护卫: view-as), 月圆 (locked:
  skip discard phase, HP loss at the end of the turn);
* 菲利乌斯·弗立维 Filius Flitwick — 魔咒 (black card as 咒立停: view-as) and 缄默
  (locked: his instant spells cannot be countered).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Randomness, Reveal, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.damage import LoseHpTask
from p2php.games.hpsha.data import CARDS, Card, is_instant
from p2php.games.hpsha.moves import DrawTask
from p2php.games.hpsha.skillkit import OpensChosenCard
from p2php.games.hpsha.tasks import Task, as_int
from p2php.games.hpsha.triggers import Skill, register_skills
from p2php.rng import DetRng

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


# ----------------------------------------------------------------------------- Harry Potter


class StrokeOfLuck(Skill):
    """万幸 (locked): damage at most once in each complete turn."""

    key, zh, en, compulsory = "stroke_of_luck", "万幸", "Stroke of Luck", True

    def prevents_damage(self, st: HpshaState, seat: int) -> bool:
        return st.turn_no > 0 and st.flags[seat].get("hit_turn") == st.turn_no


class NaturalFlyer(Skill):
    """擅飞: at the start of the turn designate a character; in this turn Harry's distance to X is
    the designated character's distance to X; outside it, X's distance to Harry is X's distance to
    the designated character — until Harry's next (real) turn starts."""

    key, zh, en = "natural_flyer", "擅飞", "Natural Flyer"
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_START})

    def on_own_turn_start(self, st: HpshaState, seat: int) -> None:
        st.flags[seat].pop("flyer", None)

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return bool(ctx.get("who") == seat)

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "target": t} for t in st.order_from(seat) if t != seat]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.flags[seat]["flyer"] = int(action["target"])
        st.say("flyer", int(action["target"]))

    def distance_override(self, st: HpshaState, owner: int, a: int, b: int, depth: int) -> int | None:
        d = st.flags[owner].get("flyer")
        if d is None or not st.alive[d]:
            return None
        if a == owner and st.current == owner:
            return 1 if b == d else st.distance(d, b, depth + 1)
        if b == owner and st.current != owner:
            return 1 if a == d else st.distance(a, d, depth + 1)
        return None


# ----------------------------------------------------------------------------- Hermione Granger


class Brilliance(Skill):
    """聪颖: whenever Hermione uses an instant spell, she may draw 1 card before it resolves."""

    key, zh, en = "brilliance", "聪颖", "Brilliance"
    points: ClassVar[frozenset[str]] = frozenset({tp.CARD_USED})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return bool(ctx.get("user") == seat and is_instant(str(ctx.get("kind"))))

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(DrawTask(seat, 1))


class Rescue(Skill):
    """解危: when another character enters the dying state, show one of its hand cards (Hermione
    picks blind); red → it recovers 1 HP; Hermione obtains the card after the dying state."""

    key, zh, en = "rescue", "解危", "Rescue"
    points: ClassVar[frozenset[str]] = frozenset({tp.ENTER_DYING})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        who = int(ctx["who"])
        return who != seat and bool(_pickable(st, who))

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        return [{"type": "invoke", "slot": s} for s in _pickable(st, int(ctx["who"]))]

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(RescueTask(seat, int(ctx["who"]), int(action["slot"]), int(ctx["uid"])))


@dataclass
class RescueTask(Task):
    """解危's show (a Reveal of one hand card), the red test, and the promise of the card.

    Hermione picks blind, but by slot: so when another seat may know a face in the hand (an opened card, one
    she gave or saw), the place is drawn with joint randomness instead, a blind pick's odds (decision 28).  A
    re-mask would not do: it mixes per deck family and keeps each group's places, so the place she named chose the
    group, and a group of faces she knew (two red cards she gave) was a sure recovery (review of 3daf63b); a known
    face alone of its family, or one that keeps its slot, was not mixed at all (review of 16e4f42)."""

    hermione: int
    who: int
    slot: int
    uid: int
    mixed: bool = False  # whether the place must be drawn was decided
    draw: bool = False  # a face in the hand another seat may know: the place is drawn (Randomness), not hers

    def run(self, st: HpshaState) -> Outcome:
        if not self.mixed:
            self.mixed = True
            hand = _pickable(st, self.who)
            if self.slot in hand and any(_known_to_another(st, self.who, s) for s in hand):
                # Any known face: a re-mask mixes per deck family, and the place she names picks the family
                # group, so a group of faces she knows was hers to choose (both red: a sure recovery).
                self.draw = True  # (the card drawn is opened to all: no re-mask needed)
                return Randomness("rescue")
        if self.slot not in st.pub:
            return Reveal((self.slot,))
        card = st.card(self.slot)
        st.say("rescue_show", self.hermione, st.ids([self.slot]), self.who)
        if card.red:
            st.recover(self.who, 1)
        st.after_dying.setdefault(self.uid, []).append([self.hermione, self.slot])
        st.set_aside.append(self.slot)
        return Done()

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Randomness):
            hand = _pickable(st, self.who)
            self.slot = hand[DetRng(random).below(len(hand))]
        return CONTINUE  # the card is open now: the red test


def _pickable(st: HpshaState, seat: int) -> list[int]:
    """``seat``'s hand cards 解危 may show: not one an earlier 解危 of this dying state set aside (it stays in the
    hand list until then, shown and promised: showing it again healed twice with one card, review of 3daf63b)."""
    aside = st.set_aside
    return [s for s in st.hands[seat] if s not in aside] if aside else list(st.hands[seat])


def _known_to_another(st: HpshaState, seat: int, slot: int) -> bool:
    """Whether a seat other than ``seat`` may know the face of ``seat``'s hand card ``slot`` (remask.py's test)."""
    return slot in st.pub or any(x != seat for x in st.seen.get(slot, ()))


# ----------------------------------------------------------------------------- Draco Malfoy


class Trickery(Skill):
    """捉弄: before any judgement card takes effect, play a hand card of the other colour to replace it."""

    key, zh, en = "trickery", "捉弄", "Trickery"
    points: ClassVar[frozenset[str]] = frozenset({tp.JUDGE_REPLACE})

    def replace_spec(self, st: HpshaState, seat: int, judge_card: Card) -> str | None:
        return f"colour_not:{judge_card.colour}"


class Sneer(OpensChosenCard):
    """嘲哂: when another character's discard phase ends, discard a hand card whose suit differs from
    every card it discarded in that phase, and obtain all the cards it discarded then."""

    key, zh, en = "sneer", "嘲哂", "Sneer"
    points: ClassVar[frozenset[str]] = frozenset({tp.PHASE_END})

    @staticmethod
    def _suits(st: HpshaState, ctx: dict[str, Any]) -> str:
        return "".join(sorted({CARDS[st.pub[s]].suit for s in ctx["discarded"] if s in st.pub}))

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("phase") == "discard" and ctx.get("who") != seat and bool(ctx.get("discarded")) and bool(
            st.hands[seat])

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        suits = self._suits(st, ctx)
        out: list[Action] = []
        for s in st.hands[seat]:
            f = kn.face(s)
            if f is not None and CARDS[f].suit not in suits:
                out.append({"type": "invoke", "slot": s})
        return out

    def check_offer(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, kn: Knowledge
    ) -> None:
        s = as_int(action, "slot")
        if action.get("type") != "invoke" or s not in st.hands[seat] or len(action) != 2:
            raise IllegalAction("嘲哂 Sneer: discard one of your hand cards")
        f = kn.face(s)
        if f is not None and CARDS[f].suit in self._suits(st, ctx):
            raise IllegalAction("嘲哂 Sneer: the card's suit must differ from the discarded cards")

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        s = int(action["slot"])
        st.to_discard(s)
        got = [d for d in ctx["discarded"] if d in st.discard]
        for d in got:
            st.to_hand(seat, d)
        st.say("mock", seat, st.ids([s]), st.ids(got))


# ----------------------------------------------------------------------------- Remus Lupin


class PatronusSkill(Skill):
    """呼神: two heart/diamond hand cards may be used as 呼神护卫."""

    key, zh, en = "lupin_patronus", "呼神", "Patronus"
    view_as, view_as_count = "patronus", 2

    def view_as_sets(self, st: HpshaState, seat: int, kn: Knowledge) -> list[list[Slot]]:
        red = [s for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].red]
        return [list(p) for p in combinations(red, 2)]

    def view_as_ok(self, cards: list[Card]) -> bool:
        return len(cards) == 2 and all(c.red for c in cards)


class FullMoon(Skill):
    """月圆 (locked): always skip the discard phase; at the end of the turn, more than 7 hand cards → lose 1 HP."""

    key, zh, en, compulsory = "full_moon", "月圆", "Full Moon", True
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_END})

    def skips_phase(self, st: HpshaState, seat: int, phase: str) -> bool:
        return phase == "discard"

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and len(st.hands[seat]) > 7

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        st.push(LoseHpTask(seat, 1, "full_moon"))


# ----------------------------------------------------------------------------- Filius Flitwick


class Charms(Skill):
    """魔咒: any black hand card may be used as 咒立停."""

    key, zh, en = "charms", "魔咒", "Charms"
    view_as = "counter"

    def view_as_sets(self, st: HpshaState, seat: int, kn: Knowledge) -> list[list[Slot]]:
        return [[s] for s in st.hands[seat] if (f := kn.face(s)) is not None and not CARDS[f].red]

    def view_as_ok(self, cards: list[Card]) -> bool:
        return len(cards) == 1 and not cards[0].red


class Silence(Skill):
    """缄默 (locked): no instant spell Flitwick uses can be cancelled by 咒立停 (his own included)."""

    key, zh, en, compulsory = "silence", "缄默", "Silence", True

    def uncounterable(self, st: HpshaState, seat: int, kind: str) -> bool:
        return is_instant(kind)


register_skills("harry", StrokeOfLuck(), NaturalFlyer())
register_skills("hermione", Brilliance(), Rescue())
register_skills("draco", Trickery(), Sneer())
register_skills("lupin", PatronusSkill(), FullMoon())
register_skills("flitwick", Charms(), Silence())
