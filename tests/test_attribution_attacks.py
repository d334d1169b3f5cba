"""A cheating seat that lies about what it received, or relays what others sent, must not get an honest seat
named, nor make an honest peer spend without bound (found by a red-team of attribution, protocol.md §10.6).

The peers run the full protocol in memory (:mod:`p2php.session.memory`); the cheater is a ``tamper`` hook or a
peer driven by hand, re-signing what it alters with its own key, as a modified client would.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from adversarial.tampers import signed_by

from p2php.bots import RandomBot
from p2php.engine.contract import Decide
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.records import MAX_BACKLOG


def test_a_message_relayed_over_and_over_while_its_author_has_a_gap_is_kept_once() -> None:
    """Seat 1 holds its own pass back from seat 0 (inside every deadline), so seat 0 cannot yet take seat 2's
    compact pass that names it, and seat 2's next pass waits behind it; then seat 1 relays that genuine signed
    pass to seat 0 more times than the flood bound. Each copy was parked again and counted against its
    author: seat 0 named honest seat 2 ``flood``, and ignored it from then on. A copy is now kept once."""
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=7)
    held_back: list[dict[str, Any]] = []
    relayed = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender == 1 and receiver == 0 and frame.get("kind") == "shuffle" and frame["at"][1] == 1:
            held_back.append(frame)
            return None
        if sender == 2 and receiver == 1 and frame.get("kind") == "lock" and not relayed:
            wire = {k: v for k, v in frame.items() if k != "att"}
            relayed.append([peers[0].receive_relayed(wire) for _ in range(MAX_BACKLOG + 1)])
            assert len(peers[0].parked.get(2, ())) == 1  # (before: 2 049 copies, then "flood")
            for late in held_back:
                peers[0].receive(1, late)
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper, compact=True)
    assert relayed and all(relayed[0])
    for peer in peers:
        assert peer.verdict.clean, (peer.seat, peer.verdict)


def test_two_signed_versions_of_one_waiting_message_prove_equivocation() -> None:
    """The same rule's other side: a second, different signed message with a number already waiting names its
    author at once (the two signed copies are the proof), where before both were kept."""
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=7)
    held_back: list[dict[str, Any]] = []
    done: list[bool] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender == 1 and receiver == 0 and frame.get("kind") == "shuffle" and frame["at"][1] == 1:
            held_back.append(frame)
            return None
        if sender == 2 and receiver == 1 and frame.get("kind") == "lock" and not done:
            done.append(True)
            wire = {k: v for k, v in frame.items() if k != "att"}
            peers[0].receive_relayed(wire)
            other = signed_by(peers[2], {**wire, "state": bytes(32)})  # what only seat 2's key can sign
            peers[0].receive_relayed(other)
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper, compact=True)
    assert done
    assert peers[0].verdict.culprit == 2 and peers[0].verdict.code == "equivocation", peers[0].verdict


def _deliver(ls: Lockstep, peers: list[Lockstep]) -> bool:
    moved = False
    for msg in ls.poll():
        moved = True
        for other in peers:
            if other is not ls:
                other.receive(ls.seat, ls.wire_for(msg, other.seat))
    forwarded, ls.forward = ls.forward, []
    for wire in forwarded:
        moved = True
        for other in peers:
            if other is not ls:
                other.receive_relayed(wire)
    return moved


def test_an_abort_naming_a_seat_still_thinking_silent_convicts_nobody_at_that_seat_either() -> None:
    """The moment seat 0's turn began, cheater seat 1 ran its own deadline for seat 0 and sent the ``silent``
    abort. The other honest seat could not confirm it (unattributed), but seat 0's own verdict confirmed its own
    silence: an honest seat's transcript convicted itself on a cheater's word (protocol.md §9.3)."""
    peers = make_peers("toy", 3, {}, seed=11)
    bots = {s: RandomBot(s) for s in range(3)}
    victim: list[int] = []
    for _ in range(100_000):
        if all(p.finished for p in peers):
            break
        moved = False
        for ls in peers:
            if ls.finished:
                continue
            if ls.awaiting_me() and not victim and ls.seat != 1 and isinstance(ls.step, Decide):
                assert ls.seat is not None
                victim.append(ls.seat)  # its player is thinking
                peers[1].timeout([ls.seat])  # the cheater says its deadline passed
            elif ls.awaiting_me() and ls.seat not in victim:
                assert ls.seat is not None
                ls.act(bots[ls.seat].choose(ls.state, ls.seat, ls.knowledge(), ls.legal_actions()))
            moved = _deliver(ls, peers) or moved
        if not moved:
            for p in peers:
                if not p.finished:
                    p.timeout()
    assert victim and all(p.finished for p in peers)
    for peer in peers:
        if peer.seat != 1:
            assert peer.verdict.culprit is None and peer.verdict.code == "accusation", (peer.seat, peer.verdict)


@pytest.mark.parametrize("heads", [
    [[2, 10**12, bytes(32)], [2, 10**12 + 1, bytes(32)]],  # one seat twice
    [[2, 10**12, bytes(32)], [0, 10**12, bytes(32)]],  # out of order
    [[1, 10**12, bytes(32)]],  # its own seat
    [[7, 10**12, bytes(32)]],  # no such seat
    [[2, 10**12, bytes(32)], [3, 10**12, bytes(32)]],  # the seat just past the last
], ids=["twice", "unordered", "own-seat", "no-such-seat", "one-past"])
def test_seen_heads_out_of_shape_name_their_author_at_once(heads: list[list[Any]]) -> None:
    """``seen`` lists other seats, once each, in order (§5.1). A cheater padded its messages with tens of
    thousands of made-up heads: every honest peer kept each one for good and compared them all again at every
    message it processed (3.4 s of CPU over six messages of a short game), and named nobody."""
    peers = make_peers("toy", 3, {}, seed=3)
    padded: list[int] = []  # the number of the message it pads (the same copy to every peer)

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame.get("kind") == "action" and padded in ([], [frame["seq"]]):
            padded[:] = [frame["seq"]]
            return signed_by(peers[1], {**frame, "seen": heads})
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    for peer in (peers[0], peers[2]):
        verdict = peer.verdict
        assert verdict.culprit == 1 and verdict.code == "bad_message", verdict
        assert "'seen' must list other seats" in verdict.reason


def test_a_signed_message_padded_with_unknown_body_fields_names_its_author() -> None:
    """Body fields no kind has are ignored (§6.4), so a cheater padded its own signed messages with 4 MiB of one:
    every peer kept them for the rest of the game, four copies each, and wrote them to its transcript (1 GiB held,
    a record too big to verify), naming nobody. More than MAX_UNKNOWN_BODY bytes of them names the author."""
    from p2php.session.messages import MAX_UNKNOWN_BODY

    peers = make_peers("toy", 3, {}, seed=3)
    padded: list[int] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame.get("kind") == "action" and padded in ([], [frame["seq"]]):
            padded[:] = [frame["seq"]]
            return signed_by(peers[1], {**frame, "body": {**frame["body"], "zz": bytes(MAX_UNKNOWN_BODY + 1)}})
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    for peer in (peers[0], peers[2]):
        assert peer.verdict.culprit == 1 and peer.verdict.code == "bad_message", peer.verdict
        assert "bytes of body fields no message has" in peer.verdict.reason


def test_unknown_body_fields_of_one_kib_are_still_taken() -> None:
    """The bound's edge: {"zz": 1017 bytes} is 1 024 bytes of unknown fields, which a later version may send."""
    peers = make_peers("toy", 3, {}, seed=3)
    padded: list[int] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame.get("kind") == "audit" and padded in ([], [frame["seq"]]):
            padded[:] = [frame["seq"]]  # (its last message: nothing chains to it)
            return signed_by(peers[1], {**frame, "body": {**frame["body"], "zz": bytes(1017)}})
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    assert padded
    for peer in (peers[0], peers[2]):
        assert peer.verdict.clean, peer.verdict


