"""Soak test over a relay: seeded games whose every link is a libp2p circuit through one local relay, while
seats lose their relay connection at random moments (what a home router forgetting a NAT mapping does).

Each game is a relayed loopback table (``p2php.net.libp2p.Libp2pLoopback``, every host listening nowhere) of
UNO bots by default (``--game``; fast deck, ``--crypto``; UNO plays one round; the bots wait ``--bot-delay``
seconds a turn so a game spans the faults). At
seeded moments a seat's host drops its connection to the relay: every circuit of that seat ends, the seat
reserves again within a second, the links are dialled again and the game goes on. Judged as
``fault_soak.py`` judges: every seat finishes, all verdicts clean with one state hash, no seat ever named
(every seat is honest). Also counted: each seat's link losses (``on_link``): a drop should cost the links of
the seat that dropped, no others.

``--library-relay`` runs the relay with py-libp2p's own circuit clean-up instead of p2php's
(``p2php.net.libp2p._circuit_relay_class``), to compare the two in one run on the same seeds.

    python benchmarks/relay_soak.py [--games 20] [--players 4] [--drops 3] [--parallel 2] [--library-relay]
    python benchmarks/relay_soak.py --game hpsha --players 5 --bot-delay 0.02 --crypto verified
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import socket
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
from p2php.session.handshake import LocalSecrets
from p2php.session.local_net import run_local_table
from p2php.session.memory import seeded_secrets
from p2php.session.runner import Decider, bot_decider
from p2php.session.spectator import WatchError, keep_watching, watch


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _Relay:
    """The table's relay, on a fixed port and key so that it can stop and start again as itself (a public
    relay that restarts keeps its address and, with ``p2php relay --key``, its peer id)."""

    def __init__(self, net: Any, seed: int) -> None:
        self.net, self.port = net, _free_port()
        self.key = hashlib.sha256(f"relay-soak-relay:{seed}".encode()).digest()
        self.scope = trio.CancelScope()

    async def _serve(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        with self.scope:
            # Every seat of every game here is 127.0.0.1: the per-IP limits (8, protocol.md §3.6) would cap the soak.
            limits = p2p_libp2p.RelayLimitsSpec(per_ip=64, circuits_per_ip=64)
            await p2p_libp2p.serve_relay(f"/ip4/127.0.0.1/tcp/{self.port}", limits, self.key, task_status=task_status)

    async def start(self) -> None:
        self.scope = trio.CancelScope()
        self.net.relay = await self.net.nursery.start(self._serve)
        self.net.relay_addr = f"/ip4/127.0.0.1/tcp/{self.port}/p2p/{self.net.relay.get_id()}"

    async def restart(self, down: float) -> None:
        self.scope.cancel()
        await trio.sleep(down)
        await self.start()


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


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The table's options: the deck protocol asked for, and UNO's one round."""
    return {"crypto": args.crypto, **({"rounds": 1} if args.game == "uno" else {})}


