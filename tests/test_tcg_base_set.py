"""Base Set cards beyond the Starter decks (increment 2), one scenario each (engine mode, constructed decks).

Each test gives seat 0 (Hermione) and/or seat 1 (Draco) a constructed deck holding the cards it needs
(``Duel(decks=...)``; the rest of a 60-card deck is Lessons), stacks hands and cards in play, and plays
the card through real actions.
"""

from __future__ import annotations

import pytest

from p2php.engine.contract import IllegalAction
from p2php.games.tcg.cards import LessonType
from p2php.games.tcg.power import power
from p2php.testing.tcg import Duel

CMC, POT, TR, CH = "Care of Magical Creatures", "Potions", "Transfiguration", "Charms"


def deck_size(d: Duel, seat: int) -> int:
    return len(d.state.deck[seat])


# ----------------------------------------------------------------------------- Creatures


@pytest.mark.parametrize(("creature", "lessons", "left"), [
    ("Mountain Troll", [CMC] * 8, 8), ("Guard Dog", [CMC] * 7, 7), ("Scottish Stag", [CMC] * 4, 4),
    ("Norbert", [CMC] * 4, 2), ("Baby Dragon", [CMC] * 3, 2), ("Giant Tarantula", [CMC], 0),
    ("Pet Rat", [CMC], 0),
])
def test_creatures_pay_their_lesson_cost_and_hit_from_the_next_turn(creature: str, lessons: list[str],
                                                                     left: int) -> None:
    from p2php.games.tcg.cards import card_by_name

    d = Duel(first=0, decks={0: [creature]}, hands={0: [creature]}, in_play={0: lessons})
    d.act(0, d.play(0, creature))
    assert d.names(0, "creatures") == [creature] and len(d.state.lessons[0]) == left
    assert d.names(0, "discard") == [CMC] * (len(lessons) - left)
    d.end_turn(0)
    before = deck_size(d, 1)
    d.end_turn(1)
    assert deck_size(d, 1) == before - (card_by_name(creature).damage or 0)


def test_norbert_needs_two_care_of_magical_creatures_lessons_to_discard() -> None:
    d = Duel(first=0, decks={0: ["Norbert"]}, hands={0: ["Norbert"]}, in_play={0: [CMC, CH, CH, CH]})
    assert d.play(0, "Norbert") not in d.legal(0)


def test_unicorn_gives_one_more_action_on_the_turn_it_is_played_and_every_later_turn() -> None:
    d = Duel(first=0, decks={0: ["Unicorn"]}, hands={0: ["Unicorn"]}, in_play={0: [CMC] * 6})
    d.act(0, d.play(0, "Unicorn"))
    d.act(0, {"type": "draw"}, "action")
    d.act(0, {"type": "draw"}, "action")  # the third Action of this turn
    assert d.state.turn == 1
    d.end_turn(1)
    for _ in range(3):
        d.act(0, {"type": "draw"}, "action")
    assert d.state.turn == 1


def test_delivery_owl_draws_before_each_of_its_owners_turns() -> None:
    d = Duel(first=0, decks={0: ["Delivery Owl"]}, hands={0: ["Delivery Owl"]}, in_play={0: [CMC, CMC]})
    d.act(0, d.play(0, "Delivery Owl"))
    d.end_turn(0)
    hand = len(d.state.hand[0])
    d.end_turn(1)
    assert len(d.state.hand[0]) == hand + 2  # the Owl's card, then the turn's draw
    assert ["effect", 0, 21] in d.state.events


# ----------------------------------------------------------------------------- Items


def test_a_wand_provides_charms_power_and_replaces_the_old_wand() -> None:
    wands = ["Borrowed Wand", "Dragon Heart Wand"]
    d = Duel(first=0, decks={0: wands}, hands={0: wands}, in_play={0: [CH, CH, CH]})
    assert d.play(0, "Dragon Heart Wand") not in d.legal(0)  # 3 Power, but 5 needed
    d.act(0, d.play(0, "Borrowed Wand"))
    assert d.names(0, "items") == ["Borrowed Wand"] and power(d.state, 0)[LessonType.CHARMS] == 5
    d.act(0, d.play(0, "Dragon Heart Wand"))
    assert d.names(0, "items") == ["Dragon Heart Wand"] and d.names(0, "discard") == ["Borrowed Wand"]
    assert power(d.state, 0)[LessonType.CHARMS] == 6


def test_phoenix_feather_wand_needs_cards_providing_three_charms_power() -> None:
    d = Duel(first=0, decks={0: ["Phoenix Feather Wand"]}, hands={0: ["Phoenix Feather Wand"]},
             in_play={0: [CH, CH, POT, POT, POT, POT, POT]})
    assert "providing 3 Charms" in str(_why(d, 0, "Phoenix Feather Wand"))


def _why(d: Duel, seat: int, name: str) -> str | None:
    from p2php.games.tcg.cards import card_by_name
    from p2php.games.tcg.turn import why_not

    return why_not(d.state, seat, card_by_name(name), 2)


@pytest.mark.parametrize(("cauldron", "lessons", "gives"), [("Pewter Cauldron", 5, 3), ("Silver Cauldron", 8, 5)])
def test_a_cauldron_discards_potions_lessons_and_provides_potions_power(cauldron: str, lessons: int,
                                                                        gives: int) -> None:
    d = Duel(first=0, decks={0: [cauldron]}, hands={0: [cauldron]}, in_play={0: [POT] * lessons})
    d.act(0, d.play(0, cauldron))
    paid = 1 if cauldron.startswith("Pewter") else 2
    assert power(d.state, 0)[LessonType.POTIONS] == lessons - paid + gives


# ----------------------------------------------------------------------------- Spells: damage


@pytest.mark.parametrize(("spell", "lessons", "amount", "paid"), [
    ("Draught of Living Death", [POT] * 8, 12, 2), ("Malevolent Mixture", [POT] * 5, 10, 2),
    ("Dogbreath Potion", [POT] * 6, 8, 1), ("Noxious Poison", [POT] * 3, 5, 1), ("Bluebell Flames", [CH] * 7, 4, 0),
    ("Erumpent Potion", [POT] * 3, 1, 0), ("Foul Brew", [POT] * 5, 2, 0),
])
def test_damage_spells_hit_the_opponent_and_pay_their_cost(spell: str, lessons: list[str], amount: int,
                                                           paid: int) -> None:
    d = Duel(first=0, decks={0: [spell]}, hands={0: [spell]}, in_play={0: lessons})
    before = deck_size(d, 1)
    d.act(0, d.play(0, spell))
    assert len(d.state.lessons[0]) == len(lessons) - paid
    d.act(0, {"type": "target", "seat": 1}, "target")
    assert deck_size(d, 1) == before - amount
    assert d.names(0, "discard")[-1] == spell


