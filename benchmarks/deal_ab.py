"""Before/after of ``deal.py --actions 0`` in one run: two source trees, alternately (ABBA), same venv.

    python benchmarks/deal_ab.py TREE_A TREE_B [--game hpsha] [--peers 10] [--mode fast] [--rounds 4] [--repeat 3]

Each round runs ``TREE/benchmarks/deal.py --game G --peers P --option crypto=MODE --actions 0 --repeat R --json``
with ``PYTHONPATH=TREE``, A then B in even rounds and B then A in odd ones, and prints per tree the set-up's CPU
seconds of every run and, per invocation, ``setup_cpu_over_crypto_ops`` and ``setup_cpu_over_group_ops`` (deal.py's
median run): medians and ranges, and B / A.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any


def run(tree: str, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, os.path.join(os.path.abspath(tree), "benchmarks", "deal.py"), "--game", args.game, "--peers",
           str(args.peers), "--option", f"crypto={args.mode}", "--actions", "0", "--repeat", str(args.repeat), "--json"]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    out = subprocess.run(cmd, env=env, cwd="/", check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f}, n={len(values)})"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--game", default="hpsha")
    p.add_argument("--peers", type=int, default=10)
    p.add_argument("--mode", default="fast")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    got: dict[str, dict[str, list[float]]] = {t: {"cpu": [], "crypto": [], "group": []} for t in ("A", "B")}
    for r in range(args.rounds):
        for name in ("AB" if r % 2 == 0 else "BA"):
            res = run(args.a if name == "A" else args.b, args)
            got[name]["cpu"] += [float(x) for x in res["setup_cpu_seconds_runs"]]
            got[name]["crypto"].append(float(res["setup_cpu_over_crypto_ops"]))
            got[name]["group"].append(float(res["setup_cpu_over_group_ops"]))
            print(f"round {r} {name}: cpu {res['setup_cpu_seconds_runs']} /crypto {res['setup_cpu_over_crypto_ops']}"
                  f" /group {res['setup_cpu_over_group_ops']}", file=sys.stderr, flush=True)
    for key, label in (("cpu", "set-up CPU s"), ("crypto", "CPU / crypto floor"), ("group", "CPU / group ops")):
        a, b = got["A"][key], got["B"][key]
        print(f"{label:20s} A {summary(a)}   B {summary(b)}   B/A {statistics.median(b) / statistics.median(a):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
