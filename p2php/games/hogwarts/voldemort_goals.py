"""The two sides' goals in The Return of Lord Voldemort: destroying a Horcrux (rules §16.3, C-42) and what
happens when Harry's and Voldemort's paths cross (§16.4, C-44).

A hero who ends his turn on a Horcrux's cell holding the Basilisk Fang or Gryffindor's Sword rolls 2 dice
against the villain's 2 (one joint draw: nobody decides between them); a strictly higher sum destroys it and
costs a returned Voldemort 1 LP (before the return it is subtracted when he returns, C-43); otherwise the hero
tries again on his next turn instead of moving.

Paths cross when Harry's move ends on Voldemort's cell or Voldemort's on Harry's (a move is forced to stop
there only once a side has reached its goal, :func:`.voldemort_rules.return_constraints`): with neither goal
nothing happens; with one, that side wins at once; with both, the final battle is fought, its starter the
one who moved, and its winner's side wins.  The heroes win together (V2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2php.engine.contract import GameOver, Seat
from p2php.engine.tasks import Call, Done, Outcome, Task

from .dice import Roll
from .voldemort_battle import SheetBattle
from .voldemort_rules import campaign, harry, hero_goal, heroes, villain_goal

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["Crossing", "HorcruxAttempt", "side_wins"]

DICE_EACH = 2


def side_wins(g: HogwartsState, villain: bool, why: str) -> GameOver:
    c = campaign(g)
    winners = (c.villain,) if villain else tuple(heroes(g))
    g.log("side_wins", "voldemort" if villain else "heroes", why)
    scores = tuple(len(c.destroyed) if s != c.villain else 6 - len(c.destroyed) for s in range(g.players))
    who = "Lord Voldemort" if villain else "the heroes"
    return GameOver(winners, scores, f"{who} win: {why}")


@dataclass
class HorcruxAttempt(Task["HogwartsState"]):
    """``seat`` tries to destroy ``token`` (C-42)."""

    seat: int
    token: str
    dice: list[int] | None = None

    def run(self, g: HogwartsState) -> Outcome:
        c = campaign(g)
        if self.dice is None:
            return Call(Roll(2 * DICE_EACH, "horcrux"), into="dice")
        hero, villain = sum(self.dice[:DICE_EACH]), sum(self.dice[DICE_EACH:])
        c.retry = [s for s in c.retry if s != self.seat]
        if hero > villain:
            c.destroyed.append(self.token)
            g.take_token(g.data.return_of_voldemort.horcruxes[self.token], self.token)
            if c.returned:
                g.lp[c.villain] = max(1, g.lp[c.villain] - 1)
            g.log("horcrux_destroyed", self.seat, self.token, hero, villain)
        else:
            c.retry.append(self.seat)
            g.log("horcrux_resists", self.seat, self.token, hero, villain)
        return Done()


@dataclass
class Crossing(Task["HogwartsState"]):
    """``mover`` (Harry or Voldemort) ended its move on the other's cell (C-44)."""

    mover: int
    winner: str = ""
    fought: bool = False

    def run(self, g: HogwartsState) -> Outcome:
        c = campaign(g)
        if self.fought:
            return side_wins(g, self.winner == f"seat:{c.villain}", "the final battle")
        dark, light = villain_goal(g), hero_goal(g)
        if not dark and not light:
            return Done()
        if dark != light:
            return side_wins(g, dark, "their paths crossed with the goal reached")
        other: Seat = harry(g) if self.mover == c.villain else c.villain
        g.log("final_battle", self.mover, other)
        self.fought = True
        return Call(SheetBattle([f"seat:{self.mover}", f"seat:{other}"], "final_battle"), into="winner")
