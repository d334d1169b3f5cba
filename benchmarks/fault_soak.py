"""Soak test: many seeded games with a fault-injecting proxy between every pair of peers (issue 8).

Each game gets a random fault schedule from its seed (resets, skewed resets, blackholes, stalls, latency,
1-byte chunking, slow links; see tests/adversarial/faultproxy.py) and is judged: every seat must finish,
and either all verdicts are clean with one state hash, or no verdict names a seat.  A verdict that names a
seat is a *false blame*: every seat here is honest, only the network misbehaved.

    python benchmarks/fault_soak.py [--games 50] [--first-seed 0] [--parallel 4] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import trio

sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tests"))  # the harness and the toy game

import toygame  # noqa: E402,F401  (registers "toy")
from adversarial.faultproxy import (  # noqa: E402
    FAULT_KINDS,
    SPOIL_KINDS,
    TableRun,
    game_deciders,
    random_links,
    run_faulted_table,
    toy_deciders,
)
from machine_info import machine  # noqa: E402

# (game, players, options, span): span is about how long the game lasts unfaulted, the window for timed faults.
CONFIGS = {
    "toy3": ("toy", 3, {}, 0.3),  # toy: 0.1 s per seat, as tests/test_faults.py
    "toy4": ("toy", 4, {}, 0.4),
    "uno3": ("uno", 3, {"rounds": 1}, 1.5),
    "hpsha4": ("hpsha", 4, {}, 15.0),
    "tcg2": ("tcg", 2, {}, 3.0),
    "hogwarts3": ("hogwarts", 3, {}, 15.0),
    "hogwarts4": ("hogwarts", 4, {}, 20.0),
}
BAD_VERIFY = ("differs from the replay", "never processed", "the replay failed", "ends before the game",
              "records no verdict", "does not read", "not a transcript")  # as chaos_soak.py's


def _verify_records(run: TableRun, work: Path) -> list[str]:
    """Save every seat's record and check it as ``p2php verify`` does (:func:`p2php.session.transcript.verify`):
    a record that does not replay, or whose replay names a seat, is a problem; a record of an unattributed end
    (not ``OK`` by design) is not, if its replay agrees."""
    from p2php.session import transcript

    problems: list[str] = []
    for s in run.seats:
        if s.result is None:
            continue
        path = work / f"seat{s.seat}.p2php"
        try:
            transcript.save(s.result.lockstep, path)
            check = transcript.verify(path)
        except Exception as exc:  # a record that cannot be saved or read back is one of the failures sought
            problems.append(f"seat {s.seat}: {type(exc).__name__}: {exc}")
            continue
        audit = [ln for ln in check.lines if ln.startswith("audit: ")]
        bad = [ln for ln in check.lines if any(m in ln for m in BAD_VERIFY)]
        clean = s.verdict is not None and s.verdict.clean
        if bad or not audit or audit[-1].startswith("audit: seat") or (clean and not check.ok):
            problems.append(f"seat {s.seat}: verify: {' | '.join((bad or check.lines)[-3:])}")
    return problems


def _config(seed: int, mix: list[str]) -> str:
    return random.Random(f"soak-config:{seed}").choice(mix)


def _crypto(seed: int, args: argparse.Namespace) -> str | None:
    """The seed's deck protocol: ``--crypto``'s, one drawn from the seed when it lists both."""
    if not args.crypto:
        return None
    choices = args.crypto.split(",")
    return choices[0] if len(choices) == 1 else random.Random(f"soak-crypto:{seed}").choice(choices)


async def _one(seed: int, name: str, args: argparse.Namespace) -> TableRun:
    game, players, options, span = CONFIGS[name]
    crypto = _crypto(seed, args)
    if crypto:
        options = {**options, "crypto": crypto}
    deciders = toy_deciders(players, seed) if game == "toy" else game_deciders(game, players, seed)
    links = random_links(seed, players, span=span, timeout=args.timeout, max_faults=args.max_faults,
                         kinds=tuple(args.kinds.split(",")))
    return await run_faulted_table(game, players, deciders, options, links=links, seed=seed,
                                   timeout=args.timeout, resume_timeout=args.resume_timeout,
                                   deadline=args.deadline)


def _race(run: TableRun) -> str:
    """Which race of issue 8 a false blame looks like (a heuristic on the reasons and the faults)."""
    reasons = " ".join(reason for _, reason in run.named().values())
    kinds = {k for p in run.proxies.values() for k in p.stats.faults}
    if "replayed" in reasons:
        return "a: relayed copy overtook the direct one (replayed)"
    if "went silent" in reasons and kinds & {"reset", "skewed_reset"}:
        return "c: redial refused 'already connected', link left dead (went silent)"
    if "did not release its secrets" in reasons and "went silent" not in reasons:
        return "b: reset with an audit in flight (secrets not released)"
    return "other"


def _blame(seed: int, name: str, run: TableRun, args: argparse.Namespace) -> dict[str, Any]:
    return {
        "seed": seed,
        "config": name,
        "crypto": _crypto(seed, args),
        "race": _race(run) if run.named() else None,
        "seconds": round(run.seconds, 2),
        "outcome": run.outcome(),
        "named": {str(seat): {"culprit": c, "reason": r} for seat, (c, r) in sorted(run.named().items())},
        "faults": {f"{hi}->{lo}": dict(p.stats.faults) for (hi, lo), p in sorted(run.proxies.items())},
        "errors": {str(s.seat): s.error for s in run.seats if s.error},
    }


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    mix = args.configs.split(",")
    for name in mix:
        if name not in CONFIGS:
            raise SystemExit(f"unknown config {name!r} (known: {', '.join(CONFIGS)})")
    seeds = list(range(args.first_seed, args.first_seed + args.games))
    outcomes: Counter[str] = Counter()
    per_config: dict[str, Counter[str]] = {}
    faults: Counter[str] = Counter()
    resets = survived = connections = 0
    blames: list[dict[str, Any]] = []
    unfinished: list[dict[str, Any]] = []
    unverified: list[dict[str, Any]] = []
    verified = 0
    base = Path(tempfile.mkdtemp(prefix="p2php-fault-soak-")) if args.verify else None
    seconds: list[float] = []
    limit = trio.CapacityLimiter(args.parallel)
    done = 0
    start = time.perf_counter()

    async def play(seed: int) -> None:
        nonlocal resets, survived, connections, done, verified
        async with limit:
            name = _config(seed, mix)
            run = await _one(seed, name, args)
            if base is not None:  # (in a thread: the replay is long, the other tables' timers run meanwhile)
                work = base / f"seed{seed}"
                problems = await trio.to_thread.run_sync(_verify_records, run, work)
                verified += sum(s.result is not None for s in run.seats)
                if problems:
                    unverified.append({**_blame(seed, name, run, args), "problems": problems})
                else:
                    shutil.rmtree(work, ignore_errors=True)
        outcome = run.outcome()
        outcomes[outcome] += 1
        per_config.setdefault(name, Counter())[outcome] += 1
        for p in run.proxies.values():
            faults.update(p.stats.faults)
            connections += p.stats.connections
        resets += run.resets
        if outcome == "clean":
            survived += run.resets
        seconds.append(run.seconds)
        if outcome == "named":
            blames.append(_blame(seed, name, run, args))
        elif outcome == "unfinished":
            unfinished.append(_blame(seed, name, run, args))
        done += 1
        if args.progress:
            kinds = dict(sum((Counter(p.stats.faults) for p in run.proxies.values()), Counter()))
            print(f"[{done}/{len(seeds)}] seed {seed} {name}/{_crypto(seed, args) or '-'}: {outcome} "
                  f"({run.seconds:.1f}s) faults {kinds}", file=sys.stderr, flush=True)

    async with trio.open_nursery() as nursery:
        for seed in seeds:
            nursery.start_soon(play, seed)
    blames.sort(key=lambda b: b["seed"])
    unfinished.sort(key=lambda b: b["seed"])
    unverified.sort(key=lambda b: b["seed"])
    seconds.sort()
    return {
        "runs": len(seeds),
        "first_seed": args.first_seed,
        "configs": mix,
        "timeout": args.timeout,
        "resume_timeout": args.resume_timeout,
        "max_faults_per_link": args.max_faults,
        "parallel": args.parallel,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "game_seconds_median": round(seconds[len(seconds) // 2], 2) if seconds else 0.0,
        "game_seconds_max": round(seconds[-1], 2) if seconds else 0.0,
        "connections": connections,
        "faults_injected": sum(faults.values()),
        "faults_by_kind": dict(sorted(faults.items())),
        "resets_injected": resets,
        "resets_survived": survived,
        "verdicts": {k: outcomes.get(k, 0) for k in ("clean", "unattributed", "named", "unfinished")},
        "verdicts_by_config": {k: dict(v) for k, v in sorted(per_config.items())},
        "false_blames_by_race": dict(sorted(Counter(b["race"] for b in blames).items())),
        "false_blames": blames,
        "false_blame_seeds": [b["seed"] for b in blames],
        "unfinished": unfinished,
        "records_verified": verified if args.verify else None,
        "unverified": unverified,
        "crypto": args.crypto,
        "kinds": args.kinds,
        "machine": machine(),
    }


def _print(report: dict[str, Any]) -> None:
    v = report["verdicts"]
    print(f"runs: {report['runs']} (seeds {report['first_seed']}…{report['first_seed'] + report['runs'] - 1}, "
          f"{', '.join(report['configs'])}), {report['wall_seconds']} s wall, {report['parallel']} tables at once")
    print(f"game seconds: median {report['game_seconds_median']}, max {report['game_seconds_max']}")
    print(f"faults injected: {report['faults_injected']} {report['faults_by_kind']} over "
          f"{report['connections']} connections")
    print(f"resets injected: {report['resets_injected']}, survived (game ended clean): {report['resets_survived']}")
    print(f"verdicts: clean {v['clean']}, unattributed {v['unattributed']}, named {v['named']} (false blames), "
          f"unfinished {v['unfinished']}")
    for name, counts in report["verdicts_by_config"].items():
        print(f"  {name}: {counts}")
    for race, count in report["false_blames_by_race"].items():
        print(f"  false blames like race {race}: {count}")
    for b in report["false_blames"]:
        named = "; ".join(f"seat {s} names {n['culprit']}: {n['reason']}" for s, n in b["named"].items())
        print(f"false blame, seed {b['seed']} ({b['config']}, race {b['race'][0]}): {named}")
    for b in report["unfinished"]:
        print(f"unfinished, seed {b['seed']} ({b['config']}): {b['errors']}")
    if report["records_verified"] is not None:
        print(f"records verified: {report['records_verified']}, failed: {len(report['unverified'])}")
    for b in report["unverified"]:
        print(f"record does not verify, seed {b['seed']} ({b['config']}/{b['crypto']}): {b['problems']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=50, help="faulted games to play (seeds first-seed, first-seed+1 …)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--configs", default="toy3,toy4,uno3", help=f"comma-separated, from {', '.join(CONFIGS)}")
    ap.add_argument("--parallel", type=int, default=4, help="tables played at once (one process, one trio loop)")
    ap.add_argument("--timeout", type=float, default=5.0, help="PeerConfig.timeout")
    ap.add_argument("--resume-timeout", type=float, default=10.0, help="PeerConfig.resume_timeout")
    ap.add_argument("--max-faults", type=int, default=3, help="faults per link at most")
    ap.add_argument("--kinds", default=",".join(FAULT_KINDS),
                    help=f"fault kinds drawn, from {', '.join(FAULT_KINDS + SPOIL_KINDS)}")
    ap.add_argument("--deadline", type=float, default=120.0, help="a table still running then is 'unfinished'")
    ap.add_argument("--crypto", choices=("fast", "verified", "fast,verified"), default=None,
                    metavar="DECK", help="the deck protocol of every table: fast, verified, or fast,verified (drawn per"
                    " seed); default: the library's")
    ap.add_argument("--verify", action="store_true",
                    help="save every seat's record and check it as `p2php verify` does (kept only if it fails)")
    ap.add_argument("--progress", action="store_true", help="one line per game on stderr")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    logging.getLogger("p2php").setLevel(logging.ERROR)  # dropped handshakes are expected here
    report = trio.run(soak, args)
    if args.json:
        print(json.dumps(report))
    else:
        _print(report)


if __name__ == "__main__":
    main()
