"""Engine-only speed: games per second with bots and a trusted dealer (no crypto), against RLCard.

Plays games back to back with :class:`p2php.engine.local.LocalTable` and reports
games, engine steps and decisions per second.  For UNO it also times, *interleaved
with p2php in the same run*, RLCard's UNO environment with random agents
(``rlcard_games_per_s``) and RLCard's game engine alone -- ``UnoGame`` driven
directly with a uniformly random legal action, no observation encoding
(``rlcard_game_engine_per_s``) -- for the same player count (when ``rlcard`` is
installed: ``pip install rlcard``, the ``bench`` extra).

    python benchmarks/engine_speed.py --game uno --players 2 --seconds 10 [--json]
    python benchmarks/engine_speed.py --game uno --players 4 --full    # also whole games to 500
    python benchmarks/engine_speed.py --suite --seconds 5 [--json]     # UNO 2/4, HP Sha 4/10, TCG, Hogwarts

Time is CPU time of this process (``time.process_time``), so other jobs on a shared
machine slow the measurement less than they would wall time.  The sides take turns
in short blocks (``--block`` seconds of CPU each, at least one whole game) until each
has had ``--seconds``; a side's rate is its games over its CPU time, and the spread
(``*_blocks``: median, min, max of the blocks' rates) says how steady that was.

An RLCard UNO "game" is one round (until the first player empties their hand),
so a game with a ``rounds`` option is measured with ``rounds=1`` unless the
option is given (the output says ``"unit": "round"``); ``--full`` adds whole
games with the game's own default (UNO: play to 500 points).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from machine_info import machine

from p2php.engine.contract import Decide, Game, OptionError
from p2php.engine.local import LocalTable, default_decks
from p2php.engine.registry import get_game, parse_option_pairs

RLCARD_GAMES = {"uno": "uno"}
"""p2php game name -> RLCard environment id, for the games RLCard also has."""

SUITE: tuple[tuple[str, int], ...] = (("uno", 2), ("uno", 4), ("hpsha", 4), ("hpsha", 10), ("tcg", 2),
                                      ("hogwarts", 4))
"""What ``--suite`` measures: (game, players)."""

OneGame = Callable[[], tuple[int, int]]
"""Plays one game; returns (engine steps, decisions)."""


def p2php_games(game: Game, players: int, options: Mapping[str, Any], bot: str = "random") -> OneGame:
    """One p2php game per call with ``LocalTable`` and seeded bots (game ``i`` is seeded ``i``)."""
    decks = default_decks(game, players, options)
    count = 0

    def one() -> tuple[int, int]:
        nonlocal count
        table = LocalTable(game.new_state(players, options), seed=count,
                           private_decks=decks)  # the table copies a deck list before shuffling it
        bots = {seat: game.make_bot(bot, f"{count}/{seat}") for seat in range(players)}
        table.play(bots)
        count += 1
        decisions = sum(len(entry) for kind, entry in table.log if kind == "actions" and isinstance(entry, list))
        return len(table.log), decisions  # every chance step fulfilled and every decision applied

    return one


def _rlcard_env(env_id: str, players: int) -> Any:
    """RLCard's environment with ``players`` random agents.

    RLCard 1.2 ignores ``game_num_players`` for UNO (it configures only a few
    games), so the player count is then set on the game object itself.
    """
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make(env_id, config={"game_num_players": players, "seed": 0})
    if env.num_players != players:
        env.game.configure({"game_num_players": players})
        env.num_players = players
        env.state_shape = [env.state_shape[0] for _ in range(players)]
        env.action_shape = [env.action_shape[0] for _ in range(players)]
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(players)])
    return env


def rlcard_env_games(env_id: str, players: int) -> OneGame:
    """One RLCard environment game (random agents, observations encoded as RLCard does) per call."""
    env = _rlcard_env(env_id, players)
    if env.game.num_players != players:
        raise OptionError(f"RLCard's {env_id} did not take {players} players")

    def one() -> tuple[int, int]:
        trajectories, _payoffs = env.run(is_training=False)
        decisions = sum((len(t) - 1) // 2 for t in trajectories)  # each is state, action, ..., state
        return decisions, decisions

    return one


def rlcard_engine_games(players: int) -> OneGame:
    """One round of RLCard's ``UnoGame`` per call, driven directly: a uniformly random legal action
    (``random.Random``, cheaper than any agent) until the round is over; no observation is encoded."""
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(allow_step_back=False, num_players=players)
    game.np_random = np.random.RandomState(0)
    pick = random.Random(0).choice

    def one() -> tuple[int, int]:
        game.init_game()
        decisions = 0
        while not game.is_over():
            game.step(pick(game.get_legal_actions()))
            decisions += 1
        return decisions, decisions

    return one


def interleave(sides: Mapping[str, OneGame], seconds: float, block: float) -> dict[str, dict[str, Any]]:
    """Run the sides in turn, a block of at least ``block`` CPU seconds (and one whole game) each, until
    every side has had ``seconds``; per side its totals, rates and the median/min/max of its blocks."""
    clock = time.process_time
    totals = {name: [0, 0, 0, 0.0] for name in sides}  # games, steps, decisions, cpu seconds
    blocks: dict[str, list[float]] = {name: [] for name in sides}
    while any(t[3] < seconds or t[0] == 0 for t in totals.values()):
        for name, one in sides.items():
            t = totals[name]
            if t[3] >= seconds and t[0] > 0:
                continue
            games = steps = decisions = 0
            start = clock()
            spent = 0.0
            while games == 0 or spent < block:
                s, d = one()
                games += 1
                steps += s
                decisions += d
                spent = clock() - start
            t[0] += games
            t[1] += steps
            t[2] += decisions
            t[3] += spent
            blocks[name].append(games / spent if spent > 0 else float("inf"))
    out = {}
    for name, (games, steps, decisions, cpu) in totals.items():
        cpu = max(cpu, 1e-9)
        rates = blocks[name]
        out[name] = {"games": games, "seconds": round(cpu, 3), "games_per_s": games / cpu,
                     "steps_per_s": steps / cpu, "decisions_per_s": decisions / cpu,
                     "decisions_per_game": decisions / games,
                     "blocks": {"n": len(rates), "median": statistics.median(rates), "min": min(rates),
                                "max": max(rates)}}
    return out


def state_hash_cost(game: Game, players: int, options: Mapping[str, Any], bot: str = "random",
                    states: int = 200) -> dict[str, Any]:
    """CPU microseconds of one ``state_hash()`` (what a peer computes after every transition), over the
    states of the first ``states`` decisions of game 0: median, min and max of five passes over them."""
    table = LocalTable(game.new_state(players, options), seed=0, private_decks=default_decks(game, players, options))
    bots = {seat: game.make_bot(bot, f"0/{seat}") for seat in range(players)}
    kept = []
    while len(kept) < states:
        step = table.run_chance()
        if not isinstance(step, Decide):
            break
        kept.append(table.state.clone())
        table.act([(seat, bots[seat].choose(table.state, seat, table.knowledge(seat),
                                            table.state.legal_actions(seat, table.knowledge(seat))))
                   for seat in step.seats])
    passes = []
    for _ in range(5):
        start = time.process_time()
        for st in kept:
            st.state_hash()
        passes.append((time.process_time() - start) / max(len(kept), 1) * 1e6)
    return {"states": len(kept), "median": round(statistics.median(passes), 1), "min": round(min(passes), 1),
            "max": round(max(passes), 1)}


def measure_p2php(game: Game, players: int, options: Mapping[str, Any], seconds: float,
                  bot: str = "random") -> dict[str, Any]:
    """Play whole games with ``LocalTable`` for ``seconds`` of CPU (the last game is finished)."""
    return interleave({"p2php": p2php_games(game, players, options, bot)}, seconds, seconds)["p2php"]


def rlcard_version() -> tuple[str | None, str | None]:
    """(version, None) if rlcard imports, else (None, why not)."""
    try:
        import rlcard
    except Exception as err:  # ImportError, or numpy/ABI trouble inside rlcard
        return None, f"rlcard not importable ({type(err).__name__}: {err}); pip install rlcard"
    return str(getattr(rlcard, "__version__", "?")), None


def _r(x: float | None, digits: int = 1) -> float | None:
    return None if x is None else round(x, digits)


def _spread(stats: Mapping[str, Any]) -> dict[str, Any]:
    b = stats["blocks"]
    return {"n": b["n"], "median": _r(b["median"]), "min": _r(b["min"]), "max": _r(b["max"])}


def benchmark(game_name: str, players: int, raw_options: Mapping[str, str], seconds: float,
              full: bool = False, bot: str = "random", rlcard: bool = True, block: float = 0.5) -> dict[str, Any]:
    """Measure p2php (and RLCard, for the games it has) interleaved; raises OptionError on bad input."""
    game = get_game(game_name)
    game.check_players(players)
    raw = dict(raw_options)
    per_round = "rounds" in game.options and "rounds" not in raw
    if per_round:
        raw["rounds"] = "1"
    options = game.parse_options(raw)
    game.make_bot(bot, 0)  # an unknown bot kind is an input error, found before any run
    unit = "round" if "rounds" in game.options and options["rounds"] == 1 else "game"
    sides: dict[str, OneGame] = {"p2php": p2php_games(game, players, options, bot)}
    env_id = RLCARD_GAMES.get(game.name)
    version, why = rlcard_version() if rlcard else (None, "disabled with --no-rlcard")
    if env_id is None:
        why = f"RLCard has no {game.name} environment"
    elif version is not None:
        sides["rlcard"] = rlcard_env_games(env_id, players)
        sides["rlcard_engine"] = rlcard_engine_games(players)
    measured = interleave(sides, seconds, min(block, seconds))
    ours = measured["p2php"]
    out: dict[str, Any] = {
        "game": game.name,
        "players": players,
        "options": options,
        "unit": unit,
        "seconds": seconds,
        "clock": "process_time",
        "p2php_games": ours["games"],
        "p2php_games_per_s": _r(ours["games_per_s"]),
        "p2php_games_per_s_blocks": _spread(ours),
        "p2php_steps_per_s": _r(ours["steps_per_s"]),
        "p2php_decisions_per_s": _r(ours["decisions_per_s"]),
        "p2php_decisions_per_game": _r(ours["decisions_per_game"]),
        "p2php_state_hash_us": state_hash_cost(game, players, options, bot),
        "rlcard_version": version, "rlcard_games_per_s": None, "rlcard_decisions_per_s": None,
        "rlcard_decisions_per_game": None, "ratio": None, "decisions_ratio": None,
        "rlcard_game_engine_per_s": None, "rlcard_game_engine_decisions_per_s": None,
        "rlcard_game_engine_decisions_per_game": None, "engine_ratio": None,
    }
    if "rlcard" in measured:
        theirs, engine = measured["rlcard"], measured["rlcard_engine"]
        out.update({
            "rlcard_games": theirs["games"],
            "rlcard_games_per_s": _r(theirs["games_per_s"]),
            "rlcard_games_per_s_blocks": _spread(theirs),
            "rlcard_decisions_per_s": _r(theirs["decisions_per_s"]),
            "rlcard_decisions_per_game": _r(theirs["decisions_per_game"]),
            "ratio": round(ours["games_per_s"] / theirs["games_per_s"], 3),
            "decisions_ratio": round(ours["decisions_per_s"] / theirs["decisions_per_s"], 3),
            "rlcard_game_engine_games": engine["games"],
            "rlcard_game_engine_per_s": _r(engine["games_per_s"]),
            "rlcard_game_engine_per_s_blocks": _spread(engine),
            "rlcard_game_engine_decisions_per_s": _r(engine["decisions_per_s"]),
            "rlcard_game_engine_decisions_per_game": _r(engine["decisions_per_game"]),
            "engine_ratio": round(ours["games_per_s"] / engine["games_per_s"], 3),
        })
    else:
        out["rlcard_skipped"] = why
    if full:
        whole = game.parse_options({k: v for k, v in raw_options.items() if k != "rounds"})
        games = measure_p2php(game, players, whole, seconds, bot)
        out.update({"full_options": whole, "p2php_full_games_per_s": _r(games["games_per_s"], 2),
                    "p2php_full_decisions_per_game": _r(games["decisions_per_game"])})
    out["machine"] = machine()
    return out


def print_report(r: dict[str, Any]) -> None:
    """A readable summary."""
    opts = " ".join(f"{k}={v}" for k, v in r["options"].items())
    m = r["machine"]
    print(f"{r['game']}, {r['players']} players ({opts}); unit: one {r['unit']}; "
          f"{r['seconds']} s CPU each, interleaved; {m['nproc']} cores, Python {m['python']}")
    print(f"{'':<14}{r['unit'] + 's/s':>12}{'decisions/s':>14}{'decisions/' + r['unit']:>18}   "
          f"blocks' {r['unit']}s/s: median (min-max)")

    def row(name: str, prefix: str, per_s: str) -> None:
        b = r[f"{per_s}_blocks"]
        print(f"{name:<14}{r[per_s]:>12}{r[f'{prefix}_decisions_per_s']:>14}"
              f"{r[f'{prefix}_decisions_per_game']:>18}   {b['median']} ({b['min']}-{b['max']}, {b['n']} blocks)")

    row("p2php", "p2php", "p2php_games_per_s")
    if r["rlcard_games_per_s"] is not None:
        row("RLCard env", "rlcard", "rlcard_games_per_s")
        row("RLCard game", "rlcard_game_engine", "rlcard_game_engine_per_s")
        print(f"p2php / RLCard environment: {r['ratio']}x {r['unit']}s per second, {r['decisions_ratio']}x "
              f"decisions per second; p2php / RLCard's UnoGame: {r['engine_ratio']}x {r['unit']}s per second "
              f"(rlcard {r['rlcard_version']}; different rules: RLCard plays standard UNO)")
    else:
        print(f"RLCard: skipped ({r.get('rlcard_skipped')})")
    h = r["p2php_state_hash_us"]
    print(f"({r['p2php_steps_per_s']} p2php engine steps/s; one state_hash() {h['median']} us CPU, "
          f"{h['min']}-{h['max']}, over {h['states']} states)")
    if "p2php_full_games_per_s" in r:
        print(f"whole games ({' '.join(f'{k}={v}' for k, v in r['full_options'].items())}): "
              f"{r['p2php_full_games_per_s']} games/s, {r['p2php_full_decisions_per_game']} decisions/game")


def print_suite(results: Sequence[dict[str, Any]]) -> None:
    """One line per configuration."""
    m = results[0]["machine"] if results else machine()
    print(f"engine only, CPU time, interleaved blocks; {m['nproc']} cores, {m['cpu']}, Python {m['python']}")
    print(f"{'game':<10}{'players':>8}{'games/s':>10}{'(min-max)':>18}{'decisions/s':>13}{'dec/game':>10}"
          f"{'hash us':>9}{'RLCard env':>12}{'RLCard game':>13}{'x game':>8}")
    for r in results:
        b = r["p2php_games_per_s_blocks"]
        env = r["rlcard_games_per_s"]
        spread = f"({b['min']}-{b['max']})"
        print(f"{r['game']:<10}{r['players']:>8}{r['p2php_games_per_s']:>10}{spread:>18}"
              f"{r['p2php_decisions_per_s']:>13}{r['p2php_decisions_per_game']:>10}"
              f"{r['p2php_state_hash_us']['median']:>9}"
              f"{'-' if env is None else env:>12}"
              f"{'-' if env is None else r['rlcard_game_engine_per_s']:>13}"
              f"{'-' if env is None else r['engine_ratio']:>8}")


def _p2php_from() -> str:
    """The directory the measured ``p2php`` package was imported from (the source tree's root)."""
    import p2php

    return str(Path(p2php.__file__).resolve().parent.parent)


def default_bot(game_name: str) -> str:
    """'eager' when the game has it (RLCard's random agent's action space), else 'random'."""
    return "eager" if "eager" in get_game(game_name).bot_kinds else "random"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="uno", help="a registered game (default: uno)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0, help="CPU time for each side")
    ap.add_argument("--block", type=float, default=0.5,
                    help="CPU seconds of one side before the next takes its turn (default 0.5)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option (repeatable); default rounds=1 when the game has 'rounds'")
    ap.add_argument("--full", action="store_true", help="also measure whole games (the game's default rounds)")
    ap.add_argument("--bot", default=None,
                    help="p2php bot kind (default: 'eager' when the game has it — uniform over legal plays, "
                         "drawing only when nothing is playable, which is exactly RLCard's random agent's "
                         "action space — else 'random')")
    ap.add_argument("--no-rlcard", dest="rlcard", action="store_false", help="do not measure RLCard")
    ap.add_argument("--suite", action="store_true",
                    help="measure every configuration of SUITE (UNO 2 and 4, HP Sha 4 and 10, TCG 2, Hogwarts 4); "
                         "--game, --players, --option, --bot and --full are then ignored")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="import a module that registers more games (repeatable)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        for module in args.imports:
            importlib.import_module(module)
        if args.suite:
            results = []
            for name, players in SUITE:
                bot = default_bot(name)
                r = benchmark(name, players, {}, args.seconds, bot=bot, rlcard=args.rlcard, block=args.block)
                r["bot"] = bot
                results.append(r)
            if args.json:
                print(json.dumps({"suite": results, "machine": machine(), "p2php_from": _p2php_from()}))
            else:
                print_suite(results)
            return 0
        bot = args.bot if args.bot is not None else default_bot(args.game)
        result = benchmark(args.game, args.players, parse_option_pairs(list(args.option)), args.seconds,
                           full=args.full, bot=bot, rlcard=args.rlcard, block=args.block)
        result["bot"] = bot
    except (OptionError, ImportError) as err:
        print(f"engine_speed.py: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
