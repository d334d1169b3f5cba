"""rt7-newcode: frame an honest seat `desync` at `p2php verify` through audit._late_desyncs, past the rv6 guard
(_saw_another_version), by making the honest seat's message name a LATER message of the cheater that the
record does not hold (instead of another version of one it holds).

Seat 1 (cheater) signs two bids: A (world A: seat 0's view) and B (world B: seat 2's view). In world B seat 1 then
plays a card at the next tick (t, 0) and seat 2 sends its keys at (t, 1): their `seen` head for seat 1 names that
play (seat 1's message q+1), state = the state after bid B. In world A seat 1 goes silent at t and seat 0 aborts
naming it silent. Seat 1's record: seat 0's view up to the bid (bid A), seat 0's abort, seat 2's keys message.
Every message in it is genuinely signed by its author.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402


class Seat1(RandomBot):
    """Seat 1's bot: its bid is `bid` (A or B); at a play it flips a deck card (every seat then sends keys)."""

    def __init__(self, seed: int, bid: int) -> None:
        super().__init__(seed)
        self.bid = bid

    def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
        bids = [a for a in legal if a.get("type") == "bid"]
        if bids:
            return next(a for a in bids if a["n"] == self.bid)
        plays = [a for a in legal if a.get("type") == "flip"]
        return plays[0] if plays else super().choose(state, seat, knowledge, legal)


def world(seed: int, bid: int, silent_from: int | None = None):
    peers = make_peers("toy", 3, {"flips": True}, seed=seed)
    bots = {0: RandomBot(seed * 10), 1: Seat1(seed * 10 + 1, bid), 2: RandomBot(seed * 10 + 2)}

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if silent_from is not None and sender == 1 and frame["at"][0] >= silent_from:
            return None  # seat 1 silent from tick t on
        return frame

    run_in_memory(peers, bots, tamper=tamper)
    return peers


def find(seed: int):
    b = make_peers("toy", 3, {"flips": True}, seed=seed)
    peers_b = world(seed, bid=1)
    two = peers_b[2]
    bid = next((m for m in two.transcript if m.sender == 1 and m.kind == "action"
                and m.body["action"].get("type") == "bid"), None)
    if bid is None:
        return None
    t = bid.at[0] + 1
    play = next((m for m in two.transcript if m.sender == 1 and m.at == (t, 0)), None)
    keys = next((m for m in two.transcript if m.sender == 2 and m.at == (t, 1)), None)
    if play is None or keys is None:
        return None
    del b
    return t, keys


def main() -> int:
    for seed in range(1, 40):
        got = find(seed)
        if got is None:
            continue
        t, keys = got
        peers_a = world(seed, bid=0, silent_from=t)
        zero = peers_a[0]
        early = [m for m in zero.transcript if m.at[0] < t and m.kind not in ("abort", "audit")]
        abort = next((m for m in zero.transcript if m.sender == 0 and m.kind == "abort"), None)
        if abort is None:
            continue
        # the two worlds agree before the bid tick's answers (same keys, deterministic signatures)
        assert any(m.sender == 2 and m.msg_hash == keys.prev for m in early), "worlds differ"
        print(f"seed {seed}: tick {t}; seat 0's own verdict (world A): {zero.verdict}")
        print(f"  seat 2's keys message at {keys.at}: seen {[(o, q) for o, q, _ in keys.seen]}")
        data = transcript.to_data(zero)
        data.update(seat=1, equivocations=[], refused=[], verdict=None,
                    messages=[*(m.to_wire() for m in early), abort.to_wire(), keys.to_wire()])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "crafted.p2php"
            path.write_bytes(msgpack.packb(data, use_bin_type=True))
            result = transcript.verify(path)
        v = result.spectator.verdict if result.spectator is not None else None
        print("  p2php verify of seat 1's record:", v)
        for line in result.lines:
            print("   |", line)
        return 1 if v is not None and v.culprit == 2 else 0
    print("no seed found")
    return 2


if __name__ == "__main__":
    sys.exit(main())
