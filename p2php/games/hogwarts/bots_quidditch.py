"""The heuristic bot's Quidditch: what it answers in a match (all of it public, but its own cards' faces).

It always challenges (the player with the fewest Quidditch cards in hand), keeps its house and formation.
In Phase 1 it throws every Bludger it can at a Chaser or Keeper within 4 cells (a throw costs no action),
shoots whenever it may, carries the Quaffle towards the opponent's line (3) (or passes it forward, or to a
Chaser already on the line), brings a Chaser to a loose Quaffle or next to the opposing holder and
intercepts, waits just behind the opponent's line (3) while his Keeper holds the Quaffle, gets the Quaffle
out of its own Keeper's hands (he walks behind a waiting Chaser, a Chaser comes in front of the goal zone,
an own Beater in its way steps aside), and otherwise walks its Beaters to the Bludgers.  In Phase 2 it plays
the card that catches the Snitch now, else its strongest useful card, and re-rolls the lower die.
Between two heuristic bots a match takes about 90 decisions and 27 joint draws (at most some 220 and 55).
"""

from __future__ import annotations

from collections.abc import Iterable

from p2php.engine.contract import Action, Knowledge, Seat

from .pitch_grid import OUT, ahead_line, distances, goal_zone, path_between, pitch, role, side_of
from .quidditch_goals import Goals
from .quidditch_snitch import Snitch, circuit_length, quidditch_card, quidditch_slots
from .state import HogwartsState
from .terms import parse

__all__ = ["quidditch_choice"]

THROW_RANGE = 4
CARD_ORDER = ("seeker(+4)", "seeker(+1d6)", "opponent(-3)", "seeker(+2)", "opponent(-2)", "guard", "reroll1")
"""Phase 2 cards, strongest first (the expected cells each gains)."""
FAR = 99


