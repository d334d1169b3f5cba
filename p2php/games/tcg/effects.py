"""Card effects as data: small reusable pieces keyed by card number, and the tasks that resolve them.

A Spell's text is a tuple of pieces (:data:`SPELLS`), a Creature's extra play cost one piece
(:data:`COSTS`); the play task asks :func:`blocked` whether a card can be played now and pushes
:func:`resolve`'s tasks.  Characters' abilities live in :mod:`p2php.games.tcg.abilities`.
A card number that is in no table here and is not a plain Lesson or vanilla Creature is not
implemented (:func:`unimplemented`), and a deck holding one is refused before the game starts.

Decisions where the rules are silent (card texts are all there is, tcg.md "Not specified" item 1, 8):

* a Spell whose text must choose something (a Lesson or Creature of the opponent's, a Creature in
  one's discard pile) cannot be played when there is nothing to choose; "up to" effects (Accio) can,
  since zero is allowed (FAQ 10);
* Lessons of one type in play are interchangeable, so "choose 1 of your opponent's Charms Lessons"
  (Epoximise), "... Care of Magical Creatures Lessons" (Avifors) and Forest Troll's cost take the
  newest such Lesson without a question;
* "a Creature of your choice" (Vermillious) is any Creature in play, either side's;
* "Put a Creature card from your discard pile into your hand" moves the card face up: the pile is
  public (§0.3), so everyone knows that card of the hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Done, Outcome, Replace, Task
from p2php.games.tcg.cards import Card, CardType, LessonType
from p2php.games.tcg.damage import Mill, damage_creature
from p2php.games.tcg.state import TcgState

__all__ = [
    "CHARACTERS", "COSTS", "SPELLS", "DamageOpponent", "DamageOpponentOrCreature", "DiscardCreature",
    "DiscardLesson", "FromDiscard", "PickCreature", "PickTarget", "Retrieve", "blocked_by_text", "pay_cost",
    "resolve", "unimplemented",
]


@dataclass(frozen=True, slots=True)
class DamageOpponent:
    """Do ``amount`` damage to your opponent (mill their deck)."""

    amount: int


@dataclass(frozen=True, slots=True)
class DamageOpponentOrCreature:
    """Do ``amount`` damage to your opponent or to a Creature of your choice."""

    amount: int


@dataclass(frozen=True, slots=True)
class DiscardLesson:
    """Discard one of your opponent's Lessons in play of ``lesson`` type (or, ``own``, one of yours)."""

    lesson: LessonType
    own: bool = False


@dataclass(frozen=True, slots=True)
class DiscardCreature:
    """Discard one of your opponent's Creatures in play, chosen by you or (``by_opponent``) by them."""

    by_opponent: bool = False


@dataclass(frozen=True, slots=True)
class FromDiscard:
    """Put ``up_to`` cards of ``kind`` from your discard pile into your hand (``exactly``: one is a must)."""

    kind: CardType
    up_to: int
    exactly: bool = False


Piece = DamageOpponent | DamageOpponentOrCreature | DiscardLesson | DiscardCreature | FromDiscard

CMC, CHARMS, TRANSFIG = LessonType.CARE_OF_MAGICAL_CREATURES, LessonType.CHARMS, LessonType.TRANSFIGURATION

SPELLS: dict[int, tuple[Piece, ...]] = {
    67: (DamageOpponent(5),),  # Stupefy
    68: (DiscardCreature(by_opponent=True),),  # Take Root
    73: (FromDiscard(CardType.LESSON, 2),),  # Accio
    74: (DiscardLesson(CMC),),  # Avifors
    82: (DiscardLesson(CHARMS),),  # Epoximise
    89: (FromDiscard(CardType.CREATURE, 1, exactly=True),),  # Hagrid and the Stranger
    93: (DiscardCreature(),),  # Incarcifors
    95: (DamageOpponent(3),),  # Magical Mishap
    109: (DamageOpponentOrCreature(3),),  # Vermillious
}
"""Spell number -> its text as pieces, resolved in order."""

COSTS: dict[int, Piece] = {
    85: DiscardLesson(CMC, own=True),  # Forest Troll: "To play this card, discard 1 of your CoMC Lessons"
}
"""Creature number -> an additional cost paid after the Power check (FAQ 4)."""

VANILLA = frozenset({76, 80, 107, 110})
"""Creatures with no text: Boa Constrictor, Curious Raven, Surly Hound, Vicious Wolf."""

CHARACTERS = frozenset({2, 3, 9, 10})
"""Characters whose ability is implemented (:mod:`~p2php.games.tcg.abilities`): Draco Malfoy, Hermione Granger."""


def unimplemented(card: Card) -> bool:
    """True when this engine cannot play ``card`` yet (a deck with it is refused)."""
    if card.type is CardType.LESSON:
        return False
    return card.number not in SPELLS and card.number not in COSTS and card.number not in VANILLA \
        and card.number not in CHARACTERS


