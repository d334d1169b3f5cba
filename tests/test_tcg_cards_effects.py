"""Every card of the two Starter Set decks, one scenario each (engine mode, stacked secret decks).

Seat 0 plays Hermione's deck and seat 1 Draco's (the table's default options).  Each test stacks the
hands, the next draws and the cards already in play, then plays the card through real actions.
"""

from __future__ import annotations

import pytest

from p2php.engine.contract import IllegalAction
from p2php.testing.tcg import Duel

CMC = "Care of Magical Creatures"


def hand_size(d: Duel, seat: int) -> int:
    return len(d.state.hand[seat])


# ----------------------------------------------------------------------------- Lessons


@pytest.mark.parametrize(("seat", "lesson"), [(0, CMC), (0, "Transfiguration"), (1, CMC), (1, "Charms")])
def test_a_lesson_goes_into_play_and_gives_one_power_of_its_type(seat: int, lesson: str) -> None:
    from p2php.games.tcg.cards import card_by_name
    from p2php.games.tcg.power import power

    d = Duel(first=seat, hands={seat: [lesson]})
    d.act(seat, d.play(seat, lesson), "action")
    assert d.names(seat, "lessons") == [lesson]
    kind = card_by_name(lesson).lesson
    assert kind is not None
    assert power(d.state, seat)[kind] == 1 and sum(power(d.state, seat).values()) == 1
    assert d.table.public[d.slot(seat, lesson, "lessons")]  # playing opened it to everyone


# ----------------------------------------------------------------------------- Creatures


@pytest.mark.parametrize(("seat", "creature", "lessons", "damage"), [
    (0, "Curious Raven", [CMC, CMC], 1),
    (1, "Boa Constrictor", [CMC, "Charms", "Charms", "Charms"], 2),
    (1, "Surly Hound", [CMC, "Charms", "Charms"], 1),
    (0, "Vicious Wolf", [CMC] + ["Transfiguration"] * 5, 3),
])
def test_a_creature_damages_the_opponent_from_its_owners_next_turn(
        seat: int, creature: str, lessons: list[str], damage: int) -> None:
    d = Duel(first=seat, hands={seat: [creature]}, in_play={seat: lessons})
    opp = 1 - seat
    d.act(seat, d.play(seat, creature), "action")
    assert d.names(seat, "creatures") == [creature]
    before = len(d.state.deck[opp])
    d.act(seat, {"type": "end"})  # not on the turn it is played (§5.2)
    assert len(d.state.deck[opp]) == before - 1  # the opponent only drew
    d.end_turn(opp)
    assert len(d.state.deck[opp]) == before - 1 - damage  # milled face up into the discard pile
    assert len(d.state.discard[opp]) == damage


def test_forest_troll_costs_a_care_of_magical_creatures_lesson_after_the_power_check() -> None:
    d = Duel(first=0, hands={0: ["Forest Troll"]}, in_play={0: [CMC, CMC]})
    d.act(0, d.play(0, "Forest Troll"))
    assert d.names(0, "creatures") == ["Forest Troll"]
    assert d.names(0, "lessons") == [CMC] and d.names(0, "discard") == [CMC]
    d.end_turn(0)
    before = len(d.state.deck[1])
    d.end_turn(1)
    assert len(d.state.deck[1]) == before - 2  # 2 damage each turn


def test_forest_troll_needs_a_care_of_magical_creatures_lesson_to_pay_with() -> None:
    d = Duel(first=0, hands={0: ["Forest Troll"]}, in_play={0: ["Transfiguration", "Transfiguration"]})
    with pytest.raises(IllegalAction):
        d.act(0, d.play(0, "Forest Troll"))


# ----------------------------------------------------------------------------- Spells


def test_magical_mishap_does_3_damage_and_goes_to_the_discard_pile() -> None:
    d = Duel(first=1, hands={1: ["Magical Mishap"]}, in_play={1: ["Charms", "Charms"]})
    before = len(d.state.deck[0])
    d.act(1, d.play(1, "Magical Mishap"))
    assert len(d.state.deck[0]) == before - 3 and len(d.state.discard[0]) == 3
    assert d.names(1, "discard") == ["Magical Mishap"]


