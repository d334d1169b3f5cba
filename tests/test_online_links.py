"""How each online link is carried, told while the game runs (issue 13): a link that forms through a relay
moves onto a direct connection that appears mid-game (as DCUtR makes one), and both seats are told.

In one process on loopback, with a real circuit relay v2 node; skipped where py-libp2p is not installed.
"""

from __future__ import annotations

from functools import partial

import pytest
import trio
from adversarial.silentpath import SilentPath

pytest.importorskip("libp2p", reason="py-libp2p is not installed (pip install 'p2php[internet]')")

from p2php.engine.registry import get_game  # noqa: E402
from p2php.net.invite import Locator  # noqa: E402
from p2php.net.libp2p import RelayLimitsSpec, _lib, serve_relay  # noqa: E402
from p2php.net.online import OnlineSeat  # noqa: E402
from p2php.session.handshake import LocalSecrets  # noqa: E402
from p2php.session.modes import parse_table_options  # noqa: E402
from p2php.session.runner import PeerConfig, bot_decider, run_peer  # noqa: E402


async def test_a_relayed_link_moves_onto_a_hole_punched_connection_mid_game_and_both_seats_are_told() -> None:
    game = get_game("uno")
    options = parse_table_options(game, {"crypto": "fast", "rounds": "1"})
    told: dict[int, list[tuple[int, str]]] = {0: [], 1: []}
    punched = trio.Event()
    drops: list[tuple[int, int, bool]] = []
    async with trio.open_nursery() as nursery:
        relay = await nursery.start(serve_relay, "/ip4/127.0.0.1/tcp/0", RelayLimitsSpec())
        address = f"{relay.get_transport_addrs()[0]}/p2p/{relay.get_id()}"
        secrets = [LocalSecrets(), LocalSecrets()]
        seats = [OnlineSeat(s, address, listen="/ip4/127.0.0.1/tcp/0") for s in secrets]
        for seat in seats:
            await nursery.start(seat.run)
        seats[1].node.punch_on_open = False  # the link forms relayed; a direct connection comes later
        # Only the circuit in the locators: the seats first meet through the relay, as behind two NATs.
        where = {s: Locator(seat.peer, (), (address,)).text() for s, seat in enumerate(seats)}
        addresses = {s: (where[s], 1) for s in where}

        def tell(me: int):  # type: ignore[no-untyped-def]
            def heard(seat: int, how: str) -> None:
                told[me].append((seat, how))
                if me == 0 and how == "hole-punched":
                    punched.set()
            return heard

        bot = [bot_decider(game.make_bot("heuristic", f"t/{s}")) for s in (0, 1)]

        async def first_waits(ls):  # type: ignore[no-untyped-def]
            with trio.fail_after(20):
                await punched.wait()  # the game goes on only once the move happened: a deterministic test
            return await bot[0](ls)

        results = []

        async def play(s: int) -> None:
            relinks_in, relinks = trio.open_memory_channel[int](8)
            nursery.start_soon(seats[s].watch_links, {o: where[o] for o in where if o != s}, tell(s),
                               relinks_in.send_nowait, 0.2)
            cfg = PeerConfig("uno", options, 2, s, f"p{s}", secrets=secrets[s], connect=seats[s].dial,
                             relinks=relinks, on_link=lambda seat, up, _wait: drops.append((s, seat, up)))
            results.append(await run_peer(cfg, addresses, seats[s].listener, first_waits if s == 0 else bot[1]))

        async def connect_directly() -> None:
            """What DCUtR does once its punch (or its first step, a plain dial) succeeds: a direct connection
            appears beside the relayed one. (DCUtR's own rounds do it too, but on loopback its simultaneous
            dials from the listening ports at times collide: "cannot assign requested address".)"""
            peerinfo = _lib("libp2p.peer.peerinfo")
            multiaddr = _lib("multiaddr")
            while (0, "relayed") not in told[1]:
                await trio.sleep(0.05)
            target = seats[0].node.host
            await seats[1].node.host.connect(peerinfo.PeerInfo(
                target.get_id(), [multiaddr.Multiaddr(str(a)) for a in target.get_transport_addrs()]))

        with trio.fail_after(60):
            async with trio.open_nursery() as table:
                table.start_soon(connect_directly)
                for s in (0, 1):
                    table.start_soon(play, s)
        nursery.cancel_scope.cancel()
    assert all(r.lockstep.verdict is not None and r.lockstep.verdict.clean for r in results)
    assert told[0][0] == (1, "relayed") and told[0][-1] == (1, "hole-punched"), told
    assert told[1][0] == (0, "relayed") and told[1][-1] == (0, "hole-punched"), told
    assert drops == []  # the move is no drop: nobody was told a link was lost


