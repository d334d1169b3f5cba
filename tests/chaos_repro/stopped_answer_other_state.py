"""rv8-verify: a stopped peer's audit checks a signed answer it read in its audit round on ITS state, whatever state
the answer was signed against (``_stopped_answers`` reads no ``state`` field; ``witness.answer_at`` does).

UNO, fast deck, 3 seats. Seat 1 (cheater) plays a Wild naming colour A to seat 0 and the same Wild naming colour B
to seat 2 (two validly signed versions of one message). Seat 2 (honest) follows with a B card. Seat 0 takes that
play, sees its ``seen`` head name the other version, and stops (dispute). Seat 2 audits before it learns of the
dispute, so no signed copy of version B is in any signed body. Seat 0's record, without its unsigned
``equivocations`` field (what a cheater hands a verifier), is then replayed by ``p2php verify``.

Run: .venv/bin/python tests/chaos_repro/stopped_answer_other_state.py [seed]
"""
from __future__ import annotations

import sys
import tempfile
from collections import deque
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from adversarial.tampers import signed_by  # type: ignore[import-not-found]  # noqa: E402

from p2php.engine.contract import RandomBot  # noqa: E402
from p2php.games.uno.cards import COLOURS, WILD  # noqa: E402
from p2php.session import transcript  # noqa: E402
from p2php.session.memory import make_peers  # noqa: E402

DROP = "--drop" in sys.argv


def main(seed: int) -> int:
    peers = make_peers("uno", 3, {"crypto": "fast"}, seed=seed)
    st: dict[str, Any] = {"wild": None, "B": None, "played": None}

    def faces2() -> dict[int, int]:
        p = peers[2]
        return {s: p.private_faces[s] for s in p.state.hands[2] if s in p.private_faces}

    deck = peers[0].state.deck

    class One(RandomBot):  # seat 1: plays a plain Wild as soon as it can, once seat 2 holds two colours
        def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
            if st["wild"] is None:
                held = {deck.colour[c] for c in faces2().values() if deck.colour[c] >= 0}
                for a in legal:
                    if a.get("type") == "play" and "colour" in a and deck.kind[knowledge.face(a["slot"])] == WILD \
                            and len(held) >= 2 and COLOURS.index(a["colour"]) not in held:
                        b = sorted(held)[0]
                        st["wild"], st["B"] = a["slot"], COLOURS[b]
                        return a
            return super().choose(state, seat, knowledge, legal)

    class Two(RandomBot):  # seat 2 (honest): follows the colour it was told with a coloured card
        def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
            if st["B"] is not None and st["played"] is None:
                for a in legal:
                    if a.get("type") == "play" and "colour" not in a:
                        c = knowledge.face(a["slot"])
                        if deck.colour[c] == COLOURS.index(st["B"]) and deck.kind[c] != WILD:
                            st["played"] = a
                            return a
            return super().choose(state, seat, knowledge, legal)

    bots = {0: RandomBot(seed * 10), 1: One(seed * 10 + 1), 2: Two(seed * 10 + 2)}

    def tamper(sender: int, to: int, wire: dict[str, Any]) -> dict[str, Any]:
        body = wire.get("body", {})
        act = body.get("action") if wire.get("kind") == "action" else None
        if sender == 1 and to == 2 and isinstance(act, dict) and act.get("slot") == st["wild"] \
                and act.get("type") == "play" and st["B"] is not None:
            return signed_by(peers[1], {**wire, "body": {**body, "action": {**act, "colour": st["B"]}}})
        return wire

    queue: deque[tuple[int, int, dict[str, Any], bool]] = deque()
    held: list[tuple[int, int, dict[str, Any], bool]] = []

    def deliver(sender: int, to: int, wire: dict[str, Any], relay: bool) -> None:
        if DROP and to == 0 and relay and sender in (1, 2) and st["played"] is not None:
            return  # seat 1 (the cheater) relays nothing; seat 2's link to seat 0 drops once it played
        if to == 2 and st["played"] is not None and not peers[2].auditing and sender != 2:
            held.append((sender, to, wire, relay))  # reaches seat 2 only once it audits
        elif relay:
            peers[to].receive_relayed(wire)
        else:
            peers[to].receive(sender, wire)

    for _ in range(20_000):
        moved = False
        for ls in peers:
            if ls.finished:
                continue
            assert ls.seat is not None
            while True:
                if ls.awaiting_me():
                    ls.act(bots[ls.seat].choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions()))
                for msg in ls.poll():
                    moved = True
                    queue.extend((ls.seat, o.seat, tamper(ls.seat, o.seat, ls.wire_for(msg, o.seat)), False)
                                 for o in peers if o is not ls and o.seat is not None)
                if not ls.awaiting_me():
                    break
            fwd, ls.forward = ls.forward, []
            queue.extend((ls.seat, o.seat, w, True) for w in fwd for o in peers if o is not ls and o.seat is not None)
        while queue:
            moved = True
            deliver(*queue.popleft())
        for h in [h for h in held if peers[h[1]].auditing]:
            moved = True
            held.remove(h)
            deliver(*h)
        if all(p.finished for p in peers):
            break
        if not moved:
            waiting = [p for p in peers if not p.finished and not p.auditing]
            for p in (waiting or [p for p in peers if not p.finished]):
                p.timeout()
    if st["played"] is None:
        print("seed", seed, ": no Wild/follow situation arose")
        return 2
    print("seed", seed, "wild slot", st["wild"], "B =", st["B"], "seat 2 played", st["played"])
    for p in peers:
        print(f"  live verdict seat {p.seat}: {p.verdict}")
    zero = peers[0]
    if "--debug" in sys.argv:
        for m in zero.transcript:
            ev = m.body.get("evidence") if m.kind in ("abort", "audit") else None
            if ev:
                print("   evidence in", m.sender, m.kind, m.seq, [(w.get("from"), w.get("seq")) for w in ev])
        print("   equivocations", {k: len(v) for k, v in zero.equivocations.items()})
    data = transcript.to_data(zero)
    print("  seat 0 equivocations field holds", sum(len(v) if isinstance(v, list) else 1
                                                   for v in data.get("equivocations", [])), "items")
    data["equivocations"] = []
    data["verdict"] = None
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "crafted.p2php"
        path.write_bytes(msgpack.packb(data, use_bin_type=True))
        result = transcript.verify(path)
    v = result.spectator.verdict if result.spectator is not None else None
    print("  p2php verify of seat 0's record without 'equivocations':", v)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(next((a for a in sys.argv[1:] if a.isdigit()), "1"))))
