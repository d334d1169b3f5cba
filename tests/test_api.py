"""The embedding API (p2php.api) inside a trio program: real peers, real loopback sockets."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from p2php import api
from p2php.net.mesh import listen, listener_port

Policy = Callable[[api.YourTurn], api.Action | int]


async def play_out(peer: api.Peer, policy: Policy = lambda turn: 0) -> list[api.PeerEvent]:
    """Consume the peer's events to the end, answering every turn with ``policy``."""
    seen: list[api.PeerEvent] = []
    async for event in peer.events():
        seen.append(event)
        if isinstance(event, api.YourTurn):
            await peer.submit(policy(event))
    return seen


async def test_local_uno_game_through_the_api(tmp_path: Path) -> None:
    async with api.local_table("uno", bots=2, options={"rounds": 1}, seed=5, name="ann") as peer:
        assert not peer.started
        with pytest.raises(api.NotStarted):
            peer.view()
        events: list[api.PeerEvent] = []
        checked = False
        async for event in peer.events():
            events.append(event)
            if isinstance(event, api.YourTurn):
                assert peer.is_my_turn() and peer.legal_actions() == event.legal
                assert len(event.labels) == len(event.legal) and event.view["seat"] == 0
                if not checked:
                    checked = True
                    with pytest.raises(api.IllegalAction, match="bogus"):
                        await peer.submit({"type": "bogus"})
                    with pytest.raises(api.IllegalAction, match="does not exist"):
                        await peer.submit(len(event.legal))
                    with pytest.raises(api.IllegalAction, match="dict"):
                        await peer.submit("play")  # type: ignore[arg-type]
                    assert peer.is_my_turn()  # a refused action leaves the turn open
                await peer.submit(event.legal[-1])
                assert not peer.is_my_turn() and peer.legal_actions() == []
                with pytest.raises(api.NotYourTurn):
                    await peer.submit(0)
        result = await peer.wait()
    started = events[0]
    assert isinstance(started, api.Started) and started.names == ("ann", "bot1", "bot2") and started.seat == 0
    over = events[-1]
    assert isinstance(over, api.Finished) and over.clean and over.result is not None
    assert "audit: clean" in over.text()
    steps = [e for e in events if isinstance(e, api.StepResolved)]
    deals = [e for e in steps if e.kind == "deal" and e.received]
    assert deals and len(deals[0].received) == 7  # our own starting hand, and only ours
    assert all(c.name for c in deals[0].received)
    assert any(e.kind == "decide" and e.actions for e in steps)
    assert result.lockstep.verdict is not None and result.lockstep.verdict.clean

    path = peer.save_transcript(tmp_path / "ann.p2php")
    info = api.load_transcript(path)
    assert info.game == "uno" and info.seat == 0 and info.names == ("ann", "bot1", "bot2")
    check = api.verify_transcript(path)
    assert check.ok and check.state_hash == result.lockstep.verdict.state_hash


async def test_two_embedded_peers_with_explicit_addresses(tmp_path: Path) -> None:
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    results: dict[int, list[api.PeerEvent]] = {}

    async def seat(s: int) -> None:
        async with api.start_peer("toy", players=2, seat=s, addresses=addresses, listener=listeners[s],
                                  name=f"p{s}", transcript_path=tmp_path / f"p{s}.p2php") as peer:
            results[s] = await play_out(peer, lambda turn: len(turn.legal) - 1)

    async with trio.open_nursery() as nursery:
        for s in range(2):
            nursery.start_soon(seat, s)
    for listener in listeners:
        await listener.aclose()  # ours: the API never closes a listener it was given
    overs = [results[s][-1] for s in range(2)]
    assert all(isinstance(o, api.Finished) and o.clean for o in overs)
    hashes = {o.verdict.state_hash for o in overs if isinstance(o, api.Finished) and o.verdict is not None}
    assert len(hashes) == 1
    # The toy game privately shows one card to one seat: it arrives as "received" only there.
    shows = [e for s in range(2) for e in results[s] if isinstance(e, api.StepResolved) and e.kind == "show"]
    assert len(shows) == 2 and sum(1 for e in shows if e.received) == 1
    assert all(api.verify_transcript(tmp_path / f"p{s}.p2php").ok for s in range(2))


