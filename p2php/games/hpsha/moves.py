"""Card movements that need the protocol: drawing and reshuffling (Shuffle/Deal), revealing
(Reveal), private looks (Show), joint random picks (Randomness), taking a card from another
character, and face-down simultaneous plays (拼点)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    IllegalAction,
    Knowledge,
    Randomness,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.data import (
    ARMOUR,
    CARDS,
    MINUS,
    PLUS,
    WEAPON,
)
from p2php.rng import DetRng

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

from p2php.games.hpsha.tasks import AskChoice, Task, as_int

# ----------------------------------------------------------------------------- deck


@dataclass
class ReshuffleTask(Task):
    """Shuffle the discard pile into a new deck (cards set aside by rulings stay out)."""

    first: int = -1
    cards: list[int] = field(default_factory=list)
    old: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.old = [s for s in st.discard if s not in st.set_aside]
            if not self.old:
                st.finish(None)
                return None
            self.cards = sorted(st.pub[s] for s in self.old)
            self.first = st.alloc(len(self.cards))
            self.stage = 1
        if self.stage == 1:
            return Shuffle(tuple(self.cards), self.first, "reshuffle")
        st.finish(None)
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        gone = set(self.old)
        st.discard = [s for s in st.discard if s not in gone]
        for s in self.old:
            del st.pub[s]
        st.deck.extend(range(self.first, self.first + len(self.cards)))
        st.say("reshuffle", len(self.cards))
        self.stage = 2


@dataclass
class DrawTask(Task):
    """``seat`` draws ``n`` cards from the deck top (dealt face down: only that seat learns them)."""

    seat: int
    n: int
    slots: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.n <= 0 or not st.alive[self.seat]:
            st.finish(None)
            return None
        if not st.deck:
            if st.discard_available():
                st.push(ReshuffleTask())
                return None
            st.finish(None)  # deck and discard pile both empty: draw what there is
            return None
        k = min(self.n, len(st.deck))
        self.slots = st.deck[:k]
        return Deal(tuple((s, self.seat) for s in self.slots))

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        del st.deck[: len(self.slots)]
        st.hands[self.seat].extend(self.slots)
        self.n -= len(self.slots)
        st.say("draws", self.seat, len(self.slots))
        self.slots = []
        if not st.deck and st.discard_available():
            st.push(ReshuffleTask())  # "when the deck runs out, immediately shuffle the discard pile"


@dataclass
class RevealTopTask(Task):
    """Reveal ``n`` cards from the deck top to everyone.  ``ret``: their slots (now in processing)."""

    n: int
    got: list[int] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.n <= 0:
            st.finish(self.got)
            return None
        if not st.deck:
            if st.discard_available():
                st.push(ReshuffleTask())
                return None
            st.finish(self.got)
            return None
        k = min(self.n, len(st.deck))
        self.slots = st.deck[:k]
        return Reveal(tuple(self.slots))

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        del st.deck[: len(self.slots)]
        st.processing.extend(self.slots)
        self.got.extend(self.slots)
        self.n -= len(self.slots)
        self.slots = []
        if not st.deck and st.discard_available():
            st.push(ReshuffleTask())


@dataclass
class ShowTask(Task):
    """Let ``viewer`` privately see ``slots`` it now holds (a card taken from a hidden hand)."""

    slots: list[int]
    viewer: int

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            return Show(tuple(self.slots), self.viewer, self.viewer)
        st.finish(None)
        return None


@dataclass
class RevealTask(Task):
    """Open ``slots`` to everyone (a shown hand card, cards going to the discard pile)."""

    slots: list[int]

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            todo = st.unopened(self.slots)
            if todo:
                return Reveal(todo)
        st.finish(None)
        return None


@dataclass
class DiscardCardsTask(Task):
    """Discard cards from anywhere; hidden hand cards are revealed first (the pile is face up)."""

    slots: list[int]
    why: list[Any] = field(default_factory=list)  # a fragment for the log (see words.py); empty: quiet

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.stage = 1
            todo = st.unopened(self.slots)
            if todo:
                return Reveal(todo)
        if self.stage == 1 and self.slots:
            if self.why:
                st.say("discarded", self.why, st.ids(self.slots))
            owners = {w[1] for s in self.slots if (w := st.locate(s)) is not None and w[1] >= 0}
            for s in self.slots:
                st.to_discard(s)
            self.stage = 2
            for o in sorted(owners):
                st.fire(tp.CARD_MOVED, {"owner": o, "to": -1, "slots": list(self.slots), "how": "discard"})
            return None
        st.finish(None)
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        self.stage = 1  # the hidden cards are open now: discard them


@dataclass
class RandomHandCardTask(Task):
    """Pick a card of ``owner``'s hand uniformly with joint randomness nobody can steer.  ``ret``: slot."""

    owner: int
    purpose: str = "random hand card"
    result: int = -1

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            if not st.hands[self.owner]:
                st.finish(-1)
                return None
            return Randomness(self.purpose)
        st.finish(self.result)
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        hand = st.hands[self.owner]
        self.result = hand[DetRng(random).below(len(hand))]
        self.stage = 1


