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
from p2php.games.hpsha import triggers as tp
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
    """Identities, characters, HP and starting hands (one stage per step)."""

    first: int = -1
    chars: list[int] = field(default_factory=list)
    offered: list[list[int]] = field(default_factory=list)
    picks: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        n = st.n
        s = self.stage
        if s == 0:
            self.first = st.alloc(n)
            self.stage = 1
        if s <= 1:
            return Shuffle(st.identity_pool, self.first, "identities")
        if s == 2:
            return Deal(tuple((self.first + i, i) for i in range(n)))
        if s == 3:
            return Decide(tuple(range(n)), "identity")
        if s == 4:
            self.chars = [CHARACTER_BASE + i for i in range(len(CHARACTERS))]
            self.first = st.alloc(len(self.chars))
            self.stage = 5
        if s <= 5:
            return Shuffle(tuple(self.chars), self.first, "characters")
        if s == 6:
            self.offered = [[] for _ in range(n)]
            self.offered[st.minister] = list(range(self.first, self.first + 5))
            return Deal(tuple((x, st.minister) for x in self.offered[st.minister]))
        if s == 7:
            return Decide((st.minister,), "pick_character")
        if s == 8:
            taken = st.char[st.minister] + CHARACTER_BASE
            self.chars = [c for c in self.chars if c != taken]
            self.first = st.alloc(len(self.chars))
            self.stage = 9
        if s <= 9:
            return Shuffle(tuple(self.chars), self.first, "characters")
        if s == 10:
            each = 2 if n >= 9 else 3
            nxt = self.first
            self.offered = [[] for _ in range(n)]
            for seat in st.order_from(st.minister)[1:]:
                self.offered[seat] = list(range(nxt, nxt + each))
                nxt += each
            return Deal(tuple((x, seat) for seat in range(n) for x in self.offered[seat]))
        if s == 11:
            return Decide(tuple(st.order_from(st.minister)[1:]), "pick_character")
        if s == 12:
            return Reveal(tuple(p for p in self.picks if p >= 0))
        if s == 13:
            for seat in range(n):
                ch = CHARACTERS[st.char[seat]]
                st.max_hp[seat] = st.hp[seat] = ch.hp + (1 if seat == st.minister and n > 4 else 0)
            st.characters_changed()
            st.say("characters", list(st.hp))
            self.first = st.alloc(GAME_CARDS)
            self.stage = 14
        if self.stage == 14:
            return Shuffle(tuple(range(GAME_CARDS)), self.first, "deck")
        if self.stage == 15:
            st.deck = list(range(self.first, self.first + GAME_CARDS))
            order = st.order_from(st.minister)
            to = tuple((st.deck[i * n + j], seat) for i in range(HAND_START) for j, seat in enumerate(order))
            return Deal(to)
        # 16: done
        st.finish(None)
        st.push(GameLoopTask(st.minister))
        return None

    def advanced(self, st: HpshaState, faces: Mapping[Slot, CardId], random: bytes) -> None:
        if self.stage == 2:
            for i in range(st.n):
                st.identity_slot[i] = self.first + i
        elif self.stage == 12:
            for seat, p in enumerate(self.picks):
                if p >= 0:
                    st.char[seat] = faces[p] - CHARACTER_BASE
        elif self.stage == 15:
            order = st.order_from(st.minister)
            for i in range(HAND_START):
                for j, seat in enumerate(order):
                    st.hands[seat].append(st.deck[i * st.n + j])
            del st.deck[: HAND_START * st.n]
        self.stage += 1

    # ---- decisions
    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        if self.stage == 3:
            f = kn.face(st.identity_slot[seat])
            if f is None:
                return [{"type": "reveal_identity"}, {"type": "not_minister"}]
            if identity_role(f) == MINISTER:
                return [{"type": "reveal_identity"}]
            return [{"type": "not_minister"}]
        return [{"type": "pick", "slot": x} for x in self.offered[seat]]

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        t = action.get("type")
        if self.stage == 3:
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
        if self.stage == 3 and action.get("type") == "reveal_identity":
            return (st.identity_slot[seat],)
        if self.stage == 7:
            return (as_int(action, "slot"),)
        return ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        if self.stage == 3:
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
            self.stage = 4
        elif self.stage == 7:
            ((seat, a),) = answers
            st.char[seat] = faces[a["slot"]] - CHARACTER_BASE
            st.say("minister_picks", faces[a["slot"]])
            self.stage = 8
        else:
            self.picks = [-1] * st.n
            for seat, a in answers:
                self.picks[seat] = a["slot"]
            self.stage = 12


