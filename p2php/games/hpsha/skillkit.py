"""Small helpers that many character skills share (kept in one place, not copied per module)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, IllegalAction, Slot
from p2php.games.hpsha.tasks import as_int, as_slots
from p2php.games.hpsha.triggers import Skill

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


def used_this_turn(st: HpshaState, seat: int, key: str) -> bool:
    """"Once per phase" for play-phase skills.

    Only 纳威 ever gets a second (extra) play phase, and he has no once-per-phase
    skill, so the play phase of a turn is marked by the turn number.
    """
    return st.flags[seat].get(f"{key}_turn") == st.turn_no


def mark_used(st: HpshaState, seat: int, key: str) -> None:
    st.flags[seat][f"{key}_turn"] = st.turn_no


def named_targets(action: Action, n: int) -> list[int]:
    """The ``targets`` of a skill action, which must name exactly ``n`` seats."""
    targets = as_slots(action, "targets")
    if len(targets) != n:
        raise IllegalAction(f"name {n} target(s)")
    return targets


def own_cards(st: HpshaState, seat: int) -> list[int]:
    """A character's own cards: hand and equipment (judgement-area cards belong to no one, §8.5)."""
    return list(st.hands[seat]) + list(st.equip[seat].values())


class OpensChosenCard(Skill):
    """A skill whose answer names one card of the actor's (``action["slot"]``) that is shown or
    played, so the card is opened to everyone with the answer."""

    def reveals(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action) -> tuple[Slot, ...]:
        return st.unopened([as_int(action, "slot")])
