"""Which battle a move's mandatory stop starts (rules §9.4, §14.6, §14.7): a Death Eater battle on a Death
Eater's cell (it comes first when a figure stands there too: ours, one battle per move), else the underage
dice duel or, under the qualified rules, the alternating battle between players."""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2php.engine.contract import Seat
from p2php.engine.tasks import Task

from .death_eater_battle import DeathEaterBattle
from .modes import shows_mission_cards
from .pvp import PlayerBattle
from .pvp_qualified import QualifiedPlayerBattle

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["player_battle"]


def player_battle(g: HogwartsState, mover: Seat, opponents: list[Seat]) -> Task[HogwartsState]:
    if g.pos[mover] in g.death_eaters:
        return DeathEaterBattle(mover, g.pos[mover])
    if shows_mission_cards(g):
        return QualifiedPlayerBattle(mover, opponents)
    return PlayerBattle(mover, opponents)
