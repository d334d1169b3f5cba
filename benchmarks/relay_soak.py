"""Soak test over a relay: seeded games whose every link is a libp2p circuit through one local relay, while
seats lose their relay connection at random moments (what a home router forgetting a NAT mapping does).

Each game is a relayed loopback table (``p2php.net.libp2p.Libp2pLoopback``, every host listening nowhere) of
UNO bots (fast deck, one round; the bots wait ``--bot-delay`` seconds a turn so a game spans the faults). At
seeded moments a seat's host drops its connection to the relay: every circuit of that seat ends, the seat
reserves again within a second, the links are dialled again and the game goes on. Judged as
``fault_soak.py`` judges: every seat finishes, all verdicts clean with one state hash, no seat ever named
(every seat is honest). Also counted: each seat's link losses (``on_link``): a drop should cost the links of
the seat that dropped, no others.

``--library-relay`` runs the relay with py-libp2p's own circuit clean-up instead of p2php's
(``p2php.net.libp2p._circuit_relay_class``), to compare the two in one run on the same seeds.

    python benchmarks/relay_soak.py [--games 20] [--players 4] [--drops 3] [--parallel 2] [--library-relay]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import trio
from machine_info import machine

from p2php.engine.registry import get_game
from p2php.net import libp2p as p2p_libp2p
from p2php.session.local_net import run_local_table
from p2php.session.memory import seeded_secrets
from p2php.session.runner import Decider, bot_decider


def _slow(decide: Decider, delay: float) -> Decider:
    async def slow(ls: Any) -> Any:
        await trio.sleep(delay)
        return await decide(ls)
    return slow


def _describe(exc: BaseException) -> str:
    """The first leaf of an exception (group), with where it was raised."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    where = traceback.extract_tb(exc.__traceback__)[-3:]
    return f"{type(exc).__name__}: {exc}"[:300] + " at " + " < ".join(
        f"{Path(f.filename).name}:{f.lineno}" for f in reversed(where))


