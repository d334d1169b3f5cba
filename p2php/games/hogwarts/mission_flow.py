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
from .mission_cards import cards_for, shown_fit
from .modes import shows_mission_cards
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
                return Decide((self.seat,), "mission_cards")
            return self.fight(g)
        if self.stage is S.SHOW:
            return Decide((self.seat,), "mission_cards")
        return self.outcome(g)

    def fight(self, g: HogwartsState) -> Outcome:
        mission = mission_of(g, self.slot)
        assert mission is not None
        self.stage = MissionAttempt.Stage.OUTCOME
        g.log("mission", self.seat, mission.number)
        battle = Battle([self.seat], mission.battle_card, "mission", card_limit(g), keep=list(mission.tokens))
        return Call(battle, into="result")

    def outcome(self, g: HogwartsState) -> Outcome:
        mission = mission_of(g, self.slot)
        assert mission is not None
        for slot in self.shown:  # the cards shown go under their decks, used or not (C-52)
            if slot in g.hand[self.seat]:
                g.discard_from_hand(self.seat, slot)
        for token in mission.tokens:  # handed in whatever the outcome, also those used in the battle (C-51)
            if token in g.held[self.seat]:
                g.held[self.seat].remove(token)
            self.tokens.append(token)
        if self.result == "won":
            g.missions[self.seat].remove(self.slot)
            g.done[self.seat].append(mission.number)
            g.score(self.seat, mission.reward, f"M{mission.number:02d}")
        return Replace(HandIn(self.seat, list(self.tokens)))

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "no_mission"}]
        if self.stage is MissionAttempt.Stage.SHOW:
            mission = mission_of(g, self.slot)
            cards = cards_for(g, seat, mission, knowledge) if mission is not None else None
            return out + ([{"type": "show", "slots": cards}] if cards is not None else [])
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
            if mission is None or not shown_fit(g, seat, mission, action["slots"], g.public()):
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
