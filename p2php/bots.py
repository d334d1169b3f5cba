"""Bots: automated decision makers that see only what their seat may see.

A bot is handed the public state, its own :class:`~p2php.engine.contract.Knowledge`
and the list of legal actions, and returns one of them.  It never sees the
dealer's or another peer's secrets: in a networked game it runs inside its own
peer, with that peer's keys, exactly like a person would.
"""

from __future__ import annotations

# Both live with the engine contract, whose default ``Game.make_bot`` returns a RandomBot; this module is their
# public name.
import secrets

from p2php.engine.contract import Bot, Game, RandomBot

__all__ = ["Bot", "RandomBot", "bot_seed", "default_kind"]


def default_kind(game: Game) -> str:
    """The bot kind used when none is asked for: the game's ``heuristic`` bot if it has one, else ``random``."""
    return "heuristic" if "heuristic" in game.bot_kinds else "random"


def bot_seed(seed: object | None, seat: int) -> str:
    """The seed of the bot playing ``seat`` at a table other people play at: ``{seed}/{seat}`` when a seed is
    given (tests and demos: reproducible, and not secret), else a fresh secret one. A bot's choices are a function
    of its seed and what its seat sees, so an opponent who knows the seed (``None/1``, ``host/1``, ``resumed/1``
    before) can replay the bot for every hand it might hold and keep those that make the choices it saw."""
    return f"{seed}/{seat}" if seed is not None else secrets.token_hex(16)
