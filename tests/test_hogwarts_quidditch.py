"""A Year at Hogwarts' Quidditch match (rules §15, data §5, C-25, C-37–C-40) as scripted scenarios with stacked
decks and fixed dice (engine mode), the challenge through the real protocol too, and a seeded sweep of whole
games in which matches are played."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import pytest
from test_hogwarts_rules import Table

from p2php.engine.contract import Decide, GameOver, Step
from p2php.engine.local import LocalTable
from p2php.games.hogwarts.cells_effects import CellEffect
from p2php.games.hogwarts.decks import Draw
from p2php.games.hogwarts.dice import faces
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import deck_of_slot, instance
from p2php.games.hogwarts.pitch_grid import OUT, path_between, steps
from p2php.games.hogwarts.quidditch import MATCH_POINTS, Match
from p2php.games.hogwarts.quidditch_goals import PHASE1_TURNS, Goals
from p2php.games.hogwarts.quidditch_snitch import Snitch
from p2php.games.hogwarts.rules import meets_goal

TOKENS = b"tokens" * 6
"""Joint random bytes for the set-up's token permutation (any will do)."""
PITCH = "quidditch_pitch"
CHO = 6


def dice(*wanted: int) -> bytes:
    """Joint random bytes whose first dice (in :func:`~p2php.games.hogwarts.dice.faces`' order) are ``wanted``."""
    for i in itertools.count():
        random = hashlib.sha256(str(i).encode()).digest()
        if faces(random, len(wanted)) == list(wanted):
            return random
    raise AssertionError("not reached")


def table(*random: bytes, players: int = 2, tops: dict[str, list[str]] | None = None,
          sheets: tuple[int, ...] = ()) -> Table:
    return Table(players, tops=tops, sheets=sheets, random=(TOKENS, *random), mode="engine")


def field(side: int = 0, moves: dict[str, str] | None = None, **fields: Any) -> Goals:
    """Phase 1 set up in the default formation (data §5.1), with ``moves`` and ``fields`` edited, about to roll."""
    task = Goals([0, 1], side)
    task.set_up()
    task.pieces.update(moves or {})
    task.formed, task.stage = 2, Goals.Stage.ROLL
    for name, value in fields.items():
        setattr(task, name, value)
    return task


def top(t: Table) -> Any:
    return t.state.stack.top


def logged(t: Table, kind: str) -> list[list[Any]]:
    return [e for e in t.state.events if e[0] == kind]


# ----------------------------------------------------------------------------- who plays, and when


@pytest.mark.usefixtures("mode")
def test_stopping_on_the_pitch_offers_a_challenge_of_any_other_player_or_none() -> None:
    t = Table(3)
    t.state.pos[0] = PITCH
    t.push(CellEffect(0))
    assert t.legal(0) == [{"type": "no_match"}, {"type": "challenge", "seat": 1}, {"type": "challenge", "seat": 2}]
    t.act(0, {"type": "no_match"}, "challenge")  # optional (C-25)
    t.expect(0, "start_card")
    assert t.state.points == [0, 0, 0]


@pytest.mark.usefixtures("mode")
def test_cho_takes_her_quidditch_card_before_the_challenge() -> None:
    t = Table(2, sheets=(CHO, 1))
    g = t.state
    before = len(g.hand[0])
    g.pos[0] = PITCH
    t.push(CellEffect(0))
    t.expect(0, "challenge")
    assert len(g.hand[0]) == before + 1 and deck_of_slot(g.hand[0][-1]) == "quidditch"
    assert t.table.knowledge(1).face(g.hand[0][-1]) is None  # a hidden hand card


@pytest.mark.usefixtures("mode")
def test_a_portal_from_the_pitch_means_no_match() -> None:
    t = Table(2)
    g = t.state
    g.pos[0] = "m023"
    t.act(0, {"type": "no_start"}, "start_card")
    onto = next(a for a in t.legal(0) if a["path"] == ["m023", PITCH])
    t.act(0, onto, "move")
    assert {"type": "portal"} in t.legal(0)
    t.act(0, {"type": "portal"}, "trip")
    step = t.first_legal_until(["challenge", "start_card"])
    assert not isinstance(step, GameOver) and step.prompt == "start_card" and step.seats == (1,)
    assert g.pos[0] == PITCH  # back at the end of the turn


