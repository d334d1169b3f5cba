"""Harry Potter Sha scenario tests: turn phases, hand limit, deck, dying, death, rewards, game end.

Each test stacks the deck through the scenario harness and scripts the decisions; it
runs twice (the ``mode`` fixture of p2php.testing): on a stacked LocalTable, and through the
real protocol (in-memory peers, decks stacked through the crypto, clean audits).

Default table: seat 0 罗恩 (minister, 4 HP), seat 1 斯内普 (auror, 3 HP), seat 2 伏地魔
(dark wizard, 4 HP), seat 3 卢娜 (spy, 3 HP): four different factions, and no skill
of theirs acts in these tests.
"""

from __future__ import annotations

import pytest

from p2php.engine.contract import Decide, IllegalAction, Knowledge
from p2php.games.hpsha.data import AUROR, DARK, MINISTER, SPY
from p2php.testing.hpsha import Scenario
from p2php.testing.tasks import Capture, captured

C4 = ["ron", "snape", "voldemort", "luna"]


pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def sc4(**kw: object) -> Scenario:
    return Scenario(C4, **kw)  # type: ignore[arg-type]


def test_first_turn_is_the_ministers_and_draws_two_from_the_top() -> None:
    sc = sc4(deck=["tears", "apparate"])
    assert sc.prompt() == ((0,), "play")
    assert sc.state.current == 0 and sc.state.turn_no == 1
    assert len(sc.state.hands[0]) == 6
    assert {"tears", "apparate"} <= set(sc.hand_kinds(0))


def test_minister_gets_one_more_max_hp_only_with_more_than_four() -> None:
    assert sc4().state.max_hp == [4, 3, 4, 3]
    sc = Scenario(["ron", "snape", "voldemort", "luna", "sirius"])
    assert sc.state.max_hp == [5, 3, 4, 3, 4]
    assert sc.state.hp == sc.state.max_hp


def test_one_bombarda_per_play_phase() -> None:
    sc = sc4(hands={0: ["bombarda", "bombarda"]})
    sc.use(0, "bombarda", [1])
    sc.pass_until(0, "play")
    assert not [a for a in sc.legal(0) if a.get("kind") == "bombarda"]
    bad = {"type": "use", "kind": "bombarda", "slots": [sc.slot(0, "bombarda")], "targets": [1]}
    with pytest.raises(IllegalAction):
        sc.state.check(0, bad, sc.table.knowledge(0))


def test_attack_range_one_at_start() -> None:
    sc = sc4(hands={0: ["bombarda"]})
    targets = sorted(a["targets"][0] for a in sc.legal(0) if a.get("kind") == "bombarda")
    assert targets == [1, 3]  # seat 2 is at distance 2


def test_discard_phase_down_to_current_hp_and_discards_are_public() -> None:
    sc = sc4()
    st = sc.state
    st.hp[0] = 2
    sc.end(0)
    for _ in range(4):
        seats, prompt = sc.prompt()
        assert prompt == "discard"
        s = st.hands[0][0]
        sc.act(0, {"type": "discard", "slots": [s]})
        assert s in st.pub and st.discard[-1] == s
    assert len(st.hands[0]) == 2
    assert sc.prompt() == ((1,), "play")


def test_used_and_played_cards_go_face_up_to_the_discard_pile() -> None:
    sc = sc4(hands={0: ["bombarda"], 1: ["apparate"]})
    b = sc.slot(0, "bombarda")
    sc.use(0, "bombarda", [1])
    a = sc.slot(1, "apparate")
    sc.give(1, "apparate", "respond:bombarda")
    sc.prompt()
    assert sc.state.discard[-2:] == [a, b]
    assert all(s in sc.state.pub for s in sc.state.discard)


def test_tears_only_when_injured_in_play_phase() -> None:
    sc = sc4(hands={0: ["tears"]})
    assert not [a for a in sc.legal(0) if a.get("kind") == "tears"]
    sc.state.hp[0] = 3
    assert [a for a in sc.legal(0) if a.get("kind") == "tears"] == [
        {"type": "use", "kind": "tears", "slots": [sc.slot(0, "tears")], "targets": [0]}]
    sc.use(0, "tears")
    assert sc.prompt() == ((0,), "play")
    assert sc.state.hp[0] == 4