async def test_the_api_and_the_bridge_tell_how_each_link_of_a_relayed_libp2p_table_is_carried() -> None:
    """``demo`` with ``"transport": "libp2p-relayed"``: a ``carried`` event per other seat (api.LinkCarried)."""
    import json

    from p2php.bridge import BridgeSession

    out: list[dict[str, object]] = []
    tx, rx = trio.open_memory_channel[str](100)

    async def lines():  # type: ignore[no-untyped-def]
        async for line in rx:
            yield line

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(BridgeSession(out.append).run, lines())
            await tx.send(json.dumps({"op": "demo", "game": "toy", "bots": 2, "seed": 3,
                                      "transport": "libp2p-relayed"}))
            acted = 0
            while not any(e["event"] in ("game_over", "failed") for e in out):
                await trio.sleep(0.01)
                turns = [e for e in out if e["event"] == "your_turn"]
                if len(turns) > acted:
                    await tx.send(json.dumps({"op": "act", "action": turns[-1]["legal"][0]}))  # type: ignore[index]
                    acted += 1
            await tx.send('{"op": "quit"}')
    carried = {(e["seat"], e["name"], e["carried"]) for e in out if e["event"] == "carried"}
    assert carried == {(1, "bot1", "relayed"), (2, "bot2", "relayed")}, out[:6]
    assert next(e for e in out if e["event"] == "game_over")["clean"]


async def test_a_relayed_link_that_breaks_is_told_to_its_far_end_at_once_and_breaks_no_other_link() -> None:
    """Through our relay, seats 1 and 2 each hold a link with seat 0; seat 1's connection to the relay breaks.
    Seat 0 hears at once that its link with seat 1 is gone, and its link with seat 2 carries on both ways.
    (py-libp2p's own relay closed seat 0's newest other circuit instead, and never told seat 0: one broken link
    broke the rest, over and over as they came back.)"""
    async with trio.open_nursery() as nursery:
        relay = await nursery.start(serve_relay, "/ip4/127.0.0.1/tcp/0", RelayLimitsSpec())
        address = f"{relay.get_transport_addrs()[0]}/p2p/{relay.get_id()}"
        seats = [OnlineSeat(LocalSecrets(), address, listen=None) for _ in range(3)]  # every link relayed
        for seat in seats:
            await nursery.start(seat.run)
        zero = Locator(seats[0].peer, (), (address,))
        with trio.fail_after(30):
            one_to_zero = await seats[1].open_mesh(zero)
            zero_with_one = await seats[0].listener.accept()
            two_to_zero = await seats[2].open_mesh(zero)
            zero_with_two = await seats[0].listener.accept()
            await one_to_zero.send_all(b"one")
            assert await zero_with_one.receive_some(16) == b"one"
        await seats[1].node.host.disconnect(relay.get_id())  # seat 1's relay connection breaks
        with trio.fail_after(5):  # told at once, not when a timeout fires
            with pytest.raises(trio.BrokenResourceError):
                while await zero_with_one.receive_some(16):
                    pass
                await zero_with_one.send_all(b"still there?")
        with trio.fail_after(5):
            for _ in range(3):
                await two_to_zero.send_all(b"two")
                assert await zero_with_two.receive_some(16) == b"two"
                await zero_with_two.send_all(b"zero")
                assert await two_to_zero.receive_some(16) == b"zero"
                await trio.sleep(0.3)
        nursery.cancel_scope.cancel()


