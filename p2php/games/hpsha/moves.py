"""Card movements that need the protocol: drawing and reshuffling (Shuffle/Deal), revealing
(Reveal), private looks (Show), joint random picks (Randomness), taking a card from another
character, and face-down simultaneous plays (拼点)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
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
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push
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

from p2php.games.hpsha.remask import RemaskHandTask, remask_groups
from p2php.games.hpsha.tasks import AskChoice, Task, as_int

# ----------------------------------------------------------------------------- deck


@dataclass
class ReshuffleTask(Task):
    """Shuffle the discard pile into a new deck (cards set aside by rulings stay out).

    Stages: ``GATHER`` (the pile's cards, or nothing to do), ``SHUFFLE`` (the Shuffle; when it is
    done the new deck replaces the pile)."""

    class Stage(Enum):
        GATHER = auto()
        SHUFFLE = auto()

    first: int = -1
    cards: list[int] = field(default_factory=list)
    old: list[int] = field(default_factory=list)
    stage: Stage = field(default=Stage.GATHER, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is ReshuffleTask.Stage.GATHER:
            self.old = [s for s in st.discard if s not in st.set_aside]
            if not self.old:
                return Done()
            self.cards = sorted(st.pub[s] for s in self.old)
            self.first = st.alloc(len(self.cards))
            self.stage = ReshuffleTask.Stage.SHUFFLE
        return Shuffle(tuple(self.cards), self.first, "reshuffle")

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        gone = set(self.old)
        st.discard = [s for s in st.discard if s not in gone]
        for s in self.old:
            del st.pub[s]
        st.deck.extend(range(self.first, self.first + len(self.cards)))
        st.say("reshuffle", len(self.cards))
        return Done()


@dataclass
class DrawTask(Task):
    """``seat`` draws ``n`` cards from the deck top (dealt face down: only that seat learns them)."""

    seat: int
    n: int
    slots: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Outcome:
        if self.n <= 0 or not st.alive[self.seat]:
            return Done()
        if not st.deck:
            if st.discard_available():
                return Push(ReshuffleTask())
            return Done()  # deck and discard pile both empty: draw what there is
        k = min(self.n, len(st.deck))
        self.slots = st.deck[:k]
        return Deal(tuple((s, self.seat) for s in self.slots))

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        del st.deck[: len(self.slots)]
        st.hands[self.seat].extend(self.slots)
        self.n -= len(self.slots)
        st.say("draws", self.seat, len(self.slots))
        self.slots = []
        if not st.deck and st.discard_available():
            return Push(ReshuffleTask())  # "when the deck runs out, immediately shuffle the discard pile"
        return CONTINUE


@dataclass
class RevealTopTask(Task):
    """Reveal ``n`` cards from the deck top to everyone.  Result: their slots (now in processing)."""

    n: int
    got: list[int] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Outcome:
        if self.n <= 0:
            return Done(self.got)
        if not st.deck:
            if st.discard_available():
                return Push(ReshuffleTask())
            return Done(self.got)
        k = min(self.n, len(st.deck))
        self.slots = st.deck[:k]
        return Reveal(tuple(self.slots))

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        del st.deck[: len(self.slots)]
        st.processing.extend(self.slots)
        self.got.extend(self.slots)
        self.n -= len(self.slots)
        self.slots = []
        if not st.deck and st.discard_available():
            return Push(ReshuffleTask())
        return CONTINUE


@dataclass
class ShowTask(Task):
    """Let ``viewer`` privately see ``slots`` it now holds (a card taken from a hidden hand)."""

    slots: list[int]
    viewer: int

    def run(self, st: HpshaState) -> Outcome:
        return Show(tuple(self.slots), self.viewer, self.viewer)

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return Done()


@dataclass
class RevealTask(Task):
    """Open ``slots`` to everyone (a shown hand card, cards going to the discard pile)."""

    slots: list[int]

    def run(self, st: HpshaState) -> Outcome:
        todo = st.unopened(self.slots)
        if todo:
            return Reveal(todo)
        return Done()

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return Done()


@dataclass
class DiscardCardsTask(Task):
    """Discard cards from anywhere; hidden hand cards are revealed first (the pile is face up).

    Stages: ``REVEAL`` (open the hidden ones), ``DISCARD`` (to the pile; CARD_MOVED for each owner),
    ``DONE``."""

    class Stage(Enum):
        REVEAL = auto()
        DISCARD = auto()
        DONE = auto()

    slots: list[int]
    why: list[Any] = field(default_factory=list)  # a fragment for the log (see words.py); empty: quiet
    stage: Stage = field(default=Stage.REVEAL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is DiscardCardsTask.Stage.REVEAL:
            self.stage = DiscardCardsTask.Stage.DISCARD
            todo = st.unopened(self.slots)
            if todo:
                return Reveal(todo)
        if self.stage is DiscardCardsTask.Stage.DISCARD and self.slots:
            if self.why:
                st.say("discarded", self.why, st.ids(self.slots))
            owners = {w[1] for s in self.slots if (w := st.locate(s)) is not None and w[1] >= 0}
            for s in self.slots:
                st.to_discard(s)
            self.stage = DiscardCardsTask.Stage.DONE
            for o in sorted(owners):  # each fire puts its point on top: the last owner's resolves first
                st.fire(tp.CARD_MOVED, {"owner": o, "to": -1, "slots": list(self.slots), "how": "discard"})
            return CONTINUE
        return Done()

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.stage = DiscardCardsTask.Stage.DISCARD  # the hidden cards are open now: discard them
        return CONTINUE


@dataclass
class RandomHandCardTask(Task):
    """Pick a card of ``owner``'s hand uniformly with joint randomness nobody can steer.
    Result: the slot (-1: the hand is empty)."""

    owner: int
    purpose: str = "random hand card"
    result: int = -1
    mixed: bool = False  # the hand was re-masked first if it had to be (remask.py)

    def run(self, st: HpshaState) -> Outcome:
        if not st.hands[self.owner]:
            return Done(-1)
        if not self.mixed:
            self.mixed = True
            if remask_groups(st, self.owner):  # a face someone else knows: the pick must not tell which card
                return Push(RemaskHandTask(self.owner))
        return Randomness(self.purpose)

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        hand = st.hands[self.owner]
        self.result = hand[DetRng(random).below(len(hand))]
        return Done(self.result)


@dataclass
class PickCardTask(Task):
    """``chooser`` takes one card of ``owner`` (除你武器 / 摄神取念 / 灵魂出窍) and discards or obtains it.

    ``zones``: subset of ``hand`` (random card), ``weapon`` (weapon only), ``equip``
    (any equipment), ``judge``.  ``then``: ``discard`` or ``obtain``.  Result: the slot taken
    (``None``: nothing was taken).

    Stages: ``CHOOSE`` (the chooser picks a zone card or the hand), ``CHOSEN`` (a random hand card
    for the hand), ``TAKE`` (discard or obtain the card), ``DONE``.
    """

    class Stage(Enum):
        CHOOSE = auto()
        CHOSEN = auto()
        TAKE = auto()
        DONE = auto()

    chooser: int
    owner: int
    zones: list[str]
    then: str
    source: str = ""  # a key: the card or the skill that takes the card (the prompt is pick:<source>)
    choice: str | int | None = None  # "hand" or the slot chosen (AskChoice's answer)
    slot: int = -1  # the card taken (RandomHandCardTask's pick for the hand)
    stage: Stage = field(default=Stage.CHOOSE, kw_only=True)

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

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is PickCardTask.Stage.CHOOSE:
            if not st.alive[self.owner]:
                return Done(None)
            opts = self.options(st)
            self.stage = PickCardTask.Stage.CHOSEN
            if not opts:
                return Done(None)
            if len(opts) == 1:
                self.choice = opts[0]
                return CONTINUE
            return Call(AskChoice(self.chooser, f"pick:{self.source}", opts), into="choice")
        if self.stage is PickCardTask.Stage.CHOSEN:
            self.stage = PickCardTask.Stage.TAKE
            if self.choice == "hand":
                return Call(RandomHandCardTask(self.owner, f"{self.source}: random hand card"), into="slot")
            assert self.choice is not None
            self.slot = int(self.choice)
            return CONTINUE
        if self.stage is PickCardTask.Stage.TAKE:
            self.stage = PickCardTask.Stage.DONE
            if self.slot < 0:
                return Done(None)
            if self.then == "discard":
                return Push(DiscardCardsTask([self.slot], ["n_pick", self.chooser, self.source, self.owner]))
            public = self.slot in st.pub
            st.to_hand(self.chooser, self.slot)
            st.say("picks", self.chooser, st.ids([self.slot]) if public else [], self.owner, self.source)
            st.fire(tp.CARD_MOVED, {"owner": self.owner, "to": self.chooser, "slots": [self.slot], "how": "obtain"})
            if not public:  # on top of the point: the private look comes first
                return Push(ShowTask([self.slot], self.chooser))
            return CONTINUE
        return Done(self.slot)


@dataclass
class PointDuelTask(Task):
    """拼点 (§8.14): both sides pick a hand card face down in one Decide (nothing opens), then one
    Reveal opens both together.  The initiator wins only with a strictly higher rank (K high, A low).
    Result: ``{"won": bool, "slots": [initiator's, target's]}`` (``None``: a side had no hand card);
    the cards are left in processing for the caller (who may discard them or hand them to someone,
    like 纳威's 勇气).

    Stages: ``PICK`` (the joint face-down Decide), ``REVEAL`` (both open; then the ranks compare).
    """

    class Stage(Enum):
        PICK = auto()
        REVEAL = auto()

    initiator: int
    target: int
    picks: list[int] = field(default_factory=list)
    stage: Stage = field(default=Stage.PICK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is PointDuelTask.Stage.PICK:
            if not st.hands[self.initiator] or not st.hands[self.target]:
                return Done(None)
            # Sealed: both pick at once (§8.14). Unsealed, one side could wait for the other's signed pick, and a
            # card whose face it knows (opened earlier, as 勇气's two cards in Neville's hand) told it the card.
            return Decide((self.initiator, self.target), "point_duel", sealed=True)
        return Reveal(tuple(self.picks))

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        a, b = (CARDS[st.pub[s]].rank for s in self.picks)
        st.say("duel", st.ids(self.picks[:1]), st.ids(self.picks[1:]))
        return Done({"won": a > b, "slots": list(self.picks)})

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "duel", "slot": s} for s in self._usable(st, seat)]

    @staticmethod
    def _usable(st: HpshaState, seat: int) -> list[int]:
        """拼点 plays (打出) a card: not one set face down by 禁闭 — unless no other is left."""
        return [s for s in st.hands[seat] if st.can_use(seat, s)] or list(st.hands[seat])

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        if action.get("type") != "duel" or as_int(action, "slot") not in self._usable(st, seat):
            raise IllegalAction("拼点: pick one of your hand cards")

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        self.picks = [int(a["slot"]) for _s, a in answers]
        for s in self.picks:
            st.to_processing(s)  # face down on the table until the joint reveal
        self.stage = PointDuelTask.Stage.REVEAL
        return CONTINUE


@dataclass
class LookAtHandTask(Task):
    """``viewer`` looks at ``owner``'s whole hand privately (Show: every key holder sends keys to
    the viewer only).  Result: the slots seen.  For skills such as 费尔奇's 禁闭."""

    viewer: int
    owner: int
    slots: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Outcome:
        self.slots = list(st.hands[self.owner])
        if not self.slots:
            return Done([])
        return Show(tuple(self.slots), self.owner, self.viewer)

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return Done(self.slots)


