"""The ``p2php`` command: demos, terminal play, LAN tables and transcript checks.

    p2php demo uno --peers 4 --seed 7          bots play a whole game over loopback TCP
    p2php demo uno --transport libp2p --relayed  ... over libp2p hosts, every link through a local relay
    p2php play uno --bots 3                    you against three bot peers
    p2php host uno --players 3 --bots 1        open a table for other machines
    p2php join 192.168.1.20:7700 --name ann    sit down at that table
    p2php host uno --online --relay ADDR       a table beyond the LAN: prints an invite code
    p2php join p2php-… --name ann              sit down at an online table by its invite code
    p2php relay                                run a relay for online tables
    p2php join --name ann                      sit down at the only open table on the LAN
    p2php verify transcripts/seat0.p2php       re-check a saved game from scratch

Every user mistake or network fault ends with a clear message and a non-zero
exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import secrets
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import trio

from p2php import piped_output
from p2php.bots import default_kind
from p2php.console import LogPrinter, seconds
from p2php.engine.contract import Game, OptionError
from p2php.engine.registry import game_names, get_game, parse_option_pairs
from p2php.errors import P2phpError, UsageError
from p2php.net.ports import DISCOVERY_PORT, LOBBY_PORT
from p2php.piped_output import flow_control_off, unblock_stderr, unblock_stdout
from p2php.session.modes import SESSION_OPTIONS, crypto_mode, crypto_notice
from p2php.session.owndecks import table_setup
from p2php.session.runner import Decider, PeerResult, bot_decider, check_delay, slowed
from p2php.text import LINE, safe


def _bots(game_name: str, kind: str | None, seed: object, seats: range, delay: float = 0.0) -> list[Decider]:
    """The bots of ``seats``; no ``kind`` given: the game's heuristic bot, or its random one if it has none.
    ``delay``: seconds each waits before it answers (``--bot-delay``)."""
    game = get_game(game_name)
    chosen = kind or default_kind(game)
    return [slowed(bot_decider(game.make_bot(chosen, f"{seed}/{seat}")), bot_delay(delay)) for seat in seats]


def bot_delay(delay: float) -> float:
    """``--bot-delay`` checked (a usage error, one line, if out of range)."""
    try:
        return check_delay(delay)
    except ValueError as err:
        raise UsageError(f"--bot-delay: {err}") from None


def _summary(game_name: str, results: list[PeerResult], seconds: float) -> dict[str, Any]:
    from p2php.terminal import verdict_text

    first = results[0].lockstep
    verdicts = [r.lockstep.verdict for r in results]
    hashes = {v.state_hash.hex() for v in verdicts if v is not None}
    clean = all(v is not None and v.clean for v in verdicts)
    result = first.result
    # Names and reasons come from the peers: escaped and bounded here, for the screen and the JSON alike.
    audit = "clean" if clean else next(
        (verdict_text(v, first.table) for v in verdicts if v is not None and not v.clean), "unfinished"
    )
    return {
        "game": game_name,
        "peers": len(results),
        "options": first.options,
        "winner": list(result.winners) if result else None,
        "scores": list(result.scores) if result else None,
        "summary": safe(result.summary, LINE) if result else "",
        "state_hash": hashes.pop() if len(hashes) == 1 else sorted(hashes),
        "agree": len({v.state_hash for v in verdicts if v is not None}) == 1,
        "audit": audit,
        "crypto": crypto_mode(first.table.options),
        "safety_code": first.table.safety_code,
        "seconds": round(seconds, 3),
        "setup_seconds": round(max(r.setup_seconds for r in results), 3),
        "steps": first.tick,
        "bytes_on_wire": sum(r.bytes_sent for r in results),
        "messages": sum(r.frames_sent for r in results),
    }


def _default_players(game: Game) -> int:
    """Four at the table, or as close to four as the game allows (the TCG is a duel)."""
    return min(max(4, game.min_players), game.max_players)


def cmd_demo(args: argparse.Namespace) -> int:
    from p2php.session.local_net import run_local_table

    game = get_game(args.game)
    if args.peers is None:
        args.peers = _default_players(game)
    game.check_players(args.peers)
    options, own = table_setup(game, args.peers, parse_option_pairs(args.option), [(0, args.deck), (1, args.deck2)])
    deciders = _bots(game.name, args.bot, args.seed, range(args.peers), args.bot_delay)
    if args.view is not None and not 0 <= args.view < args.peers:
        raise OptionError(f"--view: seat {args.view} does not exist (seats 0–{args.peers - 1})")
    if (args.relayed or args.hole_punch) and args.transport != "libp2p":
        raise UsageError("--relayed and --hole-punch need --transport libp2p (a TCP link has no relay)")
    if args.transport == "libp2p":
        from p2php.net.libp2p import require_libp2p

        require_libp2p()  # without the extra: one line naming it, exit code 2
    printer = None if args.json else LogPrinter(sys.stdout, args.view is not None)
    if not args.json:
        print(crypto_notice(options))
    transcripts = Path(args.transcripts) if args.transcripts else None
    links: dict[str, str] = {}
    start = time.perf_counter()

    async def table() -> list[PeerResult]:
        if args.transport != "libp2p":
            return await run_local_table(
                game.name, args.peers, deciders, options, seed=args.seed, timeout=args.timeout,
                transcripts=transcripts, observe=printer, observe_seat=args.view or 0, private_decks=own,
            )
        from p2php.net.libp2p import libp2p_loopback
        from p2php.session.memory import seeded_secrets

        # Each seat's libp2p host is keyed from that seat's secrets (protocol.md §3.6), so the network must know
        # them: without --seed they come from a fresh random seed (still a demo's bots on one machine).
        secret_seed: int = args.seed if args.seed is not None else secrets.randbits(64)
        async with libp2p_loopback(lambda seat: seeded_secrets(secret_seed, seat), relayed=args.relayed,
                                   punch=args.hole_punch) as net:
            played = await run_local_table(
                game.name, args.peers, deciders, options, seed=secret_seed, timeout=args.timeout,
                transcripts=transcripts, observe=printer, observe_seat=args.view or 0, private_decks=own,
                network=net,
            )
            links.update(net.links())
        return played

    results = trio.run(table)
    summary = _summary(game.name, results, time.perf_counter() - start)
    summary["transport"] = args.transport
    summary["links"] = links or {f"{a}-{b}": "direct" for a in range(len(results)) for b in range(a + 1, len(results))}
    ok = summary["agree"] and summary["audit"] == "clean" and len(results) == args.peers
    if args.json:
        print(json.dumps(summary))
    else:
        print("─" * 60)
        if summary["summary"]:
            print(summary["summary"])
        print(f"winner: {summary['winner']}   scores: {summary['scores']}")
        print(f"state hash (every peer): {summary['state_hash']}")
        print(f"audit: {summary['audit']}   peers agree: {summary['agree']}")
        if args.transport != "tcp":
            carried = ", ".join(f"{pair} {kind}" for pair, kind in summary["links"].items())
            print(f"links over {args.transport}: {carried}")
        print(f"{summary['steps']} steps, {summary['messages']} signed messages, "
              f"{summary['bytes_on_wire']} bytes on the wire, {summary['seconds']} s "
              f"(setup {summary['setup_seconds']} s)")
        if transcripts:
            print(f"transcripts saved in {transcripts}/ — check one with: p2php verify {transcripts}/seat0.p2php")
    return 0 if ok else 1


def cmd_play(args: argparse.Namespace) -> int:
    from p2php.session.local_net import run_local_table
    from p2php.session.lockstep import Lockstep
    from p2php.session.netplay import run_trio
    from p2php.session.rematch import again_seed
    from p2php.terminal import Quit, TerminalUI, summary_lines

    game = get_game(args.game)
    if args.bots is None:
        args.bots = _default_players(game) - 1
    players = args.bots + 1
    game.check_players(players)
    options, own = table_setup(game, players, parse_option_pairs(args.option), [(0, args.deck)])
    print(crypto_notice(options))
    names = [args.name] + [f"bot{s}" for s in range(1, players)]
    previous: list[Lockstep] | None = None
    game_no = 0
    while True:  # one game, then as many rematches at this table as the person wants
        ui = TerminalUI(lang=args.lang)
        seed = None if args.seed is None else again_seed(args.seed, game_no)
        deciders = [ui.decide] + _bots(game.name, args.bot, again_seed(args.seed, game_no), range(1, players),
                                       args.bot_delay)
        try:
            results = run_trio(partial(
                run_local_table, game.name, players, deciders, options, seed=seed, timeout=args.timeout,
                observe=ui.observe, names=names, private_decks=own, rematch_of=previous,
            ))
        except Quit:
            print("\nYou left the table. Bye!")
            return 0
        if results and results[0].left:
            print("\nYou left the table; the others were told at once. Bye!")
            return 0
        summary = _summary(game.name, results, 0.0)
        print("\n".join(summary_lines(results[0].lockstep, args.lang)))
        code = 0 if summary["audit"] == "clean" else 1
        if len(results) != players or not _play_again(ui):
            return code
        previous = [r.lockstep for r in results]
        game_no += 1
        print("A rematch at this table: the same seats, a fresh session (new keys, new deals).")


def _play_again(ui: Any) -> bool:
    """Ask the person whether to play again at this table (end of input: no)."""
    try:
        answer: str = ui.ask("Play again at this table? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def cmd_verify(args: argparse.Namespace) -> int:
    from p2php.session.transcript import verify

    check = verify(args.file)
    for line in check.lines:  # they quote the transcript (names in hellos, reasons): escape them
        print(safe(line, LINE))
    print("OK" if check.ok else "FAILED")
    return 0 if check.ok else 1


def cmd_host(args: argparse.Namespace) -> int:
    from p2php.session.netplay import host_game, run_trio

    if args.online:
        from p2php.session.online_play import host_online

        return run_trio(lambda: host_online(args))
    return run_trio(lambda: host_game(args))


def cmd_join(args: argparse.Namespace) -> int:
    from p2php.net.invite import looks_like_invite
    from p2php.session.netplay import join_game, run_trio

    if args.address is not None and looks_like_invite(args.address):
        from p2php.session.online_play import join_online

        return run_trio(lambda: join_online(args))
    return run_trio(lambda: join_game(args))


def cmd_relay(args: argparse.Namespace) -> int:
    from p2php.session.netplay import run_trio
    from p2php.session.online_play import run_relay

    return run_trio(lambda: run_relay(args))


def cmd_discover(args: argparse.Namespace) -> int:
    from p2php.session.netplay import discover_tables, run_trio

    return run_trio(lambda: discover_tables(args))


def cmd_games(args: argparse.Namespace) -> int:
    for name in game_names():
        game = get_game(name)
        opts = ", ".join(f"{k}={v.default}" for k, v in game.options.items())
        print(f"{name}: {game.min_players}–{game.max_players} players; options: {opts or 'none'}")
    session = ", ".join(f"{k}={'|'.join(map(str, v.choices or ()))} (default {v.default})"
                        for k, v in SESSION_OPTIONS.items())
    print(f"every game: {session}")
    return 0


def cmd_bridge(args: argparse.Namespace) -> int:
    from p2php.bridge import main as bridge_main

    return bridge_main(args.ws, args.allow_origin)


def cmd_web(args: argparse.Namespace) -> int:
    from p2php.web import main as web_main

    return web_main(args.port, args.bind, open_browser=not args.no_browser)


HUMAN_TIMEOUT = 300.0
"""Default --timeout where people play: peers must not name someone silent for thinking."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p2php", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="a game option, e.g. deck=all (repeatable)")
        p.add_argument("--seed", type=int, default=None,
                       help="make bots and peer secrets reproducible (demo only: not secret!)")
        p.add_argument("--bot", default=None,
                       help="bot kind (see `p2php games`; default: the game's heuristic bot, else random)")
        p.add_argument("--timeout", type=seconds, default=30.0, help="seconds to wait for a peer")
        p.add_argument("--bot-delay", type=float, default=0.0, metavar="SECONDS",
                       help="each bot waits this long before it plays, so people can follow (0–60, default 0)")

    def lan(p: argparse.ArgumentParser) -> None:
        p.add_argument("--ready", action="store_true", help="ready at once (no 'press Enter when ready')")
        p.add_argument("--lang", choices=("zh", "en"), help="Harry Potter Sha names in Chinese or English only")
        p.add_argument("--connect-timeout", type=seconds, default=20.0,
                       help="seconds to connect to every other peer once the game starts")
        p.add_argument("--transcript", metavar="FILE",
                       help="save this seat's signed transcript here at the end (check it with p2php verify FILE)")
        p.add_argument("--resume-log", metavar="FILE",
                       help="keep a resume log here (holds this seat's secrets): p2php resume FILE after a crash")

    def online(p: argparse.ArgumentParser) -> None:
        p.add_argument("--relay", metavar="MULTIADDR",
                       help="online: hold a reservation on this circuit relay v2 node (…/p2p/RELAY_ID), so peers "
                            "behind NAT reach each other (a joiner uses the invite's relay by default)")
        p.add_argument("--advertise", action="append", default=[], metavar="IP",
                       help="online: tell the others this IP of ours (repeatable; default: the interface "
                            "toward the relay, and loopback)")
        p.add_argument("--relay-only", action="store_true",
                       help="online: listen nowhere, every link through the relay (no IP of ours in the invite)")

    p = sub.add_parser("demo", help="bot peers play a whole game over loopback TCP")
    p.add_argument("game", nargs="?", default="uno")
    p.add_argument("--peers", type=int, default=None, help="how many peers (default: 4, within the game's range)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the play")
    p.add_argument("--transcripts", metavar="DIR", help="save each peer's signed transcript here")
    p.add_argument("--view", type=int, metavar="SEAT", default=None,
                   help="print the game as this seat's peer sees it, with its own cards and every crypto step")
    p.add_argument("--deck", metavar="FILE", help="seat 0 plays its own deck from this deck list (tcg)")
    p.add_argument("--deck2", metavar="FILE", help="seat 1 plays its own deck from this deck list (tcg)")
    p.add_argument("--transport", choices=("tcp", "libp2p"), default="tcp",
                   help="what carries the links: loopback TCP (default), or libp2p hosts "
                        "(pip install 'p2php[internet]')")
    p.add_argument("--relayed", action="store_true",
                   help="with --transport libp2p: every link through a local circuit relay v2 node")
    p.add_argument("--hole-punch", action="store_true",
                   help="with --transport libp2p: peers meet through a local relay, then try DCUtR for direct links")
    common(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("play", help="play in this terminal against bot peers")
    p.add_argument("game", nargs="?", default="uno")
    p.add_argument("--bots", type=int, default=None, help="bot opponents (default: 3, within the game's range)")
    p.add_argument("--name", default="you")
    p.add_argument("--lang", choices=("zh", "en"), help="Harry Potter Sha names in Chinese or English only")
    p.add_argument("--deck", metavar="FILE", help="play your own deck from this deck list (tcg); it stays secret")
    common(p)
    p.set_defaults(func=cmd_play, timeout=HUMAN_TIMEOUT)

    p = sub.add_parser("host", help="open a table for peers on other machines")
    p.add_argument("game", nargs="?", default="uno")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--bots", type=int, default=0, help="seats filled by bot peers on this machine")
    p.add_argument("--port", type=int, default=LOBBY_PORT)
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--name", default="host")
    p.add_argument("--auto", action="store_true", help="let a bot play the host's own seat (implies --ready)")
    p.add_argument("--discovery-port", type=int, default=DISCOVERY_PORT, metavar="UDP_PORT",
                   help="answer `p2php discover` on this UDP port (0: do not answer)")
    p.add_argument("--online", action="store_true",
                   help="a table for friends beyond this LAN: over libp2p, with an invite code to share "
                        "(pip install 'p2php[internet]')")
    online(p)
    lan(p)
    common(p)
    p.add_argument("--deck", metavar="FILE", help="play your own deck from this deck list (tcg); it stays secret")
    p.set_defaults(func=cmd_host, timeout=HUMAN_TIMEOUT, seat_output=True)

    p = sub.add_parser("join", help="sit down at a table opened with p2php host")
    p.add_argument("address", metavar="HOST[:PORT] | CODE", nargs="?", default=None,
                   help="the table's address, or the invite code of an online table; without it, join the only "
                        "open table discovery finds")
    p.add_argument("--name", default="guest")
    p.add_argument("--game", help="refuse the table unless it plays this game")
    p.add_argument("--auto", action="store_true", help="let a bot play this seat (implies --ready)")
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--to", action="append", default=[], metavar="ADDRESS[:PORT]",
                   help="without an address: ask only this address for tables (repeatable; default: broadcast)")
    p.add_argument("--discovery-port", type=int, default=DISCOVERY_PORT, metavar="UDP_PORT",
                   help="without an address: the UDP port hosts answer discovery on")
    p.add_argument("--discover-timeout", type=seconds, default=2.0, metavar="SECONDS",
                   help="without an address: seconds to collect discovery answers")
    online(p)
    lan(p)
    common(p)
    p.add_argument("--deck", metavar="FILE", help="play your own deck (tcg); it stays secret: the host's table "
                   "learns only your seat's deckN=own and characterN options")
    p.set_defaults(func=cmd_join, timeout=HUMAN_TIMEOUT, seat_output=True)

    p = sub.add_parser("relay", help="run a circuit relay v2 node for online tables (pip install 'p2php[internet]')")
    p.add_argument("--bind", default="0.0.0.0", help="IPv4 address to listen on")
    p.add_argument("--port", type=int, default=4001, help="TCP port to listen on (0: any free port)")
    p.add_argument("--key", metavar="FILE", help="keep the relay's key here, so its peer id (and the --relay "
                   "address players use) survives a restart; made on first use")
    p.add_argument("--advertise", action="append", default=[], metavar="IP",
                   help="the IP to print in the --relay address (repeatable; default: this machine's)")
    p.add_argument("--max-reservations", type=int, default=64, help="peers holding a reservation at once")
    p.add_argument("--max-circuits", type=int, default=64, help="circuits relayed at once")
    p.add_argument("--max-per-ip", type=int, default=8,
                   help="peers from one IP (an IPv6 /64) holding a reservation at once (protocol.md §3.6)")
    p.add_argument("--max-circuits-per-ip", type=int, default=8,
                   help="circuits to one peer from one IP (an IPv6 /64) at once")
    p.add_argument("--circuit-seconds", type=int, default=3600, help="longest life of one circuit")
    p.add_argument("--circuit-bytes", type=int, default=1 << 30, help="most bytes one circuit may carry")
    p.set_defaults(func=cmd_relay)

    p = sub.add_parser("discover", help="list the open tables on the local network")
    p.add_argument("--timeout", type=seconds, default=2.0, help="seconds to collect answers")
    p.add_argument("--to", action="append", default=[], metavar="ADDRESS[:PORT]",
                   help="ask only this address (repeatable; default: broadcast on the LAN)")
    p.add_argument("--port", type=int, default=DISCOVERY_PORT, help="the UDP port hosts answer on")
    p.add_argument("--json", action="store_true", help="print one JSON list")
    p.set_defaults(func=cmd_discover)

    from p2php.peercli import register as register_peer_commands

    register_peer_commands(sub)

    p = sub.add_parser("verify", help="re-check a saved transcript: signatures, replay, audit")
    p.add_argument("file")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("games", help="list the games and their options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("bridge", help="drive a peer from another program: JSON lines on stdio (docs/bridge.md)")
    p.add_argument("--ws", metavar="HOST:PORT", help="serve the same messages on a local WebSocket instead")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="a web page origin allowed to connect to --ws (browsers' other pages are refused)")
    p.set_defaults(func=cmd_bridge, warnings_output=True)  # (its seat's warnings: never stalled by stderr's reader)

    p = sub.add_parser("web", help="play in the browser: a local page driving your peer (needs p2php[ws])")
    p.add_argument("--port", type=int, default=8080, help="local port of the page (0: any free port)")
    p.add_argument("--bind", default="127.0.0.1", help="address to serve on (default: loopback only)")
    p.add_argument("--no-browser", action="store_true", help="print the address instead of opening a browser")
    p.set_defaults(func=cmd_web, warnings_output=True)
    return parser


