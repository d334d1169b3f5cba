"""Whole games of A Year at Hogwarts between bot peers over real loopback TCP, every mode, 1 to 6 peers.

Every game runs :func:`p2php.session.local_net.run_local_table` unmodified (as ``deal.py --full-game`` and
``p2php demo``): each peer its own keys, its own listening socket and TCP links to the others on 127.0.0.1,
all peers in this one process (one core).  For each game it checks

* that the game ended (a winner, a tie, a solo loss, or no winner at E34's year end / V14's draw), within
  ``--game-timeout`` seconds and without an exception;
* that every peer's audit is clean and all agree on the final state hash;
* the knowledge check (:class:`p2php.testing.secrecy.SecrecyWatch`): at every decision of every seat, the
  seat's peer knows no face that no step dealt, showed or opened to it, and cannot open any slot (hand cards
  and missions of the others included) before the step that granted it, counting the keys it holds; and
  that every private Show to another seat is one the rules allow (a teammate's missions, E33; a hand shown to
  a Death Eater's player by Rookwood's spy, E28).  Solo has nobody to hide from: only its first part runs.

It prints one row per (mode, peers) with the games played, ended, clean audits, knowledge violations, and
the mean seconds, decisions and bytes (all peers) per game; ``--json`` prints every game too.

    python benchmarks/hogwarts_loopback.py [--games 2] [--lengths quick] [--bot heuristic|random]
                                           [--modes underage,qualified,team,team1,team3,solo,return]
                                           [--peers 2,3,4,5,6] [--seed 0] [--crypto verified|fast] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import trio
from machine_info import machine

from p2php.engine.contract import Decide, GameOver, GameState, Seat, Show, Slot
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import MISSIONS, deck_of_slot
from p2php.games.hogwarts.state import HogwartsState
from p2php.games.hogwarts.voldemort_rules import campaign
from p2php.session.local_net import run_local_table
from p2php.session.runner import bot_decider
from p2php.testing.secrecy import SecrecyWatch

MODES: dict[str, tuple[dict[str, str], tuple[int, ...]]] = {
    "underage": ({"mode": "underage"}, (2, 3, 4, 5, 6)),
    "qualified": ({"mode": "qualified"}, (2, 3, 4, 5, 6)),
    "team": ({"mode": "team", "teams": "2"}, (4, 5, 6)),
    "team3": ({"mode": "team", "teams": "3"}, (6,)),
    "team1": ({"mode": "team", "teams": "1"}, (2, 3, 4, 5, 6)),
    "solo": ({"mode": "solo", "difficulty": "underage"}, (1,)),
    "solo-qualified": ({"mode": "solo", "difficulty": "qualified"}, (1,)),
    "return": ({"mode": "return_of_voldemort"}, (2, 3, 4)),
}
"""Each row label: the game's options and the peer counts it is played at."""

DEFAULT_MODES = ("underage", "qualified", "team", "team3", "team1", "solo", "solo-qualified", "return")


def holders(state: GameState) -> Mapping[Slot, Seat]:
    """Who holds each face-down hand card and mission (the Return's Death Eaters' cards: the villain)."""
    assert isinstance(state, HogwartsState)
    held = {s: seat for seat in range(state.players) for s in (*state.hand[seat], *state.missions[seat])}
    if state.mode == "return_of_voldemort" and state.stack:
        c = campaign(state)
        held.update({s: c.villain for slots in c.eater_hand.values() for s in slots})
    return held


def show_breaches(events: Sequence[Any], options: Mapping[str, str]) -> list[str]:
    """Private shows to another seat that the rules do not allow (from one peer's events)."""
    out = []
    mode, teams = options.get("mode", "underage"), int(options.get("teams", "2"))
    for event in events:
        step = event.step
        if not isinstance(step, Show) or step.viewer == step.owner:
            continue
        if any(deck_of_slot(s) == MISSIONS for s in step.slots):
            if mode == "team" and step.owner % teams == step.viewer % teams:
                continue  # a teammate's missions (E33)
        elif mode in ("qualified", "team"):
            continue  # a hand shown to a Death Eater's player (Rookwood's spy, E28)
        out.append(f"step {event.tick}: seat {step.owner}'s slots {list(step.slots)} shown to seat {step.viewer}")
    return out


