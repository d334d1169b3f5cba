"""Harry Potter Sha: the Hogwarts staff (chars_staff.py) — one scenario per skill and per ※ ruling.

Every scenario runs twice (the ``mode`` fixture): on a trusted local dealer, and through the real
protocol (in-memory peers, stacked decks, every frame delivered, every peer's audit clean at the end).
Bystanders are chosen among characters whose skills stay silent in the scripted moments.
"""

from __future__ import annotations

from typing import Any

import pytest

from p2php.games.hpsha.data import CHARACTERS
from p2php.testing.hpsha import Scenario

STAFF = ("dumbledore", "mcgonagall", "snape", "hagrid", "trelawney", "filch")


pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def pass_window(sc: Scenario, prompt: str, seats: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    for s in seats:
        sc.pass_(s, prompt)


def skill(key: str, **kw: Any) -> dict[str, Any]:
    """A play-phase skill activation."""
    return {"type": "skill", "skill": key, "targets": [], **kw}


def skill_keys(sc: Scenario, seat: int) -> set[str]:
    return {a["skill"] for a in sc.legal(seat) if a["type"] == "skill"}


def empty_hand(sc: Scenario, seat: int) -> None:
    """Test-only: move a hand to the discard pile (faces opened, as the pile is face up)."""
    for s in list(sc.state.hands[seat]):
        sc.open(s)
        sc.state.to_discard(s)


def duel(sc: Scenario, a: int, slot_a: int, b: int, slot_b: int) -> None:
    """Answer a 拼点: both sides at once, face down (the actions open nothing)."""
    d = sc.decide()
    assert d.seats == (a, b) and d.prompt == "point_duel"
    acts = [{"type": "duel", "slot": slot_a}, {"type": "duel", "slot": slot_b}]
    assert sc.state.reveals(a, acts[0]) == () and sc.state.reveals(b, acts[1]) == ()
    sc.table.act([(a, acts[0]), (b, acts[1])])


def test_the_staff_have_skills_and_no_stand_in_label() -> None:
    for c in CHARACTERS:
        if c.key in STAFF:
            assert c.skilled and "stand-in" not in c.label


# ----------------------------------------------------------------------------- Albus Dumbledore


def test_dumbledore_benevolence_prevents_the_damage_and_discards_two_cards_before_patronus() -> None:
    sc = Scenario(["dumbledore", "snape", "hagrid", "lupin"], hands={0: ["bombarda"], 1: ["cloak"]})
    st = sc.state
    cloak = sc.force_equip(1, "cloak")
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    assert sc.prompt() == ((0,), "skill:benevolence")  # ※ before the 呼神护卫 window
    sc.act(0, {"type": "invoke"})
    assert {"type": "choose", "value": "hand"} in sc.legal(0)
    sc.choose(0, cloak, "pick:benevolence")  # the first card: the equipped one
    # the second: only the hand is left, so no question — a random hand card (joint randomness)
    assert sc.prompt() == ((0,), "play")  # no 呼神护卫 window: the damage was prevented
    assert st.hp[1] == 3 and cloak in st.discard and len(st.hands[1]) == 2
    assert "prevented" in sc.log()


def test_dumbledore_benevolence_declined_the_patronus_window_follows() -> None:
    sc = Scenario(["dumbledore", "snape", "hagrid", "lupin"], hands={0: ["bombarda"]})
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    sc.pass_(0, "skill:benevolence")
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 2 and len(st.hands[1]) == 4


def test_dumbledore_affinity_the_receiver_uses_the_card_as_aguamenti_and_brilliance_triggers() -> None:
    sc = Scenario(["dumbledore", "hermione", "hagrid", "lupin"], hands={2: [("bombarda", "♠", 8)]})
    st = sc.state
    assert skill("affinity", targets=[2, 1]) in sc.legal(0)
    sc.act(0, skill("affinity", targets=[2, 1]), "play")
    card = sc.slot(2, "bombarda")
    assert [a["slots"] for a in sc.legal(2)] == [[s] for s in st.hands[2]]  # the giver picks its card
    sc.act(2, {"type": "card", "slots": [card]}, "skill:affinity")
    # ※ the receiver is the user of the 清水如泉: Hermione's 聪颖 triggers
    sc.act(1, {"type": "invoke"}, "skill:brilliance")
    sc.pass_until(0, "play")
    assert card in st.discard and card in st.pub
    assert len(st.hands[1]) == 4 + 1 + 1 and len(st.hands[2]) == 4  # 聪颖 + her 清水如泉 share; −1 +1
    assert "清水如泉 Aguamenti" in sc.log() and "亲和" in sc.log()
    assert "affinity" not in skill_keys(sc, 0)  # once per phase


# ----------------------------------------------------------------------------- Minerva McGonagall


def test_mcgonagall_transfiguration_uses_a_hand_equipment_card_as_geminio() -> None:
    sc = Scenario(["mcgonagall", "snape", "hagrid", "lupin"], hands={0: ["hat"]})
    st = sc.state
    hat = sc.slot(0, "hat")
    n = len(st.hands[0])
    act = {"type": "use", "kind": "geminio", "slots": [hat], "targets": [0], "skill": "transfiguration"}
    assert act in sc.legal(0)
    assert all(a.get("skill") != "transfiguration" or a["slots"] == [hat] for a in sc.legal(0))
    sc.act(0, act, "play")
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play")
    assert len(st.hands[0]) == n + 1 and hat in st.discard and "变形" in sc.log()


def test_mcgonagall_reprimand_once_after_the_whole_damaging_spell() -> None:
    sc = Scenario(["hagrid", "mcgonagall", "snape", "lupin"], hands={0: ["sectumsempra", "holly"]})
    st = sc.state
    holly = sc.force_equip(0, "holly")
    sc.use(0, "sectumsempra")
    sc.pass_until(1, "skill:reprimand")
    # ※ after the spell has finished resolving: every target has taken its damage by now
    assert (st.hp[1], st.hp[2], st.hp[3]) == (2, 2, 3)
    assert sc.legal(1) == [{"type": "pass"}, {"type": "invoke", "slot": holly}]
    sc.act(1, {"type": "invoke", "slot": holly})
    assert sc.prompt() == ((0,), "play")  # asked once only
    assert holly in st.hands[1] and not st.equip[0]


def test_mcgonagall_reprimand_counts_damage_the_spell_dealt_to_others() -> None:
    sc = Scenario(["hagrid", "mcgonagall", "snape", "lupin"], hands={0: ["sectumsempra", "holly"], 1: ["apparate"]})
    st = sc.state
    sc.force_equip(0, "holly")
    sc.use(0, "sectumsempra")
    sc.pass_until(1, "respond:sectumsempra")
    sc.give(1, "apparate", "respond:sectumsempra")
    sc.pass_until(1, "skill:reprimand")
    assert st.hp[1] == 3 and st.hp[2] == 2


def test_mcgonagall_reprimand_cannot_take_molly_weasleys_equipment() -> None:
    """莫丽's 持家 (locked) outranks 斥责: her equipped cards cannot be obtained."""
    sc = Scenario(["molly", "mcgonagall", "snape", "lupin"], hands={0: ["sectumsempra", "holly"]})
    st = sc.state
    holly = sc.force_equip(0, "holly")
    sc.use(0, "sectumsempra")
    pass_window(sc, "respond:counter")
    while sc.prompt() != ((0,), "play"):
        seats, prompt = sc.prompt()
        assert prompt != "skill:reprimand"
        for seat in seats:
            sc.act(seat, {"type": "pass"})
    assert holly in st.equip[0].values()


def test_mcgonagall_reprimand_not_offered_when_the_spell_dealt_no_damage() -> None:
    sc = Scenario(["hagrid", "mcgonagall", "snape", "lupin"],
                  hands={0: ["sectumsempra", "holly"], 1: ["apparate"], 2: ["apparate"], 3: ["apparate"]})
    st = sc.state
    sc.force_equip(0, "holly")
    sc.use(0, "sectumsempra")
    for t in (1, 2, 3):
        pass_window(sc, "respond:counter")
        sc.give(t, "apparate", "respond:sectumsempra")
    assert sc.prompt() == ((0,), "play") and st.equip[0]


# ----------------------------------------------------------------------------- Severus Snape


def test_snape_potions_discards_a_hand_equipment_card_heals_and_draws() -> None:
    sc = Scenario(["snape", "hagrid", "mcgonagall", "lupin"], hands={0: ["hat"]})
    st = sc.state
    st.hp[2] = 2
    hat = sc.slot(0, "hat")
    n = len(st.hands[0])
    offers = [a for a in sc.legal(0) if a.get("skill") == "potions"]
    assert offers == [skill("potions", slots=[hat], targets=[2])]  # wounded characters only
    sc.act(0, offers[0], "play")
    assert sc.prompt() == ((0,), "play")
    assert st.hp[2] == 3 and hat in st.discard and len(st.hands[0]) == n
    assert "potions" not in skill_keys(sc, 0)  # once per phase


def test_snape_potions_may_discard_an_equipped_card() -> None:
    sc = Scenario(["snape", "hagrid", "mcgonagall", "lupin"], hands={0: ["hat"]})
    st = sc.state
    hat = sc.force_equip(0, "hat")
    st.hp[0] = 2
    n = len(st.hands[0])
    sc.act(0, skill("potions", slots=[hat], targets=[0]), "play")  # ※ from the equipment area
    assert sc.prompt() == ((0,), "play")
    assert st.hp[0] == 3 and hat in st.discard and not st.equip[0] and len(st.hands[0]) == n + 1


def test_snape_interrogation_the_target_plays_a_card_of_the_named_type() -> None:
    sc = Scenario(["snape", "hagrid", "mcgonagall", "lupin"], hands={1: ["bombarda"]})
    st = sc.state
    bomb = sc.slot(1, "bombarda")
    sc.act(0, skill("interrogation", targets=[1], value="basic"), "play")
    assert sc.legal(1) == [{"type": "pass"}, {"type": "card", "slots": [bomb]}]  # its spells do not answer
    sc.give(1, "bombarda", "skill:interrogation")
    assert sc.prompt() == ((0,), "play")
    assert bomb in st.discard and len(st.hands[1]) == 3
    assert "interrogation" not in skill_keys(sc, 0)


def test_snape_interrogation_the_target_may_refuse_and_snape_discards_one_of_its_cards() -> None:
    sc = Scenario(["snape", "hagrid", "mcgonagall", "lupin"], hands={1: ["bombarda", "cloak"]})
    st = sc.state
    cloak = sc.force_equip(1, "cloak")
    sc.act(0, skill("interrogation", targets=[1], value="basic"), "play")
    sc.pass_(1, "skill:interrogation")  # ※ it holds a basic card and still refuses
    assert set(map(str, (a["value"] for a in sc.legal(0)))) == {"hand", str(cloak)}
    sc.choose(0, "hand", "pick:interrogation")  # a random hand card
    assert sc.prompt() == ((0,), "play")
    assert len(st.hands[1]) == 2 and st.equip[1] and st.discard[-1] not in st.equip[1].values()


# ----------------------------------------------------------------------------- Rubeus Hagrid


def test_hagrid_giant_strength_won_adds_the_rank_difference_this_turn() -> None:
    sc = Scenario(["hagrid", "snape", "mcgonagall", "lupin"],
                  hands={0: [("bombarda", "♠", 9)], 1: [("tears", "♥", 4)]})
    st = sc.state
    assert {a["targets"][0] for a in sc.legal(0) if a.get("skill") == "giant_strength"} == {1, 2, 3}
    sc.act(0, skill("giant_strength", targets=[1]), "play")
    mine, theirs = sc.slot(0, "bombarda"), sc.slot(1, "tears")
    duel(sc, 0, mine, 1, theirs)
    assert sc.prompt() == ((0,), "play")
    assert st.attack_range(0) == 1 + 5 and st.in_range(0, 2)
    assert mine in st.discard and theirs in st.discard
    assert "giant_strength" not in skill_keys(sc, 0)
    sc.end(0)
    sc.pass_until(1, "play")
    assert st.attack_range(0) == 1  # this turn only


def test_point_duel_k_is_highest_a_lowest_cards_open_together() -> None:
    sc = Scenario(["hagrid", "snape", "mcgonagall", "lupin"],
                  hands={0: [("counter", "♣", 13)], 1: [("crucio", "♠", 1)]})
    st = sc.state
    sc.act(0, skill("giant_strength", targets=[1]), "play")
    mine, theirs = sc.slot(0, "counter"), sc.slot(1, "crucio")
    duel(sc, 0, mine, 1, theirs)
    assert sc.prompt() == ((0,), "play")
    assert mine in st.pub and theirs in st.pub  # one Reveal opened both
    assert st.attack_range(0) == 1 + 12


def test_hagrid_giant_strength_not_won_range_is_one_even_with_a_weapon() -> None:
    sc = Scenario(["hagrid", "snape", "mcgonagall", "lupin"],
                  hands={0: [("bombarda", "♠", 8), "holly"], 1: [("bombarda", "♠", 8)]})
    st = sc.state
    sc.act(0, skill("giant_strength", targets=[1]), "play")
    duel(sc, 0, sc.slot(0, "bombarda"), 1, sc.slot(1, "bombarda"))  # a tie: the initiator does not win
    sc.use(0, "holly")
    assert st.weapon(0) == "holly"
    assert st.attack_range(0) == 1 and not st.in_range(0, 2)  # ※ a continuous negative effect
    assert "does not win" in sc.log()


def test_hagrid_recklessness_discarding_a_basic_card_keeps_the_full_damage() -> None:
    sc = Scenario(["hagrid", "snape", "mcgonagall", "lupin"], hands={0: ["willow", "bombarda", "apparate"]})
    st = sc.state
    sc.use(0, "willow")
    empty_hand(sc, 1)
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    apparate = sc.slot(0, "apparate")
    assert sc.legal(0) == [{"type": "pass"}, {"type": "card", "slots": [apparate]}]  # basic cards only
    sc.give(0, "apparate", "skill:recklessness")
    assert sc.prompt() == ((0,), "play")
    assert st.hp[1] == 1 and apparate in st.discard


def test_hagrid_recklessness_without_a_basic_card_the_extra_is_void_and_neighbours_are_hit() -> None:
    sc = Scenario(["hagrid", "snape", "mcgonagall", "lupin"], hands={0: ["willow", "bombarda"]})
    st = sc.state
    sc.use(0, "willow")
    empty_hand(sc, 1)
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert sc.legal(0) == [{"type": "pass"}]  # asked all the same (no basic card in hand)
    sc.pass_(0, "skill:recklessness")
    sc.pass_until(0, "play")
    # within distance 1 of the target (seat 1): seats 0 and 2, 1 sourceless damage each
    assert (st.hp[0], st.hp[1], st.hp[2], st.hp[3]) == (3, 2, 2, 4)
    assert "(no source) [recklessness]" in sc.log()


def test_hagrid_recklessness_nobody_within_distance_one_of_the_target() -> None:
    sc = Scenario(["hagrid", "snape", "mcgonagall", "lupin"],
                  hands={0: ["willow", "bombarda", "nimbus2000"], 2: ["cleansweep"]})
    st = sc.state
    sc.force_equip(0, "nimbus2000")
    sc.force_equip(2, "cleansweep")
    sc.use(0, "willow")
    empty_hand(sc, 1)
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.pass_(0, "skill:recklessness")
    # ※ measured from the target: its neighbours' +1 brooms put everyone at 2; the extra is still void
    assert sc.prompt() == ((0,), "play")
    assert (st.hp[0], st.hp[1], st.hp[2], st.hp[3]) == (4, 2, 3, 4)
    assert "sourceless damage to nobody" in sc.log()


# ----------------------------------------------------------------------------- Sybill Trelawney


def test_trelawney_prophecy_same_colour_draws_and_the_card_stays_revealed_in_her_hand() -> None:
    sc = Scenario(["hagrid", "snape", "trelawney", "lupin"], hands={0: ["bind"], 2: [("tears", "♥")]},
                  deck=["*", "*", ("apparate", "♥")])
    st = sc.state
    sc.use(0, "bind", [1])
    sc.end(0)
    sc.pass_until(2, "skill:prophecy")
    tears = sc.slot(2, "tears")
    assert {"type": "invoke", "slot": tears} in sc.legal(2)
    n = len(st.hands[2])
    sc.act(2, {"type": "invoke", "slot": tears})
    assert sc.prompt() == ((1,), "play")  # a heart: the 统统石化 fails
    assert len(st.hands[2]) == n + 1
    assert tears in st.hands[2] and tears in st.pub  # ※ revealed (亮出), not shown: open, still hers


def test_trelawney_prophecy_compares_the_judgement_card_that_finally_takes_effect() -> None:
    sc = Scenario(["hagrid", "snape", "trelawney", "draco"],
                  hands={0: ["bind"], 2: [("tears", "♥")], 3: [("apparate", "♥")]},
                  deck=["*", "*", ("bombarda", "♠", 8)])
    st = sc.state
    sc.use(0, "bind", [1])
    sc.end(0)
    sc.pass_until(2, "skill:prophecy")
    n = len(st.hands[2])
    sc.act(2, {"type": "invoke", "slot": sc.slot(2, "tears")})
    sc.give(3, "apparate", "skill:trickery")  # ♠ replaced by a ♥: the heart is the card that takes effect
    assert sc.prompt() == ((1,), "play")  # ※ the 统统石化 "fails", the judgement card still took effect
    assert len(st.hands[2]) == n + 1 and "the same colour: draw 1" in sc.log()


def test_trelawney_trepidation_more_living_than_her_max_hp_skips_the_judgement_phase() -> None:
    sc = Scenario(["hagrid", "trelawney", "snape", "lupin"], hands={0: ["bind"]})
    st = sc.state
    sc.use(0, "bind", [1])
    sc.end(0)
    sc.pass_until(1, "play")  # 4 living > 3: no judgement, so no 预言 question either
    assert st.has_judge(1, "bind") and "skips the judge phase" in sc.log()


def test_trelawney_trepidation_not_more_living_skips_the_discard_phase() -> None:
    sc = Scenario(["trelawney", "hagrid", "snape", "lupin"], hands={0: ["bombarda"]})
    st = sc.state
    st.hp[3] = 1
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    pass_window(sc, "respond:tears")
    assert sc.prompt() == ((0,), "play") and not st.alive[3]
    assert len(st.hands[0]) > st.hp[0]
    sc.end(0)  # 3 living, not more than 3: no discard phase although over the hand limit
    assert sc.prompt() != ((0,), "discard")
    assert "skips the discard phase" in sc.log()


# ----------------------------------------------------------------------------- Argus Filch


def run_to(sc: Scenario, seat: int, prompt: str, never: str) -> None:
    """pass_until, checking that ``never`` is not asked of anyone on the way."""
    for _ in range(200):
        d = sc.decide()
        assert d.prompt != never, d
        if d.seats == (seat,) and d.prompt == prompt:
            return
        sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    raise AssertionError(f"seat {seat} was never asked {prompt}")


def test_filch_patrol_draws_two_when_a_character_flips_face_down_only() -> None:
    sc = Scenario(["hagrid", "filch", "snape", "lupin"], hands={0: ["stupefy"]})
    st = sc.state
    sc.use(0, "stupefy")
    sc.pass_until(1, "stupefy")
    sc.choose(1, "damage")
    sc.pass_until(1, "skill:detention")
    sc.pass_(1, "skill:detention")
    sc.pass_until(2, "stupefy")
    sc.choose(2, "flip")
    n = len(st.hands[1])
    sc.act(1, {"type": "invoke"}, "skill:patrol")
    sc.prompt()
    assert len(st.hands[1]) == n + 2 and st.face_down[2]
    sc.pass_until(3, "stupefy")
    sc.choose(3, "damage")
    sc.pass_until(0, "play")
    sc.end(0)
    run_to(sc, 3, "play", "skill:patrol")  # ※ turning face up again (seat 2 skips its turn) is no flip down
    assert not st.face_down[2] and "turns face up" in sc.log()


def test_filch_detention_option_1_the_current_player_loses_its_skills_this_turn() -> None:
    sc = Scenario(["lupin", "filch", "snape", "hagrid"], hands={0: ["bombarda"]})
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    filler = st.hands[1][0]
    legal = sc.legal(1)
    assert {"type": "invoke", "slot": filler, "option": 1} in legal
    assert {"type": "invoke", "slot": filler, "option": 2} in legal
    sc.act(1, {"type": "invoke", "slot": filler, "option": 1}, "skill:detention")
    assert sc.prompt() == ((0,), "play")
    assert filler in st.discard and st.hp[1] == 3
    assert [sk.key for sk in st.skills(0)] == ["full_moon"]  # locked skills still work
    sc.end(0)
    assert "skips the discard phase" in sc.log()
    sc.pass_until(1, "play")
    assert [sk.key for sk in st.skills(0)] == ["lupin_patronus", "full_moon"]  # back next turn


def test_filch_detention_once_per_damage_and_effects_in_force_stay() -> None:
    sc = Scenario(["hagrid", "filch", "snape", "lupin"],
                  hands={0: ["willow", "bombarda", "apparate", ("counter", "♣", 13)], 1: ["cloak"],
                         2: [("tears", "♥", 4)]})
    st = sc.state
    cloak = sc.force_equip(1, "cloak")
    sc.use(0, "willow")
    sc.act(0, skill("giant_strength", targets=[2]), "play")
    duel(sc, 0, sc.slot(0, "counter"), 2, sc.slot(2, "tears"))
    assert sc.prompt() == ((0,), "play") and st.attack_range(0) == 2 + 9
    empty_hand(sc, 1)
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.give(0, "apparate", "skill:recklessness")  # 2 damage at once
    assert sc.legal(1) == [{"type": "pass"}, {"type": "invoke", "slot": cloak, "option": 1},
                           {"type": "invoke", "slot": cloak, "option": 2}]
    sc.act(1, {"type": "invoke", "slot": cloak, "option": 1}, "skill:detention")
    assert sc.prompt() == ((0,), "play")  # ※ once, however many points
    assert st.hp[1] == 2 and cloak in st.discard
    assert st.attack_range(0) == 2 + 9  # ※ 巨力's range, already in force, stays
    assert not skill_keys(sc, 0)


def test_filch_detention_option_2_sets_half_the_sources_hand_face_down() -> None:
    sc = Scenario(["snape", "filch", "hagrid", "lupin"], hands={0: ["bombarda", "tears", "tears", "apparate"]})
    st = sc.state
    st.hp[0] = 1
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    sc.act(1, {"type": "invoke", "slot": st.hands[1][0], "option": 2}, "skill:detention")
    hand = list(st.hands[0])
    assert len(hand) == 5
    tears = [sc.slot(0, "tears", 0), sc.slot(0, "tears", 1)]
    assert sc.legal(1) == [{"type": "choose", "value": s} for s in hand]
    kn = sc.table.knowledge(1)
    assert all(kn.face(s) is not None for s in hand)  # Filch looked at the hand (a private Show)
    assert all(s not in st.pub for s in hand)  # ... and nobody else
    sc.choose(1, tears[0], "skill:detention")
    assert {"type": "choose", "value": tears[0]} not in sc.legal(1)
    sc.choose(1, tears[1], "skill:detention")  # 5 // 2 = 2 cards
    assert sc.prompt() == ((0,), "play")
    used = {s for a in sc.legal(0) if a["type"] == "use" for s in a["slots"]}
    assert not used & set(tears) and all(s in st.hands[0] for s in tears)  # still in the hand, unusable
    view = st.observation(0, sc.table.knowledge(0))["hand"]
    assert sum("禁闭 sealed" in card for card in view) == 2  # the owner's view says which ones
    sc.end(0)
    assert {"type": "discard", "slots": [tears[0]]} in sc.legal(0)  # ※ may still be discarded
