"""Every Base Set card played through the real protocol (issue 11): fifteen long stacked duels, each in both modes.

Each *scene* below is one duel over stacked constructed decks that plays a handful of cards in turn, through real
actions, asserting each card's effect as it goes (``@scene`` names the cards it plays).  The test runs a scene twice
with the same script: on a trusted local dealer (engine mode), then through the protocol (two real peers in
memory, both secret 60-card decks stacked through the card crypto, the fast deck unless the scene asks for the
verified one), and checks that

* every assertion of the script holds in both modes;
* the two runs end in the same state hash (so each card's effect is the same through the lockstep and the crypto);
* every card the scene names was played from a hand (the log's ``play`` entries, through the protocol);
* both peers' audits come out clean (:meth:`~p2php.testing.tcg.Duel.finish`).

:func:`test_every_base_set_card_has_a_protocol_scene` fails when a card number of the data is in no scene.  The
scenes share a duel only to save set-ups (one per scene: ≈ 0.2 s with the fast deck, ≈ 2 s with the verified one, plus
the audit; the file takes ≈ 20 s on one core, two scenes verified); the finer points of each card stay in the
engine-mode tests (``test_tcg_base_set.py``, ``test_tcg_cards*.py``).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from typing import Any

import pytest

from p2php.games.tcg.cards import BASE_SET, LessonType, card_by_name, cards_named
from p2php.games.tcg.power import power
from p2php.testing.tcg import Duel

CMC, POT, TR, CH = "Care of Magical Creatures", "Potions", "Transfiguration", "Charms"
HAS_COINCURVE = importlib.util.find_spec("coincurve") is not None

Make = Callable[..., Duel]
Script = Callable[[Make], Duel]
SCENES: dict[str, tuple[tuple[str, ...], Script, str]] = {}


def scene(*cards: str, crypto: str = "fast") -> Callable[[Script], Script]:
    """Register a scene playing ``cards`` (names, or labels such as ``Draco Malfoy (Base 3)``)."""
    def wrap(script: Script) -> Script:
        SCENES[script.__name__.removeprefix("scene_")] = (cards, script, crypto)
        return script
    return wrap


def number_of(name: str) -> int:
    m = re.fullmatch(r".* \(Base (\d+)\)", name)
    if m:
        return int(m.group(1))
    assert len(cards_named(name)) == 1, f"{name!r} has two versions: name one by its label"
    return card_by_name(name).number


# ----------------------------------------------------------------------------- helpers for scripts


def deck(d: Duel, seat: int) -> int:
    return len(d.state.deck[seat])


def hand(d: Duel, seat: int) -> int:
    return len(d.state.hand[seat])


def hits(d: Duel, seat: int) -> int:
    """What ``seat``'s Creatures do at the start of its turn: the printed damage (the scripts use it only while no
    Rubeus Hagrid or Winged Keys changes that)."""
    return sum(d.state.card(s).damage or 0 for s, _ in d.state.creatures[seat])


def pass_turn(d: Duel, seat: int) -> None:
    """``seat`` ends its turn; the opponent's turn begins (its draw, its Creatures' damage to ``seat``)."""
    other = 1 - seat
    mine, theirs, damage = deck(d, seat), deck(d, other), hits(d, other)
    d.end_turn(seat)
    assert deck(d, seat) == mine - damage and deck(d, other) == theirs - 1


def last_action(d: Duel, seat: int, action: dict[str, Any], prompt: str = "action", dealt: int = 0,
                used: int = 0) -> None:
    """``seat``'s last Action of the turn, which does ``dealt`` damage to the opponent and takes ``used`` cards of
    its own deck: the turn passes (as :func:`pass_turn` checks)."""
    other = 1 - seat
    mine, theirs = deck(d, seat), deck(d, other)
    d.act(seat, action, prompt)
    assert d.state.turn == other
    assert deck(d, seat) == mine - used - hits(d, other) and deck(d, other) == theirs - dealt - 1


def take(d: Duel, seat: int, *slots: int) -> None:
    """``seat`` takes ``slots`` (from the discard pile), then stops if it may take more."""
    for slot in slots:
        d.act(seat, {"type": "take", "slot": slot}, "retrieve")
    if d.prompt == "retrieve":
        d.act(seat, {"type": "stop"}, "retrieve")


def why(d: Duel, seat: int, name: str) -> str | None:
    """Why ``seat`` cannot play ``name`` now (with 2 Actions), or None."""
    from p2php.games.tcg.turn import why_not

    return why_not(d.state, seat, card_by_name(name), 2)


def lessons(d: Duel, seat: int, kind: str) -> int:
    return d.names(seat, "lessons").count(kind)


def creature(d: Duel, seat: int, name: str) -> int:
    return d.slot(seat, name, "creatures")


def counters(d: Duel, slot: int) -> int:
    return next(c[1] for side in d.state.creatures for c in side if c[0] == slot)


# ----------------------------------------------------------------------------- Creatures


@scene("Mountain Troll", "Guard Dog", "Scottish Stag", "Vicious Wolf", "Norbert", "Baby Dragon",
       "Boa Constrictor", "Surly Hound", "Curious Raven", "Giant Tarantula", "Pet Rat", "Forest Troll")
def scene_creatures(make: Make) -> Duel:
    """Creatures pay their Power (and Lessons to discard), then hit the opponent from their owner's next turn."""
    mine = ["Scottish Stag", "Baby Dragon", "Vicious Wolf", "Guard Dog", "Mountain Troll", "Norbert"]
    theirs = ["Boa Constrictor", "Surly Hound", "Curious Raven", "Giant Tarantula", "Pet Rat", "Forest Troll"]
    d = make(first=0, decks={0: mine, 1: theirs}, hands={0: mine, 1: theirs}, in_play={0: [CMC] * 12, 1: [CMC] * 6})
    paid = {"Norbert": 2, "Baby Dragon": 1, "Giant Tarantula": 1, "Pet Rat": 1, "Forest Troll": 1}
    for turn in range(3):
        for seat, cards in ((0, mine), (1, theirs)):
            for i, name in enumerate(cards[2 * turn:2 * turn + 2]):
                before = len(d.state.lessons[seat])
                if i == 0:
                    d.act(seat, d.play(seat, name), "action")
                else:  # the last Action: the turn passes, and the opponent's Creatures hit (not the new ones)
                    last_action(d, seat, d.play(seat, name))
                assert d.names(seat, "creatures")[-1] == name
                assert len(d.state.lessons[seat]) == before - paid.get(name, 0)
    assert hits(d, 0) == 1 + 3 + 3 + 3 + 4 + 5 and hits(d, 1) == 2 + 1 + 1 + 2 + 1 + 2
    pass_turn(d, 0)
    return d


