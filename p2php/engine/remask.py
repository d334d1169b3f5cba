"""Mixing a hand into fresh slots before a pick from it: the kit's task for protocol.md §7.8's recipe.

A hand card keeps its slot, so a card whose face another seat knows (opened in the hand, given, taken, seen in a
look) is recognised by its slot when a random pick takes it, where a physical table hides which card went
(§10.4).  The recipe needs no message kind of its own: a :class:`~p2php.engine.contract.Reshuffle` of each group
of the hand's slots into fresh slots (a new encryption under new keys of every seat: an old slot's face says
nothing of where its card went), then one :class:`~p2php.engine.contract.Deal` of all the new slots to the holder,
who sees its hand again.  What a game decides is its own: which cards to mix together (a Reshuffle's face-down
inputs share one joint key; rules keep some cards apart), where the fresh slots lie, and what its state notes
afterwards.  HP Sha (``games/hpsha/remask.py``) and A Year at Hogwarts (``games/hogwarts/remask.py``) subclass
:class:`HandRemask` with those three answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from p2php.engine.contract import CardId, Deal, Reshuffle, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

__all__ = ["HandRemask"]

G = TypeVar("G")


@dataclass
class HandRemask(Task[G]):
    """Mix ``seat``'s hand: one Reshuffle per group :meth:`plan` gives (in its order), then one Deal of every new
    slot to ``seat``.  The plan is made when the task first runs, from the state as it is then."""

    seat: int
    groups: list[list[int]] = field(default_factory=list)
    new: list[int] = field(default_factory=list)
    planned: bool = False
    dealt: bool = False

    def plan(self, game: G) -> list[list[Slot]]:
        """The groups of the hand's slots to mix, one Reshuffle each (``[]``: nothing to do)."""
        raise NotImplementedError

    def fresh_slots(self, game: G, group: list[Slot]) -> tuple[Slot, str] | None:
        """The first of ``len(group)`` fresh slots for ``group`` and the Reshuffle's purpose; ``None`` leaves the
        group as it is (no room left)."""
        raise NotImplementedError

    def mixed(self, game: G, step: Reshuffle) -> None:
        """The Reshuffle of one group is done: the game puts ``step.new_slots`` in the hand in its place."""
        raise NotImplementedError

    def run(self, game: G) -> Outcome:
        if not self.planned:
            self.planned = True
            self.groups = self.plan(game)
        while self.groups:
            group = self.groups[0]
            where = self.fresh_slots(game, group)
            if where is None:
                self.groups.pop(0)
                continue
            first, purpose = where
            return Reshuffle(tuple(group), first, purpose)
        if self.new and not self.dealt:
            return Deal(tuple((s, self.seat) for s in self.new))
        return Done()

    def received(self, game: G, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Deal):
            self.dealt = True
            return CONTINUE
        assert isinstance(step, Reshuffle)
        self.groups.pop(0)
        self.mixed(game, step)
        self.new.extend(step.new_slots)
        return CONTINUE
