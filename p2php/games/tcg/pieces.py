"""The pieces card texts are made of: small frozen records, keyed by card number in :mod:`~p2php.games.tcg.effects`.

Each piece is one sentence of a card's text that recurs across the set ("Do N damage to your opponent
or to a Creature of your choice", "discard N of your X Lessons from play"), so a later set is mostly a
table of these.  What a piece does is in :func:`p2php.games.tcg.effects.resolve`.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2php.games.tcg.cards import CardType, LessonType

__all__ = [
    "CreaturesAttack", "DamageCreatureByLessons",
    "DamageEachCreature", "DamageOpponent", "DamageOpponentOrCreature", "DiscardAllCreatures",
    "DiscardCreature", "DiscardHand", "DiscardInPlay", "DiscardLesson", "DrawCards", "ExtraActions", "FromDiscard",
    "HandLessons", "HealCreatures", "KeepOneCreature", "LookDiscard", "MayDamageCreature", "OpponentDiscards",
    "EndAdventure", "Exam", "Hex", "LookDiscardKind", "Piece", "ReturnCreature", "Shield", "ShowToPrevent",
    "ToDeckBottom", "TopCard", "DiscardFromHand", "DiscardOwnCreature", "Search", "ShuffleIn",
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
class MayDamageCreature:
    """"You may also choose a Creature and do ``amount`` damage to it" (Toe Biter)."""

    amount: int


@dataclass(frozen=True, slots=True)
class DamageCreatureByLessons:
    """"Count the number of ``lesson`` Lessons you have in play. Do that much damage to a Creature of your
    choice" (Incendio): a Creature must be chosen if any is in play."""

    lesson: LessonType


@dataclass(frozen=True, slots=True)
class DamageEachCreature:
    """Do ``amount`` damage to each Creature, both sides (Fumos)."""

    amount: int


@dataclass(frozen=True, slots=True)
class DiscardAllCreatures:
    """Discard every Creature in play, both sides (Transfiguration Exam)."""


@dataclass(frozen=True, slots=True)
class HealCreatures:
    """Remove all damage counters from your Creatures (Nurture)."""


@dataclass(frozen=True, slots=True)
class CreaturesAttack:
    """All your Creatures do their damage to your opponent now (Steelclaw)."""


@dataclass(frozen=True, slots=True)
class DiscardLesson:
    """Discard ``count`` Lessons in play of ``lesson`` type: the opponent's, or (``own``) yours.

    ``lesson=None`` is "1 of your Lessons" of any type: the owner chooses the type.
    """

    lesson: LessonType | None
    own: bool = False
    count: int = 1


@dataclass(frozen=True, slots=True)
class DiscardCreature:
    """Discard one of your opponent's Creatures, chosen by you or (``by_opponent``) by them.

    ``at_least`` > 1: only if they have that many ("If your opponent has 2 or more Creatures ...").
    """

    by_opponent: bool = False
    at_least: int = 1


@dataclass(frozen=True, slots=True)
class DiscardInPlay:
    """Choose one of your opponent's cards in play of these ``kinds`` and discard it (Squiggle Quill ...)."""

    kinds: tuple[CardType, ...]


@dataclass(frozen=True, slots=True)
class KeepOneCreature:
    """Transfiguration Test: a side with 2 or more Creatures keeps 1 (its owner's or the caster's choice)."""

    own: bool


@dataclass(frozen=True, slots=True)
class ReturnCreature:
    """Choose a Creature in play (either side's) and return it to its owner's hand."""


@dataclass(frozen=True, slots=True)
class FromDiscard:
    """Put ``up_to`` cards of ``kind`` from your discard pile into your hand (``exactly``: one is a must)."""

    kind: CardType
    up_to: int
    exactly: bool = False


@dataclass(frozen=True, slots=True)
class DrawCards:
    """Draw ``count`` cards."""

    count: int


@dataclass(frozen=True, slots=True)
class ExtraActions:
    """You get ``count`` more Actions this turn."""

    count: int


@dataclass(frozen=True, slots=True)
class DiscardHand:
    """Your opponent discards his or her hand."""


@dataclass(frozen=True, slots=True)
class OpponentDiscards:
    """Your opponent chooses ``count`` cards in his or her hand and discards them (all, if fewer)."""

    count: int


@dataclass(frozen=True, slots=True)
class LookDiscard:
    """Look at your opponent's hand; choose 1 of those cards and discard it (Illegibilus)."""


@dataclass(frozen=True, slots=True)
class HandLessons:
    """Put up to ``count`` Lesson cards from your hand into play (Homework)."""

    count: int


@dataclass(frozen=True, slots=True)
class Shield:
    """During your opponent's next turn, prevent all damage done to you by ``sources`` ("*": all damage)."""

    sources: str


@dataclass(frozen=True, slots=True)
class Hex:
    """During your opponent's next turn, ``what`` holds for him or her ("no_play": can't play cards;
    "snuffle": each card drawn is discarded instead)."""

    what: str


@dataclass(frozen=True, slots=True)
class ShowToPrevent:
    """Do ``amount`` damage to your opponent, unless he or she shows a ``lesson`` Lesson from the hand."""

    amount: int
    lesson: LessonType


@dataclass(frozen=True, slots=True)
class EndAdventure:
    """Discard the Adventure your opponent (``own``: you) has in play; ``reward``: you get its reward."""

    own: bool
    reward: bool


@dataclass(frozen=True, slots=True)
class Exam:
    """Your opponent discards ``count`` of his or her cards in play, unless he or she discards a Potions Lesson."""

    count: int


@dataclass(frozen=True, slots=True)
class ToDeckBottom:
    """Put up to ``up_to`` non-Healing cards from your discard pile on the bottom of your deck (in any order)."""

    up_to: int


@dataclass(frozen=True, slots=True)
class LookDiscardKind:
    """Look at your opponent's hand. Discard all ``kind`` cards from it (History of Magic, Out of the Woods)."""

    kind: CardType


@dataclass(frozen=True, slots=True)
class TopCard:
    """Reveal your top card: a Lesson goes into play, anything else into your hand (Wizard Crackers)."""


@dataclass(frozen=True, slots=True)
class Search:
    """Search your deck; you may take up to ``up_to`` cards of ``kind`` (``None``: any; ``only="potions"``: a card
    that needs Potions Power), show them to your opponent and put them into your hand. Then shuffle your deck."""

    kind: CardType | None
    up_to: int
    only: str = ""


@dataclass(frozen=True, slots=True)
class ShuffleIn:
    """Shuffle up to ``up_to`` non-Healing cards from your discard pile into your deck (Elixir of Life ...)."""

    up_to: int


@dataclass(frozen=True, slots=True)
class DiscardFromHand:
    """An additional cost: discard ``count`` other cards from your hand (Apothecary)."""

    count: int


@dataclass(frozen=True, slots=True)
class DiscardOwnCreature:
    """An additional cost: discard 1 of your Creatures from play, of your choice (Transmogrify)."""


Piece = (DamageOpponent | DamageOpponentOrCreature | MayDamageCreature | DamageCreatureByLessons
         | DamageEachCreature | DiscardAllCreatures
         | HealCreatures | CreaturesAttack | DiscardLesson | DiscardCreature | DiscardInPlay | KeepOneCreature
         | ReturnCreature | FromDiscard | DrawCards | ExtraActions | DiscardHand | OpponentDiscards | LookDiscard
         | HandLessons | Shield | Hex | ShowToPrevent | EndAdventure | Exam | ToDeckBottom | LookDiscardKind | TopCard
         | Search | ShuffleIn | DiscardFromHand | DiscardOwnCreature)