async def _play(options: Mapping[str, str], players: int, seed: int, bot: str, timeout: float,
                watch: SecrecyWatch) -> list[Any]:
    deciders = [watch.wrap(s, bot_decider(GAME.make_bot(bot, f"{seed}/{s}"))) for s in range(players)]
    return await run_local_table(GAME.name, players, deciders, options, seed=seed, timeout=timeout)


def play(options: Mapping[str, str], players: int, seed: int, bot: str = "heuristic", timeout: float = 60.0,
         game_timeout: float = 1800.0) -> dict[str, Any]:
    """One whole game over loopback; its outcome, audit, knowledge check and cost."""
    watch = SecrecyWatch(holders)
    start = time.perf_counter()
    row: dict[str, Any] = {"options": dict(options), "peers": players, "seed": seed, "bot": bot}
    try:
        results = trio.run(_game_with_deadline, options, players, seed, bot, timeout, game_timeout, watch)
    except Exception as err:  # a failed game is a row, not the end of the sweep
        row.update(seconds=round(time.perf_counter() - start, 2), ended=False, outcome="",
                   error=f"{type(err).__name__}: {_first_leaf(err)}"[:300], audit_clean=False,
                   knowledge_violations=watch.count, violations=watch.violations[:5], checks=watch.checks,
                   decisions=0, bytes=0)
        return row
    seconds = time.perf_counter() - start
    ls = results[0].lockstep
    over = ls.step if isinstance(ls.step, GameOver) else None
    verdicts = [r.lockstep.verdict for r in results]
    clean = len(results) == players and all(v is not None and v.clean for v in verdicts)
    agree = len({v.state_hash for v in verdicts if v is not None}) == 1
    shows = show_breaches(ls.events, options)
    row.update(
        seconds=round(seconds, 2),
        ended=over is not None,
        outcome=_outcome(over, options),
        winners=list(over.winners) if over else [],
        audit_clean=clean and agree,
        knowledge_violations=watch.count + len(shows),
        violations=(watch.violations + shows)[:5],
        checks=watch.checks,
        decisions=sum(1 for e in ls.events if isinstance(e.step, Decide)),
        steps=ls.tick,
        bytes=sum(r.bytes_sent for r in results),
        turns=ls.state.turns if isinstance(ls.state, HogwartsState) else None,
    )
    return row


async def _game_with_deadline(options: Mapping[str, str], players: int, seed: int, bot: str, timeout: float,
                              game_timeout: float, watch: SecrecyWatch) -> list[Any]:
    with trio.fail_after(game_timeout):
        return await _play(options, players, seed, bot, timeout, watch)


