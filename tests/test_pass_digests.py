"""Pass digests (protocol v8, §6.4): a fast pass's points go to the seat that makes the next pass, and only there.

Every peer still signs, chains and audits every pass: the others hold its digest, and the audit recomputes each pass
from the released secrets and compares it with what was signed. These tests check who gets the points, that a
table loses nothing by it (games end clean, a cheating pass is named by every honest peer), and what happens when
the points are wrong, missing, or arrive after a relayed copy of their message.
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from p2php.bots import RandomBot
from p2php.crypto import deck, group
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.messages import ATT
from p2php.session.pass_digests import MAX_WAITING_ATTS, pass_digest

pytestmark = pytest.mark.crypto("fast")  # the fast deck's own mechanics

Sends = Counter[tuple[int, int, int, bool]]
"""(sender, recipient, phase of a deck-0 pass, whether its points came along) -> how many frames."""


def _run(peers: list[Lockstep], tamper: Any = None, seed: int = 0, **kw: Any) -> list[Lockstep]:
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(len(peers))}, tamper=tamper, **kw)
    return peers


def _recorder(sends: Sends, then: Any = None) -> Any:
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if frame.get("kind") in ("shuffle", "lock") and frame["at"][0] == 0:
            sends[(sender, recipient, frame["at"][1], ATT in frame)] += 1
        return then(sender, recipient, frame) if then is not None else frame

    return tamper


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_pass_sends_its_points_to_the_next_passer_only(players: int) -> None:
    sends: Sends = Counter()
    peers = _run(make_peers("toy", players, {"reveal_end": True}, seed=3), _recorder(sends))
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    n = players
    passers = list(range(n)) + list(range(n - 1, -1, -1))  # shuffle 0 … n−1, lock n−1 … 0 (§6.3)
    for phase, sender in enumerate(passers):
        got = {r for (s, r, ph, att) in sends if ph == phase and att}
        plain = {r for (s, r, ph, att) in sends if ph == phase and not att}
        assert all(s == sender for (s, _, ph, _) in sends if ph == phase)
        last = phase == 2 * n - 1
        following = passers[phase + 1] if not last else None
        if last:
            assert got == set(), "the last pass carries its points in its body, to everyone"
            body_holds_points = True
        elif following == sender:
            assert got == set(), "the last shuffler is its own next passer: its shuffle's points go nowhere"
            body_holds_points = False
        else:
            assert got == {following}
            body_holds_points = False
        assert got | plain == set(range(n)) - {sender} and not got & plain
        for p in peers:
            msg = p.decks[0] and [m for m in p.transcript if m.at == (0, phase)][0]
            assert ("cards" in msg.body) == body_holds_points and ("digest" in msg.body) != body_holds_points
    # The audit of every peer had every pass: points where it held them, else the digest it checked them by.
    for p in peers:
        rec = p.decks[0]
        assert len(rec.passes) == len(rec.digests) == 2 * n
        assert rec.passes[-1][2] is not None and rec.digests[-1] is None


def test_pass_bytes_shrink_with_the_table() -> None:
    """How many copies of a deck's points a 4-seat table sends: 3 + 3 + 3 instead of 8 × 3 (v7)."""
    sends: Sends = Counter()
    _run(make_peers("toy", 4, {}, seed=5), _recorder(sends))
    copies = sum(c for (_, _, _, att), c in sends.items() if att)
    assert copies == 6  # shuffle 0→1, 1→2, 2→3; lock 3→2, 2→1, 1→0 (the last pass's three copies hold them in
    # their body)


def test_a_wrong_permutation_behind_a_digest_is_named_by_every_honest_peer() -> None:
    liar = 1

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        return frame

    peers = make_peers("toy", 4, {"reveal_end": True}, seed=7)
    send = peers[liar]._send

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "shuffle" and isinstance(body.get("cards"), bytes) and peers[liar].tick == 0:
            cards = deck.unpack(body["cards"], group.POINT_SIZE)
            cards[0], cards[1] = cards[1], cards[0]  # a valid shuffle, but not the one its secret dictates
            body = {"cards": deck.pack(cards)}
        return send(kind, body)

    peers[liar]._send = cheating_send  # type: ignore[method-assign]
    _run(peers, tamper)
    for p in peers:
        if p.seat != liar:
            assert p.verdict is not None and p.verdict.culprit == liar and p.verdict.code == "bad_pass", p.verdict
            assert "shuffle pass of deck 0 was not a permutation" in p.verdict.reason


