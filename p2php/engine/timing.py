"""Timing points: named moments that effects attach to, with a context the effects may edit.

A game names its moments ("damage is about to be dealt", "a card was played") with plain
strings and, at each, resolves a :class:`TimingPoint` carrying a small plain dict, the
*context* (who deals the damage, to whom, how much).  Effects -- a character's skill, a
card's ability, a wand -- are stateless objects that declare the points they listen at
(:attr:`Effect.points`).  At a point, every listening effect is taken in the order the game
gives (usually seat order from the current player):

* a compulsory effect, or one that only carries out an earlier choice, applies at once;
* an optional one is offered to its owner as a decision when its *public* conditions hold
  (passing is always allowed, so an answer never tells more than the owner chose to tell).

An effect changes the game by editing the context (``ctx["amount"] = 2``, ``ctx["prevented"]
= True``) and by pushing tasks of its own.  The edited context is the point's result, so the
task that fired it reads what the effects did from its own field::

    self.stage = DamageTask.Stage.CAUSED
    return Call(TimingPoint(DAMAGE_CAUSED, ctx), into="caused")

Why a context dict and not one hook method per rule: one point plus one context field serves
every effect that modifies that moment, so adding a card or a character adds an effect, not a
new method on every effect and a new call in the engine (FreeKill's design; HP Sha's wands,
armour and 25 characters live on 22 points).

What the game provides is :class:`Listeners` (its state implements it); nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Done, Outcome, Task, ask_one

__all__ = ["Effect", "Listeners", "TimingPoint"]

Context = dict[str, Any]
"""A point's context: plain data only (it is part of the hashed state while the point resolves)."""


class Listeners(Protocol):
    """What a game's state tells a :class:`TimingPoint`."""

    def listening(self, point: str) -> list[tuple[Seat, str]]:
        """``(owner, effect key)`` of every effect listening at ``point``, in the order they resolve: a new
        list, which the point takes over (it takes the pairs off it one by one)."""
        ...

    def effect(self, key: str) -> Effect[Any]:
        """The effect registered under ``key``."""
        ...

    def may_respond(self, seat: Seat) -> bool:
        """Whether ``seat``'s effects still take part (False for a seat out of the game)."""
        ...

    def announce(self, seat: Seat, key: str, chosen: bool) -> None:
        """Record that ``seat``'s effect ``key`` applies (``chosen``: the owner chose it; else it was compulsory)."""
        ...

    def public(self) -> Knowledge:
        """What everyone knows now (an answer is checked again with the faces it opened)."""
        ...


L = TypeVar("L", bound=Listeners)


class Effect(Generic[L]):
    """An effect that attaches to timing points.  Stateless: per-game memory lives in the game state.

    Subclasses set :attr:`key`, :attr:`points` and :attr:`compulsory` and override what they use.
    """

    key: ClassVar[str] = ""
    points: ClassVar[frozenset[str]] = frozenset()
    compulsory: ClassVar[bool] = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Effect[L]:
        return self  # stateless singletons: a cloned state shares them

    def available(self, game: L, owner: Seat, point: str, ctx: Context) -> bool:
        """The public conditions under which the effect applies (compulsory) or is offered (optional)."""
        return False

    def witness(self, game: L, owner: Seat, point: str, ctx: Context) -> None:
        """Bookkeeping at a listened point, before :meth:`available` (no decision): for effects whose
        condition spans several points ("if this spell deals damage")."""

    def automatic(self, game: L, owner: Seat, point: str, ctx: Context) -> bool:
        """True when the point only carries out an earlier choice's follow-up (no decision)."""
        return False

    def offers(self, game: L, owner: Seat, point: str, ctx: Context, knowledge: Knowledge) -> list[Action]:
        """The answers other than pass that the owner may give."""
        return [{"type": "invoke"}]

    def check_offer(self, game: L, owner: Seat, point: str, ctx: Context, action: Action,
                    knowledge: Knowledge) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is a valid use (faces checked where known)."""
        if action not in self.offers(game, owner, point, ctx, knowledge):
            raise IllegalAction(f"{self.key}: not a valid use {action}")

    def reveals(self, game: L, owner: Seat, point: str, ctx: Context, action: Action) -> tuple[Slot, ...]:
        """Slots the use opens to everyone (cards it discards or shows)."""
        return ()

    def invoke(self, game: L, owner: Seat, point: str, ctx: Context, action: Action,
               faces: dict[Slot, CardId]) -> None:
        """Carry the effect out: edit ``ctx``, change the state, push tasks.  Raise
        :class:`IllegalAction` on a revealed face that does not allow it."""


@dataclass
class TimingPoint(Task[L]):
    """Resolve the effects listening at ``point``, one by one.  Result: the (edited) ``ctx``."""

    point: str
    ctx: Context
    cands: list[Any] = field(default_factory=list)  # (owner, key) still to consider (a snapshot has [owner, key])
    asking: list[Any] = field(default_factory=list)  # [owner, key] being offered now
    started: bool = False

    def run(self, game: L) -> Outcome:
        point, ctx = self.point, self.ctx  # no effect rebinds them: effects edit ctx in place
        if not self.started:
            self.started = True
            self.cands = game.listening(point)  # its pairs as they are: plain() makes each a list, as [seat, key] was
        cands, may_respond = self.cands, game.may_respond
        while cands:
            seat, key = cands.pop(0)
            effect = game.effect(key)
            if not may_respond(seat):
                continue
            if type(effect).witness is not Effect.witness:  # most effects keep no book across points
                effect.witness(game, seat, point, ctx)
                if not may_respond(seat):
                    continue
            if not effect.available(game, seat, point, ctx):
                continue
            if effect.compulsory or effect.automatic(game, seat, point, ctx):
                game.announce(seat, key, False)
                effect.invoke(game, seat, point, ctx, {}, {})
                return CONTINUE  # what it pushed runs first; then the next listener
            self.asking = [seat, key]
            return ask_one(seat, f"skill:{key}")
        return Done(ctx)

    def _offered(self, game: L) -> Effect[Any]:
        if not self.asking:
            raise IllegalAction("no effect is being offered")
        return game.effect(self.asking[1])

    def legal(self, game: L, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "pass"}, *self._offered(game).offers(game, seat, self.point, self.ctx, knowledge)]

    def check(self, game: L, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action.get("type") == "pass":
            return
        self._offered(game).check_offer(game, seat, self.point, self.ctx, action, knowledge)

    def reveals(self, game: L, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "pass":
            return ()
        return self._offered(game).reveals(game, seat, self.point, self.ctx, action)

    def answer(self, game: L, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        effect = self._offered(game)
        key = self.asking[1]
        if action.get("type") != "pass":
            effect.check_offer(game, seat, self.point, self.ctx, action, game.public())  # now with the faces
        self.asking = []
        if action.get("type") != "pass":
            game.announce(seat, key, True)
            effect.invoke(game, seat, self.point, self.ctx, action, dict(faces))
        return CONTINUE
