"""Harry Potter Sha through the real protocol (mental-poker dealing, in memory): clean audits, agreement,
and hidden identities checked from every peer's own memory while the game runs."""

from __future__ import annotations

from typing import Any

import pytest

import p2php.games.hpsha  # noqa: F401  (registers the game)
from p2php.bots import RandomBot
from p2php.games.hpsha import GAME
from p2php.games.hpsha.state import HpshaState
from p2php.session.memory import make_peers, run_in_memory


@pytest.mark.parametrize(("players", "seed", "kind"), [(4, 1, "random"), (5, 7, "heuristic")])
def test_game_over_the_protocol_is_clean_and_identities_stay_private(players: int, seed: int, kind: str) -> None:
    peers = make_peers("hpsha", players, {}, seed=seed)
    checks = {"frames": 0}

    def watch(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        checks["frames"] += 1
        for ls in peers:
            st = ls.state
            assert isinstance(st, HpshaState)
            kn = ls.knowledge()
            for other in range(players):
                if other == ls.seat or other in st.roles or st.identity_slot[other] < 0:
                    continue
                assert kn.face(st.identity_slot[other]) is None, f"peer {ls.seat} knows seat {other}'s identity"
        return frame

    bots = {s: GAME.make_bot(kind, f"{seed}/{s}") if kind != "random" else RandomBot(f"{seed}/{s}")
            for s in range(players)}
    run_in_memory(peers, bots, tamper=watch)
    verdicts = [ls.verdict for ls in peers]
    assert all(v is not None and v.clean for v in verdicts)
    assert len({v.state_hash for v in verdicts if v}) == 1
    assert checks["frames"] > 100
    over = peers[0].state.step()
    assert over.winners  # type: ignore[union-attr]
