"""The skill (trigger) system: named timing points, skills that attach to them, and hooks.

Why a registry of stateless skill objects: the public state must stay plain data
(snapshot, clone, hash), so a seat's skills are found from its character key, and
all per-game memory of a skill lives in ``state.flags[seat]`` (plain ints/strs).

Two ways a skill plugs in:

* **Timing points** (``points``): the engine calls :meth:`HpshaState.fire` at each
  point with a small plain ``ctx`` dict; the kit's :class:`~p2php.engine.timing.TimingPoint`
  (HP Sha's :class:`~p2php.games.hpsha.windows.TriggerTask`) takes the skills listening
  there in seat order from the current player: compulsory (locked) skills are applied,
  optional ones are offered to their owner as a Decide (pass is always allowed) when
  their *public* conditions hold.  A skill is an :class:`~p2php.engine.timing.Effect`.
* **Hooks** (plain method calls, no decision): distance overrides, hand limit,
  phase skipping, damage prevention, "cannot be countered", judgement
  replacement specs, and view-as conversions ("use cards X as card Y").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Slot
from p2php.engine.timing import Effect
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
JUDGE_BEFORE = "judge_before"  # who, why  (before a judgement's card is revealed)
JUDGE_RESULT = "judge_result"  # who, why, slot, card  (the judgement card takes effect, before it is discarded)
PHASE_BEFORE = "phase_before"  # who, phase  (before a phase begins, before its skip check: a skill may skip it)
DYING_BEFORE = "dying_before"  # who, killer  (about to enter the dying state: 小矮星's 自残 may kill at once)

POINTS = (
    TURN_START, TURN_END, PHASE_START, PHASE_END, CARD_USED, CARD_PLAYED, CARD_RESOLVED, TARGET_CHOSEN,
    DAMAGE_BEFORE,
    DAMAGE_CAUSED, DAMAGE_RECEIVED, DAMAGE_AFTER, HP_LOST, ENTER_DYING, DEATH, JUDGE_REPLACE, CARD_MOVED,
    FLIPPED, JUDGE_BEFORE, JUDGE_RESULT, PHASE_BEFORE, DYING_BEFORE,
)


class Skill(Effect["HpshaState"]):
    """A character skill: an :class:`~p2php.engine.timing.Effect` on HP Sha's timing points, plus
    hooks.  Subclasses override only what they use; defaults do nothing."""

    key: ClassVar[str] = ""
    zh: ClassVar[str] = ""
    en: ClassVar[str] = ""
    play_keys: ClassVar[frozenset[str]] = frozenset({"type", "skill", "slots", "targets"})
    """The keys of this skill's play-phase activation (its :meth:`play_offers`' keys): a key the type allows for
    another skill (``kind``, ``value``) is read by nothing here, and was signed into every record."""
    compulsory: ClassVar[bool] = False  # 锁定技
    points: ClassVar[frozenset[str]] = frozenset()
    view_as: ClassVar[str] = ""  # kind this skill lets cards be used as ("" = none)
    view_as_count: ClassVar[int] = 1

    @property
    def label(self) -> str:
        return f"{self.zh} {self.en}" + ("（锁定技 locked）" if self.compulsory else "")

    # ---- timing points: available, witness, automatic, offers, reveals, invoke (see Effect)

    def check_offer(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, kn: Knowledge
    ) -> None:
        """Raise IllegalAction if ``action`` is not a valid activation (faces only if ``kn`` knows them)."""
        if action not in self.offers(st, seat, point, ctx, kn):
            raise IllegalAction(f"{self.label}: not a valid activation {action}")

    # ---- play-phase activations: {"type": "skill", "skill": key, "targets": [...], ...}
    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        """Activations the owner may choose now in its play phase (each with "targets")."""
        return []

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Callable[[Slot], CardId | None]) -> None:
        """Raise IllegalAction unless ``action`` is a valid activation (faces checked where known)."""
        raise IllegalAction(f"{self.label} cannot be activated in the play phase")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        """Hand slots the activation opens (cards it discards or uses)."""
        return ()

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        """Carry out a checked play-phase activation (faces of ``play_reveals`` are in ``st.pub``)."""

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

    def turn_redirect(self, st: HpshaState, owner: int, seat: int) -> int:
        """The seat whose turn comes now when ``seat``'s turn is about to begin (before a face-down
        character turns up), for skills that reorder turns (卢娜's 反调).  Consulted for dead owners
        too, so an order change already under way is finished.  Default: ``seat``."""
        return seat

    def on_own_death(self, st: HpshaState, seat: int) -> None:
        """Called when the owner dies (in ``HpshaState.kill``): lasting effects it keeps end here."""

    # ---- hooks for the Dark Mark and the Order of the Phoenix (chars_adults.py)
    def spell_void(self, st: HpshaState, owner: int, user: int, kind: str, target: int, colour: str) -> bool:
        """True if a spell of ``kind`` and ``colour`` ("red", "black", "" colourless) that ``user`` uses
        has no effect on ``target`` because of the owner's skill (伏地魔's 黑暗); asked for the user's
        and the target's skills."""
        return False

    def prevents_damage_from(self, st: HpshaState, owner: int, source: int) -> bool:
        """Locked prevention of damage from ``source`` to the owner (小矮星's 藏匿), checked with the
        locked prevention before DAMAGE_BEFORE."""
        return False

    def damage_source(self, st: HpshaState, owner: int) -> int | None:
        """For damage the owner is about to deal: the character treated as its source instead
        (−1 sourceless), or None (唐克斯's 易容)."""
        return None

    def locks_equipment(self, st: HpshaState, owner: int, actor: int) -> bool:
        """True if ``actor`` may not move, discard, obtain or replace the owner's equipped cards (莫丽's 持家)."""
        return False

    def treat_as(self, st: HpshaState, owner: int, card: Card) -> str | None:
        """The card name one of the owner's hand cards counts as now (亚瑟's 着迷), or None."""
        return None

    def undodgeable(self, st: HpshaState, owner: int) -> bool:
        """True if the 爆破咒 the owner is using now cannot be dodged (亚瑟's 司法)."""
        return False


SKILLS: dict[str, Skill] = {}
SKILLS_BY_CHARACTER: dict[str, tuple[Skill, ...]] = {}


def register_skills(character: str, *skills: Skill) -> None:
    """Attach skills to a character key (characters.py does this at import)."""
    for sk in skills:
        SKILLS[sk.key] = sk
    SKILLS_BY_CHARACTER[character] = tuple(skills)
