"""The testing kit for games on p2php: stacked decks, scenarios in two modes, a conformance check.

Like ``trio.testing``, it ships with the library so that every game's repository
tests the same way, and so that the trust core holds no test switch: test doubles
are handed in at construction (a :class:`~p2php.engine.local.Chance` for a local
table, a deck secrets source for real peers), and only this package makes them.

* :mod:`.stacking` — arrangements, :class:`StackedChance`, :class:`StackedSecrets`, :class:`StackingError`;
* :mod:`.peers` — :func:`stacked_peers`: real in-memory peers over stacked decks;
* :mod:`.scenario` — :class:`Scenario`, a scripted game run in ``engine`` or ``protocol`` mode;
* :mod:`.protocol`, :mod:`.edits` — the protocol-mode table and its test-only state edits;
* :mod:`.conformance` — :func:`check_game`, the check every game passes;
* :mod:`.network` — real peers over an in-memory network, where trio's autojump clock passes
  every deadline in virtual time (timeout tests that never sleep);
* :mod:`.tasks` — :class:`~p2php.testing.tasks.Capture` (what a task returns) and ``EndHere``;
* :mod:`.plugin` — the pytest ``mode`` fixture;
* :mod:`.secrecy` — :class:`~p2php.testing.secrecy.SecrecyWatch`: real peers learn, and could open, no face before
  the step that grants it;
* :mod:`.prompts` — :func:`~p2php.testing.prompts.prompts_in_source`: the decisions a game's source asks,
  for a test that each has its words (``describe_prompt``);
* :mod:`.hpsha`, :mod:`.uno` — thin helpers for the built-in games.

A game's tests, in short::

    from p2php.testing.conformance import check_game
    from p2php.testing import Scenario

    def test_my_game_conforms():
        check_game(MY_GAME, players=(2, 4), seeds=range(3))

    class Stacked(Scenario):                      # decks in a chosen order
        def arrange(self, step):
            return sorted(step.cards)

    pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol

    def test_opening():
        sc = Stacked(MY_GAME, 2)
        sc.expect(0, "play")
        sc.act(0, {"type": "play", "slot": 0})
        assert sc.over().winners == (0,)        # protocol mode: every audit is checked too

Nothing here is used in real play.
"""

from __future__ import annotations

from p2php.testing.peers import restacked, stacked_peers
from p2php.testing.scenario import MODES, Mode, Scenario, current_mode, scenario_mode
from p2php.testing.stacking import Arrange, StackedChance, StackedSecrets, StackingError

__all__ = [
    "MODES",
    "Arrange",
    "Mode",
    "Scenario",
    "StackedChance",
    "StackedSecrets",
    "StackingError",
    "current_mode",
    "restacked",
    "scenario_mode",
    "stacked_peers",
]
