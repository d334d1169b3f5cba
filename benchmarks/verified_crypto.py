"""Micro-benchmark of the verified-dealing primitives on secp256k1 (coincurve).

Prints the unit costs (scalar products, additions, encodings, hashing into the group, the key proof, a batch of
decryption shares) and, for each deck size, one shuffle pass with each proof of a shuffle: Bayer–Groth (protocol.md
B.11, on the wire since v7), the same proof with its prover's diagonals summed directly instead of interpolated
(``bayer_groth/diagonals.py``: the same bytes; before and after that change, in one run), and Terelius–Wikström
(B.7, on the wire until v6): shuffle, prove, verify, proof size, and the count of group operations each made
(products, those by a small scalar below 2^64, fixed-base products, sums; counted by wrapping the calls).

    python benchmarks/verified_crypto.py [--cards 108 160 688] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine_info import machine  # noqa: E402

from p2php.crypto import bayer_groth, elgamal, secp256k1, shuffle_proof  # noqa: E402
from p2php.crypto.bayer_groth import diagonals  # noqa: E402
from p2php.crypto.proofs import proof_context, prove_key, prove_shares, verify_key, verify_shares  # noqa: E402
from p2php.crypto.secp256k1 import (  # noqa: E402
    base_mul,
    decode_point,
    generator,
    hash_to_group,
    random_scalar,
    sum_points,
)
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
    many = [base_mul(random_scalar(rng)) for _ in range(10)]
    d, share = prove_shares([ctx], x, [a], rng)
    ds, shares = prove_shares([ctx] * 10, x, many, rng)
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
        "Chaum-Pedersen prove, 1 share": _us(lambda: prove_shares([ctx], x, [a], rng), 200),
        "Chaum-Pedersen verify, 1 share": _us(lambda: verify_shares([ctx], y, [a], d, share), 200),
        "Chaum-Pedersen prove, 10 shares": _us(lambda: prove_shares([ctx] * 10, x, many, rng), 50),
        "Chaum-Pedersen verify, 10 shares": _us(lambda: verify_shares([ctx] * 10, y, many, ds, shares), 50),
    }


_PROOFS = {"TW (B.7)": shuffle_proof, "BG summed": bayer_groth, "BG (B.11)": bayer_groth}
_DIRECT = "BG summed"
"""The Bayer–Groth prover with its diagonals summed directly (the reference prover before diagonals.py)."""
_CALLS = ("_mul", "_gen", "_combine")


def _counting() -> tuple[dict[str, int], Callable[[], None]]:
    """Count libsecp256k1 products, fixed-base products and sums until the returned function is called."""
    counts = dict.fromkeys(_CALLS, 0)
    originals = {name: getattr(secp256k1, name) for name in _CALLS}

    counts["_mul small"] = 0

    def wrap(name: str) -> Callable[..., object]:
        def counted(*args: object) -> object:
            counts[name] += 1
            if name == "_mul" and isinstance(args[1], int) and args[1].bit_length() <= 64:
                counts["_mul small"] += 1
            return originals[name](*args)
        return counted

    for name in _CALLS:
        setattr(secp256k1, name, wrap(name))
    def restore() -> None:
        for name, fn in originals.items():
            setattr(secp256k1, name, fn)

    return counts, restore


def shuffle_pass(n: int, repeat: int, name: str) -> dict[str, float]:
    """One pass over a deck that has been shuffled once (so its ``a`` are all different, as at every later pass)."""
    saved = diagonals.INTERPOLATE_FROM
    if name == _DIRECT:
        diagonals.INTERPOLATE_FROM = 1 << 30  # no shape interpolates: every diagonal summed directly
    try:
        return _pass(n, repeat, _PROOFS[name])
    finally:
        diagonals.INTERPOLATE_FROM = saved


def _pass(n: int, repeat: int, module: Any) -> dict[str, float]:
    rng = DetRng(b"pass %d" % n)
    y = base_mul(random_scalar(rng))
    fresh = elgamal.initial_deck(y, [elgamal.card_point(b"bench", i) for i in range(n)])
    deck, _, _ = shuffle_proof.shuffle(y, fresh, rng)
    ctx = proof_context(b"bench", 1, 0, 0)
    times: dict[str, list[float]] = {"shuffle": [], "prove": [], "verify": []}
    ops: dict[str, int] = {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        out, perm, rhos = module.shuffle(y, deck, rng)
        t1 = time.perf_counter()
        proof = module.prove_shuffle(ctx, y, deck, out, perm, rhos, rng)
        t2 = time.perf_counter()
        assert module.verify_shuffle(ctx, y, deck, out, proof)
        t3 = time.perf_counter()
        times["shuffle"].append(t1 - t0)
        times["prove"].append(t2 - t1)
        times["verify"].append(t3 - t2)
    for step in ("prove", "verify"):
        counts, restore = _counting()
        try:
            if step == "prove":
                module.prove_shuffle(ctx, y, deck, out, perm, rhos, rng)
            else:
                module.verify_shuffle(ctx, y, deck, out, proof)
        finally:
            restore()
        ops.update({f"{step} {call}": count for call, count in counts.items()})
    result: dict[str, float] = {f"{key} s": statistics.median(values) for key, values in times.items()}
    result["proof bytes"] = len(proof.encode())
    result["deck bytes"] = n * elgamal.CIPHERTEXT_SIZE
    result.update(ops)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--cards", type=int, nargs="+", default=[108, 160, 688])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    units = unit_costs()
    passes = {f"{name} N={n}": shuffle_pass(n, args.repeat, name) for n in args.cards for name in _PROOFS}
    if args.json:
        print(json.dumps({"machine": machine(), "unit_us": units, "passes": passes}, indent=2))
        return
    print(f"machine: {machine()}")
    print(f"{'operation':34} {'µs':>9}")
    for name, us in units.items():
        print(f"{name:34} {us:9.1f}")
    print()
    print(f"{'proof, N':20} {'shuffle ms':>11} {'prove ms':>9} {'verify ms':>10} {'prove products':>15} "
          f"{'+ small':>8} {'verify products':>16} {'proof B':>8} {'deck B':>7}")
    for key, r in passes.items():
        print(f"{key:20} {r['shuffle s'] * 1e3:11.1f} {r['prove s'] * 1e3:9.1f} {r['verify s'] * 1e3:10.1f} "
              f"{r['prove _mul'] + r['prove _gen'] - r['prove _mul small']:15} {r['prove _mul small']:8} "
              f"{r['verify _mul'] + r['verify _gen']:16} {r['proof bytes']:8} {r['deck bytes']:7}")


if __name__ == "__main__":
    main()