def test_a_damage_spell_can_hit_a_creature() -> None:
    d = Duel(first=0, decks={0: ["Foul Brew"], 1: ["Guard Dog"]}, hands={0: ["Foul Brew"]},
             in_play={0: [POT] * 5, 1: ["Guard Dog"]})
    dog = d.slot(1, "Guard Dog", "creatures")
    d.act(0, d.play(0, "Foul Brew"))
    d.act(0, {"type": "target", "slot": dog}, "target")
    assert d.state.creatures[1] == [[dog, 2]]


def test_baubillious_does_one_damage_then_draws() -> None:
    d = Duel(first=0, decks={0: ["Baubillious"]}, hands={0: ["Baubillious"]}, in_play={0: [CH, CH]})
    hand = len(d.state.hand[0])
    d.act(0, d.play(0, "Baubillious"))
    d.act(0, {"type": "target", "seat": 1})
    assert len(d.state.hand[0]) == hand  # Baubillious out, one card in


def test_toe_biter_hits_the_opponent_and_may_hit_a_creature() -> None:
    d = Duel(first=0, decks={0: ["Toe Biter"], 1: ["Pet Rat"]}, hands={0: ["Toe Biter"]},
             in_play={0: [CH] * 3, 1: ["Pet Rat"]})
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Toe Biter"))
    assert deck_size(d, 1) == before - 2
    d.act(0, {"type": "target", "slot": d.slot(1, "Pet Rat", "creatures")}, "target")
    assert d.state.creatures[1][0][1] == 2


def test_fumos_damages_every_creature_and_nurture_heals_ones_own() -> None:
    d = Duel(first=0, decks={0: ["Fumos", "Nurture", "Guard Dog"], 1: ["Pet Rat", "Giant Tarantula"]},
             hands={0: ["Fumos", "Nurture"]}, in_play={0: [CH] * 7 + [CMC, CMC, "Guard Dog"],
                                                    1: ["Pet Rat", "Giant Tarantula"]})
    d.act(0, d.play(0, "Fumos"))
    assert d.names(1, "creatures") == ["Pet Rat"] and d.state.creatures[1][0][1] == 2
    assert d.state.creatures[0][0][1] == 2
    d.act(0, d.play(0, "Nurture"))
    assert d.state.creatures[0][0][1] == 0 and d.state.creatures[1][0][1] == 2


def test_steelclaw_makes_ones_creatures_do_their_damage_now() -> None:
    d = Duel(first=0, decks={0: ["Steelclaw", "Guard Dog"]}, hands={0: ["Steelclaw"]},
             in_play={0: [TR] * 4 + ["Guard Dog"]})
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Steelclaw"))
    assert deck_size(d, 1) == before - 3


# ----------------------------------------------------------------------------- Spells: discard from play


@pytest.mark.parametrize(("spell", "lessons", "victim"), [
    ("Cauldron to Sieve", [TR, TR], POT), ("Restricted Section", [TR, TR], TR),
])
def test_lesson_discarding_spells(spell: str, lessons: list[str], victim: str) -> None:
    d = Duel(first=0, decks={0: [spell]}, hands={0: [spell]}, in_play={0: lessons, 1: [victim, CH]})
    d.act(0, d.play(0, spell))
    assert d.names(1, "lessons") == [CH] and d.names(1, "discard") == [victim]


def test_squiggle_quill_discards_an_opponents_item_and_lost_notes_an_item_or_lesson() -> None:
    d = Duel(first=0, decks={0: ["Squiggle Quill", "Lost Notes"], 1: ["Borrowed Wand"]},
             hands={0: ["Squiggle Quill", "Lost Notes"]}, in_play={0: [TR] * 5, 1: [CH, "Borrowed Wand"]})
    assert d.play(0, "Squiggle Quill") in d.legal(0)
    d.act(0, d.play(0, "Squiggle Quill"))
    d.act(0, {"type": "in_play", "slot": d.slot(1, "Borrowed Wand", "items")}, "in_play")
    assert d.state.items[1] == [] and d.names(1, "discard") == ["Borrowed Wand"]
    assert d.play(0, "Lost Notes") in d.legal(0)
    d.act(0, d.play(0, "Lost Notes"))
    assert d.legal(0) == [{"type": "in_play", "slot": d.state.lessons[1][0]}]


def test_squiggle_quill_needs_an_item() -> None:
    d = Duel(first=0, decks={0: ["Squiggle Quill"]}, hands={0: ["Squiggle Quill"]}, in_play={0: [TR] * 2})
    assert d.play(0, "Squiggle Quill") not in d.legal(0)


def test_potions_mistake_discards_three_potions_lessons_and_a_creature() -> None:
    d = Duel(first=0, decks={0: ["Potions Mistake"], 1: ["Guard Dog"]}, hands={0: ["Potions Mistake"]},
             in_play={0: [POT] * 6, 1: ["Guard Dog"]})
    d.act(0, d.play(0, "Potions Mistake"))
    d.act(0, {"type": "in_play", "slot": d.slot(1, "Guard Dog", "creatures")})
    assert len(d.state.lessons[0]) == 3 and d.state.creatures[1] == []


def test_raven_to_writing_desk_needs_two_creatures_to_discard_one() -> None:
    d = Duel(first=0, decks={0: ["Raven to Writing Desk"] * 2, 1: ["Pet Rat", "Guard Dog"]},
             hands={0: ["Raven to Writing Desk"] * 2}, in_play={0: [TR], 1: ["Pet Rat", "Guard Dog"]})
    d.act(0, d.play(0, "Raven to Writing Desk"))
    d.act(0, {"type": "creature", "slot": d.slot(1, "Guard Dog", "creatures")}, "creature")
    d.act(0, d.play(0, "Raven to Writing Desk"))  # one Creature left: nothing happens
    assert d.names(1, "creatures") == ["Pet Rat"] and d.state.turn == 1


