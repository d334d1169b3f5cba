"""rt8: a cheater pads every message it signs with a field its OWN kind has but that its deck / decision never
uses (KIND_FIELDS lets any field of the message's kind through unmeasured): an unsealed action's ``nonce``, a fast
deck's ``keys``/``action`` ``proofs``, a fast last pass's ``digest``... 3 MiB a message."""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

PAD = {  # kind -> a field of that kind the cheater's message does not use
    "action": "nonce",
    "shuffle": "digest",
}


def main(game: str = "uno", players: int = 3, crypto: str = "fast", mib: float = 3.0) -> None:
    peers = make_peers(game, players, {"crypto": crypto}, seed=1)
    one, send = peers[1], peers[1]._send
    pad = int(mib * (1 << 20))
    sent: dict[str, int] = {}

    def padded(kind: str, body: dict, send=send):  # type: ignore[no-untyped-def]
        field = PAD.get(kind)
        if field is not None and field not in body:
            body = {**body, field: b"\x00" * pad}
            sent[kind] = sent.get(kind, 0) + 1
        return send(kind, body)

    one._send = padded  # type: ignore[method-assign]
    t0 = time.perf_counter()
    run_in_memory(peers, {s: RandomBot(10 + s) for s in range(players)})
    zero = peers[0]
    mine = [m for m in zero.transcript if m.sender == 1]
    verdict = zero.verdict
    print(f"{game} {players} seats {crypto}: {time.perf_counter() - t0:.0f} s; padded messages sent: {sent}")
    print(f"seat 0's verdict: clean={verdict.clean} culprit={verdict.culprit} {verdict.reason[:80]!r}")
    print(f"seat 1's messages in seat 0's transcript: {len(mine)}, {sum(len(m.wire_bytes) for m in mine) >> 20} MiB")
    with tempfile.TemporaryDirectory() as tmp:
        path = transcript.save(zero, Path(tmp) / "seat0.p2php")
        print(f"seat 0's transcript: {path.stat().st_size >> 20} MiB")
        try:
            print("p2php verify:", transcript.verify(path).lines[-1:])
        except Exception as err:
            print(f"p2php verify: {type(err).__name__}: {err}")


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0] if a else "uno", int(a[1]) if len(a) > 1 else 3, a[2] if len(a) > 2 else "fast",
         float(a[3]) if len(a) > 3 else 3.0)
