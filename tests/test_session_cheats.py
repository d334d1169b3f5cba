"""Every kind of cheating the foundation promises to catch, caught and attributed.

The peers run the full protocol in memory (:mod:`p2php.session.memory`); a
``tamper`` hook plays the cheating peer, re-signing what it alters with that
peer's own key, exactly as a modified client would.
"""

from __future__ import annotations

from typing import Any

import pytest
from adversarial.tampers import signed_by

from p2php.bots import RandomBot
from p2php.crypto import deck, group
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory


def play(players: int = 3, seed: int = 1, tamper=None, silent=(), options=None) -> list[Lockstep]:
    peers = make_peers("toy", players, options or {}, seed=seed)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)}, tamper=tamper, silent=silent)
    return peers


def resign(peers: list[Lockstep], frame: dict[str, Any]) -> dict[str, Any]:
    """What a cheating peer does after altering its own message: sign it again."""
    frame["sig"] = signed_by(peers[frame["from"]], frame)["sig"]
    return frame


def cheat(peer: Lockstep, alter: Any) -> None:
    """Make ``peer`` a modified client: ``alter(kind, body)`` rewrites what it signs and sends."""
    send = peer._send

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        return send(kind, alter(kind, body))

    peer._send = cheating_send  # type: ignore[method-assign]


def run(peers: list[Lockstep], seed: int = 0, **kw: Any) -> list[Lockstep]:
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(len(peers))}, **kw)
    return peers


def honest_verdicts(peers: list[Lockstep], culprit: int | None) -> list[Any]:
    return [p.verdict for p in peers if p.seat != culprit]


def assert_named(peers: list[Lockstep], culprit: int, words: str) -> None:
    for p in peers:
        if p.seat == culprit:
            continue
        assert p.finished, f"seat {p.seat} did not finish"
        assert p.verdict is not None
        assert p.verdict.culprit == culprit, (p.seat, p.verdict)
        assert words in p.verdict.reason, (p.seat, p.verdict.reason)
        assert p.transcript, "honest peers keep the transcript"


def test_honest_game_is_clean_and_agrees() -> None:
    peers = play(4, seed=3)
    hashes = {p.verdict.state_hash for p in peers}
    assert len(hashes) == 1
    assert all(p.verdict.clean for p in peers)
    assert all(p.result is not None for p in peers)
    # What stops one peer must reach them all, so each passes on the others' audits (§6.8) — and nothing else
    # of a clean game: relaying every message would multiply the bytes by the seats.
    import msgpack

    for p in peers:
        passed_on = sorted((w["from"], w["kind"]) for w in map(msgpack.unpackb, p._forwarded))
        assert passed_on == [(s, "audit") for s in range(4) if s != p.seat], (p.seat, passed_on)


def test_forged_signature_is_named() -> None:
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame["kind"] == "action":
            frame = dict(frame, sig=bytes(64))
        return frame

    assert_named(play(tamper=tamper), 1, "signature")


def test_missing_signature_is_named() -> None:
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 2 and frame["kind"] == "beacon":
            frame = {k: v for k, v in frame.items() if k != "sig"}
        return frame

    assert_named(play(tamper=tamper), 2, "sig")


def test_a_replayed_message_is_a_harmless_duplicate_and_the_withheld_one_is_missed() -> None:
    """A copy of a message already held changes nothing (it is never called a replay attack);
    the message it stood in for never came, so its sender is named silent."""
    sent: list[dict[str, Any]] = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 0:
            sent.append(frame)
            if frame["kind"] == "action" and len(sent) > 3:
                return sent[0]  # an old, validly signed message again
        return frame

    peers = play(tamper=tamper)
    assert_named(peers, 0, "went silent")
    assert all(p.verdict is not None and p.verdict.code == "silent" for p in peers[1:])


def _equivocating_table() -> list[Any]:
    """A toy table of 3 played to its end where seat 1 signs its first bid twice: 99 to seat 2, the real one to 0."""
    peers = make_peers("toy", 3, {}, seed=4)
    sent: list[dict[str, Any]] = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and recipient == 2 and frame["kind"] == "action" and not sent:
            sent.append(frame)
            other = dict(frame, body={**frame["body"], "action": {"type": "bid", "n": 99}})
            resign(peers, other)
            return other
        return frame

    run(peers, tamper=tamper)
    return peers