def test_relayed_copies_of_a_message_we_hold_cost_no_signature_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of a held message was signature-checked before it was found to be held: a cheater's compressed
    stream of copies (244 bytes on the wire a batch) kept an honest peer's CPU busy, and named nobody."""
    from p2php.crypto.identity import PublicIdentity

    peers = make_peers("toy", 3, {}, seed=3)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    held = peers[1].transcript[3].to_wire()
    checks: list[int] = []
    verify = PublicIdentity.verify

    def counted(self: PublicIdentity, *args: Any) -> bool:
        checks.append(1)
        return verify(self, *args)

    monkeypatch.setattr(PublicIdentity, "verify", counted)
    peers[0].finished = False  # (it takes relays as during a game)
    for _ in range(100):
        assert peers[0].receive_relayed(held)
    assert checks == []


def test_a_seen_head_naming_a_message_that_never_comes_is_kept_and_never_compared() -> None:
    """A well-formed head may name a message we have not processed: it waits for it (claims are compared by the
    message they name, not all at every message). One that never comes — a lie about a number seat 2 never
    reaches — is never compared, and never breaks the peer that holds it."""
    from dataclasses import replace

    played = make_peers("toy", 3, {}, seed=3)
    run_in_memory(played, {s: RandomBot(s) for s in range(3)})
    first = next(m for m in played[0].transcript if m.sender == 1)
    fresh = make_peers("toy", 3, {}, seed=3)[0]
    fresh._consume(replace(first, seen=((2, 10**6, bytes(32)),)))
    assert fresh.seen_claims[(2, 10**6)][0][0] == bytes(32) and fresh.fault is None