@pytest.mark.usefixtures("mode")
def test_staying_on_the_pitch_after_the_move_leads_to_the_challenge() -> None:
    t = Table(2)
    t.state.pos[0] = "m023"
    t.act(0, {"type": "no_start"}, "start_card")
    t.act(0, next(a for a in t.legal(0) if a["path"] == ["m023", PITCH]), "move")
    t.act(0, {"type": "stay"}, "trip")
    t.expect(0, "challenge")


def test_the_challenged_figure_comes_to_the_pitch_and_houses_are_chosen_in_turn() -> None:
    t = table(dice(3, 3, 5, 2), players=3, sheets=(1, 6, 2))  # Harry (Gryffindor), Cho (Ravenclaw), Ron
    g = t.state
    g.pos[0], g.pos[2] = PITCH, "m003"
    t.push(CellEffect(0))
    t.act(0, {"type": "challenge", "seat": 2}, "challenge")
    assert g.pos[2] == PITCH
    houses = [a["house"] for a in t.legal(0)]
    assert houses[0] == "gryffindor" and sorted(houses) == ["gryffindor", "hufflepuff", "ravenclaw", "slytherin"]
    t.act(0, {"type": "house", "house": "slytherin"}, "house")
    assert [a["house"] for a in t.legal(2)] == ["gryffindor", "hufflepuff", "ravenclaw"]  # each a different one
    t.act(2, {"type": "house", "house": "gryffindor"}, "house")
    t.expect(0, "formation")  # 3–3 is rolled again, then 5–2: the challenger starts (C-37)
    assert [e[2] for e in logged(t, "roll") if e[1] == "quidditch_first"] == [[3, 3], [5, 2]]
    assert top(t).first == 0 and top(t).seats == [0, 2]


def test_the_higher_first_die_starts_the_match() -> None:
    t = table(dice(1, 4), players=2)
    t.state.pos[0] = PITCH
    t.push(Match(0, 1))
    for seat in (0, 1):
        t.act(seat, t.legal(seat)[0], "house")
    t.act(0, {"type": "ready"}, "formation")
    t.act(1, {"type": "ready"}, "formation")
    t.expect(1, "quidditch")  # the challenged player rolled higher: it starts Phase 1
    assert top(t).first == 1


@pytest.mark.usefixtures("mode")
def test_a_whole_match_of_first_legal_answers_ends_with_the_reward() -> None:
    """Every turn of Phase 1 given up ends it after its 20 turns, a tie won by the first player; Phase 2 is
    then dice alone; the winner scores 40 and the challenged figure goes back."""
    t = Table(2)
    g = t.state
    g.pos[0] = PITCH
    t.push(Match(0, 1))
    step = t.first_legal_until(["start_card"])
    assert not isinstance(step, GameOver) and step.seats == (0,)
    assert sorted(g.points) == [0, MATCH_POINTS] and g.pos == [PITCH, "start"]
    assert len(logged(t, "quidditch_phase1")) == len(logged(t, "quidditch_won")) == 1


# ----------------------------------------------------------------------------- Phase 1


def test_the_formation_may_be_rearranged_once_per_piece_within_its_lines() -> None:
    t = table(players=2)
    t.push(Goals([0, 1], 0))
    legal = t.legal(0)
    assert legal[0] == {"type": "ready"}
    keeper = {a["cell"] for a in legal if a.get("piece") == "A:keeper"}
    beater = {a["cell"] for a in legal if a.get("piece") == "A:beater1"}
    chaser = {a["cell"] for a in legal if a.get("piece") == "A:chaser1"}
    assert keeper == {"q_0_1", "q_0_2"}  # the goal zone's free cells
    assert beater == {"q_1_0", "q_1_1", "q_1_3"}  # line (3), free
    assert chaser and all(c[2] in "23" for c in chaser)  # the two lines (4)
    t.act(0, {"type": "place", "piece": "A:keeper", "cell": "q_0_1"}, "formation")
    assert not any(a.get("piece") == "A:keeper" for a in t.legal(0))  # each piece once
    t.act(0, {"type": "ready"}, "formation")
    t.expect(1, "formation")
    assert top(t).pieces["A:keeper"] == "q_0_1"