def test_transfiguration_exam_discards_every_creature() -> None:
    d = Duel(first=0, decks={0: ["Transfiguration Exam", "Pet Rat"], 1: ["Guard Dog"]},
             hands={0: ["Transfiguration Exam"]}, in_play={0: [TR] * 10 + ["Pet Rat"], 1: ["Guard Dog"]})
    d.act(0, d.play(0, "Transfiguration Exam"))
    assert d.state.creatures == [[], []]


def test_transfiguration_test_each_side_keeps_one_creature() -> None:
    d = Duel(first=0, decks={0: ["Transfiguration Test", "Pet Rat", "Guard Dog"], 1: ["Pet Rat", "Guard Dog"]},
             hands={0: ["Transfiguration Test"]},
             in_play={0: [TR] * 5 + ["Pet Rat", "Guard Dog"], 1: ["Pet Rat", "Guard Dog"]})
    d.act(0, d.play(0, "Transfiguration Test"))
    d.act(1, {"type": "keep", "slot": d.slot(1, "Pet Rat", "creatures")}, "keep")  # the opponent chooses first
    d.act(0, {"type": "keep", "slot": d.slot(0, "Guard Dog", "creatures")}, "keep")
    assert d.names(1, "creatures") == ["Pet Rat"] and d.names(0, "creatures") == ["Guard Dog"]


def test_fluffy_falls_asleep_returns_a_creature_to_its_owners_hand_face_up() -> None:
    d = Duel(first=0, decks={0: ["Fluffy Falls Asleep"], 1: ["Guard Dog"]}, hands={0: ["Fluffy Falls Asleep"]},
             in_play={0: [CMC] * 3, 1: ["Guard Dog"]})
    dog = d.slot(1, "Guard Dog", "creatures")
    d.state.creatures[1][0][1] = 3
    d.act(0, d.play(0, "Fluffy Falls Asleep"))
    d.act(0, {"type": "creature", "slot": dog}, "creature")
    assert d.state.creatures[1] == [] and dog in d.state.hand[1] and dog in d.table.public


# ----------------------------------------------------------------------------- Spells: hands, Actions, Lessons


def test_obliviate_discards_the_opponents_hand() -> None:
    d = Duel(first=0, decks={0: ["Obliviate"]}, hands={0: ["Obliviate"]}, in_play={0: [CH] * 12})
    d.act(0, d.play(0, "Obliviate"))
    assert d.state.hand[1] == [] and len(d.state.discard[1]) == 7


def test_confundus_makes_the_opponent_choose_two_cards_to_discard() -> None:
    d = Duel(first=0, decks={0: ["Confundus"]}, hands={0: ["Confundus"]}, in_play={0: [CH] * 5})
    d.act(0, d.play(0, "Confundus"))
    for _ in range(2):
        d.act(1, {"type": "discard", "slot": d.state.hand[1][0]}, "discard_own")
    assert len(d.state.hand[1]) == 5 and len(d.state.discard[1]) == 2 and d.prompt == "action"


def test_titillando_does_three_damage_then_three_discards_or_all_if_fewer() -> None:
    d = Duel(first=0, decks={0: ["Titillando"]}, hands={0: ["Titillando"]}, in_play={0: [CH] * 9})
    del d.state.hand[1][2:]  # (a test-only edit: two cards left in the opponent's hand)
    d.act(0, d.play(0, "Titillando"))
    d.act(0, {"type": "target", "seat": 1})
    d.act(1, {"type": "discard", "slot": d.state.hand[1][0]}, "discard_own")
    d.act(1, {"type": "discard", "slot": d.state.hand[1][0]}, "discard_own")
    assert d.state.hand[1] == [] and d.prompt == "action"


def test_illegibilus_looks_at_the_hand_and_must_discard_one() -> None:
    d = Duel(first=0, decks={0: ["Illegibilus"], 1: ["Guard Dog"]}, hands={0: ["Illegibilus"], 1: ["Guard Dog"]},
             in_play={0: [CH] * 5})
    dog = d.slot(1, "Guard Dog")
    d.act(0, d.play(0, "Illegibilus"))
    assert {"type": "none"} not in d.legal(0) and d.table.knowledge(0).face(dog) is not None
    d.act(0, {"type": "discard", "slot": dog}, "draco")
    assert d.names(1, "discard") == ["Guard Dog"]


def test_platform_nine_and_three_quarters_costs_a_lesson_and_gives_two_more_actions() -> None:
    d = Duel(first=0, decks={0: ["Platform 9 3/4"]}, hands={0: ["Platform 9 3/4"]}, in_play={0: [TR] * 4 + [CH]})
    d.act(0, d.play(0, "Platform 9 3/4"))
    d.act(0, {"type": "lesson", "lesson": "charms"}, "lesson")
    assert d.names(0, "lessons") == [TR] * 4
    for _ in range(3):  # 1 left + 2 more
        d.act(0, {"type": "draw"}, "action")
    assert d.state.turn == 1


def test_homework_puts_up_to_two_lessons_from_the_hand_into_play() -> None:
    d = Duel(first=0, decks={0: ["Homework"]}, hands={0: ["Homework", CMC, CMC]}, in_play={0: [TR, TR]})
    d.act(0, d.play(0, "Homework"))
    d.act(0, d.play(0, CMC), "homework")
    d.act(0, d.play(0, CMC), "homework")
    assert len(d.state.lessons[0]) == 4 and d.prompt == "action"


def test_homework_takes_only_lessons() -> None:
    d = Duel(first=0, decks={0: ["Homework", "Pet Rat"]}, hands={0: ["Homework", "Pet Rat"]}, in_play={0: [TR, TR]})
    d.act(0, d.play(0, "Homework"))
    with pytest.raises(IllegalAction):
        d.act(0, d.play(0, "Pet Rat"), "homework")


def test_wizard_crackers_puts_a_lesson_into_play_or_anything_else_into_the_hand() -> None:
    d = Duel(first=0, decks={0: ["Wizard Crackers", "Wizard Crackers", "Pet Rat"]},
             hands={0: ["Wizard Crackers", "Wizard Crackers"]}, draws={0: [CH, CH, "Pet Rat"]}, in_play={0: [CH]})
    d.act(0, d.play(0, "Wizard Crackers"))  # the turn's draw took the first Charms
    assert len(d.state.lessons[0]) == 2
    d.act(0, d.play(0, "Wizard Crackers"))
    rat = d.slot(0, "Pet Rat")
    assert rat in d.table.public


