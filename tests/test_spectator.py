"""A spectator joins a running table and sees only public information, live."""

from __future__ import annotations

import trio

from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.runner import PeerConfig, PeerResult, bot_decider, run_peer
from p2php.session.spectator import watch


async def test_spectator_follows_the_game_and_sees_no_private_card() -> None:
    players = 3
    listeners = [await listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(players)}
    results: dict[int, PeerResult] = {}
    started = trio.Event()
    seen: list[int] = []

    def observe(ls: Lockstep, _: list[str]) -> None:
        if ls.tick >= 5:
            started.set()

    async def play(seat: int) -> None:
        cfg = PeerConfig("uno", {"rounds": 1}, players, seat, f"p{seat}", timeout=10.0,
                         secrets=seeded_secrets(3, seat))
        bot = bot_decider(get_game("uno").make_bot("heuristic", seat))
        results[seat] = await run_peer(cfg, addresses, listeners[seat], bot, observe if seat == 0 else None)

    async def spectate() -> None:
        await started.wait()  # join a game that is already running
        ls = await watch("127.0.0.1", addresses[0][1], observe=lambda ls: seen.append(ls.tick))
        results[-1] = PeerResult(ls, 0.0, 0.0, 0, 0, 0)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat in range(players):
                nursery.start_soon(play, seat)
            nursery.start_soon(spectate)
    spectator = results[-1].lockstep
    assert spectator.seat is None and spectator.finished
    assert spectator.verdict is not None and spectator.verdict.clean
    assert spectator.verdict.state_hash == results[0].lockstep.verdict.state_hash  # type: ignore[union-attr]
    assert spectator.private_faces == {}
    # it saw hands only as public faces: every face it knows was opened to all
    peer = results[0].lockstep
    assert set(spectator.public_faces) <= set(peer.public_faces)
    assert len(seen) > 10  # live, step by step
