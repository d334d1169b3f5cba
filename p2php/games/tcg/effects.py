"""Card effects as data: card number -> pieces (:mod:`~p2php.games.tcg.pieces`), and what each piece does.

A Spell's text is a tuple of pieces (:data:`SPELLS`); an additional cost ("To play this card, discard
...", FAQ 4: checked after Power) is a tuple of pieces too (:data:`COSTS`), paid on play for Creatures
and Items and resolved first for Spells.  The play task asks :func:`blocked_by_text` whether a card can
be played now and pushes :func:`resolve`'s tasks.  Characters' abilities live in
:mod:`~p2php.games.tcg.abilities`, Items' rules in :mod:`~p2php.games.tcg.items`, effects at timing
points (before a turn ...) in :mod:`~p2php.games.tcg.triggers`.  A card number in no table here is
not implemented (:func:`unimplemented`), and a deck holding one is refused before the game starts.

Decisions where the rules are silent (card texts are all there is, tcg.md "Not specified" item 1, 8):

* a Spell whose text must choose something (a Lesson, Creature or Item of the opponent's, a card in
  one's discard pile, a card of the opponent's hand) cannot be played when there is nothing to choose;
  "up to" and "if" effects (Accio, Homework, Raven to Writing Desk) can, since zero is allowed (FAQ 10);
* Lessons of one type in play are interchangeable, so "discard N of your Potions Lessons" and
  "choose 1 of your opponent's Charms Lessons" take the newest such Lessons without a question; "1 of
  your Lessons" (Platform 9 3/4) asks only for the type;
* "a Creature of your choice" / "a Creature in play" is any Creature in play, either side's;
* "Put a Creature card from your discard pile into your hand" moves the card face up: the pile is
  public (§0.3), so everyone knows that card of the hand;
* "During your opponent's next turn, prevent all damage done to you [by ...]" (Shield) covers that whole
  turn, its "before your turn" stage included (ruling rab1851a2), and damage of every kind named;
* pieces that need no question (Fumos, Nurture, Platform 9 3/4's Actions) act when the Spell resolves;
  no Spell of the set has such a piece after one that asks, so the printed order is kept.
"""

from __future__ import annotations

from p2php.engine.contract import Seat
from p2php.engine.tasks import Task
from p2php.games.tcg.abilities import DracoLook, SecondLesson
from p2php.games.tcg.adventures import ADVENTURES, DiscardAdventure, reward
from p2php.games.tcg.cards import Card, CardType, LessonType
from p2php.games.tcg.damage import Mill, damage_creature, draws
from p2php.games.tcg.items import ITEMS, item_blocked
from p2php.games.tcg.pieces import (
    CreaturesAttack,
    DamageCreatureByLessons,
    DamageEachCreature,
    DamageOpponent,
    DamageOpponentOrCreature,
    DiscardAllCreatures,
    DiscardCreature,
    DiscardFromHand,
    DiscardHand,
    DiscardInPlay,
    DiscardLesson,
    DiscardOwnCreature,
    DrawCards,
    EndAdventure,
    Exam,
    ExtraActions,
    FromDiscard,
    HandLessons,
    HealCreatures,
    Hex,
    KeepOneCreature,
    LookDiscard,
    LookDiscardKind,
    MayDamageCreature,
    OpponentDiscards,
    Piece,
    ReturnCreature,
    Search,
    Shield,
    ShowToPrevent,
    ShuffleIn,
    ToDeckBottom,
    TopCard,
)
from p2php.games.tcg.spells import (
    DiscardHandTask,
    ExamOrLesson,
    KeepOne,
    LookDiscardAll,
    LoseLesson,
    MayHitCreature,
    OwnDiscards,
    PickCreature,
    PickInPlay,
    PickTarget,
    Retrieve,
    RevealTop,
    ShowOrTake,
    search_deck,
    shuffle_in,
)
from p2php.games.tcg.state import TcgState

__all__ = ["CHARACTERS", "COSTS", "SPELLS", "VANILLA", "blocked_by_text", "pay_cost", "resolve", "unimplemented"]

CMC, CHARMS, TRANSFIG = LessonType.CARE_OF_MAGICAL_CREATURES, LessonType.CHARMS, LessonType.TRANSFIGURATION
POTIONS = LessonType.POTIONS
CREATURE, ITEM, LESSON = CardType.CREATURE, CardType.ITEM, CardType.LESSON