def test_points_that_are_not_the_digested_ones_name_their_sender() -> None:
    """The next passer refuses points its sender's digest does not name, on the sender's own link."""
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 0 and ATT in frame and frame["at"] == [0, 0]:
            points = bytearray(frame[ATT])
            points[5] ^= 1
            return {**frame, ATT: bytes(points)}  # its signature still holds: the points are not signed
        return frame

    peers = _run(make_peers("toy", 3, {}, seed=9), tamper)
    assert peers[1].fault is not None and peers[1].fault.culprit == 0 and peers[1].fault.code == "bad_message"
    assert "not the points its digest names" in peers[1].fault.reason
    for p in peers[1:]:
        assert p.verdict is not None and p.verdict.culprit in (0, None), p.verdict  # never an honest seat


def test_points_kept_back_make_their_sender_silent_towards_the_next_passer() -> None:
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and ATT in frame:
            return {k: v for k, v in frame.items() if k != ATT}
        return frame

    peers = make_peers("toy", 3, {}, seed=11)
    # Seat 2's heartbeats say it still waits at seat 1's pass (§6.9, "behind"): the in-memory harness has no
    # heartbeats, so seat 0 is told so, as a linked peer would be.
    late = peers[0].timeout
    peers[0].timeout = lambda seats=None, unreachable=frozenset(), behind=frozenset(): late(  # type: ignore
        seats, unreachable, behind | {2})
    _run(peers, tamper)
    assert peers[2].fault is not None and peers[2].fault.culprit == 1 and peers[2].fault.code == "silent"
    for p in (peers[0], peers[2]):
        assert p.verdict is not None and p.verdict.culprit in (1, None), p.verdict  # never an honest seat