def test_the_rulebook_s_worked_match_phase_1() -> None:
    """Rules §15 example: Gryffindor (A) 4 + 6 = 10 actions; Slytherin (B) 5 + 6 = 11 (data §5.1's formation)."""
    t = table(dice(4, 6), dice(4, 5), dice(3, 2), dice(5, 6), dice(5, 3), tops={"quidditch": ["wronski_feint"]})
    g = t.state
    q = field()
    t.push(q)
    t.step()
    assert q.actions == 10
    t.act(0, {"type": "step", "piece": "A:chaser1", "to": "q_4_2"}, "quidditch")
    assert q.holder == "A:chaser1" and q.actions == 9  # the pick-up costs no action
    for cell in ("q_4_3", "q_5_3", "q_6_3", "q_7_3"):  # round Slytherin's Chaser on q_5_2
        t.act(0, {"type": "step", "piece": "A:chaser1", "to": cell})
    t.act(0, {"type": "shoot", "piece": "A:chaser1"})  # 4 against the Keeper's 5: no goal
    t.step()
    assert q.goals == [0, 0] and q.holder == "B:keeper" and q.actions == 4
    t.act(0, {"type": "step", "piece": "A:beater1", "to": "q_2_2"})  # onto Bludger 1
    assert len(path_between("q_2_2", "q_5_2") or []) == 3
    t.act(0, {"type": "throw", "piece": "A:beater1", "bludger": 0, "target": "B:chaser1"})  # 3 ≥ 3; saves with 2
    t.step()
    assert q.pieces["B:chaser1"] == OUT and q.bludgers[0] == "q_5_2" and q.actions == 3  # no action
    for cell in ("q_3_3", "q_4_3", "q_5_3"):
        t.act(0, {"type": "step", "piece": "A:chaser2", "to": cell})
    t.expect(1, "quidditch")  # no actions left and no Bludger to throw: Slytherin's turn
    assert q.actions == 11 and q.side == 1
    t.act(1, {"type": "step", "piece": "B:chaser2", "to": "q_7_1"})  # back 1 cell, next to the Keeper
    t.act(1, {"type": "pass", "piece": "B:keeper", "to": "B:chaser2"})
    for cell in ("q_6_1", "q_6_0", "q_5_0", "q_4_0", "q_4_1", "q_3_1", "q_2_1", "q_1_1"):  # 8 cells
        t.act(1, {"type": "step", "piece": "B:chaser2", "to": cell})
    t.act(1, {"type": "shoot", "piece": "B:chaser2"})  # 5 against 3: a goal and a Quidditch card
    t.step()
    assert q.goals == [0, 1] and q.holder == "A:keeper"
    card = g.hand[1][-1]
    assert instance(t.table.knowledge(1).face(card) or -1).card == "wronski_feint"
    assert t.table.knowledge(0).face(card) is None


def test_steps_keep_the_keeper_in_his_zone_and_others_out_of_both_zones() -> None:
    assert steps("q_0_1", "keeper", 0, []) == ["q_0_2"]
    assert steps("q_1_2", "chaser", 0, ["q_1_1"]) == ["q_2_2", "q_1_3"]
    assert steps("q_7_2", "beater", 1, []) == ["q_6_2", "q_7_1", "q_7_3"]


def test_a_pass_costs_one_action_and_goes_to_an_adjacent_own_chaser() -> None:
    t = table(dice(1, 1))
    t.push(field(moves={"A:chaser1": "q_4_2", "A:chaser2": "q_4_3"}, holder="A:chaser1", quaffle=""))
    passes = [a for a in t.legal(0) if a["type"] == "pass"]
    assert passes == [{"type": "pass", "piece": "A:chaser1", "to": "A:chaser2"}]
    t.act(0, passes[0], "quidditch")
    assert top(t).holder == "A:chaser2" and top(t).actions == 1


