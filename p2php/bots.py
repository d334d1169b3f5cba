"""Bots: automated decision makers that see only what their seat may see.

A bot is handed the public state, its own :class:`~p2php.engine.contract.Knowledge`
and the list of legal actions, and returns one of them.  It never sees the
dealer's or another peer's secrets: in a networked game it runs inside its own
peer, with that peer's keys, exactly like a person would.
"""

from __future__ import annotations

from typing import Protocol

from p2php.engine.contract import Action, GameState, Knowledge, Seat
from p2php.rng import DetRng


class Bot(Protocol):
    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        """Pick one of ``legal`` (never empty)."""
        ...


class RandomBot:
    """Picks a uniformly random legal action (seeded, so games replay)."""

    def __init__(self, seed: bytes | str | int = 0) -> None:
        self.rng = DetRng(seed)

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        return self.rng.choice(legal)
