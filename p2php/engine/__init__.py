"""The engine contract (sans-IO): games as deterministic state machines."""

from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    Game,
    GameOver,
    GameState,
    IllegalAction,
    Knowledge,
    OptionError,
    OptionSpec,
    Randomness,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.registry import game_names, get_game, register

__all__ = [
    "Action", "CardId", "Deal", "Decide", "Game", "GameOver", "GameState", "IllegalAction",
    "Knowledge", "OptionError", "OptionSpec", "Randomness", "Reshuffle", "Reveal", "Seat", "Show", "Shuffle",
    "Slot", "Step", "game_names", "get_game", "register",
]