def test_an_interception_costs_two_actions_and_needs_a_free_cell_next_to_the_holder() -> None:
    t = table(dice(1, 2), dice(1, 1), dice(1, 1))
    q = field(side=1, moves={"A:chaser1": "q_4_2", "A:chaser2": "q_3_2"}, holder="A:chaser1", quaffle="")
    t.push(q)
    legal = [a for a in t.legal(1) if a["type"] == "intercept"]
    assert {a["piece"] for a in legal} == {"B:chaser1"}  # the one Chaser next to the holder
    assert {a["to"] for a in legal} == {"q_4_1", "q_4_3"}  # q_3_2 is taken, q_5_2 is where it comes from
    t.act(1, {"type": "step", "piece": "B:beater2", "to": "q_6_0"}, "quidditch")
    t.act(1, {"type": "step", "piece": "B:beater2", "to": "q_7_0"})
    assert not [a for a in t.legal(1) if a["type"] == "intercept"]  # 1 action left: not enough
    t.act(1, {"type": "end"})
    t.act(0, {"type": "end"}, "quidditch")
    t.act(1, {"type": "intercept", "piece": "B:chaser1", "to": "q_4_1"}, "quidditch")
    assert q.holder == "B:chaser1" and q.pieces["B:chaser1"] == "q_4_1" and q.actions == 0
    assert q.pieces["A:chaser1"] == "q_4_2"


def test_no_interception_without_a_free_cell_to_move_on_to() -> None:
    t = table(dice(3, 3))
    moves = {"A:chaser1": "q_4_0", "A:chaser2": "q_4_1", "B:chaser1": "q_5_0"}  # A:chaser3 is on q_3_0
    t.push(field(side=1, moves=moves, holder="A:chaser1", quaffle=""))
    t.expect(1, "quidditch")
    assert not [a for a in t.legal(1) if a["type"] == "intercept"]


def test_a_keeper_knocked_out_with_the_quaffle_leaves_it_to_his_side_to_place() -> None:
    t = table(dice(3, 3), dice(6, 1))
    q = field(moves={"A:beater1": "q_2_1"}, bludgers=["q_2_1", "q_6_2"], holder="B:keeper", quaffle="")
    t.push(q)
    t.act(0, {"type": "throw", "piece": "A:beater1", "bludger": 0, "target": "B:keeper"}, "quidditch")
    t.expect(1, "place_quaffle")
    assert q.pieces["B:keeper"] == OUT and q.bludgers[0] == "q_7_1"
    t.act(1, {"type": "place_quaffle", "cell": "q_7_4"})
    t.expect(0, "quidditch")
    assert q.quaffle == "q_7_4" and q.actions == 6


def test_a_shot_without_a_keeper_is_a_goal_and_the_defenders_place_the_quaffle() -> None:
    t = table(dice(2, 2))
    q = field(moves={"A:chaser1": "q_7_3", "B:keeper": OUT}, holder="A:chaser1", quaffle="")
    t.push(q)
    t.act(0, {"type": "shoot", "piece": "A:chaser1"}, "quidditch")  # no roll: automatic
    t.step()
    assert q.goals == [1, 0] and [e[1] for e in logged(t, "roll")] == ["quidditch_actions"]
    assert t.legal(1) == [{"type": "place_quaffle", "cell": f"q_7_{r}"} for r in range(5)]
    t.act(1, {"type": "place_quaffle", "cell": "q_7_0"}, "place_quaffle")
    assert q.quaffle == "q_7_0" and q.holder == "" and q.actions == 3


def test_the_second_goal_ends_phase_1() -> None:
    t = table(dice(2, 2), dice(6, 1))
    t.push(field(moves={"A:chaser1": "q_7_3"}, holder="A:chaser1", quaffle="", goals=[1, 0]))
    t.act(0, {"type": "shoot", "piece": "A:chaser1"}, "quidditch")
    t.expect(0, "start_card")
    assert logged(t, "quidditch_phase1") == [["quidditch_phase1", 0, [2, 0]]]
    assert sum(deck_of_slot(s) == "quidditch" for s in t.state.hand[0]) == 1


