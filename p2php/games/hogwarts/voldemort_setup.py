"""The set-up of The Return of Lord Voldemort (rules §16.1, data §4.4) and Voldemort's return (§16.3).

Set-up: the villain's seat (the first player, V1) takes sheet 9 (Pettigrew); the others choose Harry, Ron or
Hermione in turn, Harry always taken (data §4.4: the last hero to choose must take him if nobody has).  Only
the spell and potion decks are shuffled (no mission, book, duel, event or action cards, §16); the Horcruxes
go on their fixed cells, the six other tokens on free star cells in an order drawn from the joint randomness;
the Elder Wand and the Resurrection Stone are set aside.  One Deal gives each sheet its spell and potion
cards (no books); everyone takes the sheet's LP, 1 flying powder and 1 portal token.

The return: the sheet flips to Lord Voldemort with 7 LP less one per Horcrux already destroyed (C-43);
Pettigrew's cards go under their decks and Voldemort and his six Death Eaters take their cards from the deck
tops (one Deal to the villain, V4); the villain puts each Death Eater on a tower of his choice, one per tower
and none on a hero (V5); then he places the Resurrection Stone and Harry the Elder Wand, each on any
enterable map cell but the graveyard (C-46).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Deal, Decide, Knowledge, Randomness, Seat, Shuffle, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task
from p2php.rng import DetRng

from .battle import BATTLE_CARDS
from .ids import deck_cards, deck_first_slot
from .reseal import reseal, resealed
from .voldemort_rules import (
    GRAVEYARD,
    HARRY,
    PETTIGREW,
    STONE,
    VOLDEMORT_BACK,
    WAND,
    campaign,
    eater_sheet,
    harry,
)

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["HERO_SHEETS", "ReturnSetup", "TheReturn", "placement_cells"]

HERO_SHEETS = (1, 2, 3)
STARTING_POWDER = STARTING_PORTALS = 1
TOWER = "tower"


def star_cells(g: HogwartsState) -> list[str]:
    return [c.id for c in g.data.cells.values() if c.kind == "star"]


def placement_cells(g: HogwartsState) -> list[str]:
    """Where the Stone and the Wand may be placed: any enterable map cell but the graveyard (C-46), sorted."""
    return sorted(c for c in g.graph.enterable if c != GRAVEYARD)


def deal_cards(g: HogwartsState, wants: Sequence[tuple[Mapping[str, int], Seat]]) -> tuple[tuple[Slot, Seat], ...]:
    """Slots from the spell and potion deck tops for each (cards, seat) in order (fewer if a deck runs short)."""
    tops = {d: 0 for d in BATTLE_CARDS}
    out: list[tuple[Slot, Seat]] = []
    for cards, seat in wants:
        for deck in ("spell", "potion"):
            for _ in range(cards.get(deck, 0)):
                if tops[deck] < len(g.deck[deck]):
                    out.append((g.deck[deck][tops[deck]], seat))
                    tops[deck] += 1
    return tuple(out)


@dataclass
class ReturnSetup(Task["HogwartsState"]):
    class Stage(Enum):
        CHARACTERS = auto()
        SHUFFLE = auto()
        TOKENS = auto()
        DEAL = auto()

    stage: Stage = Stage.CHARACTERS
    chosen: int = 0
    shuffled: int = 0

    def chooser(self, g: HogwartsState) -> Seat:
        return (campaign(g).villain + 1 + self.chosen) % g.players

    def run(self, g: HogwartsState) -> Outcome:
        S = ReturnSetup.Stage
        if self.stage is S.CHARACTERS:
            villain = campaign(g).villain
            if not g.sheet[villain]:
                g.sheet[villain] = PETTIGREW
                g.log("character", villain, PETTIGREW)
            if self.chosen == g.players - 1:
                self.stage = S.SHUFFLE
                return CONTINUE
            return Decide((self.chooser(g),), "character")
        if self.stage is S.SHUFFLE:
            deck = BATTLE_CARDS[self.shuffled]
            return Shuffle(deck_cards(deck), deck_first_slot(deck), purpose=deck)
        if self.stage is S.TOKENS:
            return Randomness("tokens")
        return Deal(deal_cards(g, [(g.student(s).start_cards, s) for s in range(g.players)]))

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        free = [s for s in HERO_SHEETS if s not in g.sheet]
        last = self.chosen == g.players - 2
        if last and HARRY in free:
            free = [HARRY]
        return [{"type": "character", "sheet": s} for s in free]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        g.sheet[seat] = int(action["sheet"])
        g.log("character", seat, g.sheet[seat])
        self.chosen += 1
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        S = ReturnSetup.Stage
        rv = g.data.return_of_voldemort
        if isinstance(step, Shuffle):
            g.deck[step.purpose] = list(step.slots)
            self.shuffled += 1
            if self.shuffled == len(BATTLE_CARDS):
                self.stage = S.TOKENS
            return CONTINUE
        if isinstance(step, Randomness):
            for token, cell in rv.horcruxes.items():
                g.place_token(cell, token)
            free = [c for c in star_cells(g) if c not in g.tokens]
            order = DetRng(random).permutation(len(free))
            for token, k in zip(rv.random_tokens, order, strict=False):
                g.place_token(free[k], token)
            self.stage = S.DEAL
            return CONTINUE
        assert isinstance(step, Deal)
        for slot, seat in step.to:
            g.deck[BATTLE_CARDS[0] if slot in g.deck[BATTLE_CARDS[0]] else BATTLE_CARDS[1]].remove(slot)
            g.hand[seat].append(slot)
        for seat in range(g.players):
            g.lp[seat] = g.student(seat).lp
            g.give(seat, "powder", STARTING_POWDER)
            g.give(seat, "portal", STARTING_PORTALS)
        g.log("setup")
        return Done()


@dataclass
class TheReturn(Task["HogwartsState"]):
    """Voldemort returns (rules §16.3): flip, cards, the Death Eaters on towers, the Stone, then the Wand."""

    class Stage(Enum):
        FLIP = auto()
        DEAL = auto()
        EATERS = auto()
        STONE = auto()
        WAND = auto()

    stage: Stage = Stage.FLIP
    placed: int = 0

    def run(self, g: HogwartsState) -> Outcome:
        c = campaign(g)
        S = TheReturn.Stage
        if self.stage is S.FLIP:
            c.returned = True
            g.lp[c.villain] = max(1, g.data.death_eaters[VOLDEMORT_BACK - 1].lp - len(c.destroyed))  # C-43
            for slot in list(g.hand[c.villain]):
                g.discard_from_hand(c.villain, slot)
            g.log("voldemort_returns", c.villain, g.lp[c.villain])
            names = g.data.return_of_voldemort.death_eaters
            for name in names:
                c.eater_hand[name] = []
                c.eater_lp[name] = eater_sheet(g, name).lp
            self.stage = S.DEAL
            return CONTINUE
        if self.stage is S.DEAL:
            back = g.data.death_eaters[VOLDEMORT_BACK - 1]
            names = g.data.return_of_voldemort.death_eaters
            wants = [(back.start_cards, c.villain), *((eater_sheet(g, n).start_cards, c.villain) for n in names)]
            dealt = deal_cards(g, wants)
            return reseal(g, [slot for slot, _seat in dealt]) or Deal(dealt)
        if self.stage is S.EATERS:
            return Decide((c.villain,), "place_eater")
        if self.stage is S.STONE:
            return Decide((c.villain,), "place_stone")
        return Decide((harry(g),), "place_wand")

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if not isinstance(step, Deal):
            resealed(g, step)
            return CONTINUE
        c = campaign(g)
        back = g.data.death_eaters[VOLDEMORT_BACK - 1]
        owners = [("", back.start_cards)] + [(n, eater_sheet(g, n).start_cards)
                                             for n in g.data.return_of_voldemort.death_eaters]
        dealt = [slot for slot, _seat in step.to]
        for deck in BATTLE_CARDS:  # deal_cards took each deck's tops in the owners' order
            mine = [s for s in dealt if s in g.deck[deck]]
            for s in mine:
                g.deck[deck].remove(s)
            for name, cards in owners:
                take, mine = mine[:cards.get(deck, 0)], mine[cards.get(deck, 0):]
                (c.eater_hand[name] if name else g.hand[c.villain]).extend(take)
        self.stage = TheReturn.Stage.EATERS
        return CONTINUE

    def next_eater(self, g: HogwartsState) -> str:
        return g.data.return_of_voldemort.death_eaters[self.placed]

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        c = campaign(g)
        S = TheReturn.Stage
        if self.stage is S.EATERS:
            taken = set(c.eaters.values()) | set(g.pos)
            towers = [cell for cell in sorted(g.graph.kinds) if g.graph.kinds[cell] == TOWER and cell not in taken]
            return [{"type": "place_eater", "eater": self.next_eater(g), "cell": t} for t in towers]
        token = STONE if self.stage is S.STONE else WAND
        return [{"type": "place", "token": token, "cell": cell} for cell in placement_cells(g)]

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        c = campaign(g)
        action = answers[0][1]
        S = TheReturn.Stage
        if self.stage is S.EATERS:
            c.eaters[str(action["eater"])] = str(action["cell"])
            self.placed += 1
            if self.placed == len(g.data.return_of_voldemort.death_eaters):
                self.stage = S.STONE
            return CONTINUE
        g.place_token(str(action["cell"]), str(action["token"]))
        g.log("placed", answers[0][0], action["token"], action["cell"])
        if self.stage is S.STONE:
            self.stage = S.WAND
            return CONTINUE
        return Done()
