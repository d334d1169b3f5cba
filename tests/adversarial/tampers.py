"""Tampers for ``run_in_memory``: frames a cheating seat rewrites on their way, shared by the attack tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p2php.session.lockstep import Lockstep
from p2php.session.messages import signing_bytes

Tamper = Callable[[int, int, dict[str, Any]], "dict[str, Any] | None"]


def signed_by(author: Lockstep, frame: dict[str, Any]) -> dict[str, Any]:
    """``frame`` (a message's wire form, changed) signed again by ``author``: what a modified client sends.

    A pass's ``att`` (its points, v8) is not signed: it is kept beside the new signature."""
    fields = {k: v for k, v in frame.items() if k not in ("sig", "att")}
    att = {"att": frame["att"]} if "att" in frame else {}
    assert author.secrets is not None
    return {**fields, **att, "sig": author.secrets.identity.sign(signing_bytes(author.session_id, fields))}


def equivocating_split(peers: list[Lockstep]) -> Tamper:
    """Seat 1 sends one bid to seat 0 and another, validly signed too, to seat 2 (the toy game's bids)."""
    def split(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        action = frame["body"].get("action") if frame.get("kind") == "action" else None
        if sender != 1 or receiver != 2 or not isinstance(action, dict) or action.get("type") != "bid":
            return frame
        other = {**action, "n": (action["n"] + 1) % 3}
        return signed_by(peers[1], {**frame, "body": {**frame["body"], "action": other}})

    return split
