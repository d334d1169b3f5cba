import sys
from importlib.metadata import entry_points
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import toygame  # noqa: E402,F401  (registers the "toy" game)

# the engine/protocol ``mode`` fixture: an installed p2php registers it by entry point (pyproject), a stale
# editable install does not yet
if not any(ep.value == "p2php.testing.plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins = ["p2php.testing.plugin"]