def test_a_bludger_that_falls_short_lands_that_many_cells_along_its_line() -> None:
    t = table(dice(2, 2), dice(2, 1))
    t.push(field(moves={"A:beater1": "q_2_2"}))
    throw = {"type": "throw", "piece": "A:beater1", "bludger": 0, "target": "B:chaser1"}  # 3 cells along row 2
    assert throw in t.legal(0) and not any(a.get("target") == "B:chaser2" for a in t.legal(0))  # not in line
    t.act(0, throw, "quidditch")
    t.step()
    q = top(t)
    assert q.bludgers[0] == "q_4_2" and q.pieces["B:chaser1"] == "q_5_2" and q.actions == 4
    assert not any(a["type"] == "throw" and a["bludger"] == 0 for a in t.legal(0))  # once a turn (C-39)


def test_a_bludger_hit_saved_on_four_keeps_the_piece_and_one_in_a_goal_zone_is_moved_out() -> None:
    t = table(dice(2, 2), dice(6, 4))
    t.push(field(moves={"A:beater1": "q_2_1", "B:keeper": "q_8_1"}, bludgers=["q_2_1", "q_6_2"]))
    t.act(0, {"type": "throw", "piece": "A:beater1", "bludger": 0, "target": "B:keeper"}, "quidditch")
    t.step()
    q = top(t)
    assert q.pieces["B:keeper"] == "q_8_1" and q.bludgers[0] == "q_7_1"  # in front of the goal zone (C-39)


def test_a_chaser_knocked_out_with_the_quaffle_drops_it_on_its_cell() -> None:
    t = table(dice(2, 2), dice(3, 2))
    t.push(field(moves={"A:beater1": "q_2_2"}, holder="B:chaser1", quaffle=""))
    t.act(0, {"type": "throw", "piece": "A:beater1", "bludger": 0, "target": "B:chaser1"}, "quidditch")
    t.step()
    q = top(t)
    assert q.pieces["B:chaser1"] == OUT and q.quaffle == "q_5_2" and q.holder == "" and q.bludgers[0] == "q_5_2"


def test_a_side_that_has_lost_all_its_chasers_loses_phase_1() -> None:
    t = table(dice(2, 2), dice(3, 1))
    t.push(field(moves={"A:beater1": "q_2_2", "B:chaser2": OUT, "B:chaser3": OUT}))
    t.act(0, {"type": "throw", "piece": "A:beater1", "bludger": 0, "target": "B:chaser1"}, "quidditch")
    t.expect(0, "start_card")
    assert logged(t, "quidditch_phase1") == [["quidditch_phase1", 0, [0, 0]]]


def test_phase_1_ends_after_its_turns_with_the_side_ahead() -> None:
    t = table(dice(1, 1))
    t.push(field(side=1, turns=PHASE1_TURNS - 1, goals=[1, 0]))
    t.act(1, {"type": "end"}, "quidditch")
    assert logged(t, "quidditch_phase1") == [["quidditch_phase1", 0, [1, 0]]]
    t.push(field(side=1, turns=PHASE1_TURNS - 1))
    t.step()
    t.act(1, {"type": "end"}, "quidditch")
    assert logged(t, "quidditch_phase1")[-1] == ["quidditch_phase1", 1, [0, 0]]  # a tie: the first player


# ----------------------------------------------------------------------------- Phase 2


def snitch_table(cards: list[tuple[int, str]], *random: bytes) -> Table:
    """Seats 0 and 1 hold the Quidditch cards ``cards`` (seat, card id; in the order drawn)."""
    t = table(*random, tops={"quidditch": [c for _s, c in cards]})
    for seat, _card in cards:
        t.push(Draw(seat, "quidditch"))
    return t


def qslot(t: Table, seat: int, card: str) -> int:
    return next(s for s in t.state.hand[seat] if instance(t.table.knowledge(seat).face(s) or -1).card == card)


