"""Games are found by entry point (group ``p2php.games``): the core names none of them (issue 9)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from p2php.engine import registry
from p2php.engine.contract import OptionError


def test_the_built_in_games_are_installed_entry_points() -> None:
    installed = registry._installed()
    assert installed["uno"] == "p2php.games.uno" and installed["hpsha"] == "p2php.games.hpsha"
    assert {"uno", "hpsha"} <= set(registry.game_names())
    assert registry.get_game("hpsha").name == "hpsha"


def test_the_registry_code_names_no_game() -> None:
    tree = ast.parse(Path(registry.__file__).read_text())
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    code_strings = strings[1:]  # the module docstring shows an example entry point
    assert not [s for s in code_strings if "p2php.games." in s or s in ("uno", "hpsha")], code_strings


def test_an_unknown_game_lists_the_known_ones() -> None:
    with pytest.raises(OptionError, match=r"unknown game 'chess' \(known: .*hpsha.*uno"):
        registry.get_game("chess")
