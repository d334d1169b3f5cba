"""UNO Harry Potter: card universe, options, registry, bots."""

from __future__ import annotations

import pytest

from p2php.bots import RandomBot
from p2php.engine.contract import OptionError
from p2php.engine.registry import game_names, get_game
from p2php.games.uno import HeuristicBot, UnoGame
from p2php.games.uno.cards import (
    DRAW_TWO,
    INVISIBILITY,
    NUMBER,
    RESURRECTION_STONE,
    VOLDEMORT,
    WILD,
    deck,
    find,
)

GAME = get_game("uno")


def test_registered() -> None:
    assert "uno" in game_names()
    assert isinstance(GAME, UnoGame)
    assert GAME.min_players == 2 and GAME.max_players == 10
    assert GAME.bot_kinds[:2] == ("random", "heuristic")


@pytest.mark.parametrize(
    ("name", "size", "penalty"),
    [("base", 108, 2), ("hat", 112, 2), ("voldemort", 112, 2), ("magic", 112, 3), ("all", 120, 3)],
)
def test_deck_sizes(name: str, size: int, penalty: int) -> None:
    d = deck(name)
    assert d.size == size == GAME.universe_size({"deck": name})
    assert d.draw_penalty == penalty
    assert sum(1 for k in d.kind if k == NUMBER) == 76
    assert len(d.draw_twos) == 8
    assert len(set(d.names)) < d.size  # physical duplicates share a name
    for c in range(d.size):
        assert GAME.card_name(c, {"deck": name}) == d.names[c]


def test_number_split_and_points() -> None:
    d = deck("all")
    for colour in ("blue", "green", "yellow", "red"):
        assert len(find(d, f"{colour} 0")) == 1
        for v in range(1, 10):
            assert len(find(d, f"{colour} {v}")) == 2
        for kind in ("draw two", "reverse", "skip"):
            ids = find(d, f"{colour} {kind}")
            assert len(ids) == 2 and all(d.points[i] == 20 for i in ids)
    assert d.points[find(d, "red 7")[0]] == 7
    for name in ("Wild", "Wild Draw Four", "Sorting Hat", "Voldemort"):
        ids = find(d, name)
        assert len(ids) == 4 and all(d.points[i] == 50 and d.colour[i] == -1 for i in ids)
    for name in ("Howler", "Invisibility", "Moody", "Resurrection Stone"):
        ids = find(d, name)
        assert len(ids) == 1 and d.points[ids[0]] == 50 and d.kind[ids[0]] >= WILD
    assert d.kind[d.invisibility] == INVISIBILITY and d.kind[d.stone] == RESURRECTION_STONE
    assert deck("base").invisibility == -1 and deck("hat").stone == -1
    assert all(d.kind[i] == DRAW_TWO for i in d.draw_twos)
    assert sum(1 for k in deck("voldemort").kind if k == VOLDEMORT) == 4


def test_card_order_is_fixed() -> None:
    d = deck("base")
    assert d.names[:4] == ("blue 0", "blue 1", "blue 1", "blue 2")
    assert d.names[19:25] == ("blue draw two",) * 2 + ("blue reverse",) * 2 + ("blue skip",) * 2
    assert d.names[25] == "green 0" and d.names[100] == "Wild" and d.names[107] == "Wild Draw Four"
    assert deck("magic").names[108:] == ("Howler", "Invisibility", "Moody", "Resurrection Stone")
    assert deck("all").names[108:112] == ("Sorting Hat",) * 4
    assert deck("all").names[112:116] == ("Voldemort",) * 4


def test_options() -> None:
    opts = GAME.parse_options({})
    assert opts == {
        "deck": "base", "rounds": 0, "scoring": "positive", "stacking": "off", "target": 500,
        "voldemort_faces": "1,5,0", "reverse2": "reverse",
    }
    assert GAME.parse_options({"target": "300", "deck": "all"})["target"] == 300
    for bad in ({"deck": "mega"}, {"stacking": "maybe"}, {"colour": "red"}, {"target": "x"},
                {"voldemort_faces": "1,2"}, {"target": 0}, {"rounds": -1}, {"reverse2": "twice"}):
        with pytest.raises(OptionError):
            GAME.new_state(2, bad)
    with pytest.raises(OptionError):
        GAME.new_state(1, {})
    with pytest.raises(OptionError):
        GAME.new_state(11, {})
    with pytest.raises(ValueError):
        GAME.card_name(108, {"deck": "base"})


def test_make_bot() -> None:
    assert isinstance(GAME.make_bot("random", 1), RandomBot)
    assert isinstance(GAME.make_bot("heuristic", 1), HeuristicBot)
    with pytest.raises(OptionError):
        GAME.make_bot("genius", 1)
