"""rt7-newcode: a cheater pads every message it signs with fields that belong to OTHER kinds (``proof``,
``reason``: names in BODY_FIELDS, so not limited by MAX_UNKNOWN_BODY), 3 MiB a message. Every honest seat accepts
them (ignored by their kind's checks), keeps them in its transcript, and the game ends clean; the honest records
exceed MAX_FILE and `p2php verify` refuses them."""
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


def main(game: str = "uno", players: int = 3, crypto: str = "fast", mib: float = 3.0) -> None:
    peers = make_peers(game, players, {"crypto": crypto}, seed=1)
    one, send = peers[1], peers[1]._send
    pad = int(mib * (1 << 20)) // 2

    def padded(kind: str, body: dict, send=send):  # type: ignore[no-untyped-def]
        if kind not in ("abort", "audit"):
            body = {**body, "proof": b"\x00" * pad, "reason": "y" * pad}
        return send(kind, body)

    one._send = padded  # type: ignore[method-assign]
    t0 = time.perf_counter()
    run_in_memory(peers, {s: RandomBot(10 + s) for s in range(players)})
    zero = peers[0]
    mine = [m for m in zero.transcript if m.sender == 1]
    verdict = zero.verdict
    print(f"{game} {players} seats {crypto}: {time.perf_counter() - t0:.0f} s; seat 0's verdict: "
          f"clean={verdict.clean} culprit={verdict.culprit} {verdict.reason[:80]!r}; "
          f"seat 1's messages in its transcript: {len(mine)}, {sum(len(m.wire_bytes) for m in mine) >> 20} MiB")
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
