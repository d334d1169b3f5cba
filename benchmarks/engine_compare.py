"""Before/after engine speed in one run: two source trees of p2php, measured in alternation.

    git archive <old-commit> p2php | tar -x -C /tmp/before
    python benchmarks/engine_compare.py --before /tmp/before [--after .] --repeat 5 --seconds 3 [--json]

Each repetition runs ``engine_speed.py --suite --json`` once with ``p2php`` imported from
``--before`` and once from ``--after`` (the order alternates), so both trees see the same
machine load over the run.  Per configuration it prints the median games/s of each tree
over the repetitions with their min-max, and the median (min-max) of the per-repetition
after/before ratios, of games/s and of decisions/s (a rule change between the trees that
makes games longer moves the first but not the second).  The benchmark script itself always comes from this directory.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from machine_info import machine

HERE = Path(__file__).resolve().parent


def run_suite(tree: Path, seconds: float, block: float, rlcard: bool) -> list[dict[str, Any]]:
    """``engine_speed.py --suite`` with p2php from ``tree``; its results."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(HERE)])
    cmd = [sys.executable, str(HERE / "engine_speed.py"), "--suite", "--json", "--seconds", str(seconds),
           "--block", str(block)]
    if not rlcard:
        cmd.append("--no-rlcard")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"engine_compare.py: the suite failed with p2php from {tree}:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    if Path(out["p2php_from"]) != tree.resolve():  # e.g. a p2php/ beside the script shadows PYTHONPATH
        raise SystemExit(f"engine_compare.py: asked for p2php from {tree}, the suite imported it from "
                         f"{out['p2php_from']}")
    results: list[dict[str, Any]] = out["suite"]
    return results


def _mmm(xs: Sequence[float], digits: int = 1) -> dict[str, float]:
    return {"median": round(statistics.median(xs), digits), "min": round(min(xs), digits),
            "max": round(max(xs), digits)}


def compare(before: Path, after: Path, repeat: int, seconds: float, block: float, rlcard: bool) -> dict[str, Any]:
    runs: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
    for i in range(repeat):
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        for which in order:
            runs[which].append(run_suite(before if which == "before" else after, seconds, block, rlcard))
    rows = []
    for k, first in enumerate(runs["after"][0]):
        b = [r[k]["p2php_games_per_s"] for r in runs["before"]]
        a = [r[k]["p2php_games_per_s"] for r in runs["after"]]
        db = [r[k]["p2php_decisions_per_s"] for r in runs["before"]]
        da = [r[k]["p2php_decisions_per_s"] for r in runs["after"]]
        row: dict[str, Any] = {
            "game": first["game"], "players": first["players"], "unit": first["unit"],
            "decisions_per_game": first["p2php_decisions_per_game"],
            "before_decisions_per_game": runs["before"][0][k]["p2php_decisions_per_game"],
            "before_games_per_s": _mmm(b), "after_games_per_s": _mmm(a),
            "ratio": _mmm([x / y for x, y in zip(a, b, strict=True)], 2),
            # A rule change that makes games longer or shorter moves games/s but not the engine's speed per decision.
            "before_decisions_per_s": _mmm(db, 0), "after_decisions_per_s": _mmm(da, 0),
            "decisions_ratio": _mmm([x / y for x, y in zip(da, db, strict=True)], 2),
        }
        hb = [r[k]["p2php_state_hash_us"]["median"] for r in runs["before"] if "p2php_state_hash_us" in r[k]]
        ha = [r[k]["p2php_state_hash_us"]["median"] for r in runs["after"] if "p2php_state_hash_us" in r[k]]
        if hb and ha:
            row["before_state_hash_us"] = _mmm(hb)
            row["after_state_hash_us"] = _mmm(ha)
        engines = [r[k]["rlcard_game_engine_per_s"] for side in runs.values() for r in side
                   if r[k]["rlcard_game_engine_per_s"] is not None]
        envs = [r[k]["rlcard_games_per_s"] for side in runs.values() for r in side
                if r[k]["rlcard_games_per_s"] is not None]
        if engines:
            row["rlcard_game_engine_per_s"] = _mmm(engines)
            row["rlcard_games_per_s"] = _mmm(envs)
            row["after_engine_ratio"] = _mmm([r[k]["engine_ratio"] for r in runs["after"]], 3)
            row["before_engine_ratio"] = _mmm([r[k]["engine_ratio"] for r in runs["before"]], 3)
        rows.append(row)
    return {"before": str(before), "after": str(after), "repeat": repeat, "seconds": seconds, "rows": rows,
            "machine": machine()}


def _fmt(m: dict[str, float]) -> str:
    return f"{m['median']} ({m['min']}-{m['max']})"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="a source tree with the old p2php/ package")
    ap.add_argument("--after", type=Path, default=HERE.parent, help="default: this checkout")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per side and configuration")
    ap.add_argument("--block", type=float, default=0.5)
    ap.add_argument("--no-rlcard", dest="rlcard", action="store_false")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    for tree in (args.before, args.after):
        if not (tree / "p2php" / "__init__.py").is_file():
            print(f"engine_compare.py: no p2php package in {tree}", file=sys.stderr)
            return 2
    result = compare(args.before.resolve(), args.after.resolve(), args.repeat, args.seconds, args.block,
                     args.rlcard)
    if args.json:
        print(json.dumps(result))
        return 0
    m = result["machine"]
    print(f"{args.repeat} repetitions, {args.seconds} s CPU per side; {m['nproc']} cores, {m['cpu']}, "
          f"Python {m['python']}; median (min-max)")
    for row in result["rows"]:
        line = (f"{row['game']:<9}{row['players']:>3}  before {_fmt(row['before_games_per_s'])}  after "
                f"{_fmt(row['after_games_per_s'])} {row['unit']}s/s  after/before {_fmt(row['ratio'])}; "
                f"decisions/{row['unit']} {row['before_decisions_per_game']} -> {row['decisions_per_game']}, "
                f"decisions/s after/before {_fmt(row['decisions_ratio'])}")
        if "after_state_hash_us" in row:
            line += (f"  state_hash() us before {_fmt(row['before_state_hash_us'])} after "
                     f"{_fmt(row['after_state_hash_us'])}")
        if "rlcard_game_engine_per_s" in row:
            line += (f"  RLCard UnoGame {_fmt(row['rlcard_game_engine_per_s'])}, env "
                     f"{_fmt(row['rlcard_games_per_s'])}; p2php/UnoGame before "
                     f"{_fmt(row['before_engine_ratio'])} after {_fmt(row['after_engine_ratio'])}")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