def test_an_abort_naming_every_message_cannot_make_honest_audits_unreadable() -> None:
    """A cheater's abort listed a claim for every message of the game: each honest seat put a signed copy of each
    into its own audit (1 MiB of evidence, ~94 000 values), a frame no peer reads (65 536 values at most), and the
    honest seats named one another ``refused_audit``. A peer reads 64 claims of an abort, and its evidence stays
    within a quarter of the bound."""
    from p2php.net.framing import MAX_VALUES, decode_counted, encode_frame

    peers = make_peers("uno", 3, {"crypto": "fast", "rounds": 1}, seed=1)  # (v9 deals: a game longer than 400 rounds)
    with pytest.raises(RuntimeError):  # stopped mid-game
        run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, max_rounds=400)
    held = [m for m in peers[2].transcript if m.kind != "shuffle"]
    assert len(held) > 300
    claims = [[m.sender, m.seq, 2, bytes(32)] for m in held]
    abort = peers[2]._send("abort", {"culprit": 1, "reason": "cheated", "code": "bad_message",
                                     "at": [0, 0], "evidence": [], "claims": claims})
    peers[0].receive(2, peers[2].wire_for(abort, 0))
    sent = peers[0].poll()
    assert any(m.kind == "audit" for m in sent)
    for msg in sent:
        frame = encode_frame({"relay": msg.to_wire()})
        assert decode_counted(frame[4:])[1] <= MAX_VALUES // 4 + 100, msg.kind  # (readable by every peer)


def test_the_copy_of_a_parked_pass_that_brings_its_points_takes_the_place_of_one_without() -> None:
    """A message is parked once; but a fast pass's points travel beside it (§6.4), only on the direct copy to the
    next passer. A relayed copy without them came first and was kept, the direct one was dropped as a copy: the
    next passer then had no points to pass on. The copy with the points now takes the place of the one without."""
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=7)
    held: list[dict[str, Any]] = []
    lock: list[dict[str, Any]] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender == 1 and receiver == 0 and frame.get("kind") == "shuffle":
            held.append(frame)  # a gap at seat 0: seat 1's first message comes late
            return None
        if sender == 1 and receiver == 0 and frame.get("kind") == "lock" and held:
            lock.append(frame)
            peers[0].receive_relayed({k: v for k, v in frame.items() if k != "att"})  # a relayed copy, first
            peers[0].receive(1, frame)  # the direct one, with the points
            assert peers[0]._parked_bytes[1] == len(msgpack.packb(frame, use_bin_type=True))  # (counted once)
            peers[0].receive(1, held.pop())
            return None
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    assert lock and "att" in lock[0]
    for peer in peers:
        assert peer.verdict.clean, (peer.seat, peer.verdict)


