"""Micro-benchmark of the verified-dealing primitives on secp256k1 (coincurve).

Prints the unit costs (scalar products, additions, encodings, hashing into the group, the two sigma proofs) and,
for each deck size, one shuffle pass: shuffle, prove, verify, proof size, beside the predicted count of group
operations (the verifier does about 8N + 7 variable-base and N + 4 fixed-base products).

    python benchmarks/verified_crypto.py [--cards 112 160] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine_info import machine  # noqa: E402

from p2php.crypto import elgamal  # noqa: E402
from p2php.crypto.proofs import proof_context, prove_key, prove_share, verify_key, verify_share  # noqa: E402
from p2php.crypto.secp256k1 import (  # noqa: E402
    base_mul,
    decode_point,
    generator,
    hash_to_group,
    random_scalar,
    sum_points,
)
from p2php.crypto.shuffle_proof import proof_size, prove_shuffle, shuffle, verify_shuffle  # noqa: E402
from p2php.rng import DetRng  # noqa: E402


def _us(fn: Callable[[], object], n: int) -> float:
    """Microseconds per call of ``fn`` (the best of 3 batches of ``n``)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n * 1e6)
    return best


def unit_costs() -> dict[str, float]:
    rng = DetRng(b"bench")
    g = generator()
    p = base_mul(random_scalar(rng))
    k = random_scalar(rng)
    pts = [base_mul(random_scalar(rng)) for _ in range(100)]
    raw = p.encode()
    ctx = proof_context(b"bench", 0, 0, 0)
    x = random_scalar(rng)
    y = base_mul(x)
    proof = prove_key(ctx, x, rng)
    a = base_mul(random_scalar(rng))
    d, share = prove_share(ctx, x, a, rng)
    counter = iter(range(10**9))
    return {
        "scalar x point (var)": _us(lambda: p * k, 300),
        "scalar x G (base)": _us(lambda: base_mul(k), 300),
        "add 2 points": _us(lambda: p + g, 1000),
        "add per point (100-point sum)": _us(lambda: sum_points(pts), 300) / 100,
        "decode 33 B (strict)": _us(lambda: decode_point(raw), 1000),
        "hash to group": _us(lambda: hash_to_group(b"bench", next(counter).to_bytes(8, "big")), 300),
        "Schnorr prove": _us(lambda: prove_key(ctx, x, rng), 200),
        "Schnorr verify": _us(lambda: verify_key(ctx, y, proof), 200),
        "Chaum-Pedersen prove": _us(lambda: prove_share(ctx, x, a, rng), 200),
        "Chaum-Pedersen verify": _us(lambda: verify_share(ctx, y, a, d, share), 200),
    }


def shuffle_pass(n: int, repeat: int) -> dict[str, float]:
    rng = DetRng(b"pass %d" % n)
    y = base_mul(random_scalar(rng))
    deck = elgamal.initial_deck(y, [elgamal.card_point(b"bench", i) for i in range(n)])
    ctx = proof_context(b"bench", 1, 0, 0)
    times: dict[str, list[float]] = {"shuffle": [], "prove": [], "verify": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        out, perm, rhos = shuffle(y, deck, rng)
        t1 = time.perf_counter()
        proof = prove_shuffle(ctx, y, deck, out, perm, rhos, rng)
        t2 = time.perf_counter()
        assert verify_shuffle(ctx, y, deck, out, proof)
        t3 = time.perf_counter()
        times["shuffle"].append(t1 - t0)
        times["prove"].append(t2 - t1)
        times["verify"].append(t3 - t2)
    result = {f"{key} s": statistics.median(values) for key, values in times.items()}
    result["proof bytes"] = proof_size(n)
    result["deck bytes"] = n * elgamal.CIPHERTEXT_SIZE
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--cards", type=int, nargs="+", default=[112, 160])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    units = unit_costs()
    passes = {n: shuffle_pass(n, args.repeat) for n in args.cards}
    if args.json:
        print(json.dumps({"machine": machine(), "unit_us": units, "passes": passes}, indent=2))
        return
    print(f"machine: {machine()}")
    print(f"{'operation':34} {'µs':>9}")
    for name, us in units.items():
        print(f"{name:34} {us:9.1f}")
    var, base = units["scalar x point (var)"], units["scalar x G (base)"]
    print()
    print(f"{'N':>4} {'shuffle ms':>11} {'prove ms':>9} {'verify ms':>10} {'verify predicted ms':>20} "
          f"{'proof B':>8} {'deck B':>7}")
    for n, r in passes.items():
        predicted = ((8 * n + 7) * var + (n + 4) * base) / 1000
        print(f"{n:4} {r['shuffle s'] * 1e3:11.1f} {r['prove s'] * 1e3:9.1f} {r['verify s'] * 1e3:10.1f} "
              f"{predicted:20.1f} {r['proof bytes']:8} {r['deck bytes']:7}")


if __name__ == "__main__":
    main()
