"""A peer's audit takes a signed answer to the decision it stopped at only if it was signed against the state that
decision began in (red-team rv8-verify).

UNO, fast deck. Seat 1 plays a Wild naming one colour to seat 0 and, validly signed too, the same Wild naming another
to seat 2; seat 2, honest, follows the colour it was told. Seat 0 takes that play, its ``seen`` head naming the other
version, and stops (a dispute); seat 2 audits before it learns of it, so no signed body holds the other version. A
record of seat 0's view without its unsigned ``equivocations`` field (what the equivocator hands a verifier) was
replayed by ``p2php verify`` naming seat 2 ``hidden_lie``, and so did seat 0 itself when the relays that would have
brought it the other version were lost: the audit checked the play, signed in the other colour's state, on its own
(``_stopped_answers`` read no ``state`` field; ``witness.answer_at`` does).
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import msgpack
import pytest
from adversarial.tampers import signed_by

from p2php.engine.contract import RandomBot
from p2php.games.uno.cards import COLOURS, WILD
from p2php.session import transcript
from p2php.session.memory import make_peers


def _equivocated_wild(seed: int, drop: bool) -> tuple[list[Any], dict[str, Any]]:
    peers = make_peers("uno", 3, {"crypto": "fast"}, seed=seed)
    deck = peers[0].state.deck
    st: dict[str, Any] = {"wild": None, "colour": None, "played": None}

    def colours_of_two() -> set[int]:
        two = peers[2]
        return {deck.colour[two.private_faces[s]] for s in two.state.hands[2] if s in two.private_faces} - {-1}

    class One(RandomBot):  # the cheater: a plain Wild, naming a colour seat 2 lacks, once seat 2 holds two colours
        def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
            held = colours_of_two()
            for a in legal if st["wild"] is None and len(held) >= 2 else []:
                if a.get("type") == "play" and "colour" in a and deck.kind[knowledge.face(a["slot"])] == WILD \
                        and COLOURS.index(a["colour"]) not in held:
                    st["wild"], st["colour"] = a["slot"], COLOURS[min(held)]
                    return a
            return super().choose(state, seat, knowledge, legal)

    class Two(RandomBot):  # honest: follows the colour it was told with a coloured card
        def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
            for a in legal if st["colour"] is not None and st["played"] is None else []:
                face = knowledge.face(a["slot"]) if a.get("type") == "play" and "colour" not in a else None
                if face is not None and deck.colour[face] == COLOURS.index(st["colour"]) and deck.kind[face] != WILD:
                    st["played"] = a
                    return a
            return super().choose(state, seat, knowledge, legal)

    bots = {0: RandomBot(seed * 10), 1: One(seed * 10 + 1), 2: Two(seed * 10 + 2)}

    def tamper(sender: int, to: int, wire: dict[str, Any]) -> dict[str, Any]:
        body = wire.get("body", {})
        act = body.get("action") if wire.get("kind") == "action" else None
        if sender == 1 and to == 2 and isinstance(act, dict) and act.get("type") == "play" \
                and st["wild"] is not None and act.get("slot") == st["wild"]:
            return signed_by(peers[1], {**wire, "body": {**body, "action": {**act, "colour": st["colour"]}}})
        return wire

    queue: deque[tuple[int, int, dict[str, Any], bool]] = deque()
    held: list[tuple[int, int, dict[str, Any], bool]] = []

    def deliver(sender: int, to: int, wire: dict[str, Any], relay: bool) -> None:
        if drop and to == 0 and relay and sender in (1, 2) and st["played"] is not None:
            return  # the cheater relays nothing, and seat 2's relays to seat 0 are lost (its link dropped)
        if to == 2 and sender != 2 and st["played"] is not None and not peers[2].auditing:
            held.append((sender, to, wire, relay))  # seat 2 learns nothing more until it audits
        elif relay:
            peers[to].receive_relayed(wire)
        else:
            peers[to].receive(sender, wire)

    for _ in range(20_000):
        moved = False
        for ls in peers:
            while not ls.finished:
                if ls.awaiting_me():
                    ls.act(bots[ls.seat].choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions()))
                for msg in ls.poll():
                    moved = True
                    queue.extend((ls.seat, o.seat, tamper(ls.seat, o.seat, ls.wire_for(msg, o.seat)), False)
                                 for o in peers if o is not ls)
                if not ls.awaiting_me():
                    break
            fwd, ls.forward = ls.forward, []
            queue.extend((ls.seat, o.seat, w, True) for w in fwd for o in peers if o is not ls)
        while queue:
            moved = True
            deliver(*queue.popleft())
        for h in [h for h in held if peers[h[1]].auditing]:
            moved = True
            held.remove(h)
            deliver(*h)
        if all(p.finished for p in peers):
            break
        if not moved:  # seat 2 waits on: its own clock stops it first
            waiting = [p for p in peers if not p.finished and not p.auditing]
            for p in waiting or [p for p in peers if not p.finished]:
                p.timeout()
    return peers, st


@pytest.mark.crypto("fast")
@pytest.mark.parametrize("seed", [2, 3])
def test_an_answer_signed_in_another_state_is_not_checked_on_ours(seed: int, tmp_path: Path) -> None:
    peers, st = _equivocated_wild(seed, drop=False)
    assert st["played"] is not None
    for p in peers:  # the seats, who hold both versions, name the equivocator
        assert p.verdict is not None and (p.verdict.culprit, p.verdict.code) == (1, "equivocation"), p.verdict
    data = transcript.to_data(peers[0])
    assert data["equivocations"]
    data.update(equivocations=[], verdict=None)
    path = tmp_path / "crafted.p2php"
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    result = transcript.verify(path)
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None and v.culprit != 2, result.lines


@pytest.mark.crypto("fast")
@pytest.mark.parametrize("seed", [2, 3])
def test_a_seat_that_never_got_the_other_version_never_names_the_follower(seed: int, tmp_path: Path) -> None:
    """Live: the relays that would have brought seat 0 the other version are lost (the cheater relays nothing,
    seat 2's link to seat 0 drops once its audit is out). Seat 0 names nobody it cannot prove (before: seat 2,
    honest, ``hidden_lie``, and so did ``p2php verify`` of its record)."""
    peers, st = _equivocated_wild(seed, drop=True)
    assert st["played"] is not None
    zero = peers[0]
    assert not zero.equivocations
    assert zero.verdict is not None and zero.verdict.culprit != 2, zero.verdict
    result = transcript.verify(transcript.save(zero, tmp_path / "seat0.p2php"))
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None and v.culprit != 2, result.lines
