"""Bots: the contract's ``random`` and a simple ``heuristic`` player.

The heuristic plays Lessons first, then the costliest playable Creature, Spell or Item, then draws; it
answers follow-up questions greedily (hit the opponent, take the costliest card back, remove the
opponent's hardest-hitting Creature or costliest card, give up its own weakest or cheapest).
It sees only its seat's knowledge.
"""

from __future__ import annotations

from p2php.engine.contract import Action, GameState, Knowledge, Seat
from p2php.games.tcg.cards import CardType
from p2php.games.tcg.ids import card_of
from p2php.games.tcg.state import TcgState, owner_of

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Lessons, then the costliest Creature/Spell, then draw; greedy answers to questions."""

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        assert isinstance(state, TcgState)
        g = state

        def card_cost(action: Action) -> tuple[int, int]:
            face = knowledge.face(action["slot"])
            if face is None:
                return (0, 0)
            card = card_of(face)
            return (card.cost or 0, card.damage or 0)

        if {"type": "invoke"} in legal:  # a card that takes or prevents damage
            return {"type": "invoke"}
        if {"type": "dean"} in legal:
            return {"type": "dean"}
        plays = [a for a in legal if a["type"] == "play"]
        lessons = [a for a in plays if (f := knowledge.face(a["slot"])) is not None
                   and card_of(f).type is CardType.LESSON]
        if lessons:
            return lessons[0]
        if plays:
            return max(plays, key=card_cost)
        for kind in ("draw", "take"):
            options = [a for a in legal if a["type"] == kind]
            if options and kind == "draw":
                return options[-1]  # Harry Potter's two cards when offered
            if options:
                return max(options, key=card_cost) if kind == "take" else options[0]
        targets = [a for a in legal if a["type"] == "target"]
        if targets:  # a Creature of the opponent's it kills, else the opponent
            for a in targets:
                if "slot" in a and owner_of(a["slot"]) != seat:
                    entry = next(c for c in g.creatures[1 - seat] if c[0] == a["slot"])
                    if entry[1] + 3 >= (g.card(a["slot"]).health or 0):
                        return a
            return next((a for a in targets if "seat" in a), legal[-1])  # Toe Biter's optional Creature: stop
        creatures = [a for a in legal if a["type"] == "creature"]
        if creatures:
            mine = owner_of(creatures[0]["slot"]) == seat
            ranked = sorted(creatures, key=lambda a: (g.card(a["slot"]).damage or 0, a["slot"]))
            return ranked[0] if mine else ranked[-1]
        discards = [a for a in legal if a["type"] == "discard"]
        if discards:  # the opponent's costliest card, or its own cheapest
            own = owner_of(discards[0]["slot"]) == seat
            return min(discards, key=card_cost) if own else max(discards, key=card_cost)
        keeps = [a for a in legal if a["type"] in ("keep", "in_play")]
        if keeps:  # keep its own best Creature; discard the opponent's costliest card
            return max(keeps, key=lambda a: (g.card(a["slot"]).cost or 0, g.card(a["slot"]).damage or 0, a["slot"]))
        return legal[0]
