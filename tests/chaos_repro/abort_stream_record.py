"""rt7-newcode probe: after the table stopped (seat 0 in its audit round, not finished), can seat 1 keep sending
new signed messages -- aborts numbered on, each with a 3 MiB reason -- that seat 0 processes into its transcript
and forwards to every seat, without bound?"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401

from p2php.canonical import encode  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers  # noqa: E402
from p2php.session.messages import parse_message, signing_bytes  # noqa: E402


def main(n: int = 90, size: int = 3 << 20) -> None:
    peers = make_peers("toy", 3, {}, seed=1)
    for _ in range(6):
        for ls in peers:
            for msg in ls.poll():
                for other in peers:
                    if other is not ls:
                        other.receive(ls.seat, ls.wire_for(msg, other.seat))
    zero, one = peers[0], peers[1]
    one.leave()  # seat 1's own abort: every seat stops (seat 0 is now in its audit round)
    for msg in one.poll():
        zero.receive(1, one.wire_for(msg, 0))
    zero.poll()
    assert zero.auditing and not zero.finished
    last = one.inbox[1][-1] if one.inbox[1] else one.processed[1][max(one.processed[1])]
    seq, prev = last.seq + 1, last.msg_hash
    for _ in range(n):
        fields = {"from": 1, "seq": seq, "prev": prev, "at": list(last.at), "state": last.state, "seen": [],
                  "kind": "abort", "body": {"culprit": -1, "reason": "x" * size, "code": "left", "at": [0, 0],
                                            "evidence": [], "claims": []}}
        assert one.secrets is not None
        wire = {**fields, "sig": one.secrets.identity.sign(signing_bytes(one.session_id, fields))}
        zero.receive(1, wire)
        zero.poll()
        prev, seq = parse_message(wire).msg_hash, seq + 1
    kept = sum(1 for m in zero.transcript if m.sender == 1 and m.kind == "abort")
    print(f"seat 0: finished={zero.finished}, {kept} aborts of seat 1 in its transcript, {len(zero.forward)} "
          f"forwards queued ({sum(len(encode(w)) for w in zero.forward) >> 20} MiB), verdict={zero.verdict}")
    with tempfile.TemporaryDirectory() as tmp:
        path = transcript.save(zero, Path(tmp) / "seat0.p2php")
        print(f"seat 0's transcript: {path.stat().st_size >> 20} MiB")
        try:
            print("p2php verify:", transcript.verify(path).lines[-1:])
        except Exception as err:
            print(f"p2php verify: {type(err).__name__}: {err}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
