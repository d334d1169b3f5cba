"""A YourTurn withdrawn (its decider cancelled: a question asked in the rejoin hold for a point a message of ours,
handed back, answered since; rt7-stale) must not take an answer: one submitted for it would wait in the channel
and answer the next, different question the moment it is asked, before the embedder has seen it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import trio

from p2php.api import NotYourTurn, Peer


class _Stub:
    seat = 1
    events: list[Any] = []
    step = None

    def __init__(self, legal: list[dict[str, Any]]) -> None:
        self.legal = legal
        self.state = SimpleNamespace(observation=lambda seat, knowledge: {})

    def legal_actions(self) -> list[dict[str, Any]]:
        return self.legal

    def knowledge(self) -> None:
        return None


async def test_an_answer_to_a_withdrawn_turn_does_not_answer_the_next() -> None:
    peer = Peer()
    ls: Any = _Stub([{"type": "play", "card": 3}, {"type": "draw"}])
    peer._ls = ls
    with trio.move_on_after(0.2):  # question A, withdrawn while the embedder's user thinks
        await peer._decide(ls)
    assert not peer.is_my_turn()
    with pytest.raises(NotYourTurn):  # the user's click for A comes now: refused, A is no longer asked
        await peer.submit(0)
    got: list[Any] = []
    with trio.move_on_after(0.5):  # question B: waits for its own answer
        got.append(await peer._decide(ls))
    assert got == [], got
