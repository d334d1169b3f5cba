"""Compatibility module: the rules now live in :mod:`.state` and the task modules.

Old imports (``from p2php.games.uno.rules import UnoState, HAND_SIZE, T_GAME_OVER``) keep working.
"""

from p2php.games.uno.base import HAND_SIZE
from p2php.games.uno.state import T_GAME_OVER, UnoState

__all__ = ["HAND_SIZE", "T_GAME_OVER", "UnoState"]