@scene("Unicorn", "Delivery Owl", "Mrs Norris", "Kelpie", "Pet Toad", "Stupefy")
def scene_creatures_with_effects(make: Make) -> Duel:
    """Unicorn's Action, Delivery Owl's draw, Mrs Norris's open hand; Kelpie and Pet Toad take a Spell's damage."""
    d = make(first=0, decks={0: ["Unicorn", "Delivery Owl", "Mrs Norris", "Stupefy", "Stupefy"],
                             1: ["Kelpie", "Pet Toad"]},
             hands={0: ["Unicorn", "Delivery Owl", "Mrs Norris", "Stupefy", "Stupefy"], 1: ["Kelpie", "Pet Toad"]},
             in_play={0: [CMC] * 7 + [CH] * 6, 1: [CMC] * 4})
    d.act(0, d.play(0, "Unicorn"), "action")  # one more Action this turn: 2 left
    d.act(0, d.play(0, "Delivery Owl"), "action")
    assert d.prompt == "action" and d.state.turn == 0
    d.act(0, d.play(0, "Mrs Norris"), "action")  # the third Action
    assert d.names(0, "creatures") == ["Unicorn", "Delivery Owl", "Mrs Norris"] and lessons(d, 0, CMC) == 5
    assert d.state.turn == 1 and all(s in d.table.public for s in d.state.hand[1])  # with the card just drawn
    d.act(1, d.play(1, "Kelpie"), "action")
    cards = hand(d, 0)
    d.act(1, d.play(1, "Pet Toad"), "action")  # seat 0's turn: the Owl draws before it, then the turn's draw
    assert hand(d, 0) == cards + 2 and d.state.turn == 0 and ["effect", 0, 21] in d.state.events
    before = deck(d, 1)
    d.act(0, d.play(0, "Stupefy"), "action")
    d.act(1, {"type": "invoke"}, "skill:55")  # Kelpie takes all 5 (5 Health: discarded)
    assert deck(d, 1) == before and "Kelpie" in d.names(1, "discard")
    d.act(0, d.play(0, "Stupefy"), "action")
    d.act(1, {"type": "invoke"}, "skill:61")  # Pet Toad takes them (the excess disappears)
    assert deck(d, 1) == before and d.state.creatures[1] == [] and "Pet Toad" in d.names(1, "discard")
    d.act(0, {"type": "draw"}, "action")  # the Unicorn's third Action
    assert d.state.turn == 1
    return d


# ----------------------------------------------------------------------------- Spells that do damage


@scene("Magical Mishap", "Stupefy", "Bluebell Flames", "Incendio", "Vermillious", "Toe Biter", "Baubillious",
       "Titillando")
def scene_charms_damage(make: Make) -> Duel:
    """Charms Spells hit the opponent or a Creature of the caster's choice; Incendio counts the Charms Lessons."""
    spells = ["Magical Mishap", "Stupefy", "Bluebell Flames", "Incendio", "Vermillious", "Toe Biter", "Baubillious"]
    d = make(first=0, decks={0: [*spells, "Titillando"], 1: ["Guard Dog", "Scottish Stag"]},
             hands={0: spells}, draws={0: ["Titillando"]}, in_play={0: [CH] * 9, 1: ["Guard Dog", "Scottish Stag"]})
    dog, stag = creature(d, 1, "Guard Dog"), creature(d, 1, "Scottish Stag")
    before = deck(d, 1)
    d.act(0, d.play(0, "Magical Mishap"), "action")
    assert deck(d, 1) == before - 3 and d.names(0, "discard") == ["Magical Mishap"]
    last_action(d, 0, d.play(0, "Stupefy"), dealt=5)
    pass_turn(d, 1)
    d.act(0, d.play(0, "Bluebell Flames"), "action")
    d.act(0, {"type": "target", "slot": dog}, "target")
    assert counters(d, dog) == 4
    d.act(0, d.play(0, "Incendio"), "action")
    d.act(0, {"type": "target", "slot": stag}, "target")  # 9 Charms Lessons: 9 damage, 5 Health
    assert "Scottish Stag" in d.names(1, "discard") and d.names(1, "creatures") == ["Guard Dog"]
    pass_turn(d, 1)
    before = deck(d, 1)
    d.act(0, d.play(0, "Vermillious"), "action")
    d.act(0, {"type": "target", "seat": 1}, "target")
    assert deck(d, 1) == before - 3
    d.act(0, d.play(0, "Toe Biter"), "action")
    assert deck(d, 1) == before - 5
    d.act(0, {"type": "target", "slot": dog}, "target")  # and 2 to the Dog: 6 counters, 5 Health
    assert d.state.creatures[1] == [] and d.names(1, "discard")[-1] == "Guard Dog"
    assert d.state.turn == 1
    pass_turn(d, 1)
    cards = hand(d, 0)
    d.act(0, d.play(0, "Baubillious"), "action")
    d.act(0, {"type": "target", "seat": 1}, "target")
    assert hand(d, 0) == cards  # the Spell out, a card drawn
    before, their_hand, pile = deck(d, 1), hand(d, 1), len(d.state.discard[1])
    d.act(0, d.play(0, "Titillando"), "action")
    d.act(0, {"type": "target", "seat": 1}, "target")
    for _ in range(3):
        d.act(1, {"type": "discard", "slot": d.state.hand[1][0]}, "discard_own")
    assert deck(d, 1) == before - 3 - 1 and hand(d, 1) == their_hand - 3 + 1  # then seat 1's turn: its draw
    assert len(d.state.discard[1]) == pile + 3 + 3
    return d


@scene("Draught of Living Death", "Malevolent Mixture", "Dogbreath Potion", "Noxious Poison", "Foul Brew",
       "Erumpent Potion", "Snape's Question", "Potions Exam")
def scene_potions_damage(make: Make) -> Duel:
    """Potions Spells: their Lessons to discard, damage to the opponent or a Creature; Snape's Question prevented by a
    Potions Lesson shown from the hand (a Show through the crypto)."""
    spells = ["Draught of Living Death", "Malevolent Mixture", "Dogbreath Potion", "Noxious Poison", "Foul Brew",
              "Erumpent Potion", "Snape's Question"]
    d = make(first=0, decks={0: [*spells, "Potions Exam", *[POT] * 18], 1: ["Vicious Wolf", "Pet Rat", POT, POT]},
             hands={0: spells, 1: [POT]}, draws={0: ["Potions Exam"]},
             in_play={0: [POT] * 18, 1: ["Vicious Wolf", "Pet Rat", POT, CH]})
    wolf = creature(d, 1, "Vicious Wolf")
    paid = {"Draught of Living Death": 2, "Malevolent Mixture": 2, "Dogbreath Potion": 1, "Noxious Poison": 1}
    amount = {"Draught of Living Death": 12, "Dogbreath Potion": 8, "Noxious Poison": 5, "Foul Brew": 2,
              "Erumpent Potion": 1}
    for i, spell in enumerate(["Draught of Living Death", "Malevolent Mixture", "Dogbreath Potion", "Noxious Poison",
                               "Foul Brew", "Erumpent Potion"]):
        before, cost = deck(d, 1), len(d.state.lessons[0])
        d.act(0, d.play(0, spell), "action")
        assert len(d.state.lessons[0]) == cost - paid.get(spell, 0)
        if spell == "Malevolent Mixture":
            d.act(0, {"type": "target", "slot": wolf}, "target")  # 10 damage, 3 Health
            assert d.names(1, "creatures") == ["Pet Rat"] and d.names(1, "discard")[-1] == "Vicious Wolf"
        else:
            d.act(0, {"type": "target", "seat": 1}, "target")
            assert deck(d, 1) == before - amount[spell] - (i % 2)  # after the turn's second Spell, seat 1 drew
        if i % 2:
            pass_turn(d, 1)
    assert len(d.state.lessons[0]) == 18 - 6
    lesson, before = d.slot(1, POT), deck(d, 1)
    d.act(0, d.play(0, "Snape's Question"), "action")
    d.act(1, {"type": "show", "slot": lesson}, "show")
    assert deck(d, 1) == before and lesson in d.table.public and lesson in d.state.hand[1]
    d.act(0, d.play(0, "Potions Exam"), "action")
    d.act(1, {"type": "prevent"}, "exam")  # a Potions Lesson from play instead of 3 cards in play
    assert d.names(1, "lessons") == [CH] and d.names(1, "creatures") == ["Pet Rat"]
    return d