def test_a_different_message_with_an_old_number_is_equivocation() -> None:
    """Two validly signed messages with one number: a proof anyone can check, the author is named."""
    peers = _equivocating_table()
    for p in (peers[0], peers[2]):
        assert p.verdict is not None and p.verdict.culprit == 1, p.verdict
        assert p.verdict.code == "equivocation", p.verdict


def test_verify_of_an_equivocation_record_names_the_equivocator(tmp_path: Any) -> None:
    """The proof is two signed messages with one number; a record's ``messages`` hold the version processed only, so
    a transcript carries both in ``equivocations`` (§9.4) and ``p2php verify`` of each honest record names the
    equivocator as the seats did (before: seat 0's record named nobody, ``accusation``, seat 2's ``illegal_action``;
    red-team rt6-verify). A copy in that field that its author did not sign, or that is no message, proves nothing
    and never crashes the verifier."""
    import msgpack

    from p2php.session import transcript

    peers = _equivocating_table()
    for p in (peers[0], peers[2]):
        path = transcript.save(p, tmp_path / f"seat{p.seat}.p2php")
        result = transcript.verify(path)
        v = result.spectator.verdict if result.spectator is not None else None
        assert v is not None and (v.culprit, v.code) == (1, "equivocation"), (p.seat, result.lines)
        assert not any("recorded verdict" in line for line in result.lines), result.lines
        data = msgpack.unpackb(path.read_bytes(), raw=False)
        proofs = data["equivocations"]
        assert len(proofs) == 2 and {w["seq"] for w in proofs} == {proofs[0]["seq"]}, proofs
        forged = [dict(w, body={**w["body"], "action": {"type": "bid", "n": 98}}) for w in proofs]  # sig now wrong
        for junk in (forged[:1], [5, "x", {"from": 1}, []], "not a list", [{**proofs[0], "from": 7}]):
            data["equivocations"] = junk
            path.write_bytes(msgpack.packb(data, use_bin_type=True))
            result = transcript.verify(path)
            v = result.spectator.verdict if result.spectator is not None else None
            assert v is not None and not (v.culprit == 1 and v.code == "equivocation"), (p.seat, junk, result.lines)


@pytest.mark.crypto("fast")
def test_a_last_lock_pass_with_a_point_off_the_curve_is_named_by_every_seat_at_the_audit() -> None:
    """The deck's last lock pass hides a value that is no curve point in a slot nobody opens, so no seat
    multiplies it during the game and nobody can tell; the audit re-derives every pass from the released
    secrets, and every other seat names the cheater."""
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=21)
    done: list[bool] = []

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "lock" and not done:
            done.append(True)
            cards = deck.unpack(body["cards"], group.POINT_SIZE)
            cards[-1] = b"\x02" + b"\xff" * (group.POINT_SIZE - 1)  # x beyond the field: no point
            return {**body, "cards": deck.pack(cards)}
        return body

    cheat(peers[0], alter)  # seat 0 locks last (the lock passes go 2, 1, 0)
    run(peers, seed=21)
    assert done
    for p in peers[1:]:
        assert p.fault is None  # nobody could tell during the game
        v = p.verdict
        assert v is not None and v.culprit == 0 and v.code == "bad_pass", (p.seat, v)


def test_equivocation_seen_by_one_honest_seat_alone_is_still_proven() -> None:
    """Two players: only the honest seat holds both versions (the first it processed, the second the cheater
    sent again under the same number), and the cheater's abort and audit bring no evidence: the proof rests on
    the honest seat's own copies, which its abort carries as evidence."""
    peers = make_peers("toy", 2, {}, seed=4)
    again: list[dict[str, Any]] = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if sender == 1 and frame["kind"] == "action" and not again:
            again.append(resign(peers, dict(frame, body={**frame["body"], "action": {"type": "bid", "n": 99}})))
        elif sender == 1 and again and len(again) == 1 and frame["kind"] != "action":
            peers[0].receive(1, again[0])  # the other version, under the number already processed
            again.append(frame)
        return frame

    run(peers, tamper=tamper)
    assert len(again) == 2
    v = peers[0].verdict
    assert v is not None and v.culprit == 1 and v.code == "equivocation", v


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_action_out_of_turn_is_named() -> None:
    peers = make_peers("toy", 3, {}, seed=5)
    cheater = peers[2]
    # Seat 2 sends an action during the shuffle, when nobody is asked to act.
    cheater._send("action", {"action": {"type": "bid", "n": 1}, "keys": []})
    frame = cheater.poll()[0].to_wire()
    for p in peers[:2]:
        p.receive(2, frame)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert_named(peers, 2, "where none was due")