def _relay_at(port: int, seed: bytes) -> str:
    """The multiaddr a relay keyed from ``seed`` will have on ``port`` (before it runs)."""
    pair = _lib("libp2p.crypto.ed25519").create_new_key_pair(seed)
    return f"/ip4/127.0.0.1/tcp/{port}/p2p/{_lib('libp2p.peer.id').ID.from_pubkey(pair.public_key)}"


async def test_a_seat_that_starts_while_its_relay_restarts_reserves_once_it_is_back() -> None:
    """The relay is away for seconds as the seat goes online: the seat tries again and gets its reservation (three
    tries over two seconds fell inside one restart in the relay soak, and that table never formed)."""
    from test_lobby_cli import free_port  # type: ignore[import-not-found]

    port, seed = free_port(), bytes(range(32))
    async with trio.open_nursery() as nursery:
        async def relay_comes_back() -> None:
            await trio.sleep(6.0)
            await nursery.start(serve_relay, f"/ip4/127.0.0.1/tcp/{port}", RelayLimitsSpec(), seed)

        nursery.start_soon(relay_comes_back)
        seat = OnlineSeat(LocalSecrets(), _relay_at(port, seed), listen=None)
        with trio.fail_after(20):
            await nursery.start(seat.run)
        assert seat.locator().relays
        nursery.cancel_scope.cancel()


