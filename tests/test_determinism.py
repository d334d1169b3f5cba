"""Same seed and same actions give the same canonical state hash in any process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import sys
from p2php.engine.registry import get_game
from p2php.engine.local import LocalTable
game = get_game("uno")
hashes = []
for seed, deck, players in [(1, "all", 4), (2, "magic", 3), (3, "base", 2)]:
    state = game.new_state(players, {"deck": deck, "rounds": 2})
    table = LocalTable(state, seed=seed)
    table.play({s: game.make_bot("heuristic", f"{seed}/{s}") for s in range(players)})
    hashes.append(state.state_hash().hex())
from p2php.session.memory import make_peers, run_in_memory
peers = make_peers("uno", 3, {"deck": "all", "rounds": 1}, seed=5)
run_in_memory(peers, {s: get_game("uno").make_bot("heuristic", s) for s in range(3)})
hashes.append(peers[0].verdict.state_hash.hex())
print(" ".join(hashes))
"""


def _run(hashseed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("other", ["12345", "random"])
def test_state_hashes_match_across_processes_and_hash_seeds(other: str) -> None:
    assert _run("0") == _run(other)
