"""No peer can see a card it is not entitled to: in its memory, or on the wire."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from p2php.bots import RandomBot
from p2php.crypto import deck
from p2php.engine.contract import Deal, Show
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory


def _entitled(ls: Lockstep) -> set[int]:
    """Slots this peer was dealt or shown."""
    out: set[int] = set()
    for event in ls.events:
        if isinstance(event.step, Deal):
            out |= {slot for slot, seat in event.step.to if seat == ls.seat}
        if isinstance(event.step, Show) and event.step.viewer == ls.seat:
            out |= set(event.step.slots)
    return out


def _record_wire() -> tuple[list[bytes], Any]:
    wire: list[bytes] = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        wire.append(msgpack.packb(frame, use_bin_type=True))
        return frame

    return wire, tamper


def test_private_knowledge_is_only_what_was_dealt_or_shown() -> None:
    peers = make_peers("toy", 4, {}, seed=21)
    run_in_memory(peers, {s: RandomBot(s) for s in range(4)})
    for ls in peers:
        assert set(ls.private_faces) <= _entitled(ls)
        assert _entitled(ls) - set(ls.public_faces) <= set(ls.private_faces)


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_other_hands_cannot_be_opened_with_everything_a_peer_received() -> None:
    """All keys released on the wire still leave another seat's hidden card locked."""
    peers = make_peers("toy", 3, {}, seed=22)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    ls = peers[0]
    foreign = [s for h in (ls.state.hands[1], ls.state.hands[2]) for s in h if s not in ls.public_faces]
    assert foreign, "some cards stay hidden at the end"
    for slot in foreign:
        d, index = ls.slot_deck[slot]
        released = ls.released[slot]
        assert len(released) < ls.players  # the owner's lock is still on
        point = deck.open_point(ls.decks[d].current[index], list(released.values()))
        assert ls.points.card_of(point) is None


def test_frames_never_carry_a_card_in_the_clear() -> None:
    wire, tamper = _record_wire()
    peers = make_peers("toy", 3, {}, seed=23)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    plaintexts = peers[0].points.points
    blob = b"".join(w for w in wire if b"audit" not in w)
    assert blob
    for point in plaintexts:
        assert point not in blob