async def test_a_relay_that_never_answers_is_one_clear_oserror_not_a_library_exception(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the callers catch (``OSError``) and turn into one line: "the relay … gave no reservation"."""
    from test_lobby_cli import free_port  # type: ignore[import-not-found]

    monkeypatch.setattr("p2php.net.libp2p.RESERVE_PATIENCE", 1.5)  # (it tries for 10 s)

    seat = OnlineSeat(LocalSecrets(), _relay_at(free_port(), bytes(32)), listen=None)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            with pytest.raises(OSError, match="relay"):  # where the callers catch it: around the start
                await nursery.start(seat.run)


async def test_a_seat_dialled_while_it_was_down_is_reached_as_soon_as_it_is_back() -> None:
    """py-libp2p would refuse for a minute to dial a peer whose addresses all failed once; a seat that resumes
    is back in seconds, and the next redial must reach it."""
    from test_lobby_cli import free_port  # type: ignore[import-not-found]

    port, secrets = free_port(), LocalSecrets()
    async with trio.open_nursery() as nursery:
        dialler = OnlineSeat(LocalSecrets(), None, listen="/ip4/127.0.0.1/tcp/0")
        await nursery.start(dialler.run)
        back = OnlineSeat(secrets, None, listen=f"/ip4/127.0.0.1/tcp/{port}")
        where = Locator(back.peer, (f"/ip4/127.0.0.1/tcp/{port}",), ())
        with trio.fail_after(20):
            with pytest.raises(OSError):
                await dialler.open_mesh(where)  # down
            await nursery.start(back.run)
            stream = await dialler.open_mesh(where)  # back: reached at once
            accepted = await back.listener.accept()
            await stream.send_all(b"hello")
            assert await accepted.receive_some(16) == b"hello"
        nursery.cancel_scope.cancel()


async def _dial_until_reached(seat: OnlineSeat, where: Locator) -> trio.abc.HalfCloseableStream:
    """Dial as the mesh does: a refusal ("no reservation" while the seat reserves again) is tried again."""
    while True:
        try:
            return await seat.open_mesh(where)
        except OSError:
            await trio.sleep(0.5)


async def test_a_seat_whose_relay_connection_died_without_a_word_connects_and_reserves_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0 reaches the relay through a path that then goes silent both ways (a home router that forgot its NAT
    mapping): py-libp2p keeps such a connection open until TCP gives up, and the reservation on it reached nobody.
    The seat's ping of the relay goes unanswered, so it closes that connection, connects anew and reserves again;
    seat 1 reaches it through the relay."""
    from test_lobby_cli import free_port  # type: ignore[import-not-found]

    import p2php.net.libp2p as p2p_libp2p

    monkeypatch.setattr(p2p_libp2p, "RELAY_PROBE_EVERY", 1.0)
    monkeypatch.setattr(p2p_libp2p, "RELAY_PROBE_TIMEOUT", 1.0)
    port, seed = free_port(), bytes(range(2, 34))
    address = _relay_at(port, seed)
    path = SilentPath(port)

    async with trio.open_nursery() as nursery:
        await nursery.start(partial(serve_relay, f"/ip4/127.0.0.1/tcp/{port}", RelayLimitsSpec(), seed))
        await nursery.start(path.serve)
        through = address.replace(f"/tcp/{port}/", f"/tcp/{path.port}/")
        seats = [OnlineSeat(LocalSecrets(), through, listen=None), OnlineSeat(LocalSecrets(), address, listen=None)]
        for seat in seats:
            await nursery.start(seat.run)
        dead = seats[0].node._reserved_on
        path.silence()  # seat 0's connection to the relay goes silent; a new one would work
        with trio.fail_after(45):  # (~15 s: the relay's own first tries wait out py-libp2p's 10 s on the dead path)
            stream = await _dial_until_reached(seats[1], Locator(seats[0].peer, (), (address,)))
            accepted = await seats[0].listener.accept()
            await stream.send_all(b"found you")
            assert await accepted.receive_some(16) == b"found you"
        assert seats[0].node._reserved_on is not dead  # seat 0 reserved again, on a new connection
        nursery.cancel_scope.cancel()


async def test_after_a_relay_restart_a_seat_reserves_again_even_if_a_dial_of_its_own_reconnected_it_first() -> None:
    """Connected to the relay is not holding a reservation: the new relay knows none until the seat reserves."""
    from test_lobby_cli import free_port  # type: ignore[import-not-found]

    port, seed = free_port(), bytes(range(1, 33))
    address = _relay_at(port, seed)
    async with trio.open_nursery() as nursery:
        relay_scope = trio.CancelScope()

        async def relay(task_status: trio.TaskStatus[object] = trio.TASK_STATUS_IGNORED) -> None:
            with relay_scope:
                await serve_relay(f"/ip4/127.0.0.1/tcp/{port}", RelayLimitsSpec(), seed, task_status=task_status)

        await nursery.start(relay)
        seats = [OnlineSeat(LocalSecrets(), address, listen=None) for _ in range(2)]
        for seat in seats:
            await nursery.start(seat.run)
        relay_scope.cancel()  # the relay restarts
        await trio.sleep(0.3)
        relay_scope = trio.CancelScope()
        await nursery.start(relay)
        info = _lib("libp2p.peer.peerinfo").info_from_p2p_addr(_lib("multiaddr").Multiaddr(address))
        await seats[0].node.host.connect(info)  # seat 0 is connected again (as a circuit dial of its own would)
        with trio.fail_after(15):
            stream = await _dial_until_reached(seats[1], Locator(seats[0].peer, (), (address,)))
            accepted = await seats[0].listener.accept()
            await stream.send_all(b"found you")
            assert await accepted.receive_some(16) == b"found you"
        nursery.cancel_scope.cancel()


def test_the_host_comes_back_from_its_resume_log_while_a_spectator_watches_from_the_joiners_seat(
        tmp_path: object) -> None:
    """Through a loopback relay, every seat listening nowhere else: the host's process is killed mid-game and
    ``p2php resume`` brings the host's seat back under the same peer id (the joiner redials it through the
    relay); a spectator watches the whole game from the joiner's seat (its locator, not the code's host)."""
    import re
    import subprocess

    from test_online import P2PHP, finish, started, wait_for  # type: ignore[import-not-found]

    log = f"{tmp_path}/host.resume"
    with started("relay", "--bind", "127.0.0.1", "--port", "0", until=r"--relay /ip4/") as (_, line):
        address = line.split("--relay ", 1)[1]
        host_args = ["host", "uno", "--option", "crypto=fast", "--option", "rounds=3", "--players", "2",
                     "--name", "hana", "--online", "--relay", address, "--relay-only", "--auto", "--resume-log", log]
        with started(*host_args, until=r"^\s*p2php-") as (host, code), \
                started("join", code, "--name", "ann", "--auto", "--relay-only",
                        until=r"^Spectators may also watch from your seat") as (ann, seat_line):
            locator = seat_line.split(" CODE ", 1)[1].strip("'")
            with started("watch", code, locator, "--name", "eve", until=None) as (watcher, _):
                wait_for(host, r"^hana: plays")
                host.kill()  # mid-game, its resume log on disk; ann waits for it
                host.wait(10)
                back = subprocess.run([*P2PHP, "resume", log], capture_output=True, text=True, timeout=120)
                joined = finish(ann)
                watched = finish(watcher)
    assert back.returncode == 0, back.stdout[-2000:] + back.stderr
    assert "resumed seat 0" in back.stdout
    codes = set()
    for out in (back.stdout, joined, watched):
        assert "audit: clean" in out, out[-2000:]
        codes.add(re.search(r"safety code: (\S+)", out).group(1))  # type: ignore[union-attr]
    assert len(codes) == 1


async def test_with_the_upnp_extra_a_seat_asks_the_router_for_a_port_mapping_and_says_what_it_got() -> None:
    """No router answers UPnP on a test machine: one line says so, and the seat plays on as before."""
    pytest.importorskip("miniupnpc", reason="the upnp extra (miniupnpc) is not installed: pip install 'p2php[upnp]'")
    async with trio.open_nursery() as nursery:
        seat = OnlineSeat(LocalSecrets(), None, listen="/ip4/127.0.0.1/tcp/0")
        await nursery.start(seat.run)
        line = await seat.map_port(timeout=8)
        nowhere = "/ip4/127.0.0.1/tcp/1/p2p/12D3KooWBQUEx3M9K4pNErWfAfEyoE65Q1z7Y4q2n7w3PMdzNApT"
        relay_only = OnlineSeat(LocalSecrets(), nowhere, listen=None)
        assert await relay_only.map_port() is None  # it listens nowhere: nothing to map
        nursery.cancel_scope.cancel()
    assert line is not None and line.startswith("UPnP: ") and seat.upnp is None, line


async def test_the_terminal_keeps_one_line_of_link_states_and_shows_it_in_the_table_view() -> None:
    import io

    from p2php.session.local_net import run_local_table
    from p2php.terminal import TerminalUI

    out = io.StringIO()
    ui = TerminalUI(out=out, colour=False, tty=False)
    ui.link_carried(2, "cy", "relayed")
    ui.link_carried(1, "ann", "direct")
    ui.link_carried(2, "cy", "hole-punched")
    assert out.getvalue().splitlines() == ["links now: seat 2 (cy) relayed",
                                           "links now: seat 1 (ann) direct · seat 2 (cy) relayed",
                                           "links now: seat 1 (ann) direct · seat 2 (cy) hole-punched"]
    out.truncate(0)
    out.seek(0)
    ui.auto_forced, ui.ask = False, lambda _prompt: "1"
    with trio.fail_after(30):
        await run_local_table("toy", 2, [ui.decide, bot_decider(get_game("toy").make_bot("random", "t"))], seed=5,
                              observe=ui.observe)
    view = out.getvalue().split("Your view", 1)[1]
    assert "links now: seat 1 (ann) direct · seat 2 (cy) hole-punched" in view.split("▶", 1)[0]
