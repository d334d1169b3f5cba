"""``p2php host`` and ``p2php join``: one table across machines.

The host opens a lobby (see :mod:`p2php.lobby`), runs its own seat and any bot
seats as independent peers, and once the table is full every peer forms the
full mesh and plays exactly as in a local demo.
"""

from __future__ import annotations

import argparse
import sys

import trio

from p2php.engine.registry import get_game
from p2php.lobby import LobbyError, host_lobby, join_lobby
from p2php.net.mesh import MeshError, listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.runner import Decider, PeerConfig, PeerResult, bot_decider, run_peer


def _decider(args: argparse.Namespace, game_name: str, seat: int, human: bool) -> Decider:
    if human:
        from p2php.terminal import terminal_decider

        return terminal_decider()
    return bot_decider(get_game(game_name).make_bot(args.bot, f"{args.seed}/{seat}"))


def _report(result: PeerResult) -> int:
    ls = result.lockstep
    verdict = ls.verdict
    print("─" * 60)
    if ls.result is not None:
        print(ls.result.summary or f"winner: {list(ls.result.winners)} scores: {list(ls.result.scores)}")
    print(f"audit: {verdict.text(ls.table) if verdict else 'unfinished'}")
    return 0 if verdict is not None and verdict.clean else 1


async def host_game(args: argparse.Namespace) -> int:
    from p2php.cli import _Printer
    from p2php.engine.registry import parse_option_pairs

    game = get_game(args.game)
    game.check_players(args.players)
    if args.bots + 1 > args.players:
        raise ValueError(f"{args.bots} bots and the host need {args.bots + 1} seats; the table has {args.players}")
    options = game.parse_options(parse_option_pairs(args.option))
    local = 1 + args.bots
    listeners = [await listen(args.bind, 0) for _ in range(local)]
    names = [args.name] + [f"bot{i}" for i in range(1, local)]
    try:
        lobby = await listen(args.bind, args.port)
    except OSError as err:
        print(f"p2php: cannot open the table on port {args.port}: {err.strerror or err}", file=sys.stderr)
        return 3
    print(f"Table open for {game.name} ({args.players} players) on port {listener_port(lobby)}. "
          f"Others join with: p2php join <this machine's address>:{listener_port(lobby)} --name NAME")
    try:
        raw = await host_lobby(lobby, game.name, options, args.players,
                               [(names[i], listener_port(listeners[i])) for i in range(local)])
    except LobbyError as err:
        print(f"p2php: {err}", file=sys.stderr)
        return 3
    finally:
        await lobby.aclose()
    addresses = {s: (host or "127.0.0.1", port) for s, (host, port) in enumerate(raw)}
    results: list[PeerResult] = []

    async def seat_task(seat: int) -> None:
        cfg = PeerConfig(game.name, options, args.players, seat, names[seat], timeout=args.timeout,
                         secrets=LocalSecrets())
        human = seat == 0 and not args.auto
        results.append(await run_peer(cfg, addresses, listeners[seat], _decider(args, game.name, seat, human),
                                      _Printer(sys.stdout, True) if seat == 0 else None))

    try:
        async with trio.open_nursery() as nursery:
            for seat in range(local):
                nursery.start_soon(seat_task, seat)
    except BaseExceptionGroup as group:
        mesh = group.subgroup(MeshError)
        if mesh is None:
            raise
        print(f"p2php: {mesh.exceptions[0]}", file=sys.stderr)
        return 3
    host_result = next(r for r in results if r.lockstep.seat == 0)
    return _report(host_result)


async def join_game(args: argparse.Namespace) -> int:
    from p2php.cli import _Printer

    host, _, port = args.address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected HOST:PORT, got {args.address!r}")
    listener = await listen(args.bind, 0)
    try:
        seat_info, raw = await join_lobby(host, int(port), args.name, listener_port(listener))
    except LobbyError as err:
        print(f"p2php: {err}", file=sys.stderr)
        return 3
    seat = int(seat_info["seat"])
    print(f"Seated at {seat} of {seat_info['players']} for {seat_info['game']} {seat_info['options']}")
    cfg = PeerConfig(seat_info["game"], seat_info["options"], int(seat_info["players"]), seat, args.name,
                     timeout=args.timeout, secrets=LocalSecrets())
    addresses = dict(enumerate(raw))
    try:
        result = await run_peer(cfg, addresses, listener, _decider(args, cfg.game, seat, not args.auto),
                                _Printer(sys.stdout, True))
    except MeshError as err:
        print(f"p2php: {err}", file=sys.stderr)
        return 3
    finally:
        await listener.aclose()
    return _report(result)