def _end_stdout(stream: Any) -> None:
    """Close our end of a seat's stdout (it is all written: :meth:`PipedOutput.drain`), before the wait for its
    stderr's reader: an app that reads stdout to its end, then stderr (``out = p.stdout.read(); err =
    p.stderr.read()``) reads stderr only once stdout ends, which was at the process's exit -- after that wait, which
    then left out all but the pipe's 64 kB (review rv8-disk: 65 536 of 240 000 bytes, and 10 s). Any later write to
    stdout goes nowhere."""
    try:
        stream.flush()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # (no descriptor, or one closed: nothing to end)
        pass


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    original, original_err = sys.stdout, sys.stderr
    seat = bool(getattr(args, "seat_output", False))
    piped = unblock_stdout() if seat else None  # a seat: never stalled by its reader
    # (nor by its warnings' reader: the bridge's and the web page's seats too, whose stdout is theirs)
    piped_err = unblock_stderr() if seat or getattr(args, "warnings_output", False) else None
    if isinstance(sys.stdin, io.TextIOWrapper):
        # A person's line that is not in the locale's encoding (a Latin-1 terminal's é, a pasted byte) is read with
        # U+FFFD in its place: under a UTF-8 locale stdin was strict, and the UnicodeDecodeError took the seat down
        # with a traceback mid-game (red-team rt8-red2)
        sys.stdin.reconfigure(errors="replace")
    try:
        with flow_control_off(sys.stdout) if seat and piped is None else contextlib.nullcontext():
            code: int = args.func(args)
        return code
    except P2phpError as err:  # p2php refused something, and says why; anything else is a bug: a traceback
        print(f"p2php: {safe(err, LINE)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`: not an error of ours
        return 0
    except OSError as err:
        print(f"p2php: network error: {safe(err, LINE)}", file=sys.stderr)
        return 3
    finally:
        from p2php.session.transcript import SAVE_WAIT, wait_for_saves

        # A transcript's write past its wait: the process's end would kill it (review rv7-loopio); bounded (rv7b-disk)
        for path in wait_for_saves():
            print(f"p2php: the disk did not finish writing the transcript {safe(str(path), 200)} within "
                  f"{SAVE_WAIT:.0f} s: it may be missing", file=sys.stderr)
        if piped is not None:
            piped.drain()  # the game is over: now the reader may take its time
            sys.stdout = original
            if argv is None:  # (the program itself, not a caller's test in its own process)
                _end_stdout(original)
        # Warnings: bounded (an app that reads our stdout only never reads them, and the process never ended);
        # past the wait it stays in front of stderr, so no write at the exit waits for that reader either.
        if piped_err is not None and piped_err.drain(piped_output.ERR_DRAIN):
            sys.stderr = original_err


if __name__ == "__main__":
    sys.exit(main())
