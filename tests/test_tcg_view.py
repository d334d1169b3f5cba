"""The TCG's terminal view: each side's Character, Lessons (counted), Creatures with damage, piles, your hand."""

from __future__ import annotations

from p2php.games.tcg.view import table_lines


def test_the_table_reads_as_sentences_not_a_dict() -> None:
    obs = {"turn": 1, "first": 0, "turns": 3, "hand": ["Accio", "Charms"], "sides": [
        {"character": "Hermione Granger", "characters": [], "deck": 30, "hand": 2, "lessons": ["Charms", "Charms"],
         "creatures": [], "items": [], "adventure": None, "discard": ["Accio"]},
        {"character": "Draco Malfoy", "characters": ["Dean Thomas"], "deck": 28, "hand": 5,
         "lessons": ["Care of Magical Creatures", "Potions"], "creatures": [["Forest Troll", 2], ["Curious Raven", 0]],
         "items": ["Wand Shop"], "adventure": "Unusual Pets", "discard": []},
    ]}
    lines = table_lines(obs, 0, ["ann", "bob"])
    text = "\n".join(lines)
    assert lines[0].startswith("   ann  (you) — Hermione Granger   deck 30   hand 2   discard 1")
    assert "Lessons: 2 Charms" in text and " ▶ bob — Draco Malfoy" in text
    assert "Creatures: Forest Troll (2 damage), Curious Raven" in text
    assert "Items: Wand Shop" in text and "Adventure: Unusual Pets" in text and "Characters: Dean Thomas" in text
    assert lines[-1] == "  Your hand: Accio, Charms"
    assert "{" not in text  # no raw observation



def test_every_prompt_the_tcg_asks_has_words() -> None:
    """Every ``Decide`` prompt written in the package (and the Homework task's) is a question in words for the
    terminal (``describe_prompt``)."""
    import p2php.games.tcg as package
    from p2php.games.tcg.view import PROMPTS, prompt_words
    from p2php.testing.prompts import prompts_in_source

    prompts = prompts_in_source(package) | {"homework", "second_lesson"}
    assert len(prompts) > 15
    assert sorted(p for p in prompts if p not in PROMPTS) == []
    assert prompt_words("solve") == "solve the adventure?"
