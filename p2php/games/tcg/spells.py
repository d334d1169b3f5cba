"""The tasks that carry out card pieces needing a question or a hidden card (the rest act at once in ``effects``).

Decisions where the rules are silent (tcg.md "Not specified" items 1 and 8; §5.3):

* a choice among interchangeable cards (Lessons of one type, copies of one card in the discard pile)
  is not asked: the newest one is taken;
* "Your opponent chooses N cards in his or her hand and discards them" (Confundus, Titillando) asks the
  opponent one card at a time; each card is opened as it is discarded (the pile is public, §0.3);
* a card returned to the hand from play or from the discard pile stays face up: everyone saw it;
* Wizard Crackers' top card is opened to everyone ("Reveal"), so a non-Lesson goes to the hand face up;
* Snape's Question's "showing you a Potions Lesson from his or her hand" opens that card to everyone
  (the table must see that it is one); it stays in the hand, face up;
* Mrs Norris' "Your opponent plays with his or her hand face up" opens the whole hand when she enters
  play and each card drawn while she is in play (``damage.Draw``); cards opened stay known after she
  leaves;
* Potions Exam: the opponent decides first whether to discard a Potions Lesson to prevent it; once
  they start discarding cards in play the choice is gone; "cards in play" are Lessons, Creatures,
  Items, Characters played from the hand and an Adventure (never the starting Character, §5.5);
* Boil Cure / Pomfrey's Pick-Me-Up put the chosen cards on the bottom of the deck in the order chosen;
  they stay face up there (everyone saw them in the pile), so drawing or milling one opens nothing new;
* History of Magic / Out of the Woods ("Look at your opponent's hand. Discard all Adventure / Creature
  cards from it"): the hand is shown to the caster alone (a Show); the caster then names those cards one
  at a time, each opened as it is discarded and refused if it is not of the type; "stop" is refused
  while the caster's own knowledge shows one more of the type (the audit, which knows every face, can
  check the same);
* Illegibilus shows the opponent's hand to the caster alone (a Show) and the chosen card is opened when
  discarded, as Draco Malfoy's ability does;
* "Search your deck. You may take up to N <kind> cards from your deck, show them to your opponent, and put
  them in your hand. Then shuffle your deck" (Alchemy, Apothecary, Mysterious Egg, Transmogrify, Vanishing
  Glass, Nearly Headless Nick): the deck's face-down cards are shown to their owner alone (a Show), who then
  takes the cards one at a time; each taken card is opened to everyone ("show them to your opponent": the
  whole table sees it, and every peer checks that it is of the kind) and goes into the hand face up. Taking
  none is allowed ("may"). Then the rest of the deck is reshuffled jointly (the engine's Reshuffle step), so
  its owner no longer knows the order; an empty deck is not shuffled;
* "Shuffle up to N non-Healing cards from your discard pile into your deck" (Elixir of Life, Burning
  Bitterroot Balm, Hospital Wing, Professor Severus Snape): the owner picks the cards one at a time from the
  pile (face up, so copies of one card are interchangeable and the newest is taken), then the deck and the
  picked cards are reshuffled together into a new face-down deck; picking none still shuffles the deck.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from p2php.engine.contract import (
    Action,
    CardId,
    Decide,
    IllegalAction,
    Knowledge,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Slot,
    Step,
)
from p2php.engine.tasks import CONTINUE, Done, Outcome, Replace, Task, offered
from p2php.games.tcg.cards import CardType, LessonType
from p2php.games.tcg.damage import Mill, damage_creature, lost
from p2php.games.tcg.ids import card_of
from p2php.games.tcg.state import TcgState, owner_of

__all__ = [
    "DiscardHandTask", "ExamOrLesson", "LookDiscardAll", "OpenHand", "ShowOrTake",
    "KeepOne", "LoseLesson", "MayHitCreature", "OwnDiscards", "PickCreature", "PickInPlay",
    "PickTarget", "ReshuffleDeck", "Retrieve", "RevealTop", "SearchDeck", "return_to_hand",
]


def _only(answers: Sequence[tuple[Seat, Action]]) -> Action:
    ((_seat, action),) = answers
    return action


def return_to_hand(g: TcgState, slot: Slot) -> None:
    """A card in play goes back to its owner's hand, face up (its counters are gone)."""
    seat = owner_of(slot)
    if any(c[0] == slot for c in g.creatures[seat]):
        g.creatures[seat] = [c for c in g.creatures[seat] if c[0] != slot]
    g.hand[seat].append(slot)
    g.log("returned", slot)


