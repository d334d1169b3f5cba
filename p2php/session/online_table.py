"""Online tables for an embedding (the bridge, the page): host one and hand out its invite code, or join by code.

The same pieces as ``p2php host --online`` / ``p2php join CODE`` (:mod:`p2php.session.online_play`): a libp2p
node per seat of this process (:class:`~p2php.net.online.OnlineSeat`), the lobby served on the host's node,
the invite made by :func:`~p2php.session.online_play.table_invite`; but the person's seat is an
:class:`p2php.api.Peer` (its decisions and events go to the embedding, not to a terminal), and everything is
ready at once (no keyboard). Needs py-libp2p (the ``internet`` extra); importing this module without it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import trio

from p2php import api
from p2php.bots import bot_seed
from p2php.engine.registry import get_game
from p2php.lobby import BOT, HOST, HostLobby, JoinSession, LobbyError, Table, TableView, format_table
from p2php.lobby import join_table as lobby_join
from p2php.net.invite import InviteError, Locator, parse_invite
from p2php.net.online import OnlineSeat
from p2php.session.handshake import LocalSecrets
from p2php.session.online_play import check_relay, table_invite
from p2php.session.runner import Decider, PeerConfig, PeerResult, run_peer

__all__ = ["host_online_table", "join_online_table"]


def host_bot(game: str, kind: str | None, seat: int, delay: float = 0.0) -> Decider:
    """The decider of a bot the host seats at its online table: a fresh secret seed (``bot_seed``), for a bot's
    choices are a function of its seed and its hand, and strangers play at this table (red-team rt5: the public
    ``online/<seat>`` let a joiner foretell, say, every Wild Draw Four challenge of an UNO bot)."""
    return api._bot(game, kind, bot_seed(None, seat), delay)


def host_online_table(
    game: str, *, players: int, on_invite: Callable[[str], None], name: str = "host",
    options: Mapping[str, Any] | None = None, bots: int = 0, bot: str | None = None, relay: str | None = None,
    bind: str = "0.0.0.0", timeout: float = api.DEFAULT_TIMEOUT, transcript_path: str | Path | None = None,
    bot_delay: float = 0.0,
) -> AbstractAsyncContextManager[api.Peer]:
    """Open an online table and take seat 0; ``on_invite(code)`` as soon as the lobby's node is up."""
    relay = check_relay(relay)
    bot_delay = api.check_delay(bot_delay)
    game_name, opts = api._check(game, players, options)
    if bots < 0 or bots + 1 > players:
        raise ValueError(f"{bots} bots and the host need {bots + 1} seats; the table has {players}")

    async def play(peer: api.Peer) -> PeerResult:
        async with trio.open_nursery() as nursery:
            seats: list[tuple[OnlineSeat, LocalSecrets]] = []
            for i in range(1 + bots):
                secrets = LocalSecrets()
                seat = OnlineSeat(secrets, relay, listen=f"/ip4/{bind}/tcp/0", lobby=i == 0)
                try:
                    await nursery.start(seat.run)
                except (OSError, trio.TooSlowError) as err:
                    raise api.PeerFailed(f"cannot open the online table: {err}") from None
                seats.append((seat, secrets))
            table = Table(get_game(game_name), opts, players, name, online=True)
            host = seats[0][0]
            table.seat_local(name, HOST, host.port(), ready=True, addr=host.locator().text())
            for seat, _ in seats[1:]:
                table.seat_local(table.bot_name(), BOT, seat.port(), ready=True, addr=seat.locator().text())
            table.drain_log()
            on_invite(table_invite(host.locator(), table).code())
            try:
                raw = await api._seat_people(peer, HostLobby(table, host.lobby_listener,
                                                              announce=lambda t: peer._emit(api.LobbyNews(t))))
            except LobbyError as err:
                raise api.PeerFailed(str(err)) from None
            addresses = {s: (ip or "127.0.0.1", p) for s, (ip, p) in enumerate(raw)}
            mine: dict[int, PeerResult] = {}

            async def seat_task(index: int) -> None:
                seat, secrets = seats[index]
                cfg = PeerConfig(game_name, opts, players, index, table.names()[index], timeout=timeout,
                                 secrets=secrets, connect=seat.dial, online=seat.settings(),
                                 **(peer._hooks() if index == 0 else {}))
                decide = peer._decide if index == 0 else host_bot(game_name, bot, index, bot_delay)
                own = {**addresses, index: (seat.locator().text(), seat.port())}
                mine[index] = await run_peer(cfg, own, seat.listener, decide, peer._observe if index == 0 else None)

            async with trio.open_nursery() as seating:
                for index in range(len(seats)):
                    seating.start_soon(seat_task, index)
            nursery.cancel_scope.cancel()
        return mine[0]

    return api._serving(play, transcript_path)


def join_online_table(
    code: str, *, name: str = "guest", relay: str | None = None, bind: str = "0.0.0.0",
    timeout: float = api.DEFAULT_TIMEOUT, transcript_path: str | Path | None = None,
) -> AbstractAsyncContextManager[api.Peer]:
    """Sit down at the online table an invite ``code`` names (directly, or through its relay)."""
    try:
        invite = parse_invite(code)
    except InviteError as err:
        raise ValueError(f"that invite code does not read: {err}") from None
    relay = check_relay(relay) or (invite.relays[0] if invite.relays else None)
    host = Locator(invite.peer, invite.addrs, invite.relays)

    async def play(peer: api.Peer) -> PeerResult:
        async with trio.open_nursery() as nursery:
            secrets = LocalSecrets()
            seat = OnlineSeat(secrets, relay, listen=f"/ip4/{bind}/tcp/0")
            try:
                await nursery.start(seat.run)
            except (OSError, trio.TooSlowError) as err:
                raise api.PeerFailed(f"cannot go online: {err}") from None

            def on_table(view: TableView, at: int) -> None:
                for line in format_table(view, at):
                    peer._emit(api.LobbyNews(line))

            try:
                joined = await lobby_join("", 0, JoinSession(name, seat.port(), addr=seat.locator().text()),
                                          ready=True, on_table=on_table, connect=lambda: seat.open_lobby(host))
            except LobbyError as err:
                raise api.PeerFailed(str(err)) from None
            view = joined.view
            game_name, opts = api._check(view.game, view.players, view.options)
            cfg = PeerConfig(game_name, opts, view.players, joined.seat, name, timeout=timeout, secrets=secrets,
                             connect=seat.dial, online=seat.settings(), **peer._hooks())
            own = {**dict(enumerate(joined.addresses)), joined.seat: (seat.locator().text(), seat.port())}
            result = await run_peer(cfg, own, seat.listener, peer._decide, peer._observe)
            nursery.cancel_scope.cancel()
        return result

    return api._serving(play, transcript_path)