# ----------------------------------------------------------------------------- Spells that discard from play


@scene("Avifors", "Epoximise", "Cauldron to Sieve", "Restricted Section", "Squiggle Quill", "Lost Notes",
       "Potions Mistake")
def scene_discard_lessons_and_items(make: Make) -> Duel:
    """Spells that discard an opponent's Lesson of one type, an Item, an Item or a Lesson, a Creature or an Item."""
    spells = ["Avifors", "Epoximise", "Cauldron to Sieve", "Restricted Section", "Squiggle Quill", "Lost Notes",
              "Potions Mistake"]
    d = make(first=0, decks={0: spells, 1: ["Borrowed Wand", "Pewter Cauldron", "Cage"]}, hands={0: spells},
             in_play={0: [TR] * 6 + [POT] * 6, 1: [CMC, CH, POT, TR, "Borrowed Wand", "Pewter Cauldron", "Cage"]})
    for spell, victim in (("Avifors", CMC), ("Epoximise", CH), ("Cauldron to Sieve", POT),
                          ("Restricted Section", TR)):
        d.act(0, d.play(0, spell), "action")
        assert victim not in d.names(1, "lessons") and d.names(1, "discard")[-1] == victim
        if d.state.turn == 1:
            pass_turn(d, 1)
    assert d.state.lessons[1] == []
    wand, cauldron, cage = (d.slot(1, n, "items") for n in ("Borrowed Wand", "Pewter Cauldron", "Cage"))
    d.act(0, d.play(0, "Squiggle Quill"), "action")
    d.act(0, {"type": "in_play", "slot": wand}, "in_play")
    assert sorted(d.names(1, "items")) == ["Cage", "Pewter Cauldron"] and d.names(1, "discard")[-1] == "Borrowed Wand"
    d.act(0, d.play(0, "Lost Notes"), "action")
    last_action(d, 0, {"type": "in_play", "slot": cauldron}, "in_play")
    assert d.names(1, "items") == ["Cage"] and d.names(1, "discard")[-1] == "Pewter Cauldron"
    pass_turn(d, 1)
    d.act(0, d.play(0, "Potions Mistake"), "action")
    d.act(0, {"type": "in_play", "slot": cage}, "in_play")
    assert d.state.items[1] == [] and d.names(1, "discard")[-1] == "Cage" and lessons(d, 0, POT) == 3
    return d


@scene("Fluffy Falls Asleep", "Incarcifors", "Take Root", "Raven to Writing Desk", "Transfiguration Test",
       "Transfiguration Exam")
def scene_discard_creatures(make: Make) -> Duel:
    """Spells that return or discard Creatures: the caster's choice, the opponent's, each side keeping one, all."""
    spells = ["Fluffy Falls Asleep", "Incarcifors", "Take Root", "Raven to Writing Desk", "Transfiguration Test",
              "Transfiguration Exam"]
    theirs = ["Surly Hound", "Curious Raven", "Pet Rat", "Boa Constrictor", "Scottish Stag", "Kelpie"]
    d = make(first=0, decks={0: [*spells, "Pet Rat", "Curious Raven"], 1: theirs}, hands={0: spells},
             in_play={0: [TR] * 10 + [CMC] * 3 + ["Pet Rat", "Curious Raven"], 1: theirs})
    kelpie = creature(d, 1, "Kelpie")
    d.act(0, d.play(0, "Fluffy Falls Asleep"), "action")
    d.act(0, {"type": "creature", "slot": kelpie}, "creature")
    assert kelpie in d.state.hand[1] and kelpie in d.table.public and "Kelpie" not in d.names(1, "creatures")
    d.act(0, d.play(0, "Incarcifors"), "action")
    last_action(d, 0, {"type": "creature", "slot": creature(d, 1, "Boa Constrictor")}, "creature")
    assert "Boa Constrictor" in d.names(1, "discard")
    pass_turn(d, 1)
    d.act(0, d.play(0, "Take Root"), "action")
    d.act(1, {"type": "creature", "slot": creature(d, 1, "Scottish Stag")}, "creature")  # the opponent chooses
    assert sorted(d.names(1, "creatures")) == ["Curious Raven", "Pet Rat", "Surly Hound"]
    d.act(0, d.play(0, "Raven to Writing Desk"), "action")
    last_action(d, 0, {"type": "creature", "slot": creature(d, 1, "Surly Hound")}, "creature")
    assert sorted(d.names(1, "creatures")) == ["Curious Raven", "Pet Rat"]
    pass_turn(d, 1)
    d.act(0, d.play(0, "Transfiguration Test"), "action")
    d.act(1, {"type": "keep", "slot": creature(d, 1, "Pet Rat")}, "keep")  # the opponent chooses first
    d.act(0, {"type": "keep", "slot": creature(d, 0, "Curious Raven")}, "keep")
    assert d.names(1, "creatures") == ["Pet Rat"] and d.names(0, "creatures") == ["Curious Raven"]
    d.act(0, d.play(0, "Transfiguration Exam"), "action")
    assert d.state.creatures == [[], []] and "Curious Raven" in d.names(0, "discard")
    return d