@dataclass
class LoseLesson(Task[TcgState]):
    """``seat`` discards ``count`` Lessons in play of ``lesson`` type, newest first (interchangeable).

    ``lesson == ""``: of any type, the owner choosing the type of each Lesson in turn (Platform 9 3/4; Dragon's
    Escape's and Reptile House's "chooses N of his or her Lessons in play").
    """

    seat: int
    lesson: str
    count: int = 1
    chosen: str = ""  # lesson == "": the type chosen for the next Lesson (asked again for each one)

    def run(self, g: TcgState) -> Outcome:
        if self.count <= 0 or not g.lessons[self.seat]:
            return Done()
        kind = self.lesson or self.chosen
        if not kind:
            kinds = {g.card(s).lesson for s in g.lessons[self.seat]}
            if len(kinds) > 1:
                return Decide((self.seat,), "lesson")
            kind = g.card(g.lessons[self.seat][0]).lesson or ""
        self.chosen = ""
        mine = g.lessons_of(self.seat, LessonType(kind))
        if mine:
            g.remove_lesson(mine[-1])
            g.log("lesson_lost", mine[-1])
        self.count -= 1
        return CONTINUE

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        kinds = sorted({str(g.card(s).lesson) for s in g.lessons[self.seat]})
        return [{"type": "lesson", "lesson": k} for k in kinds]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        self.chosen = str(_only(answers)["lesson"])
        return CONTINUE


@dataclass
class PickTarget(Task[TcgState]):
    """``seat`` deals ``amount`` to the opponent or to a Creature in play of its choice."""

    seat: int
    amount: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "target")

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "target", "seat": 1 - self.seat}]
        for side in (1 - self.seat, self.seat):
            out.extend({"type": "target", "slot": s} for s, _ in g.creatures[side])
        return out

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if "slot" in action:
            damage_creature(g, action["slot"], self.amount)
            return Done()
        return Replace(Mill(1 - self.seat, self.amount))


@dataclass
class MayHitCreature(Task[TcgState]):
    """``seat`` may choose a Creature in play (either side's) and do ``amount`` damage to it (Toe Biter)."""

    seat: int
    amount: int
    optional: bool = True  # False: a Creature must be chosen if any is in play (Incendio)

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "target") if g.creatures[0] or g.creatures[1] else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = []
        for side in (1 - self.seat, self.seat):
            out.extend({"type": "target", "slot": s} for s, _ in g.creatures[side])
        return [*out, {"type": "stop"}] if self.optional else out

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "target":
            damage_creature(g, action["slot"], self.amount)
        return Done()


@dataclass
class PickCreature(Task[TcgState]):
    """``chooser`` picks one of ``victim``'s Creatures in play, which is discarded (Incarcifors, Take Root).

    ``home``: the chosen Creature returns to its owner's hand instead (Fluffy Falls Asleep), and
    ``victim == -1`` offers every Creature in play.
    """

    chooser: int
    victim: int
    home: bool = False

    def _slots(self, g: TcgState) -> list[Slot]:
        sides = (0, 1) if self.victim < 0 else (self.victim,)
        return [s for side in sides for s, _ in g.creatures[side]]

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.chooser,), "creature") if self._slots(g) else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "creature", "slot": s} for s in self._slots(g)]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        slot = _only(answers)["slot"]
        if self.home:
            return_to_hand(g, slot)
            return Done()
        g.remove_creature(slot)
        g.log("dies", slot)
        return Done()


@dataclass
class PickInPlay(Task[TcgState]):
    """``seat`` chooses one of the opponent's cards in play of ``kinds`` (card type values) and discards it."""

    seat: int
    kinds: list[str]

    def _slots(self, g: TcgState) -> list[Slot]:
        opp = 1 - self.seat
        zones = {"lesson": g.lessons[opp], "creature": [c[0] for c in g.creatures[opp]], "item": g.items[opp]}
        return [s for k in self.kinds for s in zones[k]]

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "in_play") if self._slots(g) else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "in_play", "slot": s} for s in self._slots(g)]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        g.discard_from_play(_only(answers)["slot"])
        return Done()