SPELLS: dict[int, tuple[Piece, ...]] = {
    14: (DiscardHand(),),  # Obliviate
    25: (DamageCreatureByLessons(LessonType.CHARMS),),  # Incendio (with no Creature in play it does nothing)
    35: (Shield("*"),),  # Shrinking Potion: all damage
    42: (EndAdventure(own=False, reward=False),),  # Apparate
    50: (EndAdventure(own=True, reward=True),),  # Draco's Trick
    56: (EndAdventure(own=False, reward=True),),  # Logic Puzzle
    66: (Hex("snuffle"),),  # Snuffling Potion
    86: (Hex("no_play"),),  # Forgetfulness Potion
    104: (ShowToPrevent(4, POTIONS),),  # Snape's Question
    81: (Shield("creature,adventure"),),  # Dungbomb (ruling rab1851a2: "Before your turn" damage too)
    111: (Shield("creature"),),  # Wingardium Leviosa!
    22: (DamageOpponentOrCreature(12),),  # Draught of Living Death
    24: (LookDiscardKind(CardType.ADVENTURE),),  # History of Magic
    26: (DamageOpponentOrCreature(10),),  # Malevolent Mixture
    32: (ExtraActions(2),),  # Platform 9 3/4
    34: (DiscardCreature(at_least=2),),  # Raven to Writing Desk
    36: (DamageOpponentOrCreature(3), OpponentDiscards(3)),  # Titillando
    37: (DiscardAllCreatures(),),  # Transfiguration Exam
    38: (KeepOneCreature(own=False), KeepOneCreature(own=True)),  # Transfiguration Test
    44: (DamageOpponentOrCreature(4),),  # Bluebell Flames
    47: (OpponentDiscards(2),),  # Confundus
    49: (DamageOpponentOrCreature(8),),  # Dogbreath Potion
    52: (DamageEachCreature(2),),  # Fumos
    58: (HealCreatures(),),  # Nurture
    59: (FromDiscard(ITEM, 1, exactly=True),),  # Ollivanders
    62: (ToDeckBottom(3), DrawCards(1)),  # Pomfrey's Pick-Me-Up
    63: (Exam(3),),  # Potions Exam
    67: (DamageOpponent(5),),  # Stupefy
    68: (DiscardCreature(by_opponent=True),),  # Take Root
    73: (FromDiscard(LESSON, 2),),  # Accio
    74: (DiscardLesson(CMC),),  # Avifors
    75: (DamageOpponentOrCreature(1), DrawCards(1)),  # Baubillious
    77: (ToDeckBottom(4),),  # Boil Cure
    79: (DiscardLesson(POTIONS),),  # Cauldron to Sieve
    82: (DiscardLesson(CHARMS),),  # Epoximise
    83: (DamageOpponentOrCreature(1),),  # Erumpent Potion
    84: (ReturnCreature(),),  # Fluffy Falls Asleep
    87: (DamageOpponentOrCreature(2),),  # Foul Brew
    89: (FromDiscard(CREATURE, 1, exactly=True),),  # Hagrid and the Stranger
    90: (HandLessons(2),),  # Homework
    92: (LookDiscard(),),  # Illegibilus
    93: (DiscardCreature(),),  # Incarcifors
    94: (DiscardInPlay((ITEM, LESSON)),),  # Lost Notes
    95: (DamageOpponent(3),),  # Magical Mishap
    96: (DamageOpponentOrCreature(5),),  # Noxious Poison
    97: (LookDiscardKind(CREATURE),),  # Out of the Woods
    100: (DiscardInPlay((CREATURE, ITEM)),),  # Potions Mistake
    102: (DiscardLesson(TRANSFIG),),  # Restricted Section
    105: (DiscardInPlay((ITEM,)),),  # Squiggle Quill
    106: (CreaturesAttack(),),  # Steelclaw
    108: (DamageOpponent(2), MayDamageCreature(2)),  # Toe Biter
    109: (DamageOpponentOrCreature(3),),  # Vermillious
    112: (TopCard(),),  # Wizard Crackers
    5: (ShuffleIn(16),),  # Elixir of Life
    45: (ShuffleIn(10),),  # Burning Bitterroot Balm
    91: (ShuffleIn(8),),  # Hospital Wing
    40: (Search(LESSON, 2),),  # Alchemy
    41: (Search(None, 1, "potions"),),  # Apothecary: "a card that needs Potions Power"
    57: (Search(CREATURE, 1),),  # Mysterious Egg
    69: (Search(CREATURE, 1),),  # Transmogrify
    71: (DiscardInPlay((LESSON,)), Search(CREATURE, 1)),  # Vanishing Glass: only if the opponent has a Lesson
}
"""Spell number -> its text as pieces, resolved in order."""


def _own(lesson: LessonType | None, count: int = 1) -> tuple[Piece, ...]:
    return (DiscardLesson(lesson, own=True, count=count),)