@scene("History of Magic", "Out of the Woods", "Illegibilus", "Confundus", "Obliviate", crypto="verified")
def scene_hand_spells(make: Make) -> Duel:
    """Spells that look at the opponent's hand (a private show to the caster) and discard from it.

    Through the verified deck: the looks and every discard go through its proofs."""
    spells = ["History of Magic", "Out of the Woods", "Illegibilus", "Confundus", "Obliviate"]
    theirs = ["Dragon's Escape", "Guard Dog", "Pet Rat", "Apparate"]
    d = make(first=0, decks={0: spells, 1: theirs}, hands={0: spells, 1: theirs}, in_play={0: [CH] * 12})
    adventure, dog, rat, apparate = (d.slot(1, n) for n in theirs)
    d.act(0, d.play(0, "History of Magic"), "action")
    assert all(d.table.knowledge(0).face(s) is not None for s in d.state.hand[1])  # the caster sees the hand
    d.act(0, {"type": "discard", "slot": adventure}, "discard_all")
    d.act(0, {"type": "stop"}, "discard_all")
    assert d.names(1, "discard") == ["Dragon's Escape"]
    d.act(0, d.play(0, "Out of the Woods"), "action")
    d.act(0, {"type": "discard", "slot": dog}, "discard_all")
    d.act(0, {"type": "discard", "slot": rat}, "discard_all")
    d.act(0, {"type": "stop"}, "discard_all")
    assert d.names(1, "discard") == ["Dragon's Escape", "Guard Dog", "Pet Rat"] and apparate not in d.table.public
    pass_turn(d, 1)
    d.act(0, d.play(0, "Illegibilus"), "action")
    d.act(0, {"type": "discard", "slot": apparate}, "draco")
    assert d.names(1, "discard")[-1] == "Apparate"
    cards = hand(d, 1)
    d.act(0, d.play(0, "Confundus"), "action")
    for _ in range(2):
        d.act(1, {"type": "discard", "slot": d.state.hand[1][0]}, "discard_own")
    assert hand(d, 1) == cards - 2 + 1  # and seat 1's turn: its draw
    pass_turn(d, 1)
    d.act(0, d.play(0, "Obliviate"), "action")
    assert d.state.hand[1] == []
    return d


# ----------------------------------------------------------------------------- one-turn effects


@scene("Wingardium Leviosa!", "Dungbomb", "Shrinking Potion", "Forgetfulness Potion", "Snuffling Potion")
def scene_next_turn_effects(make: Make) -> Duel:
    """Spells whose effect lasts through the opponent's next turn: damage prevented, no plays, draws discarded."""
    spells = ["Wingardium Leviosa!", "Dungbomb", "Shrinking Potion", "Forgetfulness Potion", "Snuffling Potion"]
    d = make(first=1, decks={0: ["Guard Dog", "Stupefy", "Stupefy"], 1: spells}, hands={0: ["Stupefy", "Stupefy"],
             1: spells}, in_play={0: ["Guard Dog"] + [CH] * 6, 1: [CH] * 2 + [POT] * 10})
    for spell in ("Wingardium Leviosa!", "Dungbomb"):
        d.act(1, d.play(1, spell), "action")
        before = deck(d, 1)
        d.end_turn(1)
        assert deck(d, 1) == before  # the Dog's 3 damage prevented
        d.end_turn(0)
    d.act(1, d.play(1, "Shrinking Potion"), "action")
    d.end_turn(1)
    before = deck(d, 1)
    d.act(0, d.play(0, "Stupefy"), "action")
    assert deck(d, 1) == before  # all damage prevented: the Dog's, then the Spell's
    d.end_turn(0)
    d.act(1, d.play(1, "Forgetfulness Potion"), "action")
    assert lessons(d, 1, POT) == 9
    d.end_turn(1)
    assert not any(a["type"] == "play" for a in d.legal(0)) and deck(d, 1) == before - 1 - 3
    d.end_turn(0)
    d.act(1, d.play(1, "Snuffling Potion"), "action")
    cards, pile = hand(d, 0), len(d.state.discard[0])
    d.end_turn(1)
    assert hand(d, 0) == cards and len(d.state.discard[0]) == pile + 1  # the turn's draw went to the pile
    d.act(0, {"type": "draw"}, "action")
    assert hand(d, 0) == cards and len(d.state.discard[0]) == pile + 2
    return d


# ----------------------------------------------------------------------------- Lessons, Actions, the discard pile


@scene(CMC, CH, POT, TR, "Platform 9 3/4", "Accio", "Homework", "Wizard Crackers", "Fumos", "Nurture",
       "Hagrid and the Stranger", "Steelclaw", "Boil Cure", "Pomfrey's Pick-Me-Up")
def scene_lessons_and_the_pile(make: Make) -> Duel:
    """The four Lessons; Spells that give Actions, put Lessons into play, damage or heal Creatures, and take cards
    back from the discard pile (into the hand, or onto the bottom of the deck)."""
    first = [CMC, CH, POT, TR, "Platform 9 3/4", "Accio", "Homework"]
    later = ["Wizard Crackers", CMC, "Fumos", CH, "Nurture", "Hagrid and the Stranger", "Steelclaw", "Boil Cure",
             "Pomfrey's Pick-Me-Up"]
    d = make(first=0, decks={0: [*first, *later, "Guard Dog", "Curious Raven"], 1: ["Unicorn"]},
             characters={0: "Ron Weasley"}, hands={0: first}, draws={0: later},
             in_play={0: [TR, TR, CH, "Guard Dog", "Curious Raven"], 1: ["Unicorn"]})  # no Creature mills seat 0
    for lesson in (CMC, CH, POT, TR):  # each Lesson gives 1 Power of its type
        kind = card_by_name(lesson).lesson
        assert kind is not None
        had = power(d.state, 0)[kind]
        d.act(0, d.play(0, lesson), "action")
        assert power(d.state, 0)[kind] == had + 1 and d.slot(0, lesson, "lessons") in d.table.public
        if d.state.turn == 1:
            pass_turn(d, 1)
    assert sorted(d.names(0, "lessons")) == sorted([TR, TR, CH, CMC, CH, POT, TR])
    d.act(0, d.play(0, "Platform 9 3/4"), "action")
    d.act(0, {"type": "lesson", "lesson": "potions"}, "lesson")  # its cost: a Lesson from play
    assert POT not in d.names(0, "lessons") and d.names(0, "discard") == [POT, "Platform 9 3/4"]
    d.act(0, d.play(0, "Accio"), "action")  # 2 more Actions: 3 left, now 2
    take(d, 0, d.slot(0, POT, "discard"))
    assert POT in [d.name(s) for s in d.state.hand[0]]
    d.act(0, d.play(0, "Homework"), "action")
    d.act(0, d.play(0, POT), "homework")
    d.act(0, d.play(0, CMC), "homework")
    assert d.names(0, "lessons")[-2:] == [POT, CMC] and d.prompt == "action"
    lessons_before = len(d.state.lessons[0])
    last_action(d, 0, d.play(0, "Wizard Crackers"), used=1)  # the top card is a Charms Lesson: into play
    assert len(d.state.lessons[0]) == lessons_before + 1 and d.names(0, "lessons")[-1] == CH
    pass_turn(d, 1)
    dog, raven, rat = creature(d, 0, "Guard Dog"), creature(d, 0, "Curious Raven"), creature(d, 1, "Unicorn")
    d.act(0, d.play(0, "Fumos"), "action")  # 2 damage to every Creature
    assert counters(d, dog) == 2 and counters(d, rat) == 2 and "Curious Raven" in d.names(0, "discard")
    last_action(d, 0, d.play(0, "Nurture"))
    assert counters(d, dog) == 0 and counters(d, rat) == 2
    pass_turn(d, 1)
    d.act(0, d.play(0, "Hagrid and the Stranger"), "action")
    take(d, 0, raven)
    assert raven in d.state.hand[0]
    d.act(0, {"type": "draw"}, "action")
    pass_turn(d, 1)
    before = deck(d, 1)
    d.act(0, d.play(0, "Steelclaw"), "action")  # the Dog's 3 damage now
    assert deck(d, 1) == before - 3
    size = deck(d, 0)
    fumos, crackers = d.slot(0, "Fumos", "discard"), d.slot(0, "Wizard Crackers", "discard")
    d.act(0, d.play(0, "Boil Cure"), "action")
    take(d, 0, fumos, crackers)
    assert d.state.deck[0][-2:] == [fumos, crackers] and deck(d, 0) == size + 2
    pass_turn(d, 1)
    cards, nurture = hand(d, 0), d.slot(0, "Nurture", "discard")
    d.act(0, d.play(0, "Pomfrey's Pick-Me-Up"), "action")
    take(d, 0, nurture)
    assert d.state.deck[0][-1] == nurture and hand(d, 0) == cards  # the Spell out, a card drawn
    return d