@dataclass
class KeepOne(Task[TcgState]):
    """``chooser`` keeps one of ``side``'s Creatures; the rest are discarded (only with 2 or more)."""

    chooser: int
    side: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.chooser,), "keep") if len(g.creatures[self.side]) >= 2 else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "keep", "slot": s} for s, _ in g.creatures[self.side]]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        keep = _only(answers)["slot"]
        for slot in [s for s, _ in g.creatures[self.side] if s != keep]:
            g.remove_creature(slot)
            g.log("dies", slot)
        return Done()


@dataclass
class Retrieve(Task[TcgState]):
    """``seat`` takes up to ``left`` cards of ``kind`` from its discard pile into its hand (Accio, Hagrid),
    or (``to_play``, Remembrall: a Lesson) into play."""

    seat: int
    kind: str  # a card type value, or "" for any
    left: int
    optional: bool
    to_play: bool = False
    only: str = ""  # "non_healing" (Hannah Abbott) | "charms" (needs Charms Power: Professor Flitwick)
    exclude: list[int] = field(default_factory=list)  # cards that went to the pile in the same trade
    to_bottom: bool = False  # onto the bottom of the deck, face up, in the order taken (Boil Cure)

    def fits(self, g: TcgState, slot: Slot) -> bool:
        card = g.card(slot)
        if slot in self.exclude or (self.kind and card.type.value != self.kind):
            return False
        if self.only == "non_healing":
            return "Healing" not in card.keywords
        if self.only == "charms":
            return card.type is not CardType.LESSON and card.lesson == LessonType.CHARMS
        return True

    def choices(self, g: TcgState) -> list[Slot]:
        """The newest card of each card number that fits in the pile: copies are interchangeable."""
        seen: dict[int, Slot] = {}
        for slot in g.discard[self.seat]:
            if self.fits(g, slot):
                seen[g.card(slot).number] = slot
        return [seen[n] for n in sorted(seen)]

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "retrieve") if self.left > 0 and self.choices(g) else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "take", "slot": s} for s in self.choices(g)]
        return [*out, {"type": "stop"}] if self.optional else out

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") == "take" and action.get("slot") in g.discard[self.seat] and \
                self.fits(g, action["slot"]):
            return
        if action == {"type": "stop"} and self.optional:
            return
        raise IllegalAction(f"not a legal action here: {action}")

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "stop":
            return Done()
        g.discard[self.seat].remove(action["slot"])
        (g.deck if self.to_bottom else g.lessons if self.to_play else g.hand)[self.seat].append(action["slot"])
        g.log("play" if self.to_play else "retrieve", self.seat, action["slot"])
        g.plays[self.seat] += self.to_play
        self.left -= 1
        return CONTINUE if self.left else Done()


@dataclass
class DiscardHandTask(Task[TcgState]):
    """``seat``'s whole hand is opened and discarded (Obliviate)."""

    seat: int
    opened: list[int] = field(default_factory=list)

    def run(self, g: TcgState) -> Outcome:
        if self.opened or not g.hand[self.seat]:
            return Done()
        self.opened = list(g.hand[self.seat])
        hidden = tuple(s for s in self.opened if s not in g.pub)
        if hidden:
            return Reveal(hidden)
        return self._discard(g)

    def _discard(self, g: TcgState) -> Outcome:
        for slot in self.opened:
            g.hand[self.seat].remove(slot)
            g.to_discard(slot)
        g.log("hand_discarded", self.seat, list(self.opened))
        return Done()

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return self._discard(g)


@dataclass
class OwnDiscards(Task[TcgState]):
    """``seat`` chooses ``left`` cards of its hand, one at a time, and discards them (all, if fewer)."""

    seat: int
    left: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "discard_own") if self.left > 0 and g.hand[self.seat] else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "discard", "slot": s} for s in g.hand[self.seat]]

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        return (slot,) if slot in g.hand[self.seat] and slot not in g.pub else ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        slot = _only(answers)["slot"]
        g.hand[self.seat].remove(slot)
        g.to_discard(slot)
        g.log("discarded", self.seat, slot)
        self.left -= 1
        return CONTINUE


