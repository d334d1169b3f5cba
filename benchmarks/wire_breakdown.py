"""Where the bytes of whole games go: every frame every peer queues, split by message kind and by field.

    python benchmarks/wire_breakdown.py --game uno --peers 4 --games 1-4 [--option crypto=verified] [--json]
    python benchmarks/wire_breakdown.py --game hpsha --peers 10 --games 1-2

It plays the games of ``deal.py --games SEEDS --bot heuristic`` (the same seeds, bots and options, so the same
games) with :meth:`p2php.net.mesh.Mesh.broadcast` wrapped: each frame is split, in the wire form each copy takes
(compact or full, §5.4), into

* ``sig``: the signature (66 bytes with its msgpack header);
* ``envelope``: everything else outside the body (length prefix, ``seq``, ``at``, heads; in a full form also
  ``from``, ``prev``, ``state`` and the seen hashes; ``att``, a fast pass's points to the next passer, apart);
* ``body.FIELD``: each body field, its key included (the body's map header goes to ``envelope``); a verified
  pass's ``proof`` further split into its points and scalars (protocol.md B.11, *Encoding*), its ``cards`` into
  the ciphertexts' 66 bytes and their msgpack headers;

times the copies sent in that form.  It also prices a repacking of the verified fields (nothing sent so): each
list of fixed-size entries as one bin (pass ``cards``, share ``proofs``; ``shares`` as a list of slots and one bin),
and every point as its 32-byte x with the y parities of a field's points in one bitmap.

Relays (``{"relay": m}``) and the link's own frames (``sync``, ``want``,
``full``, heartbeats) count under their first key.  The figures are bytes *before* deflate and link tags (what
``deal.py``'s ``bytes_by_kind`` counts); the post-deflate bytes of the same games (what ``bytes_per_decision``
counts) are reported next to them.  Benchmark-only instrumentation: nothing is changed on the wire.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import msgpack
import trio
from deal import measure_full_game, parse_seeds

from p2php.engine.registry import get_game, parse_option_pairs
from p2php.net import mesh as mesh_module
from p2php.session.modes import parse_table_options

_pack = msgpack.Packer(use_bin_type=True).pack


def _size(value: Any) -> int:
    return len(_pack(value))


def _bg_split(proof: bytes) -> tuple[int, int]:
    """(bytes of points, bytes of scalars and the count) of a B.11 proof's encoding, from its length."""
    n_points = 0
    for m in range(1, 9):
        points = 33 * (11 * m + 2) if m >= 2 else 33 * 9
        rest = len(proof) - 4 - points
        if rest > 0 and rest % 32 == 0:
            n_points = points
            break
    return n_points, len(proof) - n_points


