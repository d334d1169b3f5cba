"""Equipment as attached effects: each wand or armour card names one small effect object.

Why: a card's rule belongs with the card.  The resolving tasks (爆破咒, damage,
instant spells, distance, the play phase) only announce named *gear points*
with a small plain ``ctx`` dict; the effect of the card equipped by the seat the
point concerns may edit that ctx (an amount, "cannot be dodged", a reason for
immunity) or push tasks of its own (a choice, a follow-up 爆破咒).  Adding an
equipment card is then one class in :mod:`.equipment`, and no resolving task
tests card keys.

Gear points differ from the skill timing points of :mod:`.triggers`: they run
at once, inside the task that announces them, for one seat's own equipment,
with no decision of their own (an effect that needs one pushes a task), so the
order and the prompts of a resolution stay exactly those of the rules.

An effect task that must change the announcing task's ctx later holds that
task's stack index (``parent``) and edits :func:`parent_ctx`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from p2php.games.hpsha.data import ARMOUR, WEAPON

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

# Gear points; whose equipment is asked, then the ctx keys.
AIMED = "aimed"  # the user's, a 爆破咒 aimed: user, target, undodgeable (settable by a pushed task)
DODGE = "dodge"  # the user's: need (幻影移形 needed to dodge; settable)
DODGED = "dodged"  # the user's, the 爆破咒 was dodged: user, target
HIT = "hit"  # the user's, the 爆破咒 hits: ignore_armour (settable)
MISSED = "missed"  # the user's, the 爆破咒 dealt no damage: user, target
DAMAGE_ARMOUR = "damage_armour"  # the target's: source, target, ignore_armour; sets prevented
DAMAGE_WEAPON = "damage_weapon"  # the source's, a 爆破咒's damage being caused: source, target, amount (settable)
SPELL_ARMOUR = "spell_armour"  # the target's: user, kind, target, targets (how many); sets why (immune)
DISTANCE = "distance"  # the measuring seat's: to; sets distance (a fixed distance)
BOMBARDA_LIMIT = "bombarda_limit"  # the user's: sets unlimited (any number of 爆破咒 per play phase)
PLAY_GRANTS = "play_grants"  # the seat's: grants (play-phase action types its equipment adds)


class Gear:
    """One equipment card's effect (stateless: per-game memory would live in the state)."""

    kind: ClassVar[str] = ""  # the card name it belongs to (a Kind key of data.py)
    points: ClassVar[frozenset[str]] = frozenset()

    def at(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> None:
        """React at ``point`` for ``seat``, who has this card equipped: edit ``ctx``, push tasks."""


GEAR: dict[str, Gear] = {}
_SLOTS = (WEAPON, ARMOUR)  # the areas whose cards have effects (brooms only change distance: data)


def register_gear(*effects: Gear) -> None:
    """Attach effects to their card names (equipment.py does this at import)."""
    for g in effects:
        GEAR[g.kind] = g


def listening(st: HpshaState, seat: int, point: str) -> list[Gear]:
    """The effects of ``seat``'s equipped cards that attach to ``point``."""
    eq = st.equip[seat]
    out = []
    for area in _SLOTS:
        slot = eq.get(area)
        if slot is not None:
            g = GEAR.get(st.kind(slot))
            if g is not None and point in g.points:
                out.append(g)
    return out


def gear(st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> dict[str, Any]:
    """Announce ``point`` to ``seat``'s equipment; returns ``ctx`` as the effects left it."""
    for g in listening(st, seat, point):
        g.at(st, seat, point, ctx)
    return ctx


def parent_ctx(st: HpshaState, parent: int) -> dict[str, Any]:
    """The ctx of the task at stack index ``parent`` (the task that announced the point)."""
    ctx = getattr(st.stack[parent], "ctx", None)
    if not isinstance(ctx, dict):
        raise TypeError(f"task {parent} on the stack keeps no gear ctx")
    return ctx
