"""What the creatures that stay do to their holder, read by the core (damage, distance, equipping).

Kept apart from :mod:`.creatures` (which builds on the damage tasks) so that the core can ask
without an import cycle.  Each creature that stays is a flag on its holder (``state.flags``,
set only in games with creatures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2php.games.hpsha.creature_data import creature_id
from p2php.games.hpsha.data import EQUIP_SLOTS, MINUS

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

ACROMANTULA = creature_id("acromantula")


def creature_blocks(st: HpshaState, target: int, nature: str) -> bool:
    """The Phoenix prevents fire damage and 阿瓦达索命's damage to its holder."""
    return nature in ("avada", "fire") and bool(st.flags[target].get("phoenix"))


def werewolf_bite(st: HpshaState, source: int, target: int, via: str) -> int:
    """Who the werewolf's bite also hurts after its holder's 爆破咒 damaged ``target`` (-1: nobody)."""
    if via != "bombarda" or source < 0 or not st.flags[source].get("werewolf"):
        return -1
    nxt = st.next_alive(target)
    return -1 if nxt in (source, target) else nxt


def slot_closed(st: HpshaState, seat: int, sub: str) -> bool:
    """A slot a creature holds takes no equipment while it stays: the Thestral's −1 broom slot, and the
    slot the Gnome is equipped in (its disadvantage; flag ``gnome`` = 1 + the slot's index)."""
    f = st.flags[seat]
    return (sub == MINUS and bool(f.get("thestral"))) or f.get("gnome", 0) == 1 + EQUIP_SLOTS.index(sub)


def centaur_after(st: HpshaState) -> int:
    """The seat the Centaur sits after, between it and its next living player (-1: none at the table)."""
    return next((s for s in range(st.n) if st.flags[s].get("centaur")), -1)


def salamander_wakes(st: HpshaState, seat: int) -> None:
    """At its holder's turn start a face-down salamander turns face up: it is activated (our choice)."""
    if st.flags[seat].get("salamander") == 1:
        st.flags[seat]["salamander"] = 2
        st.cr["lit"] = 1
        st.say("salamander_wakes", seat)


def no_recovery(st: HpshaState, seat: int) -> bool:
    """The Acromantula covers its holder's HP card: no recovery (our choice)."""
    return bool(st.creatures and st.flags[seat].get("acromantula"))


def acromantula_passes(st: HpshaState, seat: int) -> None:
    """At the end of its holder's turn the Acromantula passes to the next living player."""
    if not st.flags[seat].get("acromantula"):
        return
    nxt = st.next_alive(seat)
    if nxt == seat:
        return
    del st.flags[seat]["acromantula"]
    st.flags[nxt]["acromantula"] = 1
    for e in st.cr["out"]:
        if e[1] == seat and e[0] == ACROMANTULA:
            e[1] = nxt
    st.say("acromantula_passes", seat, nxt)