def test_ollivanders_returns_an_item_from_the_discard_pile() -> None:
    d = Duel(first=0, decks={0: ["Ollivanders", "Borrowed Wand"]}, hands={0: ["Ollivanders"]},
             in_play={0: [CH, "Borrowed Wand"]})
    wand = d.slot(0, "Borrowed Wand", "items")
    d.state.discard_from_play(wand)
    assert d.play(0, "Ollivanders") in d.legal(0)
    d.act(0, d.play(0, "Ollivanders"))
    d.act(0, {"type": "take", "slot": wand}, "retrieve")
    assert wand in d.state.hand[0]


# ----------------------------------------------------------------------------- damage: taken or prevented


@pytest.mark.parametrize("creature", ["Kelpie", "Pet Toad"])
def test_a_creature_may_take_a_spells_damage_instead_ruling_r97486823(creature: str) -> None:
    """Ruling r97486823: Pet Toad absorbs all of a Spell's damage even beyond its Health; the excess disappears."""
    d = Duel(first=0, decks={0: ["Stupefy"] * 2, 1: [creature]}, hands={0: ["Stupefy"] * 2},
             in_play={0: [CH] * 6, 1: [CMC, creature]})
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Stupefy"))
    d.act(1, {"type": "invoke"}, f"skill:{55 if creature == 'Kelpie' else 61}")
    assert deck_size(d, 1) == before  # all 5 went to the Creature (Kelpie: 5 Health, so it dies too)
    assert d.state.creatures[1] == [] and d.names(1, "discard") == [creature]
    d.act(0, d.play(0, "Stupefy"))  # no Creature left to take it
    assert deck_size(d, 1) == before - 5 - 1  # and seat 1's turn began with a draw


def test_a_creature_does_not_take_creature_damage() -> None:
    d = Duel(first=1, decks={0: ["Guard Dog"], 1: ["Pet Toad"]}, in_play={0: ["Guard Dog"], 1: ["Pet Toad"]})
    d.end_turn(1)
    assert d.prompt == "action"  # the Dog's 3 damage was not offered to the Toad
    assert len(d.state.discard[1]) == 3


def test_potion_ingredients_is_discarded_to_prevent_a_spells_damage() -> None:
    d = Duel(first=0, decks={0: ["Stupefy"], 1: ["Potion Ingredients"]}, hands={0: ["Stupefy"]},
             in_play={0: [CH] * 6, 1: ["Potion Ingredients"]})
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Stupefy"))
    d.act(1, {"type": "invoke"}, "skill:33")
    assert deck_size(d, 1) == before and d.names(1, "discard") == ["Potion Ingredients"]


def test_invisibility_cloak_prevents_one_spell_a_turn() -> None:
    d = Duel(first=0, decks={0: ["Stupefy"] * 2, 1: ["Invisibility Cloak"]}, hands={0: ["Stupefy"] * 2},
             in_play={0: [CH] * 6, 1: ["Invisibility Cloak"]})
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Stupefy"))
    d.act(1, {"type": "invoke"}, "skill:12")
    assert deck_size(d, 1) == before and d.names(1, "items") == ["Invisibility Cloak"]
    d.act(0, d.play(0, "Stupefy"))  # once per turn: not offered again
    assert deck_size(d, 1) == before - 5 - 1  # and seat 1's turn began with a draw


def test_wingardium_leviosa_prevents_creature_damage_on_the_opponents_next_turn() -> None:
    d = Duel(first=1, decks={0: ["Guard Dog"], 1: ["Wingardium Leviosa!"]}, hands={1: ["Wingardium Leviosa!"]},
             in_play={0: ["Guard Dog"], 1: [CH]})
    d.act(1, d.play(1, "Wingardium Leviosa!"))
    d.end_turn(1)
    assert len(d.state.discard[1]) == 1  # only the Spell: the Dog's damage was prevented
    d.end_turn(0)
    d.end_turn(1)
    assert len(d.state.discard[1]) == 4  # the turn after, it hits again


def test_dungbomb_prevents_before_turn_and_creature_damage_ruling_rab1851a2() -> None:
    """Ruling rab1851a2: Dungbomb prevents "Before your turn" damage (an Adventure's) as well."""
    d = Duel(first=1, decks={0: ["Guard Dog"], 1: ["Dungbomb"]}, hands={1: ["Dungbomb"]},
             in_play={0: ["Guard Dog"], 1: [POT, POT]})
    d.act(1, d.play(1, "Dungbomb"))
    d.end_turn(1)
    assert d.state.shielded(1, "adventure") and d.state.shielded(1, "creature")
    assert not d.state.shielded(1, "spell")
    assert len(d.state.discard[1]) == 1


def test_shrinking_potion_prevents_all_damage_on_the_opponents_next_turn() -> None:
    d = Duel(first=1, decks={0: ["Stupefy"], 1: ["Shrinking Potion"]}, hands={1: ["Shrinking Potion"], 0: ["Stupefy"]},
             in_play={0: [CH] * 6, 1: [POT] * 8})
    d.act(1, d.play(1, "Shrinking Potion"))
    d.end_turn(1)
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Stupefy"))
    assert deck_size(d, 1) == before


# ----------------------------------------------------------------------------- Characters


def test_harry_potter_may_draw_two_cards_with_one_action_ruling_rf0602fe0() -> None:
    """Ruling rf0602fe0: the ability changes how many cards the Action draws, not what it is for."""
    d = Duel(first=0, decks={}, characters={0: "Harry Potter"})
    hand = len(d.state.hand[0])
    d.act(0, {"type": "draw", "cards": 2}, "action")
    assert len(d.state.hand[0]) == hand + 2 and d.prompt == "action"
    d.act(0, {"type": "draw"}, "action")
    assert len(d.state.hand[0]) == hand + 3 and d.state.turn == 1


def test_harry_potters_double_draw_is_his_alone() -> None:
    d = Duel(first=0)
    assert {"type": "draw", "cards": 2} not in d.legal(0)
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "draw", "cards": 2})


def test_ron_weasley_plays_characters_for_one_action() -> None:
    d = Duel(first=0, decks={0: ["Dean Thomas"]}, hands={0: ["Dean Thomas"]}, characters={0: "Ron Weasley"})
    d.act(0, {"type": "draw"})
    d.act(0, d.play(0, "Dean Thomas"))  # the last Action
    assert d.names(0, "characters") == ["Dean Thomas"] and d.state.turn == 1


