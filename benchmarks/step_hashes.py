"""Determinism check for engine speed work: seeded games stepped one by one, hashing the state after every step.

    PYTHONPATH=<tree> python benchmarks/step_hashes.py --game uno --players 2,4,10 --games 50 [--bots eager,random]

Prints one line per (game, players, bot, seed): the number of steps and a SHA-256 over every step's canonical
state hash, the answers given and the legal lists offered; then the same for a whole game played with
``LocalTable.play`` (its log and final hash).  Run it with two source trees and ``diff`` the outputs: any rule,
action-encoding, log or hash change shows up as a different line.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from typing import Any

import p2php
import p2php.games  # noqa: F401  (registers the games)
from p2php.engine.contract import Decide, GameOver
from p2php.engine.local import LocalTable, default_decks
from p2php.engine.registry import get_game


def stepped(game: Any, players: int, options: dict[str, Any], bot: str, seed: int) -> tuple[int, str]:
    """Play one game step by step; (steps, digest of every state hash, answer and legal list)."""
    table = LocalTable(game.new_state(players, options), seed=seed, private_decks=default_decks(game, players, options))
    bots = {s: game.make_bot(bot, f"{seed}/{s}") for s in range(players)}
    state, h, steps = table.state, hashlib.sha256(), 0
    while True:
        step = state.step()
        if isinstance(step, GameOver):
            h.update(repr(step).encode())
            break
        if isinstance(step, Decide):
            answers = []
            for seat in step.seats:
                known = table.knowledge(seat)
                legal = state.legal_actions(seat, known)
                h.update(repr(legal).encode())
                answers.append((seat, bots[seat].choose(state, seat, known, legal)))
            h.update(repr(answers).encode())
            table.act(answers)
        else:
            table.fulfil(step)
        h.update(state.state_hash())
        steps += 1
    return steps, h.hexdigest()[:16]


def played(game: Any, players: int, options: dict[str, Any], bot: str, seed: int) -> str:
    """One game with ``LocalTable.play`` (the benchmark's path); a digest of its log and final state."""
    table = LocalTable(game.new_state(players, options), seed=seed, private_decks=default_decks(game, players, options))
    over = table.play({s: game.make_bot(bot, f"{seed}/{s}") for s in range(players)})
    return hashlib.sha256(repr((table.log, over)).encode() + table.state.state_hash()).hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="uno")
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--bots", default="")
    ap.add_argument("--option", action="append", default=[])
    args = ap.parse_args()
    game = get_game(args.game)
    raw = dict(o.split("=", 1) for o in args.option)
    options = game.parse_options(raw)
    total = 0
    for players in (int(p) for p in args.players.split(",")):
        for bot in (args.bots.split(",") if args.bots else game.bot_kinds):
            for seed in range(args.first, args.first + args.games):
                steps, digest = stepped(game, players, options, bot, seed)
                total += steps
                print(args.game, players, bot, seed, steps, digest, played(game, players, options, bot, seed))
    print("steps", total, "p2php from", p2php.__file__, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
