"""Attempting a mission (rules §11): on its location with its object tokens, the player opens the mission
card and fights its battle card.  Win: the points, and the card lies completed in front of the player.
Either way the mission's tokens go to star cells of board 2 of the player's choice (stacking allowed).

Whether to ask is decided from public facts only (:func:`.rules.missions_here`: *some* mission could be
completed here with the tokens held), so being asked reveals nothing; the answer opens the card, and its
face is checked when the answer is applied.  A mission the move already opened (it stopped there for it,
``moves.Moved.mission``) is attempted without asking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Replace, Task

from .battle import Battle
from .cells_effects import card_limit
from .ids import deck_of_slot
from .mission_cards import card_choices, part_for, shown_fit, still_needed
from .missions import Mission
from .modes import shows_mission_cards, team_of
from .remask import keeps_cards_on_show
from .rules import can_attempt, mission_of, missions_here

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["HandIn", "MissionAttempt"]


@dataclass
class HandIn(Task["HogwartsState"]):
    """``seat`` puts ``tokens`` (taken off its sheet) on star cells of board 2 of its choice, one by one."""

    seat: int
    tokens: list[str]

    def run(self, g: HogwartsState) -> Outcome:
        return Decide((self.seat,), "hand_in") if self.tokens else Done()

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        cells = [c.id for c in g.data.cells.values() if c.board == "board2" and c.kind == "star"]
        return [{"type": "place", "token": self.tokens[0], "cell": c} for c in cells]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        g.place_token(str(answers[0][1]["cell"]), self.tokens.pop(0))
        return CONTINUE


@keeps_cards_on_show
@dataclass
class MissionAttempt(Task["HogwartsState"]):
    class Stage(Enum):
        ASK = auto()
        FIGHT = auto()
        SHOW = auto()
        OUTCOME = auto()

    seat: int
    slot: int = -1  # the mission being attempted (opened)
    stage: Stage = Stage.ASK
    result: str = ""
    tokens: list[str] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)  # the qualified cards shown (C-52)
    showing: int = 0  # team mode: which member (clockwise from the holder) shows its cards now

    def run(self, g: HogwartsState) -> Outcome:
        S = MissionAttempt.Stage
        if self.stage is S.ASK:
            if self.slot >= 0:
                self.stage = S.FIGHT
                return CONTINUE
            return Decide((self.seat,), "mission") if missions_here(g, self.seat) else Done()
        if self.stage is S.FIGHT:
            mission = mission_of(g, self.slot)
            assert mission is not None
            if not can_attempt(g, self.seat, mission, g.pos[self.seat]):
                return Done()  # it stopped for it, then lost a token in a battle: nothing to attempt
            if shows_mission_cards(g) and mission.qualified_cards:
                self.stage = S.SHOW
                return CONTINUE
            return self.fight(g)
        if self.stage is S.SHOW:
            return Decide((self.shower(g),), "mission_cards")
        return self.outcome(g)

    def shower(self, g: HogwartsState) -> Seat:
        return team_of(g, self.seat)[self.showing]

    def shown_cards(self, g: HogwartsState) -> list[tuple[Slot, str]]:
        return [(s, str(g.card_of(s))) for s in self.shown]

    def fight(self, g: HogwartsState) -> Outcome:
        mission = mission_of(g, self.slot)
        assert mission is not None
        self.stage = MissionAttempt.Stage.OUTCOME
        g.log("mission", self.seat, mission.number)
        fighters = team_of(g, self.seat)  # team mode: the whole team, the enemy's LP multiplied (rules §11, §14.4)
        battle = Battle(fighters, mission.battle_card, "mission", card_limit(g), keep=list(mission.tokens))
        return Call(battle, into="result")

    def outcome(self, g: HogwartsState) -> Outcome:
        mission = mission_of(g, self.slot)
        assert mission is not None
        for slot in self.shown:  # the cards shown go under their decks, used or not (C-52)
            for member in team_of(g, self.seat):
                if slot in g.hand[member]:
                    g.discard_from_hand(member, slot)
        for token in mission.tokens:  # handed in whatever the outcome, also those used in the battle (C-51)
            holder = next((m for m in team_of(g, self.seat) if token in g.held[m]), -1)
            if holder >= 0:
                g.held[holder].remove(token)
            self.tokens.append(token)
        if self.result == "won":
            g.missions[self.seat].remove(self.slot)
            g.done[self.seat].append(mission.number)
            g.score(self.seat, mission.reward, f"M{mission.number:02d}")
        return Replace(HandIn(self.seat, list(self.tokens)))

    def team_show(self, g: HogwartsState, seat: Seat, mission: Mission, slots: list[int]) -> Outcome:
        """Team mode: one member's part is open; after the last member the needs are met, or no attempt."""
        self.shown.extend(slots)
        g.log("mission_cards", seat, [g.card_of(s) for s in slots])
        self.showing += 1
        if self.showing < len(team_of(g, self.seat)):
            return CONTINUE
        if still_needed(g, mission, self.shown_cards(g)):
            g.log("mission_short", self.seat, mission.number)
            return Done()  # the team lacks cards: no attempt (the cards shown stay in their hands)
        return self.fight(g)

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "no_mission"}]
        if self.stage is MissionAttempt.Stage.SHOW:
            mission = mission_of(g, self.slot)
            assert mission is not None
            if len(team_of(g, self.seat)) == 1:
                return out + [{"type": "show", "slots": cards} for cards in card_choices(g, seat, mission, knowledge)]
            part = part_for(g, still_needed(g, mission, self.shown_cards(g)), seat, knowledge)
            shows: list[Action] = [{"type": "show", "slots": part}] + ([{"type": "show", "slots": []}] if part else [])
            return (out if self.showing == 0 else []) + shows
        for slot in g.missions[seat]:
            mission = mission_of(g, slot, knowledge)
            if mission is not None and can_attempt(g, seat, mission, g.pos[seat], knowledge):
                out.append({"type": "mission", "slot": slot})
        return out

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") == "no_mission":
            return
        if self.stage is MissionAttempt.Stage.SHOW:
            mission = mission_of(g, self.slot)
            if action.get("type") != "show" or mission is None:
                raise IllegalAction(f"the mission's cards are asked: {action}")
            if len(team_of(g, self.seat)) > 1:  # a member's part: cards of its hand, each shown once
                slots = action.get("slots")
                if not isinstance(slots, list) or len(set(map(str, slots))) != len(slots) or not all(
                        isinstance(s, int) and s in g.hand[seat] and deck_of_slot(s) in ("spell", "potion")
                        for s in slots):
                    raise IllegalAction("a member shows distinct spell or potion cards of its own hand")
                return
            if shown_fit(g, seat, mission, action.get("slots"), knowledge) is False:
                raise IllegalAction(f"those cards do not meet mission {mission.number}'s needs")
            return
        if action.get("type") != "mission" or action.get("slot") not in g.missions[seat]:
            raise IllegalAction(f"not one of seat {seat}'s missions: {action}")
        mission = mission_of(g, action["slot"], knowledge)
        if mission is not None and not can_attempt(g, seat, mission, g.pos[seat], knowledge):
            raise IllegalAction(f"mission {mission.number} cannot be attempted here with these tokens")

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "show" and isinstance(action.get("slots"), list):
            return tuple(s for s in action["slots"] if isinstance(s, int))
        return (action["slot"],) if action.get("type") == "mission" and isinstance(action.get("slot"), int) else ()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        if action["type"] == "no_mission":
            return Done()
        if action["type"] == "show":
            mission = mission_of(g, self.slot)
            assert mission is not None
            if len(team_of(g, self.seat)) > 1:
                return self.team_show(g, seat, mission, [int(s) for s in action["slots"]])
            if not shown_fit(g, seat, mission, action["slots"], g.public()):
                raise IllegalAction("the cards shown do not meet the mission's needs")
            self.shown = [int(s) for s in action["slots"]]
            g.log("mission_cards", seat, [g.card_of(s) for s in self.shown])
            return self.fight(g)
        slot = int(action["slot"])
        mission = mission_of(g, slot)
        if mission is None or not can_attempt(g, seat, mission, g.pos[seat]):
            raise IllegalAction("the card opened is no mission that can be attempted here")
        self.slot = slot
        self.stage = MissionAttempt.Stage.FIGHT
        return CONTINUE
