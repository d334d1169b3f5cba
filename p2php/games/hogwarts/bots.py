"""Bots: the contract's ``random`` and a simple ``heuristic`` player that sees only its seat's knowledge.

The heuristic works for its missions: with a mission's tokens in hand it walks (or flies) to its location
and attempts it; otherwise it walks towards the nearest token one of its missions needs and picks it up.
In battle it uses its special tokens (those no mission needs; the Cloak only at 2 LP or fewer, alone or in a
group, and before an underage dice duel only when losing could cost it a token a mission needs; its escape
heads for its goals), plays its strongest attack card, heals when low, and otherwise rolls; it scores every
book it may and takes whatever it is offered.  Quidditch matches: :mod:`.bots_quidditch`.  Unknown questions
get a seeded random answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from functools import lru_cache

from p2php.engine.contract import Action, Decide, GameState, Knowledge, RandomBot, Seat

from .battle import hand_card
from .bots_quidditch import quidditch_choice
from .bots_voldemort import return_choice
from .data import graph as map_graph
from .mission_cards import cards_for, could_hold
from .mission_flow import MissionAttempt
from .modes import death_eaters_block, needs_match, shows_mission_cards, team_of
from .rules import location_cells, mission_of
from .state import HogwartsState
from .terms import parse
from .voldemort_rules import RETURN

__all__ = ["HeuristicBot"]

PITCH = "quidditch_pitch"
REST_TURNS = 24
LOW_LP = 3
CLOAK_LP = 2
"""The heuristic escapes with the Invisibility Cloak only this close to a defeat."""
BUCKBEAK = "buckbeak"
GOAL_PROMPTS = ("move", "tokens", "trip", "prize", "attack", "cloak", "cloak_move")


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
        self.resting: dict[int, int] = {}  # team mode: mission -> the turn until which a short team waits no more

    def note(self, g: HogwartsState, prompt: str) -> None:
        """Team mode: a member showing its cards for a mission leaves that mission for a while afterwards (if
        the team lacked cards it is not worth meeting there again at once; if it was done it is gone)."""
        top = g.stack.top
        if prompt == "mission_cards" and isinstance(top, MissionAttempt):
            mission = mission_of(g, top.slot)
            if mission is not None:
                self.resting[mission.number] = g.turns + REST_TURNS

    def goals(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> tuple[set[str], set[str]]:
        """Cells where a mission can be completed with the tokens held; tokens its missions still need."""
        places: set[str] = set()
        wanted: set[str] = set()
        members = team_of(g, seat)  # team mode: the team's missions (shown to teammates) and tokens
        held = {t for m in members for t in g.held[m]}
        meeting: list[tuple[int, str, bool]] = []  # team mode: ready missions (slot, place, own cards missing)
        for m in members:
            for slot in g.missions[m]:
                mission = mission_of(g, slot, knowledge)
                if mission is None:
                    continue
                missing = [t for t in mission.tokens if t not in held]
                if missing:
                    wanted.update(missing)
                    continue
                short = shows_mission_cards(g) and cards_for(g, seat, mission, knowledge) is None
                if len(members) > 1:  # every member picks the same meeting (the same public facts)
                    cards = not shows_mission_cards(g) or could_hold(g, m, mission, members)
                    if cards and self.resting.get(mission.number, -1) < g.turns:
                        meeting.append((slot, sorted(location_cells(mission.location))[0], False))
                    elif m == seat and short:
                        places.update(card_cells())
                elif short:  # its cards are missing (qualified rules, C-52): any spell or potion cell
                    places.update(card_cells())
                else:
                    places.update(location_cells(mission.location))
        if meeting:
            _slot, place, short_here = min(meeting)
            places = set(card_cells()) if short_here else {place}
        if needs_match(g) and not g.matches[seat]:
            places.add(PITCH)  # taking part in a match is part of the goal (rules §2)
        return places, wanted

    def ways_in(self, g: HogwartsState, seat: Seat, places: set[str],
                wanted: set[str]) -> tuple[set[str], set[str]]:
        """A place no walk reaches (the graveyard) is reached by a trip: a held portal token makes the cell it
        leaves from (the pitch) the place to walk to; otherwise Buckbeak is wanted (once held, any move ends
        in a trip there).  Without this the bot paced beside the graveyard until the year ended (E34)."""
        sealed = {p for p in places if not map_graph().steps.get(p)}
        if not sealed or BUCKBEAK in g.held[seat]:
            return places, wanted
        if g.portals[seat]:
            return places - sealed | {c for c, to in map_graph().portal.items() if to in sealed}, wanted
        return places - sealed, wanted | {BUCKBEAK}

    def needed(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> set[str]:
        """The object tokens its (team's) missions need, held or not."""
        return {t for m in team_of(g, seat) for slot in g.missions[m]
                for mission in [mission_of(g, slot, knowledge)] if mission is not None for t in mission.tokens}

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        assert isinstance(state, HogwartsState)
        g = state
        step = g.step()
        prompt = step.prompt if isinstance(step, Decide) else ""
        if g.mode == RETURN:
            chosen = return_choice(g, seat, knowledge, prompt, legal, distances_to)
            if chosen is not None:
                return chosen
        self.note(g, prompt)
        places, wanted = self.goals(g, seat, knowledge) if prompt in GOAL_PROMPTS else (set(), set())
        if prompt == "trip":
            trips = [a for a in legal if a.get("to") in places
                     or (a["type"] == "portal" and map_graph().portal.get(g.pos[seat]) in places)]
            return trips[0] if trips else legal[0]
        places, wanted = self.ways_in(g, seat, places, wanted)
        if prompt == "move":
            waiting = [a for a in legal if a.get("wait") and g.pos[seat] in places]
            return waiting[0] if waiting else self.move(g, legal, places, wanted)
        if prompt == "tokens":
            takes = [a for a in legal if a["type"] == "take" and "give" not in a]
            needed = [a for a in legal if a["type"] == "take" and a["token"] in wanted
                      and ("give" not in a or a["give"] not in wanted)]
            return (needed or takes or [legal[-1]])[0]
        if prompt == "attack":
            tokens = [a for a in legal if a["type"] == "token" and a["token"] not in wanted
                      and (a["token"] != "invisibility_cloak" or g.lp[seat] <= CLOAK_LP)]
            if tokens:
                return tokens[0]
            cards = [a for a in legal if a["type"] == "card"]
            best = max(cards, key=lambda a: damage_of(g, a, knowledge), default=None)
            return best if best is not None and damage_of(g, best, knowledge) >= 2 else legal[0]
        if prompt == "cloak":  # the underage dice duel (no defeat, a prize): escape if a needed token is at stake
            cloak: Action = {"type": "token", "token": "invisibility_cloak"}
            mission_tokens = self.needed(g, seat, knowledge)
            at_stake = mission_tokens.intersection(t for t in g.held[seat] if t != "invisibility_cloak")
            return cloak if at_stake and "invisibility_cloak" not in mission_tokens and cloak in legal else legal[0]
        if prompt == "cloak_move":  # towards its goals (an escape with nowhere to go has an empty path)
            walks = [a for a in legal if a["path"]]
            return self.move(g, walks, places, wanted) if walks else legal[0]
        if prompt == "defend":
            return legal[-1] if g.lp[seat] <= LOW_LP and len(legal) > 1 else legal[0]
        if prompt == "mission":
            return legal[-1]
        if prompt == "mission_cards":  # show every card asked for (team mode: its whole part)
            return max(legal, key=lambda a: (a["type"] == "show", len(a.get("slots", []))))
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