async def one_game(seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """One relayed table with ``args.drops`` relay-connection drops; its outcome and counts."""
    players = args.players
    game = get_game("uno")
    deciders = [_slow(bot_decider(game.make_bot("heuristic", f"{seed}:{s}")), args.bot_delay)
                for s in range(players)]
    plan = random.Random(f"relay-soak:{seed}")
    drops = sorted((plan.uniform(1.0, args.span), plan.randrange(players)) for _ in range(args.drops))
    losses = 0  # link losses the seats were told of (each end of a lost link tells its own)
    dropped = 0
    results: list[Any] = []
    error = ""

    def on_link(_other: int, up: bool, _wait: float) -> None:
        nonlocal losses
        losses += 0 if up else 1

    start = time.perf_counter()
    async with p2p_libp2p.libp2p_loopback(lambda s: seeded_secrets(seed, s), relayed=True) as net:
        begun = trio.current_time()

        async def faults() -> None:
            nonlocal dropped
            for at, seat in drops:
                await trio.sleep_until(begun + at)
                if len(net.nodes) > seat and net.relay is not None:
                    await net.nodes[seat].host.disconnect(net.relay.get_id())
                    dropped += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(faults)
            try:
                with trio.move_on_after(args.deadline):
                    results = await run_local_table(
                        "uno", players, deciders, {"crypto": "fast", "rounds": 1}, seed=seed, timeout=args.timeout,
                        network=net, resume_timeout=args.resume_timeout, on_link=on_link)
            except Exception as exc:  # noqa: BLE001 - a soak reports, it does not stop
                error = _describe(exc)
            nursery.cancel_scope.cancel()
        net.nursery.cancel_scope.cancel()
    verdicts = [r.lockstep.verdict for r in results]
    finished = len(results) == players and all(v is not None for v in verdicts)
    named = sorted({v.culprit for v in verdicts if v is not None and v.culprit is not None})
    reasons = sorted({f"seat {r.lockstep.seat} names {r.lockstep.verdict.culprit}: {r.lockstep.verdict.reason}"[:200]
                      for r in results if r.lockstep.verdict is not None and r.lockstep.verdict.culprit is not None})
    hashes = {v.state_hash for v in verdicts if v is not None}
    outcome = ("unfinished" if not finished else "named" if named else
               "clean" if all(v is not None and v.clean for v in verdicts) and len(hashes) == 1 else "unattributed")
    return {"seed": seed, "outcome": outcome, "named": named, "seconds": round(time.perf_counter() - start, 2),
            "drops": dropped, "losses": losses, "reasons": reasons, "error": error}


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    if args.library_relay:  # py-libp2p's own circuit clean-up, for comparison
        vars(p2p_libp2p)["_circuit_relay_class"] = lambda: p2p_libp2p._lib("libp2p.relay.circuit_v2").CircuitV2Protocol
    seeds = ([int(x) for x in args.seeds.split(",")] if args.seeds
             else list(range(args.first_seed, args.first_seed + args.games)))
    games: list[dict[str, Any]] = []
    limit = trio.CapacityLimiter(args.parallel)
    start = time.perf_counter()

    async def play(seed: int) -> None:
        async with limit:
            game = await one_game(seed, args)
        games.append(game)
        if args.progress:
            print(f"[{len(games)}/{len(seeds)}] seed {seed}: {game['outcome']} ({game['seconds']} s, "
                  f"{game['drops']} drops, {game['losses']} link losses) {game['error']}", file=sys.stderr)

    async with trio.open_nursery() as nursery:
        for seed in seeds:
            nursery.start_soon(play, seed)
    games.sort(key=lambda g: g["seed"])
    outcomes = Counter(g["outcome"] for g in games)
    drops = sum(g["drops"] for g in games)
    losses = sum(g["losses"] for g in games)
    return {
        "relay": "py-libp2p's own clean-up" if args.library_relay else "p2php relay (each circuit on its own)",
        "runs": len(seeds), "first_seed": args.first_seed, "players": args.players, "parallel": args.parallel,
        "drops_per_game": args.drops, "wall_seconds": round(time.perf_counter() - start, 1),
        "verdicts": {k: outcomes.get(k, 0) for k in ("clean", "unattributed", "named", "unfinished")},
        "drops": drops, "link_losses": losses,
        "link_losses_per_drop": round(losses / drops, 2) if drops else None,
        "link_losses_per_drop_if_only_the_dropped_seat": 2 * (args.players - 1),
        "not_clean": [g for g in games if g["outcome"] != "clean"],
        "machine": machine(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--seeds", default="", help="these seeds instead (comma-separated)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--drops", type=int, default=3, help="relay-connection drops per game")
    ap.add_argument("--span", type=float, default=8.0, help="drops fall between 1 s and this many seconds in")
    ap.add_argument("--bot-delay", type=float, default=0.1, help="seconds each bot waits before it plays")
    ap.add_argument("--parallel", type=int, default=2, help="tables played at once (one process)")
    ap.add_argument("--timeout", type=float, default=10.0, help="PeerConfig.timeout")
    ap.add_argument("--resume-timeout", type=float, default=20.0, help="PeerConfig.resume_timeout")
    ap.add_argument("--deadline", type=float, default=180.0, help="a table still running then is 'unfinished'")
    ap.add_argument("--library-relay", action="store_true", help="py-libp2p's own circuit clean-up in the relay")
    ap.add_argument("--progress", action="store_true", help="one line per game on stderr")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    report = trio.run(soak, args)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    v = report["verdicts"]
    print(f"relay: {report['relay']}; {report['runs']} games of {report['players']} seats, "
          f"{report['wall_seconds']} s wall")
    print(f"verdicts: clean {v['clean']}, unattributed {v['unattributed']}, named {v['named']} (false blames), "
          f"unfinished {v['unfinished']}")
    print(f"relay-connection drops: {report['drops']}; link losses told: {report['link_losses']} "
          f"({report['link_losses_per_drop']} per drop; the dropped seat's links alone: "
          f"{report['link_losses_per_drop_if_only_the_dropped_seat']})")
    for g in report["not_clean"]:
        print(f"  seed {g['seed']}: {g['outcome']} {'; '.join(g['reasons'])} {g['error']}")


if __name__ == "__main__":
    main()
