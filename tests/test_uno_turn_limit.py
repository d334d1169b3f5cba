"""UNO ends even when n-1 seats play (legally) never to let it end (red-team rt3-engine).

Two of three seats play a Draw Two / Skip / Wild Draw Four at whoever is next whenever one is playable, else draw
and keep, and accept every penalty. With the draw pile kept at one card, the honest seat draws one card for every
card it plays: before the turn limit, the first round of seed 0 was still going after 1 000 000 decisions (571 225
joint reshuffles), cycling through 15 states.
"""

from __future__ import annotations

from p2php.engine.contract import GameOver
from p2php.engine.local import LocalTable
from p2php.engine.registry import get_game
from p2php.games.uno.cards import DRAW_TWO, SKIP, WILD_DRAW_FOUR
from p2php.games.uno.state import MAX_TURNS

HONEST = 1


def _cheater(st, seat, legal, prompt, kn):
    if prompt == "catch":
        return next((a for a in legal if a["type"] == "catch"), legal[0])
    if prompt.startswith("respond:"):
        return next((a for a in legal if a["type"] == "accept"), legal[0])
    if prompt in ("turn", "drawn"):
        if len(st.hands[seat]) > 1:
            for kind in (DRAW_TWO, SKIP, WILD_DRAW_FOUR):
                for a in legal:
                    if a["type"] == "play" and st.deck.kind[kn.face(a["slot"])] == kind and not a.get("uno"):
                        return a
        for want in ("draw", "keep"):
            for a in legal:
                if a["type"] == want:
                    return a
    return legal[0]


def _play(max_turns, decisions):
    game = get_game("uno")
    state = game.new_state(3, game.parse_options({}))
    state.max_turns = max_turns  # (a constant, MAX_TURNS; lowered so that the test is short)
    table = LocalTable(state, seed=0)
    honest = game.make_bot("random", f"0/{HONEST}")
    for d in range(decisions):
        step = table.run_chance()
        if isinstance(step, GameOver):
            return d, step, table.state
        answers = []
        for s in step.seats:
            kn = table.knowledge(s)
            legal = table.state.legal_actions(s, kn)
            answers.append((s, honest.choose(table.state, s, kn, legal) if s == HONEST
                            else _cheater(table.state, s, legal, step.prompt, kn)))
        table.act(answers)
    return decisions, None, table.state


def test_a_coalition_cannot_keep_the_game_going_past_the_turn_limit() -> None:
    used, over, state = _play(400, 5000)
    assert over is not None, f"not over after {used} decisions: hands {[len(h) for h in state.hands]}"
    assert state.turns == 400
    assert "turn limit" in over.summary
    assert state.last_round is not None and state.last_round["blocked"]


def test_the_turn_limit_is_a_constant_not_an_option() -> None:
    """Not an option: an option enters every table's hello, and so every session id (and every seeded game)."""
    game = get_game("uno")
    assert "max_turns" not in game.options
    assert game.new_state(2, game.parse_options({})).max_turns == MAX_TURNS > 0


def test_an_honest_game_is_not_cut_short() -> None:
    game = get_game("uno")
    table = LocalTable(game.new_state(4, game.parse_options({})), seed=3)
    over = table.play({s: game.make_bot("heuristic", f"3/{s}") for s in range(4)})
    assert "turn limit" not in over.summary and table.state.turns < table.state.max_turns
