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

import bisect
from collections.abc import Container, Iterable, Mapping, Set
from dataclasses import dataclass, field
from typing import TypeVar

from p2php.engine.contract import CardId, Deal, Reshuffle, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task

__all__ = ["HandRemask", "knowers", "mixing_groups", "note_seen", "put_in_place"]

G = TypeVar("G")
K = TypeVar("K", bool, str)


def mixing_groups(hidden: Mapping[tuple[K, int], list[Slot]], opened: Mapping[K, list[Slot]],
                  exposed: Set[tuple[K, int]]) -> list[list[Slot]]:
    """The groups of one hand to mix, one Reshuffle each, in a fixed order (``[]``: nothing to do).

    ``hidden``: the hand's face-down cards by (class, family) — a class is what the game's rules keep apart (HP
    Sha: sealed by 禁闭 this turn or not; Hogwarts: the deck), a family one joint key, which a Reshuffle's face-down
    inputs must share; ``opened``: its face-up cards by class; ``exposed``: the keys holding a face a seat other
    than the holder may know.  An exposed group of two or more cards is mixed.  A class's opened cards join its
    largest exposed group (else its largest, which they expose), or, with no face-down card of their class, are a
    group of their own.
    """
    exposed = set(exposed)
    groups: list[list[Slot]] = []
    for cls in sorted({k[0] for k in hidden} | set(opened)):
        keys = sorted(k for k in hidden if k[0] == cls)
        up = opened.get(cls, [])
        target: tuple[K, int] | None = None
        if up and keys:  # the opened cards join the largest group that is mixed anyway, else the largest
            pool = [k for k in keys if k in exposed] or keys
            target = max(pool, key=lambda k: (len(hidden[k]), -k[1]))
            exposed.add(target)
        for k in keys:
            group = hidden[k] + (up if k == target else [])
            if k in exposed and len(group) >= 2:
                groups.append(group)
        if up and target is None and len(up) >= 2:  # only opened cards of this class: a shuffle of them
            groups.append(list(up))
    return groups


def note_seen(seen: dict[Slot, list[Seat]], slot: Slot, seat: Seat) -> None:
    """``seat`` may know the face of hidden ``slot``: ``seen`` maps a slot to those seats, ascending."""
    who = seen.get(slot)
    if who is None:
        seen[slot] = [seat]
    elif seat not in who:
        bisect.insort(who, seat)


def knowers(seen: Mapping[Slot, list[Seat]], public: Container[Slot], slots: Iterable[Slot],
            players: int) -> list[Seat]:
    """Who knew a face of the group ``slots`` (every seat, if one was public), ascending: after the group is mixed
    they know each new slot may be that card, and learn which by elimination as the others leave."""
    slots = list(slots)
    who = {x for s in slots for x in seen.get(s, ())}
    if any(s in public for s in slots):
        who.update(range(players))
    return sorted(who)


def put_in_place(hand: list[Slot], old: Iterable[Slot], new: Iterable[Slot]) -> None:
    """The new slots of a mixed group take the old ones' places in ``hand`` (their order says nothing: the
    Reshuffle shuffled them)."""
    at = {s: i for i, s in enumerate(hand)}
    for s, n in zip(sorted(old, key=at.__getitem__), new, strict=True):
        hand[at[s]] = n


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