def _outcome(over: GameOver | None, options: Mapping[str, str]) -> str:
    """The result's headline; "team won" for one team's members, "tie" for winners of several sides (C-7)."""
    if over is None:
        return "not ended"
    teams = int(options.get("teams", "2")) if options.get("mode") == "team" else 0
    if teams and over.winners and len({w % teams for w in over.winners}) == 1:
        return "team won"
    if len(over.winners) > 1 and options.get("mode") != "return_of_voldemort":  # the heroes win together (V2)
        return "tie"
    return over.summary.split(":")[0] if over.summary else ("won" if over.winners else "no winner")


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def sweep(modes: Sequence[str], peers: Sequence[int] | None, lengths: Sequence[str], games: int, seed: int,
          bot: str, crypto: str | None, timeout: float, game_timeout: float,
          progress: bool = True) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every game of the matrix: (one row per mode, length and peers; every game)."""
    rows, every = [], []
    for label in modes:
        base, sizes = MODES[label]
        for length in lengths:
            options = {**base, "length": length, **({"crypto": crypto} if crypto else {})}
            for n in sizes:
                if peers is not None and n not in peers and n != 1:
                    continue
                played = [play(options, n, seed + k, bot, timeout, game_timeout) for k in range(games)]
                every += [{"mode": label, "length": length, **g} for g in played]
                if progress:
                    for g in played:
                        print(f"  {label} {length} {n} peers seed {g['seed']}: {g['outcome'] or g.get('error')} "
                              f"{g['seconds']} s, audit {'clean' if g['audit_clean'] else 'NOT CLEAN'}, "
                              f"{g['knowledge_violations']} violations", file=sys.stderr, flush=True)
                rows.append({
                    "mode": label, "length": length, "peers": n, "games": len(played),
                    "ended": sum(g["ended"] for g in played),
                    "clean_audits": sum(g["audit_clean"] for g in played),
                    "knowledge_violations": sum(g["knowledge_violations"] for g in played),
                    "errors": [g["error"] for g in played if "error" in g],
                    "outcomes": _count(g["outcome"] for g in played if g["ended"]),
                    "seconds_mean": round(statistics.mean(g["seconds"] for g in played), 1),
                    "decisions_mean": round(statistics.mean(g["decisions"] for g in played)),
                    "bytes_mean": round(statistics.mean(g["bytes"] for g in played)),
                    "checks": sum(g["checks"] for g in played),
                })
    return rows, every


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return dict(sorted(out.items()))


def print_table(rows: Sequence[dict[str, Any]]) -> None:
    print("| mode | length | peers | games | ended | clean audits | knowledge violations | seconds | decisions "
          "| bytes | outcomes |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for r in rows:
        outcomes = ", ".join(f"{k} {v}" for k, v in r["outcomes"].items())
        print(f"| {r['mode']} | {r['length']} | {r['peers']} | {r['games']} | {r['ended']} | {r['clean_audits']} "
              f"| {r['knowledge_violations']} | {r['seconds_mean']} | {r['decisions_mean']} "
              f"| {r['bytes_mean']:,} | {outcomes} |")
        for e in r["errors"]:
            print(f"    error: {e}")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=2, help="seeded games per mode, length and peer count")
    ap.add_argument("--lengths", default="quick", help="comma-separated: quick,classic,long")
    ap.add_argument("--modes", default=",".join(DEFAULT_MODES), help=f"comma-separated, of {', '.join(MODES)}")
    ap.add_argument("--peers", default="", help="comma-separated peer counts to keep (solo always plays 1)")
    ap.add_argument("--bot", default="heuristic", choices=GAME.bot_kinds)
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed (then +1 per game)")
    ap.add_argument("--crypto", choices=("verified", "fast"), default=None, help="the deck mode (default: the "
                    "session's)")
    ap.add_argument("--timeout", type=float, default=60.0, help="each peer's wait deadline (seconds)")
    ap.add_argument("--game-timeout", type=float, default=1800.0, help="a game still running after this is "
                    "counted as stalled")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    lengths = [x for x in args.lengths.split(",") if x]
    if unknown or not set(lengths) <= {"quick", "classic", "long"}:
        print(f"hogwarts_loopback: unknown mode or length: {unknown or lengths}", file=sys.stderr)
        return 2
    peers = [int(p) for p in args.peers.split(",")] if args.peers else None
    rows, every = sweep(modes, peers, lengths, args.games, args.seed, args.bot, args.crypto, args.timeout,
                        args.game_timeout)
    if args.json:
        print(json.dumps({"rows": rows, "games": every, "machine": machine()}, indent=1))
    else:
        print_table(rows)
    bad = any(r["ended"] < r["games"] or r["clean_audits"] < r["games"] or r["knowledge_violations"]
              for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
