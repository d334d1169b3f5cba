"""rt8: a cheater whose hello declares a hash chain of length 1 (allowed: 1 .. 2^20) reveals, at every Randomness
step, the seed end of a chain it made from a ``pad``-byte value: step(binding, big) is the anchor it announced, so
the reveal verifies; each reveal also announces the next anchor (32 bytes, checked), again of a big value."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401

from p2php import tags  # noqa: E402
from p2php.bots import RandomBot  # noqa: E402
from p2php.canonical import digest, encode  # noqa: E402
from p2php.crypto import beacon  # noqa: E402
from p2php.session import handshake, transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory, seeded_secrets  # noqa: E402

game, players, pad, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cheater_master = seeded_secrets(seed, 1).master


class BigChain:
    def __init__(self, binding: bytes, renewal: int) -> None:
        self.length = 1
        self.big = renewal.to_bytes(4, "big") * (pad // 4)
        self.anchor = beacon._step(binding, self.big)

    def value(self, i: int) -> bytes:
        return self.big


real_chain = handshake.LocalSecrets.chain


def chain(self, binding: bytes, renewal: int = 0):  # type: ignore[no-untyped-def]
    if self.master == cheater_master:
        return BigChain(binding, renewal)
    return real_chain(self, binding, renewal)


handshake.LocalSecrets.chain = chain  # type: ignore[method-assign]
real_make_hello = handshake.make_hello


def make_hello(secrets, seat, *a, **kw):  # type: ignore[no-untyped-def]
    hello = real_make_hello(secrets, seat, *a, **kw)
    if secrets.master == cheater_master:  # re-signed with chain 1
        hello = {k: v for k, v in hello.items() if k != "sig"}
        hello["chain"] = 1
        hello["sig"] = secrets.identity.sign(digest(tags.HELLO, encode(hello)))
    return hello


handshake.make_hello = make_hello
import p2php.session.memory as memory  # noqa: E402

memory.make_hello = make_hello  # type: ignore[attr-defined]

peers = make_peers(game, players, {"crypto": "fast"}, seed=seed)
print("cheater's hello chain:", peers[0].table.hellos[1]["chain"])
run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
v = peers[0].verdict
beacons = [m for m in peers[0].transcript if m.sender == 1 and m.kind == "beacon"]
print(f"{game} fast {players} seats: verdict clean={v.clean} culprit={v.culprit} {v.reason[:90]!r}; seat 1's beacons "
      f"in seat 0's record: {len(beacons)}, {sum(len(m.wire_bytes) for m in beacons)} bytes")
with tempfile.TemporaryDirectory() as tmp:
    path = transcript.save(peers[0], Path(tmp) / "seat0.p2php")
    print(f"seat 0's transcript: {path.stat().st_size >> 20} MiB")
    try:
        print("p2php verify:", transcript.verify(path).lines[-1:])
    except Exception as err:
        print(f"p2php verify: {type(err).__name__}: {err}")