def test_an_extra_play_phase_comes_after_the_turn_with_a_fresh_bombarda() -> None:
    sc = sc4(hands={0: ["bombarda", "bombarda"]})
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_until(0, "play")
    assert not [a for a in sc.legal(0) if a.get("kind") == "bombarda"]
    st.add_extra_phase(0, "play")  # test-only: a skill (纳威's 遗忘 Forgetfulness) would grant it
    sc.end(0)
    sc.pass_until(0, "play")  # after the discard and end phases: the extra play phase, still turn 1
    assert st.current == 0 and st.turn_no == 1 and st.phase == "play"
    assert "carries out an extra play phase" in sc.log()
    assert [1] in [a["targets"] for a in sc.legal(0) if a.get("kind") == "bombarda"]  # one per play phase
    sc.end(0)
    assert sc.prompt() == ((1,), "play") and st.turn_no == 2 and st.extra_phases == []


def test_deck_runs_out_discard_pile_is_shuffled_at_once() -> None:
    sc = sc4()
    st = sc.state
    sc.end(0)
    sc.pass_until(1, "play")
    # test-only: move all but one deck card into the discard pile (face up)
    moved = st.deck[1:]
    del st.deck[1:]
    for s in moved:
        st.pub[s] = sc.table.faces[s]
        sc.table.public[s] = sc.table.faces[s]
        st.discard.append(s)
    sc.end(1)
    sc.pass_until(2, "play")
    assert len(st.hands[2]) == 6  # one from the old deck, one from the new one
    assert all(s not in moved for s in st.discard + st.deck)
    assert len(st.deck) + len(st.discard) == len(moved) - 1 + 3 - 0 or len(st.deck) > 50
    assert any("shuffled into a new deck" in line for line in st.log)


def test_dying_needs_tears_back_to_one_hp_asked_in_order() -> None:
    # 0 places 阿瓦达索命 on itself; at its next judgement ♠5 hits for 3 with HP 2 → two tears needed
    sc = sc4(hands={0: ["avada", "tears", "tears", "impediment"]}, deck=["*"] * 8 + [("bombarda", "♠", 8)])
    st = sc.state
    sc.use(0, "avada")
    sc.end(0)
    sc.pass_until(0, "respond:counter")  # the judgement phase of turn 5 opens a 咒立停 window
    st.hp[0] = 2
    for s in (0, 1, 2, 3):
        sc.pass_(s, "respond:counter")
    for s in (0, 1, 2, 3):
        sc.pass_(s, "respond:patronus")
    assert st.hp[0] == -1
    sc.give(0, "tears", "respond:tears")
    assert st.hp[0] == 0
    sc.give(0, "tears", "respond:tears")  # the same seat is asked again
    assert st.hp[0] == 1 and st.alive[0]
    assert sc.prompt() == ((0,), "play")


def kill(sc: Scenario, victim: int, by: int, bombarda: bool = True) -> None:
    """Drive ``by``'s 爆破咒 into ``victim`` (at 1 HP) and let nobody save it."""
    sc.state.hp[victim] = 1
    sc.use(by, "bombarda", [victim])
    sc.pass_until(victim, "respond:tears")
    while isinstance(sc.step(), Decide) and sc.prompt()[1] == "respond:tears":
        sc.pass_(sc.prompt()[0][0])


def test_death_reveals_identity_and_discards_every_card() -> None:
    sc = sc4(hands={0: ["bombarda", "bind"], 3: ["comet260"]})
    st = sc.state
    sc.end(0)
    sc.pass_until(3, "play")
    sc.use(3, "comet260")
    sc.end(3)
    sc.pass_until(0, "play")
    sc.use(0, "bind", [3])
    hand = list(st.hands[3])
    equip = list(st.equip[3].values())
    judge = [s for s, _k in st.judge[3]]
    assert hand and equip and judge
    assert 3 not in st.roles
    kill(sc, 3, 0)
    assert sc.prompt() == ((0,), "play")
    assert not st.alive[3] and st.roles[3] == SPY
    assert st.hands[3] == [] and st.equip[3] == {} and st.judge[3] == []
    assert all(s in st.discard and s in st.pub for s in hand + equip + judge)


def test_minister_killing_an_auror_discards_all_hand_and_equipment() -> None:
    sc = sc4(hands={0: ["bombarda", "comet260", "tears"]})
    st = sc.state
    sc.use(0, "comet260")
    kill(sc, 1, 0)
    assert sc.prompt() == ((0,), "play")
    assert st.roles[1] == AUROR and not st.alive[1]
    assert st.hands[0] == [] and st.equip[0] == {}


