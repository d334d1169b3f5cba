"""The one card-matching rule, and everything derived from it: validating a play, listing plays.

:func:`matches` is the only place that says which card matches on one's turn, and
:func:`playable` the only one that says which card may be played how (on one's turn,
as Invisibility, as the Resurrection Stone, stacked on a Draw Two).
:func:`validate_play` (what :meth:`UnoState.check` and :meth:`UnoState.apply` run)
and :func:`add_plays` (what ``legal_actions`` lists) both call it, so the two
cannot drift apart.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import stage_names
from p2php.games.uno.base import FaceOf
from p2php.games.uno.cards import (
    COLOUR_INDEX,
    COLOURS,
    DRAW_TWO,
    HOWLER,
    INVISIBILITY,
    MOODY,
    NUMBER,
    RESURRECTION_STONE,
    SORTING_HAT,
    VOLDEMORT,
    WILD,
    Deck,
)

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState


class Mode(IntEnum):
    """How a card is being played (an int in the hashed play events)."""

    TURN = 0  # on one's turn (or the card just drawn)
    INVISIBILITY = 1  # answering a card played against the seat
    STONE = 2  # the Resurrection Stone when someone went out
    STACK = 3  # a Draw Two answering a Draw Two (stacking on)


ModeNames = stage_names(Mode)
"""Mode's members, read fast (p2php.engine.tasks.stage_names: a member read through an enum class costs ~0.2 µs on
CPython 3.11, and a play reads a few at every decision): ``ModeNames.TURN is ModeNames.TURN``."""


KEYS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "slot", "colour", "target", "dump", "uno"}),
    "invisibility": frozenset({"type", "slot", "colour", "uno"}),
    "stone": frozenset({"type", "slot", "colour", "uno"}),
    "draw": frozenset({"type"}),
    "keep": frozenset({"type"}),
    "pass": frozenset({"type"}),
    "catch": frozenset({"type"}),
    "accept": frozenset({"type"}),
    "challenge": frozenset({"type"}),
    "uno": frozenset({"type"}),
    "sorted": frozenset({"type"}),
    "not_yet": frozenset({"type"}),
    "verdict": frozenset({"type", "legal"}),
    "colour": frozenset({"type", "colour"}),
}
"""The fields each action type may carry."""

PLAY_TYPES = frozenset({"play", "invisibility", "stone"})


@functools.cache
def dumpable_table(d: Deck, values: tuple[int, ...]) -> tuple[bool, ...]:
    """Per card id: may Voldemort discard it (a number card of the chosen faces)?"""
    return tuple(d.kind[i] == NUMBER and d.value[i] in values for i in range(d.size))


def matches(d: Deck, card: CardId, colour: int, top: CardId) -> bool:
    """THE matching rule on one's turn: ``card`` matches the colour in force (``colour``), number on
    number or symbol on symbol with the top card ``top``; colourless cards always match."""
    k = d.kind[card]
    if k >= WILD or d.colour[card] == colour:
        return True
    if k == NUMBER:
        return d.kind[top] == NUMBER and d.value[card] == d.value[top]
    return k == d.kind[top]


_TABLES: dict[tuple[str, int, CardId], tuple[bool, ...]] = {}


def playable_cards(g: UnoState, mode: Mode) -> tuple[bool, ...]:
    """Per card id: may it be played in ``mode`` now?  On one's turn: :func:`matches`; the
    answering modes each take one kind of card.  Tables are memoised (at most colours x top
    cards x modes per deck), so this is a lookup in the hot loop."""
    d = g.deck
    key = (d.name, g.colour, g.discard[-1]) if mode is ModeNames.TURN else (d.name, -1 - mode, -1)
    table = _TABLES.get(key)
    if table is None:
        if mode is ModeNames.TURN:
            table = tuple(matches(d, card, g.colour, g.discard[-1]) for card in range(d.size))
        else:
            kind = {Mode.INVISIBILITY: INVISIBILITY, Mode.STONE: RESURRECTION_STONE, Mode.STACK: DRAW_TWO}[mode]
            table = tuple(k == kind for k in d.kind)
        _TABLES[key] = table
    return table


def playable(g: UnoState, card: CardId, mode: Mode) -> bool:
    """May ``card`` be played in ``mode`` now?  (See :func:`playable_cards`.)"""
    return playable_cards(g, mode)[card]


def _unplayable(g: UnoState, card: CardId, mode: Mode) -> str:
    name = g.deck.names[card]
    if mode is ModeNames.INVISIBILITY:
        return f"{name} is not the Invisibility card"
    if mode is ModeNames.STONE:
        return f"{name} is not the Resurrection Stone"
    if mode is ModeNames.STACK:
        return f"only a draw two can answer a draw two, not {name}"
    return f"{name} does not match {g.deck.names[g.discard[-1]]} (colour {COLOURS[g.colour]})"


@dataclass(slots=True)
class Play:
    """A validated play, faces resolved: what :class:`~p2php.games.uno.effects.PlayCard` carries out.

    A value: never changed once made (not frozen only because a frozen dataclass is slow to make,
    and one is made for every card played).
    """

    seat: int
    slot: int
    card: int
    colour: int = -1  # the colour named (-1: none named)
    target: int = -1
    dump: tuple[tuple[int, int], ...] = ()  # Voldemort's (slot, card) in the order given
    uno: bool = False

    @classmethod
    def of(cls, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> Play:
        """The play an (already validated) action makes, with the faces it opened."""
        get = faces.__getitem__
        if len(action) == 2:  # the commonest play: a bare card
            slot = action["slot"]
            return cls(seat, slot, get(slot))
        colour = action.get("colour")
        target = action.get("target")
        dump = action.get("dump") or ()
        return cls(seat, action["slot"], get(action["slot"]), COLOUR_INDEX[colour] if colour else -1,
                   -1 if target is None else target, tuple((s, get(s)) for s in dump), bool(action.get("uno")))


def validate_play(g: UnoState, seat: Seat, action: Action, face_of: FaceOf, mode: Mode) -> None:
    """Raise :class:`IllegalAction` unless ``action`` plays a card legally in ``mode`` (faces known to ``face_of``)."""
    slot = action.get("slot")
    hand = g.hands[seat]
    if type(slot) is not int or slot not in hand:
        raise IllegalAction(f"slot {slot!r} is not in seat {seat}'s hand")
    uno = action.get("uno", False)
    if type(uno) is not bool:
        raise IllegalAction("uno must be true or false")
    colour = action.get("colour")
    if colour is not None and (type(colour) is not str or colour not in COLOUR_INDEX):  # (a list is unhashable)
        raise IllegalAction(f"colour must be one of {', '.join(COLOURS)}")
    target = action.get("target")
    if target is not None and (type(target) is not int or not 0 <= target < g.n or target == seat):
        raise IllegalAction(f"target must be another seat, not {target!r}")
    dump = action.get("dump")
    if dump is not None:
        if not isinstance(dump, list | tuple):
            raise IllegalAction("dump must be a list of slots")
        for s in dump:
            if type(s) is not int or s not in hand or s == slot:
                raise IllegalAction(f"dump slot {s!r} is not another card in seat {seat}'s hand")
        if len(set(dump)) != len(dump):
            raise IllegalAction("dump lists a slot twice")
    if "uno" in action and not (len(hand) >= 2 and len(hand) - 1 - len(dump or ()) <= 1):
        raise IllegalAction("no UNO call is due with this play: leave uno out")  # else read by nothing
    card = face_of(slot)
    if card is None:
        return  # checked by the peers who know the face, and by the audit
    if not playable(g, card, mode):
        raise IllegalAction(_unplayable(g, card, mode))
    d = g.deck
    k = d.kind[card]
    name = d.names[card]
    if k < WILD:
        if colour is not None or target is not None or dump is not None:
            raise IllegalAction(f"{name} takes no colour, target or dump")
        return
    if k == VOLDEMORT:
        if target is not None:
            raise IllegalAction("Voldemort takes no target")
        if dump is None:
            raise IllegalAction("Voldemort needs a dump list (empty when there is nothing to discard)")
        if dump and colour is not None:
            raise IllegalAction("the last card Voldemort discards sets the colour: name none")
        if not dump and colour is None:
            raise IllegalAction("Voldemort without cards to discard is a Wild: name a colour")
        for s in dump:
            f = face_of(s)
            if f is not None and not g.dumpable[f]:
                raise IllegalAction(f"Voldemort cannot discard {d.names[f]}")
        listed = set(dump)
        for s in hand:
            if s != slot and s not in listed:
                f = face_of(s)
                if f is not None and g.dumpable[f]:
                    raise IllegalAction(f"Voldemort must discard every such card, {d.names[f]} was kept")
        return
    if dump is not None:
        raise IllegalAction(f"{name} takes no dump")
    if colour is None:
        raise IllegalAction(f"{name} needs a colour")
    if k in (SORTING_HAT, HOWLER):
        if target is None:
            raise IllegalAction(f"{name} needs a target")
    elif k != MOODY and target is not None:
        raise IllegalAction(f"{name} takes no target")


def add_plays(out: list[Action], g: UnoState, seat: Seat, modes: Sequence[tuple[Mode, str]], knowledge: Knowledge,
              slots: Sequence[Slot] | None = None) -> None:
    """Append every legal play of ``seat`` (of ``slots``, default the whole hand, in hand order).

    ``modes`` pairs each way of playing allowed now with its action type; a card is
    offered in the first mode it is :func:`playable` in.
    """
    private, public = knowledge.private, knowledge.public
    kinds = g.deck.kind
    hand = g.hands[seat]
    simple = len(hand) > 2
    if len(modes) == 1:  # the commonest call (a turn): one table, read directly
        mode, only = modes[0]
        table = playable_cards(g, mode)
        pget, uget = private.get, public.get
        for slot in hand if slots is None else slots:
            card = pget(slot)
            if card is None:
                card = uget(slot)
                if card is None:
                    continue
            if not table[card]:
                continue
            if simple and kinds[card] < WILD:  # no colour to name, no UNO call due
                out.append({"type": only, "slot": slot})
            else:
                variants(out, g, seat, slot, card, only, knowledge.face)
        return
    tables = [(playable_cards(g, mode), typ) for mode, typ in modes]
    for slot in hand if slots is None else slots:
        card = private.get(slot)
        if card is None:
            card = public.get(slot)
            if card is None:
                continue
        typ = next((typ for table, typ in tables if table[card]), None)
        if typ is None:
            continue
        if simple and kinds[card] < WILD:  # no colour to name, no UNO call due
            out.append({"type": typ, "slot": slot})
        else:
            variants(out, g, seat, slot, card, typ, knowledge.face)


def variants(out: list[Action], g: UnoState, seat: Seat, slot: Slot, card: CardId, typ: str, face: FaceOf) -> None:
    """Append every way of playing ``card`` (colour, target, dump, UNO call)."""
    d = g.deck
    k = d.kind[card]
    hand = g.hands[seat]
    before = len(hand)
    after = before - 1
    made: list[Action]
    if k < WILD:
        if before > 2:  # the commonest case: no choice, no UNO call due
            out.append({"type": typ, "slot": slot})
            return
        made = [{"type": typ, "slot": slot}]
    elif k == VOLDEMORT:
        dumpable = g.dumpable
        cands = []
        for s in hand:
            if s != slot:
                f = face(s)
                if f is not None and dumpable[f]:
                    cands.append(s)
        if not cands:
            made = [{"type": typ, "slot": slot, "dump": [], "colour": c} for c in COLOURS]
        else:
            after -= len(cands)
            made = [{"type": typ, "slot": slot, "dump": [s for s in cands if s != last] + [last]} for last in cands]
    elif k in (SORTING_HAT, HOWLER, MOODY):
        others = [s for s in range(g.n) if s != seat]
        made = [{"type": typ, "slot": slot, "colour": c, "target": o} for c in COLOURS for o in others]
        if k == MOODY:
            made.extend({"type": typ, "slot": slot, "colour": c} for c in COLOURS)
    else:
        made = [{"type": typ, "slot": slot, "colour": c} for c in COLOURS]
    if before >= 2 and after <= 1:
        for a in made:
            out.append({**a, "uno": True})
            a["uno"] = False
            out.append(a)
    else:
        out.extend(made)
