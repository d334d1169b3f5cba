"""Damage, drawing and the end: the only places a deck shrinks, so the only places a game is lost.

Damage to a player mills the top of their deck face up into their discard pile (§1, §7); damage to a
Creature puts counters on it, and at counters >= Health it is discarded (§5.2).  Drawing deals the top
slot to its owner face down.

Decision (§1, "runs out", where the rules are silent on timing): the rulebook says "You win the game when
your opponent's deck runs out of cards", so a player loses the moment their deck reaches 0 cards, by
damage or by drawing (reading (a)); damage beyond the cards left mills what is there.  Only one deck
shrinks at a time, so both cannot run out together.

Every damage to a player names its source (``creature``, ``spell``): "prevent all damage done to you by
your opponent's Creatures" (Wingardium Leviosa, Dungbomb, Shrinking Potion) is a shield on the state
(:meth:`TcgState.shielded`), and damage by a Spell first passes the :data:`SPELL_DAMAGE` timing point,
where Kelpie, Pet Toad, Potion Ingredients and the Invisibility Cloak may take or prevent it
(``triggers.py``).  Decision: Steelclaw's "All your creatures do damage" is damage by Creatures, not
by a Spell (ruling rc1ef75c5 counts it as Creature damage for Rubeus Hagrid).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, auto

from p2php.engine.contract import CardId, Deal, GameOver, Reveal, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push, Task
from p2php.engine.timing import TimingPoint
from p2php.games.tcg.state import TcgState, owner_of

__all__ = ["SPELL_DAMAGE", "Draw", "Mill", "damage_creature", "draws", "lost"]

PEEVES = 60
SPELL_DAMAGE = "spell_damage"
"""A Spell is about to damage a player; context ``{"seat", "amount", "prevented"}``."""


def lost(g: TcgState, seat: int) -> GameOver:
    """``seat``'s deck ran out: the other seat wins (§1)."""
    other = 1 - seat
    g.log("out", seat)
    return GameOver((other,), tuple(int(s == other) for s in (0, 1)), f"seat {seat}'s deck ran out: seat {other} wins")


def damage_creature(g: TcgState, slot: Slot, amount: int) -> None:
    """Counters on a Creature in play; cumulative damage >= Health discards it (§5.2, §7)."""
    zone = g.creatures[owner_of(slot)]
    for entry in zone:
        if entry[0] == slot:
            entry[1] += amount
            g.log("hurt", slot, amount)
            if entry[1] >= (g.card(slot).health or 0):
                g.remove_creature(slot)
                g.log("dies", slot)
            return
    raise ValueError(f"slot {slot} is not a Creature in play")


@dataclass
class Mill(Task[TcgState]):
    """``amount`` damage to ``seat``: the top cards are opened and go to its discard pile."""

    class Stage(Enum):
        PREVENT = auto()
        OPEN = auto()
        CHECK = auto()

    seat: int
    amount: int
    source: str = "spell"  # "creature" | "spell"
    stage: Stage = Stage.PREVENT
    opened: list[int] = field(default_factory=list)
    ctx: dict[str, object] = field(default_factory=dict)

    def run(self, g: TcgState) -> Outcome:
        if self.stage is Mill.Stage.PREVENT:
            self.stage = Mill.Stage.OPEN
            if g.shielded(self.seat, self.source):
                g.log("prevented", self.seat, self.amount, self.source)
                return Done()
            if self.source == "spell" and g.listening(SPELL_DAMAGE):
                return Call(TimingPoint(SPELL_DAMAGE, {"seat": self.seat, "amount": self.amount,
                                                       "prevented": False}), into="ctx")
            return CONTINUE
        if self.stage is Mill.Stage.OPEN:
            if self.ctx.get("prevented"):
                return Done()
            self.opened = g.deck[self.seat][: self.amount]
            if not self.opened:
                return Done()
            return Reveal(tuple(self.opened))
        return lost(g, self.seat) if not g.deck[self.seat] else Done()

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        del g.deck[self.seat][: len(self.opened)]
        for slot in self.opened:
            g.to_discard(slot)
        g.log("mill", self.seat, list(self.opened))
        self.stage = Mill.Stage.CHECK
        return CONTINUE


@dataclass
class Draw(Task[TcgState]):
    """``seat`` draws its top card face down; drawing the last one loses (see the module's decision).

    ``event_end``: the last card of one drawing ("draw 3 cards" is one), after which Peeves Causes Trouble
    does its 1 damage (ruling r4001ad64: 1 damage however many cards are drawn).
    A hand played face up (Mrs Norris) opens the drawn card to everyone; under Snuffling Potion
    ("whenever your opponent draws a card, he or she discards it instead") the top card is opened and
    discarded instead: it never reaches the hand (and it is still a draw, so the last card loses).
    """

    seat: int
    drawn: bool = False
    slot: int = -1  # the drawn card, while it is being opened (face-up hand)
    event_end: bool = True
    peeved: bool = False

    def run(self, g: TcgState) -> Outcome:
        if self.slot >= 0:
            return Reveal((self.slot,))
        if self.drawn:
            if not g.deck[self.seat]:
                return lost(g, self.seat)
            if self.event_end and not self.peeved and g.adventure_of(1 - self.seat) == PEEVES:
                self.peeved = True
                return Push(Mill(self.seat, 1, "adventure"))
            return Done()
        if not g.deck[self.seat]:
            return lost(g, self.seat)
        if g.marked(self.seat, "snuffle"):
            return Reveal((g.deck[self.seat][0],))
        return Deal(((g.deck[self.seat][0], self.seat),))

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if self.slot >= 0:  # opened in a face-up hand
            self.slot = -1
            return CONTINUE
        slot = g.deck[self.seat].pop(0)
        self.drawn = True
        if isinstance(step, Reveal):
            g.to_discard(slot)
            g.log("snuffled", self.seat, slot)
            return CONTINUE
        g.hand[self.seat].append(slot)
        g.log("draw", self.seat)
        if g.face_up(self.seat):
            self.slot = slot
        return CONTINUE


def draws(seat: int, count: int) -> list[Draw]:
    """``count`` cards drawn as one drawing (Peeves Causes Trouble counts it once)."""
    return [Draw(seat, event_end=i == count - 1) for i in range(count)]
