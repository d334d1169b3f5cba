"""Harry Potter Sha scenario tests for weapons, brooms and armour (every ※ ruling), and distance."""

from __future__ import annotations

import pytest

from p2php.testing.hpsha import Scenario

C4 = ["ron", "snape", "voldemort", "luna"]


pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def sc4(chars: list[str] | None = None, **kw: object) -> Scenario:
    return Scenario(chars or C4, **kw)  # type: ignore[arg-type]


def pass_window(sc: Scenario, prompt: str, seats: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    for s in seats:
        sc.pass_(s, prompt)


def bombarda_targets(sc: Scenario, seat: int = 0) -> list[int]:
    return sorted({a["targets"][0] for a in sc.legal(seat) if a.get("kind") == "bombarda"})


def test_weapon_sets_attack_range_and_a_new_weapon_discards_the_old() -> None:
    sc = sc4(hands={0: ["bombarda", "sword", "maple"]})
    st = sc.state
    assert bombarda_targets(sc) == [1, 3]
    sword = sc.slot(0, "sword")
    sc.use(0, "sword")
    assert st.attack_range(0) == 2 and bombarda_targets(sc) == [1, 2, 3]
    sc.use(0, "maple")
    assert st.weapon(0) == "maple" and sword in st.discard and st.attack_range(0) == 3


def test_brooms_change_distance_and_firebolt_counts_minus_two() -> None:
    sc = Scenario(["ron", "snape", "voldemort", "luna", "sirius", "molly"],
                  hands={0: ["firebolt", "comet260"], 1: ["nimbus2000"]})
    st = sc.state
    assert [st.distance(0, s) for s in range(6)] == [0, 1, 2, 3, 2, 1]
    sc.force_equip(1, "nimbus2000")
    assert st.distance(0, 1) == 2 and st.distance(1, 0) == 1  # +1: others' distance to the rider
    sc.use(0, "firebolt")
    assert st.distance(0, 3) == 1 and st.distance(0, 1) == 1  # −2, never below 1
    assert st.distance(3, 0) == 3
    sc.use(0, "comet260")  # same class: replaces the firebolt
    assert st.distance(0, 3) == 2 and "firebolt" in sc.discard_kinds()


def test_dead_seats_do_not_count_for_distance() -> None:
    sc = sc4()
    sc.state.alive[1] = False
    assert sc.state.distance(0, 2) == 1


def test_holly_wand_makes_the_attack_undodgeable_after_the_target_is_chosen() -> None:
    sc = sc4(hands={0: ["holly", "bombarda", "bind"], 2: ["apparate"]})
    st = sc.state
    sc.use(0, "holly")
    sc.use(0, "bombarda", [2])
    offered = [sc.table.faces[a["slots"][0]] for a in sc.legal(0) if a["type"] == "card"]
    assert offered
    from p2php.games.hpsha.data import CARDS

    assert all(CARDS[c].category != "basic" for c in offered)  # basic cards do not qualify
    sc.give(0, "bind", "weapon:holly")
    pass_window(sc, "respond:patronus")  # no 幻影移形 prompt at all
    assert st.hp[2] == 3 and sc.slot(2, "apparate") in st.hands[2]


def test_holly_wand_may_discard_an_equipped_card_too() -> None:
    # 「弃置一张非基本牌」: not only hand cards (issue 15); here the broom, with no non-basic hand card left
    sc = sc4(hands={0: ["holly", "nimbus2000", "bombarda", "tears"], 2: ["apparate"]})
    st = sc.state
    sc.use(0, "holly")
    broom = sc.force_equip(0, "nimbus2000")
    sc.use(0, "bombarda", [2])
    holly = st.equip[0]["weapon"]
    offered = [a["slots"][0] for a in sc.legal(0) if a["type"] == "card"]
    assert holly in offered and broom in offered and sc.slot(0, "tears") not in offered
    sc.act(0, {"type": "card", "slots": [broom]}, "weapon:holly")
    pass_window(sc, "respond:patronus")  # undodgeable: no 幻影移形 prompt
    assert st.hp[2] == 3 and broom in st.discard and "weapon" in st.equip[0] and len(st.equip[0]) == 1


def test_holly_wand_may_discard_itself_and_its_attack_stays_undodgeable() -> None:
    sc = sc4(hands={0: ["holly", "bombarda"], 2: ["apparate"]})
    st = sc.state
    sc.use(0, "holly")
    holly = st.equip[0]["weapon"]
    sc.use(0, "bombarda", [2])
    sc.act(0, {"type": "card", "slots": [holly]}, "weapon:holly")
    pass_window(sc, "respond:patronus")
    assert st.hp[2] == 3 and holly in st.discard and not st.equip[0]


def test_holly_wand_refuses_a_basic_hand_card_once_its_face_is_open() -> None:
    from p2php.engine.contract import IllegalAction, Knowledge

    sc = sc4(hands={0: ["holly", "bombarda", "tears"]})
    st = sc.state
    sc.use(0, "holly")
    sc.use(0, "bombarda", [2])
    tears = sc.slot(0, "tears")
    lie = {"type": "card", "slots": [tears]}
    st.check(0, lie, Knowledge({}))  # who cannot see the face cannot tell
    with pytest.raises(IllegalAction, match="basic card"):
        st.check(0, lie, sc.table.knowledge(0))  # the owner (and the audit) can
    assert st.reveals(0, lie) == (tears,)


def test_sword_of_gryffindor_ignores_the_sorting_hat() -> None:
    chars = ["ron", "neville", "voldemort", "luna"]  # seats 0 and 1 share Gryffindor
    sc = sc4(chars, hands={0: ["bombarda", "bombarda", "sword"], 1: ["hat"]})
    st = sc.state
    sc.force_equip(1, "hat")
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")  # 呼神护卫 comes before the hat ...
    assert st.hp[1] == 4  # ... and the hat stops same-faction damage outside its turn
    assert "Sorting Hat" in sc.log()
    sc.use(0, "sword")
    st.bombarda_used = 0  # test-only: a second attack in the same phase
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 3


def test_walnut_any_number_of_bombarda_and_sourceless_backlash_when_no_damage() -> None:
    sc = sc4(hands={0: ["walnut", "bombarda", "bombarda", "bombarda"], 1: ["apparate"]})
    st = sc.state
    sc.use(0, "walnut")
    sc.use(0, "bombarda", [1])
    sc.give(1, "apparate", "respond:bombarda")
    pass_window(sc, "respond:patronus")  # the backlash is damage too
    assert st.hp[0] == 3 and "takes 1 damage (no source) [walnut]" in sc.log()
    assert bombarda_targets(sc) == [1, 2, 3][:1] + [3] or bombarda_targets(sc)
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert st.hp[3] == 2 and st.hp[0] == 3
    assert bombarda_targets(sc)  # still allowed


def test_willow_adds_one_when_the_target_has_no_hand_cards_after_the_patronus_window() -> None:
    # the rulebook's example: the last hand card, a 呼神护卫, is countered → 2 damage
    sc = sc4(hands={0: ["willow", "bombarda", "counter"], 1: ["patronus"]})
    st = sc.state
    sc.use(0, "willow")
    for s in list(st.hands[1]):
        if st.hands[1] and s != sc.slot(1, "patronus"):
            sc.open(s)
            st.to_discard(s)
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    sc.pass_(0, "respond:patronus")
    sc.give(1, "patronus", "respond:patronus")
    sc.give(0, "counter", "respond:counter")
    pass_window(sc, "respond:counter")
    sc.pass_(2, "respond:patronus")
    sc.pass_(3, "respond:patronus")
    assert st.hp[1] == 1 and "Willow Wand" in sc.log()


def test_vine_wand_against_the_opposite_sex() -> None:
    sc = sc4(hands={0: ["vine", "bombarda"], 3: ["apparate"]})
    st = sc.state
    sc.use(0, "vine")
    sc.use(0, "bombarda", [3])  # 罗恩 (M) → 卢娜 (F)
    sc.choose(0, "use", "weapon:vine")
    before = len(st.hands[0])
    sc.pass_(3, "weapon:vine")  # she lets him draw instead of discarding
    sc.give(3, "apparate", "respond:bombarda")
    sc.prompt()
    assert len(st.hands[0]) == before + 1


def test_vine_wand_not_offered_against_the_same_sex() -> None:
    sc = sc4(hands={0: ["vine", "bombarda"]})
    sc.use(0, "vine")
    sc.use(0, "bombarda", [1])
    assert sc.prompt() == ((1,), "respond:bombarda")


def test_maple_wand_discards_a_broom_after_the_patronus_window() -> None:
    sc = sc4(hands={0: ["maple", "bombarda"], 1: ["nimbus2000"]})
    st = sc.state
    broom = sc.force_equip(1, "nimbus2000")
    sc.use(0, "maple")
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.choose(0, broom, "weapon:maple")
    sc.prompt()
    assert broom in st.discard and st.hp[1] == 2


def test_oak_wand_needs_two_apparates_one_alone_does_not_dodge() -> None:
    sc = sc4(hands={0: ["oak", "bombarda"], 2: ["apparate"]})
    st = sc.state
    sc.use(0, "oak")
    sc.use(0, "bombarda", [2])
    sc.give(2, "apparate", "respond:bombarda")
    sc.pass_(2, "respond:bombarda")  # asked for the second one
    pass_window(sc, "respond:patronus")
    assert st.hp[2] == 3 and "apparate" in sc.discard_kinds()


def test_oak_wand_two_apparates_dodge() -> None:
    sc = sc4(hands={0: ["oak", "bombarda"], 2: ["apparate", "apparate"]})
    sc.use(0, "oak")
    sc.use(0, "bombarda", [2])
    sc.give(2, "apparate", "respond:bombarda")
    sc.give(2, "apparate", "respond:bombarda")
    assert sc.prompt() == ((0,), "play") and sc.state.hp[2] == 4


def test_bludger_follows_up_only_after_an_apparate_dodge() -> None:
    sc = sc4(hands={0: ["bludger", "bombarda", "bombarda", "bombarda"], 2: ["apparate", "patronus"]})
    st = sc.state
    sc.use(0, "bludger")
    sc.use(0, "bombarda", [2])
    sc.give(2, "apparate", "respond:bombarda")
    sc.give(0, "bombarda", "weapon:bludger")
    sc.pass_(2, "respond:bombarda")
    sc.pass_(0, "respond:patronus")
    sc.pass_(1, "respond:patronus")
    sc.give(2, "patronus", "respond:patronus")  # stopped by 呼神护卫: no bludger follow-up
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play") and st.hp[2] == 4


def test_quill_right_guess_voids_the_card_and_uses_up_the_bombarda() -> None:
    sc = sc4(hands={0: ["quill", "tears", "bombarda"]})
    st = sc.state
    sc.use(0, "quill")
    tears = sc.slot(0, "tears")
    quill_acts = [a for a in sc.legal(0) if a["type"] == "quill"]
    assert {a["targets"][0] for a in quill_acts} == {1, 2, 3}
    assert st.reveals(0, {"type": "quill", "slot": tears, "targets": [2]}) == ()
    sc.act(0, {"type": "quill", "slot": tears, "targets": [2]}, "play")
    assert tears not in st.pub  # face down until the guess
    sc.choose(2, "basic", "quill_guess")
    assert sc.prompt() == ((0,), "play")
    assert tears in st.discard and st.hp[2] == 4
    assert not bombarda_targets(sc) and not [a for a in sc.legal(0) if a["type"] == "quill"]


def test_quill_wrong_guess_cannot_be_dodged() -> None:
    sc = sc4(hands={0: ["quill", "hat"], 2: ["apparate"]})
    st = sc.state
    sc.use(0, "quill")
    sc.act(0, {"type": "quill", "slot": sc.slot(0, "hat"), "targets": [2]}, "play")
    sc.choose(2, "spell", "quill_guess")
    pass_window(sc, "respond:patronus")  # no apparate prompt
    assert st.hp[2] == 3


def test_sorting_hat_stupefy_and_sectumsempra_have_no_effect_and_own_turn_damage_passes() -> None:
    chars = ["ron", "neville", "voldemort", "luna"]
    sc = sc4(chars, hands={0: ["sectumsempra"], 1: ["hat", "bombarda"], 2: ["apparate"]})
    st = sc.state
    sc.force_equip(1, "hat")
    sc.use(0, "sectumsempra")
    pass_window(sc, "respond:counter")  # seat 1 skipped: no effect on the hat
    sc.give(2, "apparate", "respond:sectumsempra")
    pass_window(sc, "respond:counter")
    sc.pass_(3, "respond:sectumsempra")
    pass_window(sc, "respond:patronus")
    assert st.hp == [4, 4, 4, 2] and "no effect on seat 1" in sc.log()


def test_invisibility_cloak_distance_one_and_no_effect_of_others_group_spells() -> None:
    sc = sc4(hands={0: ["stupefy"], 2: ["cloak"]})
    st = sc.state
    sc.force_equip(2, "cloak")
    assert st.distance(2, 0) == 1 and st.distance(0, 2) == 2
    sc.use(0, "stupefy")
    pass_window(sc, "respond:counter")
    sc.pass_(1, "respond:stupefy")
    sc.choose(1, "damage", "stupefy")
    pass_window(sc, "respond:patronus")
    pass_window(sc, "respond:counter")  # seat 2 is skipped (still designated, no effect)
    sc.pass_(3, "respond:stupefy")
    sc.choose(3, "flip", "stupefy")
    assert st.hp[2] == 4 and "no effect on seat 2" in sc.log()


def test_invisibility_cloak_does_not_stop_a_spell_designating_only_the_wearer() -> None:
    sc = sc4(hands={0: ["reparo"], 2: ["cloak"]})
    st = sc.state
    sc.force_equip(2, "cloak")
    st.hp[2] = 3
    sc.use(0, "reparo")  # only seat 2 is injured: a single target
    pass_window(sc, "respond:counter")
    sc.choose(2, "recover", "reparo")
    assert sc.prompt() == ((0,), "play") and st.hp[2] == 4


def test_invisibility_cloak_with_a_minus_broom_follows_the_cloak() -> None:
    sc = Scenario(["ron", "snape", "voldemort", "luna", "sirius", "molly"], hands={0: ["cloak", "comet260"]})
    st = sc.state
    assert st.distance(0, 3) == 3
    sc.use(0, "comet260")
    assert st.distance(0, 3) == 2
    sc.use(0, "cloak")
    assert [st.distance(0, s) for s in range(1, 6)] == [1, 1, 1, 1, 1]
    assert st.distance(3, 0) == 3  # others' distance to the wearer is unchanged
