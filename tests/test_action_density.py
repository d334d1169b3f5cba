"""The kit tells a game's author early when an action is too dense for the wire (p2php.testing.density).

Every seat refuses a signed message holding more than one value for every 4 bytes (protocol.md §5.2 check 6): a
game whose legal action is a long list of small ints would have its honest seats named ``bad_message``. The
agreement and conformance checks refuse such a game with one clear line; the built-in games pass (their own
agreement and conformance tests run the same check at every legal action).
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from toygame import ToyGame, ToyState  # type: ignore[import-not-found, unused-ignore]

from p2php.engine.contract import Action, IllegalAction, Knowledge, Seat
from p2php.net.framing import VALUE_BYTES, body_values
from p2php.session.lockstep import too_dense
from p2php.session.messages import Message
from p2php.testing.agreement import AgreementError, check_agreement
from p2php.testing.conformance import ConformanceError, check_game
from p2php.testing.density import ACTION_VALUE_BYTES, _lean, density_fault, lean_message_size

TALLIES = list(range(64))
"""A toy bid that carries a tally of 64 small ints: one byte and one value each."""


class TallyState(ToyState):  # type: ignore[misc, unused-ignore]
    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.phase == "bid":
            return [{"type": "bid", "n": k, "tally": TALLIES} for k in range(3)]
        return list(super().legal_actions(seat, knowledge))

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if self.phase == "bid" and action.get("tally") != TALLIES:
            raise IllegalAction("a bid carries the tally")
        super().check(seat, {k: v for k, v in action.items() if k != "tally"}, knowledge)


class TallyGame(ToyGame):  # type: ignore[misc, unused-ignore]
    name = "tally-toy"

    def new_state(self, players: int, options: Mapping[str, object]) -> TallyState:
        return TallyState(players, options)


def test_an_action_of_many_small_ints_is_refused_by_the_agreement_check() -> None:
    with pytest.raises(AgreementError, match=r"tally-toy, 2 players, seed 0, decision \d+ \(bid\): seat 0's legal "
                       r"\{'type': 'bid', 'n': 0, 'tally': \[0, 1, 2.*… \(\d+ characters\) is too dense for the "
                       r"wire: .* holds 94 values in 290 bytes \(3\.1 bytes a value; .* at least 5, .* under 4") as err:
        check_agreement(TallyGame(), (2,), range(1))
    assert "\n" not in str(err.value) and len(str(err.value)) < 700


def test_an_action_of_many_small_ints_is_refused_by_the_conformance_check() -> None:
    with pytest.raises(ConformanceError, match=r"seat 0's legal .* is too dense for the wire: .* 94 values in 290"):
        check_game(TallyGame(), players=(2,), seeds=range(1))


def test_the_same_toy_game_without_the_tally_passes() -> None:
    """(The toy game's ``check`` has holes of its own, which the report lists: what matters here is that no legal
    action is refused.)"""
    check_game(ToyGame(), players=(2,), seeds=range(1))
    assert check_agreement(ToyGame(), (2,), range(1)).legal_checked > 0


def test_the_kit_measures_the_message_every_seat_measures() -> None:
    """``lean_message_size`` is the wire form's own count (§3.1), and what the kit refuses under 4 bytes a value is
    what a seat refuses (``lockstep.too_dense``); the kit's margin lies between the rule and the built-in games."""
    tally: Action = {"type": "bid", "n": 0, "tally": TALLIES}
    for action in ({}, {"type": "play", "slot": 19, "colour": "red", "uno": True}, tally,
                   {"a": {"b": [1, [2, 3]], "c": b"xy"}}):
        wire = _lean(action).wire_bytes
        assert lean_message_size(action) == (len(wire), body_values(wire))
    assert too_dense(_lean(tally).wire_bytes) == 94  # a seat refuses the honest message of this action
    assert density_fault(tally) is not None
    ten = {"type": "use", "kind": "aguamenti", "slots": [129], "targets": list(range(10))}  # HP Sha's densest
    assert lean_message_size(ten) == (257, 43) and density_fault(ten) is None
    assert VALUE_BYTES < ACTION_VALUE_BYTES <= 257 / 43
    short = {"type": "bid", "n": 0, "tally": list(range(19))}
    assert density_fault(short) is None and density_fault({**short, "tally": list(range(20))}) is not None
    real = Message(sender=3, seq=40, prev=bytes(32), at=(700, 1), state=bytes(32), seen=((1, 39, bytes(32)),),
                   kind="action", body={"action": ten, "keys": []}, sig=bytes(64))
    assert len(real.wire_bytes) / body_values(real.wire_bytes) > 257 / 43  # a real envelope only adds room


def test_an_action_past_the_action_bound_is_refused_by_the_kit() -> None:
    """A legal action of 70 000 bytes (dense enough) is past ``MAX_ACTION_BYTES``: no seat signs it and every other
    seat refuses it on arrival, so the kit says so, as it does of a too dense one (review rv8-red; before, the kit
    passed it, and the game's honest seats were named ``bad_message`` through the in-memory network)."""
    assert density_fault({"type": "bid", "n": 0, "note": "n" * 70_000}) is not None
    assert density_fault({"type": "bid", "n": 0, "note": "n" * 60_000}) is None
    assert "at most 4096 values and 65536 bytes" in str(density_fault({"type": "bid", "x": ["ab" * 4] * 5000}))