async def test_start_peer_listens_by_itself_when_given_no_listener() -> None:
    probe = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(probe[s])) for s in range(2)}
    for listener in probe:
        await listener.aclose()  # free the ports: seat 0 must open its own
    outcome: dict[int, api.PeerEvent] = {}

    async def seat(s: int) -> None:
        async with api.start_peer("toy", players=2, seat=s, addresses=addresses) as peer:
            outcome[s] = (await play_out(peer))[-1]

    async with trio.open_nursery() as nursery:
        for s in range(2):
            nursery.start_soon(seat, s)
    assert all(isinstance(outcome[s], api.Finished) for s in range(2)), outcome


async def test_host_and_join_through_the_lobby() -> None:
    outcome: dict[str, list[api.PeerEvent]] = {}
    port: list[int] = []
    opened = trio.Event()

    async def host() -> None:
        async with api.host_table("toy", players=3, bots=1, name="hermione", port=0, bind="127.0.0.1") as peer:
            seen: list[api.PeerEvent] = []
            async for event in peer.events():
                seen.append(event)
                if isinstance(event, api.TableOpen):
                    port.append(event.port)
                    opened.set()
                elif isinstance(event, api.YourTurn):
                    await peer.submit(0)
            outcome["host"] = seen

    async def guest() -> None:
        await opened.wait()
        async with api.join_table(("127.0.0.1", port[0]), name="ron", bind="127.0.0.1") as peer:
            outcome["guest"] = await play_out(peer)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
    for who in ("host", "guest"):
        events = outcome[who]
        assert isinstance(events[-1], api.Finished) and events[-1].clean, (who, events[-1])
        started = next(e for e in events if isinstance(e, api.Started))
        assert started.names[0] == "hermione" and "ron" in started.names and started.players == 3
    assert any(isinstance(e, api.LobbyNews) for e in outcome["host"])
    assert next(e for e in outcome["guest"] if isinstance(e, api.Started)).seat == 2


async def test_an_unreachable_table_is_a_failed_event_not_an_exception() -> None:
    probe = await listen("127.0.0.1", 0)
    port = listener_port(probe)
    await probe.aclose()
    async with api.join_table(f"127.0.0.1:{port}", name="neville", bind="127.0.0.1") as peer:
        events = [e async for e in peer.events()]
        with pytest.raises(api.PeerFailed, match="cannot reach"):
            await peer.wait()
    assert len(events) == 1 and isinstance(events[0], api.Failed) and "cannot reach" in events[0].message


async def test_bad_options_fail_the_table_with_the_reason() -> None:
    async with api.local_table("uno", bots=1, options={"deck": "huge"}) as peer:
        event = await peer.next_event()
        assert isinstance(event, api.Failed) and "deck" in event.message
        assert await peer.next_event() is None


async def test_leaving_on_our_turn_tells_the_table_and_ends_the_stream() -> None:
    """A signed leave: the table ends at once naming this seat ``left``, and the stream ends with Finished."""
    async with api.local_table("toy", bots=2, seed=1) as peer:
        async for event in peer.events():
            if isinstance(event, api.YourTurn):
                peer.leave()
        result = await peer.wait()
    assert isinstance(event, api.Finished) and event.culprit == 0
    assert event.verdict is not None and event.verdict.code == "left"
    assert result.left and result.lockstep.verdict is not None and result.lockstep.verdict.code == "left"


async def test_leaving_before_the_table_runs_ends_the_stream() -> None:
    async with api.local_table("toy", bots=2, seed=1) as peer:
        peer.leave()
        events = [event async for event in peer.events()]
        with pytest.raises(api.PeerFailed, match="left"):
            await peer.wait()
    assert isinstance(events[-1], api.Failed)


async def test_the_callers_own_exception_comes_out_unwrapped() -> None:
    with pytest.raises(KeyError):
        async with api.local_table("toy", bots=1, seed=1):
            raise KeyError("mine")


def test_events_are_plain_frozen_data() -> None:
    card = api.Card(3, 17, "red 7")
    step = api.StepResolved(1, "reveal", ("· revealed: red 7",), revealed=(card,))
    assert step.revealed[0].name == "red 7"
    with pytest.raises(AttributeError):
        step.tick = 2  # type: ignore[misc]
    over = api.Finished(None, None, ("a", "b"))
    assert not over.clean and "unfinished" in over.text()
    _: Any = api.PeerEvent  # the union is public for type annotations


