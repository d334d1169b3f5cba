"""Setup, the turn loop and the six phases of a turn.

Setup follows §3.4–§4.5: identity cards dealt face down and the minister's opened
at once (every seat answers; the non-ministers' "not me" claims are checked by
whoever knows the face, i.e. the seat itself and the audit); characters from a
face-down character deck (the minister privately gets 5 and shows the pick; the
others privately get 3, or 2 with 9–10 players, pick face down, and all picks
are revealed together); HP; the 104 cards shuffled and 4 dealt to each seat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    IllegalAction,
    Knowledge,
    Reveal,
    Seat,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.tasks import CONTINUE, Done, Outcome, Push, Replace, ask_one, stage_names
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.creature_marks import acromantula_passes, salamander_wakes
from p2php.games.hpsha.creatures import CreatureSetupTask, DeckTopEffectTask
from p2php.games.hpsha.damage import GameEndTask
from p2php.games.hpsha.data import (
    CHARACTER_BASE,
    CHARACTERS,
    GAME_CARDS,
    MINISTER,
    ROLE_NAMES,
    identity_role,
)
from p2php.games.hpsha.moves import DrawTask
from p2php.games.hpsha.play import PlayPhaseTask
from p2php.games.hpsha.tasks import Task, as_int

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

HAND_START = 4
PHASES = ("start", "judge", "draw", "play", "discard", "end")


@dataclass
class SetupTask(Task):
    """Identities, characters, HP and starting hands (one stage per step).

    IDENTITY_SLOTS → SHUFFLE_IDENTITIES → DEAL_IDENTITIES → IDENTITY (the minister opens theirs) →
    CHARACTER_SLOTS → SHUFFLE_CHARACTERS → DEAL_TO_MINISTER → MINISTER_PICKS →
    OTHER_SLOTS → SHUFFLE_OTHERS → DEAL_TO_OTHERS → OTHERS_PICK → REVEAL_PICKS →
    HP → SHUFFLE_DECK → DEAL_HANDS → DONE (the game loop takes over).
    """

    class Stage(Enum):
        IDENTITY_SLOTS = auto()  # slots for the identity cards
        SHUFFLE_IDENTITIES = auto()
        DEAL_IDENTITIES = auto()  # one face down to each seat
        IDENTITY = auto()  # every seat answers: the minister opens the card, the others say "not me"
        CHARACTER_SLOTS = auto()  # slots for the character deck
        SHUFFLE_CHARACTERS = auto()
        DEAL_TO_MINISTER = auto()  # 5 characters, privately
        MINISTER_PICKS = auto()  # the minister shows the pick
        OTHER_SLOTS = auto()  # the other characters get new slots
        SHUFFLE_OTHERS = auto()
        DEAL_TO_OTHERS = auto()  # 3 each (2 with 9–10 players), privately
        OTHERS_PICK = auto()  # face down, all at once
        REVEAL_PICKS = auto()  # the picks are opened together
        HP = auto()  # HP from the characters; slots for the game cards
        SHUFFLE_DECK = auto()
        DEAL_HANDS = auto()  # the starting hands
        DONE = auto()

    first: int = -1
    chars: list[int] = field(default_factory=list)
    offered: list[list[int]] = field(default_factory=list)
    picks: list[int] = field(default_factory=list)
    stage: Stage = field(default=Stage.IDENTITY_SLOTS, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        n = st.n
        S = SetupTaskStage
        if self.stage is S.IDENTITY_SLOTS:
            self.first = st.alloc(n)
            self.stage = S.SHUFFLE_IDENTITIES
        if self.stage is S.SHUFFLE_IDENTITIES:
            return Shuffle(st.identity_pool, self.first, "identities")
        if self.stage is S.DEAL_IDENTITIES:
            return Deal(tuple((self.first + i, i) for i in range(n)))
        if self.stage is S.IDENTITY:
            return Decide(tuple(range(n)), "identity")
        if self.stage is S.CHARACTER_SLOTS:
            self.chars = [CHARACTER_BASE + i for i in range(len(CHARACTERS))]
            self.first = st.alloc(len(self.chars))
            self.stage = S.SHUFFLE_CHARACTERS
        if self.stage is S.SHUFFLE_CHARACTERS:
            return Shuffle(tuple(self.chars), self.first, "characters")
        if self.stage is S.DEAL_TO_MINISTER:
            self.offered = [[] for _ in range(n)]
            self.offered[st.minister] = list(range(self.first, self.first + 5))
            return Deal(tuple((x, st.minister) for x in self.offered[st.minister]))
        if self.stage is S.MINISTER_PICKS:
            return Decide((st.minister,), "pick_character")
        if self.stage is S.OTHER_SLOTS:
            taken = st.char[st.minister] + CHARACTER_BASE
            self.chars = [c for c in self.chars if c != taken]
            self.first = st.alloc(len(self.chars))
            self.stage = S.SHUFFLE_OTHERS
        if self.stage is S.SHUFFLE_OTHERS:
            return Shuffle(tuple(self.chars), self.first, "characters")
        if self.stage is S.DEAL_TO_OTHERS:
            each = 2 if n >= 9 else 3
            nxt = self.first
            self.offered = [[] for _ in range(n)]
            for seat in st.order_from(st.minister)[1:]:
                self.offered[seat] = list(range(nxt, nxt + each))
                nxt += each
            return Deal(tuple((x, seat) for seat in range(n) for x in self.offered[seat]))
        if self.stage is S.OTHERS_PICK:
            return Decide(tuple(st.order_from(st.minister)[1:]), "pick_character")
        if self.stage is S.REVEAL_PICKS:
            return Reveal(tuple(p for p in self.picks if p >= 0))
        if self.stage is S.HP:
            for seat in range(n):
                ch = CHARACTERS[st.char[seat]]
                st.max_hp[seat] = st.hp[seat] = ch.hp + (1 if seat == st.minister and n > 4 else 0)
            st.characters_changed()
            st.say("characters", list(st.hp))
            self.first = st.alloc(GAME_CARDS)
            self.stage = S.SHUFFLE_DECK
        if self.stage is S.SHUFFLE_DECK:
            return Shuffle(tuple(range(GAME_CARDS)), self.first, "deck")
        if self.stage is S.DEAL_HANDS:
            st.deck = list(range(self.first, self.first + GAME_CARDS))
            order = st.order_from(st.minister)
            to = tuple((st.deck[i * n + j], seat) for i in range(HAND_START) for j, seat in enumerate(order))
            return Deal(to)
        if st.creatures and not st.cr:  # DONE: the creature pack's deck first (creatures.py)
            return Push(CreatureSetupTask())
        return Replace(GameLoopTask(st.minister))

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        S = SetupTaskStage
        if self.stage is S.DEAL_IDENTITIES:
            for i in range(st.n):
                st.identity_slot[i] = self.first + i
        elif self.stage is S.REVEAL_PICKS:
            for seat, p in enumerate(self.picks):
                if p >= 0:
                    st.char[seat] = faces[p] - CHARACTER_BASE
        elif self.stage is S.DEAL_HANDS:
            order = st.order_from(st.minister)
            for i in range(HAND_START):
                for j, seat in enumerate(order):
                    st.hands[seat].append(st.deck[i * st.n + j])
            del st.deck[: HAND_START * st.n]
        self.stage = _SETUP_NEXT[self.stage]
        return CONTINUE

    # ---- decisions
    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        if self.stage is SetupTaskStage.IDENTITY:
            f = kn.face(st.identity_slot[seat])
            if f is None:
                return [{"type": "reveal_identity"}, {"type": "not_minister"}]
            if identity_role(f) == MINISTER:
                return [{"type": "reveal_identity"}]
            return [{"type": "not_minister"}]
        return [{"type": "pick", "slot": x} for x in self.offered[seat]]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        t = action.get("type")
        if self.stage is SetupTaskStage.IDENTITY:
            f = kn.face(st.identity_slot[seat])
            if t == "reveal_identity":
                if f is not None and identity_role(f) != MINISTER:
                    raise IllegalAction("only the minister reveals the identity card now")
            elif t == "not_minister":
                if f is not None and identity_role(f) == MINISTER:
                    raise IllegalAction("the minister must reveal the identity card at once")
            else:
                raise IllegalAction("answer reveal_identity or not_minister")
            return
        if t != "pick" or as_int(action, "slot") not in self.offered[seat]:
            raise IllegalAction("pick one of the character cards you were dealt")

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if self.stage is SetupTaskStage.IDENTITY and action.get("type") == "reveal_identity":
            return (st.identity_slot[seat],)
        if self.stage is SetupTaskStage.MINISTER_PICKS:
            return (as_int(action, "slot"),)
        return ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        S = SetupTaskStage
        if self.stage is S.IDENTITY:
            shown = [seat for seat, a in answers if a["type"] == "reveal_identity"]
            if len(shown) != 1:
                raise IllegalAction(f"exactly one seat must reveal the minister, not {len(shown)}")
            seat = shown[0]
            if identity_role(faces[st.identity_slot[seat]]) != MINISTER:
                raise IllegalAction(f"seat {seat} revealed {ROLE_NAMES[identity_role(faces[st.identity_slot[seat]])]}"
                                    ", not the minister")
            st.minister = seat
            st.roles[seat] = MINISTER
            st.say("minister", seat)
            self.stage = S.CHARACTER_SLOTS
        elif self.stage is S.MINISTER_PICKS:
            ((seat, a),) = answers
            st.char[seat] = faces[a["slot"]] - CHARACTER_BASE
            st.say("minister_picks", faces[a["slot"]])
            self.stage = S.OTHER_SLOTS
        else:  # OTHERS_PICK
            self.picks = [-1] * st.n
            for seat, a in answers:
                self.picks[seat] = a["slot"]
            self.stage = S.REVEAL_PICKS
        return CONTINUE


_SETUP_NEXT: dict[SetupTask.Stage, SetupTask.Stage] = {
    SetupTask.Stage.SHUFFLE_IDENTITIES: SetupTask.Stage.DEAL_IDENTITIES,
    SetupTask.Stage.DEAL_IDENTITIES: SetupTask.Stage.IDENTITY,
    SetupTask.Stage.SHUFFLE_CHARACTERS: SetupTask.Stage.DEAL_TO_MINISTER,
    SetupTask.Stage.DEAL_TO_MINISTER: SetupTask.Stage.MINISTER_PICKS,
    SetupTask.Stage.SHUFFLE_OTHERS: SetupTask.Stage.DEAL_TO_OTHERS,
    SetupTask.Stage.DEAL_TO_OTHERS: SetupTask.Stage.OTHERS_PICK,
    SetupTask.Stage.REVEAL_PICKS: SetupTask.Stage.HP,
    SetupTask.Stage.SHUFFLE_DECK: SetupTask.Stage.DEAL_HANDS,
    SetupTask.Stage.DEAL_HANDS: SetupTask.Stage.DONE,
}
"""The stage after each chance step of the setup is done (what the step's result leads to)."""


@dataclass
class GameLoopTask(Task):
    """Turns in seat order from the minister; a face-down character turns up and skips its turn.

    TURN (``seat``'s turn, or the turn limit ends the game) → TURN_OVER (the next seat) → TURN ...
    """

    class Stage(Enum):
        TURN = auto()  # the turn of ``seat`` (or the next living seat), unless the turn limit is reached
        TURN_OVER = auto()  # the turn of ``last`` is over: the turn passes on

    seat: int
    last: int = -1
    stage: Stage = field(default=Stage.TURN, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is GameLoopTaskStage.TURN_OVER:
            self.seat = st.next_alive(self.last)
            self.stage = GameLoopTaskStage.TURN
        if st.turn_no >= st.max_turns:
            st.stack.reset([GameEndTask(aborted=True)])
            return CONTINUE
        s = self.seat if st.alive[self.seat] else st.next_alive(self.seat)
        s = _redirect(st, s)
        while st.face_down[s]:
            st.face_down[s] = False
            st.say("face_up_skip", s)
            s = _redirect(st, st.next_alive(s))
        self.last = s
        self.stage = GameLoopTaskStage.TURN_OVER
        return Push(TurnTask(s))


def _redirect(st: HpshaState, seat: int) -> int:
    """The seat whose turn comes now instead of ``seat``'s: skills that reorder turns (卢娜's 反调,
    :meth:`Skill.turn_redirect`) may put another seat's turn here; usually ``seat`` itself."""
    for owner in range(st.n):
        for sk in st.all_skills(owner):
            seat = sk.turn_redirect(st, owner, seat)
    return seat


@dataclass
class TurnTask(Task):
    """One turn: TURN_START, then each phase (PHASE_START, body, PHASE_END) unless skipped, then TURN_END,
    then any extra phases a rule or skill granted for after this turn (:meth:`HpshaState.add_extra_phase`).

    START → PHASE → BODY → PHASE_END → NEXT_PHASE → PHASE ... (every phase done: TURN_END) →
    EXTRA → EXTRA_BODY → EXTRA_END → EXTRA ... (no extra phase left: the turn is done).
    """

    class Stage(Enum):
        START = auto()  # the turn begins: TURN_START
        PHASE = auto()  # phase ``pi``: PHASE_BEFORE, skipped or PHASE_START (all done: TURN_END)
        BODY = auto()  # what the phase does
        PHASE_END = auto()  # ``discards`` read (the discard phase's): PHASE_END
        NEXT_PHASE = auto()
        EXTRA = auto()  # the turn is over: the next extra phase granted for after it (PHASE_START), or done
        EXTRA_BODY = auto()  # what the extra phase does
        EXTRA_END = auto()  # ``discards`` read: the extra phase's PHASE_END

    seat: int
    pi: int = 0
    discarded: list[int] = field(default_factory=list)
    extra: str = ""  # the extra phase being carried out (stages EXTRA to EXTRA_END)
    before: int = -1  # the phase (index) whose PHASE_BEFORE has fired
    discards: list[int] | None = None  # what the phase body's DiscardPhaseTask discarded
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        """Go through the stages while nothing is pushed: after a timing point where no skill applies
        (:meth:`HpshaState.fire_last` pushes no trigger task), a skipped phase or a body that pushes nothing, the
        next stage runs here, as the task stack would run it by running this task again (still its top task).
        Most of a turn's stages are such: a few runs a turn instead of ~25."""
        seat, stack = self.seat, st.stack
        S = TurnTaskStage
        while True:
            if self.stage is S.START:
                st.current = seat
                st.turn_no += 1
                st.phase = "start"
                st.bombarda_used = 0
                st.impeded = False
                st.skip = []
                st.say("turn", st.turn_no, seat, st.hp[seat], st.max_hp[seat])
                for sk in st.skills(seat):
                    sk.on_own_turn_start(st, seat)
                if st.creatures:  # 火蜥蜴 Salamander, 巨蜘蛛 Acromantula
                    salamander_wakes(st, seat)
                    if st.flags[seat].get("acromantula"):
                        st.push(DeckTopEffectTask("acromantula", seat))
                    egg = next((s for s in range(st.n) if st.flags[s].get("dragon")), -1)
                    if egg >= 0:  # 火龙 Dragon: the turn's character turns over a card for the egg
                        st.push(DeckTopEffectTask("dragon", egg))
                self.stage = S.PHASE
                st.fire_last(tp.TURN_START, {"who": seat})
                if stack.top is not self:  # (a skill's or a creature's task pushed too)
                    return CONTINUE
            if self.stage is S.NEXT_PHASE:  # on to the next phase in the same run (as CONTINUE would)
                self.pi += 1
                self.stage = S.PHASE
            if self.stage is S.PHASE:
                if not st.alive[seat]:
                    return self._done(st)
                if self.pi >= len(PHASES):
                    self.stage = S.EXTRA
                    st.phase = "end"
                    st.fire_last(tp.TURN_END, {"who": seat})
                    if stack.top is not self:
                        return CONTINUE
                    break
                ph = PHASES[self.pi]
                if self.before != self.pi:  # "before the phase begins" (PHASE_BEFORE): a skill may still skip it
                    self.before = self.pi
                    st.fire_last(tp.PHASE_BEFORE, {"who": seat, "phase": ph})
                    if stack.top is not self:
                        return CONTINUE
                    continue
                if st.skips(seat, ph):
                    st.say("skips", seat, ph)
                    self.pi += 1
                    continue
                st.phase = ph
                self.stage = S.BODY
                st.fire_last(tp.PHASE_START, {"who": seat, "phase": ph})
                if stack.top is not self:
                    return CONTINUE
            if self.stage is S.BODY:
                self.stage = S.PHASE_END
                self.discards = None
                if st.alive[seat]:
                    _push_phase_body(st, seat, PHASES[self.pi])
                    if stack.top is not self:
                        return CONTINUE
                continue
            if self.stage is S.PHASE_END:
                ph = PHASES[self.pi]
                self.discarded = list(self.discards) if ph == "discard" and self.discards else []
                self.stage = S.NEXT_PHASE
                if st.alive[seat]:
                    st.fire_last(tp.PHASE_END, {"who": seat, "phase": ph, "discarded": self.discarded})
                    if stack.top is not self:
                        return CONTINUE
                continue
            break
        return self._extra(st)

    def _extra(self, st: HpshaState) -> Outcome:
        """The stages after the turn's own phases: the extra phases granted for after it (see :meth:`run`)."""
        seat = self.seat
        S = TurnTaskStage
        if self.stage is S.EXTRA:  # the turn is over: extra phases granted for after it, one by one
            due = [e for e in st.extra_phases if e[0] == seat]
            if not due or not st.alive[seat] or st.result is not None:
                st.extra_phases = [e for e in st.extra_phases if e[0] != seat]
                return self._done(st)
            st.extra_phases.remove(due[0])
            self.extra = due[0][1]
            st.phase = self.extra
            st.impeded = False  # turn-scoped effects (障碍重重, skipped phases) are over
            st.skip = []
            st.say("extra_phase", seat, self.extra)
            self.stage = S.EXTRA_BODY
            return st.fire_last(tp.PHASE_START, {"who": seat, "phase": self.extra, "extra": True})
        if self.stage is S.EXTRA_BODY:
            self.stage = S.EXTRA_END
            self.discards = None
            if st.alive[seat]:
                _push_phase_body(st, seat, self.extra)
            return CONTINUE
        # EXTRA_END
        discarded = list(self.discards) if self.extra == "discard" and self.discards else []
        self.stage = S.EXTRA
        out = st.fire(tp.PHASE_END, {"who": seat, "phase": self.extra, "discarded": discarded, "extra": True}) \
            if st.alive[seat] else CONTINUE
        st.phase = "end"  # the trigger resolves in the end phase, as before the extra phase
        return out

    def _done(self, st: HpshaState) -> Outcome:
        if st.creatures and st.alive[self.seat]:
            acromantula_passes(st, self.seat)
        st.phase = ""
        st.impeded = False
        st.skip = []
        return Done()


def _push_phase_body(st: HpshaState, seat: int, ph: str) -> None:
    """Push what a phase does (the start and end phases only have their timing points); the discard
    phase's slots go to the running :class:`TurnTask`'s ``discards``."""
    if ph == "judge" and st.judge[seat]:
        from p2php.games.hpsha.cards_spells import JudgementPhaseTask

        st.push(JudgementPhaseTask(seat))
    elif ph == "draw":
        st.push(DrawTask(seat, 2))
    elif ph == "play":
        st.push(PlayPhaseTask(seat))
    elif ph == "discard":
        st.push(DiscardPhaseTask(seat), into="discards")


@dataclass
class DiscardPhaseTask(Task):
    """Discard one card at a time down to the hand limit (current HP).  Result: the slots discarded (list)."""

    seat: int
    discarded: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Outcome:
        if not st.alive[self.seat] or len(st.hands[self.seat]) <= st.hand_limit(self.seat):
            if self.discarded:
                st.say("discards", self.seat, st.ids(self.discarded))
            return Done(self.discarded)
        return ask_one(self.seat, "discard")

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return [{"type": "discard", "slots": [s]} for s in st.hands[seat]]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        if action.get("type") != "discard":
            raise IllegalAction("discard a hand card")
        slots = action.get("slots")
        if not isinstance(slots, list) or len(slots) != 1 or slots[0] not in st.hands[seat]:
            raise IllegalAction("discard exactly one of your hand cards")

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return st.unopened(action["slots"])

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        s = action["slots"][0]
        st.to_discard(s)
        self.discarded.append(s)
        return CONTINUE


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
SetupTaskStage = stage_names(SetupTask.Stage)
GameLoopTaskStage = stage_names(GameLoopTask.Stage)
TurnTaskStage = stage_names(TurnTask.Stage)
