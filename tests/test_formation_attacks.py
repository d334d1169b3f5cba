"""Hellos at the mesh's formation: only a proven link's hello stands for its seat (protocol.md §3.2).

A seat judged a newcomer's hello before its link proof, and kept it even when the proof then failed: an outsider
holding no seat key sent a made-up hello for a seat already linked, was refused, and the table was built from its
hello all the same; that seat then signed under another session than everyone else, and every seat convicted an
honest one. At a rematch a seat's second, vouched hello did the same. Now the table is built from the hellos the
proven links presented, and a seat already linked with one hello is refused another.
"""

from __future__ import annotations

from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.engine.registry import get_game
from p2php.net.framing import encode_frame
from p2php.net.mesh import LinkSetup, _Peer, listen, listener_port
from p2php.net.transport import tcp_dial
from p2php.session.handshake import LocalSecrets, make_hello
from p2php.session.local_net import run_local_table
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.modes import parse_table_options
from p2php.session.rematch import Rematch
from p2php.session.runner import PeerConfig, bot_decider, run_peer

PLAYERS = 3
FRAME = 1 << 22


async def _unproven_handshake(address: tuple[str, int], hello: dict[str, Any]) -> dict[str, Any] | None:
    """Present ``hello`` to the listener at ``address`` with an empty link proof; the verdict it answers."""
    peer = _Peer(await tcp_dial(*address), FRAME)
    await peer.write(encode_frame(hello, FRAME))
    theirs = await peer.read_frame()
    assert theirs is not None
    setup = LinkSetup(hello, theirs, True, None, ())
    await peer.write(encode_frame(setup.challenge(), FRAME))
    await peer.read_frame()
    await peer.write(encode_frame({"proof": b""}, FRAME))
    await peer.read_frame()
    await peer.write(encode_frame({"mesh": "ok"}, FRAME))
    verdict = await peer.read_frame()
    await peer.stream.aclose()
    return verdict


async def _table(stranger: Any, rematch_of: list[Lockstep] | None = None) -> list[Lockstep]:
    """Three seats (seat 2 a second late, so the mesh is still forming) and ``stranger(addresses)`` at 0.5 s."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(PLAYERS)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(PLAYERS)}
    done: dict[int, Lockstep] = {}
    late = 1 if rematch_of is not None else 2

    async def seat(s: int) -> None:
        await trio.sleep(1.0 if s == late else 0)
        cfg = PeerConfig("uno", {"rounds": 1}, PLAYERS, s, f"bot{s}", secrets=seeded_secrets("form", s), timeout=5,
                         resume_timeout=5, linger=1,
                         rematch=None if rematch_of is None else Rematch.of(rematch_of[s]))
        done[s] = (await run_peer(cfg, addresses, listeners[s], bot_decider(RandomBot(s)))).lockstep

    with trio.fail_after(180):
        async with trio.open_nursery() as nursery:
            for s in range(PLAYERS):
                nursery.start_soon(seat, s)
            await trio.sleep(0.5)
            await stranger(addresses)
    return [done[s] for s in range(PLAYERS)]


async def test_an_outsider_cannot_change_a_linked_seats_hello_and_have_honest_seats_convicted() -> None:
    """No seat key, only the public game: a hello claiming seat 1 under the outsider's own key, shown to seat 0
    after seat 1's real link formed. Before, every seat convicted an honest one (`bad_message`)."""
    told: list[Any] = []

    async def outsider(addresses: dict[int, tuple[str, int]]) -> None:
        options = parse_table_options(get_game("uno"), {"rounds": 1})
        told.append(await _unproven_handshake(addresses[0], make_hello(LocalSecrets(), 1, PLAYERS, "uno", options,
                                                                       "bot1")))

    seats = await _table(outsider)
    assert told and told[0] is not None and told[0].get("mesh") == "reject"
    assert len({ls.session_id for ls in seats}) == 1
    for ls in seats:
        assert ls.verdict is not None and ls.verdict.clean, ls.verdict


async def test_a_rematch_seat_cannot_show_a_second_vouched_hello_and_have_an_honest_seat_convicted() -> None:
    """Seat 2 (holding its old seat key) links to seat 0 with one vouched hello, then shows it another, vouched
    for the same rematch, with no proof. Before, seat 0 played under that hello's session and seats 1 and 2
    convicted honest seat 0."""
    first = await run_local_table("uno", PLAYERS, [bot_decider(RandomBot(s)) for s in range(PLAYERS)], seed=1,
                                  timeout=5, options={"rounds": 1})
    old = [r.lockstep for r in first]

    async def second_vouch(addresses: dict[int, tuple[str, int]]) -> None:
        other = LocalSecrets()
        options = parse_table_options(get_game("uno"), {"rounds": 1})
        hello = make_hello(other, 2, PLAYERS, "uno", options, "bot2", {"rematch": Rematch.of(old[2]).vouch(other)})
        await _unproven_handshake(addresses[0], hello)

    seats = await _table(second_vouch, rematch_of=old)
    assert len({ls.session_id for ls in seats}) == 1
    for ls in seats:
        assert ls.verdict is not None and ls.verdict.clean, ls.verdict
