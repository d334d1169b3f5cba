"""The bridge's online tables: ``host_online`` hands out an invite code, ``join_online`` sits down by it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import trio

from p2php.bridge import BridgeSession
from p2php.net.invite import parse_invite


async def drive(session: BridgeSession, commands: trio.MemoryReceiveChannel[str]) -> None:
    async def lines() -> Any:
        async for line in commands:
            yield line

    await session.run(lines())


async def replies(*commands: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drive, BridgeSession(out.append), rx)
        for cmd in commands:
            await tx.send(json.dumps(cmd))
        await tx.send('{"op": "quit"}')
    return out[1:-1]


async def test_online_ops_check_their_fields_before_anything_goes_online() -> None:
    pytest.importorskip("libp2p")
    out = await replies({"op": "join_online", "id": 1}, {"op": "join_online", "code": "p2php-nonsense"},
                        {"op": "join_online", "code": 7}, {"op": "host_online", "relay": "203.0.113.7:4001"},
                        {"op": "host_online", "game": "chess"}, {"op": "host_online", "bots": 2, "players": 2})
    assert [e["event"] for e in out] == ["error"] * 6
    assert out[0]["id"] == 1 and "'code'" in out[0]["message"]
    assert "invite code does not read" in out[1]["message"] and "str" in out[2]["message"]
    assert "/p2p/RELAY_ID" in out[3]["message"] and "chess" in out[4]["message"]
    assert "2 bots" in out[5]["message"]


async def test_without_py_libp2p_an_online_op_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "p2php.session.online_table", None)  # what a missing libp2p import gives
    out = await replies({"op": "host_online"}, {"op": "join_online", "code": "p2php-x"})
    assert [e["event"] for e in out] == ["error", "error"]
    assert all("p2php[internet]" in e["message"] for e in out)


@pytest.fixture
def relay() -> Any:
    """A ``p2php relay`` on loopback: its ``--relay`` address."""
    proc = subprocess.Popen([sys.executable, "-m", "p2php.cli", "relay", "--bind", "127.0.0.1", "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        address = next(line.split("--relay ", 1)[1].strip() for line in proc.stdout if "--relay " in line)
        yield address
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("through", ["direct", "relay"])
async def test_a_page_hosts_online_and_another_joins_by_the_invite_code(through: str,
                                                                      request: pytest.FixtureRequest) -> None:
    """Two bridge sessions (two pages) on loopback, directly or through a local relay: the host's invite,
    the guest's join, a clean game."""
    pytest.importorskip("libp2p")
    relay = request.getfixturevalue("relay") if through == "relay" else None
    host_out: list[dict[str, Any]] = []
    guest_out: list[dict[str, Any]] = []
    host_tx, host_rx = trio.open_memory_channel[str](100)
    guest_tx, guest_rx = trio.open_memory_channel[str](100)

    async def play(out: list[dict[str, Any]], tx: trio.MemorySendChannel[str]) -> None:
        acted = 0
        while not any(e["event"] in ("game_over", "failed") for e in out):
            await trio.sleep(0.02)
            turns = [e for e in out if e["event"] == "your_turn"]
            if len(turns) > acted:
                acted = len(turns)
                await tx.send(json.dumps({"op": "act", "index": 0}))

    with trio.fail_after(40):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drive, BridgeSession(host_out.append), host_rx)
            nursery.start_soon(drive, BridgeSession(guest_out.append), guest_rx)
            await host_tx.send(json.dumps({"op": "host_online", "game": "toy", "players": 3, "bots": 1,
                                           "bind": "127.0.0.1", "relay": relay, "id": "h"}))
            while not any(e["event"] in ("invite", "error") for e in host_out):
                await trio.sleep(0.02)
            invite = next(e for e in host_out if e["event"] in ("invite", "error"))
            assert invite["event"] == "invite", invite
            assert (relay is None) == (parse_invite(invite["code"]).relays == ())
            await guest_tx.send(json.dumps({"op": "join_online", "code": invite["code"], "name": "guest",
                                            "bind": "127.0.0.1"}))
            async with trio.open_nursery() as players:
                players.start_soon(play, host_out, host_tx)
                players.start_soon(play, guest_out, guest_tx)
            await host_tx.send('{"op": "quit"}')
            await guest_tx.send('{"op": "quit"}')
    for out in (host_out, guest_out):
        assert not [e for e in out if e["event"] in ("error", "failed")], out
        over = next(e for e in out if e["event"] == "game_over")
        assert over["clean"]
    started = next(e for e in guest_out if e["event"] == "started")
    assert started["seat"] == 2 and started["names"][2] == "guest" and host_out[1] == {"event": "ok",
                                                                                      "op": "host_online", "id": "h"}


async def test_a_bridge_joins_a_cli_hosts_invite_code() -> None:
    """The CLI's lobby: ``p2php host --online --auto`` and a bridge's ``join_online`` play to a clean end."""
    pytest.importorskip("libp2p")
    host = await trio.lowlevel.open_process(
        [sys.executable, "-m", "p2php.cli", "host", "uno", "--option", "crypto=fast", "--option", "rounds=1",
         "--players", "2", "--online", "--advertise", "127.0.0.1", "--bind", "127.0.0.1", "--auto"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out: list[dict[str, Any]] = []
    tx, rx = trio.open_memory_channel[str](100)
    try:
        assert host.stdout is not None
        seen = b""
        with trio.fail_after(30):
            while b"p2php-" not in seen or not seen.split(b"p2php-", 1)[1].count(b"\n"):
                chunk = await host.stdout.receive_some()
                assert chunk, seen.decode()
                seen += chunk
        code = "p2php-" + seen.split(b"p2php-", 1)[1].split(b"\n", 1)[0].decode().strip()
        with trio.fail_after(40):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(drive, BridgeSession(out.append), rx)
                await tx.send(json.dumps({"op": "join_online", "code": code, "bind": "127.0.0.1"}))
                acted = 0
                while not any(e["event"] in ("game_over", "failed", "error") for e in out):
                    await trio.sleep(0.02)
                    turns = [e for e in out if e["event"] == "your_turn"]
                    if len(turns) > acted:
                        acted = len(turns)
                        await tx.send(json.dumps({"op": "act", "index": 0}))
                await tx.send('{"op": "quit"}')
            assert await host.wait() == 0
    finally:
        if host.returncode is None:
            host.kill()
            await host.wait()
    over = next(e for e in out if e["event"] in ("game_over", "failed", "error"))
    assert over["event"] == "game_over" and over["clean"], out