@dataclass
class RevealTop(Task[TcgState]):
    """Wizard Crackers: ``seat``'s top card is opened; a Lesson goes into play, anything else into the hand."""

    seat: int
    done: bool = False

    def run(self, g: TcgState) -> Outcome:
        if self.done or not g.deck[self.seat]:
            return Done()
        return Reveal((g.deck[self.seat][0],))

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        slot = g.deck[self.seat].pop(0)
        self.done = True
        if g.card(slot).type is CardType.LESSON:
            g.lessons[self.seat].append(slot)
            g.log("play", self.seat, slot)
            g.plays[self.seat] += 1
        else:
            g.hand[self.seat].append(slot)
            g.log("revealed_top", self.seat, slot)
        return lost(g, self.seat) if not g.deck[self.seat] else Done()


@dataclass
class ShowOrTake(Task[TcgState]):
    """``seat``'s opponent shows a ``lesson`` Lesson from the hand, or takes ``amount`` damage (Snape's Question)."""

    seat: int
    amount: int
    lesson: str

    def _fits(self, face: CardId | None) -> bool:
        return face is None or (card_of(face).type is CardType.LESSON and card_of(face).lesson == self.lesson)

    def run(self, g: TcgState) -> Outcome:
        return Decide((1 - self.seat,), "show")

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "show", "slot": s} for s in g.hand[seat] if self._fits(knowledge.face(s))]
        return [*out, {"type": "none"}]

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action != {"type": "none"} and not offered(action, self.legal(g, seat, knowledge)):
            raise IllegalAction(f"not a {self.lesson} Lesson of the hand: {action}")

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        return (slot,) if action.get("type") == "show" and slot in g.hand[seat] and slot not in g.pub else ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "none":
            return Replace(Mill(1 - self.seat, self.amount))
        if not self._fits(g.pub[action["slot"]]):
            raise IllegalAction(f"not a {self.lesson} Lesson")
        g.log("shown", 1 - self.seat, action["slot"])
        return Done()


@dataclass
class OpenHand(Task[TcgState]):
    """``seat``'s hidden hand cards are opened to everyone (Mrs Norris enters play)."""

    seat: int
    done: bool = False

    def run(self, g: TcgState) -> Outcome:
        hidden = tuple(s for s in g.hand[self.seat] if s not in g.pub)
        return Reveal(hidden) if hidden and not self.done else Done()

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.done = True
        return Done()


@dataclass
class ExamOrLesson(Task[TcgState]):
    """Potions Exam: ``seat`` discards 1 of its Potions Lessons in play to prevent it, or chooses ``left`` of its
    cards in play (not the starting Character, §5.5) and discards them (all, if fewer)."""

    seat: int
    left: int
    asked: bool = False

    def run(self, g: TcgState) -> Outcome:
        if not g.in_play(self.seat) or self.left <= 0:
            return Done()
        return Decide((self.seat,), "exam")

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "in_play", "slot": s} for s in g.in_play(self.seat)]
        if not self.asked and g.lessons_of(self.seat, LessonType.POTIONS):
            out.append({"type": "prevent"})
        return out

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "prevent":
            g.remove_lesson(g.lessons_of(self.seat, LessonType.POTIONS)[-1])
            g.log("prevented", self.seat, "exam")
            return Done()
        self.asked = True
        g.discard_from_play(action["slot"])
        self.left -= 1
        return CONTINUE


@dataclass
class LookDiscardAll(Task[TcgState]):
    """``seat`` looks at the opponent's hand and discards every card of ``kind`` from it."""

    seat: int
    kind: str
    shown: bool = False

    def run(self, g: TcgState) -> Outcome:
        opp = 1 - self.seat
        if not g.hand[opp]:
            return Done()
        if not self.shown:
            return Show(tuple(g.hand[opp]), owner=opp, viewer=self.seat)
        return Decide((self.seat,), "discard_all")

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.shown = True
        return CONTINUE

    def _kind(self, face: CardId | None) -> bool | None:
        return None if face is None else card_of(face).type.value == self.kind

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        kinds = {s: self._kind(knowledge.face(s)) for s in g.hand[1 - self.seat]}
        out: list[Action] = [{"type": "discard", "slot": s} for s, k in kinds.items() if k is not False]
        return out if any(k for k in kinds.values()) else [*out, {"type": "stop"}]

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if not offered(action, self.legal(g, seat, knowledge)):
            raise IllegalAction(f"every {self.kind} card of the hand must go, and only those: {action}")

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        return (slot,) if action.get("type") == "discard" and isinstance(slot, int) and slot not in g.pub else ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "stop":
            return Done()
        slot = action["slot"]
        if not self._kind(g.pub[slot]):
            raise IllegalAction(f"not a {self.kind} card")
        g.hand[1 - self.seat].remove(slot)
        g.to_discard(slot)
        g.log("discarded", 1 - self.seat, slot)
        return CONTINUE