def test_rubeus_hagrid_adds_two_to_creatures_doing_three_or_more_ruling_rc1ef75c5() -> None:
    """Ruling rc1ef75c5: the boost applies to normal Creature damage and to Steelclaw alike."""
    d = Duel(first=0, decks={0: ["Rubeus Hagrid", "Guard Dog", "Pet Rat", "Steelclaw"]},
             hands={0: ["Rubeus Hagrid", "Steelclaw"]}, in_play={0: [TR] * 4 + ["Guard Dog", "Pet Rat"]})
    d.act(0, d.play(0, "Rubeus Hagrid"))  # 2 Actions
    before = deck_size(d, 1)
    d.end_turn(1)
    assert deck_size(d, 1) == before - 6  # the Dog 3 + 2 and the Rat 1
    d.act(0, d.play(0, "Steelclaw"))
    assert deck_size(d, 1) == before - 12


def test_dean_thomas_draws_three_once_per_game_without_an_action() -> None:
    d = Duel(first=0, decks={}, characters={0: "Dean Thomas"})
    hand = len(d.state.hand[0])
    d.act(0, {"type": "dean"}, "action")
    assert len(d.state.hand[0]) == hand + 3 and d.prompt == "action"
    assert {"type": "dean"} not in d.legal(0)
    d.end_turn(0)
    d.end_turn(1)
    assert {"type": "dean"} not in d.legal(0)


# ----------------------------------------------------------------------------- hands face up, next-turn hexes


def test_mrs_norris_makes_the_opponent_play_with_the_hand_face_up() -> None:
    d = Duel(first=0, decks={0: ["Mrs Norris"]}, hands={0: ["Mrs Norris"]}, in_play={0: [CMC, CMC]})
    d.act(0, d.play(0, "Mrs Norris"))
    assert all(s in d.table.public for s in d.state.hand[1])  # her whole hand opened at once
    d.act(0, {"type": "end"})  # seat 1 draws: the new card is opened too
    assert len(d.state.hand[1]) == 8 and all(s in d.table.public for s in d.state.hand[1])
    assert not any(s in d.table.public for s in d.state.hand[0] if s not in d.state.pub)


def test_forgetfulness_potion_stops_the_opponent_playing_cards_next_turn() -> None:
    d = Duel(first=0, decks={0: ["Forgetfulness Potion"]}, hands={0: ["Forgetfulness Potion"]},
             in_play={0: [POT] * 7})
    d.act(0, d.play(0, "Forgetfulness Potion"))
    assert len(d.state.lessons[0]) == 6  # its cost: 1 Potions Lesson
    d.end_turn(0)
    assert [a["type"] for a in d.legal(1)] == ["draw", "ability", "ability", "ability", "ability", "ability",
                                               "ability", "ability", "ability", "end"]  # Draco's ability still works
    with pytest.raises(IllegalAction):
        d.act(1, {"type": "play", "slot": d.state.hand[1][0]})
    d.end_turn(1)
    d.end_turn(0)
    assert any(a["type"] == "play" for a in d.legal(1))


def test_snuffling_potion_discards_what_the_opponent_draws_next_turn() -> None:
    d = Duel(first=0, decks={0: ["Snuffling Potion"]}, hands={0: ["Snuffling Potion"]}, in_play={0: [POT] * 4})
    d.act(0, d.play(0, "Snuffling Potion"))
    d.end_turn(0)
    assert len(d.state.hand[1]) == 7 and len(d.state.discard[1]) == 1  # the turn's draw went to the pile
    d.act(1, {"type": "draw"})
    assert len(d.state.hand[1]) == 7 and len(d.state.discard[1]) == 2


@pytest.mark.parametrize("shows", [True, False])
def test_snapes_question_is_prevented_by_showing_a_potions_lesson(shows: bool) -> None:
    d = Duel(first=0, decks={0: ["Snape's Question"], 1: [POT]}, hands={0: ["Snape's Question"], 1: [POT]},
             in_play={0: [POT] * 3})
    lesson = d.slot(1, POT)
    before = deck_size(d, 1)
    d.act(0, d.play(0, "Snape's Question"))
    with pytest.raises(IllegalAction):
        d.act(1, {"type": "show", "slot": d.state.hand[1][-1]}, "show")  # a Charms Lesson: not a Potions one
    d.act(1, {"type": "show", "slot": lesson} if shows else {"type": "none"}, "show")
    assert deck_size(d, 1) == before - (0 if shows else 4)
    assert (lesson in d.table.public) == shows and lesson in d.state.hand[1]


# ----------------------------------------------------------------------------- Items with a use


def test_cage_is_discarded_with_an_action_to_return_a_creature_to_its_owners_hand() -> None:
    d = Duel(first=0, decks={0: ["Cage"], 1: ["Guard Dog"]}, in_play={0: ["Cage"], 1: ["Guard Dog"]})
    cage, dog = d.slot(0, "Cage", "items"), d.slot(1, "Guard Dog", "creatures")
    assert power(d.state, 0)[LessonType.CARE_OF_MAGICAL_CREATURES] == 1
    d.act(0, {"type": "item", "slot": cage}, "action")
    d.act(0, {"type": "creature", "slot": dog}, "creature")
    assert d.state.items[0] == [] and d.names(0, "discard") == ["Cage"] and dog in d.state.hand[1]
    assert d.prompt == "action"  # one Action used


def test_remembrall_puts_a_lesson_from_the_discard_pile_into_play() -> None:
    d = Duel(first=0, decks={0: ["Remembrall"]}, in_play={0: [TR, TR, "Remembrall"]})
    assert not any(a["type"] == "item" for a in d.legal(0))  # no Lesson in the pile yet
    lesson = d.state.lessons[0][0]
    d.state.remove_lesson(lesson)
    d.act(0, {"type": "item", "slot": d.slot(0, "Remembrall", "items")})
    d.act(0, {"type": "take", "slot": lesson}, "retrieve")
    assert lesson in d.state.lessons[0] and d.prompt == "action"


def test_winged_keys_prevent_one_creatures_damage_until_the_end_of_the_opponents_next_turn() -> None:
    d = Duel(first=0, decks={0: ["Winged Keys"], 1: ["Guard Dog", "Pet Rat"]},
             in_play={0: ["Winged Keys"], 1: ["Guard Dog", "Pet Rat"]})
    keys = d.slot(0, "Winged Keys", "items")
    d.act(0, {"type": "item", "slot": keys})
    d.act(0, {"type": "creature", "slot": d.slot(1, "Guard Dog", "creatures")}, "muzzle")
    assert {"type": "item", "slot": keys} not in d.legal(0)  # once per turn, and no Action spent
    before = deck_size(d, 0)
    d.act(0, {"type": "draw"})
    d.act(0, {"type": "draw"})
    assert deck_size(d, 0) == before - 2 - 1  # two draws, then on seat 1's turn only the Rat hit
    d.end_turn(1)
    d.end_turn(0)
    assert deck_size(d, 0) == before - 3 - 1 - 4  # seat 0's draw, then the Dog again (3) and the Rat