def test_illegal_action_is_named() -> None:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "action" and body["action"].get("type") == "bid":
            return {"action": {"type": "bid", "n": 7}, "keys": []}
        return body

    peers = make_peers("toy", 3, {}, seed=2)
    cheat(peers[1], alter)
    assert_named(run(peers), 1, "illegal action")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_playing_a_card_not_dealt_is_named() -> None:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "action" and body["action"].get("type") == "play":
            theirs = peers[0].state.hands[0][0]  # a card dealt to seat 0
            return {"action": {"type": "play", "slot": theirs}, "keys": body["keys"]}
        return body

    peers = make_peers("toy", 3, {}, seed=4)
    cheat(peers[2], alter)
    assert_named(run(peers), 2, "not in seat 2's hand")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_wrong_key_is_named() -> None:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "keys" and body["keys"]:
            keys = [list(k) for k in body["keys"]]
            keys[0][1] = (int.from_bytes(keys[0][1], "big") + 1).to_bytes(32, "big")
            return {"keys": keys}
        return body

    peers = make_peers("toy", 3, {}, seed=6)
    cheat(peers[2], alter)
    assert_named(run(peers), 2, "wrong key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_tampered_shuffle_is_named_at_the_audit() -> None:
    garbage = group.hash_to_point(b"test", b"not a card")

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "shuffle":
            cards = deck.unpack(body["cards"], group.POINT_SIZE)  # a fast pass is one packed bin (§6.4)
            cards[0] = garbage  # replaces a card: no longer a permutation of the input
            return {"cards": deck.pack(cards)}
        return body

    peers = make_peers("toy", 3, {"reveal_end": True}, seed=7)
    cheat(peers[1], alter)
    assert_named(run(peers), 1, "shuffle pass of deck 0 was not a permutation")


def test_equivocation_is_named() -> None:
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        # Seat 0 tells seat 2 it bid something else than it told seat 1.
        if sender == 0 and recipient == 2 and frame["kind"] == "action" and \
                frame["body"]["action"].get("type") == "bid":
            n = frame["body"]["action"]["n"]
            frame["body"] = {"action": {"type": "bid", "n": (n + 1) % 3}, "keys": []}
            return resign(peers, frame)
        return frame

    peers = make_peers("toy", 3, {}, seed=8)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)}, tamper=tamper)
    for p in peers[1:]:
        assert p.verdict is not None and not p.verdict.clean
        assert p.verdict.culprit == 0, p.verdict


def _desynced_table(crypto: str) -> list[Any]:
    """A toy table of 3 played to its end where seat 1's engine reaches other states (its hashes differ)."""
    import hashlib

    if crypto == "verified":
        pytest.importorskip("coincurve")
    peers = make_peers("toy", 3, {"crypto": crypto}, seed=8)
    engine = peers[1].state
    real = engine.state_hash
    engine.state_hash = lambda: hashlib.sha256(b"other rules" + real()).digest()  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    return peers


@pytest.mark.parametrize("crypto", ["fast", "verified"])
def test_a_peer_whose_state_differs_is_named_a_desync(crypto: str) -> None:
    """Every message names the state hash its sender made it at; a peer whose engine reached another state (a
    client on other rules, or one that lies about the state) is named at its first message, not played on.
    Without the check a fast table played such a game to a clean verdict (a verified one named the seat, but for
    a bad key: the state is in its proofs' context)."""
    peers = _desynced_table(crypto)
    for p in (peers[0], peers[2]):
        v = p.verdict
        assert v is not None and v.culprit == 1 and v.code == "desync" and "state hash" in v.reason, v


@pytest.mark.parametrize("crypto", ["fast", "verified"])
def test_verify_of_a_desync_record_names_the_desynced_seat(crypto: str, tmp_path: Any) -> None:
    """The same table: ``p2php verify`` of each honest record names seat 1 ``desync``, as the seats did. Its message
    naming another state is in each record, but a replay that got an abort first (it still waited for another seat
    at that point) read it in the audit round unchecked (before: nobody named there, ``accusation``, in 3 of the 4
    records; red-team rt6-verify): the audit now checks the state of every message of the step it stopped at, and
    a ``desync`` abort against the message at the point it names."""
    from p2php.session import transcript

    peers = _desynced_table(crypto)
    for p in (peers[0], peers[2]):
        result = transcript.verify(transcript.save(p, tmp_path / f"seat{p.seat}.p2php"))
        v = result.spectator.verdict if result.spectator is not None else None
        assert v is not None and (v.culprit, v.code) == (1, "desync"), (p.seat, result.lines)
        assert not any("recorded verdict" in line for line in result.lines), result.lines


