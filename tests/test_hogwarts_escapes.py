"""Leaving a battle in A Year at Hogwarts (E35, E36): the Invisibility Cloak and Pettigrew's flight in a group
battle (an event's enemy, a team's mission battle) and the Cloak before the underage dice duel — engine
scenarios with stacked decks and fixed dice."""

from __future__ import annotations

from typing import Any

from test_hogwarts_quidditch import dice
from test_hogwarts_rules import HARRY, RON, Table
from test_hogwarts_solo_team import TOKENS, Team

from p2php.engine.contract import Action, Decide
from p2php.games.hogwarts.battle import CLOAK, Battle
from p2php.games.hogwarts.bots import HeuristicBot
from p2php.games.hogwarts.events import Event
from p2php.games.hogwarts.mission_flow import MissionAttempt
from p2php.games.hogwarts.pvp import TRUCE_TURNS, PlayerBattle
from p2php.games.hogwarts.state import HogwartsState
from p2php.games.hogwarts.view import battle_view

HERMIONE, PETTIGREW = 3, 9
SIXES = dice(6, 6, 6)
CLOAK_TOKEN: Action = {"type": "token", "token": CLOAK}
FIGHT = {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}, "reroll": {"type": "keep"},
         "flee": {"type": "stay"}, "cloak": {"type": "fight"}}
"""How the scenarios answer a battle's decisions unless told otherwise: no card, no token, no escape."""


def give(g: HogwartsState, seat: int, token: str) -> None:
    cell = next(c for c, tokens in sorted(g.tokens.items()) if token in tokens)
    g.take_token(cell, token)
    g.held[seat].append(token)


def fight_until(t: Any, prompts: tuple[str, ...]) -> Decide:
    """Answer every decision as :data:`FIGHT` says (else its first legal action) until one of ``prompts``."""
    while True:
        step = t.decide()
        if step.prompt in prompts:
            return step
        seat = step.seats[0]
        t.act(seat, FIGHT.get(step.prompt, t.legal(seat)[0]))


def escape(t: Any, seat: int) -> list[str]:
    """``seat`` answers the escape move (every walk of up to 5 steps, free links costing none, C-28) with its
    longest; its path."""
    t.expect(seat, "cloak_move")
    moves = t.legal(seat)
    here = t.state.pos[seat]
    assert moves and all(a["type"] == "escape" and a["path"][0] == here and len(a["path"]) > 1 for a in moves)
    chosen = max(moves, key=lambda a: len(a["path"]))
    t.act(seat, chosen, "cloak_move")
    return list(chosen["path"])


def no_escape_offered(t: Any, seat: int) -> None:
    legal = t.legal(seat)
    assert CLOAK_TOKEN not in legal and not any(a["type"] in ("escape", "flee") for a in legal)
    t.assert_illegal(seat, CLOAK_TOKEN)


# ----------------------------------------------------------------------------- an event's group battle


def test_the_cloak_in_an_event_battle_takes_its_holder_away_and_the_others_win_without_it() -> None:
    """EV15's Dementor swarm (4 LP x 3, res 5, after each attack 1 LP): Ron uses the Cloak at his first
    attack decision, escapes, and Harry and Hermione beat the swarm with three sixes each time; only they
    take the 20 points; Ron puts the Cloak on a Diagon Alley star when it is over."""
    t = Table(3, tops={"event": ["EV15"]}, sheets=(HARRY, RON, HERMIONE), random=(TOKENS, *[SIXES] * 4),
              mode="engine")
    g = t.state
    give(g, 1, CLOAK)
    t.decide()
    t.state.stack.push(Event(0))
    t.expect(0, "defend")
    battle = g.stack.top
    assert isinstance(battle, Battle) and battle.participants == [0, 1, 2] and battle.lp == 12
    fight_until(t, ("attack",))
    no_escape_offered(t, 0)  # Harry holds no Cloak
    fight_until(t, ("defend",))
    assert battle.current == 1 and battle.lp == 9
    t.act(1, {"type": "no_defence"}, "defend")
    t.act(1, CLOAK_TOKEN, "attack")
    path = escape(t, 1)
    assert g.pos[1] == path[-1] and CLOAK not in g.held[1] and 1 in g.ended
    assert battle.standing == [0, 2] and battle.left == [1] and battle.current == 2
    assert battle_view(g)["left"] == [1]
    fight_until(t, ("place_used",))
    assert battle.result == "won" and battle.lp <= 0
    t.act(1, {"type": "place", "token": CLOAK, "cell": "d006"}, "place_used")
    t.expect(0, "start_card")
    assert g.points == [20, 0, 20] and CLOAK in g.tokens["d006"]  # the reward goes to those standing
    assert g.lp == [7 - 2, 8, 6 - 2]  # one LP lost per attack made (two each); Ron made none