def test_the_rulebook_s_worked_match_phase_2_and_the_reward() -> None:
    """Gryffindor 8 + Firebolt Dash 4 = 12; Slytherin 12 + Wronski Feint 5 = 17; Gryffindor 6 = 18 and
    Confundus Charm: Slytherin back to 14; Slytherin 10: 24, a full circle, the Snitch and 40 points."""
    cards = [(0, "firebolt_dash"), (1, "wronski_feint"), (0, "confundus_charm")]
    t = snitch_table(cards, dice(3, 5), dice(6, 6), dice(5), dice(2, 4), dice(5, 5))
    g = t.state
    g.pos[0], g.pos[1] = PITCH, PITCH
    t.push(Match(0, 1, stage=Match.Stage.SNITCH, back="m003", houses=["gryffindor", "slytherin"], first=0,
                 phase1=0))
    t.step()
    s = top(t)
    assert s.progress == [8, 0]
    firebolt = qslot(t, 0, "firebolt_dash")
    t.act(0, {"type": "card", "slot": firebolt}, "quidditch_card")
    assert s.progress == [12, 0] and g.deck["quidditch"][-1] == firebolt and firebolt in g.pub  # opened, under
    t.act(1, {"type": "card", "slot": qslot(t, 1, "wronski_feint")}, "quidditch_card")
    t.step()
    assert s.progress == [18, 17] and ["seeker", 1, 5, 17] in logged(t, "seeker")  # and Gryffindor's 6
    t.act(0, {"type": "card", "slot": qslot(t, 0, "confundus_charm")}, "quidditch_card")
    assert s.progress == [18, 14]
    t.expect(0, "start_card")  # Slytherin rolled 10: caught, with no card to play
    assert g.points == [0, MATCH_POINTS] and g.pos[1] == "m003"
    assert logged(t, "quidditch_won") == [["quidditch_won", 1, 0]]


def test_each_quidditch_card_effect() -> None:
    cards = [(0, "nimbus_burst"), (1, "bludger_backbeat"), (0, "starfish_and_stick"), (1, "confundus_charm"),
             (0, "plumpton_pass")]
    t = snitch_table(cards, dice(1, 1), dice(1, 2), dice(2, 2), dice(1, 1), dice(1, 3), dice(6))
    t.push(Snitch([0, 1], 0))
    t.step()
    s = top(t)
    t.act(0, {"type": "card", "slot": qslot(t, 0, "nimbus_burst")}, "quidditch_card")
    assert s.progress == [4, 0]
    t.expect(1, "quidditch_card")  # one card a turn: the turn passes
    t.act(1, {"type": "card", "slot": qslot(t, 1, "bludger_backbeat")}, "quidditch_card")
    assert s.progress == [2, 3]
    t.act(0, {"type": "card", "slot": qslot(t, 0, "starfish_and_stick")}, "quidditch_card")
    assert s.progress == [6, 3] and s.guard == [True, False]
    t.act(1, {"type": "card", "slot": qslot(t, 1, "confundus_charm")}, "quidditch_card")
    assert s.progress == [6, 5]  # guarded: no effect until seat 0's next turn
    t.act(0, {"type": "card", "slot": qslot(t, 0, "plumpton_pass")}, "quidditch_card")
    assert s.guard == [False, False] and s.progress == [10, 5] and s.rolled == [1, 3]
    t.act(0, {"type": "reroll", "die": 0}, "reroll_die")  # the 1 again: a 6
    t.step()
    assert ["seeker", 0, 5, 15] in logged(t, "seeker")  # 6 for the 1 (then the game goes on)


