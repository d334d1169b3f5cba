"""Set-up of a whole verified deck (p2php/crypto/verified_deck.py) with every seat in one process.

Counts everything a real table does before the first deal: each seat's key share and Schnorr proof, each seat's
check of every key share, each seat's proven pass, and each other seat's check of that pass. Prints, per table,
the wall time of it all and each seat's own CPU time (what a player on its own machine waits for, less the
network), with the per-pass prove and verify times and the bytes of one pass. No I/O beyond the print.

    python benchmarks/verified_deck.py [--table uno hpsha] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine_info import machine  # noqa: E402

from p2php.crypto import verified_deck as vd  # noqa: E402
from p2php.crypto.bayer_groth import proof_size  # noqa: E402  # the proof on the wire since v7 (B.11)
from p2php.crypto.elgamal import CIPHERTEXT_SIZE  # noqa: E402

T = TypeVar("T")
TABLES = {"uno": ("UNO", 108, 4), "hpsha": ("HP Sha", 160, 10)}


def set_up(cards: int, players: int) -> dict[str, float]:
    """One deck's set-up; returns wall seconds, the busiest seat's CPU seconds and per-step medians."""
    session = b"benchmark session"
    book = vd.CardBook(b"benchmark deck", cards)
    cpu = [0.0] * players
    prove: list[float] = []
    verify: list[float] = []

    def timed(who: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
        """``fn(...)`` and its CPU seconds, charged to seat ``who``."""
        t0 = time.process_time()
        out = fn(*args, **kwargs)
        spent = time.process_time() - t0
        cpu[who] += spent
        return out, spent

    wall0 = time.perf_counter()
    secrets = [vd.SeatSecrets.derive(bytes([p]) * 32, b"benchmark deck 0") for p in range(players)]
    ctxs = [vd.deck_context(session, 0, "key", 0, 0, p) for p in range(players)]
    shares = [timed(p, vd.make_key_share, ctxs[p], secrets[p])[0] for p in range(players)]
    keys = {timed(p, vd.joint_key, ctxs, shares)[0] for p in range(players)}
    (y,) = keys
    key_round = max(cpu)
    deck = vd.public_deck(book, list(range(cards)), y)
    for p in range(players):
        ctx = vd.deck_context(session, 0, "pass", 1, p, p)
        made, spent = timed(p, vd.make_pass, ctx, y, deck, secrets[p])
        prove.append(spent)
        outputs, proof = made.wire()
        for q in range(players):
            if q != p:
                checked, spent = timed(q, vd.check_pass, ctx, y, deck, outputs, proof, seat=p)
                verify.append(spent)
        deck = checked
    wall = time.perf_counter() - wall0
    return {
        "wall s": wall,
        "cpu per seat s (max)": max(cpu),
        "cpu per seat s (mean)": statistics.mean(cpu),
        "key round per seat ms": key_round * 1e3,
        "prove per pass ms": statistics.median(prove) * 1e3,
        "verify per pass ms": statistics.median(verify) * 1e3,
        "pass bytes": cards * CIPHERTEXT_SIZE + proof_size(cards),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--table", nargs="+", choices=sorted(TABLES), default=["uno", "hpsha"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = {name: set_up(*TABLES[name][1:]) for name in args.table}
    if args.json:
        print(json.dumps({"machine": machine(), "tables": results}, indent=2))
        return
    print(f"machine: {machine()}")
    print(f"{'table':8} {'seats':>5} {'cards':>5} {'wall s':>7} {'CPU/seat s':>10} {'key ms':>7} "
          f"{'prove ms':>9} {'verify ms':>10} {'pass B':>7}")
    for name, r in results.items():
        label, cards, players = TABLES[name]
        print(f"{label:8} {players:5} {cards:5} {r['wall s']:7.2f} {r['cpu per seat s (max)']:10.2f} "
              f"{r['key round per seat ms']:7.1f} {r['prove per pass ms']:9.1f} {r['verify per pass ms']:10.1f} "
              f"{r['pass bytes']:7}")


if __name__ == "__main__":
    main()