def test_pettigrew_flees_a_group_battle_alone_and_everyone_leaving_ends_it_with_no_winner() -> None:
    """Pettigrew (seat 0) fights the swarm with Harry and Ron: after his round he may flee, the others go
    on; when Harry then uses the Cloak, only Ron is left, and the battle goes on for him."""
    t = Table(3, sheets=(PETTIGREW, HARRY, RON), random=(TOKENS,), mode="engine")
    g = t.state
    give(g, 1, CLOAK)
    t.decide()
    battle = Battle([0, 1, 2], "EB2", "event", 2)
    g.stack.push(battle)
    fight_until(t, ("flee",))
    assert t.legal(0) == [{"type": "stay"}, {"type": "flee"}]
    where = g.pos[0]
    t.act(0, {"type": "flee"}, "flee")
    assert battle.standing == [1, 2] and battle.left == [0] and battle.current == 1 and g.pos[0] == where
    fight_until(t, ("attack",))
    t.act(1, CLOAK_TOKEN, "attack")
    escape(t, 1)
    assert battle.standing == [2] and battle.left == [0, 1] and battle.current == 2
    step = fight_until(t, ("attack", "flee"))
    assert step.seats == (2,)  # Ron fights on alone; Pettigrew is never asked again
    no_escape_offered(t, 2)

    everyone = Table(2, sheets=(PETTIGREW, HARRY), random=(TOKENS,), mode="engine")
    g = everyone.state
    give(g, 1, CLOAK)
    everyone.decide()
    battle = Battle([0, 1], "EB2", "event", 2)
    g.stack.push(battle)
    fight_until(everyone, ("flee",))
    everyone.act(0, {"type": "flee"}, "flee")
    fight_until(everyone, ("attack",))
    everyone.act(1, CLOAK_TOKEN, "attack")
    escape(everyone, 1)
    everyone.act(1, {"type": "place", "token": CLOAK, "cell": "d009"}, "place_used")
    everyone.expect(0, "start_card")
    assert battle.result == "escaped" and battle.standing == [] and battle.left == [0, 1]
    assert g.points == [0, 0] and g.defeats == [0, 0]


# ----------------------------------------------------------------------------- a team's mission battle


def mission_battle(t: Team) -> tuple[HogwartsState, int, Battle]:
    """Seat 0 attempts mission 4 (the Whomping Willow, 6 LP x 2) with seat 2: both there, the token on
    seat 2's sheet, their cards shown; the battle is about to start."""
    g = t.state
    t.decide()
    give(g, 2, "flying_ford_anglia")
    g.pos[0] = g.pos[2] = "whomping_willow"
    mission = g.missions[0][0]
    t.push_task(MissionAttempt(0))
    t.act(0, {"type": "mission", "slot": mission}, "mission")
    for seat in (0, 2):
        t.act(seat, max(t.legal(seat), key=lambda a: len(a.get("slots", []))), "mission_cards")
    battle = g.stack.top
    assert isinstance(battle, Battle) and battle.participants == [0, 2] and battle.kind == "mission"
    return g, mission, battle


def test_the_holder_leaving_a_team_mission_battle_fails_the_mission_for_the_team() -> None:
    """E35: seat 0, the mission's holder, uses the Cloak: the battle ends at once with no winner (seat 2 is
    never asked), the mission stays undone in seat 0's hand and its token and shown cards are handed in."""
    t = Team(tops={"mission": ["M04"]})
    g, mission, battle = mission_battle(t)
    give(g, 0, CLOAK)
    hands = [list(g.hand[0]), list(g.hand[2])]
    lp = list(g.lp)
    fight_until(t, ("attack",))
    assert battle.current == 0
    t.act(0, CLOAK_TOKEN, "attack")
    escape(t, 0)
    t.act(0, {"type": "place", "token": CLOAK, "cell": "d012"}, "place_used")
    t.expect(0, "hand_in")
    assert battle.result == "escaped" and battle.standing == [2] and battle.left == [0]
    assert g.lp[2] == lp[2] and g.pos[2] == "whomping_willow"  # seat 2 never fought
    assert mission in g.missions[0] and g.done[0] == [] and g.points == [0] * 4
    assert "flying_ford_anglia" not in g.held[2]
    shown = set(hands[0] + hands[1]) - set(g.hand[0] + g.hand[2])
    assert shown and all(s in g.pub for s in shown)  # the cards shown went under their decks
    t.first_legal_until(["start_card"])
    assert any("flying_ford_anglia" in tokens for tokens in g.tokens.values())


