"""Peers over real loopback TCP: a whole game, transcripts, and ``verify``."""

from __future__ import annotations

from pathlib import Path

from p2php.bots import RandomBot
from p2php.session import transcript
from p2php.session.local_net import run_local_table
from p2php.session.runner import bot_decider


async def test_toy_game_over_loopback_with_transcripts(tmp_path: Path) -> None:
    results = await run_local_table(
        "toy", 3, [bot_decider(RandomBot(s)) for s in range(3)], seed=11, transcripts=tmp_path
    )
    verdicts = [r.lockstep.verdict for r in results]
    assert all(v is not None and v.clean for v in verdicts)
    assert len({v.state_hash for v in verdicts if v}) == 1
    assert all(r.bytes_sent > 0 for r in results)
    for seat, r in enumerate(results):  # every message it signed went out (and the audits it forwarded at the end)
        assert r.frames_sent >= sum(m.sender == seat for m in r.lockstep.transcript) > 0
    for seat in range(3):
        check = transcript.verify(tmp_path / f"seat{seat}.p2php")
        assert check.ok, check.lines
        assert check.spectator is not None and check.spectator.verdict is not None
        assert check.spectator.verdict.state_hash == verdicts[0].state_hash


async def test_verify_rejects_a_tampered_transcript(tmp_path: Path) -> None:
    import msgpack

    await run_local_table("toy", 2, [bot_decider(RandomBot(s)) for s in range(2)], seed=3,
                          transcripts=tmp_path)
    path = tmp_path / "seat0.p2php"
    data = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
    for m in data["messages"]:
        if m["kind"] == "action":
            m["body"]["action"]["n"] = 2 if m["body"]["action"].get("n") != 2 else 1
            break
    bad = tmp_path / "bad.p2php"
    bad.write_bytes(msgpack.packb(data, use_bin_type=True))
    check = transcript.verify(bad)
    assert not check.ok
    assert any("signature" in line for line in check.lines)




async def test_a_seat_that_brings_other_options_is_refused_by_name_and_nobody_plays() -> None:
    """Every seat checks every hello (game, options, seat, signature) as the mesh forms; one that does not fit is
    refused naming its seat, and no game starts with it."""
    import trio

    from p2php.net.mesh import MeshError, listen, listener_port
    from p2php.session.memory import seeded_secrets
    from p2php.session.runner import PeerConfig, run_peer

    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    failures: dict[int, str] = {}
    took: dict[int, float] = {}

    async def sit(seat: int) -> None:
        options = {"rounds": 2 if seat == 2 else 1}
        cfg = PeerConfig("uno", options, 3, seat, f"p{seat}", secrets=seeded_secrets(4, seat), connect_timeout=6.0)
        start = trio.current_time()
        try:
            await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))
        except MeshError as err:
            failures[seat] = str(err)
        took[seat] = trio.current_time() - start

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            for seat in range(3):
                nursery.start_soon(sit, seat)
    assert set(failures) == {0, 1, 2}, failures  # nobody played
    for seat in (0, 1):
        assert "seat 2" in failures[seat] and "options" in failures[seat], failures[seat]
    # A refusal is final in a first game: the refused seat does not dial again until connect_timeout (a rematch
    # does, as the seat it dials may still be finishing the game before).
    assert took[2] < 3.0, took
