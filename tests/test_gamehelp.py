"""Help on every game's cards, characters, skills, sheets and cells: from the games' data, the same entries for
the terminal's ``? NAME`` and the browser's ``/help/GAME.json``."""

from __future__ import annotations

import pytest

from p2php.engine.registry import game_names
from p2php.gamehelp import find, help_entries, help_tables
from p2php.terminal import help_lines


def test_every_game_has_help_with_unique_ids_and_text() -> None:
    for game in ("uno", "hpsha", "tcg", "hogwarts"):
        assert game in game_names()
        for lang in ("en", "zh"):
            entries = help_entries(game, lang)
            assert entries, game
            ids = [e["id"] for e in entries]
            assert len(ids) == len(set(ids)), game
            assert all(e["title"] and e["names"] and (e["text"] or e["facts"]) for e in entries), game


def test_hpsha_explains_every_card_character_and_skill_in_both_languages() -> None:
    from p2php.games.hpsha.data import CHARACTERS, KINDS
    from p2php.games.hpsha.triggers import SKILLS_BY_CHARACTER

    en = {e["id"]: e for e in help_entries("hpsha", "en")}
    zh = {e["id"]: e for e in help_entries("hpsha", "zh")}
    keys = [f"card:{k}" for k in KINDS] + [f"character:{c.key}" for c in CHARACTERS]
    keys += [f"skill:{sk.key}" for c in CHARACTERS for sk in SKILLS_BY_CHARACTER.get(c.key, ())]
    for key in keys:
        assert en[key]["text"] and zh[key]["text"], key
    assert "1 damage" in en["card:bombarda"]["text"] and "一点伤害" in zh["card:bombarda"]["text"]
    assert en["skill:natural_flyer"]["title"] == "Natural Flyer" and zh["skill:natural_flyer"]["title"] == "擅飞"
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in en["skill:rescue"]["text"])  # English stays English
    assert en["character:harry"]["skills"] == ["skill:stroke_of_luck", "skill:natural_flyer"]
    from p2php.games.hpsha.creature_data import CREATURES
    from p2php.games.hpsha.triggers import SKILLS

    # creatures' powers too; a copy Tonks' 易容 registers while a game runs (``disguise:KEY``) is the original's
    for key in [*(f"creature:{c}" for c in CREATURES), *(f"skill:{k}" for k in SKILLS if ":" not in k)]:
        assert en[key]["text"] and zh[key]["text"], key


def test_names_are_found_loosely_and_exact_names_win() -> None:
    hpsha = help_entries("hpsha", "en")
    assert [e["id"] for e in find(hpsha, "expecto patronum")] == ["card:patronus"]
    assert [e["id"] for e in find(hpsha, "爆破")] == ["card:bombarda"]
    assert find(hpsha, "") == [] and find(hpsha, "no such thing at all") == []
    hog = help_entries("hogwarts", "en")
    assert find(hog, "M04")[0]["kind"] == "mission" and "40" in find(hog, "M04")[0]["facts"]
    assert "loses 3 LP" in find(hog, "stupefy")[0]["text"]
    assert find(hog, "boathouse_tower")[0]["title"] == "Boathouse Tower"
    assert find(help_entries("tcg", "en"), "Unicorn")[0]["cost"] == 6


def test_the_terminal_prints_the_same_help() -> None:
    lines = help_lines("hpsha", "zh", "爆破咒")
    assert lines[0].strip().startswith("爆破咒") and any("一点伤害" in x for x in lines)
    assert "Draw Two" in help_lines("uno", "en", "draw two")[0]
    assert "nothing called" in help_lines("uno", "en", "zzz")[0]
    assert help_tables("uno")["en"] == help_tables("uno")["zh"]


def test_a_bad_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no help"):
        help_entries("uno", "fr")
    assert help_entries("no-such-game", "en") == []


def test_a_hogwarts_battle_is_in_every_seats_view() -> None:
    from p2php.engine.contract import Decide, GameOver
    from p2php.engine.local import LocalTable
    from p2php.games.hogwarts.game import GAME

    st = GAME.new_state(2, {})
    tb = LocalTable(st, 7)
    bots = {s: GAME.make_bot("heuristic", f"7/{s}") for s in range(2)}
    seen = None
    for _ in range(5000):
        step = tb.run_chance()
        if isinstance(step, GameOver):
            break
        views = [st.observation(s, tb.knowledge(s)) for s in range(2)]
        if views[0]["battle"] is not None:
            seen = views
            break
        assert isinstance(step, Decide)
        tb.act([(s, bots[s].choose(st, s, tb.knowledge(s), st.legal_actions(s, tb.knowledge(s)))) for s in step.seats])
    assert seen is not None, "no battle in 5000 steps"
    battle = seen[0]["battle"]
    assert battle == seen[1]["battle"]  # public: both seats see the same
    if battle["kind"] != "players":
        assert battle["lp"] <= battle["start_lp"] and battle["participants"] and battle["stage"]
        assert find(help_entries("hogwarts", "en"), battle["enemy"]), battle["enemy"]
    hand = seen[0]["players"][0]
    assert len(hand["hand_slots"]) == len(hand["hand"]) and seen[1]["players"][0]["hand_slots"] == []


async def test_a_terminal_player_asks_for_help_mid_turn() -> None:
    """'? NAME' at the prompt prints the entry and asks again; the turn goes on with a number."""
    import io
    from collections.abc import Iterator

    import trio

    from p2php.bots import RandomBot
    from p2php.session.local_net import run_local_table
    from p2php.session.runner import bot_decider
    from p2php.terminal import TerminalUI

    answers: Iterator[str] = iter(["? wild draw four", "?nothing-like-this", *["1"] * 10_000])
    out = io.StringIO()
    ui = TerminalUI(out=out, ask=lambda _prompt: next(answers), lang="en", colour=False, tty=False)
    with trio.fail_after(60):
        await run_local_table("uno", 2, [ui.decide, bot_decider(RandomBot(1))], options={"rounds": 1}, seed=3,
                              observe=ui.observe)
    printed = out.getvalue()
    assert "Wild Draw Four" in printed and "the next player draws 4 cards" in printed
    assert "nothing called 'nothing-like-this' in uno" in printed
