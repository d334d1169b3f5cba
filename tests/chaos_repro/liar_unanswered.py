"""(a) Verified HP Sha: the Minister lies `not_minister` at the identity decision; one other seat's answer never
reaches anyone (dropped on every link). Who each honest seat names, and who p2php verify of its record names."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401
from test_multi_answer_attribution import PLAYERS, _hide_the_minister  # noqa: E402

from p2php.bots import RandomBot  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

MINISTER = {1: 1, 2: 2}  # the seat dealt the Minister for these seeds (verified, v10 deals)


def run(seed: int, drop_seat_offset: int, withhold_audit: bool) -> None:
    peers = make_peers("hpsha", PLAYERS, {"crypto": "verified"}, seed=seed)
    liar: list[int] = []
    for p in peers:
        _hide_the_minister(p, liar)

    def tamper(sender: int, to: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        mute = (MINISTER[seed] + drop_seat_offset) % PLAYERS
        if sender == mute and frame.get("kind") == "action" and frame.get("body", {}).get("action", {}).get(
                "type") in ("not_minister", "reveal_identity"):
            return None
        if withhold_audit and sender == MINISTER[seed] and frame.get("kind") == "audit":
            return None
        return frame

    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(PLAYERS)}, tamper=tamper)
    assert liar == [MINISTER[seed]], liar
    mute = (liar[0] + drop_seat_offset) % PLAYERS
    print(f"seed {seed}: liar seat {liar[0]}, answer of seat {mute} dropped, liar's audit "
          f"{'withheld' if withhold_audit else 'sent'}")
    for p in peers:
        if p.seat == liar[0]:
            continue
        v = p.verdict
        with tempfile.TemporaryDirectory() as d:
            r = transcript.verify(transcript.save(p, Path(d) / "s.p2php"))
        rv = r.spectator.verdict if r.spectator else None
        print(f"  seat {p.seat} named {(v.culprit, v.code) if v else None}; verify names "
              f"{(rv.culprit, rv.code) if rv else None}")


if __name__ == "__main__":
  for withhold in (False, True):
    run(1, 1, withhold)
