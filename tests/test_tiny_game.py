"""Catch the Snitch (examples/tiny_game.py) tested the way every game is: the conformance check, then
scripted scenarios that run on a trusted dealer and through the real protocol (docs/writing-a-game.md)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

import pytest
from example_games import TINY_GAME, load_tiny_game

from p2php.engine.contract import CardId, Shuffle
from p2php.engine.registry import get_game
from p2php.testing import Scenario
from p2php.testing.agreement import check_agreement
from p2php.testing.conformance import check_game

pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)

snitch = load_tiny_game()
GAME = get_game("snitch")
PLAY = "play a card"


def play(slot: int) -> dict[str, Any]:
    return {"type": "play", "slot": slot}


class Stacked(Scenario):
    """A table whose deck starts with ``top`` (the other cards follow in id order).

    Slots are dealt in order, two per seat: seat 0 gets slots 0 and 1, seat 1 slots 2 and 3 ...;
    the slot after the hands (``2 * players``) is the Snitch.
    """

    def __init__(self, players: int, top: Sequence[CardId], **kw: Any) -> None:
        self.top = list(top)
        super().__init__(GAME, players, **kw)

    def arrange(self, step: Shuffle) -> Sequence[CardId]:
        return self.top + [c for c in step.cards if c not in self.top]


def test_the_game_conforms() -> None:
    check_game(GAME, players=(2, 3, 5), seeds=range(3), clone_every=1)  # a short game: clone at every decision


def test_check_refuses_what_is_not_legal() -> None:
    report = check_agreement(GAME, players=(2, 3), seeds=range(3))
    assert not report.cheats, report.summary()


def test_the_closest_card_catches_the_snitch() -> None:
    sc = Stacked(2, [0, 1, 2, 3, 4])  # seat 0: 1 and 2; seat 1: 3 and 4; the Snitch: 5 of Gryffindor
    sc.expect(0, PLAY)
    view = sc.state.observation(0, sc.table.knowledge(0))
    assert view == {"snitch": "5 of Gryffindor", "turn": 0, "played": {}, "hand": ["1 of Gryffindor", "2 of Slytherin"]}
    assert sc.state.observation(None, sc.table.knowledge(1))["hand"] == []  # a spectator holds nothing
    sc.act(0, play(1), PLAY)  # the 2 misses by 3
    assert sc.table.public[1] == 1  # playing opened the card to everyone
    sc.act(1, play(2), PLAY)  # the 3 misses by 2
    over = sc.over()
    assert (over.winners, over.scores, over.summary) == ((1,), (0, 1), "seat 1 catches the Snitch")


def test_a_tie_goes_to_the_earlier_seat() -> None:
    sc = Stacked(3, [3, 0, 7, 1, 11, 2, 5])  # the Snitch is the 6; seats play the 4, the 8 and the 12
    sc.script([(0, play(0)), (1, play(2)), (2, play(4))])
    assert sc.over().winners == (0,)  # 4 and 8 both miss the 6 by 2


def test_only_the_seat_to_play_plays_and_only_its_own_cards() -> None:
    sc = Stacked(2, [0, 1, 2, 3, 4])
    sc.assert_illegal(0, play(2))  # seat 1's card
    sc.assert_illegal(1, play(2))  # seat 1's card, but seat 0 is to play
    sc.assert_illegal(0, {"type": "pass"})
    assert sc.legal(1) == []
    assert sc.legal(0) == [play(0), play(1)]
    sc.act(0, play(0))
    sc.assert_illegal(1, play(0))  # already on the table
    sc.assert_legal(1, play(3))
    sc.act(1, play(3))
    sc.over()  # protocol mode: a scenario is played to the end, then every peer's audit must be clean


def test_the_seeker_bot_plays_its_card_nearest_the_snitch() -> None:
    sc = Stacked(2, [0, 8, 6, 2, 7], editable=False)  # the Snitch is the 8; editable=False: sc.state is real
    bot = GAME.make_bot("heuristic", 0)
    for seat, nearest in ((0, 1), (1, 2)):  # the 9 (not the 1), then the 7 (not the 3)
        sc.decide()
        assert bot.choose(sc.state, seat, sc.table.knowledge(seat), sc.legal(seat)) == play(nearest)
        sc.act(seat, play(nearest))
    assert sc.over().winners == (0,)  # both miss by 1: the earlier seat
    assert isinstance(sc.state, snitch.SnitchState)


def test_every_code_snippet_of_the_recipe_is_real() -> None:
    """docs/writing-a-game.md quotes code; each ```python / ```toml block must be in the repository as written."""
    root = TINY_GAME.parent.parent
    doc = (root / "docs" / "writing-a-game.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^ *```(?:python|toml)\n(.*?)^ *```", doc, flags=re.S | re.M)
    sources = [p.read_text(encoding="utf-8") for pattern in ("p2php/**/*.py", "tests/*.py", "examples/*.py")
               for p in sorted(root.glob(pattern))] + [(root / "pyproject.toml").read_text(encoding="utf-8")]
    assert len(blocks) >= 20
    for block in blocks:  # as indented in the doc (a method of a class), else as a whole (a line of a table)
        texts = (block, textwrap.dedent(block))
        assert any(text in source for source in sources for text in texts), \
            f"docs/writing-a-game.md quotes code found nowhere:\n{block}"
