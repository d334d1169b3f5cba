"""A Year at Hogwarts' decisions read as words: every legal action of seeded bot games, in both built modes,
is described without an internal id (``no_start``, ``to=forest_of_dean``, ``m003``) — the words the log, the
terminal's menus and the browser's buttons show."""

from __future__ import annotations

import re

import pytest

from p2php.engine.contract import GameOver
from p2php.engine.local import LocalTable
from p2php.games.hogwarts.action_words import PROMPTS, cell_name
from p2php.games.hogwarts.data import load
from p2php.games.hogwarts.game import GAME

INTERNAL_ID = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\b\w+=\w+|\{'type'|\b[mdo]\d{3}\b")


@pytest.mark.parametrize(("mode", "players", "seed"), [("underage", 3, 3), ("return_of_voldemort", 3, 5),
                                                      ("qualified", 3, 3), ("team", 4, 3), ("solo", 1, 3)])
def test_every_decision_of_a_bot_game_reads_as_words(mode: str, players: int, seed: int) -> None:
    extra = {"difficulty": "qualified"} if mode == "solo" else {}
    st = GAME.new_state(players, {"mode": mode, **extra})
    tb = LocalTable(st, seed)
    bots = {s: GAME.make_bot("heuristic", f"{seed}/{s}") for s in range(players)}
    kinds: set[str] = set()
    for _ in range(400 if players > 1 else 1200):
        step = tb.run_chance()
        if isinstance(step, GameOver):
            break
        assert st.describe_prompt(step.prompt) != step.prompt, step.prompt  # the terminal's question in words
        answers = []
        for seat in step.seats:
            knowledge = tb.knowledge(seat)
            faces = {**knowledge.public, **knowledge.private}
            legal = st.legal_actions(seat, knowledge)
            for action in legal:
                words = st.describe(seat, action, faces)
                assert not INTERNAL_ID.search(words), (action, words)
                kinds.add(str(action["type"]))
            answers.append((seat, bots[seat].choose(st, seat, knowledge, legal)))
        tb.act(answers)
    assert {"move", "no_start", "character"} <= kinds, kinds


def test_every_prompt_the_engine_asks_has_words() -> None:
    """Every ``Decide`` prompt written in the package (found in its source) has a question in words."""
    import p2php.games.hogwarts as package
    from p2php.testing.prompts import prompts_in_source

    prompts = prompts_in_source(package)
    assert len(prompts) > 40 and {"death_eater", "death_eaters"} <= prompts
    assert sorted(p for p in prompts if p not in PROMPTS) == []


def test_cells_that_share_a_label_get_names_of_their_own() -> None:
    cells = load().cells
    names = [cell_name(c) for c in cells]
    assert len(set(names)) == len(names)
    assert cell_name("m030") == "Dungeons (book cell, by West corridor)"
    assert cell_name("start") == cells["start"].label
