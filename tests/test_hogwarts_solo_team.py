"""A Year at Hogwarts alone (``mode=solo``, C-11) and in teams (``mode=team``, C-8–C-10): set-up, the Death
Eaters a solo player cannot pass, Snitch practice, the end of a solo game won or lost, and seeded sweeps —
engine scenarios with fixed dice, one game through the real protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hogwarts_stacking import tops_first
from test_hogwarts_quidditch import dice
from test_hogwarts_rules import READS

from p2php.engine.contract import CardId, Decide, GameOver, OptionError, Shuffle
from p2php.engine.local import LocalTable
from p2php.engine.tasks import Task, TaskStack
from p2php.games.hogwarts.battle import Battle
from p2php.games.hogwarts.death_eaters import death_eater_player
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.mission_flow import MissionAttempt
from p2php.games.hogwarts.quidditch import Challenge
from p2php.games.hogwarts.rules import constraints, location_cells, meets_goal, mission_of, opponents_at
from p2php.games.hogwarts.snitch_practice import PRACTICE_POINTS
from p2php.games.hogwarts.state import HogwartsState
from p2php.testing.scenario import Scenario

TOKENS = b"tokens" * 6
TOWERS = b"towers" * 6


class Solo(Scenario):
    """A solo game at ``difficulty`` with stacked decks, the sheet chosen and (qualified) the Death Eaters
    placed where the joint draw and the player's missions put them."""

    state: HogwartsState
    wrap = (Task, TaskStack)

    def __init__(self, difficulty: str = "qualified", tops: dict[str, list[str]] | None = None, sheet: int = 1,
                 random: Sequence[bytes] = (), mode: Any = "engine", seed: int = 0) -> None:
        self.tops = tops or {}
        fixed = (TOKENS, TOWERS, *random) if difficulty == "qualified" else (TOKENS, *random)
        super().__init__(GAME, 1, {"mode": "solo", "difficulty": difficulty}, seed, mode,
                         random=fixed if mode == "engine" else (), reads=READS)
        self.act(0, {"type": "character", "sheet": sheet}, "character")
        if difficulty == "qualified":
            self.act(0, self.legal(0)[0], "death_eaters")

    def arrange(self, step: Shuffle) -> list[CardId]:
        return tops_first(step, self.tops)

    def push_task(self, task: Task[Any]) -> None:
        self.decide()
        self.state.stack.push(task)

    def first_legal_until(self, prompts: Sequence[str]) -> Decide | GameOver:
        while True:
            step = self.step()
            assert isinstance(step, Decide | GameOver)
            if isinstance(step, GameOver) or step.prompt in prompts:
                return step
            self.act(step.seats[0], self.legal(step.seats[0])[0])


# ----------------------------------------------------------------------------- solo


def test_solo_is_played_by_one_player_and_other_tables_need_two() -> None:
    with pytest.raises(OptionError, match="solo is played by 1 player"):
        GAME.new_state(2, {"mode": "solo"})
    with pytest.raises(OptionError, match="2–9 players"):
        GAME.new_state(1, {"mode": "qualified"})
    with pytest.raises(OptionError, match="difficulty"):
        GAME.new_state(1, {"mode": "solo", "difficulty": "expert"})


def test_solo_qualified_death_eaters_avoid_the_player_s_missions_and_cannot_be_entered() -> None:
    """Missions 1 and 24 are on the Astronomy Tower, 29 on the Clock Tower: no Death Eater goes there; the
    six are the first drawn towers left, and they are impassable (C-11)."""
    t = Solo(tops={"mission": ["M01", "M24", "M29"]})
    g = t.state
    t.decide()
    assert g.powder == [1] and g.portals == [1] and len(g.death_eaters) == 6
    known = t.table.knowledge(0)
    homes = {c for s in g.missions[0] for m in [mission_of(g, s, known)] if m for c in location_cells(m.location)}
    assert {"astronomy_tower", "clock_tower"} <= homes and not homes & set(g.death_eaters)
    assert not any(t.table.knowledge(0).face(s) is None for s in g.missions[0]) and not g.pub  # still secret
    rules = constraints(g, 0)
    assert rules.impassable == frozenset(g.death_eaters) and not rules.occupied


def test_solo_underage_has_no_death_eaters_and_two_flying_powder_tokens() -> None:
    t = Solo("underage")
    t.decide()
    assert t.state.death_eaters == [] and t.state.powder == [2]


