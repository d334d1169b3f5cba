"""The games under examples/ as modules, loaded once by path (their import registers them)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TINY_GAME = EXAMPLES / "tiny_game.py"


def load_tiny_game() -> ModuleType:
    """``examples/tiny_game.py`` as the module ``tiny_game_example`` (registers the game "snitch")."""
    if "tiny_game_example" not in sys.modules:
        spec = importlib.util.spec_from_file_location("tiny_game_example", TINY_GAME)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["tiny_game_example"]