# ----------------------------------------------------------------------------- Adventures


def test_4_privet_drive_forbids_spells_until_solved_and_rewards_a_draw() -> None:
    d = Duel(first=0, decks={0: ["4 Privet Drive"], 1: ["Foul Brew"]}, hands={0: ["4 Privet Drive"], 1: ["Foul Brew"]},
             in_play={1: [POT] * 5})
    d.act(0, d.play(0, "4 Privet Drive"))  # 2 Actions
    assert d.name(d.state.adventures[0]) == "4 Privet Drive"
    assert "forbids playing spell" in str(_why(d, 1, "Foul Brew"))
    assert {"type": "solve"} in d.legal(1)  # 8 cards in hand: 6 can go
    d.act(1, {"type": "solve"}, "action")
    for _ in range(6):
        d.act(1, {"type": "discard", "slot": next(s for s in d.state.hand[1] if d.name(s) != "Foul Brew")},
              "discard_own")
    hand = len(d.state.hand[1])
    d.act(1, {"type": "draw"}, "reward")
    assert len(d.state.hand[1]) == hand + 1 and d.state.adventures[0] == -1
    assert d.names(0, "discard") == ["4 Privet Drive"]  # the owner's pile
    assert d.play(1, "Foul Brew") in d.legal(1)


def test_only_one_adventure_per_side() -> None:
    d = Duel(first=0, decks={0: ["4 Privet Drive", "Harry Hunting"]}, hands={0: ["4 Privet Drive", "Harry Hunting"]})
    d.act(0, d.play(0, "4 Privet Drive"))
    d.end_turn(1)
    assert "only one Adventure" in str(_why(d, 0, "Harry Hunting"))


def test_troll_in_the_bathroom_hits_before_each_of_its_owners_turns_and_dungbomb_prevents_it() -> None:
    """Ruling rab1851a2: Dungbomb prevents "Before your turn" damage (here the Troll's)."""
    d = Duel(first=0, decks={0: ["Troll in the Bathroom"], 1: ["Dungbomb"]},
             hands={0: ["Troll in the Bathroom"], 1: ["Dungbomb"]}, in_play={1: [POT, POT]})
    d.act(0, d.play(0, "Troll in the Bathroom"))
    d.act(1, d.play(1, "Dungbomb"))
    before = deck_size(d, 1)
    d.act(1, {"type": "end"})
    assert deck_size(d, 1) == before  # prevented
    d.end_turn(0)
    before = deck_size(d, 1)
    d.end_turn(1)
    assert deck_size(d, 1) == before - 2


def test_harry_hunting_makes_creatures_and_spells_need_two_more_power() -> None:
    d = Duel(first=0, decks={0: ["Harry Hunting"], 1: ["Foul Brew"]}, hands={0: ["Harry Hunting"], 1: ["Foul Brew"]},
             in_play={1: [POT] * 6})
    d.act(0, d.play(0, "Harry Hunting"))
    assert "needs 7 Power" in str(_why(d, 1, "Foul Brew"))


def test_unusual_pets_needs_an_opponents_creature() -> None:
    d = Duel(first=0, decks={0: ["Unusual Pets"]}, hands={0: ["Unusual Pets"]})
    assert "needs an opponent's Creature" in str(_why(d, 0, "Unusual Pets"))


def test_dragons_escape_solved_by_three_lessons_rewards_damage_or_draws() -> None:
    d = Duel(first=0, decks={0: ["Dragon's Escape"]}, hands={0: ["Dragon's Escape"]}, in_play={1: [CH] * 3})
    d.act(0, d.play(0, "Dragon's Escape"))
    d.act(1, {"type": "solve"})
    assert d.state.lessons[1] == []  # one type only: no question
    before = deck_size(d, 0)
    d.act(1, {"type": "target", "seat": 0}, "reward")
    assert deck_size(d, 0) == before - 3


@pytest.mark.parametrize(("spell", "caster_gets"), [("Apparate", False), ("Logic Puzzle", True)])
def test_apparate_and_logic_puzzle_discard_the_opponents_adventure(spell: str, caster_gets: bool) -> None:
    d = Duel(first=0, decks={0: ["Troll in the Bathroom"], 1: [spell]}, hands={0: ["Troll in the Bathroom"]},
             draws={1: [spell]}, in_play={1: [TR, CH] * 3})
    d.act(0, d.play(0, "Troll in the Bathroom"))
    before = deck_size(d, 0)
    d.act(1, d.play(1, spell))
    assert d.state.adventures[0] == -1 and d.names(0, "discard")[0] == "Troll in the Bathroom"
    assert deck_size(d, 0) == before - (4 if caster_gets else 0)  # the Troll's reward: its owner takes 4


def test_dracos_trick_discards_ones_own_adventure_for_its_reward() -> None:
    d = Duel(first=0, decks={0: ["4 Privet Drive", "Draco's Trick"]}, hands={0: ["4 Privet Drive"]},
             draws={0: [CH, "Draco's Trick"]}, in_play={0: [TR] * 7})
    d.act(0, d.play(0, "4 Privet Drive"))
    d.end_turn(1)
    d.act(0, d.play(0, "Draco's Trick"))
    hand = len(d.state.hand[0])
    d.act(0, {"type": "draw"}, "reward")
    assert d.state.adventures[0] == -1 and len(d.state.hand[0]) == hand + 1


def test_meet_the_centaurs_opens_the_opponents_hand_and_its_reward_opens_the_owners() -> None:
    d = Duel(first=0, decks={0: ["Meet the Centaurs"]}, hands={0: ["Meet the Centaurs"]})
    d.act(0, d.play(0, "Meet the Centaurs"))
    assert all(s in d.table.public for s in d.state.hand[1])  # seat 1 drew: that card too
    d.act(1, {"type": "solve"})  # discards the whole hand
    assert d.state.hand[1] == [] and d.state.adventures[0] == -1
    assert all(s in d.table.public for s in d.state.hand[0])  # the reward: seat 0's hand, for good
    d.end_turn(1)
    assert all(s in d.table.public for s in d.state.hand[0])