COSTS: dict[int, tuple[Piece, ...]] = {
    # Creatures: "To play this card, discard N of your Care of Magical Creatures Lessons from play."
    20: _own(CMC), 21: _own(CMC), 30: _own(CMC, 2), 43: _own(CMC), 55: _own(CMC), 85: _own(CMC), 88: _own(CMC),
    98: _own(CMC),
    # Spells: "... discard N of your Potions Lessons" / "1 of your Lessons"
    22: _own(POTIONS, 2), 26: _own(POTIONS, 2), 32: _own(None), 49: _own(POTIONS), 86: _own(POTIONS),
    96: _own(POTIONS),
    100: _own(POTIONS, 3),
    5: _own(POTIONS, 2), 45: _own(POTIONS), 91: _own(POTIONS),
    41: (DiscardFromHand(2),),  # Apothecary: "discard 2 other cards from your hand"
    69: (DiscardOwnCreature(),),  # Transmogrify: "discard 1 of your Creatures from play"
    # Items (Cauldrons)
    65: _own(POTIONS, 2), 99: _own(POTIONS),
}
"""Card number -> its additional cost, paid after the Power check (FAQ 4)."""

VANILLA = frozenset({28, 53, 76, 80, 103, 107, 110})
"""Creatures with no text: Mountain Troll, Guard Dog, Boa Constrictor, Curious Raven, Scottish Stag,
Surly Hound, Vicious Wolf."""

CREATURES = frozenset({20, 21, 29, 30, 43, 55, 61, 85, 88, 98})
"""Creatures whose text is their cost, or an effect elsewhere: Unicorn (Actions, ``turn``), Delivery Owl,
Kelpie, Pet Toad (``triggers``), Mrs Norris (``damage.Draw``, ``spells.OpenHand``), Norbert, Baby Dragon,
Forest Troll, Giant Tarantula, Pet Rat."""

CHARACTERS = frozenset({1, 2, 3, 7, 8, 9, 10, 13, 15, 16, 17, 18})
"""Characters whose ability is implemented (:mod:`~p2php.games.tcg.abilities`): Dean Thomas, Draco Malfoy,
Hannah Abbott, Harry Potter, Hermione Granger, Nearly Headless Nick, Professor Filius Flitwick, Professor Severus
Snape, Ron Weasley, Rubeus Hagrid."""


def unimplemented(card: Card) -> bool:
    """True when this engine cannot play ``card`` yet (a deck with it is refused)."""
    if card.type is CardType.LESSON:
        return False
    return not any(card.number in table for table in (SPELLS, VANILLA, CREATURES, CHARACTERS, ITEMS, ADVENTURES))


def _can(g: TcgState, seat: Seat, piece: Piece) -> bool:
    opp = 1 - seat
    if isinstance(piece, DiscardLesson):
        side = seat if piece.own else opp
        have = g.lessons[side] if piece.lesson is None else g.lessons_of(side, piece.lesson)
        return len(have) >= piece.count
    if isinstance(piece, DiscardCreature):
        return piece.at_least > 1 or bool(g.creatures[opp])
    if isinstance(piece, DiscardInPlay):
        zones = {LESSON: g.lessons[opp], CREATURE: g.creatures[opp], ITEM: g.items[opp]}
        return any(zones[k] for k in piece.kinds)
    if isinstance(piece, ReturnCreature):
        return bool(g.creatures[0] or g.creatures[1])
    if isinstance(piece, LookDiscard):
        return bool(g.hand[opp])
    if isinstance(piece, EndAdventure):
        return g.adventures[seat if piece.own else opp] >= 0
    if isinstance(piece, FromDiscard):
        return not piece.exactly or any(g.card(s).type is piece.kind for s in g.discard[seat])
    if isinstance(piece, DiscardFromHand):
        return len(g.hand[seat]) > piece.count  # the card being played is still in the hand: "other" cards
    if isinstance(piece, DiscardOwnCreature):
        return bool(g.creatures[seat])
    return True


def blocked_by_text(g: TcgState, seat: Seat, card: Card) -> str | None:
    """Why ``card``'s own text stops ``seat`` playing it now (nothing to choose, cost unpayable), or None."""
    for piece in (*SPELLS.get(card.number, ()), *COSTS.get(card.number, ())):
        if not _can(g, seat, piece):
            return f"{card.name} has nothing to act on"
    return item_blocked(g, seat, card)


def pay_cost(g: TcgState, seat: Seat, card: Card) -> None:
    """Pay a Creature's or Item's additional cost (after the Power check; its Lesson type is printed)."""
    for piece in COSTS.get(card.number, ()):
        assert isinstance(piece, DiscardLesson) and piece.lesson is not None
        for _ in range(piece.count):
            slot = g.lessons_of(seat, piece.lesson)[-1]
            g.remove_lesson(slot)
            g.log("lesson_lost", slot)