def test_withheld_key_names_the_silent_peer() -> None:
    stopped = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender == 1 and (stopped or frame["kind"] == "keys"):
            stopped.append(frame)
            return None  # from its first key release on, seat 1 sends nothing
        return frame

    assert_named(play(tamper=tamper), 1, "went silent")


def test_silent_peer_is_named() -> None:
    peers = play(4, silent=(3,))
    for p in peers[:3]:
        assert p.verdict.culprit == 3 and "silent" in p.verdict.reason


def test_refusing_the_audit_is_named() -> None:
    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender == 2 and frame["kind"] == "audit":
            return None
        return frame

    assert_named(play(tamper=tamper), 2, "did not release its secrets")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("seed", range(6))
def test_false_claim_about_hidden_cards_is_named_at_the_audit(seed: int) -> None:
    """Passing with "no red card" while holding one is caught by the audit replay."""
    liar = 1

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "action" and body["action"].get("type") == "play":
            hand[:] = [peers[liar].private_faces[s] for s in peers[liar].state.hands[liar]]
            return {"action": {"type": "pass"}, "keys": []}
        return body

    hand: list[int] = []
    peers = make_peers("toy", 3, {}, seed=seed)
    cheat(peers[liar], alter)
    run(peers)
    holds_red = any(c < 6 for c in hand)
    for p in peers:
        if p.seat == liar:
            continue
        if holds_red:
            assert p.verdict.culprit == liar, p.verdict
            assert "not legal" in p.verdict.reason or "no red" in p.verdict.reason
        else:
            assert p.verdict.clean


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_groundless_abort_does_not_convict_the_accused() -> None:
    """A peer that aborts naming an honest seat gets nobody convicted on its word alone."""
    peers = make_peers("toy", 3, {}, seed=9)
    send = peers[2]._send
    state = {"done": False}

    def lying_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action" and not state["done"]:
            state["done"] = True
            send("abort", {"culprit": 1, "reason": "illegal action (made up)", "at": [0, 0],
                           "evidence": [], "claims": []})
            peers[2].auditing = True  # the liar stops playing and goes to the audit
            return send("audit", {"decks": peers[2].secrets.decks_secret, "boxes": [], "evidence": []})
        return send(kind, body)

    peers[2]._send = lying_send  # type: ignore[method-assign]
    run(peers)
    for p in peers[:2]:
        assert p.verdict is not None and not p.verdict.clean
        assert p.verdict.culprit != 1, p.verdict
        assert "do not confirm" in p.verdict.reason


def test_false_seen_claim_never_convicts_the_framed_peer() -> None:
    peers = make_peers("toy", 3, {}, seed=10)
    send = peers[2]._send

    def framing_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "action":
            # Seat 2 lies about the hash of seat 0's last message in its 'seen' heads.
            peers[2].last_hash[0] = bytes(32)
        return send(kind, body)

    peers[2]._send = framing_send  # type: ignore[method-assign]
    run(peers)
    for p in peers[:2]:
        # Nobody can produce the claimed version: the framed seat 0 is not convicted, and
        # since a lost piece of evidence looks the same as a lie, neither is the claimer.
        assert p.verdict is not None and p.verdict.culprit is None, p.verdict
        assert p.verdict.code == "false_claim", p.verdict
        assert "seat 2 claims a message" in p.verdict.reason and "from seat 0" in p.verdict.reason, p.verdict
        assert "seat 2" in p.verdict.reason
    # The peer that found the claim itself puts it into its own abort, for the others to weigh.
    finder = next(p for p in peers[:2] if p.fault_from is None)
    abort = next(m for m in finder.transcript if m.kind == "abort" and m.sender == finder.seat)
    assert any(c[0] == 0 and c[2] == 2 and c[3] == bytes(32) for c in abort.body["claims"]), abort.body["claims"]