@dataclass
class ReshuffleDeck(Task[TcgState]):
    """"Then shuffle your deck": ``seat``'s deck (face-down cards and any face-up ones in it) becomes a new deck,
    shuffled by both peers (a Reshuffle), in ``seat``'s next block of slots."""

    seat: int
    done: bool = False

    def run(self, g: TcgState) -> Outcome:
        if self.done or not g.deck[self.seat]:
            return Done()
        return Reshuffle(tuple(g.deck[self.seat]), g.fresh_block(self.seat), f"reshuffle{self.seat}")

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        assert isinstance(step, Reshuffle)
        g.deck[self.seat] = list(step.new_slots)
        g.log("deck_shuffled", self.seat, len(step.slots))
        self.done = True
        return Done()


@dataclass
class SearchDeck(Task[TcgState]):
    """``seat`` searches its deck and may take up to ``left`` cards of ``kind`` (a card type value, ``""``: any;
    ``only == "potions"``: a card that needs Potions Power) into its hand, each shown to everyone; a
    :class:`ReshuffleDeck` follows (pushed with it)."""

    seat: int
    kind: str
    left: int
    only: str = ""
    shown: bool = False
    show: bool = True  # each card taken is shown to the opponent (opened); False: it goes into the hand face down

    def fits(self, face: CardId) -> bool:
        card = card_of(face)
        if self.kind and card.type.value != self.kind:
            return False
        if self.only == "potions":
            return card.type is not CardType.LESSON and card.lesson == LessonType.POTIONS
        return True

    def run(self, g: TcgState) -> Outcome:
        if not self.shown:
            self.shown = True
            hidden = tuple(s for s in g.deck[self.seat] if s not in g.pub)
            if hidden:
                return Show(hidden, owner=self.seat, viewer=self.seat)
        if self.left > 0 and g.deck[self.seat]:
            return Decide((self.seat,), "search")
        return Done()

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return CONTINUE

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = []
        for slot in g.deck[self.seat]:
            face = knowledge.face(slot)
            if face is None or self.fits(face):
                out.append({"type": "take", "slot": slot})
        return [*out, {"type": "stop"}]

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action == {"type": "stop"}:
            return
        slot = action.get("slot")
        if set(action) != {"type", "slot"} or action.get("type") != "take" or slot not in g.deck[self.seat]:
            raise IllegalAction(f"not a legal action here: {action}")
        face = knowledge.face(slot)
        if face is not None and not self.fits(face):
            raise IllegalAction(f"{card_of(face).name} is not a card this search may take")

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        if self.show and action.get("type") == "take" and isinstance(slot, int) and slot in g.deck[self.seat] \
                and slot not in g.pub:
            return (slot,)
        return ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "stop":
            return Done()
        slot = action["slot"]
        if (self.show or slot in g.pub) and not self.fits(g.pub[slot]):
            raise IllegalAction(f"{g.card(slot).name} is not a card this search may take")
        g.deck[self.seat].remove(slot)
        g.hand[self.seat].append(slot)
        g.log("searched", self.seat, slot)
        self.left -= 1
        return CONTINUE


def search_deck(seat: Seat, kind: str, up_to: int, only: str = "", show: bool = True) -> list[Task[TcgState]]:
    """The tasks of "Search your deck … Then shuffle your deck", in order (``show=False``: the cards taken go into
    the hand face down, which only a search for any card may do: nobody else could check the kind)."""
    if not show and (kind or only):
        raise ValueError("a card taken face down can only be 'any card'")
    return [SearchDeck(seat, kind, up_to, only, show=show), ReshuffleDeck(seat)]


def shuffle_in(seat: Seat, up_to: int) -> list[Task[TcgState]]:
    """The tasks of "Shuffle up to N non-Healing cards from your discard pile into your deck", in order."""
    return [Retrieve(seat, "", up_to, True, only="non_healing", to_bottom=True), ReshuffleDeck(seat)]
