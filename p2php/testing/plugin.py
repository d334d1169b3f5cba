"""The pytest plugin of :mod:`p2php.testing`: the ``mode`` fixture that runs a scenario test twice.

Register it with ``pytest_plugins = ["p2php.testing.plugin"]`` in a ``conftest.py``,
then opt a module in with ``pytestmark = pytest.mark.usefixtures("mode")`` (or ask
for ``mode`` as an argument): each test runs on a trusted local dealer and through
the real protocol (in-memory peers, stacked decks, every frame delivered; every
protocol scenario ends with every peer's audit clean).  It is not autouse, so a
suite's other tests run once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from p2php.testing.scenario import MODES, Mode, scenario_mode


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> Iterator[Mode]:
    """``"engine"`` then ``"protocol"``: scenarios created in the test run in that mode."""
    with scenario_mode(request.param):
        yield request.param