@pytest.mark.parametrize("what", ["seen", "body"])
def test_verify_of_a_record_names_the_author_of_a_signed_message_refused_by_its_shape(what: str, tmp_path: Any) -> None:
    """Such a message is refused on arrival, so the record's ``messages`` never hold it: a transcript keeps it in
    ``refused`` (§9.4) and ``p2php verify`` of each honest record names its author ``bad_message``, as the seats did
    (before: nobody, ``accusation``; red-team rt6-verify). A copy there that its author did not sign proves nothing."""
    import msgpack

    from p2php.session import transcript
    from p2php.session.messages import MAX_UNKNOWN_BODY

    peers = make_peers("toy", 3, {}, seed=3)
    padded: list[int] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame.get("kind") == "action" and padded in ([], [frame["seq"]]):
            padded[:] = [frame["seq"]]
            if what == "seen":
                return signed_by(peers[1], {**frame, "seen": [[2, 10**12, bytes(32)], [2, 10**12 + 1, bytes(32)]]})
            return signed_by(peers[1], {**frame, "body": {**frame["body"], "zz": bytes(MAX_UNKNOWN_BODY + 1)}})
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    for peer in (peers[0], peers[2]):
        assert (peer.verdict.culprit, peer.verdict.code) == (1, "bad_message"), peer.verdict
        path = transcript.save(peer, tmp_path / f"seat{peer.seat}.p2php")
        result = transcript.verify(path)
        v = result.spectator.verdict if result.spectator is not None else None
        assert v is not None and (v.culprit, v.code) == (1, "bad_message"), (peer.seat, result.lines)
        assert not any("recorded verdict" in line for line in result.lines), result.lines
        data = msgpack.unpackb(path.read_bytes(), raw=False)
        assert len(data["refused"]) == 1 and data["refused"][0]["from"] == 1
        for junk in ([{**data["refused"][0], "seq": data["refused"][0]["seq"] + 1}], ["x", 5], {"a": 1}):
            data["refused"] = junk  # (a changed number: the signature no longer verifies)
            path.write_bytes(msgpack.packb(data, use_bin_type=True))
            result = transcript.verify(path)
            v = result.spectator.verdict if result.spectator is not None else None
            assert v is not None and v.culprit is None, (peer.seat, junk, result.lines)


def test_a_message_refused_by_its_shape_is_named_at_the_seats_step_by_verify_too(
        tmp_path: Any) -> None:
    """Two cheaters: seat 2 plays an action every check refuses (``illegal_action`` at its message's point, 4.0);
    once the game stopped, seat 1 sends a message signed at 0.0 and padded with junk body fields (refused by its
    shape). The seat names its author at its own step when it came (4.0, after seat 2's fault: seat 2 is named);
    a verifier of the record named it at the message's signed point (0.0: seat 1), another cheater than the seat
    (red-team rt7-verify). It now takes the seat's step from the seat's own signed abort or audit in the record:
    seat 0 and ``p2php verify`` of its record name seat 2 alike."""
    from p2php.session import transcript
    from p2php.session.messages import MAX_UNKNOWN_BODY

    peers = make_peers("toy", 3, {}, seed=3)
    cheat = peers[2]
    send = cheat._send
    bogus: list[int] = []

    def lying_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and not bogus:
            bogus.append(cheat.tick)
            body = {**body, "action": {"type": "no_such_action"}}
        return send(kind, body)

    cheat._send = lying_send  # type: ignore[method-assign]
    padded: set[int] = set()

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame.get("kind") == "audit" and receiver not in padded:
            padded.add(receiver)
            junk = signed_by(peers[1], {**frame, "at": [0, 0],
                                        "body": {**frame["body"], "zz": bytes(MAX_UNKNOWN_BODY + 1)}})
            peers[receiver].receive(1, junk)  # refused by its shape, after seat 2's fault stopped the game
        return frame

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    assert bogus and padded
    zero = peers[0]
    assert any(f.culprit == 1 and f.code.value == "bad_message" for f in zero.later_faults), zero.later_faults
    v = zero.verdict
    assert v is not None and (v.culprit, v.code) == (2, "illegal_action"), v
    result = transcript.verify(transcript.save(zero, tmp_path / "seat0.p2php"))
    replayed = result.spectator.verdict if result.spectator is not None else None
    assert replayed is not None and (replayed.culprit, replayed.code) == (2, "illegal_action"), result.lines
    assert not any("recorded verdict" in line for line in result.lines), result.lines