def _first_intermediate(peers: list[Lockstep]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Seat 0's first pass as seat 1 gets it (with its points) and as seat 2 does (without)."""
    sender = peers[0]
    for _ in range(4):
        out = sender.poll()
        if out:
            msg = out[0]
            return sender.wire_for(msg, 1), sender.wire_for(msg, 2)
    raise AssertionError("seat 0 sent no pass")


def test_a_relayed_copy_without_points_waits_for_them() -> None:
    """A relay (catching up) may bring the message first; the next passer takes the pass once its points come."""
    peers = make_peers("toy", 3, {}, seed=13)
    full, plain = _first_intermediate(peers)
    assert ATT in full and ATT not in plain and plain["body"]["digest"] == pass_digest(full[ATT])
    nxt = peers[1]
    nxt.poll()  # at the deck's first pass (seat 0's)
    assert nxt.receive_relayed(plain)
    assert nxt.sync_seq(0) == -1  # asks seat 0 to send it again: with its points
    assert not nxt.poll() and nxt.waiting_for() == [0]
    logged: list[dict[str, Any]] = []
    nxt.record = logged.append
    nxt.receive_relayed(plain)
    assert logged == []  # a copy that brings nothing new is not logged again
    nxt.receive(0, full)  # the duplicate brings the points
    assert [w[ATT] for w in logged if w.get("seq") == 0 and w.get("from") == 0] == [full[ATT]]  # the resume log too
    assert nxt.sync_seq(0) == 0
    nxt.poll()
    assert nxt.fault is None and nxt.phase >= 1
    assert [(m.sender, m.kind) for m in nxt.transcript] == [(0, "shuffle"), (1, "shuffle")]  # and it made its own


def test_a_pass_sent_again_to_some_seats_carries_its_points_only_to_the_next_passer_among_them() -> None:
    peers = make_peers("toy", 3, {}, seed=13)
    full, plain = _first_intermediate(peers)
    sender = peers[0]
    msg = sender.transcript[-1]
    assert [(ATT in w, to) for w, to in sender.deliveries(msg, [1, 2])] == [(True, [1]), (False, [2])]
    assert [(ATT in w, to) for w, to in sender.deliveries(msg, [2])] == [(False, [2])]  # seat 1 not among them
    assert [(ATT in w, to) for w, to in sender.deliveries(msg, [1])] == [(True, [1])]


def test_a_seat_that_is_not_the_next_passer_takes_the_digest_at_once() -> None:
    peers = make_peers("toy", 3, {}, seed=13)
    _, plain = _first_intermediate(peers)
    other = peers[2]
    other.receive(0, plain)
    other.poll()
    assert other.fault is None and other.phase == 1
    assert other.decks[0].passes[0][2] is None and other.decks[0].digests[0] == plain["body"]["digest"]


def test_a_relay_with_wrong_points_names_nobody_and_keeps_nothing() -> None:
    peers = make_peers("toy", 3, {}, seed=13)
    full, _ = _first_intermediate(peers)
    nxt = peers[1]
    bad = {**full, ATT: full[ATT][:-1] + bytes([full[ATT][-1] ^ 1])}
    assert nxt.receive_relayed(bad)
    assert nxt.fault is None and not nxt.attachments
    assert nxt.waiting_for() == [0] or not nxt.poll()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_deck_of_a_reshuffling_game_sends_each_passes_points_to_the_next_passer(players: int) -> None:
    """Reshuffles of face-down cards (a rekey round first: 3n passes), of public faces, and a secret-composition
    deck (its first pass in the body: the audit opens the owner's list from it): in every deck a pass whose body
    signs a digest sends its points to the seat that makes the pass after it, and to nobody else; a pass whose
    body holds its points sends none beside it."""
    import reshuffle_game  # noqa: F401  (registers "reshuffle-toy")

    sends: Counter[tuple[int, int, int, int, bool]] = Counter()

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if frame.get("kind") in ("shuffle", "lock"):
            sends[(sender, recipient, frame["at"][0], frame["at"][1], ATT in frame)] += 1
        return frame

    peers = _run(make_peers("reshuffle-toy", players, {"secret": True}, seed=4), tamper)
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    passes = {m.at: m for m in peers[0].transcript if m.kind in ("shuffle", "lock")}
    hidden = [rec for rec in peers[0].decks if rec.hidden]
    assert hidden and all(len([at for at in passes if at[0] == rec.tick]) == 3 * players for rec in hidden)
    for (tick, phase), msg in passes.items():
        got = {r for (s, r, t, ph, att) in sends if (t, ph) == (tick, phase) and att}
        after = passes.get((tick, phase + 1))
        if "cards" in msg.body or after is None or after.sender == msg.sender:
            assert got == set(), (tick, phase)
        else:
            assert "digest" in msg.body and got == {after.sender}, (tick, phase, got, after.sender)


def _bare(kind: str, sender: int, seq: int, digest: bytes, at: tuple[int, int] = (0, 0)) -> Any:
    """A message as the points bookkeeping reads it (kind, sender, seq, tick and phase, a body naming ``digest``)."""
    return SimpleNamespace(kind=kind, sender=sender, seq=seq, at=at, body={"digest": digest})


def test_only_a_pass_of_a_fast_deck_can_make_a_seat_wait_for_points() -> None:
    """A body that names a ``digest`` in any other message (a hostile sender's) never makes us wait for points."""
    peers = make_peers("toy", 3, {}, seed=13)
    full, _ = _first_intermediate(peers)
    nxt = peers[1]
    nxt.poll()
    digest = full["body"]["digest"]

    def msg(kind: str, sender: int = 0, at: tuple[int, int] = (0, 0)) -> Any:
        return _bare(kind, sender, 0, digest, at)

    assert nxt.needs_points(msg("shuffle"))  # seat 1 makes the pass after seat 0's first
    assert not nxt.needs_points(msg("keys")) and not nxt.needs_points(msg("action"))
    assert not nxt.needs_points(msg("shuffle", sender=1)) and not nxt.needs_points(msg("shuffle", at=(0, 1)))
    assert not peers[2].needs_points(msg("shuffle"))  # not the next passer
    assert not nxt.needs_points(msg("shuffle", at=(7, 0)))  # no deck at that tick


def test_points_of_another_seat_are_bounded() -> None:
    """Points nobody asked for are kept at most four per seat (an honest seat has one in flight to us)."""
    peers = make_peers("toy", 3, {}, seed=13)
    full, _ = _first_intermediate(peers)
    nxt = peers[1]
    nxt.receive(0, full)
    assert len(nxt.attachments) == 1
    kinds = Counter(s for s, _ in nxt.attachments)
    assert kinds[0] <= 4
    # Points of later passes than the one in flight (a flood, or a seat running ahead): the fifth is dropped,
    # points of another sender are counted apart, points already taken or whose digest differs are not kept.
    def pass_of(sender: int, seq: int, points: bytes) -> Any:
        return _bare("shuffle", sender, seq, pass_digest(points))

    kept = [nxt.take_points(pass_of(0, seq, bytes([seq]) * 33), bytes([seq]) * 33, False) for seq in range(1, 7)]
    assert kept == [True, True, True, False, False, False]  # 1 held already (the first pass) + 3 = MAX_WAITING_ATTS
    assert nxt.take_points(pass_of(2, 5, b"x" * 33), b"x" * 33, False)
    assert not nxt.take_points(pass_of(2, 5, b"x" * 33), b"x" * 33, False)  # held already
    assert not nxt.take_points(pass_of(2, 6, b"y" * 33), b"z" * 33, False)  # a relay's wrong points: dropped
    assert not nxt.take_points(pass_of(2, -1, b"w" * 33), b"w" * 33, False)  # seat 2's pass we took last
    assert MAX_WAITING_ATTS == 4


def test_the_resume_log_keeps_the_points() -> None:
    peers = make_peers("toy", 3, {}, seed=13)
    logged: list[dict[str, Any]] = []
    peers[0].record = logged.append
    full, _ = _first_intermediate(peers)
    assert logged and logged[-1][ATT] == full[ATT]