def test_a_member_leaving_a_team_mission_battle_leaves_it_to_the_holder() -> None:
    """Seat 2 (not the holder) uses the Cloak: seat 0 fights on alone against what is left of the Willow."""
    t = Team(tops={"mission": ["M04"]})
    g, _mission, battle = mission_battle(t)
    give(g, 2, CLOAK)
    fight_until(t, ("attack",))
    no_escape_offered(t, 0)
    t.act(0, {"type": "dice"}, "attack")
    fight_until(t, ("attack",))
    assert battle.current == 2
    t.act(2, CLOAK_TOKEN, "attack")
    escape(t, 2)
    assert battle.standing == [0] and battle.left == [2] and battle.result == ""
    step = fight_until(t, ("attack", "hand_in"))
    assert step.seats == (0,) and battle.current == 0


# ----------------------------------------------------------------------------- the underage dice duel


def test_the_cloak_before_the_underage_dice_duel_either_side_ends_it_with_no_winner() -> None:
    """E36: the mover, or else its opponent, holding the Cloak is asked before the roll; used, nobody wins,
    no LP are lost, the escaper moves and places the Cloak, and the truce follows."""
    for holder in (0, 1):
        t = Table(2, mode="engine")
        g = t.state
        give(g, holder, CLOAK)
        t.decide()
        duel = PlayerBattle(0, [1])
        g.stack.push(duel)
        assert t.decide() == Decide((holder,), "cloak")
        assert t.legal(holder) == [{"type": "fight"}, CLOAK_TOKEN]
        t.assert_illegal(holder, {"type": "escape", "path": []})
        lp = list(g.lp)
        t.act(holder, CLOAK_TOKEN, "cloak")
        assert battle_view(g)["escaper"] == holder
        path = escape(t, holder)
        t.act(holder, {"type": "place", "token": CLOAK, "cell": "d006"}, "place_used")
        t.expect(0, "start_card")
        assert g.pos[holder] == path[-1] and g.lp == lp and duel.winner == -1 and duel.hits == [0, 0]
        assert g.truces == [[0, 1, TRUCE_TURNS + 1, TRUCE_TURNS]] and CLOAK in g.tokens["d006"]
        assert (0 in g.ended) is (holder == 0)


def test_a_declined_cloak_and_a_duel_without_one_roll_the_dice_as_before() -> None:
    t = Table(2, mode="engine")
    g = t.state
    give(g, 1, CLOAK)
    t.decide()
    duel = PlayerBattle(0, [1])
    g.stack.push(duel)
    t.act(1, {"type": "fight"}, "cloak")
    step = t.decide()
    assert step.prompt == "prize" and duel.winner in (0, 1) and CLOAK in g.held[1]

    bare = Table(2, mode="engine")
    bare.decide()
    bare.state.stack.push(PlayerBattle(0, [1]))
    step = bare.decide()  # nobody holds the Cloak: nobody is asked, the dice are rolled at once
    assert step.prompt == "prize"


def test_the_heuristic_escapes_a_dice_duel_only_when_a_token_its_missions_need_is_at_stake() -> None:
    missions = [f"M{n:02d}" for n in (4, 1, 10, 9, 11, 2, 13, 3, 16, 5)]  # seat 0's need no Cloak
    t = Table(2, tops={"mission": missions}, mode="engine")  # mission 4 needs the Flying Ford Anglia
    g = t.state
    give(g, 0, CLOAK)
    t.decide()
    g.stack.push(PlayerBattle(0, [1]))
    bot = HeuristicBot(0)
    t.expect(0, "cloak")
    knowledge = t.table.knowledge(0)
    assert bot.choose(g, 0, knowledge, t.legal(0)) == {"type": "fight"}  # nothing it needs to lose
    give(g, 0, "flying_ford_anglia")
    assert bot.choose(g, 0, knowledge, t.legal(0)) == CLOAK_TOKEN
    t.act(0, CLOAK_TOKEN, "cloak")
    assert bot.choose(g, 0, knowledge, t.legal(0)) in t.legal(0)  # its escape heads for its goals