# ----------------------------------------------------------------------------- Items


@scene("Borrowed Wand", "Dragon Heart Wand", "Ollivanders", "Phoenix Feather Wand", "Pewter Cauldron",
       "Silver Cauldron", "Remembrall", "Winged Keys", "Cage", "Invisibility Cloak", "Potion Ingredients",
       "Guard Dog", "Pet Rat", "Magical Mishap", "Stupefy")
def scene_items(make: Make) -> Duel:
    """Wands replace each other, Cauldrons cost Potions Lessons, Items with a use (Remembrall, Winged Keys, Cage),
    Items that prevent a Spell's damage (Invisibility Cloak once a turn, Potion Ingredients discarded)."""
    mine = ["Borrowed Wand", "Dragon Heart Wand", "Ollivanders", "Phoenix Feather Wand", "Pewter Cauldron",
            "Silver Cauldron", "Remembrall"]
    draws = ["Winged Keys", "Cage", "Magical Mishap", "Stupefy"]
    theirs = ["Invisibility Cloak", "Potion Ingredients", "Guard Dog", "Pet Rat"]
    d = make(first=0, decks={0: [*mine, *draws], 1: theirs}, hands={0: mine, 1: theirs}, draws={0: draws},
             in_play={0: [CH] * 3 + [POT] * 8 + [TR] * 10 + [CMC] * 2, 1: [TR] * 8 + [POT] * 3 + [CMC] * 3})
    charms = LessonType.CHARMS
    d.act(0, d.play(0, "Borrowed Wand"), "action")
    assert d.names(0, "items") == ["Borrowed Wand"] and power(d.state, 0)[charms] == 3 + 2
    d.act(0, d.play(0, "Dragon Heart Wand"), "action")  # the old Wand goes
    assert d.names(0, "items") == ["Dragon Heart Wand"] and d.names(0, "discard") == ["Borrowed Wand"]
    assert power(d.state, 0)[charms] == 3 + 3
    d.act(1, d.play(1, "Invisibility Cloak"), "action")
    d.act(1, d.play(1, "Potion Ingredients"), "action")
    wand = d.slot(0, "Borrowed Wand", "discard")
    d.act(0, d.play(0, "Ollivanders"), "action")
    d.act(0, {"type": "take", "slot": wand}, "retrieve")
    assert wand in d.state.hand[0]
    d.act(0, d.play(0, "Phoenix Feather Wand"), "action")  # 3 Charms Power from cards in play: the Lessons
    assert d.names(0, "items") == ["Phoenix Feather Wand"] and power(d.state, 0)[charms] == 3 + 4
    pass_turn(d, 1)
    potions = LessonType.POTIONS
    d.act(0, d.play(0, "Pewter Cauldron"), "action")
    assert lessons(d, 0, POT) == 7 and power(d.state, 0)[potions] == 7 + 3
    d.act(0, d.play(0, "Silver Cauldron"), "action")
    assert lessons(d, 0, POT) == 5 and power(d.state, 0)[potions] == 5 + 3 + 5
    d.act(1, d.play(1, "Guard Dog"), "action")  # (after seat 0's last draw of the scene: the Dog mills no draw)
    d.act(1, d.play(1, "Pet Rat"), "action")
    d.act(0, d.play(0, "Remembrall"), "action")
    d.act(0, d.play(0, "Winged Keys"), "action")
    pass_turn(d, 1)
    remembrall, keys = d.slot(0, "Remembrall", "items"), d.slot(0, "Winged Keys", "items")
    lesson = d.slot(0, POT, "discard")
    d.act(0, {"type": "item", "slot": remembrall}, "action")
    d.act(0, {"type": "take", "slot": lesson}, "retrieve")
    assert lesson in d.state.lessons[0]
    d.act(0, {"type": "item", "slot": keys}, "action")  # no Action spent
    d.act(0, {"type": "creature", "slot": creature(d, 1, "Guard Dog")}, "muzzle")
    mine_before = deck(d, 0)
    d.act(0, d.play(0, "Cage"), "action")  # the turn passes: only the Rat hits
    assert deck(d, 0) == mine_before - 1
    pass_turn(d, 1)
    cage, dog = d.slot(0, "Cage", "items"), creature(d, 1, "Guard Dog")
    d.act(0, {"type": "item", "slot": cage}, "action")
    d.act(0, {"type": "creature", "slot": dog}, "creature")
    assert dog in d.state.hand[1] and d.names(0, "discard")[-1] == "Cage" and "Cage" not in d.names(0, "items")
    before = deck(d, 1)
    d.act(0, d.play(0, "Magical Mishap"), "action")
    d.act(1, {"type": "invoke"}, "skill:12")  # the Cloak prevents it
    assert deck(d, 1) == before - 1 and "Invisibility Cloak" in d.names(1, "items")  # (seat 1's draw)
    pass_turn(d, 1)
    before = deck(d, 1)
    d.act(0, d.play(0, "Stupefy"), "action")
    d.act(1, {"type": "pass"}, "skill:12")  # a new turn: the Cloak again, not used
    d.act(1, {"type": "invoke"}, "skill:33")
    assert deck(d, 1) == before and d.names(1, "discard")[-1] == "Potion Ingredients"
    return d


# ----------------------------------------------------------------------------- Adventures


def discard_own(d: Duel, seat: int, count: int, keep: tuple[int, ...] = ()) -> None:
    """``seat`` discards ``count`` cards of its hand, not those in ``keep``."""
    for _ in range(count):
        d.act(seat, {"type": "discard", "slot": next(s for s in d.state.hand[seat] if s not in keep)}, "discard_own")


@scene("4 Privet Drive", "Troll in the Bathroom", "Apparate", "Harry Hunting", "Logic Puzzle", "Dragon's Escape",
       "Meet the Centaurs", "Reptile House")