@dataclass
class PickCardTask(Task):
    """``chooser`` takes one card of ``owner`` (除你武器 / 摄神取念 / 灵魂出窍) and discards or obtains it.

    ``zones``: subset of ``hand`` (random card), ``weapon`` (weapon only), ``equip``
    (any equipment), ``judge``.  ``then``: ``discard`` or ``obtain``.
    """

    chooser: int
    owner: int
    zones: list[str]
    then: str
    source: str = ""
    choice: Any = None
    slot: int = -1

    def options(self, st: HpshaState) -> list[Any]:
        out: list[Any] = []
        if "hand" in self.zones and st.hands[self.owner]:
            out.append("hand")
        eq = st.equip[self.owner]
        if st.equip_locked(self.owner, self.chooser):  # 莫丽's 持家: her equipped cards are out of reach
            eq = {}
        if "equip" in self.zones:
            out += [eq[k] for k in (WEAPON, ARMOUR, PLUS, MINUS) if k in eq]
        elif "weapon" in self.zones and WEAPON in eq:
            out.append(eq[WEAPON])
        if "judge" in self.zones:
            out += [s for s, _k in st.judge[self.owner]]
        return out

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            if not st.alive[self.owner]:
                st.finish(None)
                return None
            opts = self.options(st)
            self.stage = 1
            if not opts:
                st.finish(None)
                return None
            if len(opts) == 1:
                st.ret = opts[0]
            else:
                st.push(AskChoice(self.chooser, f"pick:{self.source}", opts))
            return None
        if self.stage == 1:
            self.choice = st.ret
            self.stage = 2
            if self.choice == "hand":
                st.push(RandomHandCardTask(self.owner, f"{self.source}: random hand card"))
            else:
                st.ret = self.choice
            return None
        if self.stage == 2:
            self.slot = int(st.ret)
            self.stage = 3
            if self.slot < 0:
                st.finish(None)
                return None
            if self.then == "discard":
                st.push(DiscardCardsTask([self.slot], ["n_pick", self.chooser, self.source, self.owner]))
                return None
            public = self.slot in st.pub
            st.to_hand(self.chooser, self.slot)
            st.say("picks", self.chooser, st.ids([self.slot]) if public else [], self.owner, self.source)
            st.fire(tp.CARD_MOVED, {"owner": self.owner, "to": self.chooser, "slots": [self.slot], "how": "obtain"})
            if not public:
                st.push(ShowTask([self.slot], self.chooser))
            return None
        st.finish(self.slot)
        return None


@dataclass
class PointDuelTask(Task):
    """拼点 (§8.14): both sides pick a hand card face down in one Decide (nothing opens), then one
    Reveal opens both together.  The initiator wins only with a strictly higher rank (K high, A low).
    ``ret``: ``{"won": bool, "slots": [initiator's, target's]}``; the cards are left in processing
    for the caller (who may discard them or hand them to someone, like 纳威's 勇气)."""

    initiator: int
    target: int
    picks: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            if not st.hands[self.initiator] or not st.hands[self.target]:
                st.finish(None)
                return None
            return Decide((self.initiator, self.target), "point_duel")
        if self.stage == 1:
            return Reveal(tuple(self.picks))
        a, b = (CARDS[st.pub[s]].rank for s in self.picks)
        st.say("duel", st.ids(self.picks[:1]), st.ids(self.picks[1:]))
        st.finish({"won": a > b, "slots": list(self.picks)})
        return None

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "duel", "slot": s} for s in self._usable(st, seat)]

    @staticmethod
    def _usable(st: HpshaState, seat: int) -> list[int]:
        """拼点 plays (打出) a card: not one set face down by 禁闭 — unless no other is left."""
        return [s for s in st.hands[seat] if st.can_use(seat, s)] or list(st.hands[seat])

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        if action.get("type") != "duel" or as_int(action, "slot") not in self._usable(st, seat):
            raise IllegalAction("拼点: pick one of your hand cards")

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        self.picks = [int(a["slot"]) for _s, a in answers]
        for s in self.picks:
            st.to_processing(s)  # face down on the table until the joint reveal
        self.stage = 1


@dataclass
class LookAtHandTask(Task):
    """``viewer`` looks at ``owner``'s whole hand privately (Show: every key holder sends keys to
    the viewer only).  ``ret``: the slots seen.  For skills such as 费尔奇's 禁闭."""

    viewer: int
    owner: int
    slots: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            self.slots = list(st.hands[self.owner])
            if not self.slots:
                st.finish([])
                return None
            return Show(tuple(self.slots), self.owner, self.viewer)
        st.finish(self.slots)
        return None


@dataclass
class PeekDeckTask(Task):
    """``viewer`` sees the top ``n`` deck cards privately and, if ``reorder``, puts them back in an
    order of its choice (nobody else learns anything).  ``ret``: the top slots after it.
    For skills such as 克拉布&高尔's 贪吃."""

    viewer: int
    n: int
    reorder: bool = False
    top: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 0:
            if len(st.deck) < self.n and st.discard_available():
                st.push(ReshuffleTask())
                return None
            self.top = st.deck[: self.n]
            if not self.top:
                st.finish([])
                return None
            return Show(tuple(self.top), self.viewer, self.viewer)
        if self.stage == 1 and self.reorder and len(self.top) > 1:
            return Decide((self.viewer,), "arrange_top")
        st.finish(list(st.deck[: len(self.top)]))
        return None

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        from itertools import permutations

        return [{"type": "arrange", "order": list(p)} for p in permutations(self.top)]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        order = action.get("order")
        if action.get("type") != "arrange" or not isinstance(order, list) or sorted(order) != sorted(self.top):
            raise IllegalAction("arrange: give the top cards in a new order")

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        ((_seat, action),) = answers
        st.deck[: len(self.top)] = [int(x) for x in action["order"]]
        self.stage = 2
