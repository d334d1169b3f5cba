"""A toy game (tests/toygame.py's) whose bid is replaced by a sealed decision in which every seat says whether it
holds card 0 (red 0): ``holder`` or ``not_holder``. With 4 seats every card is dealt, so exactly one seat holds it;
``check`` asks the faces of the answerer's hand; ``apply`` of a full set refuses one with no or two holders. So a
holder answering ``not_holder`` passes every other seat's check and the answers fail only together -- HP Sha's
hidden Minister, at a sealed decision. Registered once, as ``toy-holder``; ``toy-holder-shown``: every answer also
opens a card of its answerer's; ``toy-holder-next``: of the next seat's."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toygame import ToyGame, ToyState  # type: ignore[import-not-found]

from p2php.engine.contract import Action, CardId, Decide, GameOver, IllegalAction, Knowledge, Seat, Slot, Step
from p2php.engine.registry import get_game, register

NAME = "toy-holder"


class HolderState(ToyState):  # type: ignore[misc]
    def step(self) -> Step:
        if self.phase == "bid":
            return Decide(tuple(range(self.players)), "holder", sealed=True)
        if self.phase == "play":
            return GameOver((0,), tuple(0 for _ in range(self.players)))
        step: Step = super().step()
        return step

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.phase == "bid":
            faces = [knowledge.face(s) for s in self.hands[seat]]
            return [{"type": "holder" if 0 in faces else "not_holder"}]
        return list(super().legal_actions(seat, knowledge))

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if self.phase != "bid":
            super().check(seat, action, knowledge)
            return
        step = self.step()
        if not isinstance(step, Decide) or seat not in step.seats:
            raise IllegalAction(f"seat {seat} is not awaited")
        kind = action.get("type")
        if kind not in ("holder", "not_holder") or len(action) != 1:
            raise IllegalAction("say holder or not_holder")
        faces = [knowledge.face(s) for s in self.hands[seat]]
        if kind == "not_holder" and 0 in faces:
            raise IllegalAction("holds card 0 and says it does not")
        if kind == "holder" and None not in faces and 0 not in faces:
            raise IllegalAction("says it holds card 0 and does not")

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return () if self.phase == "bid" else tuple(super().reveals(seat, action))

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        if self.phase != "bid":
            super().apply(answers, faces)
            return
        holders = sum(1 for _, a in answers if a["type"] == "holder")
        if len(answers) == self.players and holders != 1:
            raise IllegalAction(f"exactly one seat holds card 0, not {holders}")
        self.phase = "play"


class HolderGame(ToyGame):  # type: ignore[misc]
    name = NAME
    min_players = 4
    max_players = 4

    def new_state(self, players: int, options: Mapping[str, object]) -> HolderState:
        self.check_players(players)
        return HolderState(players, self.parse_options(dict(options)))


SHOWN = "toy-holder-shown"


class ShownHolderState(HolderState):
    """Every answer also opens the answerer's last hand card: its own share in its signed answer, the others' public
    since the deal."""

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (self.hands[seat][-1],) if self.phase == "bid" else tuple(super().reveals(seat, action))


class ShownHolderGame(HolderGame):
    name = SHOWN

    def new_state(self, players: int, options: Mapping[str, object]) -> ShownHolderState:
        self.check_players(players)
        return ShownHolderState(players, self.parse_options(dict(options)))


NEXT = "toy-holder-next"


class NextHolderState(HolderState):
    """Every answer of seats 0 to n-2 opens the next seat's last hand card (that seat's share comes in its ``keys``
    message of the keys phase), the last seat's its own."""

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if self.phase != "bid":
            return tuple(super().reveals(seat, action))
        nxt = (seat + 1) % self.players
        return (self.hands[nxt if nxt != 0 else seat][-1],)


    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        super().check(seat, action, knowledge)
        if self.phase == "bid":
            knowledge.face(self.reveals(seat, action)[0])  # judged: no face it opens makes an answer illegal


class NextHolderGame(HolderGame):
    name = NEXT

    def new_state(self, players: int, options: Mapping[str, object]) -> NextHolderState:
        self.check_players(players)
        return NextHolderState(players, self.parse_options(dict(options)))


CLAIM = "toy-holder-claim"


class ClaimHolderState(HolderState):
    """The holder answers ``{"type": "holder", "slot": s}`` opening ``s``, its card 0; ``check`` takes any slot of the
    answerer's hand (the face it opens is checked in ``apply``, as the engine contract allows); ``apply`` of a full
    set refuses one without exactly one claim, whose opened face is card 0."""

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.phase == "bid":
            mine = [s for s in self.hands[seat] if knowledge.face(s) == 0]
            return [{"type": "holder", "slot": mine[0]}] if mine else [{"type": "not_holder"}]
        return list(super().legal_actions(seat, knowledge))

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if self.phase == "bid" and action.get("type") == "holder":
            if set(action) != {"type", "slot"} or action["slot"] not in self.hands[seat]:
                raise IllegalAction("claim a card of your hand")
            return
        super().check(seat, action, knowledge)

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if self.phase == "bid":
            return (action["slot"],) if action.get("type") == "holder" else ()
        return tuple(super().reveals(seat, action))

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        if self.phase == "bid" and len(answers) == self.players:
            claims = [a["slot"] for _, a in answers if a["type"] == "holder"]
            if len(claims) != 1 or faces[claims[0]] != 0:
                raise IllegalAction(f"exactly one seat shows card 0, not {[faces[s] for s in claims]}")
        super().apply([(s, a if a["type"] == "not_holder" else {"type": "holder"}) for s, a in answers], faces)


class ClaimHolderGame(HolderGame):
    name = CLAIM

    def new_state(self, players: int, options: Mapping[str, object]) -> ClaimHolderState:
        self.check_players(players)
        return ClaimHolderState(players, self.parse_options(dict(options)))


def ensure(shown: str = "") -> str:
    """Register ``toy-holder`` (``shown="own"``: ``toy-holder-shown``, every answer opens a card of its answerer's;
    ``"next"``: ``toy-holder-next``; ``"claim"``: ``toy-holder-claim``, the holder's answer opens its card 0 and its
    check leaves that face to ``apply``) once; its name."""
    name, game = {"": (NAME, HolderGame), "own": (SHOWN, ShownHolderGame), "next": (NEXT, NextHolderGame),
                  "claim": (CLAIM, ClaimHolderGame)}[shown]
    try:
        get_game(name)
    except Exception:
        register(game())
    return name


def hide_the_holder(peer: Any, liar: list[int]) -> None:
    """``peer`` answers ``not_holder`` when it holds card 0 (before its sealed commitment: the lie is committed)."""
    act = peer.act

    def lying_act(action: Any) -> Any:
        if isinstance(action, dict) and action.get("type") == "holder":
            liar.append(peer.seat)
            state = peer.state
            state.check = lambda *_: None  # (its own client's check would refuse the lie)
            try:
                return act({"type": "not_holder"})
            finally:
                del state.check
        return act(action)

    peer.act = lying_act