def scene_adventures_solved(make: Make) -> Duel:
    """Seat 0 plays one Adventure a turn; seat 1 solves it (for the reward) or discards it with a Spell."""
    adventures = ["4 Privet Drive", "Troll in the Bathroom", "Harry Hunting", "Dragon's Escape", "Meet the Centaurs",
                  "Reptile House"]
    spells = ["Apparate", "Logic Puzzle"]
    d = make(first=0, decks={0: adventures, 1: spells}, hands={0: adventures, 1: spells},
             in_play={1: [TR] * 4 + [CH] * 6 + [POT]})
    keep = tuple(d.slot(1, n) for n in spells)
    d.act(0, d.play(0, "4 Privet Drive"), "action")  # 2 Actions: the turn passes
    assert d.name(d.state.adventures[0]) == "4 Privet Drive" and "forbids playing spell" in str(why(d, 1, "Apparate"))
    d.act(1, {"type": "solve"}, "action")  # 8 cards in hand: 6 go
    discard_own(d, 1, 6, keep)
    cards = hand(d, 1)
    d.act(1, {"type": "draw"}, "reward")
    assert hand(d, 1) == cards + 1 and d.state.adventures[0] == -1 and d.names(0, "discard") == ["4 Privet Drive"]
    pass_turn(d, 1)
    d.act(0, d.play(0, "Troll in the Bathroom"), "action")
    before = deck(d, 0)
    d.act(1, d.play(1, "Apparate"), "action")  # discarded before it hits: no reward for anyone
    assert d.state.adventures[0] == -1 and d.names(0, "discard")[-1] == "Troll in the Bathroom"
    assert deck(d, 0) == before
    pass_turn(d, 1)
    d.act(0, d.play(0, "Harry Hunting"), "action")
    assert "needs 12 Power" in str(why(d, 1, "Transfiguration Exam"))  # 10 + 2, and seat 1 has 11 Lessons
    potions = d.slot(1, POT, "lessons")
    d.state.remove_lesson(potions)  # (a test-only edit: a Lesson in seat 1's pile, for the reward)
    d.act(1, d.play(1, "Logic Puzzle"), "action")  # 6 + 2 Power: discarded, and seat 1 gets the reward
    assert d.state.adventures[0] == -1 and d.names(0, "discard")[-1] == "Harry Hunting"
    d.act(1, {"type": "take", "slot": potions}, "retrieve")  # a Lesson of the pile into play
    assert d.state.lessons[1][-1] == potions
    pass_turn(d, 1)
    d.act(0, d.play(0, "Dragon's Escape"), "action")  # seat 1 takes 1 damage before each of seat 0's turns
    d.act(1, {"type": "solve"}, "action")
    while d.prompt != "reward":  # 3 Lessons of seat 1's choice
        d.act(1, d.legal(1)[0])
    assert len(d.state.lessons[1]) == 11 - 3
    before = deck(d, 0)
    d.act(1, {"type": "target", "seat": 0}, "reward")  # 3 damage to the owner (or 3 cards)
    assert deck(d, 0) == before - 3 and d.state.adventures[0] == -1
    pass_turn(d, 1)
    d.act(0, d.play(0, "Meet the Centaurs"), "action")
    assert d.state.hand[1] and all(s in d.table.public for s in d.state.hand[1])  # with the card just drawn
    d.act(1, {"type": "solve"}, "action")  # the whole hand goes
    assert d.state.hand[1] == [] and d.state.adventures[0] == -1
    assert all(s in d.table.public for s in d.state.hand[0])  # the reward: seat 0's hand, face up for good
    pass_turn(d, 1)
    assert all(s in d.table.public for s in d.state.hand[0])
    d.act(0, d.play(0, "Reptile House"), "action")
    d.act(1, d.play(1, CMC), "action")  # the turn's draw
    assert "only 1 Action" in str(why(d, 1, CMC)) and {"type": "solve"} in d.legal(1)
    d.act(1, {"type": "solve"}, "action")
    while d.prompt != "reward":  # 4 Lessons of seat 1's choice
        d.act(1, d.legal(1)[0])
    cards = hand(d, 1)
    d.act(1, {"type": "draw"}, "reward")
    assert hand(d, 1) == cards + 1 and d.state.adventures[0] == -1 and len(d.state.lessons[1]) == 8 + 1 - 4
    return d


@scene("Diagon Alley", "Draco's Trick", "Gringotts' Cart Ride", "Peeves Causes Trouble", "Hiding From Snape",
       "Unusual Pets", "Human Chess Game", crypto="verified")
def scene_adventures_skipped_and_more(make: Make) -> Duel:
    """Adventures solved by skipping Actions, by Items from the hand (its reward a face-down search and a reshuffle),
    by Creatures in play, by 8 cards of the hand; Draco's Trick gives its caster the reward of their own.

    Through the verified deck: the search's private show and the reshuffle go through its proofs."""
    adventures = ["Diagon Alley", "Draco's Trick", "Gringotts' Cart Ride", "Peeves Causes Trouble",
                  "Hiding From Snape", "Unusual Pets", "Human Chess Game"]
    d = make(first=0, decks={0: adventures, 1: ["Cage"] * 4 + ["Pet Toad"] * 2},
             hands={0: adventures, 1: ["Cage"] * 4}, in_play={0: [TR] * 7, 1: ["Pet Toad"] * 2})
    cages = tuple(s for s in d.state.hand[1] if d.name(s) == "Cage")

    def skip(times: int) -> None:
        for _ in range(times):
            d.act(1, {"type": "skip"}, "action")

    d.act(0, d.play(0, "Diagon Alley"), "action")
    assert not any(a["type"] == "draw" for a in d.legal(1))  # no Actions to draw
    skip(2)
    d.act(0, d.play(0, "Draco's Trick"), "action")  # seat 0 discards its own Adventure for its reward
    cards = hand(d, 0)
    d.act(0, {"type": "draw", "cards": 2}, "reward")  # "any number of cards", all at once
    assert hand(d, 0) == cards + 2 and d.state.adventures[0] == -1 and "Diagon Alley" in d.names(0, "discard")
    d.end_turn(0)
    d.end_turn(1)
    d.act(0, d.play(0, "Gringotts' Cart Ride"), "action")
    for turn in range(3):  # before each of seat 1's turns it discards a card; 5 skipped Actions solve it
        pile = len(d.state.discard[1])
        d.act(1, {"type": "discard", "slot": next(s for s in d.state.hand[1] if s not in cages)}, "discard_own")
        assert len(d.state.discard[1]) == pile + 1
        skip(2 if turn < 2 else 1)
        if turn < 2:
            d.end_turn(0)
    assert d.prompt == "reward" and d.state.adventures[0] == -1
    cards = hand(d, 1)
    d.act(1, {"type": "draw"}, "reward")  # "may draw 5 cards": one question per card
    d.act(1, {"type": "stop"}, "reward")
    assert hand(d, 1) == cards + 1
    d.end_turn(1)
    d.act(0, d.play(0, "Peeves Causes Trouble"), "action")
    assert len(d.state.discard[1]) == pile + 1 + 1  # seat 1's turn: it drew, then took 1 damage
    skip(2)
    d.end_turn(0)
    skip(2)
    d.end_turn(0)
    before = deck(d, 0)
    skip(1)  # the fifth: solved, and its owner takes 3 damage
    assert deck(d, 0) == before - 3 and d.state.adventures[0] == -1
    d.end_turn(1)
    d.act(0, d.play(0, "Hiding From Snape"), "action")
    assert "forbids playing item" in str(why(d, 1, "Cage"))
    d.act(1, {"type": "solve"}, "action")
    for cage in cages:
        d.act(1, {"type": "discard", "slot": cage}, "discard_item")
    lesson = next(s for s in d.state.deck[1] if d.name(s) == POT)
    d.act(1, {"type": "take", "slot": lesson}, "search")  # any card, into the hand face down; then a reshuffle
    assert lesson in d.state.hand[1] and lesson not in d.table.public and min(d.state.deck[1]) >= 300
    d.end_turn(1)
    d.act(0, d.play(0, "Unusual Pets"), "action")  # (seat 1 has Creatures in play)
    before = deck(d, 1)
    d.act(1, {"type": "solve"}, "action")
    while d.prompt != "reward":  # 2 Creatures of seat 1's choice
        d.act(1, d.legal(1)[0])
    d.act(1, {"type": "draw"}, "reward")
    assert d.state.creatures[1] == [] and d.state.adventures[0] == -1 and deck(d, 1) == before - 1
    d.end_turn(1)
    d.act(0, d.play(0, "Human Chess Game"), "action")
    assert any(a["type"] == "play" for a in d.legal(1))  # seat 0 played a card in its turn
    d.end_turn(1)
    d.end_turn(0)  # no card played
    assert not any(a["type"] == "play" for a in d.legal(1)) and "played no card" in str(why(d, 1, TR))
    d.act(1, {"type": "solve"}, "action")
    d.act(1, {"type": "hand"}, "solve")
    discard_own(d, 1, 8)
    d.act(1, {"type": "draw"}, "reward")
    d.act(1, {"type": "stop"}, "reward")
    assert d.state.adventures[0] == -1 and any(a["type"] == "play" for a in d.legal(1))
    return d


