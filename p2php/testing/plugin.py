"""The pytest plugin of :mod:`p2php.testing`: the ``mode`` fixture that runs a scenario test twice.

Register it with ``pytest_plugins = ["p2php.testing.plugin"]`` in a ``conftest.py``,
then opt a module in with ``pytestmark = pytest.mark.usefixtures("mode")`` (or ask
for ``mode`` as an argument): each test runs on a trusted local dealer and through
the real protocol (in-memory peers, stacked decks, every frame delivered; every
protocol scenario ends with every peer's audit clean).  It is not autouse, so a
suite's other tests run once.

The plugin also chooses the deck protocol of every table a test builds without naming one: the library's default
(``verified`` where coincurve is installed), or the mode in the environment variable ``P2PHP_TEST_CRYPTO``
(``fast`` or ``verified``), so that one suite can be run in both modes. The header of the run says which. A test
about one deck's own mechanics pins it with the marker ``@pytest.mark.crypto("fast")`` (or a module's
``pytestmark``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from p2php.testing.scenario import MODES, Mode, scenario_mode


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> Iterator[Mode]:
    """``"engine"`` then ``"protocol"``: scenarios created in the test run in that mode."""
    with scenario_mode(request.param):
        yield request.param


CRYPTO_VARIABLE = "P2PHP_TEST_CRYPTO"


def pytest_configure(config: pytest.Config) -> None:
    """Tables built without a ``crypto`` option deal in the mode ``P2PHP_TEST_CRYPTO`` names, if it names one."""
    from p2php.session import modes

    config.addinivalue_line("markers", "crypto(mode): tables the test builds without naming a mode deal in mode")
    wanted = os.environ.get(CRYPTO_VARIABLE, "").strip()
    if not wanted:
        return
    if wanted not in modes.CRYPTO_MODES:
        raise pytest.UsageError(f"{CRYPTO_VARIABLE}={wanted[:20]!r}: use one of {', '.join(modes.CRYPTO_MODES)}")
    modes.DEFAULT_CRYPTO = wanted


def pytest_report_header(config: pytest.Config) -> str:
    from p2php.session import modes

    return f"p2php: tables deal crypto={modes.DEFAULT_CRYPTO} unless a test names a mode ({CRYPTO_VARIABLE})"


@pytest.fixture(autouse=True)
def _crypto_marker(request: pytest.FixtureRequest) -> Iterator[None]:
    """Apply a test's ``crypto(mode)`` marker for its duration."""
    marker = request.node.get_closest_marker("crypto")
    if marker is None:
        yield
        return
    from p2php.session import modes

    mode = marker.args[0] if marker.args else ""
    if mode not in modes.CRYPTO_MODES:
        raise pytest.UsageError(f"crypto marker: use one of {', '.join(modes.CRYPTO_MODES)}, not {mode!r}")
    saved, modes.DEFAULT_CRYPTO = modes.DEFAULT_CRYPTO, mode
    try:
        yield
    finally:
        modes.DEFAULT_CRYPTO = saved
