"""Effects at timing points (:mod:`p2php.engine.timing`): "before your turn", Spell damage, keyed by card number.

A card in play with an entry in :data:`TRIGGERS` listens at that effect's points; the state's
:meth:`~p2php.games.tcg.state.TcgState.listening` lists them, current player's side first, in play
order, and :class:`~p2php.engine.timing.TimingPoint` resolves them.  The turn fires
:data:`BEFORE_TURN` at §3.2 step 1 with ``{"seat": whose turn}``.

* Delivery Owl (21): "Before each of your turns, draw a card" -- compulsory, one draw per Owl in play,
  before the turn's normal draw (§3.2 step 1 comes before step 2).  Drawing the last card loses, as
  every draw does (``damage.py``).
* At :data:`~p2php.games.tcg.damage.SPELL_DAMAGE` (``{"seat", "amount", "prevented"}``), the damaged
  player's optional effects, one after another until one takes the damage:

  - Kelpie (55), Pet Toad (61): "Whenever a Spell card damages you, you may let it take that damage
    instead" -- the Creature gets all of it as damage counters; ruling r97486823: even beyond its
    Health, the excess disappears (the Creature is discarded);
  - Potion Ingredients (33): discard it from play to prevent all of that damage;
  - Invisibility Cloak (12): "Once during each of your opponent's turns, you may prevent all damage
    done by a Spell card" (its use is remembered for the turn in :attr:`TcgState.used`).

  Decision (the cards are silent): with two copies in play, one offer per copy; the oldest copy acts.
* Adventures' "Before each of your turns, your opponent takes N damage" (Dragon's Escape 1, Troll in the
  Bathroom 2, Unusual Pets 4): compulsory, damage by an Adventure (so Dungbomb prevents it); Gringotts'
  Cart Ride makes its owner's opponent discard a card of their choice before each of their turns.
"""

from __future__ import annotations

from typing import Any, ClassVar

from p2php.engine.contract import Action, CardId, Seat, Slot
from p2php.engine.timing import Effect
from p2php.games.tcg.damage import SPELL_DAMAGE, Draw, Mill, damage_creature
from p2php.games.tcg.spells import OwnDiscards
from p2php.games.tcg.state import TcgState

__all__ = ["BEFORE_TURN", "SPELL_DAMAGE", "TRIGGERS", "DrawBeforeTurn", "PreventSpellDamage", "TakeSpellDamage"]

BEFORE_TURN = "before_turn"
"""§3.2 step 1: "before your turn begins"; context ``{"seat": whose turn}``."""


class DrawBeforeTurn(Effect[TcgState]):
    """Delivery Owl: its owner draws a card before each of their turns."""

    key: ClassVar[str] = "21"
    points: ClassVar[frozenset[str]] = frozenset({BEFORE_TURN})
    compulsory: ClassVar[bool] = True

    def available(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return bool(ctx["seat"] == owner)

    def invoke(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        game.stack.push(Draw(owner))


class _OnSpellDamage(Effect[TcgState]):
    """An optional effect of the damaged player's card at ``SPELL_DAMAGE``."""

    number: ClassVar[int] = 0
    points: ClassVar[frozenset[str]] = frozenset({SPELL_DAMAGE})

    def available(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return bool(ctx["seat"] == owner and not ctx["prevented"] and self._copy(game, owner) is not None)

    def _copy(self, game: TcgState, owner: Seat) -> Slot | None:
        for slot in game.in_play(owner):
            if game.card(slot).number == self.number:
                return slot
        return None


class TakeSpellDamage(_OnSpellDamage):
    """Kelpie, Pet Toad: the Creature takes the Spell's damage instead of its owner."""

    def invoke(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        slot = self._copy(game, owner)
        assert slot is not None
        ctx["prevented"] = True
        damage_creature(game, slot, int(ctx["amount"]))


class Kelpie(TakeSpellDamage):
    key: ClassVar[str] = "55"
    number: ClassVar[int] = 55


class PetToad(TakeSpellDamage):
    key: ClassVar[str] = "61"
    number: ClassVar[int] = 61


class PreventSpellDamage(_OnSpellDamage):
    """Potion Ingredients: discarded from play to prevent the Spell's damage."""

    key: ClassVar[str] = "33"
    number: ClassVar[int] = 33

    def invoke(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        slot = self._copy(game, owner)
        assert slot is not None
        ctx["prevented"] = True
        game.discard_from_play(slot)


class InvisibilityCloak(_OnSpellDamage):
    """Once during each of the opponent's turns: prevent all damage done by a Spell."""

    key: ClassVar[str] = "12"
    number: ClassVar[int] = 12

    def available(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return super().available(game, owner, point, ctx) and game.turn != owner and \
            [owner, 12, game.turns] not in game.used

    def invoke(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        ctx["prevented"] = True
        game.used.append([owner, 12, game.turns])


class AdventureDamage(Effect[TcgState]):
    """An Adventure's "Before each of your turns, your opponent takes N damage" (damage by an Adventure)."""

    points: ClassVar[frozenset[str]] = frozenset({BEFORE_TURN})
    compulsory: ClassVar[bool] = True
    amount: ClassVar[int] = 0

    def available(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return bool(ctx["seat"] == owner)

    def invoke(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        game.stack.push(Mill(1 - owner, self.amount, "adventure"))


class DragonsEscape(AdventureDamage):
    key: ClassVar[str] = "4"
    amount: ClassVar[int] = 1


class TrollInTheBathroom(AdventureDamage):
    key: ClassVar[str] = "19"
    amount: ClassVar[int] = 2


class UnusualPets(AdventureDamage):
    key: ClassVar[str] = "70"
    amount: ClassVar[int] = 4


class GringottsCartRide(Effect[TcgState]):
    """Before each of the owner's opponent's turns, he or she chooses a card in the hand (if any) and discards it."""

    key: ClassVar[str] = "6"
    points: ClassVar[frozenset[str]] = frozenset({BEFORE_TURN})
    compulsory: ClassVar[bool] = True

    def available(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any]) -> bool:
        return bool(ctx["seat"] == 1 - owner and game.hand[1 - owner])

    def invoke(self, game: TcgState, owner: Seat, point: str, ctx: dict[str, Any], action: Action,
               faces: dict[Slot, CardId]) -> None:
        game.stack.push(OwnDiscards(1 - owner, 1))


TRIGGERS: dict[int, Effect[TcgState]] = {
    4: DragonsEscape(), 6: GringottsCartRide(), 12: InvisibilityCloak(), 19: TrollInTheBathroom(), 21: DrawBeforeTurn(),
    33: PreventSpellDamage(), 55: Kelpie(), 61: PetToad(), 70: UnusualPets(),
}
"""Card number -> its effect at timing points."""
