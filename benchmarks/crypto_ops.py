"""Micro-benchmark of p2php's mental-poker cryptography.

Prints the cost of one scalar multiplication (the unit everything else is made of)
and of a full deal set-up: an N-peer shuffle round plus lock round over a deck.

    python benchmarks/crypto_ops.py [--peers 4] [--cards 112] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from p2php.canonical import digest
from p2php.crypto.deck import DeckSecrets, card_points, lock_pass, shuffle_pass
from p2php.crypto.group import hash_to_point, mul, mul_many, random_scalar
from p2php.rng import DetRng


def _per_op_us(fn: Callable[[], object], n: int) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--cards", type=int, default=112)
    ap.add_argument("--reps", type=int, default=2000, help="multiplications to time")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    rng = DetRng(b"bench")
    point = hash_to_point(b"bench", b"")
    keys = [random_scalar(rng) for _ in range(args.reps)]
    pts = [hash_to_point(b"bench", i.to_bytes(4, "big")) for i in range(args.reps)]

    mul_us = _per_op_us(lambda: [mul(point, k) for k in keys], args.reps)
    mul_many_us = _per_op_us(lambda: mul_many(pts, keys[0]), args.reps)
    h2c_us = _per_op_us(lambda: [hash_to_point(b"bench2", i.to_bytes(4, "big")) for i in range(500)], 500)

    context = digest(b"bench-session", b"deck-0")
    start = time.perf_counter()
    secrets = [
        DeckSecrets.derive(digest(b"seed", bytes([p])), context, args.cards) for p in range(args.peers)
    ]
    derive_s = time.perf_counter() - start
    deck = card_points(b"bench-deck", args.cards)
    start = time.perf_counter()
    for s in secrets:
        deck = shuffle_pass(s, deck)
    shuffle_s = time.perf_counter() - start
    start = time.perf_counter()
    for s in secrets:
        deck = lock_pass(s, deck)
    lock_s = time.perf_counter() - start

    result = {
        "mul_us": round(mul_us, 1),
        "mul_many_us_per_point": round(mul_many_us, 1),
        "hash_to_point_us": round(h2c_us, 1),
        "peers": args.peers,
        "cards": args.cards,
        "derive_secrets_ms": round(derive_s * 1e3, 2),
        "shuffle_round_ms": round(shuffle_s * 1e3, 2),
        "lock_round_ms": round(lock_s * 1e3, 2),
        "shuffle_plus_lock_ms": round((shuffle_s + lock_s) * 1e3, 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>24}: {v}")


if __name__ == "__main__":
    main()
