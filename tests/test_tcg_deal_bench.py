"""``benchmarks/deal.py --game tcg``: the set-up of two 60-card secret decks over loopback TCP (issue 11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _deal(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "benchmarks/deal.py", "--game", "tcg", "--peers", "2", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


def test_deal_tcg_measures_two_secret_60_card_constructed_decks(tmp_path: Path) -> None:
    proc = _deal("--json", "--repeat", "1", "--actions", "2", "--option", "crypto=fast", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["game"] == "tcg" and r["options"]["format"] == "constructed" and r["options"]["crypto"] == "fast"
    assert r["options"]["deck0"] == r["options"]["deck1"] == "own"  # no list in the public options
    assert not r["options"]["decklist0"] and not r["options"]["decklist1"]
    assert r["secret_decks"] == {"0": 60, "1": 60}
    assert r["shuffles"] == 2 and r["cards"] == 120
    assert r["setup_seconds"] > 0 and r["shuffle_seconds"] > 0 and r["bytes_on_wire"] > 0
    assert 0 < r["actions_measured"] <= 2


def test_deal_tcg_refuses_a_bad_deck_argument() -> None:
    proc = _deal("--deck", "mine.deck")
    assert proc.returncode == 2 and "SEAT=FILE" in proc.stderr
