"""A spectator whose watched seat dies in the audit and resumes is shown the table's verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import toygame  # noqa: F401  (registers "toy")
import trio
from adversarial.faultproxy import toy_deciders
from adversarial.rogue import Out, Rogue, make_rogue, rogue_mesh

from p2php.engine.registry import get_game
from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import PeerConfig, PeerResult, bot_decider, run_peer
from p2php.session.spectator import keep_watching, watch

OPTIONS = {"rounds": 1, "deck": "magic"}


def _cfg(seat: int, tmp: Path, secrets: LocalSecrets) -> PeerConfig:
    return PeerConfig("uno", OPTIONS, 3, seat, f"p{seat}", timeout=5.0, resume_timeout=20.0, secrets=secrets,
                      resume_path=tmp / f"seat{seat}.resume")


async def test_a_spectator_whose_seat_dies_in_the_audit_and_resumes_gets_the_tables_verdict(tmp_path: Path) -> None:
    """Seat 1, watched, dies as soon as its spectator is in the audit and resumes from its log: the spectator links
    again and ends with the seats' clean verdict (it had closed its audit at once with what it held, naming a seat's
    audit missing; and the resumed seat, knowing of no spectator, left before one could link again)."""
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, PeerResult] = {}
    crash = trio.CancelScope()
    watched: list[Lockstep] = []
    said: list[str] = []

    def observe(ls: Lockstep) -> None:
        if ls.auditing and not ls.finished and not crash.cancel_called:
            crash.cancel()  # seat 1's process "dies" as its spectator is in the audit

    async def play(seat: int) -> None:
        bot = bot_decider(get_game("uno").make_bot("heuristic", seat))
        results[seat] = await run_peer(_cfg(seat, tmp_path, seeded_secrets(8, seat)), addresses, listeners[seat], bot)

    async def victim() -> None:
        bot = bot_decider(get_game("uno").make_bot("heuristic", 1))
        with crash:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(8, 1)), addresses, listeners[1], bot)
        assert crash.cancelled_caught, "the game ended before the crash"
        await listeners[1].aclose()
        await trio.sleep(0.5)
        header, ls = restore(tmp_path / "seat1.resume")
        relisten = await listen("127.0.0.1", addresses[1][1])
        cfg = _cfg(1, tmp_path, LocalSecrets(master=header["master"]))
        results[1] = await run_peer(cfg, addresses, relisten, bot, restored=ls)
        await relisten.aclose()

    async def spectate() -> None:
        async def attempt(show: Any) -> Lockstep:
            return await watch("127.0.0.1", addresses[1][1], observe=lambda ls: (show(ls), observe(ls)))
        watched.append(await keep_watching(attempt, lambda ls: None, said.append, first_patience=30, patience=30,
                                           pause=0.5))

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0)
            nursery.start_soon(victim)
            nursery.start_soon(play, 2)
            await trio.sleep(0.3)
            nursery.start_soon(spectate)
    verdicts = [results[s].lockstep.verdict for s in range(3)]
    assert all(v is not None and v.clean for v in verdicts), verdicts
    spectator = watched[0]
    assert spectator.finished and spectator.verdict is not None, said
    assert spectator.verdict.clean, (spectator.verdict, said)
    assert spectator.verdict.state_hash == verdicts[0].state_hash  # type: ignore[union-attr]


async def test_a_spectator_of_a_seat_that_left_with_reveals_missing_closes_its_audit_at_once(tmp_path: Path) -> None:
    """Seat 1 withholds its audit (and says nothing more, its links up); seat 0, watched, names it at its audit
    deadline and leaves. Its spectator, whose record lacks seat 1's reveals, is told the seat left with its verdict
    ({"watch": "end"}) and closes its audit at once, naming nobody: it had taken the link's end for a seat that died
    in the reveals and linked again to a seat gone for good, for its whole patience."""

    def mute_from_audit(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        rogue.state["mute"] = rogue.state.get("mute") or frame.get("kind") == "audit"
        return [] if rogue.state["mute"] else [(0.0, frame)]

    rogue = make_rogue(1, mute_from_audit, seed=2)
    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    deciders = toy_deciders(3, 2)
    results: dict[int, PeerResult] = {}
    left: dict[str, float] = {}
    watched: list[Lockstep] = []
    said: list[str] = []

    async def one(seat: int) -> None:
        cfg = PeerConfig("toy", {}, 3, seat, f"p{seat}", timeout=1.5, resume_timeout=6.0,
                         linger=30.0 if seat == 1 else 1.0,  # (the rogue stays: seat 0 names it refused_audit)
                         secrets=rogue.secrets if seat == 1 else seeded_secrets(2, seat))
        try:
            results[seat] = await run_peer(cfg, addresses, listeners[seat], deciders[seat])
            left[f"seat {seat}"] = trio.current_time()
        finally:
            await listeners[seat].aclose()

    async def spectate() -> None:
        async def attempt(show: Any) -> Lockstep:
            return await watch("127.0.0.1", addresses[0][1], observe=show)
        watched.append(await keep_watching(attempt, lambda ls: None, said.append, patience=20, pause=0.5))
        left["spectator"] = trio.current_time()

    with rogue_mesh(rogue), trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat in range(3):
                nursery.start_soon(one, seat)
            await trio.sleep(0.2)
            nursery.start_soon(spectate)
    seat0 = results[0].lockstep.verdict
    assert seat0 is not None and seat0.culprit == 1 and seat0.code == "refused_audit", seat0
    spectator = watched[0]
    assert spectator.finished and spectator.verdict is not None, said
    assert spectator.verdict.culprit is None and spectator.verdict.code == "refused_audit", spectator.verdict
    assert left["spectator"] - left["seat 0"] < 5.0, (left, said)