@dataclass
class GameLoopTask(Task):
    """Turns in seat order from the minister; a face-down character turns up and skips its turn."""

    seat: int
    last: int = -1

    def run(self, st: HpshaState) -> Step | None:
        if self.stage == 1:
            self.seat = st.next_alive(self.last)
            self.stage = 0
        if st.turn_no >= st.max_turns:
            st.stack.reset([GameEndTask(aborted=True)])
            return None
        s = self.seat if st.alive[self.seat] else st.next_alive(self.seat)
        s = _redirect(st, s)
        while st.face_down[s]:
            st.face_down[s] = False
            st.say("face_up_skip", s)
            s = _redirect(st, st.next_alive(s))
        self.last = s
        self.stage = 1
        st.push(TurnTask(s))
        return None


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
    then any extra phases a rule or skill granted for after this turn (:meth:`HpshaState.add_extra_phase`)."""

    seat: int
    pi: int = 0
    discarded: list[int] = field(default_factory=list)
    extra: str = ""  # the extra phase being carried out (stages 6–8)
    before: int = -1  # the phase (index) whose PHASE_BEFORE has fired

    def run(self, st: HpshaState) -> Step | None:
        seat = self.seat
        if self.stage == 0:
            st.current = seat
            st.turn_no += 1
            st.phase = "start"
            st.bombarda_used = 0
            st.impeded = False
            st.skip = []
            st.say("turn", st.turn_no, seat, st.hp[seat], st.max_hp[seat])
            for sk in st.skills(seat):
                sk.on_own_turn_start(st, seat)
            self.stage = 1
            st.fire(tp.TURN_START, {"who": seat})
            return None
        if self.stage == 1:
            if not st.alive[seat]:
                self._done(st)
                return None
            if self.pi >= len(PHASES):
                self.stage = 5
                st.phase = "end"
                st.fire(tp.TURN_END, {"who": seat})
                return None
            ph = PHASES[self.pi]
            if self.before != self.pi:  # "before the phase begins" (PHASE_BEFORE): a skill may still skip it
                self.before = self.pi
                st.fire(tp.PHASE_BEFORE, {"who": seat, "phase": ph})
                return None
            if st.skips(seat, ph):
                st.say("skips", seat, ph)
                self.pi += 1
                return None
            st.phase = ph
            self.stage = 2
            st.fire(tp.PHASE_START, {"who": seat, "phase": ph})
            return None
        if self.stage == 2:
            self.stage = 3
            if st.alive[seat]:
                _push_phase_body(st, seat, PHASES[self.pi])
            return None
        if self.stage == 3:
            ph = PHASES[self.pi]
            self.discarded = list(st.ret) if ph == "discard" and st.ret else []
            self.stage = 4
            if st.alive[seat]:
                st.fire(tp.PHASE_END, {"who": seat, "phase": ph, "discarded": self.discarded})
            return None
        if self.stage == 4:
            self.pi += 1
            self.stage = 1
            return None
        if self.stage == 5:  # the turn is over: extra phases granted for after it, one by one
            due = [e for e in st.extra_phases if e[0] == seat]
            if not due or not st.alive[seat] or st.result is not None:
                st.extra_phases = [e for e in st.extra_phases if e[0] != seat]
                self._done(st)
                return None
            st.extra_phases.remove(due[0])
            self.extra = due[0][1]
            st.phase = self.extra
            st.impeded = False  # turn-scoped effects (障碍重重, skipped phases) are over
            st.skip = []
            st.say("extra_phase", seat, self.extra)
            self.stage = 6
            st.fire(tp.PHASE_START, {"who": seat, "phase": self.extra, "extra": True})
            return None
        if self.stage == 6:
            self.stage = 7
            if st.alive[seat]:
                _push_phase_body(st, seat, self.extra)
            return None
        if self.stage == 7:
            discarded = list(st.ret) if self.extra == "discard" and st.ret else []
            self.stage = 5
            if st.alive[seat]:
                st.fire(tp.PHASE_END, {"who": seat, "phase": self.extra, "discarded": discarded, "extra": True})
            st.phase = "end"
            return None
        self._done(st)
        return None

    def _done(self, st: HpshaState) -> None:
        st.phase = ""
        st.impeded = False
        st.skip = []
        st.finish(None)


def _push_phase_body(st: HpshaState, seat: int, ph: str) -> None:
    """Push what a phase does (the start and end phases only have their timing points)."""
    if ph == "judge" and st.judge[seat]:
        from p2php.games.hpsha.cards_spells import JudgementPhaseTask

        st.push(JudgementPhaseTask(seat))
    elif ph == "draw":
        st.push(DrawTask(seat, 2))
    elif ph == "play":
        st.push(PlayPhaseTask(seat))
    elif ph == "discard":
        st.push(DiscardPhaseTask(seat))
    st.ret = None


@dataclass
class DiscardPhaseTask(Task):
    """Discard one card at a time down to the hand limit (current HP).  ``ret``: the slots discarded."""

    seat: int
    discarded: list[int] = field(default_factory=list)

    def run(self, st: HpshaState) -> Step | None:
        if not st.alive[self.seat] or len(st.hands[self.seat]) <= st.hand_limit(self.seat):
            if self.discarded:
                st.say("discards", self.seat, st.ids(self.discarded))
            st.finish(self.discarded)
            return None
        return Decide((self.seat,), "discard")

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

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        ((seat, action),) = answers
        s = action["slots"][0]
        st.to_discard(s)
        self.discarded.append(s)