# ----------------------------------------------------------------------------- searching the deck, shuffling in


def in_deck(d: Duel, seat: int, name: str) -> int:
    """The last slot of ``seat``'s deck holding ``name`` (the test knows every face)."""
    return [s for s in d.state.deck[seat] if d.name(s) == name][-1]


def reshuffled(d: Duel, seat: int, before: list[int]) -> bool:
    """``seat``'s deck is a new face-down deck (new slots: the engine's Reshuffle through both peers)."""
    return bool(d.state.deck[seat]) and not set(d.state.deck[seat]) & set(before)


@scene("Alchemy", "Mysterious Egg", "Transmogrify", "Vanishing Glass", "Apothecary", "Elixir of Life",
       "Burning Bitterroot Balm", "Hospital Wing")
def scene_search_and_shuffle_in(make: Make) -> Duel:
    """Spells that search the deck (cards shown, the deck reshuffled) or shuffle cards of the pile into it."""
    spells = ["Alchemy", "Mysterious Egg", "Transmogrify", "Vanishing Glass", "Apothecary", "Elixir of Life",
              "Burning Bitterroot Balm"]
    d = make(first=0, decks={0: [*spells, "Hospital Wing", "Guard Dog", "Guard Dog", "Pet Rat", "Potion Ingredients",
                                 "Pet Toad", *[POT] * 16, *[TR] * 9]},
             hands={0: spells}, draws={0: ["Hospital Wing", *[POT] * 6]},
             in_play={0: [TR] * 9 + [POT] * 10 + [CMC] * 4 + ["Pet Toad"], 1: [CH]})

    def search(spell: str, *names: str) -> list[int]:
        before = list(d.state.deck[0])
        d.act(0, d.play(0, spell), "action")
        if spell == "Transmogrify":  # its cost: one of your Creatures
            d.act(0, {"type": "creature", "slot": creature(d, 0, "Pet Toad")}, "creature")
        if spell == "Vanishing Glass":  # first an opponent's Lesson
            d.act(0, {"type": "in_play", "slot": d.state.lessons[1][0]}, "in_play")
            assert d.state.lessons[1] == []
        if spell == "Apothecary":  # its cost: 2 other cards of the hand
            discard_own(d, 0, 2, keep=tuple(s for s in d.state.hand[0] if d.name(s) not in (CMC, CH, POT, TR)))
        taken: list[int] = []
        for name in names:
            taken.append(in_deck(d, 0, name))
            d.act(0, {"type": "take", "slot": taken[-1]}, "search")
        if d.prompt == "search":
            d.act(0, {"type": "stop"}, "search")
        assert all(s in d.state.hand[0] and s in d.table.public for s in taken)  # shown to the opponent
        assert reshuffled(d, 0, before)
        return taken

    search("Alchemy", POT, POT)
    search("Mysterious Egg", "Guard Dog")
    pass_turn(d, 1)
    search("Transmogrify", "Pet Rat")
    search("Vanishing Glass", "Guard Dog")
    pass_turn(d, 1)
    search("Apothecary", "Potion Ingredients")
    toad = d.slot(0, "Pet Toad", "discard")
    before = list(d.state.deck[0])
    d.act(0, d.play(0, "Elixir of Life"), "action")
    assert lessons(d, 0, POT) == 10 - 2
    take(d, 0, toad)
    assert toad not in d.state.discard[0] and reshuffled(d, 0, before) and len(d.state.deck[0]) == len(before) + 1
    pass_turn(d, 1)
    for spell in ("Burning Bitterroot Balm", "Hospital Wing"):
        pile = [s for s in d.state.discard[0] if d.name(s) in ("Mysterious Egg", "Transmogrify")]
        before = list(d.state.deck[0])
        d.act(0, d.play(0, spell), "action")
        take(d, 0, pile[0])  # into the deck, face down in a new slot
        assert pile[0] not in d.state.discard[0] and reshuffled(d, 0, before)
        assert [d.name(s) for s in d.state.deck[0]].count(d.name(pile[0])) == 1
    assert lessons(d, 0, POT) == 10 - 2 - 1 - 1
    return d


# ----------------------------------------------------------------------------- Characters


@scene("Ron Weasley", "Dean Thomas", "Harry Potter", "Hermione Granger (Base 9)", "Hannah Abbott", "Rubeus Hagrid",
       "Draco Malfoy (Base 2)")