def test_killing_a_dark_wizard_draws_three() -> None:
    sc = Scenario(C4, roles=[MINISTER, DARK, AUROR, SPY], hands={0: ["bombarda"]})
    st = sc.state
    before = len(st.hands[0])
    kill(sc, 1, 0)
    sc.prompt()
    assert st.roles[1] == DARK
    assert len(st.hands[0]) == before - 1 + 3


def test_avada_moves_on_and_its_sourceless_kill_gives_no_reward() -> None:
    miss = ("tears", "♥")
    sc = Scenario(C4, roles=[MINISTER, SPY, AUROR, DARK], hands={0: ["avada"]},
                  deck=["*"] * 8 + [miss, "*", "*", miss, "*", "*", miss, "*", "*", ("bombarda", "♠", 7)])
    st = sc.state
    sc.use(0, "avada")
    assert st.judge[0][0][1] == "avada"
    st.hp[3] = 1
    sc.end(0)
    for holder in (0, 1, 2):
        sc.pass_until(holder, "play")
        assert not any(k == "avada" for _s, k in st.judge[holder])
        assert any(k == "avada" for _s, k in st.judge[(holder + 1) % 4])
        sc.end(holder)
    hands = [len(h) for h in st.hands]
    sc.pass_until(0, "play")
    assert not st.alive[3] and st.roles[3] == DARK
    assert "takes 3 damage (no source)" in sc.log()
    assert len(st.hands[0]) == hands[0] + 2  # its own draw only: nobody killed the dark wizard


def test_game_ends_when_minister_dies_dark_wizards_win() -> None:
    sc = Scenario(C4, roles=[MINISTER, DARK, AUROR, SPY], hands={1: ["bombarda"]})
    sc.end(0)
    sc.pass_until(1, "play")
    kill(sc, 0, 1)
    over = sc.over()
    assert over.winners == (1,)
    assert over.scores == (0, 1, 0, 0)
    assert "黑巫师" in over.summary and "seat 3: 卧底 Spy" in over.summary


def test_spy_wins_as_the_only_survivor() -> None:
    sc = Scenario(C4, roles=[MINISTER, SPY, DARK, AUROR], hands={1: ["bombarda"]})
    st = sc.state
    st.alive[2] = st.alive[3] = False  # test-only: the others are already gone
    st.roles[2], st.roles[3] = DARK, AUROR
    sc.end(0)
    sc.pass_until(1, "play")
    kill(sc, 0, 1)
    assert sc.over().winners == (1,)


def test_minister_dies_with_spy_not_alone_dark_wizards_win_even_if_dead() -> None:
    sc = Scenario(C4, roles=[MINISTER, SPY, DARK, AUROR], hands={1: ["bombarda"]})
    st = sc.state
    st.alive[2] = False
    st.roles[2] = DARK
    sc.end(0)
    sc.pass_until(1, "play")
    kill(sc, 0, 1)
    assert sc.over().winners == (2,)


def test_all_dark_wizards_and_spies_dead_minister_and_aurors_win_dead_or_alive() -> None:
    sc = Scenario(C4, roles=[MINISTER, SPY, AUROR, DARK], hands={0: ["bombarda"]})
    st = sc.state
    st.alive[3] = False
    st.roles[3] = DARK
    st.alive[2] = False
    st.roles[2] = AUROR
    kill(sc, 1, 0)
    over = sc.over()
    assert over.winners == (0, 2)


def test_two_spies_each_play_alone() -> None:
    from p2php.games.hpsha.damage import winners_for

    roles = {0: MINISTER, 1: SPY, 2: SPY, 3: DARK}
    assert winners_for(roles, [False, True, True, False], False) == (3,)
    assert winners_for(roles, [False, True, False, False], False) == (1,)


def test_judgement_cards_are_discarded_after_resolution() -> None:
    sc = sc4(hands={0: ["bind"]}, deck=["*"] * 2 + [("tears", "♥", 3)])
    st = sc.state
    sc.use(0, "bind", [1])
    sc.end(0)
    sc.pass_until(1, "play")  # a heart: nothing happens, the play phase is not skipped
    judged = sc.slot_of(sc.deck_ids[2])
    assert judged in st.discard
    assert st.judge[1] == []
    assert "统统石化 Petrificus Totalus" in sc.log()


