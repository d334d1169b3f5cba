"""The public state of a duel: each seat's zones as slots, whose turn it is, the log, the task stack.

Every card is a slot of its owner's secret deck (seat ``s``'s deck is slots ``s * DECK_SLOTS ..``), so
ownership is arithmetic (§7: a discarded card goes to its *owner's* pile).  Zones hold slots; a face is
known to everyone once the card is opened (:attr:`pub`), which happens when it is played, milled or
discarded from the hand.  The deck and hand hold slots whose faces the state never learns.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Knowledge, Seat, Slot
from p2php.engine.taskgame import TaskGame, keys_by_type
from p2php.engine.tasks import Task, TaskStack
from p2php.games.tcg.cards import Card, card_by_number
from p2php.games.tcg.ids import card_of

if TYPE_CHECKING:  # the effects at timing points are given to the state (triggers.py imports this module)
    from p2php.engine.timing import Effect

__all__ = ["DECK_SLOTS", "HAND", "TcgState", "owner_of"]

DECK_SLOTS = 100
"""Slots reserved per seat and deck: a deck is at most 60 cards (§10).  Seat ``s``'s first deck is slots
``s * DECK_SLOTS ..``; each reshuffle of its deck ("Then shuffle your deck") makes a new deck in the seat's next
block, ``(2k + s) * DECK_SLOTS ..`` (:meth:`TcgState.fresh_block`), so whose card a slot is stays arithmetic."""
HAND = 7
"""The starting hand (§2 step 4)."""


def owner_of(slot: Slot) -> Seat:
    """Whose card ``slot`` is: every card is a slot of one of its owner's decks (blocks alternate by seat)."""
    return (slot // DECK_SLOTS) % 2


class TcgState(TaskGame):
    """Zones per seat (lists of slots), the turn, the log; the rules are tasks on :attr:`stack`."""

    action_keys = keys_by_type({  # every answer's keys, by its type (TaskGame.action_keys)
        "ability": "slot", "creature": "slot", "dean": "", "discard": "slot", "draw": "cards", "end": "", "hand": "",
        "in_play": "slot", "invoke": "", "item": "slot", "keep": "slot", "lesson": "lesson", "none": "",
        "once": "card", "play": "slot", "prevent": "", "show": "slot", "skip": "", "solve": "", "stop": "",
        "take": "slot", "target": "seat slot", "trade": "card",
    })

    stack: TaskStack[TcgState]

    def __init__(self, options: Mapping[str, object], starts: tuple[int, int], sizes: tuple[int, int],
                 first_task: Task[TcgState], triggers: Mapping[int, Effect[TcgState]] | None = None) -> None:
        self.options = dict(options)
        self.triggers = triggers or {}  # card number -> effect at timing points (triggers.py; not state)
        self.players = 2
        self.start = list(starts)  # the starting Characters' card numbers (public, never in a deck: §2)
        self.sizes = list(sizes)
        self.deck: list[list[Slot]] = [[], []]  # top first
        self.hand: list[list[Slot]] = [[], []]
        self.discard: list[list[Slot]] = [[], []]  # bottom first; always face up (§0.3)
        self.lessons: list[list[Slot]] = [[], []]
        self.creatures: list[list[list[int]]] = [[], []]  # [slot, damage counters] in play order
        self.characters: list[list[Slot]] = [[], []]  # Characters played from the hand (§5.5)
        self.items: list[list[Slot]] = [[], []]  # Items in play (§5.4)
        self.adventures = [-1, -1]  # each side's Adventure in play, or -1 (§5.6: one per side)
        self.face_up_forever: list[Seat] = []  # seats playing with the hand face up for good (Meet the Centaurs)
        self.lesson_actions = 0  # Actions used to play a Lesson this turn (Reptile House)
        self.skipped = [0, 0]  # Actions skipped towards solving each side's Adventure (Diagon Alley ...)
        self.plays = [0, 0]  # cards each seat played in its current or latest turn (Human Chess Game)
        self.shields: list[list[Any]] = []  # [seat, turn number, "kind,kind"]: one-turn effects (damage
        # sources prevented, "*" all; "no_play"; "snuffle")
        self.muzzled: list[list[int]] = []  # [Creature slot, last turn number its damage is prevented] (Winged Keys)
        self.used: list[list[int]] = []  # [seat, key] of once-per-game / once-per-turn uses (key: see abilities)
        self.extra_actions = 0  # Actions granted during the current turn, not yet added (Platform 9 3/4, Unicorn)
        self.turn = -1  # whose turn (-1: set-up)
        self.turns = 0  # turns begun
        self.first = -1
        self.events: list[list[Any]] = []  # structured log entries, rendered by view.py
        self.pub: dict[Slot, CardId] = {}
        self.stack = TaskStack([first_task])
        self.stack.settle(self)

    # ---- reading cards
    def card(self, slot: Slot) -> Card:
        """The card of an opened slot."""
        return card_of(self.pub[slot])

    def characters_of(self, seat: Seat) -> list[Card]:
        """The Characters ``seat`` has in play: the starting one first (§5.5)."""
        return [card_by_number(self.start[seat]), *(self.card(s) for s in self.characters[seat])]

    def has_character(self, seat: Seat, name: str) -> bool:
        return any(c.name == name for c in self.characters_of(seat))

    def in_play_names(self) -> list[str]:
        """Names of every card in play on both sides (for Unique, §8)."""
        out: list[str] = []
        for seat in (0, 1):
            out.extend(c.name for c in self.characters_of(seat))
            out.extend(self.card(s).name for s in self.lessons[seat])
            out.extend(self.card(s).name for s, _ in self.creatures[seat])
            out.extend(self.card(s).name for s in self.items[seat])
            out.extend(self.card(s).name for s in self.adventures[seat:seat + 1] if s >= 0)
        return out

    def in_play(self, seat: Seat) -> list[Slot]:
        """``seat``'s cards in play that are slots (not the starting Character): Lessons, Creatures, Items,
        Characters."""
        adventure = [self.adventures[seat]] if self.adventures[seat] >= 0 else []
        return [*self.lessons[seat], *(c[0] for c in self.creatures[seat]), *self.items[seat], *self.characters[seat],
                *adventure]

    def lessons_of(self, seat: Seat, kind: object) -> list[Slot]:
        """``seat``'s Lessons in play of one Lesson type, in play order."""
        return [s for s in self.lessons[seat] if self.card(s).lesson == kind]

    def creature_damage(self, seat: Seat) -> int:
        """What ``seat``'s Creatures do to the opponent: Rubeus Hagrid adds 2 to each that does 3 or more."""
        hagrid = 2 if self.has_character(seat, "Rubeus Hagrid") else 0
        quiet = {s for s, until in self.muzzled if until >= self.turns}
        hits = [self.card(s).damage or 0 for s, _ in self.creatures[seat] if s not in quiet]
        return sum(h + hagrid if h >= 3 else h for h in hits)

    def adventure_of(self, seat: Seat) -> int:
        """The card number of ``seat``'s Adventure in play, or 0."""
        slot = self.adventures[seat]
        return self.card(slot).number if slot >= 0 else 0

    def marked(self, seat: Seat, what: str) -> bool:
        """Whether a one-turn effect ``what`` is on ``seat`` this turn (a shield, "no_play", "snuffle")."""
        return any(s == seat and t == self.turns and what in k.split(",") for s, t, k in self.shields)

    def shielded(self, seat: Seat, source: str) -> bool:
        """Whether damage from ``source`` to ``seat`` is prevented now (a shield for this turn)."""
        return self.marked(seat, source) or self.marked(seat, "*")

    def face_up(self, seat: Seat) -> bool:
        """``seat`` plays with its hand face up: its opponent has Mrs Norris (29) or Meet the Centaurs (27) in
        play, or it got Meet the Centaurs' reward."""
        other = self.adventures[1 - seat]
        return seat in self.face_up_forever or (other >= 0 and self.card(other).number == 27) or \
            any(self.card(s).number == 29 for s, _ in self.creatures[1 - seat])

    def fresh_block(self, seat: Seat) -> Slot:
        """The first slot of a new deck of ``seat``'s (a reshuffle): its next block above every slot seen so far."""
        top = -1
        zones = (self.deck, self.hand, self.discard, self.lessons, self.characters, self.items)
        slots = [s for zone in zones for side in zone for s in side]
        slots += [c[0] for side in self.creatures for c in side] + [s for s in self.adventures if s >= 0]
        for slot in (*slots, *self.pub):
            if owner_of(slot) == seat:
                top = max(top, slot // (2 * DECK_SLOTS))
        return (2 * (top + 1) + seat) * DECK_SLOTS

    # ---- moving cards (every move keeps one home)
    def to_discard(self, slot: Slot) -> None:
        """An opened card goes to its owner's discard pile (§7, FAQ 1)."""
        self.discard[owner_of(slot)].append(slot)

    def remove_creature(self, slot: Slot) -> None:
        seat = owner_of(slot)
        self.creatures[seat] = [c for c in self.creatures[seat] if c[0] != slot]
        self.to_discard(slot)

    def remove_lesson(self, slot: Slot) -> None:
        self.lessons[owner_of(slot)].remove(slot)
        self.to_discard(slot)

    def discard_from_play(self, slot: Slot) -> None:
        """A card in play (Lesson, Creature, Item, Character or Adventure) goes to its owner's discard pile."""
        seat = owner_of(slot)
        if slot in self.lessons[seat]:
            self.remove_lesson(slot)
        elif slot in self.items[seat]:
            self.items[seat].remove(slot)
            self.to_discard(slot)
        elif slot == self.adventures[seat]:
            self.adventures[seat] = -1
            self.to_discard(slot)
        elif slot in self.characters[seat]:
            self.characters[seat].remove(slot)
            self.to_discard(slot)
        else:
            self.remove_creature(slot)
        self.log("discarded_from_play", slot)

    def log(self, *entry: Any) -> None:
        self.events.append(list(entry))

    # ---- what the kit's TimingPoint asks (p2php.engine.timing.Listeners)
    def listening(self, point: str) -> list[tuple[Seat, str]]:
        """Cards in play with an effect at ``point``, the current player's side first, in play order."""
        first = max(self.turn, 0)
        out: list[tuple[Seat, str]] = []
        for seat in (first, 1 - first):
            for slot in self.in_play(seat):
                effect = self.triggers.get(self.card(slot).number)
                if effect is not None and point in effect.points:
                    out.append((seat, effect.key))
        return out

    def effect(self, key: str) -> Effect[TcgState]:
        return self.triggers[int(key)]

    def may_respond(self, seat: Seat) -> bool:
        return True

    def announce(self, seat: Seat, key: str, chosen: bool) -> None:
        self.log("effect", seat, int(key))

    def public(self) -> Knowledge:
        return Knowledge(self.pub)

    # ---- the contract's views
    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        from p2php.games.tcg.view import observation

        return observation(self, seat, knowledge)

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        from p2php.games.tcg.view import describe

        return describe(self, seat, action, faces)

    def describe_prompt(self, prompt: str) -> str:
        from p2php.games.tcg.view import prompt_words

        return prompt_words(prompt)

    def snapshot(self) -> Any:
        return {"start": self.start, "sizes": self.sizes, "deck": self.deck, "hand": self.hand,
                "discard": self.discard, "lessons": self.lessons, "creatures": self.creatures,
                "characters": self.characters, "items": self.items, "extra_actions": self.extra_actions,
                "shields": self.shields, "used": self.used, "muzzled": self.muzzled,
                "adventures": self.adventures, "face_up_forever": self.face_up_forever,
                "lesson_actions": self.lesson_actions, "skipped": self.skipped, "plays": self.plays,
                "turn": self.turn, "turns": self.turns, "first": self.first,
                "events": self.events, "options": sorted(self.options.items()), "stack": self.stack.snapshot()}

    def clone(self) -> TcgState:
        new = copy.copy(self)
        for name in ("start", "sizes", "adventures", "face_up_forever", "skipped", "plays"):
            setattr(new, name, list(getattr(self, name)))
        for name in ("deck", "hand", "discard", "lessons", "characters", "items"):
            setattr(new, name, [list(zone) for zone in getattr(self, name)])
        new.creatures = [[list(c) for c in zone] for zone in self.creatures]
        new.shields = [list(x) for x in self.shields]
        new.used = [list(x) for x in self.used]
        new.muzzled = [list(x) for x in self.muzzled]
        new.events = [list(e) for e in self.events]
        new.pub = dict(self.pub)
        new.options = dict(self.options)
        new.stack = self.stack.clone()
        return new