class Breakdown:
    """Bytes per (kind, part), summed over every copy of every frame queued while installed."""

    def __init__(self) -> None:
        self.parts: dict[str, dict[str, int]] = {}
        self.copies: dict[str, int] = {}
        self.messages: dict[str, int] = {}
        self.pass_cards: list[int] = []  # N of every verified pass message made (once, not per copy)
        self.packed: dict[str, int] = {}  # what each split body part would take packed (see :meth:`packed_size`)
        self._orig = mesh_module.Mesh.broadcast

    def add(self, kind: str, part: str, n: int) -> None:
        parts = self.parts.setdefault(kind, {})
        parts[part] = parts.get(part, 0) + n

    def pack_add(self, part: str, n: int) -> None:
        self.packed[part] = self.packed.get(part, 0) + n

    def account(self, frame: dict[str, Any], form: dict[str, Any], copies: int) -> None:
        if not copies:
            return
        total = len(mesh_module.encode_frame(form, 1 << 30))
        if "c" in form and len(form) == 1:  # compact: [seq, tick, phase, heads, kind, body, sig]
            body, sig = form["c"][5], form["c"][6]
            kind = str(frame.get("kind"))
        elif "kind" in form and "body" in form:
            body, sig = form["body"], form["sig"]
            kind = str(form["kind"])
        else:
            kind = str(next(iter(form), "?"))
            self.add(kind, "whole frame", total * copies)
            self.copies[kind] = self.copies.get(kind, 0) + copies
            return
        self.copies[kind] = self.copies.get(kind, 0) + copies
        inside = 0
        for key, value in body.items():
            size = _size(key) + _size(value)
            inside += size
            if key == "proof" and isinstance(value, bytes) and kind == "pass":
                points, scalars = _bg_split(value)
                header = size - len(value)
                self.add(kind, "body.proof.points", points * copies)
                self.add(kind, "body.proof.scalars+N+header", (scalars + header) * copies)
                npts = points // 33
                self.pack_add("body.proof", (size - npts + (npts + 7) // 8) * copies)
            elif key == "cards" and isinstance(value, list):
                raw = sum(len(v) for v in value)
                self.add(kind, "body.cards.ciphertexts", raw * copies)
                self.add(kind, "body.cards.headers", (size - raw) * copies)
                k = len(value)
                self.pack_add("body.cards", (_size(key) + _size(bytes(64 * k + (2 * k + 7) // 8))) * copies)
            elif key == "shares" and isinstance(value, list):
                points = sum(len(v[1]) for v in value)
                self.add(kind, "body.shares.points", points * copies)
                self.add(kind, "body.shares.slots+headers", (size - points) * copies)
                k = len(value)
                self.pack_add("body.shares", (_size(key) + _size(bytes(32 * k + (k + 7) // 8)) + _size("slots")
                                              + _size([v[0] for v in value])) * copies)
            elif key == "proofs" and isinstance(value, list):
                self.add(kind, "body.proofs", size * copies)
                self.pack_add("body.proofs", (_size(key) + _size(b"".join(value))) * copies)
            else:
                self.add(kind, f"body.{key}", size * copies)
        att = _size("att") + _size(form["att"]) if "att" in form else 0
        if att:
            self.add(kind, "att (pass points to the next passer)", att * copies)
        self.add(kind, "sig", _size(sig) * copies)
        self.add(kind, "envelope", (total - inside - _size(sig) - att) * copies)

    def __enter__(self) -> Breakdown:
        book = self
        orig = self._orig

        async def broadcast(mesh: Any, frame: dict[str, Any], seats: list[int] | None = None) -> None:
            chosen = mesh.seats if seats is None else seats
            compact = ([s for s in chosen if mesh_module.COMPACT in mesh._peer(s).features]
                       if mesh.compactor is not None else [])
            short = mesh.compactor(frame) if compact and mesh.compactor is not None else None
            if short is None:
                compact = []
            kind = frame.get("kind")
            if isinstance(kind, str) and "body" in frame:
                book.messages[kind] = book.messages.get(kind, 0) + 1
                if kind == "pass" and isinstance(frame["body"].get("cards"), list):
                    book.pass_cards.append(len(frame["body"]["cards"]))
            book.account(frame, frame, len(chosen) - len(compact))
            if short is not None:
                book.account(frame, short, len(compact))
            await orig(mesh, frame, seats)

        mesh_module.Mesh.broadcast = broadcast  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        mesh_module.Mesh.broadcast = self._orig  # type: ignore[method-assign]


def run(game_name: str, peers: int, raw: dict[str, str], seeds: Sequence[int], bot: str,
        timeout: float) -> dict[str, Any]:
    game = get_game(game_name)
    options = parse_table_options(game, raw)
    book = Breakdown()
    games = []
    with book:
        for seed in seeds:
            games.append(trio.run(measure_full_game, game, peers, options, seed, bot, timeout, None, True))
    decisions = sum(g["game_decisions"] for g in games)
    sent = sum(g["bytes_per_game"] for g in games)
    queued = sum(sum(p.values()) for p in book.parts.values())
    kinds = sorted(book.parts, key=lambda k: -sum(book.parts[k].values()))
    return {
        "game": game.name, "peers": peers, "options": options, "seeds": list(seeds), "bot": bot,
        "decisions": decisions, "bytes_sent": sent, "bytes_per_decision": round(sent / decisions),
        "bytes_queued": queued, "queued_per_decision": round(queued / decisions),
        "audits": [g["game_audit"] for g in games],
        "messages": book.messages, "copies": book.copies,
        "pass_messages": len(book.pass_cards), "pass_cards": sum(book.pass_cards),
        "pass_sizes": {str(n): book.pass_cards.count(n) for n in sorted(set(book.pass_cards))},
        "parts": {k: dict(sorted(book.parts[k].items(), key=lambda kv: -kv[1])) for k in kinds},
        "packed": book.packed,
    }


def print_report(r: dict[str, Any]) -> None:
    d = r["decisions"]
    opts = " ".join(f"{k}={v}" for k, v in r["options"].items())
    print(f"{r['game']}, {r['peers']} peers ({opts}), seeds {r['seeds']}, bot {r['bot']}: {d} decisions, "
          f"audits {r['audits']}")
    print(f"sent (after deflate and link tags) {r['bytes_sent']} = {r['bytes_per_decision']} per decision; "
          f"queued (before) {r['bytes_queued']} = {r['queued_per_decision']} per decision")
    if r["pass_messages"]:
        sizes = ", ".join(f"{c}×{n}" for n, c in r.get("pass_sizes", {}).items())
        print(f"verified passes made: {r['pass_messages']} ({r['pass_cards']} ciphertexts; passes × N: {sizes})")
    print(f"{'kind / part':<44}{'bytes/decision':>15}{'share':>8}{'msgs':>8}{'copies':>8}")
    q = r["bytes_queued"] or 1
    for kind, parts in r["parts"].items():
        tot = sum(parts.values())
        print(f"{kind:<44}{tot / d:>15.0f}{tot * 100 / q:>7.1f}%{r['messages'].get(kind, 0):>8}"
              f"{r['copies'].get(kind, 0):>8}")
        for part, n in parts.items():
            print(f"  {part:<42}{n / d:>15.0f}{n * 100 / q:>7.1f}%")
    totals: dict[str, int] = {}
    for parts in r["parts"].values():
        for part, n in parts.items():
            group = part.split(".")[0] if not part.startswith("body.") else part.split(".")[1]
            group = {"cards": "ciphertexts (pass cards)", "proof": "shuffle proofs", "shares": "decryption shares",
                     "proofs": "share proofs"}.get(group, group)
            totals[group] = totals.get(group, 0) + n
    print("by part, all kinds:")
    for part, n in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {part:<42}{n / d:>15.0f}{n * 100 / q:>7.1f}%")
    now = {field: sum(n for parts in r["parts"].values() for part, n in parts.items()
                      if part == field or part.startswith(field + "."))
           for field in r["packed"]}
    saved = sum(now[f] - r["packed"][f] for f in now)
    print("packed (one bin per field, points as x plus one parity bitmap): bytes per decision now -> packed")
    for field, n in r["packed"].items():
        print(f"  {field:<42}{now[field] / d:>9.0f} -> {n / d:.0f}")
    print(f"  {'all (before deflate)':<42}{q / d:>9.0f} -> {(q - saved) / d:.0f} ({saved * 100 / q:.1f} % less)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="uno")
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--games", default="1", metavar="SEEDS", help="seeds, e.g. 1-4 or 1,3")
    ap.add_argument("--bot", default="heuristic")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result = run(args.game, args.peers, parse_option_pairs(list(args.option)), parse_seeds(args.games), args.bot,
                 args.timeout)
    if args.json:
        print(json.dumps(result))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
