"""A rogue peer for attack tests: an unmodified p2php peer whose outgoing frames a policy rewrites.

The rogue runs the real runner and lockstep (so it stays in step with the table),
but every frame it would send passes through ``policy(frame, to)``, which returns
the frames that really go to seat ``to``: the same frame, nothing (withhold), two
copies (duplicate), another frame (replace: :meth:`Rogue.sign` re-signs a forged
message with the rogue's own key), and each with a delay.  So one policy can
send different stop/continue messages to different peers, stop towards only
some of them, or flood.

It works by wrapping the mesh :func:`p2php.session.runner.run_peer` opens, for
the rogue's seat only; nothing in p2php knows about it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from p2php.net import mesh as mesh_module
from p2php.net.framing import encode_frame
from p2php.session import runner as runner_module
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.messages import signing_bytes
from p2php.session.runner import Decider, PeerConfig, PeerResult, run_peer

Out = list[tuple[float, dict[str, Any]]]
"""What a policy sends to one seat: ``(delay in seconds, frame)`` pairs, in order."""
Policy = Callable[["Rogue", dict[str, Any], int], Out]


def honest(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
    """The policy of a peer that cheats in nothing."""
    return [(0.0, frame)]


@dataclass
class Rogue:
    """The cheating seat: its secrets, its lockstep (once known) and what it did."""

    seat: int
    secrets: LocalSecrets
    policy: Policy = honest
    ls: Lockstep | None = None
    log: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (to, frame) actually sent
    received: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (from, frame) that reached it
    state: dict[str, Any] = field(default_factory=dict)  # for the policy's own bookkeeping

    def sign(self, frame: dict[str, Any]) -> dict[str, Any]:
        """``frame`` with a valid signature by the rogue (a forged message it may send)."""
        assert self.ls is not None, "the rogue's lockstep is known once the mesh is formed"
        fields = {k: v for k, v in frame.items() if k not in ("sig", "att")}  # a pass's points are not signed (v8)
        att = {"att": frame["att"]} if "att" in frame else {}
        return {**fields, **att, "sig": self.secrets.identity.sign(signing_bytes(self.ls.session_id, fields))}


class RogueMesh:
    """A :class:`~p2php.net.mesh.Mesh` whose outgoing frames go through the rogue's policy."""

    def __init__(self, inner: mesh_module.Mesh, rogue: Rogue) -> None:
        self._inner = inner
        self._rogue = rogue
        self._nursery: trio.Nursery | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> RogueMesh:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        return await self._inner.__aexit__(*exc)

    def receive(self) -> AsyncIterator[Any]:
        """The mesh's events, each frame noted in ``rogue.received`` on its way to the rogue's own runner."""
        return self._tapped()

    async def _tapped(self) -> AsyncIterator[Any]:
        async for event in self._inner.receive():
            if isinstance(event, mesh_module.Frame):
                self._rogue.received.append((event.seat, event.frame))
            yield event

    async def broadcast(self, frame: dict[str, Any], seats: list[int] | None = None) -> None:
        for seat in self._inner.seats if seats is None else seats:
            await self.send(seat, frame)

    async def send(self, seat: int, frame: dict[str, Any]) -> None:
        for delay, out in self._rogue.policy(self._rogue, frame, seat):
            if delay <= 0:
                await self._send_now(seat, out)
            else:
                trio.lowlevel.spawn_system_task(self._send_later, seat, out, delay)
        await trio.lowlevel.checkpoint()

    async def _send_now(self, seat: int, frame: dict[str, Any]) -> None:
        self._rogue.log.append((seat, frame))
        # Bypass encode_frame's own checks only as far as the wire allows: the frame must still fit.
        peer = self._inner._peers.get(seat)
        if peer is not None:
            peer.queue(encode_frame(frame, self._inner.max_frame))

    async def _send_later(self, seat: int, frame: dict[str, Any], delay: float) -> None:
        await trio.sleep(delay)
        with contextlib.suppress(Exception):
            await self._send_now(seat, frame)


@contextlib.contextmanager
def rogue_mesh(rogue: Rogue) -> Iterator[None]:
    """While active, the mesh that ``run_peer`` opens for the rogue's seat is a :class:`RogueMesh`."""
    real = runner_module.open_mesh

    async def opened(seat: int, *args: Any, **kwargs: Any) -> Any:
        mesh = await real(seat, *args, **kwargs)
        return RogueMesh(mesh, rogue) if seat == rogue.seat else mesh

    runner_module.open_mesh = opened  # type: ignore[assignment]
    try:
        yield
    finally:
        runner_module.open_mesh = real


async def run_table_with_rogue(
    game: str,
    players: int,
    deciders: Sequence[Decider],
    rogue: Rogue,
    options: dict[str, Any] | None = None,
    seed: int = 1,
    timeout: float = 3.0,
    resume_timeout: float = 6.0,
    transcripts: Path | None = None,
    limit: float = 60.0,
    linger: float = 2.0,
    ended: dict[int, float] | None = None,
) -> list[PeerResult | None]:
    """Every seat an independent peer over real loopback sockets, one of them the rogue.

    ``linger``: each peer's :attr:`~p2php.session.runner.PeerConfig.linger`; ``ended``, if given, gets each seat's
    ``trio.current_time()`` when its ``run_peer`` returned (how long a seat stayed after its verdict)."""
    listeners = [await mesh_module.listen("127.0.0.1", 0) for _ in range(players)]
    addresses = {s: ("127.0.0.1", mesh_module.listener_port(listeners[s])) for s in range(players)}
    results: list[PeerResult | None] = [None] * players

    def watch_rogue(ls: Lockstep, _lines: list[str]) -> None:
        rogue.ls = ls

    async def one(seat: int) -> None:
        secrets = rogue.secrets if seat == rogue.seat else seeded_secrets(seed, seat)
        cfg = PeerConfig(game, dict(options or {}), players, seat, f"peer{seat}", timeout=timeout,
                         resume_timeout=resume_timeout, secrets=secrets, linger=linger,
                         transcript_path=None if transcripts is None else transcripts / f"seat{seat}.p2php")
        try:
            results[seat] = await run_peer(cfg, addresses, listeners[seat], deciders[seat],
                                           watch_rogue if seat == rogue.seat else None)
            if ended is not None:
                ended[seat] = trio.current_time()
        finally:
            await listeners[seat].aclose()

    with rogue_mesh(rogue), trio.fail_after(limit):
        async with trio.open_nursery() as nursery:
            for seat in range(players):
                nursery.start_soon(one, seat)
    return results


def make_rogue(seat: int, policy: Policy, seed: int = 1) -> Rogue:
    return Rogue(seat, seeded_secrets(seed, seat), policy)