def test_snitch_practice_caught_within_four_rolls_scores_40_and_counts_as_a_match() -> None:
    t = Solo(random=(dice(6, 6), dice(6, 6)))
    g = t.state
    t.decide()
    g.pos[0] = "quidditch_pitch"
    t.push_task(Challenge(0))
    assert t.legal(0) == [{"type": "no_match"}, {"type": "practice"}]
    t.act(0, {"type": "practice"}, "challenge")
    t.expect(0, "start_card")
    assert g.points == [PRACTICE_POINTS] and g.matches == [1]


def test_snitch_practice_missed_after_four_rolls_scores_nothing_but_counts() -> None:
    t = Solo(random=(dice(1, 1),) * 4)
    g = t.state
    t.decide()
    g.pos[0] = "quidditch_pitch"
    t.push_task(Challenge(0))
    t.act(0, {"type": "practice"}, "challenge")
    t.expect(0, "start_card")
    assert g.points == [0] and g.matches == [1]
    assert [e for e in g.events if e[0] == "seeker"][-1][3] == 8


def test_a_solo_defeat_ends_the_game_as_a_loss() -> None:
    t = Solo()
    g = t.state
    g.lp[0] = 2
    t.push_task(Battle([0], "BA06", "mission", 3))  # Tom Riddle: 2 LP lost when he is revealed
    step = t.first_legal_until([])
    assert isinstance(step, GameOver) and step.winners == () and g.defeats == [1]


def test_a_solo_game_is_won_at_the_end_of_the_turn_that_meets_the_goal() -> None:
    t = Solo()
    g = t.state
    t.decide()
    g.done[0], g.points[0] = [3], 250
    assert not meets_goal(g, 0)  # no Snitch practice yet (qualified)
    g.matches[0] = 1
    step = t.first_legal_until([])
    assert isinstance(step, GameOver) and step.winners == (0,)


def test_a_solo_game_through_the_protocol_ends_with_a_clean_audit() -> None:
    t = Solo(mode="protocol", seed=2)
    bots = {0: GAME.make_bot("heuristic", 0)}
    for _ in range(4000):
        step = t.step()
        if isinstance(step, GameOver):
            break
        assert isinstance(step, Decide)
        peer = t.table.peers[0].state
        known = t.table.knowledge(0)
        t.table.act([(0, bots[0].choose(peer, 0, known, peer.legal_actions(0, known)))])
    assert isinstance(step, GameOver)
    t.finish()


