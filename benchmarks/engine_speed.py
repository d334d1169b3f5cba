"""Engine-only speed: games per second with random bots and a trusted dealer (no crypto).

Plays games back to back with :class:`p2php.engine.local.LocalTable` for
``--seconds`` and reports games, engine steps and decisions per second.  For UNO
it also times RLCard's UNO environment with random agents (when ``rlcard`` is
installed: ``pip install rlcard``) for the same player count and as long, and
prints the ratio.

    python benchmarks/engine_speed.py --game uno --players 2 --seconds 10 [--json]
    python benchmarks/engine_speed.py --game uno --players 4 --full    # also whole games to 500

An RLCard UNO "game" is one round (until the first player empties their hand),
so a game with a ``rounds`` option is measured with ``rounds=1`` unless the
option is given (the output says ``"unit": "round"``); ``--full`` adds whole
games with the game's own default (UNO: play to 500 points).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from machine_info import machine

from p2php.engine.contract import Game, OptionError
from p2php.engine.local import LocalTable, default_decks
from p2php.engine.registry import get_game, parse_option_pairs

RLCARD_GAMES = {"uno": "uno"}
"""p2php game name -> RLCard environment id, for the games RLCard also has."""




def measure_p2php(game: Game, players: int, options: Mapping[str, Any], seconds: float,
                  bot: str = "random") -> dict[str, Any]:
    """Play whole games with ``LocalTable`` until ``seconds`` have passed (the last game is finished)."""
    games = steps = decisions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while games == 0 or elapsed < seconds:
        table = LocalTable(game.new_state(players, options), seed=games,
                           private_decks=default_decks(game, players, options))
        bots = {seat: game.make_bot(bot, f"{games}/{seat}") for seat in range(players)}
        table.play(bots)
        games += 1
        steps += len(table.log)  # every chance step fulfilled and every decision applied
        decisions += sum(len(entry) for kind, entry in table.log if kind == "actions"
                         and isinstance(entry, list))
        elapsed = time.perf_counter() - start
    return {"games": games, "seconds": round(elapsed, 3), "games_per_s": games / elapsed,
            "steps_per_s": steps / elapsed, "decisions_per_s": decisions / elapsed,
            "decisions_per_game": decisions / games}


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


def measure_rlcard(env_id: str, players: int, seconds: float) -> dict[str, Any]:
    """Run RLCard games with random agents until ``seconds`` have passed."""
    env = _rlcard_env(env_id, players)
    games = decisions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while games == 0 or elapsed < seconds:
        trajectories, _payoffs = env.run(is_training=False)
        games += 1
        # each player's trajectory is state, action, state, ..., state
        decisions += sum((len(t) - 1) // 2 for t in trajectories)
        elapsed = time.perf_counter() - start
    return {"games": games, "seconds": round(elapsed, 3), "games_per_s": games / elapsed,
            "decisions_per_s": decisions / elapsed, "decisions_per_game": decisions / games,
            "players": env.game.num_players}


def rlcard_version() -> tuple[str | None, str | None]:
    """(version, None) if rlcard imports, else (None, why not)."""
    try:
        import rlcard
    except Exception as err:  # ImportError, or numpy/ABI trouble inside rlcard
        return None, f"rlcard not importable ({type(err).__name__}: {err}); pip install rlcard"
    return str(getattr(rlcard, "__version__", "?")), None


def _r(x: float | None, digits: int = 1) -> float | None:
    return None if x is None else round(x, digits)


def benchmark(game_name: str, players: int, raw_options: Mapping[str, str], seconds: float,
              full: bool = False, bot: str = "random", rlcard: bool = True) -> dict[str, Any]:
    """Measure p2php (and RLCard, for the games it has); raises OptionError on bad input."""
    game = get_game(game_name)
    game.check_players(players)
    raw = dict(raw_options)
    per_round = "rounds" in game.options and "rounds" not in raw
    if per_round:
        raw["rounds"] = "1"
    options = game.parse_options(raw)
    game.make_bot(bot, 0)  # an unknown bot kind is an input error, found before any run
    unit = "round" if "rounds" in game.options and options["rounds"] == 1 else "game"
    ours = measure_p2php(game, players, options, seconds, bot)
    out: dict[str, Any] = {
        "game": game.name,
        "players": players,
        "options": options,
        "unit": unit,
        "seconds": seconds,
        "p2php_games": ours["games"],
        "p2php_games_per_s": _r(ours["games_per_s"]),
        "p2php_steps_per_s": _r(ours["steps_per_s"]),
        "p2php_decisions_per_s": _r(ours["decisions_per_s"]),
        "p2php_decisions_per_game": _r(ours["decisions_per_game"]),
    }
    env_id = RLCARD_GAMES.get(game.name)
    version, why = rlcard_version() if rlcard else (None, "disabled with --no-rlcard")
    if env_id is None:
        why = f"RLCard has no {game.name} environment"
    out.update({"rlcard_version": version, "rlcard_games_per_s": None, "rlcard_decisions_per_s": None,
                "rlcard_decisions_per_game": None, "ratio": None, "decisions_ratio": None})
    if env_id is not None and version is not None:
        theirs = measure_rlcard(env_id, players, seconds)
        out.update({
            "rlcard_games": theirs["games"],
            "rlcard_games_per_s": _r(theirs["games_per_s"]),
            "rlcard_decisions_per_s": _r(theirs["decisions_per_s"]),
            "rlcard_decisions_per_game": _r(theirs["decisions_per_game"]),
            "ratio": round(ours["games_per_s"] / theirs["games_per_s"], 3),
            "decisions_ratio": round(ours["decisions_per_s"] / theirs["decisions_per_s"], 3),
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
          f"{r['seconds']} s each; {m['nproc']} cores, Python {m['python']}")
    print(f"{'':<10}{r['unit'] + 's/s':>12}{'decisions/s':>14}{'decisions/' + r['unit']:>18}")
    print(f"{'p2php':<10}{r['p2php_games_per_s']:>12}{r['p2php_decisions_per_s']:>14}"
          f"{r['p2php_decisions_per_game']:>18}   ({r['p2php_steps_per_s']} engine steps/s)")
    if r["rlcard_games_per_s"] is not None:
        print(f"{'RLCard':<10}{r['rlcard_games_per_s']:>12}{r['rlcard_decisions_per_s']:>14}"
              f"{r['rlcard_decisions_per_game']:>18}   (rlcard {r['rlcard_version']})")
        print(f"p2php / RLCard: {r['ratio']}x {r['unit']}s per second, {r['decisions_ratio']}x decisions "
              "per second (different rules: RLCard plays standard UNO)")
    else:
        print(f"RLCard: skipped ({r.get('rlcard_skipped')})")
    if "p2php_full_games_per_s" in r:
        print(f"whole games ({' '.join(f'{k}={v}' for k, v in r['full_options'].items())}): "
              f"{r['p2php_full_games_per_s']} games/s, {r['p2php_full_decisions_per_game']} decisions/game")




def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="uno", help="a registered game (default: uno)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0, help="time for each measurement")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option (repeatable); default rounds=1 when the game has 'rounds'")
    ap.add_argument("--full", action="store_true", help="also measure whole games (the game's default rounds)")
    ap.add_argument("--bot", default=None,
                    help="p2php bot kind (default: 'eager' when the game has it — uniform over legal plays, "
                         "drawing only when nothing is playable, which is exactly RLCard's random agent's "
                         "action space — else 'random')")
    ap.add_argument("--no-rlcard", dest="rlcard", action="store_false", help="do not measure RLCard")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="import a module that registers more games (repeatable)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        for module in args.imports:
            importlib.import_module(module)
        bot = args.bot
        if bot is None:
            bot = "eager" if "eager" in get_game(args.game).bot_kinds else "random"
        result = benchmark(args.game, args.players, parse_option_pairs(list(args.option)), args.seconds,
                           full=args.full, bot=bot, rlcard=args.rlcard)
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