@pytest.mark.parametrize("field", ["refused", "equivocations"])
def test_a_message_packed_with_one_byte_values_never_makes_an_honest_record_unreadable(field: str,
                                                                                       tmp_path: Any) -> None:
    """Seat 1 packs a signed message with ~65 000 one-byte values (a frame the network accepts): refused by its
    shape (``refused``), or as the other version of its bid, sent to seat 2 alone (``equivocations``). A record keeps
    in those fields only what its reader affords (at most a value per 4 bytes, under ``MAX_VALUES`` a field): seat
    0's honest record stays readable by ``p2php verify`` (red-team rv6-verify; before, ``load`` refused it: "the
    file holds more values than a record of its size can")."""
    from p2php.net.framing import MAX_VALUES, decode_counted
    from p2php.session import transcript

    peers = make_peers("toy", 3, {}, seed=3 if field == "refused" else 4)
    done: list[int] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender != 1 or frame.get("kind") != "action" or receiver in done or (field != "refused" and receiver != 2):
            return frame
        done.append(receiver)
        if field == "refused":
            body = {**frame["body"], "pad": [0] * (MAX_VALUES - 40)}
        else:
            body = {**frame["body"], "action": {**frame["body"]["action"], "x": [0] * 65000}}
        out = signed_by(peers[1], {**frame, "body": body})
        assert decode_counted(msgpack.packb(out, use_bin_type=True))[1] <= MAX_VALUES  # what a network frame holds
        return out

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    assert peers[0].verdict is not None and peers[0].verdict.culprit == 1, peers[0].verdict
    path = transcript.save(peers[0], tmp_path / "seat0.p2php")
    result = transcript.verify(path)  # (before: TranscriptError)
    assert result.spectator is not None and result.spectator.verdict is not None, result.lines
    assert result.spectator.verdict.culprit in (None, 1), result.lines