def test_reptile_house_allows_one_action_of_lessons_a_turn() -> None:
    d = Duel(first=0, decks={0: ["Reptile House"]}, hands={0: ["Reptile House"], 1: [CH, CH]})
    d.act(0, d.play(0, "Reptile House"))
    d.act(1, d.play(1, CH))
    assert "only 1 Action" in str(_why(d, 1, CH))
    assert {"type": "solve"} not in d.legal(1)  # 1 Lesson in play: 4 are needed


def test_reptile_house_is_solved_with_four_lessons_each_of_a_type_the_solver_chooses() -> None:
    """The solver chooses the type of each Lesson in turn (not one type for all four: with 1 Care of Magical Creatures
    Lesson, that choice once discarded only 1)."""
    d = Duel(first=0, decks={0: ["Reptile House"]}, hands={0: ["Reptile House"]}, in_play={1: [CMC, CH, CH, CH, TR]})
    d.act(0, d.play(0, "Reptile House"))
    d.act(1, {"type": "solve"}, "action")
    for kind in ("care_of_magical_creatures", "charms", "charms", "transfiguration"):
        d.act(1, {"type": "lesson", "lesson": kind}, "lesson")
    assert d.names(1, "lessons") == [CH] and d.prompt == "reward"


def test_hannah_abbott_trades_two_hand_cards_for_two_cards_of_the_pile_once_per_game() -> None:
    d = Duel(first=0, decks={0: ["Guard Dog", "Pet Rat"]}, characters={0: "Hannah Abbott"},
             in_play={0: ["Guard Dog", "Pet Rat"]})
    dog, rat = d.slot(0, "Guard Dog", "creatures"), d.slot(0, "Pet Rat", "creatures")
    d.state.remove_creature(dog)
    assert {"type": "trade", "card": 7} not in d.legal(0)  # 1 card in the pile: 2 are needed
    d.state.remove_creature(rat)
    hand = len(d.state.hand[0])
    d.act(0, {"type": "trade", "card": 7}, "action")
    for _ in range(2):
        d.act(0, {"type": "discard", "slot": d.state.hand[0][0]}, "discard_own")
    assert {"type": "take", "slot": dog} in d.legal(0) and len(d.legal(0)) == 2  # not the 2 just discarded
    d.act(0, {"type": "take", "slot": dog}, "retrieve")
    d.act(0, {"type": "take", "slot": rat}, "retrieve")
    assert len(d.state.hand[0]) == hand and {dog, rat} <= set(d.state.hand[0])
    assert d.prompt == "action" and {"type": "trade", "card": 7} not in d.legal(0)  # no Action used; once


def test_flitwick_provides_charms_power_and_trades_two_cards_for_one_needing_charms_power() -> None:
    d = Duel(first=0, decks={0: ["Borrowed Wand", "Guard Dog"]}, characters={0: "Professor Filius Flitwick"},
             in_play={0: ["Borrowed Wand", "Guard Dog"]})
    wand = d.slot(0, "Borrowed Wand", "items")
    d.state.discard_from_play(wand)
    d.state.remove_creature(d.slot(0, "Guard Dog", "creatures"))
    assert power(d.state, 0)[LessonType.CHARMS] == 1
    d.act(0, {"type": "trade", "card": 15})
    for _ in range(2):
        d.act(0, {"type": "discard", "slot": d.state.hand[0][0]}, "discard_own")
    assert d.legal(0) == [{"type": "take", "slot": wand}]  # the Guard Dog needs Care of Magical Creatures
    d.act(0, {"type": "take", "slot": wand}, "retrieve")
    assert wand in d.state.hand[0]


@pytest.mark.parametrize("prevent", [True, False])
def test_potions_exam_discards_three_cards_in_play_unless_a_potions_lesson_goes(prevent: bool) -> None:
    d = Duel(first=0, decks={0: ["Potions Exam"], 1: ["Guard Dog", "Borrowed Wand"]}, hands={0: ["Potions Exam"]},
             in_play={0: [POT] * 10, 1: [POT, CH, "Guard Dog", "Borrowed Wand"]})
    d.act(0, d.play(0, "Potions Exam"))
    if prevent:
        d.act(1, {"type": "prevent"}, "exam")
        assert d.names(1, "lessons") == [CH] and len(d.state.in_play(1)) == 3
        return
    for slot in (d.slot(1, "Guard Dog", "creatures"), d.slot(1, "Borrowed Wand", "items")):
        d.act(1, {"type": "in_play", "slot": slot}, "exam")
    assert {"type": "prevent"} not in d.legal(1)  # started discarding: no more preventing
    d.act(1, {"type": "in_play", "slot": d.state.lessons[1][0]}, "exam")
    assert len(d.state.in_play(1)) == 1 and d.prompt == "action"


# ----------------------------------------------------------------------------- Adventures solved by skipping Actions


def test_diagon_alley_forbids_draw_actions_is_solved_by_7_skipped_actions_ruling_r03088ae3() -> None:
    """Ruling r03088ae3: "draw any number of cards" is one chosen number, drawn all at once."""
    d = Duel(first=0, decks={0: ["Diagon Alley"]}, hands={0: ["Diagon Alley"]})
    d.act(0, d.play(0, "Diagon Alley"))
    assert {"type": "draw"} not in d.legal(1)
    with pytest.raises(IllegalAction):
        d.act(1, {"type": "draw"})
    for turn in range(4):
        for _ in range(2 if turn < 3 else 1):
            d.act(1, {"type": "skip"}, "action")
        if turn < 3:
            d.end_turn(0)
    assert d.prompt == "reward" and {"type": "draw", "cards": 0} in d.legal(1)
    hand = len(d.state.hand[1])
    d.act(1, {"type": "draw", "cards": 4}, "reward")
    assert len(d.state.hand[1]) == hand + 4 and d.state.adventures[0] == -1 and {"type": "draw"} in d.legal(1)


def test_gringotts_cart_ride_makes_the_opponent_discard_before_each_turn() -> None:
    d = Duel(first=0, decks={0: ["Gringotts' Cart Ride"]}, hands={0: ["Gringotts' Cart Ride"]})
    d.act(0, d.play(0, "Gringotts' Cart Ride"))
    d.act(1, {"type": "discard", "slot": d.state.hand[1][0]}, "discard_own")  # before seat 1's turn
    assert len(d.state.hand[1]) == 7 and len(d.state.discard[1]) == 1  # 7 - 1 + the turn's draw


