"""Bots: automated decision makers that see only what their seat may see.

A bot is handed the public state, its own :class:`~p2php.engine.contract.Knowledge`
and the list of legal actions, and returns one of them.  It never sees the
dealer's or another peer's secrets: in a networked game it runs inside its own
peer, with that peer's keys, exactly like a person would.
"""

from __future__ import annotations

# Both live with the engine contract, whose default ``Game.make_bot`` returns a RandomBot; this module is their
# public name.
from p2php.engine.contract import Bot, Game, RandomBot

__all__ = ["Bot", "RandomBot", "default_kind"]


def default_kind(game: Game) -> str:
    """The bot kind used when none is asked for: the game's ``heuristic`` bot if it has one, else ``random``."""
    return "heuristic" if "heuristic" in game.bot_kinds else "random"
