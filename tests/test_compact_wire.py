"""The compact wire form of messages (protocol.md §5.4): round trips, the full-form fallback, its bounds.

A compact frame leaves out what the receiver rebuilds from its own copies (``prev``, the ``seen`` hashes);
a frame that cannot be rebuilt, or whose rebuilt signature fails, is never judged: its full form is asked
for and judged instead, so a third party's equivocation is still proven and an honest sender never named.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from adversarial.tampers import equivocating_split, signed_by

from p2php.bots import RandomBot
from p2php.session.compact import (
    FRAME,
    MAX_IDLE_WANTS,
    MAX_OUTSTANDING,
    MAX_PENDING,
    compact_frame,
    parse_compact,
    rebuild,
)
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.messages import KINDS, BadMessage, Message, signing_bytes


def _game(seed: int = 3, compact: bool = False, tamper: Any = None, players: int = 3) -> list[Lockstep]:
    peers = make_peers("toy", players, {}, seed=seed)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)}, tamper=tamper, compact=compact)
    return peers


@pytest.fixture(scope="module")
def played() -> list[Lockstep]:
    return _game()


def _copies(peer: Lockstep) -> dict[tuple[int, int], Message]:
    return {(m.sender, m.seq): m for m in peer.transcript}


def test_every_message_of_a_game_rebuilds_byte_for_byte_from_the_receivers_copies(played: list[Lockstep]) -> None:
    peer = played[0]
    held = _copies(peer)
    compacted = 0
    for msg in peer.transcript:
        wire = msg.to_wire()
        short = compact_frame(wire, 3, lambda q, s=msg.sender: held.get((s, q)))  # type: ignore[misc]
        if msg.kind in ("abort", "audit"):
            assert short is None  # the messages that stop a game always travel in full
            continue
        assert short is not None and short.keys() == {FRAME}
        frame = parse_compact(msgpack.unpackb(msgpack.packb(short[FRAME]), raw=False), 3, msg.sender)
        again = rebuild(frame, msg.sender, peer.session_id, lambda s, q: held.get((s, q)), msg.state)
        assert again is not None and again.wire_bytes == msg.wire_bytes and again.msg_hash == msg.msg_hash
        assert len(msgpack.packb(short)) < len(msgpack.packb(wire))
        compacted += 1
    assert compacted > 10


def test_a_missing_copy_means_no_rebuild(played: list[Lockstep]) -> None:
    peer = played[0]
    msg = next(m for m in peer.transcript if m.seen and m.seq > 0)
    held = _copies(peer)
    short = compact_frame(msg.to_wire(), 3, lambda q: held.get((msg.sender, q)))
    assert short is not None
    frame = parse_compact(short[FRAME], 3, msg.sender)
    o, q, _ = msg.seen[0]
    assert rebuild(frame, msg.sender, peer.session_id, lambda s, n: held.get((s, n)), msg.state) is not None
    assert rebuild(frame, msg.sender, peer.session_id, lambda s, n: held.get((s, n)), None) is None  # not at its tick
    assert rebuild(frame, msg.sender, peer.session_id, lambda s, n: None if (s, n) == (o, q) else held.get((s, n)),
                   msg.state) is None
    assert rebuild(frame, msg.sender, peer.session_id,
                   lambda s, n: None if (s, n) == (msg.sender, msg.seq - 1) else held.get((s, n)), msg.state) is None


def test_forms_that_cannot_be_rebuilt_exactly_travel_in_full(played: list[Lockstep]) -> None:
    msg = next(m for m in played[0].transcript if len(m.seen) == 2)
    wire = msg.to_wire()
    assert compact_frame({**wire, "seen": list(reversed(wire["seen"]))}, 3) is None  # not ascending
    assert compact_frame({**wire, "seen": [[msg.sender, 0, bytes(32)]]}, 3) is None  # its own seat
    assert compact_frame({**wire, "seen": [[0, True, bytes(32)]]}, 3) is None  # a boolean number
    assert compact_frame({**wire, "extra": 1}, 3) is None
    assert compact_frame({"relay": wire}, 3) is None and compact_frame({"fin": 1}, 3) is None


def _good_raw(played: list[Lockstep]) -> tuple[Message, list[Any]]:
    msg = next(m for m in played[0].transcript if m.seen and m.kind != "audit")
    short = compact_frame(msg.to_wire(), 3)
    assert short is not None
    return msg, list(short[FRAME])


@pytest.mark.parametrize(("index", "value", "words"), [
    (0, -1, "non-negative"), (0, True, "non-negative"), (1, "0", "non-negative"),
    (3, [None], "must list 3 entries"), (3, [0, 0, 0], "bad seen head"),
    (4, KINDS.index("abort"), "cannot travel compact"), (4, len(KINDS), "cannot travel compact"),
    (4, "keys", "cannot travel compact"), (5, [], "body must be a map"),
    (6, bytes(63), "signature must be 64 bytes"),
])
def test_a_malformed_compact_frame_is_refused_in_one_line(played: list[Lockstep], index: int, value: Any,
                                                          words: str) -> None:
    msg, raw = _good_raw(played)
    raw[index] = value
    if index == 3 and value == [0, 0, 0]:
        raw[3] = [None, None, None]
        raw[3][msg.sender] = 0  # a head for the sender's own seat
    with pytest.raises(BadMessage, match=words) as err:
        parse_compact(raw, 3, msg.sender)
    assert "\n" not in str(err.value)
    with pytest.raises(BadMessage, match="list of 7"):
        parse_compact(raw[:6], 3, msg.sender)


def test_a_game_played_compact_has_the_same_transcript_as_one_played_in_full(played: list[Lockstep]) -> None:
    again = _game(compact=True)
    for full, short in zip(played, again, strict=True):
        assert short.verdict is not None and short.verdict.clean, short.verdict
        assert [m.wire_bytes for m in short.transcript] == [m.wire_bytes for m in full.transcript]
        assert not short.compact.asked  # honest peers never needed a full form


def test_a_compact_frame_waits_for_the_message_it_names_and_is_then_rebuilt(played: list[Lockstep]) -> None:
    order = played[2].transcript
    late = next(m for m in order if m.sender == 1 and any(o == 0 for o, _, _ in m.seen) and m.at > (0, 0))
    named = next(q for o, q, _ in late.seen if o == 0)
    fresh = make_peers("toy", 3, {}, seed=3)[2]  # seat 2 again, before it got anything (it never polls here)
    for m in order[:order.index(late)]:
        if m.sender != 0 or m.seq < named:
            assert fresh.receive_relayed(m.to_wire())
    short = compact_frame(late.to_wire(), 3, lambda q: fresh.held_copy(1, q))
    assert short is not None
    fresh.receive_compact(1, short[FRAME])  # names seat 0's message, which has not come yet: it waits
    assert fresh.known_seq(1) < late.seq and len(fresh.compact.pending.get(1, [])) == 1
    assert not fresh.compact.wants and fresh.fault is None
    fresh.receive(0, next(m for m in order if (m.sender, m.seq) == (0, named)).to_wire())
    assert fresh.known_seq(1) == late.seq and not fresh.compact.pending and not fresh.compact.wants
    assert fresh.fault is None


def test_a_third_partys_equivocation_is_proven_through_the_full_form_and_the_honest_sender_never_named() -> None:
    peers = make_peers("toy", 3, {}, seed=21)
    run_in_memory(peers, {s: RandomBot(210 + s) for s in range(3)}, tamper=equivocating_split(peers), compact=True)
    # Seat 0's next message names seat 1's bid by the hash seat 0 holds; seat 2 holds the other version, so
    # the rebuilt signature fails and seat 2 asks seat 0 for the full form, which carries seat 0's hash.
    assert any(p.compact.asked for p in peers)
    for p in (peers[0], peers[2]):
        v = p.verdict
        assert v is not None and v.culprit == 1 and v.code == "equivocation", (p.seat, v)


def test_equivocation_towards_one_seat_is_named_with_compact_links() -> None:
    peers = make_peers("toy", 3, {}, seed=8)

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 0 and recipient == 2 and frame["kind"] == "action" and \
                frame["body"]["action"].get("type") == "bid":
            n = frame["body"]["action"]["n"]
            return signed_by(peers[0], {**frame, "body": {"action": {"type": "bid", "n": (n + 1) % 3}, "keys": []}})
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper, compact=True)
    for p in peers[1:]:
        assert p.verdict is not None and not p.verdict.clean and p.verdict.culprit == 0, p.verdict


def _garbage(played: list[Lockstep], seq: int, at: tuple[int, int] = (0, 0)) -> list[Any]:
    return [seq, at[0], at[1], [None, None, None], KINDS.index("keys"), {"keys": []}, bytes(64)]


def test_garbage_compact_frames_cost_one_request_each_and_name_nobody_until_the_full_form() -> None:
    played = _game()
    peer = make_peers("toy", 3, {}, seed=3)[0]
    peer.receive_compact(1, _garbage(played, 0))
    peer.receive_compact(1, _garbage(played, 0))  # the same number again: no second request
    assert peer.compact.wants == [(1, 0)] and peer.fault is None
    # The sender answers with a full form that is garbage too: that one is judged, and names it.
    wire = {"from": 1, "seq": 0, "prev": peer.session_id, "at": [0, 0], "state": bytes(32), "seen": [],
            "kind": "keys", "body": {"keys": []}, "sig": bytes(64)}
    peer.receive(1, wire)
    assert peer.fault is not None and peer.fault.culprit == 1 and "signature" in peer.fault.reason


def test_a_sender_that_does_not_back_its_compact_frames_is_named_a_flood() -> None:
    played = _game()
    peer = make_peers("toy", 3, {}, seed=3)[0]
    for seq in range(MAX_OUTSTANDING + 1):
        peer.receive_compact(2, _garbage(played, seq))
    assert len(peer.compact.wants) == MAX_OUTSTANDING + 1
    assert peer.fault is not None and peer.fault.culprit == 2 and peer.fault.code == "flood", peer.fault
    assert "\n" not in peer.fault.reason


def test_compact_frames_waiting_for_far_points_are_bounded() -> None:
    played = _game()
    peer = make_peers("toy", 3, {}, seed=3)[0]
    for seq in range(1, MAX_PENDING + 1):  # message 0 never comes: every one waits for its 'prev'
        peer.receive_compact(1, _garbage(played, seq, at=(50, 0)))
    assert peer.fault is None and len(peer.compact.pending[1]) == MAX_PENDING  # the bound itself is allowed
    peer.receive_compact(1, _garbage(played, MAX_PENDING + 1, at=(50, 0)))
    assert peer.fault is not None and peer.fault.culprit == 1 and peer.fault.code == "flood", peer.fault
    assert 1 in peer.flooded and not peer.compact.pending.get(1)


def test_full_form_requests_are_answered_once_each_and_a_flood_of_them_is_named(played: list[Lockstep]) -> None:
    peers = _game()
    me = peers[0]
    me.finished = False  # answer as if still playing (the game above is over)
    mine = [m for m in me.transcript if m.sender == 0]
    # (a fast deck's first pass answers seat 1, which makes the next pass, with its points: §6.4)
    assert me.answer_want(1, mine[0].seq) == me.wire_for(mine[0], 1)
    assert me.answer_want(1, mine[0].seq) is None  # once per number
    assert me.answer_want(2, mine[0].seq) == mine[0].to_wire()  # per requester
    for bogus in range(MAX_IDLE_WANTS - 1):  # the repeated request above counted too
        assert me.answer_want(1, 10**6 + bogus) is None
    assert 1 not in me.flooded
    assert me.answer_want(1, "nope") is None
    assert 1 in me.flooded and me.answer_want(1, mine[1].seq) is None


async def test_a_peer_without_the_compact_feature_interoperates_over_real_links(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php.session.local_net import run_local_table
    from p2php.session.runner import bot_decider

    links: set[tuple[int | None, int]] = set()
    real = Lockstep.receive_compact

    def spy(self: Lockstep, sender: int, raw: Any) -> None:
        links.add((self.seat, sender))
        real(self, sender, raw)

    monkeypatch.setattr(Lockstep, "receive_compact", spy)
    deciders = [bot_decider(RandomBot(40 + s)) for s in range(3)]
    results = await run_local_table("toy", 3, deciders, {}, seed=4, timeout=10.0, observed={"compact": False})
    for r in results:
        assert r.lockstep.verdict is not None and r.lockstep.verdict.clean, r.lockstep.verdict
    assert len({r.lockstep.verdict.state_hash for r in results if r.lockstep.verdict is not None}) == 1
    assert len({frozenset(m.msg_hash for m in r.lockstep.transcript) for r in results}) == 1
    assert links == {(1, 2), (2, 1)}  # seat 0 offered no compact form: its links carried full forms only


def test_link_features_are_those_both_ends_offer() -> None:
    from p2php.net.mesh import COMPACT, LinkSetup

    hello = {"seat": 0}
    a = LinkSetup(hello, hello, dialer=True, sign=None, features=(COMPACT,))
    b = LinkSetup(hello, hello, dialer=False, sign=None, features=(COMPACT,))
    old = LinkSetup(hello, hello, dialer=False, sign=None)
    assert "wire" not in old.challenge()
    a.proof(b.challenge())
    assert a.agreed == {COMPACT}
    c = LinkSetup(hello, hello, dialer=True, sign=None, features=(COMPACT,))
    c.proof(old.challenge())
    assert c.agreed == frozenset()


def test_a_sender_whose_state_differs_is_named_through_its_full_form_never_from_the_compact_one() -> None:
    # Seat 1 signs another state hash in what it sends seat 0 from its 4th message on. The compact form leaves
    # the state out; seat 0 rebuilds with its own, the signature fails, it asks for the full form, and the full
    # form (through the same cheating sender) is what names seat 1.
    peers = make_peers("toy", 3, {}, seed=5)
    signer = peers[1].secrets
    assert signer is not None

    def lie(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender != 1 or receiver != 0 or frame.get("seq", 0) < 3 or frame.get("kind") in ("abort", "audit"):
            return frame
        other = {**{k: v for k, v in frame.items() if k != "sig"}, "state": bytes(32)}
        return {**other, "sig": signer.identity.sign(signing_bytes(peers[1].session_id, other))}

    run_in_memory(peers, {s: RandomBot(50 + s) for s in range(3)}, tamper=lie, compact=True)
    assert (1, 3) in peers[0].compact.asked
    for p in (peers[0], peers[2]):
        assert p.verdict is not None and p.verdict.culprit == 1, (p.seat, p.verdict)


def test_heads_that_go_back_are_sent_in_full(played: list[Lockstep]) -> None:
    peer = played[0]
    held = _copies(peer)
    msg = next(m for m in peer.transcript if m.seq > 0 and m.seen and m.kind != "audit"
               and any(q > 0 for _, q, _ in held[(m.sender, m.seq - 1)].seen))
    wire = msg.to_wire()
    assert compact_frame(wire, 3, lambda q: held.get((msg.sender, q))) is not None
    seat = next(o for o, q, _ in held[(msg.sender, msg.seq - 1)].seen if q > 0)
    back = {**wire, "seen": [[o, 0 if o == seat else q, h] for o, q, h in wire["seen"]]}
    assert compact_frame(back, 3, lambda q: held.get((msg.sender, q))) is None


def test_a_compact_copy_of_a_message_already_held_is_a_duplicate_without_a_request(played: list[Lockstep]) -> None:
    order = played[2].transcript
    fresh = make_peers("toy", 3, {}, seed=3)[2]
    for m in order:
        assert fresh.receive_relayed(m.to_wire())
    old = next(m for m in order if m.sender == 1 and m.at[0] > 0 and m.kind != "audit")
    short = compact_frame(old.to_wire(), 3, lambda q: fresh.held_copy(1, q))
    assert short is not None
    fresh.receive_compact(1, short[FRAME])  # its tick is long past, but we hold it: rebuilt from our copy
    assert not fresh.compact.wants and not fresh.compact.pending and fresh.fault is None


def test_a_garbage_compact_copy_of_a_message_we_hold_sent_again_is_asked_for_once_and_names_nobody(
        played: list[Lockstep]) -> None:
    """Its rebuilt signature fails (some copy differs, or garbage): the full form is asked for once, however
    often the copy comes; asking again is no flood."""
    fresh = make_peers("toy", 3, {}, seed=3)[2]
    for m in played[2].transcript[:len(played[2].transcript) // 2]:
        assert fresh.receive_relayed(m.to_wire())
    assert fresh.known_seq(1) >= 1
    for _ in range(3):
        fresh.receive_compact(1, _garbage(played, 0))
    assert fresh.compact.wants == [(1, 0)] and fresh.fault is None and 1 not in fresh.flooded


def test_a_head_that_stands_where_it_stood_travels_compact_as_a_step_of_zero(played: list[Lockstep]) -> None:
    peer = played[0]
    held = _copies(peer)
    msg = next(m for m in peer.transcript if m.seq > 0 and m.seen and m.kind != "audit"
               and any(q > 0 for _, q, _ in held[(m.sender, m.seq - 1)].seen))
    before = {o: q for o, q, _ in held[(msg.sender, msg.seq - 1)].seen}
    seat = next(o for o, q in before.items() if q > 0)
    wire = msg.to_wire()
    same = {**wire, "seen": [[o, before[seat] if o == seat else q, h] for o, q, h in wire["seen"]]}
    if seat not in {o for o, _, _ in wire["seen"]}:
        same["seen"] = sorted([*same["seen"], [seat, before[seat], held[(seat, before[seat])].msg_hash]])
    short = compact_frame(same, 3, lambda q: held.get((msg.sender, q)))
    assert short is not None and short[FRAME][3][seat] == 0


def test_seen_heads_named_twice_or_out_of_order_are_sent_in_full(played: list[Lockstep]) -> None:
    """The receiver rebuilds ``seen`` in ascending seats, once each: any other order could not come back byte for
    byte (the rebuilt signature would fail, and the full form would be asked for anyway)."""
    peer = played[0]
    held = _copies(peer)
    msg = next(m for m in peer.transcript if m.kind != "audit" and len(m.seen) == 2)
    wire = msg.to_wire()
    assert compact_frame(wire, 3, lambda q: held.get((msg.sender, q))) is not None
    first, second = wire["seen"]
    for seen in ([first, first], [second, first]):
        assert compact_frame({**wire, "seen": seen}, 3, lambda q: held.get((msg.sender, q))) is None
