"""Games are registered by name, so adding a game never touches the core.

A game package announces itself with an entry point in the ``p2php.games`` group
(name = the game's name, value = the module whose import registers it), so the core
lists no game: UNO and HP Sha are found the same way a game from another package is.

    [project.entry-points."p2php.games"]
    uno = "p2php.games.uno"
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import entry_points

from p2php.engine.contract import Game, OptionError

GROUP = "p2php.games"
_GAMES: dict[str, Game] = {}


@functools.cache
def _installed() -> dict[str, str]:
    """Games installed as ``p2php.games`` entry points: name -> the module that registers it."""
    return {ep.name: ep.value for ep in entry_points(group=GROUP)}


def register(game: Game) -> Game:
    """Register a game instance under its ``name`` (returns it, usable as a decorator helper)."""
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name`` (an installed game's module is imported on first use)."""
    if name not in _GAMES and name in _installed():
        importlib.import_module(_installed()[name])
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(game_names())
        raise OptionError(f"unknown game {name!r} (known: {known or 'none installed'})") from None


def parse_option_pairs(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``["deck=hat", ...]`` (command-line ``--option`` values) to a dict of raw option strings."""
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise OptionError(f"--option needs key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def game_names() -> list[str]:
    """Every game registered or installed."""
    return sorted(set(_GAMES) | set(_installed()))