def scene_characters(make: Make) -> Duel:
    """Characters played from the hand (2 Actions, 1 with Ron Weasley in play), then their abilities."""
    mine = ["Ron Weasley", "Dean Thomas", "Harry Potter", "Hermione Granger (Base 9)", "Hannah Abbott",
            "Rubeus Hagrid"]
    d = make(first=0, decks={0: [*mine, "Guard Dog"], 1: ["Draco Malfoy (Base 2)"]},
             characters={0: "Professor Filius Flitwick", 1: "Professor Severus Snape"},
             hands={0: mine, 1: ["Draco Malfoy (Base 2)"]}, in_play={0: [CMC, CMC, CH, "Guard Dog"]})
    d.act(0, d.play(0, "Ron Weasley"), "action")  # 2 Actions
    assert d.names(0, "characters") == ["Ron Weasley"] and d.state.turn == 1
    d.act(1, d.play(1, "Draco Malfoy (Base 2)"), "action")
    assert d.names(1, "characters") == ["Draco Malfoy"] and d.state.turn == 0
    d.act(0, d.play(0, "Dean Thomas"), "action")  # 1 Action, with Ron
    cards = hand(d, 0)
    d.act(0, {"type": "dean"}, "action")  # once per game, no Action
    assert hand(d, 0) == cards + 3 and {"type": "dean"} not in d.legal(0)
    d.act(0, d.play(0, "Harry Potter"), "action")
    assert d.names(0, "characters") == ["Ron Weasley", "Dean Thomas", "Harry Potter"] and d.state.turn == 1
    for _ in range(2):  # Draco: discard a card of the hand, look at the opponent's, discard one of them
        d.act(1, {"type": "ability", "slot": d.state.hand[1][0]}, "action")
        assert all(d.table.knowledge(1).face(s) is not None for s in d.state.hand[0])
        victim = next(s for s in d.state.hand[0] if d.name(s) == CMC)
        d.act(1, {"type": "discard", "slot": victim}, "draco")
        assert victim in d.state.discard[0]
    cards = hand(d, 0)
    d.act(0, {"type": "draw", "cards": 2}, "action")  # Harry Potter: 2 cards with one Action
    assert hand(d, 0) == cards + 2
    d.act(0, d.play(0, "Hermione Granger (Base 9)"), "action")
    pass_turn(d, 1)
    had = len(d.state.lessons[0])
    d.act(0, d.play(0, CMC), "action")
    d.act(0, d.play(0, CMC), "second_lesson")  # Hermione: 2 Lessons with one Action
    assert len(d.state.lessons[0]) == had + 2 and d.prompt == "action"
    d.act(0, d.play(0, "Hannah Abbott"), "action")
    pass_turn(d, 1)
    pile = [s for s in d.state.discard[0] if d.name(s) == CMC][:2]
    d.act(0, {"type": "trade", "card": 7}, "action")  # once per game, no Action
    discard_own(d, 0, 2, keep=(d.slot(0, "Rubeus Hagrid"),))
    for slot in pile:
        d.act(0, {"type": "take", "slot": slot}, "retrieve")
    assert set(pile) <= set(d.state.hand[0]) and {"type": "trade", "card": 7} not in d.legal(0)
    d.act(0, d.play(0, "Rubeus Hagrid"), "action")
    d.act(0, {"type": "draw"}, "action")
    before = deck(d, 1)
    d.end_turn(1)
    assert deck(d, 1) == before - 3 - 2  # the Guard Dog's 3, and 2 more with Hagrid
    return d


@scene("Nearly Headless Nick", "Professor Severus Snape", "Professor Filius Flitwick", "Hermione Granger (Base 10)",
       "Draco Malfoy (Base 3)", "Magical Mishap")
def scene_characters_once_per_game(make: Make) -> Duel:
    """Characters with once-per-game searches and trades (two reshuffles through the crypto), the other versions of
    Hermione Granger and Draco Malfoy."""
    mine = ["Nearly Headless Nick", "Professor Severus Snape", "Professor Filius Flitwick",
            "Hermione Granger (Base 10)", "Magical Mishap"]
    d = make(first=0, decks={0: [*mine, "Cage", "Borrowed Wand"], 1: ["Draco Malfoy (Base 3)"]},
             characters={0: "Harry Potter", 1: "Dean Thomas"}, hands={0: mine, 1: ["Draco Malfoy (Base 3)"]},
             draws={0: [CMC] * 8}, in_play={0: [CH, CH, TR]})  # (the Items stay in the deck)
    d.act(0, d.play(0, "Magical Mishap"), "action")
    d.act(0, {"type": "draw"}, "action")
    d.act(1, d.play(1, "Draco Malfoy (Base 3)"), "action")
    d.act(0, d.play(0, "Nearly Headless Nick"), "action")  # 2 Actions
    d.act(1, {"type": "ability", "slot": d.state.hand[1][0]}, "action")  # Draco: a look at seat 0's hand
    lesson = next(s for s in d.state.hand[0] if d.name(s) == CMC)
    d.act(1, {"type": "discard", "slot": lesson}, "draco")
    d.end_turn(1)
    before = list(d.state.deck[0])
    d.act(0, {"type": "once", "card": 13}, "action")  # Nick: up to 2 Items from the deck, then a reshuffle
    cage, wand = (next(s for s in before if d.name(s) == n) for n in ("Cage", "Borrowed Wand"))
    d.act(0, {"type": "take", "slot": cage}, "search")
    d.act(0, {"type": "take", "slot": wand}, "search")
    assert {cage, wand} <= set(d.state.hand[0]) and cage in d.table.public and not set(d.state.deck[0]) & set(before)
    d.act(0, d.play(0, "Professor Severus Snape"), "action")
    d.end_turn(1)
    before = list(d.state.deck[0])
    d.act(0, {"type": "once", "card": 16}, "action")  # Snape: up to 7 non-Healing cards of the pile into the deck
    take(d, 0, lesson)
    assert lesson not in d.state.discard[0] and len(d.state.deck[0]) == len(before) + 1
    d.act(0, d.play(0, "Professor Filius Flitwick"), "action")
    d.end_turn(1)
    assert power(d.state, 0)[LessonType.CHARMS] == 2 + 1  # Flitwick provides 1 Charms Power
    mishap = d.slot(0, "Magical Mishap", "discard")
    d.act(0, {"type": "trade", "card": 15}, "action")  # 2 cards of the hand for 1 needing Charms Power
    discard_own(d, 0, 2, keep=(d.slot(0, "Hermione Granger (Base 10)"),))
    d.act(0, {"type": "take", "slot": mishap}, "retrieve")
    assert mishap in d.state.hand[0]
    d.act(0, d.play(0, "Hermione Granger (Base 10)"), "action")
    d.end_turn(1)
    had = len(d.state.lessons[0])
    d.act(0, d.play(0, next(n for n in d.names(0, "hand") if n in (CMC, CH, POT, TR))), "action")
    d.act(0, d.play(0, next(n for n in d.names(0, "hand") if n in (CMC, CH, POT, TR))), "second_lesson")
    assert len(d.state.lessons[0]) == had + 2
    return d


# ----------------------------------------------------------------------------- tests


def _run(script: Script, crypto: str) -> Duel:
    engine = script(lambda **kw: Duel(**kw))
    proto = script(lambda **kw: Duel(protocol=crypto, **kw))
    assert proto.state_hash() == engine.state_hash(), "the protocol run ends in another state than the engine's"
    return proto


@pytest.mark.parametrize("name", list(SCENES))
def test_a_scene_plays_its_cards_through_the_protocol(name: str) -> None:
    cards, script, crypto = SCENES[name]
    if crypto == "verified" and not HAS_COINCURVE:
        pytest.skip("needs coincurve")
    d = _run(script, crypto)
    played = set(d.played())
    missing = [c for c in cards if number_of(c) not in played]
    assert not missing, f"the scene did not play {missing}"
    d.finish()


def test_every_base_set_card_has_a_protocol_scene() -> None:
    covered = {number_of(c) for cards, _, _ in SCENES.values() for c in cards}
    missing = [card.label for card in BASE_SET if card.number not in covered]
    assert not missing, f"no protocol scene plays {missing}"