def test_other_permutation_cannot_hide_a_lie_from_the_audit() -> None:
    """A shuffle with a permutation that is not the committed secret's is itself named."""
    liar = 1

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "shuffle":
            cards = deck.unpack(body["cards"], group.POINT_SIZE)
            cards[0], cards[1] = cards[1], cards[0]  # a valid shuffle, but not the derived one
            return {"cards": deck.pack(cards)}
        if kind == "action" and body["action"].get("type") == "play":
            return {"action": {"type": "pass"}, "keys": []}
        return body

    peers = make_peers("toy", 3, {}, seed=2)  # a game in which seat 1 gets to play (in both deck modes)
    cheat(peers[liar], alter)
    run(peers)
    for p in peers:
        if p.seat != liar:
            assert p.verdict.culprit == liar, p.verdict


def test_action_that_opens_a_deck_card_collects_every_key() -> None:
    """An action revealing a card nobody holds needs a second phase of key releases."""
    peers = make_peers("toy", 3, {"flips": True}, seed=12)

    class Flipper(RandomBot):
        def choose(self, state, seat, knowledge, legal):  # type: ignore[no-untyped-def]
            flips = [a for a in legal if a["type"] == "flip"]
            return flips[0] if flips else super().choose(state, seat, knowledge, legal)

    run_in_memory(peers, {s: Flipper(s) for s in range(3)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    assert all(len(p.state.table) == 3 for p in peers)


@pytest.mark.parametrize("kind,body", [
    ("shuffle", {"cards": "not a list"}),
    ("shuffle", {}),
    ("beacon", {"value": 7}),
])
@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_signed_message_with_bad_body_is_named(kind: str, body: dict[str, Any]) -> None:
    peers = make_peers("toy", 3, {}, seed=13)
    target = {"shuffle": 1, "beacon": 2}[kind]

    def alter(k: str, b: dict[str, Any]) -> dict[str, Any]:
        return body if k == kind else b

    cheat(peers[target], alter)
    run(peers)
    for p in peers:
        if p.seat != target:
            assert p.verdict is not None and p.verdict.culprit == target, p.verdict


def test_float_in_a_frame_is_named_not_raised() -> None:
    peers = make_peers("toy", 2, {}, seed=14)
    frame = {"from": 1, "seq": 0, "prev": bytes(32), "at": [0, 0], "state": bytes(32), "seen": [],
             "kind": "shuffle", "body": {"cards": [1.5]}, "sig": bytes(64)}
    peers[0].receive(1, frame)
    assert peers[0].fault is not None and peers[0].fault.culprit == 1


def test_sealed_choices_commit_before_anyone_reveals() -> None:
    peers = make_peers("toy", 3, {"sealed": True}, seed=15)
    kinds: list[tuple[int, str, tuple[int, int]]] = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any]:
        if recipient == (sender + 1) % 3:
            kinds.append((sender, frame["kind"], tuple(frame["at"])))
        return frame

    run(peers, tamper=tamper)
    assert all(p.verdict is not None and p.verdict.clean for p in peers)
    bid_tick = next(at[0] for _, kind, at in kinds if kind == "commit")
    commits = [at for _, kind, at in kinds if kind == "commit"]
    reveals = [at for _, kind, at in kinds if kind == "action" and at[0] == bid_tick]
    assert len(commits) == 3 and all(at == (bid_tick, 0) for at in commits)
    assert len(reveals) == 3 and all(at == (bid_tick, 1) for at in reveals)
    assert len(peers[0].state.bids) == 3


def test_revealing_another_choice_than_committed_is_named() -> None:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "action" and body["action"].get("type") == "bid":
            return {**body, "action": {"type": "bid", "n": (body["action"]["n"] + 1) % 3}}
        return body

    peers = make_peers("toy", 3, {"sealed": True}, seed=16)
    cheat(peers[0], alter)
    assert_named(run(peers), 0, "does not match its commitment")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_secret_composition_deck_is_dealt_and_audited() -> None:
    """A deck whose list only its owner knows: others learn only the cards it opens."""
    peers = make_peers("toy", 3, {"secret_deck": True}, seed=17, private_decks={0: {"secret": [6, 8, 11]}})
    run(peers)
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    assert peers[0].private_faces[100] in (6, 8, 11)
    assert 100 not in peers[1].private_faces and 100 not in peers[1].public_faces
    assert peers[1].public_faces[101] in (6, 8, 11)


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_secret_deck_that_breaks_the_rules_is_named_at_the_audit() -> None:
    peers = make_peers("toy", 3, {"secret_deck": True}, seed=18, private_decks={0: {"secret": [6, 1, 11]}})
    run(peers)
    for p in peers[1:]:
        assert p.verdict is not None and p.verdict.culprit == 0, p.verdict
        assert "black cards only" in p.verdict.reason


def test_stacked_decks_run_through_the_real_protocol_and_audit_clean() -> None:
    from p2php.testing import restacked

    peers = restacked(make_peers("toy", 3, {"reveal_end": True}, seed=19), lambda step: list(reversed(step.cards)))
    run(peers)
    assert all(p.verdict is not None and p.verdict.clean for p in peers)
    # reversed deck: slot j holds card 11 - j, and every peer opened the same faces
    assert all(p.public_faces[s] == 11 - s for p in peers for s in p.public_faces)


def test_verify_of_a_record_that_hides_an_equivocation_never_names_its_other_receiver_desync(tmp_path: Any) -> None:
    """Seat 1 signs two legal bids (seat 2 gets the other), then writes a record of seat 0's view that stops on its
    own abort before seat 2's play and leaves the second bid out: the replay reads seat 2's play in the audit round,
    whose state (reached with the other bid) differs from the replay's. Its ``seen`` heads name that other bid, as
    in play (where they are compared before the state): seat 2 is never named ``desync`` (red-team rv6-verify:
    before, ``p2php verify`` of that file named seat 2, honest)."""
    import msgpack
    from adversarial.tampers import equivocating_split

    from p2php.session import transcript

    peers = make_peers("toy", 3, {}, seed=1)
    run(peers, tamper=equivocating_split(peers))
    zero, one = peers[0], peers[1]
    bid = next(m for m in zero.transcript if m.sender == 1 and m.kind == "action")
    t = bid.at[0] + 1
    play = next(m for m in zero.transcript if m.sender == 2 and m.kind == "action" and m.at == (t, 0))
    abort = next(m for m in one.transcript if m.sender == 1 and m.kind == "abort")
    assert abort.prev == bid.msg_hash and abort.at[0] == t
    data = transcript.to_data(zero)
    data.update(seat=1, equivocations=[], refused=[], verdict=None, messages=[
        *(m.to_wire() for m in zero.transcript if m.at[0] < t and m.kind not in ("abort", "audit")),
        abort.to_wire(), play.to_wire()])
    path = tmp_path / "crafted.p2php"
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    result = transcript.verify(path)
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None and v.culprit != 2, result.lines


def test_verify_of_a_record_whose_late_message_names_a_withheld_message_never_names_its_author_desync(
        tmp_path: Any) -> None:
    """Seat 1 signs two bids: A, played on by seat 0 (world A), and B, by seat 2 (world B). In world B it then
    flips a card at the next step (t, 0), and seat 2 sends its keys at (t, 1): their ``seen`` head for seat 1 names
    that flip, a message the record never holds (not another version of one it holds), their state the one bid B
    made. In world A seat 1 goes silent at t and seat 0 names it. Seat 1's record: seat 0's view up to the bid,
    seat 0's abort, seat 2's keys — each signed by its author. The replay, stopped by the abort before (t, 0), reads
    seat 2's keys in the audit round: seat 2 is never named ``desync`` (red-team rt7-newcode: before, ``p2php
    verify`` of that file named seat 2, honest; rv6-verify's guard looked only at a head naming another version)."""
    import msgpack

    from p2php.session import transcript

    class Seat1(RandomBot):
        def __init__(self, bid: int) -> None:
            super().__init__(31)
            self.bid = bid

        def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
            if legal[0].get("type") == "bid":
                return {"type": "bid", "n": self.bid}
            return next(a for a in legal if a.get("type") == "flip")

    def world(bid: int, silent_from: int | None = None) -> list[Lockstep]:
        peers = make_peers("toy", 3, {"flips": True}, seed=3)

        def tamper(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
            return None if sender == 1 and silent_from is not None and frame["at"][0] >= silent_from else frame

        run_in_memory(peers, {0: RandomBot(30), 1: Seat1(bid), 2: RandomBot(32)}, tamper=tamper)
        return peers

    two = world(1)[2]
    bid = next(m for m in two.transcript if m.sender == 1 and m.kind == "action" and "n" in m.body["action"])
    t = bid.at[0] + 1
    keys = next(m for m in two.transcript if m.sender == 2 and m.at == (t, 1))
    assert any(o == 1 and q == bid.seq + 1 for o, q, _ in keys.seen)  # seat 1's flip, seen by seat 2
    zero = world(0, silent_from=t)[0]
    early = [m for m in zero.transcript if m.at[0] < t and m.kind not in ("abort", "audit")]
    abort = next(m for m in zero.transcript if m.sender == 0 and m.kind == "abort")
    assert any(m.msg_hash == keys.prev for m in early)  # the two worlds share everything before the bids
    data = transcript.to_data(zero)
    data.update(seat=1, equivocations=[], refused=[], verdict=None,
                messages=[*(m.to_wire() for m in early), abort.to_wire(), keys.to_wire()])
    path = tmp_path / "crafted.p2php"
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    result = transcript.verify(path)
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None and v.culprit != 2, result.lines


def test_an_equivocator_resigning_one_message_again_and_again_costs_one_proof(tmp_path: Any) -> None:
    """Seat 1 re-signs its first message with a 1 MiB bin in a body field, 20 times, to seat 0: each version's
    signature and shape pass, so each is another version of a held number. Seat 0 names seat 1 and keeps one proof:
    two versions, forwarded once each (red-team rt7-newcode: before, it kept and forwarded all 20 — 90 versions of
    3 MiB made its transcript 270 MiB, which ``p2php verify`` refuses, over ``MAX_FILE``)."""
    from p2php.session import transcript

    peers = make_peers("toy", 3, {}, seed=1)
    first = None
    for _ in range(6):
        for ls in peers:
            for msg in ls.poll():
                first = first or (msg if msg.sender == 1 else None)
                for other in peers:
                    if other is not ls:
                        other.receive(ls.seat, ls.wire_for(msg, other.seat))
    assert first is not None
    zero = peers[0]
    for i in range(20):
        wire = first.to_wire()
        zero.receive(1, signed_by(peers[1], {**wire, "body": {**wire["body"], "proof": bytes([i]) * (1 << 20)}}))
    assert zero.fault is not None and zero.fault.culprit == 1 and zero.fault.code == "equivocation"
    assert sum(len(v) for v in zero.equivocations.values()) == 1
    assert len(zero.forward) == 2
    assert transcript.save(zero, tmp_path / "seat0.p2php").stat().st_size < 3 << 20


def test_messages_after_a_seats_own_audit_are_not_kept_nor_forwarded() -> None:
    """Seat 1 leaves (its abort and its audit), then signs 20 more aborts numbered on, each with a 256 KiB reason,
    while seat 0 waits in its audit round. A seat that stopped sends its audit and then nothing: each is refused,
    naming seat 1, and neither kept in seat 0's transcript nor forwarded (red-team rt7-newcode: before, each was
    processed in the audit round, kept and forwarded to every seat — 90 of 3 MiB made an honest record 270 MiB,
    which ``p2php verify`` refuses, over ``MAX_FILE``)."""
    from p2php.session.messages import parse_message, signing_bytes

    peers = make_peers("toy", 3, {}, seed=1)
    for _ in range(6):
        for ls in peers:
            for msg in ls.poll():
                for other in peers:
                    if other is not ls:
                        other.receive(ls.seat, ls.wire_for(msg, other.seat))
    zero, one = peers[0], peers[1]
    one.leave()
    for msg in one.poll():
        zero.receive(1, one.wire_for(msg, 0))
    zero.poll()
    assert zero.auditing and not zero.finished and one.secrets is not None
    last = max([*one.processed[1].values(), *one.inbox[1]], key=lambda m: m.seq)
    assert last.kind == "audit"  # (its abort, then its audit)
    seq, prev = last.seq + 1, last.msg_hash
    forwarded = len(zero.forward)
    for _ in range(20):
        fields = {"from": 1, "seq": seq, "prev": prev, "at": list(last.at), "state": last.state, "seen": [],
                  "kind": "abort", "body": {"culprit": -1, "reason": "x" * (1 << 18), "code": "left", "at": [0, 0],
                                            "evidence": [], "claims": []}}
        wire = {**fields, "sig": one.secrets.identity.sign(signing_bytes(one.session_id, fields))}
        zero.receive(1, wire)
        zero.poll()
        prev, seq = parse_message(wire).msg_hash, seq + 1
    assert sum(1 for m in zero.transcript if m.sender == 1 and m.kind == "abort") == 1
    assert len(zero.forward) == forwarded
    assert any(f.culprit == 1 and "after its own audit" in f.reason for f in zero.later_faults), zero.later_faults


def test_a_field_of_another_kind_padding_a_message_is_named() -> None:
    """Seat 1 pads every message it signs with 2 KiB of ``reason`` (an abort's field): a field its kind does not
    have counts as unknown (at most 1 KiB), so it is named ``bad_message`` (red-team rt7-newcode: before, a field
    of any kind passed, and 200 KiB of it on each of a cheater's messages made a clean 3-seat UNO game's honest
    records 301 MiB, which ``p2php verify`` refuses, over ``MAX_FILE``)."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return body if kind in ("abort", "audit") else {**body, "reason": "y" * 2048}

    peers = make_peers("toy", 3, {}, seed=16)
    cheat(peers[1], alter)
    assert_named(run(peers), 1, "bytes of body fields no message has")


@pytest.mark.parametrize(("crypto", "kind", "field"), [
    ("fast", "action", "nonce"), ("verified", "action", "nonce"), ("fast", "action", "shares"),
    ("fast", "keys", "proofs"), ("fast", "audit", "shares"), ("verified", "audit", "decks"),
])
def test_a_field_its_deck_never_sends_padding_a_message_is_named(crypto: str, kind: str, field: str) -> None:
    """Seat 1 pads its messages of ``kind`` with 2 KiB of ``field``, a field of that kind its deck never sends or
    reads (an unsealed answer's ``nonce``, a fast deck's ``shares``, a verified audit's ``decks``): it counts as
    unknown in that deck, and a ``nonce`` must be 32 bytes, so it is named ``bad_message`` (red-team rt8-red:
    before, accepted and ignored, and 0.5 MiB of ``nonce`` on each of a cheater's actions made a clean 3-seat fast
    UNO game's honest records 432 MiB, which ``p2php verify`` refuses, over ``MAX_FILE``)."""
    def alter(k: str, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, field: b"\x00" * 2048} if k == kind and field not in body else body

    peers = make_peers("toy", 3, {"crypto": crypto}, seed=16)
    cheat(peers[1], alter)
    assert_named(run(peers), 1, "bad message")


def test_an_action_past_the_action_bound_is_named() -> None:
    """Seat 1 adds a 70 000-byte key the rules do not read to each action it signs (the toy game's check, as HP
    Sha's, takes it): an action past ``MAX_ACTION_BYTES``, which no honest peer signs (its own bound), is named
    ``bad_message`` on arrival (red-team rt8-red: before, accepted, and 3.5 MiB of it in each action of an HP Sha
    cheater made a clean 4-seat game's honest records 283 MiB, which ``p2php verify`` refuses, over ``MAX_FILE``)."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind != "action" or "nonce" in body:
            return body
        return {**body, "action": {**body["action"], "zz": "y" * 70_000}}

    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=16)
    cheat(peers[1], alter)
    assert_named(run(peers), 1, "an action holds at most")


def test_a_randomness_reveal_of_another_size_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 1's hello declares a hash chain of one value, and each reveal is a 20 000-byte value whose hash it
    announced as its anchor (so the chain check passes): a ``value`` is 32 bytes, so it is named ``bad_message``
    (red-team rt8-red: before, accepted, and 0.5 MB at each of 725 draws made a clean 4-seat Hogwarts game's honest
    records 348 MiB, which ``p2php verify`` refuses, over ``MAX_FILE``)."""
    from p2php import tags
    from p2php.canonical import digest, encode
    from p2php.crypto import beacon
    from p2php.session import handshake, memory

    master = memory.seeded_secrets(16, 1).master

    class BigChain:
        length = 1

        def __init__(self, binding: bytes, renewal: int) -> None:
            self.big = renewal.to_bytes(4, "big") * 5000
            self.anchor = beacon._step(binding, self.big)

        def value(self, i: int) -> bytes:
            return self.big

    real_chain, real_hello = handshake.LocalSecrets.chain, handshake.make_hello

    def chain(self: Any, binding: bytes, renewal: int = 0) -> Any:
        return BigChain(binding, renewal) if self.master == master else real_chain(self, binding, renewal)

    def make_hello(secrets: Any, *a: Any, **kw: Any) -> Any:
        hello = real_hello(secrets, *a, **kw)
        if secrets.master != master:
            return hello
        hello = {**{k: v for k, v in hello.items() if k != "sig"}, "chain": 1}
        return {**hello, "sig": secrets.identity.sign(digest(tags.HELLO, encode(hello)))}

    monkeypatch.setattr(handshake.LocalSecrets, "chain", chain)
    monkeypatch.setattr(memory, "make_hello", make_hello)
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=16)
    assert peers[0].table.hellos[1]["chain"] == 1
    assert_named(run(peers), 1, "'value' must be 32 bytes")
