"""Garbage from a peer is named, never a crash: envelope fuzzing at the lockstep level."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.bots import RandomBot
from p2php.session.memory import make_peers, run_in_memory

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8) | st.binary(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(frame=st.dictionaries(st.sampled_from(
    ["from", "seq", "prev", "at", "state", "seen", "kind", "body", "sig", "x"]), plain, max_size=9))
def test_random_frames_are_named_not_raised(frame: dict[str, Any]) -> None:
    peers = make_peers("toy", 2, {}, seed=1)
    ls = peers[0]
    ls.receive(1, frame)  # must not raise
    ls.poll()
    assert ls.fault is not None and ls.fault.culprit == 1


def test_non_map_frame_is_named() -> None:
    peers = make_peers("toy", 2, {}, seed=1)
    peers[0].receive(1, [1, 2, 3])  # type: ignore[arg-type]
    assert peers[0].fault is not None and "not a map" in peers[0].fault.reason


def test_malformed_action_body_is_named() -> None:
    """A correctly signed message whose action has nonsense types."""
    peers = make_peers("toy", 3, {}, seed=2)
    send = peers[1]._send

    def alter(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action":
            body = {"action": {"type": "play", "slot": "seven"}, "keys": [[None, b"x"]]}
        return send(kind, body)

    peers[1]._send = alter  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    for p in (peers[0], peers[2]):
        assert p.verdict is not None and p.verdict.culprit == 1
