"""A Year at Hogwarts as an engine game: options, set-up per length and table size, secret missions and hands,
the conformance check, and seeded bot games that all finish with a winner."""

from __future__ import annotations

import pytest

from p2php.engine.contract import Decide, GameOver, OptionError, Shuffle
from p2php.engine.local import LocalTable
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import DECKS, MISSIONS, deck_cards, deck_of_slot
from p2php.games.hogwarts.rules import meets_goal
from p2php.games.hogwarts.setup import missions_per_player
from p2php.games.hogwarts.state import HogwartsState
from p2php.testing.conformance import check_game

LENGTHS = ("quick", "classic", "long")


def set_up(players: int, length: str = "quick", seed: int = 0) -> tuple[HogwartsState, LocalTable]:
    """A table just after the set-up: every seat has chosen a sheet (the first unused one)."""
    st = GAME.new_state(players, {"length": length})
    tb = LocalTable(st, seed)
    while True:
        step = tb.run_chance()
        assert isinstance(step, Decide)
        if step.prompt != "character":
            return st, tb
        seat = step.seats[0]
        tb.act([(seat, st.legal_actions(seat, tb.knowledge(seat))[0])])


# ----------------------------------------------------------------------------- options


def test_options_players_and_names() -> None:
    assert GAME.parse_options({}) == {"difficulty": "underage", "dodge": False, "length": "quick", "mode": "underage",
                                      "teams": 2}
    with pytest.raises(OptionError, match="length"):
        GAME.new_state(2, {"length": "endless"})
    for bad in (1, 10):
        with pytest.raises(OptionError, match="2–9 players"):
            GAME.new_state(bad, {})
    assert GAME.universe_size({}) == 210  # 180 shuffled cards (the 30 battle cards are public) + 30 missions
    names = {GAME.card_name(c, {}) for c in range(210)}
    assert "Stupefy" in names and "mission 6: Destroy the First Horcrux: Tom Riddle's Diary" in names
    assert GAME.bot_kinds == ("random", "heuristic")
    with pytest.raises(OptionError):
        GAME.make_bot("clever", 0)


# ----------------------------------------------------------------------------- set-up


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("players", [2, 6, 7, 9])
def test_set_up_counts(players: int, length: str) -> None:
    st, tb = set_up(players, length)
    shuffles = [s for kind, s in tb.log if kind == "Shuffle"]
    assert [s.purpose for s in shuffles if isinstance(s, Shuffle)] == [*DECKS, MISSIONS]  # battle cards: never
    assert sorted(st.sheet) == list(range(1, players + 1))
    per = missions_per_player(players)
    assert per == (3 if players > 6 else 5)
    dealt = {d: 0 for d in DECKS}
    for seat in range(players):
        sheet = st.student(seat)
        assert st.lp[seat] == sheet.lp and st.pos[seat] == "start"
        assert (st.powder[seat], st.portals[seat]) == (2, 1)  # underage (data §3.2)
        assert len(st.missions[seat]) == per and st.done[seat] == []
        held = [deck_of_slot(s) for s in st.hand[seat]]
        assert {d: held.count(d) for d in ("spell", "potion", "book")} == dict(sheet.start_cards)
        for d in held:
            dealt[d] += 1
    for deck in DECKS:
        assert len(st.deck[deck]) == len(deck_cards(deck)) - dealt[deck]
    assert len(st.deck[MISSIONS]) == 30 - per * players
    laid = sorted(t for tokens in st.tokens.values() for t in tokens)
    assert laid == sorted(st.data.object_tokens)
    stars = {c.id for c in st.data.cells.values() if c.kind == "star"}
    assert set(st.tokens) == stars and all(len(t) == 1 for t in st.tokens.values())
    assert (st.supply["powder"], st.supply["portal"]) == (20 - 2 * players, 10 - players)
    assert not st.pub  # nothing opened yet


def test_missions_and_hands_are_secret_to_their_holder() -> None:
    st, tb = set_up(4)
    for seat in range(4):
        mine = tb.knowledge(seat)
        for other in range(4):
            slots = st.missions[other] + st.hand[other]
            known = [mine.face(s) is not None for s in slots]
            assert all(known) if other == seat else not any(known)
        view = st.observation(seat, mine)
        assert all(m is not None for m in view["players"][seat]["missions"])
        assert all(view["players"][o]["missions"] == [] for o in range(4) if o != seat)


def test_the_goal_of_each_length() -> None:
    st, _ = set_up(2)
    for length, (missions, points) in {"quick": (1, 210), "classic": (2, 260), "long": (3, 320)}.items():
        st.options["length"] = length
        st.done[0], st.points[0] = list(range(1, missions + 1)), points
        assert not meets_goal(st, 0)  # "more than" the points
        st.points[0] = points + 1
        assert meets_goal(st, 0)
        st.done[0] = st.done[0][:-1]
        assert not meets_goal(st, 0)


# ----------------------------------------------------------------------------- whole games


def test_the_game_conforms_to_the_engine_contract() -> None:
    """Random bots play long games (thousands of decisions): the larger tables are checked at every 7th or
    11th decision, and at 9 seats on a seed whose game stays short enough for the suite."""
    check_game(GAME, (2,), range(2), every=5)
    check_game(GAME, (4,), range(1), every=7)
    check_game(GAME, (9,), range(5, 6), every=11)
    check_game(GAME, (3,), range(1), {"dodge": True}, every=7)


def test_the_same_seed_gives_the_same_game() -> None:
    def play(seed: int) -> tuple[GameOver, bytes]:
        st = GAME.new_state(3, {})
        result = LocalTable(st, seed).play({s: GAME.make_bot("heuristic", s) for s in range(3)})
        return result, st.state_hash()

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_two_hundred_seeded_bot_games_finish_with_a_winner() -> None:
    """Engine only, heuristic bots at 2 and 3 seats, quick games; longer sweeps: benchmarks/hogwarts_sweep.py."""
    for seed in range(200):
        players = 2 + seed % 2
        st = GAME.new_state(players, {})
        result = LocalTable(st, seed).play({s: GAME.make_bot("heuristic", f"{seed}/{s}") for s in range(players)})
        assert result.winners, f"seed {seed}: no winner"
        assert all(meets_goal(st, w) or w in st.qualified for w in result.winners)
        assert result.scores == tuple(st.points)


def test_the_terminal_view_shows_the_seat_its_own_cards_only() -> None:
    st, tb = set_up(3)
    lines = GAME.table_lines(st.observation(1, tb.knowledge(1)), 1, ["ann", "bob", "cy"])
    assert lines is not None and lines[0].startswith("  A Year at Hogwarts — underage, quick game")
    assert sum("your hand" in line for line in lines) == 1 and sum("your missions" in line for line in lines) == 1
    assert any("bob  (you) — Ron Weasley: Start (entrance to Hogwarts); 8 LP" in line for line in lines)