def test_peeves_does_one_damage_per_drawing_ruling_r4001ad64() -> None:
    """Ruling r4001ad64: 1 damage however many cards are drawn at once (Harry Potter's 2 here)."""
    d = Duel(first=0, decks={0: ["Peeves Causes Trouble"]}, hands={0: ["Peeves Causes Trouble"]},
             characters={1: "Harry Potter"})
    d.act(0, d.play(0, "Peeves Causes Trouble"))
    assert len(d.state.discard[1]) == 1  # the turn's draw
    d.act(1, {"type": "draw", "cards": 2})
    assert len(d.state.discard[1]) == 2


def test_human_chess_game_stops_plays_after_a_turn_without_one_but_not_abilities_rulings() -> None:
    """Rulings r992f41e8 (abilities still work) and ref9e6014 (putting a card into play is playing it)."""
    d = Duel(first=1, decks={0: ["Remembrall"], 1: ["Human Chess Game"]}, hands={1: ["Human Chess Game"]},
             in_play={0: [TR, TR, "Remembrall"]}, characters={0: "Draco Malfoy", 1: "Hermione Granger"})
    d.state.remove_lesson(d.state.lessons[0][0])
    d.act(1, d.play(1, "Human Chess Game"))  # seat 1 played a card this turn: seat 0 may play
    assert any(a["type"] == "play" for a in d.legal(0))
    d.end_turn(0)
    d.act(1, {"type": "draw"})
    d.act(1, {"type": "draw"})  # no card played by seat 1 this turn
    assert not any(a["type"] in ("play", "item") for a in d.legal(0))  # Remembrall is playing too
    assert "played no card" in str(_why(d, 0, TR))
    assert any(a["type"] == "ability" for a in d.legal(0))  # Draco Malfoy's ability is no play
    d.act(0, {"type": "solve"})  # 9 cards in hand
    d.act(0, {"type": "hand"}, "solve")
    for _ in range(8):
        d.act(0, {"type": "discard", "slot": d.state.hand[0][0]}, "discard_own")
    d.act(0, {"type": "draw"}, "reward")  # "may draw 3 cards": one question per card
    d.act(0, {"type": "stop"}, "reward")
    assert d.state.adventures[1] == -1 and any(a["type"] == "play" for a in d.legal(0))


def test_boil_cure_puts_up_to_four_cards_of_the_pile_on_the_bottom_of_the_deck() -> None:
    d = Duel(first=0, decks={0: ["Boil Cure", "Guard Dog", "Pet Rat"]}, hands={0: ["Boil Cure"]},
             in_play={0: [POT, "Guard Dog", "Pet Rat"]})
    dog, rat = d.slot(0, "Guard Dog", "creatures"), d.slot(0, "Pet Rat", "creatures")
    d.state.remove_creature(dog)
    d.state.remove_creature(rat)
    size = deck_size(d, 0)
    d.act(0, d.play(0, "Boil Cure"))
    d.act(0, {"type": "take", "slot": rat}, "retrieve")
    d.act(0, {"type": "take", "slot": dog}, "retrieve")  # nothing else to take: done
    assert d.state.deck[0][-2:] == [rat, dog] and deck_size(d, 0) == size + 2
    assert d.names(0, "discard") == ["Boil Cure"]


def test_pomfreys_pick_me_up_then_draws_a_card() -> None:
    d = Duel(first=0, decks={0: ["Pomfrey's Pick-Me-Up", "Pet Rat"]}, hands={0: ["Pomfrey's Pick-Me-Up"]},
             in_play={0: [POT] * 3 + ["Pet Rat"]})
    rat = d.slot(0, "Pet Rat", "creatures")
    d.state.remove_creature(rat)
    hand = len(d.state.hand[0])
    d.act(0, d.play(0, "Pomfrey's Pick-Me-Up"))
    d.act(0, {"type": "take", "slot": rat}, "retrieve")
    assert d.state.deck[0][-1] == rat and len(d.state.hand[0]) == hand  # the Spell out, a card drawn


@pytest.mark.parametrize(("spell", "victim"), [
    ("Out of the Woods", "Guard Dog"), ("History of Magic", "Dragon's Escape"),
])
def test_looking_at_the_hand_discards_every_card_of_a_type(spell: str, victim: str) -> None:
    other = "Apparate" if victim == "Guard Dog" else "Pet Rat"
    d = Duel(first=0, decks={0: [spell], 1: [victim, victim, other]}, hands={0: [spell], 1: [victim, victim, other]},
             in_play={0: [CH] * 5})
    d.act(0, d.play(0, spell))
    assert {"type": "stop"} not in d.legal(0)  # the caster saw two of them
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "discard", "slot": d.slot(1, other)}, "discard_all")
    for _ in range(2):
        d.act(0, {"type": "discard", "slot": d.slot(1, victim)}, "discard_all")
    d.act(0, {"type": "stop"}, "discard_all")
    assert d.names(1, "discard") == [victim, victim] and d.slot(1, other) not in d.table.public


@pytest.mark.parametrize("protocol", ["", "fast"])
def test_incendio_does_one_damage_per_charms_lesson_to_a_creature_chosen_from_either_side(protocol: str) -> None:
    d = Duel(first=0, decks={0: ["Incendio", "Guard Dog"], 1: ["Guard Dog"]}, protocol=protocol,  # type: ignore[arg-type]
             hands={0: ["Incendio"]}, in_play={0: [CH] * 3 + [CMC, CMC, "Guard Dog"], 1: ["Guard Dog"]})
    d.act(0, d.play(0, "Incendio"))
    targets = d.legal(0)
    assert {a["type"] for a in targets} == {"target"} and len(targets) == 2  # a Creature must be chosen: no stop
    theirs = d.state.creatures[1][0][0]
    d.act(0, {"type": "target", "slot": theirs}, "target")
    assert d.state.creatures[1][0][1] == 3  # three Charms Lessons in play (the CMC ones do not count)
    assert d.state.creatures[0][0][1] == 0


def test_incendio_with_no_creature_in_play_does_nothing() -> None:
    d = Duel(first=0, decks={0: ["Incendio"]}, hands={0: ["Incendio"]}, in_play={0: [CH] * 3})
    before = list(d.state.creatures)
    d.act(0, d.play(0, "Incendio"))
    assert d.state.creatures == before and d.prompt != "target"