@pytest.mark.usefixtures("mode")
def test_a_quidditch_card_is_secret_until_it_is_played_and_then_goes_under_its_deck() -> None:
    t = Table(2)
    g = t.state
    t.push(Draw(0, "quidditch"))
    t.push(Snitch([0, 1], 0))
    slot = g.hand[0][-1]
    assert deck_of_slot(slot) == "quidditch" and t.table.knowledge(1).face(slot) is None
    t.act(0, {"type": "card", "slot": slot}, "quidditch_card")  # opened with the action (C-37: then under)
    assert slot in g.pub and g.deck["quidditch"][-1] == slot and slot not in g.hand[0]
    step = t.first_legal_until(["start_card"])
    assert not isinstance(step, GameOver) and step.seats == (0,)
    assert len(logged(t, "snitch")) == 1  # caught (the reward is the match's, not Phase 2's)


def test_the_roll_alone_may_catch_the_snitch_before_any_card() -> None:
    t = snitch_table([(1, "firebolt_dash")], dice(2, 2))
    t.push(Snitch([0, 1], 1, progress=[0, 20]))
    t.expect(0, "start_card")  # 24: a full circle (C-40), no card asked
    assert logged(t, "snitch") == [["snitch", 1]] and any(deck_of_slot(x) == "quidditch" for x in t.state.hand[1])


def test_a_seeker_is_never_moved_behind_the_start() -> None:
    t = snitch_table([(1, "confundus_charm")], dice(1, 1), dice(1, 1))
    t.push(Snitch([0, 1], 0))
    t.step()
    s = top(t)
    t.act(1, {"type": "card", "slot": qslot(t, 1, "confundus_charm")}, "quidditch_card")
    assert s.progress == [0, 2]


# ----------------------------------------------------------------------------- whole games


LENGTHS = ("quick", "classic", "long")


def bot_step(tb: LocalTable, bots: dict[int, Any], until: str = "") -> Step:
    """Run the chance steps, then let the asked seat's bot answer the decision (unless it is ``until``)."""
    step = tb.run_chance()
    if isinstance(step, Decide) and step.prompt != until:
        st, seat = tb.state, step.seats[0]
        known = tb.knowledge(seat)
        tb.act([(seat, bots[seat].choose(st, seat, known, st.legal_actions(seat, known)))])
    return step


def test_two_hundred_seeded_matches_end_with_the_reward_at_every_table_and_length() -> None:
    """Engine only: a match pushed at the first turn of a fresh underage game, 2 to 9 seats, every length,
    heuristic bots (random bots in one of four): each ends, gives the winner 40 points and sends the
    challenged figure back."""
    for seed in range(200):
        players, length = 2 + seed % 8, LENGTHS[(seed // 8) % 3]
        st = GAME.new_state(players, {"length": length})
        tb = LocalTable(st, seed)
        kind = "random" if seed % 4 == 3 else "heuristic"
        bots = {s: GAME.make_bot(kind, f"{seed}/{s}") for s in range(players)}
        while not (isinstance(step := bot_step(tb, bots, "start_card"), Decide) and step.prompt == "start_card"):
            pass  # the sheets are chosen
        challenger, challenged = seed % players, (seed + 1 + seed % (players - 1)) % players
        st.pos[challenger] = PITCH
        st.stack.push(Match(challenger, challenged))
        while sum(st.points) < MATCH_POINTS:
            assert not isinstance(bot_step(tb, bots, "start_card"), GameOver), seed
        assert sorted(st.points) == [0] * (players - 1) + [MATCH_POINTS], seed
        assert st.pos[challenged] == "start" and st.step() == Decide((0,), "start_card"), seed


def test_seeded_whole_games_with_matches_finish_with_a_winner() -> None:
    """Engine only, underage, heuristic bots, every length at 2 to 4 seats: every game ends with a winner who
    met the goal, and the bots challenge when they stop on the pitch."""
    matches = 0
    for seed in range(36):
        players, length = 2 + seed % 3, LENGTHS[(seed // 3) % 3]
        st = GAME.new_state(players, {"length": length})
        tb = LocalTable(st, seed)
        result = tb.play({s: GAME.make_bot("heuristic", f"{seed}/{s}") for s in range(players)})
        assert result.winners and all(meets_goal(st, w) or w in st.qualified for w in result.winners), seed
        matches += sum(1 for kind, step in tb.log if kind == "Randomness"
                       and getattr(step, "purpose", "") == "quidditch_first")
    assert matches >= 18
