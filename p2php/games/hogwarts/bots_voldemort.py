"""The heuristic bot's play in The Return of Lord Voldemort (rules §16).

Heroes walk to a weapon (the Basilisk Fang or Gryffindor's Sword) until they hold one, then to the nearest
Horcrux not yet destroyed, then to the Resurrection Stone; Harry, once the heroes' goal is reached, walks to
Voldemort.  Pettigrew walks to his four tokens, then to the pitch and takes the graveyard; Voldemort walks to
the Elder Wand, then to Harry, who keeps away from him while the heroes' goal is not reached.  Death Eaters
all move, each towards the nearest hero, and go on towers near the heroes; the Stone and the Wand are hidden
far from the other side.  In battle the bot takes its hits (a dodge costs more on average) and otherwise
plays as in the base game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from p2php.engine.contract import Action, Knowledge, Seat

from .state import HogwartsState
from .voldemort_rules import (
    GRAVEYARD,
    PITCH,
    STONE,
    WAND,
    WEAPONS,
    campaign,
    harry,
    hero_goal,
    heroes,
    is_voldemort,
    ritual_tokens,
    villain_goal,
)

__all__ = ["Distances", "return_choice", "targets", "walk_targets"]

BOARD2 = "board2"
GIFT_KINDS = ("action", "event")

REROLL_BELOW = 4
HUNT_RANGE = 12
"""Harry keeps this far from a Voldemort who holds the Wand while the heroes' goal is not reached (2 dice)."""
Distances = Callable[[frozenset[str]], Mapping[str, int]]
"""Steps from every cell to the nearest of some cells (the base heuristic's ``distances_to``)."""


def token_cells(g: HogwartsState, tokens: set[str]) -> set[str]:
    return {cell for cell, here in g.tokens.items() if tokens.intersection(here)}


def targets(g: HogwartsState, seat: Seat) -> set[str]:
    """The cells ``seat`` walks towards now."""
    c = campaign(g)
    if seat == c.villain:
        if not c.returned:
            missing = {t for t in ritual_tokens(g) if t not in g.held[seat]}
            return token_cells(g, missing) if missing else {PITCH}
        if WAND not in g.held[seat]:
            return token_cells(g, {WAND}) or {g.pos[harry(g)]}
        return {g.pos[harry(g)]}
    if seat == harry(g) and hero_goal(g) and c.returned:
        return {g.pos[c.villain]}
    if not any(w in g.held[seat] for w in WEAPONS):
        found = token_cells(g, set(WEAPONS))
        if found:
            return found
    elif len(c.destroyed) < len(g.data.return_of_voldemort.horcruxes):
        return {cell for token, cell in g.data.return_of_voldemort.horcruxes.items() if token not in c.destroyed}
    stone = token_cells(g, {STONE})
    if stone:
        return stone
    left = {cell for token, cell in g.data.return_of_voldemort.horcruxes.items() if token not in c.destroyed}
    return left or {g.pos[harry(g)]}


def walk_targets(g: HogwartsState, seat: Seat, goal: set[str]) -> set[str]:
    """Where to walk for ``goal``: board-2 cells are reached by flying powder from a tower (the trip returns at
    the end of the turn, after the tokens there are taken), so with powder a tower will do; without, an action
    or event cell, which gives powder (rules §16.3)."""
    far = {cell for cell in goal if g.graph.boards[cell] == BOARD2 and cell != GRAVEYARD}
    if not far:
        return goal
    kinds = ("tower",) if g.powder[seat] else GIFT_KINDS
    return (goal - far) | {cell for cell, kind in g.graph.kinds.items() if kind in kinds}


def nearest(g: HogwartsState, distances_to: Distances, cells: list[str], goal: set[str], far: bool = False) -> str:
    dist = distances_to(frozenset(goal))
    big = len(g.graph.steps)
    return (max if far else min)(cells, key=lambda cell: (dist.get(cell, big), cell))


def return_choice(g: HogwartsState, seat: Seat, knowledge: Knowledge, prompt: str,
                  legal: list[Action], distances_to: Distances) -> Action | None:
    """The bot's answer to a Return-mode question, or None to let the base game's heuristic answer."""
    c = campaign(g)
    if prompt == "move":
        dist = distances_to(frozenset(walk_targets(g, seat, targets(g, seat))))
        big = len(g.graph.steps)
        hunted = c.returned and seat == harry(g) and villain_goal(g) and not hero_goal(g)
        danger = distances_to(frozenset({g.pos[c.villain]})) if hunted else {}

        def score(action: Action) -> tuple[int, int]:
            end = action["path"][-1]
            near = danger.get(end, big) <= HUNT_RANGE if hunted else False
            return (int(near) + (2 if hunted and end == g.pos[c.villain] else 0), dist.get(end, big))

        return min(legal, key=score)
    if prompt == "tokens":
        return legal[0]
    if prompt == "trip":
        goal = targets(g, seat)
        return next((a for a in legal if a["type"] == "graveyard"),
                    next((a for a in legal if a.get("to") in goal), legal[0]))
    if prompt == "dodge":
        return legal[0]
    if prompt == "reroll":  # Ron rolls again when none of his dice reached 4
        dice = list(getattr(g.stack.top, "dice", []))
        return legal[1] if dice and max(dice) < REROLL_BELOW else legal[0]
    if prompt == "character":
        return legal[0]
    if prompt == "place_eater":
        spots = {g.pos[s] for s in heroes(g)}
        cell = nearest(g, distances_to, [str(a["cell"]) for a in legal], spots)
        return next(a for a in legal if a["cell"] == cell)
    if prompt in ("place_stone", "place_wand"):
        away = {g.pos[harry(g)]} if prompt == "place_stone" else {g.pos[c.villain]}
        cell = nearest(g, distances_to, [str(a["cell"]) for a in legal], away, far=True)
        return next(a for a in legal if a["cell"] == cell)
    if prompt == "eater":
        return legal[0]
    if prompt == "eater_move":
        spots = {g.pos[s] for s in heroes(g) if g.graph.kinds[g.pos[s]] != "start"}
        if villain_goal(g):
            spots = spots - {g.pos[harry(g)]} or spots  # keep Harry for Voldemort himself
        cell = nearest(g, distances_to, [a["path"][-1] for a in legal], spots or {PITCH})
        return next(a for a in legal if a["path"][-1] == cell)
    if prompt == "gift":
        return legal[0]
    if prompt == "start_card" and is_voldemort(g, seat):
        return legal[0]
    return None
