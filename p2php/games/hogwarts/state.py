"""The public state of a game of A Year at Hogwarts: figures, sheets, tokens, decks as slots, the task stack.

Everything here is identical on every peer.  Hands and missions are lists of slots whose faces only their
holder knows (:class:`~p2php.engine.contract.Knowledge`); which deck a hand card comes from is public
(:func:`.ids.deck_of_slot`), as at a real table where card backs differ.  Decks are lists of slots, top
first; a used card goes under its deck (rules §10.1), face up if it was played, face down if it was put
back unseen (a card returned after a lost duel).  All containers are lists or dicts with sorted keys in
the snapshot, so the state hash never depends on an iteration order.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Mapping
from typing import Any

from p2php.engine.contract import Action, CardId, Deal, Knowledge, Reshuffle, Reveal, Seat, Show, Slot
from p2php.engine.remask import knowers, note_seen, put_in_place
from p2php.engine.taskgame import TaskGame, keys_by_type
from p2php.engine.tasks import Task, TaskStack

from .board import Graph
from .data import graph, load
from .ids import DECKS, HAND_DECKS, MISSIONS, deck_first_slot, deck_of_slot, instance
from .sheets import StudentSheet
from .tables import HogwartsData

__all__ = ["LEAKY_CAULDRON", "MAX_LP", "MAX_TOKENS", "START", "HogwartsState"]

START = "start"
LEAKY_CAULDRON = "leaky_cauldron"
MAX_LP = 14
"""No character ever has more (rules §6)."""
MAX_TOKENS = 6
"""Object tokens a sheet holds (rules §6)."""
POWDER_SUPPLY = 20
PORTAL_SUPPLY = 10
"""The supplies of rules §0.4 (C-48: an empty supply gives nothing)."""


class HogwartsState(TaskGame):
    """Per-seat lists (index = seat) and the board's tokens; the rules are tasks on :attr:`stack`."""

    action_keys = keys_by_type({  # every answer's keys, by its type (TaskGame.action_keys)
        "accept": "", "apply": "slot", "buckbeak": "to", "card": "slot", "challenge": "seat", "character": "sheet",
        "death_eater": "cell", "death_eaters": "cells", "deck": "deck", "dice": "", "dodge": "", "done": "",
        "eater": "eater", "eater_move": "eater path", "end": "", "escape": "path", "exam": "slot",
        "exchange": "give take with", "fight": "", "flee": "", "fly": "to", "gift": "what", "go": "cell",
        "graveyard": "", "house": "house", "intercept": "piece to", "keep": "", "mission": "slot",
        "move": "mission path roll wait", "no_card": "", "no_defence": "", "no_match": "", "no_mission": "",
        "no_start": "", "opponent": "seat", "pass": "piece to", "place": "cell piece token",
        "place_eater": "cell eater", "place_quaffle": "cell", "portal": "", "practice": "",
        "prize": "token tokens what", "ready": "", "refuse": "", "reroll": "die", "resolve": "slot", "return": "slot",
        "shoot": "piece", "show": "slots", "spy": "slot", "start": "slot", "stay": "", "step": "piece to",
        "take": "cell give slot token", "take_hits": "", "throw": "bludger piece target", "time_turner": "",
        "token": "token",
    })

    stack: TaskStack[HogwartsState]
    bool_keys = frozenset({"wait"})  # a move that stays where it is ("wait": true): the one true/false of the game

    def __init__(self, players: int, options: Mapping[str, object], first_task: Task[HogwartsState]) -> None:
        self.options = dict(options)
        self.players = players
        self.first = 0  # the seat named "youngest" in the lobby (C-14)
        self.sheet = [0] * players  # sheet number, 0 until chosen
        self.pos = [START] * players
        self.lp = [0] * players
        self.points = [0] * players
        self.powder = [0] * players
        self.portals = [0] * players
        self.held: list[list[str]] = [[] for _ in range(players)]  # object tokens on the sheet
        self.hand: list[list[Slot]] = [[] for _ in range(players)]
        self.missions: list[list[Slot]] = [[] for _ in range(players)]  # secret, not yet completed
        self.done: list[list[int]] = [[] for _ in range(players)]  # completed mission numbers
        self.tokens: dict[str, list[str]] = {}  # cell -> object tokens lying there (stacking allowed)
        self.deck: dict[str, list[Slot]] = {d: [] for d in (*DECKS, MISSIONS)}  # top first
        self.supply = {"powder": POWDER_SUPPLY, "portal": PORTAL_SUPPLY}
        self.reshuffles: dict[str, int] = {}  # deck -> reshuffles so far (after a search, search.py)
        self.worn: dict[Slot, bool] = {}  # face-down deck cards a hand held: re-locked before a Deal (reseal.py)
        self.resealed: dict[str, int] = {}  # deck -> slots taken from the top of its span (reseal.py, remask.py)
        # who may know a hidden hand-deck card's face (remask.py): slot -> the seats it was dealt or shown to (a
        # worn card's re-lock keeps them); and [first slot, count, family] of every reshuffle whose joint key is
        # not its deck's first shuffle's (a family: a deck's shuffle and its reshuffles, named by its first slot)
        self.seen: dict[Slot, list[Seat]] = {}
        self.blocks: list[list[int]] = []
        self.truces: list[list[int]] = []  # [a, b, turns a still owes, turns b still owes] (C-34)
        self.turn = -1
        self.turns = 0  # turns begun
        self.extra_turns = 0  # Time-Turner turns taken (they count toward the year's guard, turn.YEAR_ROUNDS)
        self.fallen: list[Seat] = []  # seats defeated this turn: no return from a trip (C-21)
        self.ended: list[Seat] = []  # seats whose turn ended early this turn (a defeat, the Cloak): no mission
        self.qualified: list[Seat] = []  # seats that met the length's conditions this round (C-15)
        self.death_eaters: list[str] = []  # the cells holding a Death Eater token (qualified rules, C-12)
        self.matches = [0] * players  # Quidditch matches (solo: Snitch practices) each seat took part in
        self.defeats = [0] * players  # battles lost at 0 LP (solo: the end, C-11)
        teams = int(str(options.get("teams", 2))) if options.get("mode") == "team" else players
        self.team = [s % teams for s in range(players)]  # each seat's team (team mode, C-8; else its own)
        self.events: list[list[Any]] = []  # structured log, rendered by view.py
        self.pub: dict[Slot, CardId] = {}
        self.stack = TaskStack([first_task])
        self.stack.settle(self)

    # ---- the data
    @property
    def data(self) -> HogwartsData:
        return load()

    @property
    def graph(self) -> Graph:
        return graph()

    def student(self, seat: Seat) -> StudentSheet:
        return self.data.students[self.sheet[seat] - 1]

    def ability(self, seat: Seat) -> tuple[str, str]:
        """``seat``'s movement and battle ability keys (``spell_cell_x2``, ``res_minus_1``)."""
        sheet = self.student(seat)
        return sheet.movement_ability.key, sheet.battle_ability.key

    def card_of(self, slot: Slot, knowledge: Knowledge | None = None) -> str | None:
        """The distinct card id of ``slot`` if its face is public (or known to ``knowledge``), else None."""
        face = self.pub.get(slot) if knowledge is None else knowledge.face(slot)
        return None if face is None else instance(face).card

    @property
    def mode(self) -> str:
        return str(self.options["mode"])

    @property
    def length(self) -> str:
        return str(self.options["length"])

    # ---- small changes every rule uses
    def log(self, *entry: Any) -> None:
        self.events.append(list(entry))

    def heal(self, seat: Seat, n: int) -> None:
        self.lp[seat] = min(MAX_LP, self.lp[seat] + n)

    def score(self, seat: Seat, n: int, why: str) -> None:
        """House points change; they never drop below 0 (C-1)."""
        self.points[seat] = max(0, self.points[seat] + n)
        self.log("points", seat, n, why)

    def give(self, seat: Seat, what: str, n: int = 1) -> int:
        """Flying powder or portal tokens from the supply (C-48); how many ``seat`` got."""
        got = min(n, self.supply[what])
        self.supply[what] -= got
        if what == "powder":
            self.powder[seat] += got
        else:
            self.portals[seat] += got
        return got

    def spend(self, seat: Seat, what: str) -> None:
        if what == "powder":
            self.powder[seat] -= 1
        else:
            self.portals[seat] -= 1
        self.supply[what] += 1

    def under(self, slot: Slot) -> None:
        """A card goes under its own deck (face up if it was opened, face down otherwise: then it is worn, its
        holder's way of opening it known to all but that holder, reseal.py)."""
        self.deck[deck_of_slot(slot)].append(slot)
        if slot not in self.pub:
            self.worn[slot] = True

    def family(self, slot: Slot) -> int:
        """The first slot of the shuffle whose joint key ``slot`` is under (public: see ``blocks``)."""
        i = bisect.bisect_right(self.blocks, [slot, 1 << 62]) - 1
        if i >= 0 and slot < self.blocks[i][0] + self.blocks[i][1]:
            return self.blocks[i][2]
        return deck_first_slot(deck_of_slot(slot))

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        """:meth:`TaskGame.advance`, noting who may know a hand-deck card's face and each reshuffle's family."""
        step = self.stack.settle(self)
        t = type(step)
        family = -1
        if t is Reshuffle:
            assert isinstance(step, Reshuffle)
            hidden = [s for s in step.slots if s not in self.pub]
            family = self.family(hidden[0]) if hidden else step.first_slot  # face-up inputs only: a new key
        super().advance(faces, random)
        seen = self.seen
        if t is Deal:
            assert isinstance(step, Deal)
            for slot, seat in step.to:
                if deck_of_slot(slot) in HAND_DECKS and slot not in self.pub:
                    note_seen(seen, slot, seat)
        elif t is Show:
            assert isinstance(step, Show)
            for slot in step.slots:
                if deck_of_slot(slot) in HAND_DECKS and slot not in self.pub:
                    note_seen(seen, slot, step.viewer)
        elif t is Reshuffle:
            assert isinstance(step, Reshuffle)
            if family != deck_first_slot(deck_of_slot(step.first_slot)):
                bisect.insort(self.blocks, [step.first_slot, step.count, family])
            if step.count == 1:  # one card re-locked (a worn card, E37): whoever knew its face still does
                who = seen.pop(step.slots[0], None)
                if who is not None:
                    seen[step.first_slot] = who
            else:
                for slot in step.slots:
                    seen.pop(slot, None)
        elif t is Reveal:
            assert isinstance(step, Reveal)
            for slot in step.slots:
                seen.pop(slot, None)

    def remasked(self, seat: Seat, step: Reshuffle) -> None:
        """A re-mask of ``seat``'s hand cards ``step.slots`` is done (remask.py): the new slots take the old ones'
        places in the hand (their order says nothing: the Reshuffle shuffled them), taken from the top of the
        deck's span; an opened card's face is no longer public where it now lies.  Whoever knew a face of the group
        (every seat, for an opened card) knows it is one of the new slots, and learns which by elimination as the
        others show or leave: each new slot keeps them all in ``seen``, so the next pick mixes the hand again."""
        old, new = step.slots, list(step.new_slots)
        who = knowers(self.seen, self.pub, old, self.players)
        for n in new:
            if who:
                self.seen[n] = list(who)
        put_in_place(self.hand[seat], old, new)
        deck = deck_of_slot(step.first_slot)
        self.resealed[deck] = self.resealed.get(deck, 0) + len(old)
        for s in old:
            self.pub.pop(s, None)
        self.log("remask", seat, deck, len(old))

    def discard_from_hand(self, seat: Seat, slot: Slot) -> None:
        self.hand[seat].remove(slot)
        self.under(slot)

    def figures_at(self, cell: str, but: Seat | None = None) -> list[Seat]:
        return [s for s in range(self.players) if self.pos[s] == cell and s != but]

    def in_truce(self, a: Seat, b: Seat) -> bool:
        return any({t[0], t[1]} == {a, b} for t in self.truces)

    def place_token(self, cell: str, token: str) -> None:
        self.tokens.setdefault(cell, []).append(token)

    def take_token(self, cell: str, token: str) -> None:
        self.tokens[cell].remove(token)
        if not self.tokens[cell]:
            del self.tokens[cell]

    def public(self) -> Knowledge:
        return Knowledge(self.pub)

    # ---- the contract's views
    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        from .view import observation

        return observation(self, seat, knowledge)

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        from .view import describe

        return describe(self, seat, action, faces)

    def describe_prompt(self, prompt: str) -> str:
        from .action_words import prompt_words

        return prompt_words(prompt)

    def snapshot(self) -> Any:
        return {"options": sorted(self.options.items()), "first": self.first, "sheet": self.sheet, "pos": self.pos,
                "lp": self.lp, "points": self.points, "powder": self.powder, "portals": self.portals,
                "held": self.held, "hand": self.hand, "missions": self.missions, "done": self.done,
                "tokens": sorted(self.tokens.items()), "deck": sorted(self.deck.items()),
                "supply": sorted(self.supply.items()),
                "reshuffles": sorted(self.reshuffles.items()), "worn": sorted(self.worn),
                "resealed": sorted(self.resealed.items()), "seen": sorted(self.seen.items()), "blocks": self.blocks,
                "truces": self.truces, "turn": self.turn,
                "turns": self.turns, "extra_turns": self.extra_turns, "fallen": self.fallen, "ended": self.ended,
                "qualified": self.qualified, "events": self.events, "death_eaters": self.death_eaters,
                "matches": self.matches, "defeats": self.defeats, "team": self.team,
                "stack": self.stack.snapshot()}

    def clone(self) -> HogwartsState:
        new = copy.copy(self)
        for name in ("sheet", "pos", "lp", "points", "powder", "portals", "fallen", "ended", "qualified",
                     "death_eaters", "matches", "defeats", "team"):
            setattr(new, name, list(getattr(self, name)))
        for name in ("held", "hand", "missions", "done", "truces", "events"):
            setattr(new, name, [list(x) for x in getattr(self, name)])
        new.tokens = {k: list(v) for k, v in self.tokens.items()}
        new.deck = {k: list(v) for k, v in self.deck.items()}
        new.supply = dict(self.supply)
        new.reshuffles = dict(self.reshuffles)
        new.worn = dict(self.worn)
        new.resealed = dict(self.resealed)
        new.seen = {k: list(v) for k, v in self.seen.items()}
        new.blocks = [list(b) for b in self.blocks]
        new.options = dict(self.options)
        new.pub = dict(self.pub)
        new.stack = self.stack.clone()
        return new