def test_stupefy_does_5_damage() -> None:
    d = Duel(first=1, hands={1: ["Stupefy"]}, in_play={1: ["Charms"] * 6})
    before = len(d.state.deck[0])
    d.act(1, d.play(1, "Stupefy"))
    assert len(d.state.deck[0]) == before - 5
    assert d.names(1, "discard") == ["Stupefy"]


def test_vermillious_hits_the_opponent_or_a_creature_of_ones_choice() -> None:
    d = Duel(first=1, hands={1: ["Vermillious", "Vermillious"]}, in_play={1: ["Charms"] * 4, 0: ["Forest Troll"]})
    troll = d.slot(0, "Forest Troll", "creatures")
    d.act(1, d.play(1, "Vermillious"))
    assert {"type": "target", "slot": troll} in d.legal(1) and {"type": "target", "seat": 0} in d.legal(1)
    d.act(1, {"type": "target", "slot": troll}, "target")
    assert d.state.creatures[0] == [[troll, 3]] or d.state.creatures[0] == []
    assert d.names(0, "discard") == ["Forest Troll"]  # 3 counters >= Health 3: discarded
    d.act(1, d.play(1, "Vermillious"))
    d.act(1, {"type": "target", "seat": 0}, "target")
    assert len(d.state.discard[0]) == 1 + 3  # the Troll, then 3 cards milled


def test_vermillious_damage_counters_add_up() -> None:
    d = Duel(first=1, hands={1: ["Vermillious"]}, in_play={1: ["Charms"] * 4, 0: ["Curious Raven"]})
    d.state.creatures[0][0][1] = 0
    raven = d.slot(0, "Curious Raven", "creatures")
    d.act(1, d.play(1, "Vermillious"))
    d.act(1, {"type": "target", "slot": raven})
    assert d.state.creatures[0] == [] and d.names(0, "discard") == ["Curious Raven"]


def test_accio_puts_up_to_two_lessons_from_the_discard_pile_into_the_hand() -> None:
    d = Duel(first=1, hands={1: ["Accio"]}, in_play={1: ["Charms", "Charms", CMC]})
    d.state.remove_lesson(d.slot(1, "Charms", "lessons"))  # a Charms Lesson in the discard pile
    assert d.names(1, "discard") == ["Charms"]
    hand = hand_size(d, 1)
    d.act(1, d.play(1, "Accio"))
    d.act(1, {"type": "take", "slot": d.slot(1, "Charms", "discard")}, "retrieve")
    assert hand_size(d, 1) == hand  # Accio left, the Charms came back
    assert "Charms" in [d.name(s) for s in d.state.hand[1]]
    assert d.names(1, "discard") == ["Accio"]


def test_accio_may_take_nothing() -> None:
    d = Duel(first=1, hands={1: ["Accio"]}, in_play={1: ["Charms", "Charms", "Charms"]})
    d.state.remove_lesson(d.state.lessons[1][0])
    d.act(1, d.play(1, "Accio"))
    d.act(1, {"type": "stop"}, "retrieve")
    assert d.names(1, "discard") == ["Charms", "Accio"]


def test_avifors_discards_an_opponents_care_of_magical_creatures_lesson() -> None:
    d = Duel(first=0, hands={0: ["Avifors"]}, in_play={0: ["Transfiguration", "Transfiguration"], 1: [CMC, "Charms"]})
    d.act(0, d.play(0, "Avifors"))
    assert d.names(1, "lessons") == ["Charms"] and d.names(1, "discard") == [CMC]


def test_avifors_cannot_be_played_without_a_target() -> None:
    d = Duel(first=0, hands={0: ["Avifors"]}, in_play={0: ["Transfiguration", "Transfiguration"], 1: ["Charms"]})
    assert d.play(0, "Avifors") not in d.legal(0)
    with pytest.raises(IllegalAction):
        d.act(0, d.play(0, "Avifors"))


def test_epoximise_discards_an_opponents_charms_lesson() -> None:
    d = Duel(first=0, hands={0: ["Epoximise"]}, in_play={0: ["Transfiguration", CMC], 1: [CMC, "Charms"]})
    d.act(0, d.play(0, "Epoximise"))
    assert d.names(1, "lessons") == [CMC] and d.names(1, "discard") == ["Charms"]


