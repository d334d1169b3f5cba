"""1c21dab: is a transcript's packing (a message at a time, off the loop) byte-identical to the old one (one packb of
to_data, made in the loop) in a record with equivocation proofs, with a refused message, fast and verified?
The old to_data is base 24815e3's, copied here."""
import sys
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from p2php.session.transcript import FORMAT, VERSION, _equivocation_proofs, _Taken  # noqa: E402


def old_to_data(ls: Any) -> dict[str, Any]:  # (base 24815e3, verbatim)
    verdict = ls.verdict
    return {
        "format": FORMAT, "version": VERSION, "seat": -1 if ls.seat is None else ls.seat, "game": ls.table.game,
        "options": ls.table.options, "hellos": list(ls.table.hellos), "messages": [m.to_wire() for m in ls.transcript],
        "equivocations": _equivocation_proofs(ls), "refused": list(ls.refused),
        "verdict": None if verdict is None else {
            "clean": verdict.clean, "culprit": -1 if verdict.culprit is None else verdict.culprit,
            "reason": verdict.reason, "code": verdict.code, "seats": list(verdict.seats),
            "state_hash": verdict.state_hash}}


import test_attribution_attacks as t  # noqa: E402
import toygame  # noqa: E402,F401  (registers "toy")

from p2php.bots import RandomBot  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402

cases = []
captured: list[Any] = []
real = t.run_in_memory
t.run_in_memory = lambda peers, *a, **k: (captured.append(peers), real(peers, *a, **k))[1]
t.test_two_signed_versions_of_one_waiting_message_prove_equivocation()
cases += [("equivocation, fast", p) for p in captured[0]]
for crypto in ("fast", "verified"):
    peers = make_peers("toy", 2, {"crypto": crypto}, seed=3)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    cases += [(crypto, p) for p in peers]
# a refused message: put a signed one in the record's refused list (what _check_envelope keeps)
ls = cases[-1][1]
ls.refused.append(ls.transcript[3].to_wire())
cases.append(("refused", ls))
for name, ls in cases:
    old = msgpack.packb(old_to_data(ls), use_bin_type=True)
    new = _Taken(ls).packed()
    print(f"{name:20} seat {ls.seat}: {len(ls.transcript)} messages, {len(_equivocation_proofs(ls))} proofs, "
          f"{len(ls.refused)} refused: identical={old == new} ({len(old)} bytes)")

# The loop goes on while the worker packs: what it appends or changes after the record was taken must not reach it.
name, ls = cases[0]
taken = _Taken(ls)
expected = msgpack.packb(old_to_data(ls), use_bin_type=True)
ls.transcript.append(ls.transcript[-1])
ls.refused.append(ls.transcript[0].to_wire())
for wires in ls.equivocations.values():
    wires.append(ls.transcript[1].to_wire())
ls.equivocations[(1, 99)] = [ls.transcript[2].to_wire()]
ls.table.hellos.append(ls.table.hellos[0]) if isinstance(ls.table.hellos, list) else None
print("after the loop appended to transcript, refused, equivocations (and hellos): packed as taken =",
      taken.packed() == expected)
