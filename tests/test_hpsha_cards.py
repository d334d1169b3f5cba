"""Harry Potter Sha scenario tests for the basic cards and the spells, one per ※ ruling.

Default table (4 players, whose skills do not act in these tests): seat 0 罗恩 (minister, 4 HP,
Gryffindor), seat 1 斯内普 (auror, 3, Hogwarts), seat 2 伏地魔 (dark wizard, 4,
Dark Mark), seat 3 卢娜 (spy, 3, Ravenclaw).  Seat 0 plays first.
"""

from __future__ import annotations

import pytest

from p2php.engine.contract import Randomness, Show
from p2php.testing.hpsha import Scenario

C4 = ["ron", "snape", "voldemort", "luna"]
NO_DARKNESS = ["ron", "snape", "lucius", "luna"]  # black spells on seat 2 (伏地魔's 黑暗 would void them)


pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def sc4(**kw: object) -> Scenario:
    return Scenario(C4, **kw)  # type: ignore[arg-type]


def pass_window(sc: Scenario, prompt: str, seats: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    for s in seats:
        sc.pass_(s, prompt)


def test_bombarda_not_dodged_deals_one_after_a_patronus_window_in_seat_order() -> None:
    sc = sc4(hands={0: ["bombarda"]})
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")  # every seat, from the current player
    assert sc.prompt() == ((0,), "play")
    assert sc.state.hp[1] == 2
    assert "takes 1 damage from seat 0" in sc.log()


def test_expelliarmus_random_hand_card_is_discarded_face_up() -> None:
    sc = sc4(hands={0: ["expelliarmus"]})
    st = sc.state
    before = list(st.hands[1])
    sc.use(0, "expelliarmus", [1])
    pass_window(sc, "respond:counter")
    sc.prompt()
    assert any(isinstance(step, Randomness) for _k, step in sc.table.log)  # nobody steers the blind pick
    gone = [s for s in before if s not in st.hands[1]]
    assert len(gone) == 1 and gone[0] in st.discard and gone[0] in st.pub


def test_expelliarmus_weapon_only_and_judgement_area() -> None:
    sc = sc4(hands={0: ["expelliarmus", "bind"], 1: ["oak", "hat", "nimbus2000"]})
    st = sc.state
    weapon = sc.force_equip(1, "oak")
    sc.force_equip(1, "hat")
    sc.force_equip(1, "nimbus2000")
    sc.use(0, "bind", [1])
    bind = st.judge[1][0][0]
    sc.use(0, "expelliarmus", [1])
    pass_window(sc, "respond:counter")
    options = [a["value"] for a in sc.legal(0)]
    assert options == ["hand", weapon, bind]  # armour and brooms cannot be taken
    sc.choose(0, bind, "pick:expelliarmus")
    assert bind in st.discard and st.judge[1] == []


def test_legilimens_needs_attack_range_and_shows_the_card_to_the_taker_only() -> None:
    sc = sc4(hands={0: ["legilimens"]})
    st = sc.state
    targets = {tuple(a["targets"]) for a in sc.legal(0) if a.get("kind") == "legilimens"}
    assert targets == {(1,), (3,)}  # seat 2 is at distance 2
    before = list(st.hands[3])
    sc.use(0, "legilimens", [3])
    pass_window(sc, "respond:counter")
    sc.prompt()
    taken = [s for s in before if s not in st.hands[3]]
    assert len(taken) == 1 and taken[0] in st.hands[0]
    assert any(isinstance(step, Show) and step.viewer == 0 for _k, step in sc.table.log)
    assert taken[0] in sc.table.private[0] and taken[0] not in sc.table.public
    assert taken[0] not in sc.table.private.get(1, {}) and taken[0] not in sc.table.private.get(2, {})


def test_legilimens_range_grows_with_a_minus_broom() -> None:
    sc = sc4(hands={0: ["legilimens", "comet260"]})
    sc.use(0, "comet260")
    targets = [a["targets"] for a in sc.legal(0) if a.get("kind") == "legilimens"]
    assert [2] in targets


def test_sectumsempra_targets_all_others_from_the_next_player() -> None:
    sc = sc4(hands={0: ["sectumsempra"], 2: ["apparate"]})
    st = sc.state
    sc.use(0, "sectumsempra")
    pass_window(sc, "respond:counter")
    sc.pass_(1, "respond:sectumsempra")
    pass_window(sc, "respond:patronus")
    pass_window(sc, "respond:counter")
    sc.give(2, "apparate", "respond:sectumsempra")  # played, not used
    pass_window(sc, "respond:counter")
    sc.pass_(3, "respond:sectumsempra")
    pass_window(sc, "respond:patronus")
    assert sc.prompt() == ((0,), "play")
    assert st.hp == [4, 2, 4, 2]
    assert "plays 幻影移形 Apparate" in sc.log()


def test_stupefy_bombarda_or_damage_or_flip_and_the_flip_skips_a_turn() -> None:
    sc = Scenario(NO_DARKNESS, hands={0: ["stupefy"], 1: ["bombarda"]})
    st = sc.state
    sc.use(0, "stupefy")
    pass_window(sc, "respond:counter")
    sc.give(1, "bombarda", "respond:stupefy")
    pass_window(sc, "respond:counter")
    sc.pass_(2, "respond:stupefy")
    sc.choose(2, "flip", "stupefy")
    pass_window(sc, "respond:counter")
    sc.pass_(3, "respond:stupefy")
    sc.choose(3, "damage", "stupefy")
    pass_window(sc, "respond:patronus")
    assert st.face_down == [False, False, True, False] and st.hp == [4, 3, 4, 2]
    sc.end(0)
    sc.pass_until(3, "play")  # seat 2's turn was skipped, and it is face up again
    assert st.face_down[2] is False
    assert "turns face up and skips this turn" in sc.log()
    assert st.turn_no == 3


def test_reparo_only_with_someone_injured_all_injured_targets_choose() -> None:
    sc = sc4(hands={0: ["reparo"]})
    st = sc.state
    assert not [a for a in sc.legal(0) if a.get("kind") == "reparo"]
    st.hp[0], st.hp[2] = 3, 2
    (act,) = [a for a in sc.legal(0) if a.get("kind") == "reparo"]
    assert act["targets"] == [0, 2]
    sc.use(0, "reparo")
    pass_window(sc, "respond:counter")
    sc.choose(0, "draw", "reparo")
    pass_window(sc, "respond:counter")
    sc.choose(2, "recover", "reparo")
    assert sc.prompt() == ((0,), "play")
    assert st.hp[0] == 3 and st.hp[2] == 3


def test_aguamenti_reveals_one_per_living_character_and_a_cancelled_share_is_discarded() -> None:
    sc = sc4(hands={0: ["aguamenti"], 2: ["counter"]}, deck=["*", "*", "tears", "apparate", "bombarda", "hat"])
    st = sc.state
    sc.use(0, "aguamenti")
    sc.prompt()
    revealed = list(st.processing[-4:])
    assert len(revealed) == 4 and all(s in st.pub for s in revealed)
    pass_window(sc, "respond:counter")
    tears = next(s for s in revealed if st.kind(s) == "tears")
    sc.choose(0, tears, "aguamenti")
    pass_window(sc, "respond:counter")
    hat = next(s for s in revealed if st.kind(s) == "hat")
    sc.choose(1, hat, "aguamenti")
    sc.pass_(0, "respond:counter")
    sc.pass_(1, "respond:counter")
    sc.give(2, "counter", "respond:counter")  # seat 2 cancels its own share
    pass_window(sc, "respond:counter")  # nobody counters the 咒立停
    pass_window(sc, "respond:counter")  # seat 3's share
    sc.choose(3, next(s for s in revealed if st.kind(s) == "apparate"), "aguamenti")
    assert sc.prompt() == ((0,), "play")
    leftover = next(s for s in revealed if st.kind(s) == "bombarda")
    assert leftover in st.discard
    assert tears in st.hands[0] and hat in st.hands[1]


def test_out_of_body_a_must_attack_b_or_lose_a_card_but_not_from_the_judgement_area() -> None:
    sc = sc4(hands={0: ["out_of_body", "out_of_body", "bind"], 1: ["bombarda"], 2: ["apparate"]})
    st = sc.state
    acts = [a["targets"] for a in sc.legal(0) if a.get("kind") == "out_of_body"]
    assert [1, 2] in acts and [1, 0] in acts and [2, 1] not in acts
    sc.use(0, "out_of_body", [1, 2])
    pass_window(sc, "respond:counter")
    sc.give(1, "bombarda", "respond:out_of_body")
    sc.give(2, "apparate", "respond:bombarda")
    assert sc.prompt() == ((0,), "play")
    # now A = 1 has no 爆破咒 left and sits with a 统统石化 in its judgement area
    sc.use(0, "bind", [1])
    sc.use(0, "out_of_body", [1, 2])
    pass_window(sc, "respond:counter")
    sc.pass_(1, "respond:out_of_body")
    hand = list(st.hands[1])
    sc.prompt()
    assert st.judge[1]  # untouched
    assert len(st.hands[1]) == len(hand) - 1


def test_crucio_alternates_and_can_hurt_the_user_with_the_target_as_source() -> None:
    sc = Scenario(NO_DARKNESS, hands={0: ["crucio", "bombarda"], 2: ["bombarda", "bombarda"]})
    st = sc.state
    sc.use(0, "crucio", [2])
    pass_window(sc, "respond:counter")
    sc.give(2, "bombarda", "respond:crucio")
    sc.give(0, "bombarda", "respond:crucio")
    sc.give(2, "bombarda", "respond:crucio")
    sc.pass_(0, "respond:crucio")
    pass_window(sc, "respond:patronus")
    assert st.hp[0] == 3
    assert "seat 0 罗恩·韦斯莱 takes 1 damage from seat 2" in sc.log()
    assert st.bombarda_used == 0  # played, not used: the 爆破咒 of this play phase is still free


def test_patronus_cancels_the_whole_damage_and_can_be_countered() -> None:
    sc = sc4(hands={0: ["bombarda", "counter"], 1: ["patronus"], 3: ["patronus"]})
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    sc.pass_(0, "respond:patronus")
    sc.give(1, "patronus", "respond:patronus")
    sc.give(0, "counter", "respond:counter")  # the 呼神护卫 is a spell: counter it
    pass_window(sc, "respond:counter")
    # the window goes on after seat 1: seat 3 may still protect seat 1
    sc.pass_(2, "respond:patronus")
    sc.give(3, "patronus", "respond:patronus")
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play")
    assert st.hp[1] == 3
    assert "cancelled by 呼神护卫" in sc.log()


def test_counter_cancels_one_target_only_and_a_counter_can_be_countered() -> None:
    sc = sc4(hands={0: ["sectumsempra", "counter"], 1: ["counter"], 3: ["counter"]})
    st = sc.state
    sc.use(0, "sectumsempra")
    sc.pass_(0, "respond:counter")
    sc.give(1, "counter", "respond:counter")  # protects seat 1
    sc.pass_(0, "respond:counter")
    sc.pass_(1, "respond:counter")
    sc.pass_(2, "respond:counter")
    sc.give(3, "counter", "respond:counter")  # counters the counter
    pass_window(sc, "respond:counter")  # nobody counters that one
    sc.pass_(2, "respond:counter")  # back in the first window: seats after seat 1
    sc.pass_(3, "respond:counter")
    sc.pass_(1, "respond:sectumsempra")
    pass_window(sc, "respond:patronus")
    pass_window(sc, "respond:counter")
    sc.pass_(2, "respond:sectumsempra")
    pass_window(sc, "respond:patronus")
    sc.give(0, "counter", "respond:counter")  # the user cancels it for seat 3
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play")
    assert st.hp == [4, 2, 3, 3]


def test_countered_avada_moves_on_without_a_judgement() -> None:
    sc = sc4(hands={0: ["avada"], 1: ["counter"]})
    st = sc.state
    sc.use(0, "avada")
    sc.end(0)
    sc.pass_until(0, "respond:counter")
    sc.pass_(0, "respond:counter")
    sc.give(1, "counter", "respond:counter")
    pass_window(sc, "respond:counter")
    sc.prompt()
    assert st.judge[1] and st.judge[1][0][1] == "avada"
    assert "judgement for seat 0" not in sc.log()


def test_impediment_adds_one_to_own_distance_in_own_play_phase_only() -> None:
    sc = sc4(hands={0: ["impediment"], 1: ["bombarda"]}, deck=["*", "*", ("bombarda", "♠", 8)])
    st = sc.state
    sc.use(0, "impediment", [1])
    sc.end(0)
    assert st.distance(1, 0) == 1
    sc.pass_until(1, "play")
    assert st.impeded and st.distance(1, 0) == 2 and st.distance(0, 1) == 1
    assert not [a for a in sc.legal(1) if a.get("kind") == "bombarda"]
    assert st.judge[1] == [] and "impediment" in sc.discard_kinds()
    sc.end(1)
    sc.prompt()
    assert st.distance(1, 0) == 1


def test_impediment_diamond_does_nothing_and_is_discarded_anyway() -> None:
    sc = sc4(hands={0: ["impediment"], 1: ["bombarda"]}, deck=["*", "*", ("apparate", "♦", 8)])
    st = sc.state
    sc.use(0, "impediment", [1])
    sc.end(0)
    sc.pass_until(1, "play")
    assert not st.impeded and st.distance(1, 0) == 1
    assert [0] in [a["targets"] for a in sc.legal(1) if a.get("kind") == "bombarda"]
    assert st.judge[1] == [] and "impediment" in sc.discard_kinds()