def test_an_accepted_message_packed_with_one_byte_values_never_makes_an_honest_record_unreadable(
        tmp_path: Any) -> None:
    """Seat 1 sends every seat an action carrying ~65 000 one-byte values (in its ``action`` map, which the engine
    ignores: a frame the network accepts). Before, the seats accepted it, and every honest record held it in
    ``messages``: ``p2php verify`` refused each transcript ("the file holds more values than a record of its size
    can") and ``resume.read`` each resume log, and so would a spectator's (red-team rt6-dense). A message denser
    than a reader affords, one value per ``VALUE_BYTES`` bytes, is refused on arrival (§5.2 check 6): its author is
    named ``bad_message`` and every record stays readable."""
    from p2php.net.framing import MAX_VALUES, decode_counted
    from p2php.session import resume, transcript

    peers = make_peers("toy", 3, {}, seed=3)
    logs: dict[int, list[bytes]] = {0: [], 2: []}
    for s in logs:
        peers[s].record = lambda wire, s=s: logs[s].append(msgpack.packb(wire, use_bin_type=True))
    done: list[int] = []

    def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender != 1 or frame.get("kind") != "action" or receiver in done:
            return frame
        done.append(receiver)
        body = {**frame["body"], "action": {**frame["body"]["action"], "x": [0] * 65000}}
        out = signed_by(peers[1], {**frame, "body": body})
        assert decode_counted(msgpack.packb(out, use_bin_type=True))[1] <= MAX_VALUES  # what a network frame holds
        return out

    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    assert sorted(done) == [0, 2]
    for peer in (peers[0], peers[2]):
        assert peer.seat is not None and peer.secrets is not None
        v = peer.verdict
        assert v is not None and (v.culprit, v.code) == (1, "bad_message") and "values in" in v.reason, v
        path = transcript.save(peer, tmp_path / f"seat{peer.seat}.p2php")
        result = transcript.verify(path)  # (before: TranscriptError)
        assert result.spectator is not None and result.spectator.verdict is not None, result.lines
        assert result.spectator.verdict.culprit in (None, 1), result.lines
        header = {"format": "p2php-resume", "version": 1, "game": peer.table.game, "options": peer.table.options,
                  "seat": peer.seat, "name": "x", "master": peer.secrets.master, "hellos": list(peer.table.hellos),
                  "timeout": 5.0, "resume_timeout": 5.0, "bot": None, "private_decks": {},
                  "addresses": [["127.0.0.1", 1] for _ in range(3)]}
        log = tmp_path / f"seat{peer.seat}.resume"
        log.write_bytes(msgpack.packb(header, use_bin_type=True) + b"".join(logs[peer.seat]))
        assert len(resume.read(log)[1]) == len(logs[peer.seat])  # (before: ResumeError)


def test_the_density_limit_of_a_message_is_one_value_for_every_4_bytes() -> None:
    """§5.2 check 6 at its edge: a wire form of exactly one value per ``VALUE_BYTES`` bytes passes, one more value
    does not; every honest message of the games spends 7 bytes or more on each (rt6-dense)."""
    from p2php.canonical import encode
    from p2php.net.framing import VALUE_BYTES, body_values
    from p2php.session.lockstep import too_dense

    for k in range(200):
        wire = encode({"a": [0] * k, "b": b"\0" * 40})
        n = body_values(wire)
        assert (too_dense(wire) is None) == (VALUE_BYTES * n <= len(wire)), k
    peers = make_peers("toy", 3, {}, seed=5)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert all(7 * body_values(m.wire_bytes) <= len(m.wire_bytes) for m in peers[0].transcript)


@pytest.mark.parametrize("pad", ["dense", "many"])
def test_a_hello_packed_with_values_is_refused_before_it_can_make_a_record_unreadable(pad: str) -> None:
    """A seat's signed hello carrying 65 000 one-byte values in a field no hello has (tolerated, §4.3; a handshake
    frame holds it), or 11 000 values of 18 bytes: before, every hello was accepted and every honest record of the
    table, a clean game's too, was unreadable by ``p2php verify`` (the first; the second, with another seat's
    like it, a resume log's header over the frame rule's count). Refused now (red-team rt6-dense)."""
    from p2php import tags
    from p2php.canonical import digest, encode
    from p2php.engine.registry import get_game
    from p2php.session.handshake import HandshakeRefused, check_hello, make_hello
    from p2php.session.memory import seeded_secrets
    from p2php.session.modes import parse_table_options

    game = get_game("toy")
    opts = parse_table_options(game, {})
    secrets = [seeded_secrets(3, s) for s in range(3)]
    hellos = [make_hello(secrets[s], s, 3, game.name, opts, f"peer{s}") for s in range(3)]
    for s, hello in enumerate(hellos):
        check_hello(hello, seat=s, players=3, game=game.name, options=opts)
    bad = {k: v for k, v in hellos[1].items() if k != "sig"}
    bad["x"] = [0] * 65000 if pad == "dense" else [b"\1" * 16] * 11000
    bad["sig"] = secrets[1].identity.sign(digest(tags.HELLO, encode(bad)))
    with pytest.raises(HandshakeRefused, match="values in"):
        check_hello(bad, seat=1, players=3, game=game.name, options=opts)