async def one_game(seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """One relayed table with ``args.drops`` relay-connection drops; its outcome and counts."""
    players = args.players
    game = get_game(args.game)
    deciders = [_slow(bot_decider(game.make_bot("heuristic", f"{seed}:{s}")), args.bot_delay)
                for s in range(players)]
    plan = random.Random(f"relay-soak:{seed}")
    drops = sorted([*((plan.uniform(1.0, args.span), plan.randrange(players)) for _ in range(args.drops)),
                    *((plan.uniform(1.0, args.span), -1) for _ in range(args.relay_restarts))])
    losses = 0  # link losses the seats were told of (each end of a lost link tells its own)
    dropped = restarted = watch_breaks = 0
    watched: Any = None  # the spectator's lockstep, once it has watched the whole game
    watch_error: list[str] = []
    results: list[Any] = []
    error = ""

    def on_link(_other: int, up: bool, _wait: float) -> None:
        nonlocal losses
        losses += 0 if up else 1

    start = time.perf_counter()
    async with p2p_libp2p.libp2p_loopback(lambda s: seeded_secrets(seed, s), relayed=True) as net:
        relay = _Relay(net, seed)
        await relay.start()
        begun = trio.current_time()

        async def faults() -> None:
            nonlocal dropped, restarted
            for at, seat in drops:
                await trio.sleep_until(begun + at)
                if seat < 0:
                    await relay.restart(args.relay_down)
                    restarted += 1
                elif len(net.nodes) > seat and net.relay is not None:
                    await net.nodes[seat].host.disconnect(net.relay.get_id())
                    dropped += 1

        async def spectate() -> None:
            """A spectator of seat 0 through the relay, from 3 s in (once the game runs: a table not started yet
            refuses spectators), watching again whenever its link breaks."""
            nonlocal watched, watch_breaks
            node = p2p_libp2p.Libp2pNode(LocalSecrets(), listen=None, relay=net.relay_addr)
            await net.nursery.start(node.run)
            await trio.sleep(3.0)
            _, peer_id, _ = net.directory[net.nodes[0].name]

            def broke(_line: str) -> None:
                nonlocal watch_breaks
                watch_breaks += 1

            try:
                watched = await keep_watching(lambda observe: watch(
                    "seat 0", 0, "eve", observe, connect=lambda: node.open(peer_id, [], via_relay=net.relay_addr)),
                    lambda _ls: None, broke)
            except WatchError as err:
                watch_error.append(str(err)[:200])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(faults)
            if args.spectator:
                nursery.start_soon(spectate)
            try:
                with trio.move_on_after(args.deadline):
                    results = await run_local_table(
                        args.game, players, deciders, _options(args), seed=seed, timeout=args.timeout,
                        network=net, resume_timeout=args.resume_timeout, on_link=on_link)
            except Exception as exc:  # noqa: BLE001 - a soak reports, it does not stop
                error = _describe(exc)
            if args.spectator:
                with trio.move_on_after(70):  # the spectator's last frames (the audit), or its patience running out
                    while watched is None and not watch_error:
                        await trio.sleep(0.1)
            nursery.cancel_scope.cancel()
        net.nursery.cancel_scope.cancel()
    verdicts = [r.lockstep.verdict for r in results]
    finished = len(results) == players and all(v is not None for v in verdicts)
    named = sorted({v.culprit for v in verdicts if v is not None and v.culprit is not None})
    reasons = sorted({(f"seat {r.lockstep.seat}: " + ("" if v.culprit is None else f"names {v.culprit}: ")
                       + f"{v.reason}")[:200]
                      for r in results if (v := r.lockstep.verdict) is not None and not v.clean})
    hashes = {v.state_hash for v in verdicts if v is not None}
    if args.spectator:  # the spectator must have seen the whole game end clean, as the seats did
        seen = watched.verdict if watched is not None else None
        finished = finished and seen is not None
        hashes |= {seen.state_hash} if seen is not None else set()
        verdicts.append(seen)
    outcome = ("unfinished" if not finished else "named" if named else
               "clean" if all(v is not None and v.clean for v in verdicts) and len(hashes) == 1 else "unattributed")
    return {"seed": seed, "outcome": outcome, "named": named, "seconds": round(time.perf_counter() - start, 2),
            "drops": dropped, "restarts": restarted, "losses": losses, "reasons": reasons,
            "watch_breaks": watch_breaks, "error": error or "; ".join(watch_error)}


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
        "game": args.game, "crypto": args.crypto,
        "drops_per_game": args.drops, "wall_seconds": round(time.perf_counter() - start, 1),
        "verdicts": {k: outcomes.get(k, 0) for k in ("clean", "unattributed", "named", "unfinished")},
        "spectator": args.spectator, "spectator_links_broken": sum(g["watch_breaks"] for g in games),
        "drops": drops, "relay_restarts": sum(g["restarts"] for g in games), "link_losses": losses,
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
    ap.add_argument("--game", default="uno", help="a registered game (UNO plays one round)")
    ap.add_argument("--crypto", choices=("fast", "verified"), default="fast", help="the deck protocol")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--drops", type=int, default=3, help="relay-connection drops per game")
    ap.add_argument("--spectator", action="store_true", help="a spectator of seat 0 watches every game, relayed")
    ap.add_argument("--relay-restarts", type=int, default=0, help="relay restarts per game (same port and key)")
    ap.add_argument("--relay-down", type=float, default=1.0, help="seconds the relay is away on each restart")
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
    print(f"relay restarts: {report['relay_restarts']}")
    if report["spectator"]:
        print(f"a spectator of seat 0 in every game: its links broke {report['spectator_links_broken']} times")
    print(f"relay-connection drops: {report['drops']}; link losses told: {report['link_losses']} "
          f"({report['link_losses_per_drop']} per drop; the dropped seat's links alone: "
          f"{report['link_losses_per_drop_if_only_the_dropped_seat']})")
    for g in report["not_clean"]:
        print(f"  seed {g['seed']}: {g['outcome']} {'; '.join(g['reasons'])} {g['error']}")


if __name__ == "__main__":
    main()
