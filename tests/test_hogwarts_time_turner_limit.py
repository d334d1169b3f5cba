"""A Hogwarts year ends even when one seat chains Time-Turner turns for ever (red-team rt3-engine).

From Weasleys' Wizard Wheezes or Florean Fortescue's, whatever the roll, a walk crosses the Diagon Alley star d009
and ends on one of the two again. So a seat holding the Time-Turner puts it on d009 when it uses it (PlaceUsed),
takes it back during the extra turn, and uses it again at the end of that turn. Extra turns were not counted, so
the year's guard (YEAR_ROUNDS rounds) never came: 400 000 decisions later the game was still in round 13, the
other seats waiting for a turn that never came.
"""

from __future__ import annotations

import random

from p2php.engine.contract import GameOver
from p2php.engine.local import LocalTable, default_decks
from p2php.games.hogwarts.board import distance
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.turn import YEAR_ROUNDS

LOOP = ("weasleys_wizard_wheezes", "florean_fortescues")
STAR = "d009"
PASSIVE = ("done", "pass", "stay", "no_match", "end", "skip", "keep", "no", "decline")


def _cheater(g, seat, legal, prompt, rng, dist):
    held = "time_turner" in g.held[seat]
    if prompt == "time_turner":
        return {"type": "time_turner"} if g.pos[seat] in LOOP else {"type": "pass"}
    if prompt == "place_used":
        return next(a for a in legal if a.get("cell") == STAR)
    if prompt == "tokens":
        take = [a for a in legal if a.get("token") == "time_turner" and a.get("give") != "time_turner"]
        return take[0] if take else next(a for a in legal if a["type"] == "done")
    if prompt == "move":
        walks = [a for a in legal if a["type"] == "move"]
        if held:
            aim = set(LOOP)
            over = [a for a in walks if STAR in a["path"][1:] and a["path"][-1] in aim]
        else:
            cell = next((c for c, ts in g.tokens.items() if "time_turner" in ts), None)
            aim = {cell} if cell else set(LOOP)
            over = [a for a in walks if cell in a["path"][1:]]
        if over:
            return over[0]
        return min(walks, key=lambda a: min(dist(a["path"][-1], t) for t in aim))
    passive = [a for a in legal if a.get("type") in PASSIVE]
    return passive[0] if passive else rng.choice(legal)


def test_time_turner_turns_count_toward_the_end_of_the_year() -> None:
    opts = GAME.parse_options({"length": "long"})
    table = LocalTable(GAME.new_state(2, opts), seed=1, private_decks=default_decks(GAME, 2, opts))
    honest = GAME.make_bot("heuristic", "1/1")
    rng = random.Random(1)
    memo: dict[tuple[str, str], int] = {}

    def dist(a: str, b: str) -> int:
        if (a, b) not in memo:
            d = distance(table.state.graph, a, b)
            memo[(a, b)] = 999 if d is None else d
        return memo[(a, b)]

    uses = 0
    for _ in range(40_000):
        step = table.run_chance()
        if isinstance(step, GameOver):
            break
        g = table.state
        answers = []
        for s in step.seats:
            kn = table.knowledge(s)
            legal = g.legal_actions(s, kn)
            a = _cheater(g, s, legal, step.prompt, rng, dist) if s == 0 else honest.choose(g, s, kn, legal)
            uses += a.get("type") == "time_turner"
            answers.append((s, a))
        table.act(answers)
    else:
        raise AssertionError(f"not over after 40 000 decisions: {uses} Time-Turner turns, g.turns {table.state.turns}")
    assert uses > 1000  # the chain did run
    assert "the year is over" in step.summary
    assert table.state.turns + table.state.extra_turns <= YEAR_ROUNDS * 2 + 2
