"""Harry Potter Sha: the Dark Mark and the Order of the Phoenix (chars_adults.py), one scenario per
skill and per ※ ruling, each run on a trusted local dealer and through the real protocol."""

from __future__ import annotations

import pytest

from p2php.games.hpsha.data import AUROR, CARDS, DARK, MINISTER, SPY
from p2php.testing.hpsha import Scenario

pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def pass_window(sc: Scenario, prompt: str, seats: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    for s in seats:
        sc.pass_(s, prompt)


def skill_actions(sc: Scenario, seat: int, key: str) -> list[dict[str, object]]:
    return [a for a in sc.legal(seat) if a.get("type") == "skill" and a.get("skill") == key]


# ----------------------------------------------------------------------------- Lord Voldemort


def test_voldemort_darkness_his_red_spell_has_no_effect_on_others() -> None:
    sc = Scenario(["voldemort", "ron", "snape", "luna"], hands={0: [("sectumsempra", "♥")]})
    st = sc.state
    sc.use(0, "sectumsempra")
    # no 咒立停 window and no 幻影移形 asked: it does not resolve on anyone
    assert sc.prompt() == ((0,), "play")
    assert st.hp[1:] == [4, 3, 3] and "sectumsempra" in sc.discard_kinds()
    assert sc.log().count("has no effect") == 3 and "黑暗 Darkness" in sc.log()


def test_voldemort_darkness_black_spells_of_others_have_no_effect_on_him() -> None:
    sc = Scenario(["ron", "voldemort", "snape", "luna"],
                  hands={0: [("stupefy", "♠"), ("bind", "♠")], 1: ["bombarda"]})
    st = sc.state
    sc.use(0, "bind", [1])
    assert st.judge[1] == [] and "bind" in sc.discard_kinds()  # used, but it never lies in his area
    sc.use(0, "stupefy")
    # the 咒立停 window and the 爆破咒 answer are for seats 2 and 3 only
    pass_window(sc, "respond:counter")
    sc.pass_(2, "respond:stupefy")
    sc.choose(2, "flip", "stupefy")
    pass_window(sc, "respond:counter")
    sc.pass_(3, "respond:stupefy")
    sc.choose(3, "flip", "stupefy")
    assert sc.prompt() == ((0,), "play")
    assert not st.face_down[1] and st.face_down[2] and st.face_down[3]


def test_voldemort_darkness_a_killing_curse_reaching_him_is_still_judged() -> None:
    sc = Scenario(["ron", "voldemort", "snape", "luna"], hands={0: ["avada"]},
                  deck=["*", "*", ("bombarda", "♠", 8)])
    st = sc.state
    sc.force_judge(0, "avada", 1)  # as if it had moved on to him from its (self-)user
    sc.end(0)
    sc.pass_until(1, "respond:counter")  # judged like any other: a 咒立停 window, then the judgement
    pass_window(sc, "respond:counter", (1, 2, 3, 0))
    pass_window(sc, "respond:patronus", (1, 2, 3, 0))
    assert st.hp[1] == 1 and "阿瓦达索命 strikes" in sc.log()


def test_voldemort_rebirth_at_one_hp_discards_two_and_returns_to_three() -> None:
    sc = Scenario(["voldemort", "ron", "snape", "luna"])
    st = sc.state
    st.hp[0] = 2
    assert skill_actions(sc, 0, "rebirth") == []  # HP 2 is not below the 2 HP lost
    st.hp[0] = 1
    acts = skill_actions(sc, 0, "rebirth")
    assert acts and all(len(a["slots"]) == 2 for a in acts)  # type: ignore[arg-type]
    n = len(st.hands[0])
    sc.act(0, acts[0], "play")
    assert sc.prompt() == ((0,), "play")
    assert st.hp[0] == 3 and len(st.hands[0]) == n - 2
    assert skill_actions(sc, 0, "rebirth") == []


def test_voldemort_rebirth_as_minister_with_five_max_hp() -> None:
    sc = Scenario(["voldemort", "ron", "snape", "luna", "harry"], roles=[MINISTER, AUROR, DARK, DARK, SPY])
    st = sc.state
    assert st.max_hp[0] == 5
    st.hp[0] = 2
    acts = skill_actions(sc, 0, "rebirth")
    assert acts and all(len(a["slots"]) == 1 for a in acts)  # type: ignore[arg-type]
    sc.act(0, acts[0], "play")
    sc.prompt()
    assert st.hp[0] == 3
    st.hp[0] = 1
    acts = skill_actions(sc, 0, "rebirth")
    assert acts and all(len(a["slots"]) == 3 for a in acts)  # type: ignore[arg-type]
    sc.act(0, acts[0], "play")
    sc.prompt()
    assert st.hp[0] == 4


# ----------------------------------------------------------------------------- Lucius Malfoy


def test_lucius_wealth_judges_until_a_colour_repeats_and_takes_one_colour() -> None:
    sc = Scenario(["lucius", "ron", "snape", "luna"],
                  deck=[("tears", "♥", 3), ("bombarda", "♠", 7), ("apparate", "♦", 2), ("bombarda", "♣", 8)])
    st = sc.state
    c0, c1, c2, c3 = st.deck[:4]
    sc.act(0, {"type": "invoke"}, "skill:wealth")
    sc.choose(0, "continue", "wealth:continue")  # ♠7 differs from ♥3: judge again
    sc.choose(0, "continue", "wealth:continue")  # ♦2 differs from ♠7
    # ♣8 differs from ♦2 as well: go on?  stop here instead: every card so far may be taken
    sc.choose(0, "stop", "wealth:continue")
    sc.choose(0, "red", "wealth:colour")
    assert c0 in st.hands[0] and c2 in st.hands[0]
    assert c1 in st.discard and c3 in st.discard
    assert sc.prompt() == ((0,), "play") and len(st.hands[0]) == 4 + 2 + 2


def test_lucius_wealth_display_is_no_judgement_and_the_matching_card_is_not_obtained() -> None:
    sc = Scenario(["lucius", "draco", "snape", "luna"], hands={1: [("tears", "♥", 4)]},
                  deck=[("bombarda", "♠", 7), ("tears", "♥", 3), ("apparate", "♦", 2)])
    st = sc.state
    c0, c1, c2 = st.deck[:3]
    sc.act(0, {"type": "invoke"}, "skill:wealth")
    # the displayed ♠7 is not a judgement card: 捉弄 is first offered for the judged ♥3
    sc.pass_(1, "skill:trickery")
    sc.choose(0, "continue", "wealth:continue")
    sc.pass_(1, "skill:trickery")  # ♦2: red after red ends the chain, and it cannot be taken
    assert sc.prompt() == ((0,), "wealth:colour")
    sc.choose(0, "red", "wealth:colour")
    assert c1 in st.hands[0] and c0 in st.discard and c2 in st.discard
    assert "捉弄" not in sc.log()


def test_lucius_scheme_gives_a_hand_equipment_card_and_recovers_once_per_phase() -> None:
    sc = Scenario(["lucius", "ron", "snape", "luna"], hands={0: ["holly", "nimbus2000"]})
    st = sc.state
    st.hp[0] = 2
    sc.pass_(0, "skill:wealth")
    holly = sc.slot(0, "holly")
    acts = skill_actions(sc, 0, "scheme")
    assert {a["slots"][0] for a in acts} == {holly, sc.slot(0, "nimbus2000")}  # type: ignore[index]
    sc.act(0, {"type": "skill", "skill": "scheme", "slots": [holly], "targets": [2]}, "play")
    assert holly in st.hands[2] and holly in st.pub and st.hp[0] == 3
    assert skill_actions(sc, 0, "scheme") == []


def test_lucius_scheme_may_give_an_equipped_card() -> None:
    sc = Scenario(["lucius", "ron", "snape", "luna"], hands={0: ["cloak"]})
    st = sc.state
    st.hp[0] = 3
    sc.pass_(0, "skill:wealth")
    cloak = sc.force_equip(0, "cloak")
    sc.act(0, {"type": "skill", "skill": "scheme", "slots": [cloak], "targets": [1]}, "play")
    assert cloak in st.hands[1] and "armour" not in st.equip[0] and st.hp[0] == 4


# ----------------------------------------------------------------------------- Peter Pettigrew


def test_pettigrew_self_mutilation_loses_two_and_the_other_dies_at_once() -> None:
    sc = Scenario(["ron", "pettigrew", "snape", "luna"], hands={0: ["bombarda"]})
    st = sc.state
    st.hp[3] = 1
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.act(1, {"type": "invoke"}, "skill:self_mutilation")
    # no 凤凰眼泪 asked for her: she skips the dying state
    assert sc.prompt() == ((0,), "play")
    assert not st.alive[3] and st.hp[1] == 1 and st.roles[3] == SPY
    assert "dies at once" in sc.log()


def test_pettigrew_self_mutilation_his_dying_first_and_the_effect_stays_if_he_dies() -> None:
    sc = Scenario(["ron", "pettigrew", "snape", "luna"], hands={0: ["bombarda"]})
    st = sc.state
    st.hp[3], st.hp[1] = 1, 2
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.act(1, {"type": "invoke"}, "skill:self_mutilation")
    pass_window(sc, "respond:tears")  # Pettigrew's own dying state (HP 0): nobody saves him
    assert sc.prompt() == ((0,), "play")
    assert not st.alive[1] and not st.alive[3]


def test_pettigrew_hiding_no_damage_from_afar_while_strictly_lowest() -> None:
    sc = Scenario(["ron", "snape", "pettigrew", "luna"], hands={0: ["sword", "bombarda"], 3: ["bombarda"]})
    st = sc.state
    st.hp[2] = 2
    sc.force_equip(0, "sword")
    assert st.distance(0, 2) == 2
    sc.use(0, "bombarda", [2])
    sc.pass_(2, "respond:bombarda")
    # prevented at once: no 呼神护卫 window
    assert sc.prompt() == ((0,), "play") and st.hp[2] == 2 and "cannot take damage from" in sc.log()


def test_pettigrew_hiding_is_gone_at_once_on_a_tie() -> None:
    sc = Scenario(["ron", "snape", "pettigrew", "luna"], hands={0: ["sword", "bombarda"]})
    st = sc.state
    st.hp[2] = st.hp[3] = 2
    sc.force_equip(0, "sword")
    sc.use(0, "bombarda", [2])
    sc.pass_(2, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert sc.prompt() == ((0,), "play") and st.hp[2] == 1


# ----------------------------------------------------------------------------- Bellatrix Lestrange


def test_bellatrix_torture_a_spade_as_crucio() -> None:
    sc = Scenario(["bellatrix", "ron", "snape", "luna"], hands={0: [("bombarda", "♠", 8), ("tears", "♥", 3)]})
    st = sc.state
    spade, heart = sc.slot(0, "bombarda"), sc.slot(0, "tears")
    tortures = [a for a in sc.legal(0) if a.get("skill") == "torture"]
    assert spade in {a["slots"][0] for a in tortures} and heart not in {a["slots"][0] for a in tortures}
    assert all(CARDS[sc.table.faces[a["slots"][0]]].suit == "♠" for a in tortures)
    sc.act(0, {"type": "use", "kind": "crucio", "slots": [spade], "targets": [1], "skill": "torture"}, "play")
    pass_window(sc, "respond:counter")
    sc.pass_(1, "respond:crucio")
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 3 and "钻心剜骨" in sc.log()


def test_bellatrix_arson_draws_two_when_a_red_bombarda_deals_damage() -> None:
    sc = Scenario(["ron", "snape", "bellatrix", "luna"], hands={0: [("bombarda", "♥", 10), ("bombarda", "♠", 9)]})
    st = sc.state
    n = len(st.hands[2])
    sc.use(0, "bombarda", [1], nth=[CARDS[sc.table.faces[s]].suit for s in st.hands[0]
                                    if CARDS[sc.table.faces[s]].kind == "bombarda"].index("♥"))
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.act(2, {"type": "invoke"}, "skill:arson")
    assert sc.prompt() == ((0,), "play") and len(st.hands[2]) == n + 2


def test_bellatrix_arson_counts_a_red_card_whose_name_was_changed() -> None:
    # 着迷 turns 亚瑟's ♦ cards into 爆破咒: his red ♦ 幻影移形 used as one still triggers 纵火
    sc = Scenario(["arthur", "ron", "bellatrix", "luna"], hands={0: [("apparate", "♦", 2)]},
                  deck=[("bombarda", "♦", 6)])
    st = sc.state
    dodge = sc.slot(0, "apparate")
    sc.act(0, {"type": "use", "kind": "bombarda", "slots": [dodge], "targets": [1]}, "play")
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.act(2, {"type": "invoke"}, "skill:arson")
    assert st.hp[1] == 3 and sc.prompt() == ((0,), "play")


# ----------------------------------------------------------------------------- Arthur Weasley


def test_arthur_fascination_hand_cards_of_the_suit_count_as_the_revealed_card() -> None:
    sc = Scenario(["arthur", "ron", "snape", "luna"], hands={0: [("expelliarmus", "♣", 3), ("apparate", "♦", 2)]},
                  deck=[("bombarda", "♣", 5)])
    st = sc.state
    shown = st.processing[0]
    assert sc.prompt() == ((0,), "play") and st.pub[shown] == sc.table.faces[shown]
    club = sc.slot(0, "expelliarmus")
    uses = [a for a in sc.legal(0) if a.get("type") == "use" and a["slots"] == [club]]
    assert uses and all(a["kind"] == "bombarda" for a in uses)  # no longer a 除你武器
    sc.end(0)
    sc.pass_until(1, "play")
    assert shown in st.discard  # the indicator goes to the discard pile at the end of his turn
    assert not [a for a in sc.legal(1) if a.get("kind") == "bombarda" and a["slots"] == [club]]


def test_arthur_fascination_no_effect_for_equipment_or_a_delayed_spell() -> None:
    sc = Scenario(["arthur", "ron", "snape", "luna"], hands={0: [("expelliarmus", "♠", 3)]},
                  deck=[("nimbus2000", "♠", 5)])
    st = sc.state
    shown = st.processing[0]
    exp = sc.slot(0, "expelliarmus")
    assert any(a.get("kind") == "expelliarmus" and a["slots"] == [exp] for a in sc.legal(0))
    assert "no effect" in sc.log()
    sc.end(0)
    sc.pass_until(1, "play")
    assert shown in st.discard


def test_arthur_justice_the_same_card_twice_takes_effect_directly() -> None:
    sc = Scenario(["arthur", "ron", "snape", "luna"],
                  hands={0: [("geminio", "♥", 7), ("geminio", "♥", 8), ("bombarda", "♠", 9)], 1: ["counter"]},
                  deck=["nimbus2000"])
    st = sc.state
    sc.use(0, "geminio", nth=0)
    pass_window(sc, "respond:counter")
    sc.prompt()
    n = len(st.hands[0])
    sc.use(0, "geminio", nth=0)
    offers = [a for a in sc.legal(0) if a["type"] == "invoke"]
    black = sc.slot(0, "bombarda")
    assert {"type": "invoke", "slot": black} in offers
    assert all(CARDS[sc.table.faces[a["slot"]]].suit != "♥" for a in offers)  # another suit only
    sc.act(0, {"type": "invoke", "slot": black}, "skill:justice")
    assert sc.prompt() == ((0,), "play")  # no 咒立停 window: seat 1's 咒立停 cannot stop it
    assert len(st.hands[0]) == n - 2 + 2 and black in st.discard


def test_arthur_justice_same_name_is_enough_even_by_fascination_and_no_dodge() -> None:
    sc = Scenario(["arthur", "ron", "snape", "luna"],
                  hands={0: ["walnut", ("expelliarmus", "♣", 3), ("bombarda", "♠", 9), ("tears", "♥", 3)],
                         1: ["apparate", "apparate"]},
                  deck=[("bombarda", "♣", 5)])
    st = sc.state
    sc.force_equip(0, "walnut")
    club = sc.slot(0, "expelliarmus")
    sc.act(0, {"type": "use", "kind": "bombarda", "slots": [club], "targets": [1]}, "play")
    sc.give(1, "apparate", "respond:bombarda")
    pass_window(sc, "respond:patronus")  # the walnut backlash (a dodged 爆破咒 deals no damage)
    assert sc.prompt() == ((0,), "play") and st.hp[0] == 3
    sc.use(0, "bombarda", [1])
    heart = sc.slot(0, "tears")
    assert {"type": "invoke", "slot": heart} in sc.legal(0)
    sc.act(0, {"type": "invoke", "slot": heart}, "skill:justice")
    # the second 爆破咒 (another suit, the same name) cannot be dodged: straight to the 呼神护卫 window
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 3 and sc.hand_kinds(1).count("apparate") == 1  # never asked to dodge again


# ----------------------------------------------------------------------------- Molly Weasley


def test_molly_homemaker_others_cannot_take_her_equipment() -> None:
    sc = Scenario(["ron", "molly", "snape", "luna"],
                  hands={0: [("expelliarmus", "♠", 3), ("legilimens", "♠", 3)], 1: ["holly"]})
    st = sc.state
    holly = sc.force_equip(1, "holly")
    n = len(st.hands[1])
    sc.use(0, "expelliarmus", [1])
    pass_window(sc, "respond:counter")
    # only her hand is within reach: no choice of zone, a random hand card is discarded
    assert sc.prompt() == ((0,), "play") and st.equip[1] == {"weapon": holly} and len(st.hands[1]) == n - 1
    sc.use(0, "legilimens", [1])
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play") and st.equip[1] == {"weapon": holly} and len(st.hands[1]) == n - 2


def test_molly_worry_takes_one_point_of_bigger_damage_keeping_its_attribute() -> None:
    sc = Scenario(["ron", "molly", "snape", "luna"], hands={0: ["avada"]},
                  deck=["*", "*", "*", "*", ("bombarda", "♠", 8)])
    st = sc.state
    sc.force_judge(0, "avada", 2)
    sc.end(0)
    sc.pass_until(2, "respond:counter")
    pass_window(sc, "respond:counter", (2, 3, 0, 1))
    pass_window(sc, "respond:patronus", (2, 3, 0, 1))  # worry comes after the 呼神护卫 window
    n = len(st.hands[1])
    sc.act(1, {"type": "invoke"}, "skill:worry")
    pass_window(sc, "respond:patronus", (2, 3, 0, 1))  # her share is a damage of its own
    assert sc.prompt() == ((2,), "play")
    assert st.hp[1] == 2 and st.hp[2] == 1 and len(st.hands[1]) == n + 1
    assert "莫丽·韦斯莱 takes 1 damage (no source) [avada]" in sc.log()


def test_molly_worry_not_offered_when_patronus_cancelled_the_damage() -> None:
    sc = Scenario(["ron", "molly", "snape", "luna"], hands={0: ["avada"], 3: ["patronus"]},
                  deck=["*", "*", "*", "*", ("bombarda", "♠", 8)])
    st = sc.state
    sc.force_judge(0, "avada", 2)
    sc.end(0)
    sc.pass_until(2, "respond:counter")
    pass_window(sc, "respond:counter", (2, 3, 0, 1))
    sc.pass_(2, "respond:patronus")
    sc.give(3, "patronus", "respond:patronus")
    pass_window(sc, "respond:counter", (2, 3, 0, 1))
    assert sc.prompt() == ((2,), "play") and st.hp[1] == 3 and st.hp[2] == 3


def test_molly_worry_a_death_lets_her_discard_red_to_deal_one_damage() -> None:
    sc = Scenario(["ron", "molly", "snape", "luna"], hands={0: ["bombarda"], 1: [("tears", "♥", 3)]})
    st = sc.state
    st.hp[3] = 1
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    pass_window(sc, "respond:tears")
    tears = sc.slot(1, "tears")
    offers = [a for a in sc.legal(1) if a["type"] == "invoke"]
    assert {"type": "invoke", "slot": tears, "target": 2} in offers
    assert all(CARDS[sc.table.faces[a["slot"]]].red for a in offers)
    sc.act(1, {"type": "invoke", "slot": tears, "target": 2}, "skill:worry")
    pass_window(sc, "respond:patronus", (0, 1, 2))
    assert sc.prompt() == ((0,), "play") and st.hp[2] == 2 and not st.alive[3]


# ----------------------------------------------------------------------------- Sirius Black


@pytest.mark.parametrize("judged", [("bombarda", "♠", 8), ("tears", "♥", 3)])
def test_sirius_wrongful_imprisonment_black_judgement_costs_the_source_one_hp(judged: tuple[str, str, int]) -> None:
    sc = Scenario(["ron", "sirius", "snape", "luna"], hands={0: ["bombarda"]}, deck=["*", "*", judged])
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.act(1, {"type": "invoke"}, "skill:wrongful_imprisonment")
    assert sc.prompt() == ((0,), "play") and st.hp[1] == 3
    if judged[1] == "♠":
        assert st.hp[0] == 3 and "loses 1 HP (冤狱" in sc.log()
    else:  # red: nothing happens (※)
        assert st.hp[0] == 4 and "冤狱: nothing happens" in sc.log()


def test_sirius_fugitive_skips_play_loses_one_and_flips_someone_in_range() -> None:
    sc = Scenario(["ron", "sirius", "snape", "luna"])
    st = sc.state
    st.hp[1] = 4
    sc.end(0)
    sc.pass_until(1, "play")  # even HP: not offered
    sc.end(1)
    st.hp[1] = 3
    sc.pass_until(1, "skill:fugitive")
    assert [a["target"] for a in sc.legal(1) if a["type"] == "invoke"] == [2, 0]  # within range 1
    sc.act(1, {"type": "invoke", "target": 2}, "skill:fugitive")
    d = sc.decide()
    assert d.prompt != "play" and st.hp[1] == 2 and st.face_down[2]
    assert "skips the play phase" in sc.log()
    sc.pass_until(3, "play")
    assert not st.face_down[2] and "turns face up and skips this turn" in sc.log()


# ----------------------------------------------------------------------------- Nymphadora Tonks


def test_tonks_disguise_uses_another_skill_this_turn_and_its_damage_is_that_characters() -> None:
    sc = Scenario(["tonks", "bellatrix", "snape", "luna"], hands={0: ["bombarda", ("legilimens", "♠", 4)]})
    st = sc.state
    opts = [a["value"] for a in sc.legal(0)]
    assert "1/torture" in opts and "2/potions" in opts and all(not str(v).startswith("0/") for v in opts)
    sc.choose(0, "1/torture", "skill:disguise")
    # before she uses it, her damage is her own
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert "takes 1 damage from seat 0" in sc.log()
    spade = sc.slot(0, "legilimens")
    act = {"type": "use", "kind": "crucio", "slots": [spade], "targets": [3], "skill": "disguise:torture"}
    assert act in sc.legal(0)
    sc.act(0, act, "play")
    pass_window(sc, "respond:counter")
    sc.pass_(3, "respond:crucio")
    pass_window(sc, "respond:patronus")
    assert st.hp[3] == 2 and "takes 1 damage from seat 1" in sc.log()  # 贝拉 counts as the source
    sc.pass_(0, "skill:unrequited_love")  # (2 damage in her turn)
    sc.end(0)
    sc.pass_until(1, "play")
    assert [sk.key for sk in st.skills(0)] == ["disguise", "unrequited_love"]  # gone after her turn


def test_tonks_disguise_once_used_her_other_damage_counts_as_that_characters_too() -> None:
    sc = Scenario(["tonks", "bellatrix", "snape", "luna"], hands={0: ["bombarda", ("legilimens", "♠", 4)]})
    st = sc.state
    sc.choose(0, "1/torture", "skill:disguise")
    spade = sc.slot(0, "legilimens")
    sc.act(0, {"type": "use", "kind": "crucio", "slots": [spade], "targets": [3], "skill": "disguise:torture"}, "play")
    pass_window(sc, "respond:counter")
    sc.pass_(3, "respond:crucio")
    pass_window(sc, "respond:patronus")
    sc.use(0, "bombarda", [3])  # not by the skill, yet after using it (※)
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert st.hp[3] == 1 and sc.log().count("takes 1 damage from seat 1") == 2


def test_tonks_unrequited_love_counts_any_damage_in_her_turn() -> None:
    sc = Scenario(["tonks", "ron", "snape", "luna"], hands={0: ["bombarda", "crucio"], 1: ["bombarda"]})
    st = sc.state
    sc.act(0, sc.legal(0)[0], "skill:disguise")
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert sc.prompt() == ((0,), "play")  # 1 damage so far: not yet
    sc.use(0, "crucio", [1])
    pass_window(sc, "respond:counter")
    sc.give(1, "bombarda", "respond:crucio")
    sc.pass_(0, "respond:crucio")
    pass_window(sc, "respond:patronus")  # she takes 1 from 罗恩: 2 in her turn, not all hers (※)
    offers = [a for a in sc.legal(0) if a["type"] == "invoke"]
    assert {a["target"] for a in offers} == {1, 2}  # characters of the other sex
    sc.act(0, {"type": "invoke", "slot": st.hands[0][0], "target": 1}, "skill:unrequited_love")
    assert sc.prompt() == ((0,), "play") and st.hp[1] == 4


def test_tonks_unrequited_love_not_limited_to_the_play_phase() -> None:
    sc = Scenario(["tonks", "ron", "snape", "luna"], hands={0: ["avada", ("tears", "♥", 3)]},
                  deck=["*"] * 8 + [("bombarda", "♠", 8)])
    st = sc.state
    sc.act(0, sc.legal(0)[0], "skill:disguise")
    sc.force_judge(0, "avada", 0)
    st.hp[1] = 3
    sc.end(0)
    sc.pass_until(0, "respond:counter")
    pass_window(sc, "respond:counter")
    pass_window(sc, "respond:patronus")
    sc.give(0, "tears", "respond:tears")
    assert st.phase == "judge"
    sc.act(0, {"type": "invoke", "slot": st.hands[0][0], "target": 1}, "skill:unrequited_love")
    sc.prompt()
    assert st.hp[1] == 4 and st.hp[0] == 1
