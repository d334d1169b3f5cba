"""rt7-newcode probe: how many signed versions of ONE of its message numbers can a cheater make an honest seat keep
(Lockstep.equivocations) and forward to every other seat? Each version: the cheater's real message with a 512 KiB
bin in a known body field ("proof"), re-signed -- it passes the signature and shape checks (one value, far under
the density rule), so _check_envelope records it as an equivocation before any body check."""
from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import toygame  # noqa: E402,F401
from adversarial.tampers import signed_by  # noqa: E402

from p2php.session.memory import make_peers  # noqa: E402


def main(n: int = 200, size: int = 512 * 1024, save: int = 0) -> None:
    peers = make_peers("toy", 3, {}, seed=1)
    first = None
    for _ in range(6):  # a few rounds of honest delivery: seat 0 holds seat 1's first messages
        for ls in peers:
            for msg in ls.poll():
                if msg.sender == 1 and first is None:
                    first = msg
                for other in peers:
                    if other is not ls:
                        other.receive(ls.seat, ls.wire_for(msg, other.seat))
    assert first is not None and peers[0]._held(1, first.seq)
    zero = peers[0]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    for i in range(n):
        wire = first.to_wire()
        version = signed_by(peers[1], {**wire, "body": {**wire["body"], "proof": i.to_bytes(4, "big") * (size // 4)}})
        zero.receive(1, version)
    kept = sum(len(v) for v in zero.equivocations.values())
    fwd = len(zero.forward)
    fwd_bytes = sum(len(str(w.get("body", {}).get("proof", b""))) for w in zero.forward) // 1
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{n} versions of seat 1's message {first.seq}, {size} B each: seat 0 keeps {kept} in equivocations, "
          f"queues {fwd} forwards (~{fwd_bytes / 1e6:.0f} MB of repr) to relay to each other seat; "
          f"finished={zero.finished}; fault={zero.fault}; later_faults={len(zero.later_faults)}; "
          f"max RSS {rss0 // 1024} -> {rss1 // 1024} MiB; {time.perf_counter() - t0:.1f} s")
    if save:
        import tempfile

        from p2php.session import transcript

        with tempfile.TemporaryDirectory() as tmp:
            path = transcript.save(zero, Path(tmp) / "seat0.p2php")
            print(f"seat 0's transcript: {path.stat().st_size / 2**20:.0f} MiB "
                  f"({len(transcript.to_data(zero)['equivocations'])} copies in its equivocations field)")
            try:
                result = transcript.verify(path)
                print("p2php verify:", result.ok, result.lines[-1:])
            except Exception as err:
                print(f"p2php verify: {type(err).__name__}: {err}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