def _can(g: TcgState, seat: Seat, piece: Piece) -> bool:
    opp = 1 - seat
    if isinstance(piece, DiscardLesson):
        return bool(g.lessons_of(seat if piece.own else opp, piece.lesson))
    if isinstance(piece, DiscardCreature):
        return bool(g.creatures[opp])
    if isinstance(piece, FromDiscard):
        return not piece.exactly or any(g.card(s).type is piece.kind for s in g.discard[seat])
    return True


def blocked_by_text(g: TcgState, seat: Seat, card: Card) -> str | None:
    """Why ``card``'s own text stops ``seat`` playing it now (nothing to choose, cost unpayable), or None."""
    pieces = SPELLS.get(card.number, ())
    cost = COSTS.get(card.number)
    for piece in (*pieces, *((cost,) if cost is not None else ())):
        if not _can(g, seat, piece):
            return f"{card.name} has nothing to act on"
    return None


def pay_cost(g: TcgState, seat: Seat, card: Card) -> None:
    """Pay a Creature's additional cost (after the Power check)."""
    cost = COSTS.get(card.number)
    if isinstance(cost, DiscardLesson):
        g.remove_lesson(g.lessons_of(seat, cost.lesson)[-1])


def resolve(g: TcgState, seat: Seat, card: Card) -> list[Task[TcgState]]:
    """The tasks of a Spell's pieces (pieces needing no question act at once); run in order."""
    tasks: list[Task[TcgState]] = []
    opp = 1 - seat
    for piece in SPELLS.get(card.number, ()):
        if isinstance(piece, DamageOpponent):
            tasks.append(Mill(opp, piece.amount))
        elif isinstance(piece, DamageOpponentOrCreature):
            tasks.append(PickTarget(seat, piece.amount))
        elif isinstance(piece, DiscardLesson):
            tasks.append(LoseLesson(seat if piece.own else opp, piece.lesson.value))
        elif isinstance(piece, DiscardCreature):
            tasks.append(PickCreature(opp if piece.by_opponent else seat, opp))
        else:
            tasks.append(Retrieve(seat, piece.kind.value, piece.up_to, not piece.exactly))
    return tasks


def _only(answers: Sequence[tuple[Seat, Action]]) -> Action:
    ((_seat, action),) = answers
    return action


@dataclass
class LoseLesson(Task[TcgState]):
    """``seat``'s newest Lesson of ``lesson`` type in play is discarded (they are interchangeable)."""

    seat: int
    lesson: str

    def run(self, g: TcgState) -> Outcome:
        mine = g.lessons_of(self.seat, LessonType(self.lesson))
        if mine:
            g.remove_lesson(mine[-1])
            g.log("lesson_lost", mine[-1])
        return Done()


@dataclass
class PickTarget(Task[TcgState]):
    """``seat`` deals ``amount`` to the opponent or to a Creature in play of its choice (Vermillious)."""

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
class PickCreature(Task[TcgState]):
    """``chooser`` picks one of ``victim``'s Creatures in play, which is discarded (Incarcifors, Take Root)."""

    chooser: int
    victim: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.chooser,), "creature") if g.creatures[self.victim] else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "creature", "slot": s} for s, _ in g.creatures[self.victim]]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        slot = _only(answers)["slot"]
        g.remove_creature(slot)
        g.log("dies", slot)
        return Done()


@dataclass
class Retrieve(Task[TcgState]):
    """``seat`` takes up to ``left`` cards of ``kind`` from its discard pile into its hand (Accio, Hagrid)."""

    seat: int
    kind: str
    left: int
    optional: bool

    def choices(self, g: TcgState) -> list[Slot]:
        """The newest card of each card number of ``kind`` in the pile: copies are interchangeable."""
        seen: dict[int, Slot] = {}
        for slot in g.discard[self.seat]:
            card = g.card(slot)
            if card.type.value == self.kind:
                seen[card.number] = slot
        return [seen[n] for n in sorted(seen)]

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "retrieve") if self.left > 0 and self.choices(g) else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "take", "slot": s} for s in self.choices(g)]
        return [*out, {"type": "stop"}] if self.optional else out

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") == "take" and action.get("slot") in g.discard[self.seat] and \
                g.card(action["slot"]).type.value == self.kind:
            return
        if action == {"type": "stop"} and self.optional:
            return
        raise IllegalAction(f"not a legal action here: {action}")

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        action = _only(answers)
        if action["type"] == "stop":
            return Done()
        g.discard[self.seat].remove(action["slot"])
        g.hand[self.seat].append(action["slot"])
        g.log("retrieve", self.seat, action["slot"])
        self.left -= 1
        return CONTINUE if self.left else Done()