def test_hagrid_and_the_stranger_returns_a_creature_from_the_discard_pile() -> None:
    d = Duel(first=0, hands={0: ["Hagrid and the Stranger"]}, in_play={0: [CMC] * 4 + ["Vicious Wolf"]})
    d.state.remove_creature(d.slot(0, "Vicious Wolf", "creatures"))
    d.act(0, d.play(0, "Hagrid and the Stranger"))
    d.act(0, {"type": "take", "slot": d.slot(0, "Vicious Wolf", "discard")}, "retrieve")
    assert "Vicious Wolf" in [d.name(s) for s in d.state.hand[0]]
    assert d.names(0, "discard") == ["Hagrid and the Stranger"]


def test_hagrid_needs_a_creature_in_the_discard_pile() -> None:
    d = Duel(first=0, hands={0: ["Hagrid and the Stranger"]}, in_play={0: [CMC] * 4})
    assert d.play(0, "Hagrid and the Stranger") not in d.legal(0)


def test_incarcifors_discards_an_opponents_creature_of_ones_choice() -> None:
    d = Duel(first=0, hands={0: ["Incarcifors"]},
             in_play={0: ["Transfiguration"] * 6, 1: ["Surly Hound", "Boa Constrictor"]})
    boa = d.slot(1, "Boa Constrictor", "creatures")
    d.act(0, d.play(0, "Incarcifors"))
    assert d.legal(0) == [{"type": "creature", "slot": s} for s, _ in d.state.creatures[1]]
    d.act(0, {"type": "creature", "slot": boa}, "creature")
    assert d.names(1, "creatures") == ["Surly Hound"] and d.names(1, "discard") == ["Boa Constrictor"]


def test_take_root_makes_the_opponent_choose_a_creature_to_discard() -> None:
    d = Duel(first=0, hands={0: ["Take Root"]},
             in_play={0: ["Transfiguration"] * 5, 1: ["Surly Hound", "Boa Constrictor"]})
    hound = d.slot(1, "Surly Hound", "creatures")
    d.act(0, d.play(0, "Take Root"))
    d.act(1, {"type": "creature", "slot": hound}, "creature")  # seat 1 chooses
    assert d.names(1, "creatures") == ["Boa Constrictor"]


# ----------------------------------------------------------------------------- Characters


def test_draco_malfoy_discards_a_card_to_look_at_the_opponents_hand_and_discard_one() -> None:
    d = Duel(first=1, hands={1: ["Stupefy"], 0: ["Vicious Wolf"]})
    wolf = d.slot(0, "Vicious Wolf")
    d.act(1, {"type": "ability", "slot": d.slot(1, "Stupefy")}, "action")
    assert d.names(1, "discard") == ["Stupefy"]
    assert d.table.knowledge(1).face(wolf) is not None  # shown to Draco's seat alone
    assert wolf not in d.table.public
    d.act(1, {"type": "discard", "slot": wolf}, "draco")
    assert d.names(0, "discard") == ["Vicious Wolf"] and wolf not in d.state.hand[0]
    assert d.prompt == "action"  # one Action left: the ability may be used again (ruling r9237a0a5)
    assert any(a["type"] == "ability" for a in d.legal(1))


def test_hermione_granger_plays_two_lessons_for_one_action_with_two_in_play() -> None:
    d = Duel(first=0, hands={0: [CMC, CMC, CMC]}, in_play={0: [CMC, CMC]})
    d.act(0, d.play(0, CMC), "action")
    d.act(0, d.play(0, CMC), "second_lesson")
    assert len(d.state.lessons[0]) == 4 and d.prompt == "action"
    d.act(0, d.play(0, CMC), "action")
    d.act(0, {"type": "stop"}, "second_lesson")
    assert d.state.turn == 1  # both Actions used


def test_hermione_granger_needs_two_lessons_already_in_play() -> None:
    d = Duel(first=0, hands={0: [CMC, CMC]}, in_play={0: [CMC]})
    d.act(0, d.play(0, CMC))
    assert d.prompt == "action"  # no second Lesson offered


def test_the_second_lesson_must_be_a_lesson() -> None:
    d = Duel(first=0, hands={0: [CMC, "Vicious Wolf"]}, in_play={0: [CMC, CMC]})
    d.act(0, d.play(0, CMC))
    with pytest.raises(IllegalAction):
        d.act(0, d.play(0, "Vicious Wolf"), "second_lesson")
