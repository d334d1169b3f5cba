"""rt8: a cheater adds a key the rules ignore to every action dict it signs (``pad`` bytes of string), but only
where its own copy of the engine's check takes the padded action (so it is never named)."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

game, crypto, players, pad = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
peers = make_peers(game, players, {"crypto": crypto}, seed=seed)
one = peers[1]
send = one._send
n = [0, 0]


def padded(kind: str, body: dict):  # type: ignore[no-untyped-def]
    if kind == "action" and isinstance(body.get("action"), dict) and "nonce" not in body:
        act = {**body["action"], "zz": "y" * pad}
        try:
            one.state.check(1, act, one.knowledge())
            if list(one.state.reveals(1, act)) != list(one.state.reveals(1, body["action"])):
                raise ValueError
        except Exception:
            n[1] += 1
        else:
            body = {**body, "action": act}
            n[0] += 1
    return send(kind, body)


one._send = padded  # type: ignore[method-assign]
run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
v = peers[0].verdict
mine = [m for m in peers[0].transcript if m.sender == 1]
print(f"{game} {crypto} {players} seats: padded {n[0]}, left plain {n[1]}; seat 0's verdict clean={v.clean} "
      f"culprit={v.culprit} {v.reason[:90]!r}; seat 1's bytes in seat 0's record: "
      f"{sum(len(m.wire_bytes) for m in mine)}")
with tempfile.TemporaryDirectory() as tmp:
    path = transcript.save(peers[0], Path(tmp) / "seat0.p2php")
    print(f"seat 0's transcript: {path.stat().st_size >> 20} MiB")
    try:
        print("p2php verify:", transcript.verify(path).lines[-1:])
    except Exception as err:
        print(f"p2php verify: {type(err).__name__}: {err}")
