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