def resolve(g: TcgState, seat: Seat, card: Card) -> list[Task[TcgState]]:
    """The tasks of a Spell's cost and text (pieces needing no question act at once); run in order."""
    tasks: list[Task[TcgState]] = []
    for piece in (*COSTS.get(card.number, ()), *SPELLS.get(card.number, ())):
        tasks.extend(_piece(g, seat, piece))
    return tasks


def _piece(g: TcgState, seat: Seat, piece: Piece) -> list[Task[TcgState]]:  # noqa: PLR0911, C901
    opp = 1 - seat
    if isinstance(piece, DamageOpponent):
        return [Mill(opp, piece.amount)]
    if isinstance(piece, DamageOpponentOrCreature):
        return [PickTarget(seat, piece.amount)]
    if isinstance(piece, MayDamageCreature):
        return [MayHitCreature(seat, piece.amount)]
    if isinstance(piece, DamageCreatureByLessons):  # counted as the spell resolves
        return [MayHitCreature(seat, len(g.lessons_of(seat, piece.lesson)), optional=False)]
    if isinstance(piece, DiscardLesson):
        kind = piece.lesson.value if piece.lesson is not None else ""
        return [LoseLesson(seat if piece.own else opp, kind, piece.count)]
    if isinstance(piece, DiscardCreature):
        if len(g.creatures[opp]) < piece.at_least:
            return []
        return [PickCreature(opp if piece.by_opponent else seat, opp)]
    if isinstance(piece, DiscardInPlay):
        return [PickInPlay(seat, [k.value for k in piece.kinds])]
    if isinstance(piece, KeepOneCreature):
        side = seat if piece.own else opp
        return [KeepOne(side, side)]
    if isinstance(piece, ReturnCreature):
        return [PickCreature(seat, -1, home=True)]
    if isinstance(piece, FromDiscard):
        return [Retrieve(seat, piece.kind.value, piece.up_to, not piece.exactly)]
    if isinstance(piece, DrawCards):
        return list(draws(seat, piece.count))
    if isinstance(piece, DiscardHand):
        return [DiscardHandTask(opp)]
    if isinstance(piece, OpponentDiscards):
        return [OwnDiscards(opp, piece.count)]
    if isinstance(piece, LookDiscard):
        return [DracoLook(seat, optional=False)]
    if isinstance(piece, HandLessons):
        return [SecondLesson(seat, left=piece.count, prompt="homework")]
    if isinstance(piece, TopCard):
        return [RevealTop(seat)]
    if isinstance(piece, EndAdventure):
        slot = g.adventures[seat if piece.own else opp]
        return [DiscardAdventure(seat if piece.own else opp), *(reward(g, seat, slot) if piece.reward else [])]
    if isinstance(piece, LookDiscardKind):
        return [LookDiscardAll(seat, piece.kind.value)]
    if isinstance(piece, ToDeckBottom):
        return [Retrieve(seat, "", piece.up_to, True, only="non_healing", to_bottom=True)]
    if isinstance(piece, Exam):
        return [ExamOrLesson(opp, piece.count)]
    if isinstance(piece, ShowToPrevent):
        return [ShowOrTake(seat, piece.amount, piece.lesson.value)]
    if isinstance(piece, Search):
        return search_deck(seat, piece.kind.value if piece.kind is not None else "", piece.up_to, piece.only)
    if isinstance(piece, ShuffleIn):
        return shuffle_in(seat, piece.up_to)
    if isinstance(piece, DiscardFromHand):
        return [OwnDiscards(seat, piece.count)]
    if isinstance(piece, DiscardOwnCreature):
        return [PickCreature(seat, seat)]
    if isinstance(piece, CreaturesAttack):
        damage = g.creature_damage(seat)
        return [Mill(opp, damage, "creature")] if damage else []
    _act_now(g, seat, piece)
    return []


def _act_now(g: TcgState, seat: Seat, piece: Piece) -> None:
    """The pieces that need no question and no hidden card."""
    if isinstance(piece, ExtraActions):
        g.extra_actions += piece.count
    elif isinstance(piece, Shield):  # "During your opponent's next turn": the turn after this one
        g.shields.append([seat, g.turns + 1, piece.sources])
    elif isinstance(piece, Hex):
        g.shields.append([1 - seat, g.turns + 1, piece.what])
    elif isinstance(piece, DamageEachCreature):
        for slot in [c[0] for side in (1 - seat, seat) for c in g.creatures[side]]:
            damage_creature(g, slot, piece.amount)
    elif isinstance(piece, DiscardAllCreatures):
        for slot in [c[0] for side in (1 - seat, seat) for c in g.creatures[side]]:
            g.remove_creature(slot)
            g.log("dies", slot)
    elif isinstance(piece, HealCreatures):
        for entry in g.creatures[seat]:
            entry[1] = 0
    else:  # pragma: no cover - every piece is handled above
        raise TypeError(f"unhandled piece {piece!r}")
