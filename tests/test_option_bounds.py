"""A host's numeric options are bounded: every seat accepts the host's options in the hello, so a made-up
``max_turns`` of a million (HP Sha) or a UNO ``target`` of 10**18 would let a host and one ally keep the other
seats at a table that does not end."""

from __future__ import annotations

import pytest

from p2php.engine.contract import OptionError
from p2php.engine.registry import get_game
from p2php.games.hpsha import MAX_TURNS_LIMIT
from p2php.games.uno import ROUNDS_LIMIT, TARGET_LIMIT
from p2php.lobby import Table


@pytest.mark.parametrize(("game", "players", "key", "ok", "too_many"), [
    ("hpsha", 5, "max_turns", MAX_TURNS_LIMIT, MAX_TURNS_LIMIT + 1),
    ("uno", 3, "target", TARGET_LIMIT, TARGET_LIMIT + 1),
    ("uno", 3, "rounds", ROUNDS_LIMIT, ROUNDS_LIMIT + 1),
    ("uno", 3, "target", TARGET_LIMIT, 10**18),
])
def test_a_numeric_option_has_an_upper_bound(game, players, key, ok, too_many):
    g = get_game(game)
    g.new_state(players, {key: ok})
    with pytest.raises(OptionError, match=f"option {key}: .* to {ok}"):
        g.new_state(players, {key: too_many})
    with pytest.raises(OptionError):
        g.new_state(players, {key: str(too_many)})  # as a CLI or lobby string


def test_a_lobby_table_with_an_option_past_its_bound_does_not_start():
    table = Table(get_game("uno"), {"target": 10**18}, 2, "host")
    assert table.problem() == f"option target: 1 to {TARGET_LIMIT}"
    assert not table.can_start()
