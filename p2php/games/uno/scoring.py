"""The end of a round: points in hand, who gains what, and whether the game is over (rules 21, 22)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2php.engine.contract import GameOver

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState


def hand_points(g: UnoState, seat: int) -> int:
    """Points of ``seat``'s hand (every card is open by the time a round is scored)."""
    pts = g.deck.points
    pub = g.pub
    return sum(pts[pub[s]] for s in g.hands[seat])


def score_round(g: UnoState, winner: int) -> None:
    """Score the round ``winner`` won (``-1``: blocked: the fewest hand points win it); end the game if due."""
    n = g.n
    pts = [hand_points(g, s) for s in range(n)]
    blocked = winner < 0
    if blocked:
        start = g.current if g.current >= 0 else 0
        order = [(start + g.direction * i) % n for i in range(n)]
        winner = min(order, key=lambda s: pts[s])
    if g.negative:
        gained = pts
    else:
        gained = [0] * n
        gained[winner] = sum(pts) - pts[winner]
    for s in range(n):
        g.scores[s] += gained[s]
    g.round_no += 1
    g.last_round = {
        "round": g.round_no, "winner": winner, "blocked": blocked, "hand_points": pts,
        "gained": gained, "scores": list(g.scores),
    }
    g.event(("round_end", winner, gained[winner] if not g.negative else pts[winner], blocked))
    limit = g.rounds_limit
    cut = g.turns >= g.max_turns
    over = cut or (g.round_no >= limit if limit > 0 else max(g.scores) >= g.target)
    if not over:
        return
    best = min(g.scores) if g.negative else max(g.scores)
    winners = tuple(s for s in range(n) if g.scores[s] == best)
    how = "lowest" if g.negative else "highest"
    who = ", ".join(f"seat {s}" for s in winners)
    g.result = GameOver(
        winners, tuple(g.scores),
        f"{who} won with the {how} score ({best}) after {g.round_no} round(s)"
        f"{f' (the turn limit, {g.max_turns} turns, was reached)' if cut else ''}; "
        f"scores {', '.join(str(x) for x in g.scores)}",
    )
