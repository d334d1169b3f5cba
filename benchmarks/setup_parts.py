"""Where a set-up's CPU goes, by part: ``deal.py --actions 0``'s runs in this process with chosen functions timed.

    python benchmarks/setup_parts.py [--game hpsha] [--peers 10] [--mode fast] [--runs 3]

Each part is the CPU time (process clock) spent inside its functions, less the time inside other timed parts they
call (exclusive), summed over the runs and given per run: crypto (the curve products, signatures and their checks,
as ``deal.py`` counts them), the frame path (decoding and checking received frames, compressing, tagging and
encoding sent ones), the message checks (envelope parse, signed bytes and hashes, the shape checks), the lockstep's
own work outside those (the engine, state hashes, who owes what, key checks) and "the rest": trio's tasks, channels
and sockets, the handshake, and this loop. Garbage collection is timed apart (it falls inside any part). Timing
costs two clock reads per call (~1 µs), so the parts add up to a little more than an untimed run.
"""

from __future__ import annotations

import argparse
import collections
import functools
import gc
import importlib
import sys
import time
from typing import Any

import deal
import trio

from p2php.engine.registry import get_game
from p2php.session.modes import parse_table_options

PARTS: dict[str, list[str]] = {
    "crypto": ["p2php.crypto.group:mul", "p2php.crypto.group:mul_many", "p2php.crypto.group:is_point",
               "p2php.crypto.identity:PublicIdentity.verify", "p2php.crypto.identity:Identity.sign",
               "p2php.crypto.secp256k1:_mul", "p2php.crypto.secp256k1:_gen", "p2php.crypto.secp256k1:_combine",
               "p2php.crypto.secp256k1:_parse"],
    "frames in (mac, inflate, scan, unpack)": ["p2php.net.framing:FrameDecoder.next_frame"],
    "deflate out": ["p2php.net.deflate:Deflater.pack"],
    "link tags out": ["p2php.net.linkauth:seal_frame"],
    "frames out (pack, scan)": ["p2php.net.framing:encode_frame"],
    "envelope parse": ["p2php.session.messages:parse_message"],
    "signed bytes and hashes": ["p2php.session.messages:_envelope", "p2php.canonical:digest"],
    "shape checks (density)": ["p2php.session.lockstep:signed_shape_fault"],
    "lockstep receive (rest)": ["p2php.session.lockstep:Lockstep.receive"],
    "lockstep poll (rest: engine, state hash, duties, key checks)": ["p2php.session.lockstep:Lockstep.poll"],
}
DETAIL: dict[str, list[str]] = {  # --detail: the lockstep's own work, split further
    "who sends what (Lockstep.expected)": ["p2php.session.lockstep:Lockstep.expected"],
    "state hash": ["p2php.games.hpsha.state:HpshaState.state_hash"],
    "key checks (commitments)": ["p2php.crypto.deck:key_commitment", "p2php.crypto.deck:key_commitments"],
    "deck secrets (derive)": ["p2php.crypto.deck:DeckSecrets.derive"],
    "consume (seen heads, claims)": ["p2php.session.lockstep:Lockstep._consume"],
    "engine (load step, settle)": ["p2php.session.lockstep:Lockstep._load_step"],
    "own message (_send)": ["p2php.session.lockstep:Lockstep._send"],
    "beacon hash chains": ["p2php.crypto.beacon:HashChain.__init__"],
}

_clock = time.process_time_ns
_stack: list[list[int]] = []  # [start, time in nested timed parts]
_acc: collections.Counter[str] = collections.Counter()


def _wrap(label: str, spec: str) -> None:
    modname, attr = spec.split(":")
    try:
        mod = importlib.import_module(modname)
    except ImportError:
        return
    owner_name, _, name = attr.rpartition(".")
    owner: Any = getattr(mod, owner_name) if owner_name else mod
    original = getattr(owner, name, None)
    if original is None:
        return

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        frame = [_clock(), 0]
        _stack.append(frame)
        try:
            return original(*args, **kwargs)
        finally:
            _stack.pop()
            spent = _clock() - frame[0]
            _acc[label] += spent - frame[1]
            if _stack:
                _stack[-1][1] += spent

    setattr(owner, name, timed)
    if not owner_name:  # names other modules imported from it
        for m in list(sys.modules.values()):
            if getattr(m, "__name__", "").startswith("p2php") and getattr(m, name, None) is original:
                setattr(m, name, timed)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--game", default="hpsha")
    p.add_argument("--peers", type=int, default=10)
    p.add_argument("--mode", default="fast")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--detail", action="store_true", help="split the lockstep's own work further")
    args = p.parse_args()
    if args.detail:
        PARTS.update(DETAIL)
    game = get_game(args.game)
    deal.warm_imports()
    options = parse_table_options(game, {"crypto": args.mode})
    for label, specs in PARTS.items():
        for spec in specs:
            _wrap(label, spec)
    gc_at = [0]

    def on_gc(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            gc_at[0] = _clock()
        else:
            _acc["(garbage collection, inside the parts above)"] += _clock() - gc_at[0]

    gc.callbacks.append(on_gc)
    trio.run(deal.measure_run, game, args.peers, options, 0, None, 0, "random", 60.0, None)  # warm-up
    _acc.clear()
    cpu = 0.0
    for run_no in range(1, args.runs + 1):
        r = trio.run(deal.measure_run, game, args.peers, options, 0, None, run_no, "random", 60.0, None)
        cpu += r.setup_cpu_seconds
    n = args.runs
    print(f"{args.game} {args.peers} peers crypto={args.mode}: set-up CPU {cpu / n * 1000:.0f} ms a run ({n} runs)")
    timed = 0.0
    for label in PARTS:
        ms = _acc[label] / 1e6 / n
        timed += ms
        print(f"{ms:8.1f} ms {ms / (cpu / n * 1000) * 100:5.1f} %  {label}")
    rest = cpu / n * 1000 - timed
    print(f"{rest:8.1f} ms {rest / (cpu / n * 1000) * 100:5.1f} %  the rest (trio, sockets, handshake, loop)")
    ms = _acc["(garbage collection, inside the parts above)"] / 1e6 / n
    print(f"{ms:8.1f} ms {ms / (cpu / n * 1000) * 100:5.1f} %  (garbage collection, inside the parts above)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