async def test_api_peer_resumes_from_its_log_and_spectators_watch_through_it(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """start_peer keeps a resume log; the seat "crashes", resume_peer finishes the game; watch_table follows it,
    from another seat's table and from the very seat that crashes (its link breaks: it links again, and
    ``on_step`` sees each step once, in order, across the two links)."""
    import trio

    import p2php.api as api_module
    from p2php.net.mesh import listen as _listen
    from p2php.net.mesh import listener_port
    from p2php.session.lockstep import Lockstep as _Lockstep

    ports = []
    for _ in range(3):
        lst = await _listen("127.0.0.1", 0)
        ports.append(listener_port(lst))
        await lst.aclose()
    addresses = {s: ("127.0.0.1", ports[s]) for s in range(3)}
    results: dict[int, object] = {}
    watched: dict[int, _Lockstep] = {}
    left = trio.Event()
    watching = trio.Event()
    marks: list[tuple[int, int, int, bool]] = []
    lost: list[str] = []

    def on_step(ls: _Lockstep) -> None:
        marks.append((ls.tick, ls.phase, len(ls.events), ls.verdict is not None))
        if ls.tick >= 3:
            watching.set()

    async def seat(s: int) -> None:
        async with api.start_peer("uno", players=3, seat=s, addresses=addresses, options={"rounds": 1},
                                  timeout=10.0, resume_log=tmp_path / f"s{s}.resume") as peer:
            turns = 0
            async for event in peer.events():
                if isinstance(event, api.YourTurn):
                    turns += 1
                    if s == 1 and turns == 3:
                        await watching.wait()
                        left.set()
                        return  # seat 1 walks away mid-game (its process "dies")
                    await peer.submit(event.legal[0])
                elif isinstance(event, api.Finished):
                    results[s] = event

    async def comeback() -> None:
        await left.wait()
        await trio.sleep(0.5)
        async with api.resume_peer(tmp_path / "s1.resume") as peer:
            first = True
            async for event in peer.events():
                if isinstance(event, api.YourTurn):
                    if first:  # the spectator links again a second after its link broke: let it in before the end
                        first = False
                        await relinked.wait()
                    await peer.submit(event.legal[0])
                elif isinstance(event, api.Finished):
                    results[1] = event

    relinked = trio.Event()

    connect = api_module.watch

    async def watch(host: str, port: int, name: str, observe: Any, **kw: Any) -> Any:
        """The real link; a link to seat 1 made after one broke tells ``relinked`` once it shows the table."""
        def seen(ls: _Lockstep) -> None:
            if port == ports[1] and lost:
                relinked.set()
            observe(ls)

        return await connect(host, port, name, seen, **kw)

    monkeypatch.setattr(api_module, "watch", watch)

    async def spectator(s: int) -> None:
        await trio.sleep(0.3)
        watched[s] = await api.watch_table(("127.0.0.1", ports[s]), on_step if s == 1 else None,
                                           on_link_lost=lost.append if s == 1 else None)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for s in range(3):
                nursery.start_soon(seat, s)
            nursery.start_soon(comeback)
            nursery.start_soon(spectator, 0)
            nursery.start_soon(spectator, 1)
    assert sorted(results) == [0, 1, 2]
    for event in results.values():
        assert isinstance(event, api.Finished) and event.verdict is not None and event.verdict.clean
    assert sorted(watched) == [0, 1]
    for seat_watched, ls in watched.items():
        assert ls.verdict is not None and ls.verdict.clean and ls.private_faces == {}, (seat_watched, ls.tick, lost)
    assert watched[0].verdict.state_hash == watched[1].verdict.state_hash  # type: ignore[union-attr]
    assert lost and all("watching again" in line for line in lost)  # the crashed seat's link broke
    assert marks == sorted(set(marks)) and marks[-1][3]  # each step once, in order, up to the verdict


def test_watch_table_tells_each_step_once_across_links_that_replay(monkeypatch: pytest.MonkeyPatch,
                                                                   autojump_clock: Any) -> None:
    """Each new link replays the record from its start: ``on_step`` hears only what no earlier link showed."""
    from types import SimpleNamespace

    links = iter([4, 2, 7, None])  # steps each link shows before it breaks (None: to the end, 9 steps)

    async def fake_watch(host: str, port: int, name: str, observe: Any, **_: Any) -> Any:
        reach = next(links)
        ls = SimpleNamespace(tick=0, phase=0, events=[], verdict=None)
        for tick in range(9 if reach is None else reach):
            ls.tick, ls.events = tick, ls.events + [tick]
            observe(ls)
            observe(ls)  # a frame that changes nothing is not a step
        if reach is None:
            ls.verdict = "clean"
            observe(ls)
            return ls
        raise api.WatchError(f"link broke at {reach}")

    import p2php.api as api_module
    monkeypatch.setattr(api_module, "watch", fake_watch)
    seen: list[int] = []
    lost: list[str] = []
    ls = trio.run(lambda: api.watch_table("127.0.0.1:9", lambda ls: seen.append(ls.tick), on_link_lost=lost.append),
                  clock=autojump_clock)
    assert ls.verdict == "clean"
    assert seen == [*range(9), 8]  # ticks 0..8 once each, then the verdict
    assert lost == [f"link broke at {n} — watching again" for n in (4, 2, 7)]


async def test_leaving_while_another_seat_decides_still_tells_the_table_at_once() -> None:
    """A signed leave at any moment of the game, not only in our turn: everyone ends at once naming us."""
    async with api.local_table("toy", bots=2, seed=1) as peer:
        async for event in peer.events():
            if isinstance(event, api.StepResolved) and not peer.is_my_turn():
                peer.leave()
                break
        rest = [e async for e in peer.events()]
        result = await peer.wait()
    assert isinstance(rest[-1], api.Finished) and rest[-1].culprit == 0
    assert result.lockstep.verdict is not None and result.lockstep.verdict.code == "left"


async def test_the_host_removes_a_joiner_by_seat_and_the_table_fills_again() -> None:
    """A GUI or a headless host had no ``k N``: one joiner who never got ready (or was not who was expected)
    held its seat for good. ``Peer.remove`` sends them away (told ``refused``); the seat goes to another."""
    from p2php.lobby import JoinSession, Refusal
    from p2php.lobby import join_table as lobby_join

    port: list[int] = []
    news = trio.Event()
    outcome: dict[str, Any] = {}

    async def host() -> None:
        async with api.host_table("toy", players=2, name="hermione", port=0, bind="127.0.0.1") as peer:
            async for event in peer.events():
                if isinstance(event, api.TableOpen):
                    port.append(event.port)
                    news.set()
                elif isinstance(event, api.LobbyNews) and "squat joined" in event.message:
                    for seat in (0, 5):  # the host's own seat, no such seat
                        with pytest.raises(api.ApiError, match=f"seat {seat} has no joiner to remove"):
                            peer.remove(seat)
                    outcome["removed"] = peer.remove(1)
                elif isinstance(event, api.YourTurn):
                    await peer.submit(0)
                elif isinstance(event, api.Started):
                    with pytest.raises(api.ApiError, match="no lobby is open here"):
                        peer.remove(1)
            outcome["host"] = event

    async def squatter() -> None:
        await news.wait()
        with pytest.raises(Refusal, match="the host removed you from this table") as info:
            await lobby_join("127.0.0.1", port[0], JoinSession("squat", 6001), ready=False,
                             ask_ready=trio.sleep_forever)
        assert info.value.code == "refused"
        async with api.join_table(("127.0.0.1", port[0]), name="ron", bind="127.0.0.1") as peer:
            outcome["guest"] = (await play_out(peer))[-1]

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(squatter)
    assert outcome["removed"] == "squat"
    for who in ("host", "guest"):
        assert isinstance(outcome[who], api.Finished) and outcome[who].clean, outcome[who]



@pytest.mark.parametrize(("game", "twisted"), [
    ("uno", lambda a: {**a, "slot": float(a["slot"])} if a["type"] == "play" else None),  # a float for a slot
    ("hogwarts", lambda a: {**a, "sheet": True} if a.get("sheet") == 1 else None),  # true for 1
])
async def test_a_legal_action_with_a_float_or_a_bool_for_its_number_is_refused_not_played(
        game: str, twisted: Callable[[api.Action], api.Action | None]) -> None:
    """``{"slot": 3.0}`` (a JSON client that keeps numbers as floats) and ``True`` for 1 equal a legal action under
    Python's ``==``: they were sent on without the rules' check, which the runner then raised, ending this peer
    (``Failed``: no verdict, no transcript; the others waited ``resume_timeout`` and ended ``unreachable``)."""
    async with api.local_table(game, bots=2, options={"rounds": 1} if game == "uno" else {}, seed=3,
                               timeout=5) as peer:
        tried = False
        async for event in peer.events():
            if isinstance(event, api.YourTurn):
                bad = next((b for b in map(twisted, event.legal) if b is not None), None)
                if bad is not None and not tried:
                    tried = True
                    assert bad in event.legal  # (equal under ==)
                    with pytest.raises(api.IllegalAction):
                        await peer.submit(bad)
                    assert peer.is_my_turn()  # the turn stays open
                    await peer.submit(0)
                    if game == "hogwarts":
                        break
                else:
                    await peer.submit(0)
        assert tried
        if game == "hogwarts":  # a long game: one more step is enough to show the peer lives on
            assert isinstance(await peer.next_event(), api.StepResolved)
            return
        result = await peer.wait()
    assert isinstance(event, api.Finished) and event.clean and result.lockstep.verdict is not None


@pytest.mark.parametrize("stray", [[0] * 70_000, "y" * (5 << 20)])
async def test_an_action_with_a_huge_field_the_rules_ignore_is_refused_not_sent(stray: object) -> None:
    """The rules ignore keys they do not use, so a legal action plus a stray field passed the check; a field of 70 000
    values (a 140 kB bridge line) or 5 MB made a message no frame holds, and the peer's own send raised, ending it
    (``Failed``; the other seats waited ``resume_timeout`` and ended ``unreachable``)."""
    async with api.local_table("toy", bots=2, seed=2, timeout=5) as peer:
        tried = False
        async for event in peer.events():
            if isinstance(event, api.YourTurn):
                if not tried:
                    tried = True
                    with pytest.raises(api.IllegalAction, match="at most"):
                        await peer.submit({**event.legal[0], "x": stray})
                    assert peer.is_my_turn()
                await peer.submit(0)
        result = await peer.wait()
    assert tried and isinstance(event, api.Finished) and event.clean and result.lockstep.verdict is not None


async def test_an_action_dict_the_caller_changes_after_submit_is_not_what_is_played() -> None:
    """``submit`` hands the action to the runner, which plays it a few scheduling rounds later: an embedder that
    cleared or reused its dict once ``submit`` returned had the runner play the changed dict, unchecked, and the
    runner's own check then raised, ending the peer (``Failed``)."""
    async with api.local_table("toy", bots=2, seed=7, timeout=5) as peer:
        mine: dict[str, Any] = {}
        bids = 0
        async for event in peer.events():
            if isinstance(event, api.YourTurn):
                if event.legal[0]["type"] == "bid":  # the toy's rules take true for 1: not one of the legal actions
                    bids += 1
                    mine.update(type="bid", n=True)
                    await peer.submit(mine)
                    mine.clear()
                else:
                    await peer.submit(0)
        result = await peer.wait()
    assert bids and isinstance(event, api.Finished) and event.clean and result.lockstep.verdict is not None


async def test_a_field_no_legal_action_carries_is_refused_not_broadcast() -> None:
    """The toy's rules (like HP Sha's and Hogwarts') ignore fields they do not read: a client that sent its pick with
    context of its own (here its hand) had the field signed into the public record of every seat and transcript."""
    async with api.local_table("toy", bots=2, seed=7, timeout=5) as peer:
        tried = False
        async for event in peer.events():
            if isinstance(event, api.YourTurn):
                if not tried:
                    tried = True
                    with pytest.raises(api.IllegalAction, match="my_hand"):
                        await peer.submit({**event.legal[0], "my_hand": str(event.view)})
                await peer.submit(0)
            elif isinstance(event, api.StepResolved):
                assert not any("my_hand" in action for _, action in event.actions)
        result = await peer.wait()
    assert tried and isinstance(event, api.Finished) and event.clean and result.lockstep.verdict is not None
