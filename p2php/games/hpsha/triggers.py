"""The skill (trigger) system: named timing points, skills that attach to them, and hooks.

Why a registry of stateless skill objects: the public state must stay plain data
(snapshot, clone, hash), so a seat's skills are found from its character key, and
all per-game memory of a skill lives in ``state.flags[seat]`` (plain ints/strs).

Two ways a skill plugs in:

* **Timing points** (``points``): the engine calls :meth:`HpshaState.fire` at each
  point with a small plain ``ctx`` dict.  A :class:`~p2php.games.hpsha.tasks.TriggerTask`
  collects the skills listening there, in seat order from the current player;
  compulsory (locked) skills are applied, optional ones are offered to their
  owner as a Decide (pass is always allowed) when their *public* conditions hold.
* **Hooks** (plain method calls, no decision): distance overrides, hand limit,
  phase skipping, damage prevention, "cannot be countered", judgement
  replacement specs, and view-as conversions ("use cards X as card Y").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, Knowledge, Slot
from p2php.games.hpsha.data import Card

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

# Timing points.  ctx keys are listed beside each point.
TURN_START = "turn_start"  # who
TURN_END = "turn_end"  # who
PHASE_START = "phase_start"  # who, phase
PHASE_END = "phase_end"  # who, phase, discarded (discard phase: slots discarded in it)
CARD_USED = "card_used"  # user, kind, targets  (before it resolves)
CARD_PLAYED = "card_played"  # user, kind
CARD_RESOLVED = "card_resolved"  # user, kind, targets  (after it resolved, before it is discarded)
TARGET_CHOSEN = "target_chosen"  # user, kind, target
DAMAGE_BEFORE = "damage_before"  # source, target, amount  (about to be dealt, before 呼神护卫)
DAMAGE_CAUSED = "damage_caused"  # source, target, amount  (causing: after 呼神护卫)
DAMAGE_RECEIVED = "damage_received"  # source, target, amount
DAMAGE_AFTER = "damage_after"  # source, target, amount  (after the damage and any dying)
HP_LOST = "hp_lost"  # who, amount
ENTER_DYING = "enter_dying"  # who, uid
DEATH = "death"  # who, killer
JUDGE_REPLACE = "judge_replace"  # (hook-driven point, see Skill.replace_spec)
CARD_MOVED = "card_moved"  # owner, to, slots, how  (obtained / discarded from a character)
FLIPPED = "flipped"  # who

POINTS = (
    TURN_START, TURN_END, PHASE_START, PHASE_END, CARD_USED, CARD_PLAYED, CARD_RESOLVED, TARGET_CHOSEN,
    DAMAGE_BEFORE,
    DAMAGE_CAUSED, DAMAGE_RECEIVED, DAMAGE_AFTER, HP_LOST, ENTER_DYING, DEATH, JUDGE_REPLACE, CARD_MOVED,
    FLIPPED,
)


class Skill:
    """A character skill.  Subclasses override only what they use; defaults do nothing."""

    key: ClassVar[str] = ""
    zh: ClassVar[str] = ""
    en: ClassVar[str] = ""
    compulsory: ClassVar[bool] = False  # 锁定技
    points: ClassVar[frozenset[str]] = frozenset()
    view_as: ClassVar[str] = ""  # kind this skill lets cards be used as ("" = none)
    view_as_count: ClassVar[int] = 1

    def __deepcopy__(self, memo: dict[int, Any]) -> Skill:
        return self  # stateless singletons: a cloned state shares them

    @property
    def label(self) -> str:
        return f"{self.zh} {self.en}" + ("（锁定技 locked）" if self.compulsory else "")

    # ---- timing points
    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        """Public conditions under which the skill triggers / is offered at this point."""
        return False

    def offers(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], kn: Knowledge) -> list[Action]:
        """Non-pass answers the owner may give (compulsory skills: ignored)."""
        return [{"type": "invoke"}]

    def check_offer(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, kn: Knowledge
    ) -> None:
        """Raise IllegalAction if ``action`` is not a valid activation (faces only if ``kn`` knows them)."""
        from p2php.engine.contract import IllegalAction

        if action not in self.offers(st, seat, point, ctx, kn):
            raise IllegalAction(f"{self.label}: not a valid activation {action}")

    def reveals(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action) -> tuple[Slot, ...]:
        return ()

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        """Carry the skill out (push tasks / change state).  Raise IllegalAction on a bad revealed face."""

    # ---- hooks
    def on_own_turn_start(self, st: HpshaState, seat: int) -> None:
        """Called before TURN_START fires for the owner's turn (markers expire here)."""

    def distance_override(self, st: HpshaState, owner: int, a: int, b: int, depth: int) -> int | None:
        """A replacement for distance(a, b), or None."""
        return None

    def skips_phase(self, st: HpshaState, seat: int, phase: str) -> bool:
        return False

    def hand_limit(self, st: HpshaState, seat: int, limit: int) -> int:
        """The owner's hand limit, given the limit so far (default: current HP)."""
        return limit

    def attack_range(self, st: HpshaState, seat: int, rng: int) -> int:
        """The owner's attack range, given the range so far (weapon or 1)."""
        return rng

    def prevents_damage(self, st: HpshaState, seat: int) -> bool:
        """Locked damage prevention for the owner (checked before the 呼神护卫 window)."""
        return False

    def uncounterable(self, st: HpshaState, seat: int, kind: str) -> bool:
        """True if instant spells of ``kind`` used by the owner cannot be countered."""
        return False

    def replace_spec(self, st: HpshaState, seat: int, judge_card: Card) -> str | None:
        """For judgement replacement (JUDGE_REPLACE): the card spec the owner may play, or None."""
        return None

    def view_as_sets(self, st: HpshaState, seat: int, kn: Knowledge) -> list[list[Slot]]:
        """Known hand-card sets the owner may use as ``view_as``."""
        return []

    def view_as_ok(self, cards: list[Card]) -> bool:
        return False


SKILLS: dict[str, Skill] = {}
SKILLS_BY_CHARACTER: dict[str, tuple[Skill, ...]] = {}


def register_skills(character: str, *skills: Skill) -> None:
    """Attach skills to a character key (characters.py does this at import)."""
    for sk in skills:
        SKILLS[sk.key] = sk
    SKILLS_BY_CHARACTER[character] = tuple(skills)