@dataclass
class PeekDeckTask(Task):
    """``viewer`` sees the top ``n`` deck cards privately and, if ``reorder``, puts them back in an
    order of its choice (nobody else learns anything).  Result: the top slots after it.
    For skills such as 克拉布&高尔's 贪吃.

    Stages: ``LOOK`` (reshuffle if the deck is short, then the Show), ``ARRANGE`` (the new order).
    """

    class Stage(Enum):
        LOOK = auto()
        ARRANGE = auto()

    viewer: int
    n: int
    reorder: bool = False
    top: list[int] = field(default_factory=list)
    stage: Stage = field(default=Stage.LOOK, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is PeekDeckTask.Stage.LOOK:
            if len(st.deck) < self.n and st.discard_available():
                return Push(ReshuffleTask())
            self.top = st.deck[: self.n]
            if not self.top:
                return Done([])
            return Show(tuple(self.top), self.viewer, self.viewer)
        if self.reorder and len(self.top) > 1:
            return Decide((self.viewer,), "arrange_top")
        return Done(list(st.deck[: len(self.top)]))

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.stage = PeekDeckTask.Stage.ARRANGE
        return CONTINUE

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        from itertools import permutations

        return [{"type": "arrange", "order": list(p)} for p in permutations(self.top)]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        order = action.get("order")
        if action.get("type") != "arrange" or not isinstance(order, list) or sorted(order) != sorted(self.top):
            raise IllegalAction("arrange: give the top cards in a new order")

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        st.deck[: len(self.top)] = [int(x) for x in action["order"]]
        return Done(list(st.deck[: len(self.top)]))