def test_seeded_solo_games_end_won_or_lost() -> None:
    """Engine only, heuristic bots, both difficulties, every length: each game ends; a win meets the goal
    (with a Snitch practice when qualified), a loss follows a defeat."""
    wins = 0
    for seed in range(18):
        difficulty, length = ("underage", "qualified")[seed % 2], ("quick", "classic", "long")[seed // 6]
        st = GAME.new_state(1, {"mode": "solo", "difficulty": difficulty, "length": length})
        result = LocalTable(st, seed).play({0: GAME.make_bot("heuristic", seed)})
        if result.winners:
            wins += 1
            assert meets_goal(st, 0) and (difficulty == "underage" or st.matches[0]), seed
        else:
            assert st.defeats == [1], seed
    assert wins >= 6


# ----------------------------------------------------------------------------- team mode


class Team(Scenario):
    """A team game (seat s in team s % teams) with stacked decks, the sheets chosen, the Death Eaters placed."""

    state: HogwartsState
    wrap = (Task, TaskStack)

    def __init__(self, players: int = 4, teams: int = 2, tops: dict[str, list[str]] | None = None,
                 random: Sequence[bytes] = (), mode: Any = "engine", seed: int = 0) -> None:
        self.tops = tops or {}
        super().__init__(GAME, players, {"mode": "team", "teams": teams}, seed, mode,
                         random=(TOKENS, *random) if mode == "engine" else (), reads=READS)
        for seat in range(players):
            self.act(seat, {"type": "character", "sheet": seat + 1}, "character")
        for k, cell in enumerate(("clock_tower", "boathouse_tower", "viaduct_tower", "dada_tower", "hospital_tower",
                                  "bell_tower")):
            self.act(k % players, {"type": "death_eater", "cell": cell}, "death_eater")

    arrange = Solo.arrange
    push_task = Solo.push_task
    first_legal_until = Solo.first_legal_until


def test_teams_are_of_two_or_three_players_seated_alternately() -> None:
    with pytest.raises(OptionError, match="teams of 2 or 3"):
        GAME.new_state(3, {"mode": "team", "teams": 2})
    with pytest.raises(OptionError, match="teams of 2 or 3"):
        GAME.new_state(7, {"mode": "team", "teams": 2})
    assert GAME.new_state(5, {"mode": "team", "teams": 2}).team == [0, 1, 0, 1, 0]
    assert GAME.new_state(3, {"mode": "team", "teams": 1}).team == [0, 0, 0]  # one team of everyone (C-9)


def test_teammates_see_each_other_s_missions_and_never_fight() -> None:
    t = Team()
    g = t.state
    t.decide()
    assert g.powder == [1] * 4 and g.death_eaters
    assert all(t.table.knowledge(2).face(s) is not None for s in g.missions[0])
    assert not any(t.table.knowledge(1).face(s) for s in g.missions[0])
    g.pos[0] = g.pos[1] = g.pos[2] = "m003"
    assert opponents_at(g, 0, "m003") == [1]  # not seat 2, a teammate (C-18)
    assert [death_eater_player(g, s) for s in range(4)] == [3, 0, 1, 2]


def test_a_team_mission_needs_every_member_there_and_the_team_fights_it_together() -> None:
    """Seat 0 holds mission 4 (Flying Ford Anglia, an attack potion); seat 2, its teammate, holds the token
    and must stand there too.  The members show their cards in turn, the enemy's LP are doubled, and the
    shared total is the team's."""
    t = Team(tops={"mission": ["M04"]})
    g = t.state
    t.decide()
    g.held[2].append("flying_ford_anglia")
    g.pos[0] = "whomping_willow"
    mission = g.missions[0][0]
    t.push_task(MissionAttempt(0))
    t.expect(0, "start_card")  # seat 2 is elsewhere: nothing asked
    g.pos[2] = "whomping_willow"
    t.push_task(MissionAttempt(0))
    t.act(0, {"type": "mission", "slot": mission}, "mission")
    assert t.decide() == Decide((0,), "mission_cards")
    t.act(0, max(t.legal(0), key=lambda a: len(a.get("slots", []))), "mission_cards")
    t.act(2, max(t.legal(2), key=lambda a: len(a.get("slots", []))), "mission_cards")
    battle = g.stack.top
    assert isinstance(battle, Battle) and battle.participants == [0, 2] and battle.start_lp == 2 * battle.card(g).lp
    assert battle.limit == 2
    t.first_legal_until(["hand_in"])
    assert "flying_ford_anglia" not in g.held[2]


def test_a_member_may_wait_on_a_mission_s_location_without_its_effect() -> None:
    t = Team()
    g = t.state
    t.decide()
    g.pos[0] = "whomping_willow"
    t.act(0, {"type": "no_start"}, "start_card")
    t.decide()
    roll = t.state.stack.top.rolls[0]  # type: ignore[attr-defined]
    wait = {"type": "move", "path": ["whomping_willow"], "roll": roll, "wait": True}
    assert wait in t.legal(0)
    t.act(0, wait, "move")
    t.expect(1, "start_card")
    assert g.pos[0] == "whomping_willow"


def test_a_team_wins_with_the_missions_and_more_than_the_threshold_times_its_members() -> None:
    t = Team()
    g = t.state
    t.decide()
    g.done[2], g.points[0], g.points[2] = [4], 300, 121  # quick: 1 mission, more than 210 x 2
    assert meets_goal(g, 0) and meets_goal(g, 2) and not meets_goal(g, 1)
    g.points[2] = 120
    assert not meets_goal(g, 0)
    g.points[2] = 121
    step = t.first_legal_until([])
    assert isinstance(step, GameOver) and step.winners == (0, 2) and step.scores[0] == step.scores[2] >= 421


def test_seeded_team_games_end() -> None:
    """Engine only, heuristic bots: 2 teams at 4 and 5 seats, 3 teams at 6, one team of 3 (C-9, which may lose)."""
    for seed, (players, teams) in enumerate([(4, 2), (5, 2), (6, 3), (3, 1), (4, 2), (6, 2)]):
        st = GAME.new_state(players, {"mode": "team", "teams": teams})
        result = LocalTable(st, seed).play({s: GAME.make_bot("heuristic", f"{seed}/{s}") for s in range(players)})
        if teams > 1:
            assert result.winners and all(meets_goal(st, w) for w in result.winners), seed
            assert {st.team[w] for w in result.winners} <= set(st.team)
        assert result.scores == tuple(sum(st.points[m] for m in range(players) if st.team[m] == st.team[s])
                                      for s in range(players))


def test_teammates_missions_are_shown_through_the_protocol_to_them_only() -> None:
    """Through the real protocol (the private Show): seat 2 learns seat 0's missions, seat 1 and seat 3 (the
    other team) do not; every peer's audit is clean."""
    t = Team(mode="protocol", seed=3)
    g = t.state
    t.decide()
    for owner in range(4):
        for viewer in range(4):
            known = [t.table.knowledge(viewer).face(s) is not None for s in g.missions[owner]]
            assert all(known) if g.team[owner] == g.team[viewer] else not any(known)
    t.finish()
