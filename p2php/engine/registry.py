"""Games are registered by name, so adding a game never touches the core."""

from __future__ import annotations

import importlib

from p2php.engine.contract import Game, OptionError

_GAMES: dict[str, Game] = {}
_BUILTIN = {"uno": "p2php.games.uno", "hpsha": "p2php.games.hpsha"}


def register(game: Game) -> Game:
    """Register a game instance under its ``name`` (returns it, usable as a decorator helper)."""
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name`` (built-in games are imported on first use)."""
    if name not in _GAMES and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(set(_GAMES) | set(_BUILTIN)))
        raise OptionError(f"unknown game {name!r} (known: {known})") from None


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
    return sorted(set(_GAMES) | set(_BUILTIN))
