"""``p2php peer``, ``p2php resume`` and ``p2php watch``: one seat, its comeback, a spectator.

``peer`` runs a single seat of a table whose addresses everyone already knows
(scripts, tests, or a LAN where people agree on ports); ``resume`` brings a seat
back from its resume log after a crash or a lost link; ``watch`` follows a running
table from any peer's address, seeing only what the public sees.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio

from p2php.bots import bot_seed
from p2php.console import LogPrinter, seconds
from p2php.engine.contract import OptionError
from p2php.engine.registry import get_game, parse_option_pairs
from p2php.errors import UsageError
from p2php.net.invite import looks_like_invite
from p2php.net.mesh import MeshError, listen
from p2php.session.handshake import LocalSecrets
from p2php.session.modes import parse_table_options
from p2php.session.netplay import run_trio
from p2php.session.runner import Decider, PeerConfig, PeerResult, bot_decider, check_delay, run_peer, slowed
from p2php.text import LINE, NAME, safe


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.strip().rpartition(":")
    if not host or not port.isdigit():
        raise OptionError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def _decider(game: str, bot: str | None, seed: Any, seat: int) -> Decider:
    if bot is None:
        from p2php.terminal import terminal_decider

        return terminal_decider()
    return bot_decider(get_game(game).make_bot(bot, bot_seed(seed, seat)))


def _err(message: object) -> None:
    """One error line on stderr; the message may quote a peer (a refused hello, a reason): escaped."""
    print(f"p2php: {safe(message, LINE)}", file=sys.stderr)


def _report(result: PeerResult) -> int:
    from p2php.terminal import summary_lines

    for line in summary_lines(result.lockstep):  # names and the verdict's reason escaped there
        print(line)
    ls = result.lockstep
    return 0 if ls.verdict is not None and ls.verdict.clean else 1


async def _play(cfg: PeerConfig, addresses: dict[int, tuple[str, int]], listener: Any, decide: Decider,
                restored: Any) -> int:
    """Run the seat on ``listener`` to its end: the exit status (3 when the mesh could not form)."""
    try:
        result = await run_peer(cfg, addresses, listener, decide, LogPrinter(sys.stdout, True), restored=restored)
    except MeshError as err:
        if restored is not None and restored.finished:  # a finished game's log: the others may all be gone
            from p2php.terminal import summary_lines

            print(f"the game in this log is over; no seat to rejoin ({safe(err, 200)})")
            for line in summary_lines(restored):
                print(line)
            return 0 if restored.verdict is not None and restored.verdict.clean else 1
        _err(err)
        return 3
    return _report(result)


async def _run(cfg: PeerConfig, addresses: dict[int, tuple[str, int]], decide: Decider, restored: Any = None) -> int:
    host, port = addresses[cfg.seat]
    try:
        listener = await listen(host, port)
    except OSError as err:
        _err(f"cannot listen on {host}:{port}: {err.strerror or err}")
        return 3
    try:
        return await _play(cfg, addresses, listener, decide, restored)
    finally:
        await listener.aclose()


async def _run_online(cfg: PeerConfig, addresses: dict[int, tuple[str, int]], decide: Decider, restored: Any,
                      settings: dict[str, Any]) -> int:
    """A resumed seat of an online table: its libp2p node again (same peer id, relay and port), then the game."""
    from p2php.net.online import OnlineSeat
    from p2php.terminal import carried_line

    seat = OnlineSeat.again(cfg.secrets, settings)
    async with trio.open_nursery() as nursery:
        try:
            await nursery.start(seat.run)
        except (OSError, trio.TooSlowError) as err:
            _err(f"cannot go online again (relay {settings.get('relay')}): {err}")
            code = 3
        else:
            cfg.connect = seat.dial
            relink, cfg.relinks = trio.open_memory_channel[int](8)
            carried: dict[int, tuple[str, str]] = {}

            def tell(other: int, how: str) -> None:
                carried[other] = (safe(restored.table.name(other), NAME), how)
                print(carried_line(carried), flush=True)

            nursery.start_soon(seat.watch_links, {s: a for s, (a, _) in addresses.items() if s != cfg.seat}, tell,
                               relink.send_nowait)
            code = await _play(cfg, addresses, seat.listener, decide, restored)
        nursery.cancel_scope.cancel()
    return code


def cmd_peer(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    addresses = {s: _address(a) for s, a in enumerate(args.addresses.split(","))}
    game.check_players(len(addresses))
    if not 0 <= args.seat < len(addresses):
        raise OptionError(f"--seat {args.seat} is not one of the {len(addresses)} seats")
    from p2php.session.memory import seeded_secrets

    secrets = seeded_secrets(args.seed, args.seat) if args.seed is not None else LocalSecrets()
    cfg = PeerConfig(game.name, parse_table_options(game, parse_option_pairs(args.option)), len(addresses), args.seat,
                     args.name or f"seat{args.seat}", timeout=args.timeout, resume_timeout=args.resume_timeout,
                     secrets=secrets, bot=None if args.human else args.bot,
                     transcript_path=Path(args.transcript) if args.transcript else None,
                     resume_path=Path(args.resume_log) if args.resume_log else None)
    if args.human:
        decide = _person(cfg)
    else:
        try:
            delay = check_delay(args.bot_delay)
        except ValueError as err:
            raise UsageError(f"--bot-delay: {err}") from None
        decide = slowed(_decider(game.name, cfg.bot, args.seed, args.seat), delay)
    code: int = run_trio(partial(_run, cfg, addresses, decide))
    return code


def _person(cfg: PeerConfig) -> Decider:
    """A person at this terminal plays the seat, and talks: ``> text`` at a prompt, lines heard printed (§3.8)."""
    from p2php.terminal import TerminalUI, chat_hooks

    ui = TerminalUI()
    hooks = chat_hooks(ui, ())
    cfg.chat, cfg.on_chat = hooks["chat"], hooks["on_chat"]

    async def decide(ls: Any) -> Any:
        if not ui.names:  # the seats' names are known once the hellos are in
            ui.names = tuple(ls.table.name(s) for s in range(ls.players))
        return await ui.decide(ls)

    return decide


def cmd_resume(args: argparse.Namespace) -> int:
    from p2php.session.resume import restore

    header, ls = restore(args.log)
    seat = int(header["seat"])
    addresses = {s: (str(a[0]), int(a[1])) for s, a in enumerate(header["addresses"])}
    bot = None if args.human else (args.bot or header.get("bot"))
    print(f"resumed seat {seat} at step {ls.tick}: {len(ls.transcript)} logged messages re-verified")
    if ls.finished and args.transcript:  # the log is the record: its transcript now, whatever the network does
        from p2php.session import transcript

        try:
            transcript.save(ls, args.transcript)
        except OSError as err:
            _err(f"cannot save the transcript to {args.transcript}: {err.strerror or err}")
        else:
            print(f"the game in this log is over: transcript saved: {safe(args.transcript, LINE)}")
    cfg = PeerConfig(ls.table.game, ls.table.options, ls.players, seat, str(header.get("name") or ""),
                     timeout=float(header.get("timeout", 30.0)), resume_timeout=float(header.get("resume_timeout", 60)),
                     secrets=LocalSecrets(master=header["master"]), bot=bot,
                     transcript_path=Path(args.transcript) if args.transcript else None,
                     resume_path=Path(args.log))
    decide = _decider(ls.table.game, bot, None, seat)
    online = header.get("online")
    if online is not None:
        cfg.online = online
        code: int = run_trio(partial(_run_online, cfg, addresses, decide, ls, online))
    else:
        code = run_trio(partial(_run, cfg, addresses, decide, ls))
    return code


def cmd_watch(args: argparse.Namespace) -> int:
    from p2php.session.lockstep import Lockstep
    from p2php.session.spectator import WatchError, keep_watching, watch
    from p2php.terminal import event_lines, safety_line, verdict_text

    done = [0, 0]  # events printed, safety code shown

    def show(ls: Lockstep) -> None:
        if done[1] == 0:
            done[1] = 1
            print(safety_line(ls))
        while done[0] < len(ls.events):
            for line in event_lines(ls, ls.events[done[0]], person=True):
                print(safe(line, LINE))
            done[0] += 1

    try:
        if looks_like_invite(args.address):
            ls = trio.run(_watch_online, args, show)
        elif getattr(args, "seat", None):
            _err("a seat locator goes with an invite code: p2php watch CODE SEAT")
            return 2
        else:
            host, port = _address(args.address)
            ls = trio.run(lambda: keep_watching(  # a peer that resumes breaks the link: watch again
                lambda observe: watch(host, port, args.name, observe, on_chat=_print_chat), show, _err))
    except WatchError as err:  # it may quote what the watched peer sent
        _err(err)
        return 3
    print("─" * 60)
    if ls.result is not None:
        print(safe(ls.result.summary or f"winner: {list(ls.result.winners)}", LINE))
    print(f"audit: {verdict_text(ls.verdict, ls.table)}")
    return 0 if ls.verdict is not None and ls.verdict.clean else 1


def _print_chat(note: Any) -> None:
    """A chat line the watched peer relayed (its author's signature checked), or why one was dropped: escaped."""
    from p2php.session.chat import ChatLine
    from p2php.terminal import hang

    # Broken into indented rows here: a line left to wrap at the terminal's edge could draw a row that reads as
    # one of ours (a fake safety code, say).
    width = shutil.get_terminal_size().columns
    if isinstance(note, ChatLine):
        print(hang(f"» seat {note.seat}: {safe(note.text, 300)}", width))
    else:
        print(hang(f"! dropped a chat line: {safe(note.reason, 300)}", width))


async def _watch_online(args: argparse.Namespace, show: Callable[[Any], None]) -> Any:
    """``p2php watch CODE [SEAT]``: watch an online table from its host's seat, or from the seat at the locator
    ``SEAT`` (any player's: each is told its own at the start), through a relay if need be."""
    from p2php.net.invite import InviteError, Locator, parse_invite, parse_locator
    from p2php.net.online import OnlineSeat
    from p2php.session.spectator import WatchError, keep_watching, watch

    try:
        invite = parse_invite(args.address)
    except InviteError as err:
        raise WatchError(f"that invite code does not read: {err}") from None
    host = Locator(invite.peer, invite.addrs, invite.relays)
    if args.seat:
        try:
            host = parse_locator(" ".join(" ".join(args.seat).split()))
        except InviteError as err:
            raise WatchError(f"that seat locator does not read: {err}") from None
    relays = host.relays or invite.relays
    relay = args.relay or (relays[0] if relays else None)
    node = OnlineSeat(LocalSecrets(), relay, listen=None if relay else "/ip4/0.0.0.0/tcp/0")
    outcome: list[Any] = []  # the Lockstep, or the WatchError (raised outside the nursery: never in a group)
    async with trio.open_nursery() as nursery:
        try:
            await nursery.start(node.run)
        except (OSError, trio.TooSlowError) as err:
            outcome.append(WatchError(f"cannot go online (relay {relay}): {err}"))
        if not outcome:
            try:  # a link through a relay may break: watch again, the public record replays from the start
                outcome.append(await keep_watching(
                    lambda observe: watch("the online table's seat", 0, args.name, observe, on_chat=_print_chat,
                                          connect=lambda: node.open_mesh(host)), show, _err))
            except WatchError as err:
                outcome.append(err)
        nursery.cancel_scope.cancel()
    if isinstance(outcome[0], WatchError):
        raise outcome[0]
    return outcome[0]


def register(sub: Any) -> None:
    """Add the ``peer``, ``resume`` and ``watch`` subcommands to the ``p2php`` parser."""
    p = sub.add_parser("peer", help="run one seat of a table whose addresses are known")
    p.add_argument("game")
    p.add_argument("--seat", type=int, required=True)
    p.add_argument("--addresses", required=True, metavar="H:P,H:P,...", help="every seat's address, in seat order")
    p.add_argument("--name", default="")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--bot", default="heuristic", help="bot kind playing this seat")
    p.add_argument("--human", action="store_true", help="a person plays this seat in the terminal (and can chat: "
                                                        "> text at a prompt)")
    p.add_argument("--bot-delay", type=float, default=0.0, metavar="SECONDS",
                   help="the bot waits this long before it plays (0–60)")
    p.add_argument("--seed", type=int, default=None, help="reproducible secrets and bot (tests only: not secret!)")
    p.add_argument("--timeout", type=seconds, default=30.0)
    p.add_argument("--resume-timeout", type=seconds, default=60.0, help="seconds to wait for a peer that dropped")
    p.add_argument("--resume-log", metavar="FILE", help="keep a resume log here (holds this seat's secrets)")
    p.add_argument("--transcript", metavar="FILE", help="save the signed transcript here at the end")
    p.set_defaults(func=cmd_peer, seat_output=True)

    p = sub.add_parser("resume", help="bring a seat back from its resume log and finish the game")
    p.add_argument("log")
    p.add_argument("--bot", default=None, help="bot kind (default: as logged)")
    p.add_argument("--human", action="store_true")
    p.add_argument("--transcript", metavar="FILE")
    p.set_defaults(func=cmd_resume, seat_output=True)

    p = sub.add_parser("watch", help="watch a running table from any peer's address, or an online table by its "
                                     "invite code (public view only)")
    p.add_argument("address", metavar="HOST:PORT | CODE")
    p.add_argument("seat", nargs="*", metavar="SEAT", help="with a code: watch from this seat's locator (each "
                   "player of an online table is shown its own) instead of the host's")
    p.add_argument("--relay", metavar="MULTIADDR", help="with a code: reach the host through this relay "
                   "(default: the invite's)")
    p.add_argument("--name", default="spectator")
    p.set_defaults(func=cmd_watch, seat_output=True)
