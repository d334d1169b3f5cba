"""Effects at timing points (:mod:`p2php.engine.timing`): "before your turn", keyed by card number.

A card in play with an entry in :data:`TRIGGERS` listens at that effect's points; the state's
:meth:`~p2php.games.tcg.state.TcgState.listening` lists them, current player's side first, in play
order, and :class:`~p2php.engine.timing.TimingPoint` resolves them.  The turn fires
:data:`BEFORE_TURN` at §3.2 step 1 with ``{"seat": whose turn}``.

* Delivery Owl (21): "Before each of your turns, draw a card" -- compulsory, one draw per Owl in play,
  before the turn's normal draw (§3.2 step 1 comes before step 2).  Drawing the last card loses, as
  every draw does (``damage.py``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from p2php.engine.contract import Action, CardId, Seat, Slot
from p2php.engine.timing import Effect
from p2php.games.tcg.damage import Draw
from p2php.games.tcg.state import TcgState

__all__ = ["BEFORE_TURN", "TRIGGERS", "DrawBeforeTurn"]

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


TRIGGERS: dict[int, Effect[TcgState]] = {21: DrawBeforeTurn()}
"""Card number -> its effect at timing points."""
