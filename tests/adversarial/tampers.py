"""Tampers for ``run_in_memory``: frames a cheating seat rewrites on their way, shared by the attack tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p2php.session.lockstep import Lockstep
from p2php.session.messages import signing_bytes

Tamper = Callable[[int, int, dict[str, Any]], "dict[str, Any] | None"]


def equivocating_split(peers: list[Lockstep]) -> Tamper:
    """Seat 1 sends one bid to seat 0 and another, validly signed too, to seat 2 (the toy game's bids)."""
    signer = peers[1].secrets
    assert signer is not None

    def split(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        action = frame["body"].get("action") if frame.get("kind") == "action" else None
        if sender != 1 or receiver != 2 or not isinstance(action, dict) or action.get("type") != "bid":
            return frame
        other = {k: v for k, v in frame.items() if k != "sig"}
        other["body"] = {**frame["body"], "action": {**action, "n": (action["n"] + 1) % 3}}
        return {**other, "sig": signer.identity.sign(signing_bytes(peers[1].session_id, other))}

    return split
