"""Bots: the contract's ``random`` and a simple ``heuristic`` player that sees only its seat's knowledge.

The heuristic works for its missions: with a mission's tokens in hand it walks (or flies) to its location
and attempts it; otherwise it walks towards the nearest token one of its missions needs and picks it up.
In battle it uses its special tokens (those no mission needs; the Cloak only at 2 LP or fewer), plays its
strongest attack card, heals when low, and otherwise rolls; it scores every book it may and takes whatever
it is offered.  Quidditch matches: :mod:`.bots_quidditch`.  Unknown questions get a seeded random answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from functools import lru_cache

from p2php.engine.contract import Action, Decide, GameState, Knowledge, RandomBot, Seat

from .battle import hand_card
from .bots_quidditch import quidditch_choice
from .data import graph as map_graph
from .mission_cards import cards_for
from .modes import death_eaters_block, needs_match, shows_mission_cards
from .rules import location_cells, mission_of
from .state import HogwartsState
from .terms import parse

__all__ = ["HeuristicBot"]

PITCH = "quidditch_pitch"
LOW_LP = 3
CLOAK_LP = 2
"""The heuristic escapes with the Invisibility Cloak only this close to a defeat."""
GOAL_PROMPTS = ("move", "tokens", "trip", "prize", "attack")


@lru_cache(maxsize=1024)
def distances_to(targets: frozenset[str], blocked: frozenset[str] = frozenset()) -> Mapping[str, int]:
    """Steps from every map cell to the nearest of ``targets`` (free links cost 0; a 0-1 breadth-first search)
    around the ``blocked`` cells (solo Death Eaters), remembered per question (callers only read it)."""
    graph = map_graph()
    dist = {t: 0 for t in targets if t in graph.steps}
    queue = deque(sorted(dist))
    while queue:
        cell = queue.popleft()
        for nxt in graph.free[cell]:
            if nxt in blocked:
                continue
            if nxt not in dist or dist[nxt] > dist[cell]:
                dist[nxt] = dist[cell]
                queue.appendleft(nxt)
        for nxt in graph.steps[cell]:
            if nxt in graph.enterable and nxt not in blocked and (nxt not in dist or dist[nxt] > dist[cell] + 1):
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return dist


@lru_cache(maxsize=1)
def card_cells() -> frozenset[str]:
    """The spell and potion cells, where a bot missing a mission's cards goes (qualified rules)."""
    kinds = map_graph().kinds
    return frozenset(c for c in kinds if kinds[c] in ("spell", "potion"))


def damage_of(g: HogwartsState, action: Action, knowledge: Knowledge) -> int:
    card = hand_card(g, action["slot"], knowledge)
    if card is None:
        return 0
    for term in card.effect:
        head, args = parse(term)
        if head == "damage":
            return int(args[0])
        if head == "dice":
            return 2
    return 0


class HeuristicBot:
    """Missions first: tokens, then the location; strongest card in battle."""

    def __init__(self, seed: bytes | str | int = 0) -> None:
        self.fallback = RandomBot(seed)

    def goals(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> tuple[set[str], set[str]]:
        """Cells where a mission can be completed with the tokens held; tokens its missions still need."""
        places: set[str] = set()
        wanted: set[str] = set()
        for slot in g.missions[seat]:
            mission = mission_of(g, slot, knowledge)
            if mission is None:
                continue
            missing = [t for t in mission.tokens if t not in g.held[seat]]
            if missing:
                wanted.update(missing)
            elif not shows_mission_cards(g) or cards_for(g, seat, mission, knowledge) is not None:
                places.update(location_cells(mission.location))
            else:  # the tokens are held, the cards not yet (qualified rules, C-52): any spell or potion cell
                places.update(card_cells())
        if needs_match(g) and not g.matches[seat]:
            places.add(PITCH)  # taking part in a match is part of the goal (rules §2)
        return places, wanted

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        assert isinstance(state, HogwartsState)
        g = state
        step = g.step()
        prompt = step.prompt if isinstance(step, Decide) else ""
        places, wanted = self.goals(g, seat, knowledge) if prompt in GOAL_PROMPTS else (set(), set())
        if prompt == "move":
            return self.move(g, legal, places, wanted)
        if prompt == "tokens":
            takes = [a for a in legal if a["type"] == "take" and "give" not in a]
            needed = [a for a in legal if a["type"] == "take" and a["token"] in wanted
                      and ("give" not in a or a["give"] not in wanted)]
            return (needed or takes or [legal[-1]])[0]
        if prompt == "trip":
            flights = [a for a in legal if a.get("to") in places]
            return flights[0] if flights else legal[0]
        if prompt == "attack":
            tokens = [a for a in legal if a["type"] == "token" and a["token"] not in wanted
                      and (a["token"] != "invisibility_cloak" or g.lp[seat] <= CLOAK_LP)]
            if tokens:
                return tokens[0]
            cards = [a for a in legal if a["type"] == "card"]
            best = max(cards, key=lambda a: damage_of(g, a, knowledge), default=None)
            return best if best is not None and damage_of(g, best, knowledge) >= 2 else legal[0]
        if prompt == "defend":
            return legal[-1] if g.lp[seat] <= LOW_LP and len(legal) > 1 else legal[0]
        if prompt in ("mission", "mission_cards"):
            return legal[-1]
        if prompt == "exam":
            return legal[-1]
        if prompt == "start_card":
            return legal[0]
        if prompt == "prize":
            tokens = [a for a in legal if a.get("token") in wanted or wanted.intersection(a.get("tokens", []))]
            return (tokens or legal)[0]
        if prompt == "time_turner":
            return {"type": "time_turner"}
        quidditch = quidditch_choice(g, seat, knowledge, prompt, legal)
        if quidditch is not None:
            return quidditch
        return self.fallback.choose(state, seat, knowledge, legal)

    def move(self, g: HogwartsState, legal: list[Action], places: set[str], wanted: set[str]) -> Action:
        for action in legal:
            if "mission" in action:
                return action
        targets = places or {c for c, tokens in g.tokens.items() if wanted.intersection(tokens)}
        if not targets:
            targets = {c for c, tokens in g.tokens.items() if tokens}
        dist = distances_to(frozenset(targets), frozenset(g.death_eaters) if death_eaters_block(g) else frozenset())
        far = len(g.graph.steps)

        def score(action: Action) -> tuple[int, int]:
            path = action["path"]
            crossed = sum(1 for c in path[1:] if wanted.intersection(g.tokens.get(c, [])))
            return (-crossed, dist.get(path[-1], far))

        return min(legal, key=score)
