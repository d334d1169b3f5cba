"""UNO Harry Potter through the full peer-to-peer protocol (in memory): honest games agree, lies are named."""

from __future__ import annotations

from typing import Any

import pytest

memory = pytest.importorskip("p2php.session.memory")

from p2php.bots import RandomBot  # noqa: E402
from p2php.games.uno import HeuristicBot  # noqa: E402


def cheat(peer: Any, alter: Any) -> None:
    """Make ``peer`` a modified client whose outgoing bodies go through ``alter``."""
    send = peer._send
    peer._send = lambda kind, body: send(kind, alter(kind, body))


@pytest.mark.parametrize(("deck", "players"), [("all", 2), ("magic", 3)])
def test_honest_game_is_clean(deck: str, players: int) -> None:
    peers = memory.make_peers("uno", players, {"deck": deck, "rounds": 1}, seed=1)
    memory.run_in_memory(peers, {s: HeuristicBot(s) for s in range(players)})
    hashes = {p.verdict.state_hash for p in peers}
    assert all(p.finished and p.verdict.clean for p in peers) and len(hashes) == 1


def test_false_wild_draw_four_verdict_is_named() -> None:
    named = 0
    for seed in range(8):
        peers = memory.make_peers("uno", 2, {"rounds": 1}, seed=seed)
        lied: list[bool] = []

        def alter(kind: str, body: dict[str, Any], lied: list[bool] = lied) -> dict[str, Any]:
            action = body.get("action", {}) if kind == "action" else {}
            if action.get("type") == "verdict" and action["legal"] is False:
                lied.append(True)
                return {**body, "action": {"type": "verdict", "legal": True}}
            return body

        cheat(peers[0], alter)
        memory.run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(2)})
        if lied:
            named += 1
            assert peers[1].verdict.culprit == 0 and "false verdict" in peers[1].verdict.reason
        else:
            assert peers[1].verdict.clean
    assert named >= 2
