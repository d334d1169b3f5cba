"""Cost of one HP Sha hand re-mask (protocol.md §10.4): messages and bytes through the real protocol, both decks,
4 and 10 seats.

At the first decision a RandomHandCardTask picks a card of the minister's hand (its 4 cards, one deck family),
once with a fresh hand (the Randomness alone) and once after marking one card as seen by the next seat (a test
edit: the pick re-masks the hand first, one Reshuffle of the 4 slots + one Deal to the holder).  The messages
every peer broadcasts until the next decision are counted, with the bytes of every frame on every link (msgpack
of the wire form each recipient gets); the difference is the re-mask's cost.

    .venv/bin/python benchmarks/hpsha_remask_cost.py
"""

from __future__ import annotations

import time

from wire_counter import Counter

from p2php.games.hpsha.moves import RandomHandCardTask
from p2php.testing.hpsha import Scenario

CHARS = ["harry", "hermione", "ron", "neville", "ginny", "luna", "snape", "hagrid", "mcgonagall", "dumbledore"]


def measure(n: int, crypto: str, task: str) -> tuple[int, int, int, float, int, dict[str, int]]:
    sc = Scenario(CHARS[:n], options={"crypto": crypto}, mode="protocol")
    sc.decide()
    st = sc.state
    m = st.minister
    hand = list(st.hands[m])
    if task == "remask":  # seat m+1 saw one of the minister's cards: the pick re-masks the hand first
        st.seen[hand[0]] = [(m + 1) % n]
    st.push(RandomHandCardTask(m, "measure"))  # else a fresh hand: no re-mask, the Randomness alone
    with Counter() as c:
        t0 = time.perf_counter()
        sc.step()
    dt = time.perf_counter() - t0
    if task == "remask":
        assert not set(hand) & set(st.hands[m])
    sc.finish()
    return c.count["msgs"], c.count["frames"], c.count["bytes"], dt, len(hand), c.kinds


if __name__ == "__main__":
    for crypto in ("fast", "verified"):
        for n in (4, 10):
            base = measure(n, crypto, "randomness")
            full = measure(n, crypto, "remask")
            for task, (msgs, frames, size, dt, k, kinds) in (("pick", base), ("remask+pick", full)):
                print(f"crypto={crypto:8} n={n:2} {task:11} hand={k}: {msgs:3} messages, {frames:4} frames, "
                      f"{size:7} bytes on all links, {dt * 1000:6.0f} ms (all peers in one process) {kinds}")
            print(f"  one re-mask of {full[4]} cards at {n} seats ({crypto}): +{full[0] - base[0]} messages, "
                  f"+{full[1] - base[1]} frames, +{full[2] - base[2]} bytes on all links, "
                  f"+{(full[3] - base[3]) * 1000:.0f} ms")