def quidditch_choice(g: HogwartsState, seat: Seat, knowledge: Knowledge, prompt: str,
                     legal: list[Action]) -> Action | None:
    """The heuristic's answer to a Quidditch prompt, or ``None`` if ``prompt`` is not one."""
    if prompt == "challenge":
        others = [a for a in legal if a["type"] == "challenge"] or [a for a in legal if a["type"] == "practice"]
        return min(others, key=lambda a: len(quidditch_slots(g, a.get("seat", seat))), default=legal[0])
    if prompt in ("house", "formation"):
        return legal[0]
    task = g.stack.top
    if prompt == "place_quaffle":
        return legal[len(legal) // 2]
    if prompt == "quidditch" and isinstance(task, Goals):
        return phase1(task, legal)
    if prompt == "quidditch_card" and isinstance(task, Snitch):
        return card(g, task, seat, knowledge, legal)
    if prompt == "reroll_die" and isinstance(task, Snitch):
        return legal[0] if task.rolled[0] <= task.rolled[-1] else legal[-1]
    return None


def toward(task: Goals, legal: list[Action], movers: Iterable[str], targets: Iterable[str]) -> Action | None:
    """The step that brings one of ``movers`` nearest to the free cells of ``targets`` (only steps that get
    closer)."""
    goal = sorted(set(targets))
    names = set(movers)
    best: tuple[int, int, Action] | None = None
    for i, action in enumerate(legal):
        name = action.get("piece")
        if action["type"] != "step" or name not in names:
            continue
        here = task.pieces[str(name)]
        keeper = side_of(str(name)) if role(str(name)) == "keeper" else None
        others = task.occupied() - {here}
        dist = distances([t for t in goal if t not in others], others, keeper)
        now, then = dist.get(here, FAR), dist.get(str(action["to"]), FAR)
        if then < now and (best is None or (then, i) < best[:2]):
            best = (then, i, action)
    return best[2] if best else None


def neighbours(cell: str) -> tuple[str, ...]:
    return pitch().grid[cell].neighbours


def phase1(task: Goals, legal: list[Action]) -> Action:
    side, pieces = task.side, task.pieces
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(str(action["type"]), []).append(action)
    throw = best_throw(task, by_type.get("throw", []))
    if throw is not None:
        return throw
    if "shoot" in by_type:
        return by_type["shoot"][0]
    chasers = task.on_pitch(side, "chaser")
    holder = task.holder
    choice: Action | None = None
    if holder and side_of(holder) == side:
        choice = keeper_out(task, legal, by_type) if role(holder) == "keeper" else carry(task, legal, by_type)
    elif task.quaffle:
        choice = toward(task, legal, chasers, [task.quaffle])
    elif holder and role(holder) == "chaser":
        choice = next(iter(by_type.get("intercept", [])), None) \
            or toward(task, legal, chasers, neighbours(pieces[holder]))
    elif holder:  # the opposing Keeper has it: wait just behind his line (3), leaving it free, to intercept
        line = set(ahead_line(side))
        behind = {n for c in line for n in neighbours(c)} - line - goal_zone(1 - side)
        choice = toward(task, legal, chasers, behind)
    if choice is None:
        free = [b for b in task.bludgers if b not in {pieces[p] for p in task.on_pitch(side, "beater")}]
        choice = toward(task, legal, task.on_pitch(side, "beater"), free) if free else None
    return choice or legal[0]


def carry(task: Goals, legal: list[Action], by_type: dict[str, list[Action]]) -> Action | None:
    """A Chaser holds the Quaffle: it flies at the opponent's line (3), or passes it to a Chaser nearer it."""
    line = ahead_line(task.side)
    choice = toward(task, legal, [task.holder], line)
    mates = [task.pieces[c] for c in task.on_pitch(task.side, "chaser") if task.pieces[c] in line]
    if choice is None and mates:  # an own Chaser on the line: bring the Quaffle next to it
        choice = toward(task, legal, [task.holder], [n for m in mates for n in neighbours(m)])
    if choice is None:
        dist = distances(line)
        passes = [a for a in by_type.get("pass", [])
                  if dist.get(task.pieces[str(a["to"])], FAR) < dist.get(task.pieces[task.holder], FAR)]
        choice = passes[0] if passes else None
    return choice or toward(task, legal, task.on_pitch(task.side, "chaser"), line)


def keeper_out(task: Goals, legal: list[Action], by_type: dict[str, list[Action]]) -> Action | None:
    """The own Keeper holds the Quaffle: he passes it; or goes behind a Chaser waiting in front of the goal
    zone; or a Chaser comes to a free cell in front of it (an own Beater in its way makes room)."""
    if "pass" in by_type:
        return by_type["pass"][0]
    side = task.side
    chasers = task.on_pitch(side, "chaser")
    chaser_cells = {task.pieces[c] for c in chasers}
    fronts = {g: next(n for n in neighbours(g) if n not in goal_zone(side)) for g in goal_zone(side)}
    behind = [g for g, front in fronts.items() if front in chaser_cells]  # a Chaser waits in front of it
    free = [f for f in fronts.values() if f not in task.occupied()]
    return toward(task, legal, [task.holder], behind) or toward(task, legal, chasers, free) \
        or make_room(task, legal, chasers, free)


def make_room(task: Goals, legal: list[Action], chasers: list[str], targets: list[str]) -> Action | None:
    """No Chaser can reach ``targets``: the first own Beater on the nearest Chaser's way there steps aside."""
    beaters = {task.pieces[b]: b for b in task.on_pitch(task.side, "beater")}
    ways = {c: distances(targets, task.occupied() - set(beaters) - {task.pieces[c]}) for c in chasers}
    for chaser in sorted(chasers, key=lambda c: ways[c].get(task.pieces[c], FAR)):
        cell, dist = task.pieces[chaser], ways[chaser]
        while 0 < dist.get(cell, FAR) < FAR:
            cell = min((n for n in neighbours(cell) if dist.get(n, FAR) == dist[cell] - 1), default=cell)
            if cell in beaters:  # it steps as far from the way as it can
                aside = [a for a in legal if a["type"] == "step" and a["piece"] == beaters[cell]]
                return max(aside, key=lambda a: dist.get(str(a["to"]), FAR), default=None)
    return None


def best_throw(task: Goals, throws: list[Action]) -> Action | None:
    """The throw at the nearest Chaser or Keeper (the Quaffle's holder first) within reach, if any."""
    def key(action: Action) -> tuple[int, int]:
        target = str(action["target"])
        path = path_between(task.bludgers[int(action["bludger"])], task.pieces[target]) or []
        return (0 if target == task.holder else 1, len(path))

    useful = [a for a in throws if role(str(a["target"])) in ("chaser", "keeper")
              and task.pieces[str(a["target"])] != OUT and key(a)[1] <= THROW_RANGE]
    return min(useful, key=key) if useful else None


def card(g: HogwartsState, task: Snitch, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
    side = task.side
    need = circuit_length() - task.progress[side]
    ranked: list[tuple[int, Action]] = []
    for action in legal:
        if action["type"] != "card":
            continue
        found = quidditch_card(g, int(action["slot"]), knowledge)
        if found is None:
            continue
        term = found.effect[0]
        head, args = parse(term)
        if head == "seeker" and args[0] != "+1d6" and int(args[0]) >= need:
            return action  # the Snitch now
        useless = (head == "opponent" and (task.guard[1 - side] or task.progress[1 - side] == 0)) or \
                  (head == "guard" and not quidditch_slots(g, task.seats[1 - side])) or \
                  (head == "reroll1" and min(task.rolled) > 3)
        if not useless and term in CARD_ORDER:
            ranked.append((CARD_ORDER.index(term), action))
    return min(ranked, key=lambda r: r[0])[1] if ranked else legal[0]