def test_bind_skips_the_play_phase_unless_heart() -> None:
    sc = sc4(hands={0: ["bind"]}, deck=["*"] * 2 + [("bombarda", "♦", 6)])
    st = sc.state
    sc.use(0, "bind", [1])
    sc.end(0)
    sc.pass_until(1, "respond:counter")
    for s in (1, 2, 3, 0):  # the 咒立停 window starts with the current player
        sc.pass_(s, "respond:counter")
    seats, prompt = sc.prompt()
    assert (seats, prompt) == ((1,), "discard") or seats == (2,)
    assert "skips the play phase" in sc.log()
    assert "bind" in [st.kind(s) for s in st.discard]


def test_no_two_same_name_cards_in_a_judgement_area() -> None:
    sc = sc4(hands={0: ["bind", "bind"]})
    sc.use(0, "bind", [1], nth=0)
    targets = [a["targets"] for a in sc.legal(0) if a.get("kind") == "bind"]
    assert [1] not in targets and [2] in targets


def test_a_revealed_face_that_does_not_match_the_claim_is_refused_and_nothing_changes() -> None:
    sc = sc4(hands={0: ["bombarda", "tears"]})
    st = sc.state
    sc.decide()
    h = st.state_hash()
    lie = {"type": "use", "kind": "bombarda", "slots": [sc.slot(0, "tears")], "targets": [1]}
    st.check(0, lie, Knowledge({}))  # the other peers cannot tell
    with pytest.raises(IllegalAction):
        st.check(0, lie, sc.table.knowledge(0))  # the owner (and the audit) can
    slot = lie["slots"][0]
    with pytest.raises(IllegalAction):
        st.apply([(0, lie)], {slot: sc.table.faces[slot]})  # the opened face gives the lie away
    assert st.state_hash() == h


def test_point_duel_picks_face_down_then_opens_both_together() -> None:
    from p2php.engine.contract import Reveal
    from p2php.games.hpsha.moves import PointDuelTask

    sc = sc4(hands={0: [("bombarda", "♠", 10)], 1: [("bombarda", "♣", 10)]})
    st = sc.state
    sc.decide()
    st.push(Capture(PointDuelTask(0, 1), "duel"))  # test-only: a skill (勇气, 巨力) would push it
    d = sc.decide()
    assert d.seats == (0, 1) and d.prompt == "point_duel"
    a0 = {"type": "duel", "slot": sc.slot(0, "bombarda")}
    a1 = {"type": "duel", "slot": sc.slot(1, "bombarda")}
    assert st.reveals(0, a0) == () and st.reveals(1, a1) == ()
    sc.table.act([(0, a0), (1, a1)])
    assert isinstance(st.step(), Reveal) and len(st.step().slots) == 2  # type: ignore[union-attr]
    sc.step()
    assert captured(st, "duel") == {"won": False, "slots": [a0["slot"], a1["slot"]]}  # a tie: the initiator loses


def test_private_look_at_a_hand_and_at_the_deck_top_with_reordering() -> None:
    from p2php.games.hpsha.moves import LookAtHandTask, PeekDeckTask

    sc = sc4(deck=["*", "*", "tears", "apparate", "hat"])
    st = sc.state
    sc.decide()
    st.push(LookAtHandTask(0, 2))  # test-only: a skill would push these
    sc.decide()
    assert all(s in sc.table.private[0] for s in st.hands[2])
    assert not any(s in sc.table.private.get(1, {}) for s in st.hands[2])
    top = st.deck[:3]
    st.push(Capture(PeekDeckTask(3, 3, reorder=True), "top"))
    d = sc.decide()
    assert d == Decide((3,), "arrange_top")
    assert all(s in sc.table.private[3] for s in top) and not any(s in sc.table.public for s in top)
    assert len(sc.legal(3)) == 6
    sc.act(3, {"type": "arrange", "order": [top[2], top[0], top[1]]})
    assert st.deck[:3] == [top[2], top[0], top[1]]
    assert captured(st, "top") == [top[2], top[0], top[1]]


def test_a_borrowed_skill_is_offered_by_its_owner_and_name_not_its_internal_key() -> None:
    """易容's choice is "<seat>/<skill key>" on the wire; the player reads whose skill it is (the web table once showed
    "choose 1/chess_mastery")."""
    from p2php.games.hpsha.observe import describe_action

    sc = Scenario(["ron", "snape", "voldemort", "luna", "sirius"])
    label = describe_action(sc.state, 0, {"type": "choose", "value": "1/chess_mastery"}, {})
    assert label == f"{sc.state.who(0)}: choose {sc.state.who(1)}'s {sc.state.skill_label('chess_mastery')}"
    assert "chess_mastery" not in label
