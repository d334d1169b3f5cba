"""Variants of each cheat, not only one example: who is named, by every honest peer, and why.

``tests/test_session_cheats.py`` shows one example of each cheat.  Mutation testing
(``benchmarks/mutation.py``) found checks that could be disabled with no test noticing,
because the example took another path through the code.  Each test here is one variant
(a partial key list, an extra key, an off-curve point in the middle of the passes, a
malformed audit secret ...) and asserts the culprit seat and the words of the reason from
**every** honest peer's verdict.  Where today's code names nobody or the wrong seat, the
test is marked ``xfail`` with the reason (issue 8); a companion test pins what does work
today (usually: the one peer that made the check names the culprit).

The cheating peer is a modified client: :func:`cheat` rewrites a body before the peer
signs it, so every message is validly signed by its author.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from adversarial.verdicts import assert_named_by, assert_named_by_all

from p2php import PROTOCOL_VERSION
from p2php.bots import RandomBot
from p2php.canonical import encode
from p2php.crypto import channel, deck, group
from p2php.engine.registry import get_game
from p2php.errors import RefusalCode
from p2php.session import handshake
from p2php.session.handshake import HandshakeRefused, LocalSecrets, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.messages import scalar_bytes

Alter = Callable[[str, dict[str, Any]], dict[str, Any]]


def cheat(peer: Lockstep, alter: Alter) -> None:
    """Make ``peer`` a modified client: ``alter(kind, body)`` rewrites what it signs and sends."""
    send = peer._send

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        return send(kind, alter(kind, body))

    peer._send = cheating_send  # type: ignore[method-assign]


def game(cheater: int, alter: Alter, *, seed: int, players: int = 3, options: dict[str, Any] | None = None
         ) -> list[Lockstep]:
    peers = make_peers("toy", players, options or {}, seed=seed)
    cheat(peers[cheater], alter)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
    return peers


def off_curve_point() -> bytes:
    """32 bytes below the field prime that are the x-coordinate of no P-256 point."""
    x = int.from_bytes(group.hash_to_point(b"test", b"off"), "big")
    while group.is_point((x := x + 1).to_bytes(32, "big")):
        pass
    return x.to_bytes(32, "big")


NON_CARD = group.hash_to_point(b"test", b"not a card")

# Found at the next pass ("not on the curve"), or by the audit's pass-by-pass check.
OFF_CURVE = ("not on the curve", "was not a permutation of its input", "was not its input re-locked")


# ----------------------------------------------------------------------------- keys messages (§6.4, §6.5)
#
# At the deal (tick 1) of the 3-seat toy game, seat 2 must release its keys for the slots
# dealt to seats 0 and 1, in deal order: [0, 1, 3, 4, 6, 7].


def _alter_deal_keys(change: Callable[[list[list[Any]], Lockstep], list[Any]], peers_ref: list[Lockstep]) -> Alter:
    done = {"once": False}

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "keys" and not done["once"]:
            done["once"] = True
            return {"keys": change([list(k) for k in body["keys"]], peers_ref[0])}
        return body

    return alter


def _keys_cheat(change: Callable[[list[list[Any]], Lockstep], list[Any]], seed: int = 21) -> list[Lockstep]:
    ref: list[Lockstep] = []
    peers = make_peers("toy", 3, {}, seed=seed)
    ref.append(peers[2])
    cheat(peers[2], _alter_deal_keys(change, ref))
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(3)})
    return peers


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_partial_key_list_is_named_by_everyone() -> None:
    """A keys message that leaves out the last slot of the duty (§6.4: the slots MUST equal the duty)."""
    peers = _keys_cheat(lambda keys, me: keys[:-1])
    assert_named_by_all(peers, 2, "released keys for slots", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_empty_key_list_is_named_by_everyone() -> None:
    """A keys message with no keys at all where a duty exists."""
    peers = _keys_cheat(lambda keys, me: [])
    assert_named_by_all(peers, 2, "released keys for slots", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_extra_key_is_named_by_everyone() -> None:
    """One key too many: the cheater's own slot 2 (its key even matches its commitment)."""
    peers = _keys_cheat(lambda keys, me: [*keys, [2, scalar_bytes(me._my_key(2))]])
    assert_named_by_all(peers, 2, "released keys for slots", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_reordered_key_list_is_named_by_everyone() -> None:
    """The right keys in another order: the list MUST equal the duty, in order."""
    peers = _keys_cheat(lambda keys, me: [keys[1], keys[0], *keys[2:]])
    assert_named_by_all(peers, 2, "released keys for slots", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_repeated_key_is_named_by_everyone() -> None:
    """The duty's first key twice instead of the last one."""
    peers = _keys_cheat(lambda keys, me: [*keys[:-1], keys[0]])
    assert_named_by_all(peers, 2, "released keys for slots", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_key_for_another_slot_of_the_duty_is_named_by_everyone() -> None:
    """Right slot numbers, but slot 0 carries the key of slot 1 (fails slot 0's commitment)."""
    def change(keys: list[list[Any]], me: Lockstep) -> list[Any]:
        keys[0][1] = keys[1][1]
        return keys

    assert_named_by_all(_keys_cheat(change), 2, "released a wrong key for slot 0", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_key_out_of_scalar_range_is_named_by_everyone() -> None:
    """A key >= q (32 bytes of ff) can match no commitment."""
    def change(keys: list[list[Any]], me: Lockstep) -> list[Any]:
        keys[-1][1] = b"\xff" * 32
        return keys

    assert_named_by_all(_keys_cheat(change), 2, "released a wrong key for slot 7", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_short_key_bytes_are_a_bad_message_named_by_everyone() -> None:
    """A key of 31 bytes is a malformed key entry (§6.4: scalar32)."""
    def change(keys: list[list[Any]], me: Lockstep) -> list[Any]:
        keys[0][1] = keys[0][1][1:]
        return keys

    assert_named_by_all(_keys_cheat(change), 2, "bad key entry", "bad_message")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_slot_as_text_is_a_bad_message_named_by_everyone() -> None:
    """A slot number sent as a string is a malformed key entry."""
    def change(keys: list[list[Any]], me: Lockstep) -> list[Any]:
        keys[0][0] = str(keys[0][0])
        return keys

    assert_named_by_all(_keys_cheat(change), 2, "bad key entry", "bad_message")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_slot_as_a_boolean_is_a_bad_message_named_by_everyone() -> None:
    """``True`` equals slot 1 in Python: a key entry must say its slot as an integer, not a boolean."""
    def change(keys: list[list[Any]], me: Lockstep) -> list[Any]:
        for entry in keys:
            if entry[0] in (0, 1):
                entry[0] = bool(entry[0])
                break
        else:
            raise AssertionError(f"no slot 0 or 1 among {keys}: choose another seed")
        return keys

    peers = _keys_cheat(change)
    assert_named_by_all(peers, 2, "bad key entry", "bad_message")


# ----------------------------------------------------------------------------- shuffle and lock passes (§6.4, §7.3)
#
# Passes of deck 0 (tick 0), 3 seats: shuffle by 0, 1, 2 (phases 0-2), lock by 2, 1, 0 (phases 3-5). A fast
# pass's `cards` (and a lock's `commits`) is one packed bin (§6.4): a cheat unpacks it, alters it, packs it again.


def _points(body: dict[str, Any]) -> list[bytes]:
    return deck.unpack(body["cards"], group.POINT_SIZE)


def _commits(body: dict[str, Any]) -> list[bytes]:
    return deck.unpack(body["commits"], deck.COMMITMENT_SIZE)


def _pass_cheat(kind_wanted: str, index: int, point: bytes) -> Alter:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == kind_wanted and body["cards"]:
            cards = _points(body)
            cards[index] = point
            return {**body, "cards": deck.pack(cards)}
        return body

    return alter


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("cheater", [0, 1])
def test_off_curve_point_in_a_shuffle_pass_is_named_by_the_next_shuffler(cheater: int) -> None:
    """§6.4: the peer making the next pass multiplies every point and names the previous pass's sender."""
    peers = game(cheater, _pass_cheat("shuffle", 4, off_curve_point()), seed=22)
    assert_named_by(peers[cheater + 1], cheater, OFF_CURVE, "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("cheater", [0, 1])
def test_off_curve_point_in_a_shuffle_pass_is_named_by_everyone(cheater: int) -> None:
    """§10.3 garbage point: attributed to its sender — by every honest peer, not only the next shuffler.

    (Before 674c040 only the next shuffler named it; the others ended unattributed.)
    """
    peers = game(cheater, _pass_cheat("shuffle", 4, off_curve_point()), seed=22)
    assert_named_by_all(peers, cheater, OFF_CURVE, "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_off_curve_point_in_the_last_shuffle_pass_is_named_by_everyone() -> None:
    """The last shuffler (seat 2) makes the next pass itself: the others must still name it.

    (Before 674c040 seat 2 tripped on its own point, accused itself and the others ended unattributed.)
    """
    peers = game(2, _pass_cheat("shuffle", 0, off_curve_point()), seed=23)
    assert_named_by_all(peers, 2, OFF_CURVE, "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_off_curve_point_in_a_lock_pass_is_named_by_the_next_locker() -> None:
    """Seat 2's lock pass (phase 3) is multiplied by seat 1's lock pass next."""
    peers = game(2, _pass_cheat("lock", 5, off_curve_point()), seed=24)
    assert_named_by(peers[1], 2, OFF_CURVE, "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_off_curve_point_in_a_lock_pass_is_named_by_everyone() -> None:
    peers = game(2, _pass_cheat("lock", 5, off_curve_point()), seed=24)
    assert_named_by_all(peers, 2, OFF_CURVE, "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_off_curve_point_in_the_last_lock_pass_is_named_at_the_audit() -> None:
    """Seat 0's lock pass is the last: nobody multiplies it; the audit's pass-by-pass check names seat 0."""
    peers = game(0, _pass_cheat("lock", 4, off_curve_point()), seed=25)
    assert_named_by_all(peers, 0, "lock pass of deck 0 was not its input re-locked", "bad_pass")


@pytest.mark.parametrize("cheater,kind,phase_words", [
    (0, "shuffle", "shuffle pass of deck 0 was not a permutation"),
    (2, "shuffle", "shuffle pass of deck 0 was not a permutation"),
    (1, "lock", "lock pass of deck 0 was not its input re-locked"),
    (0, "lock", "lock pass of deck 0 was not its input re-locked"),
])
@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_non_card_point_in_a_pass_is_named_at_the_audit(cheater: int, kind: str, phase_words: str) -> None:
    """§9.2 slow path: a valid point that is no card, in any pass, names that pass's sender."""
    peers = game(cheater, _pass_cheat(kind, 7, NON_CARD), seed=26, options={"reveal_end": True})
    assert_named_by_all(peers, cheater, phase_words, "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_non_card_point_in_an_unopened_slot_is_named_at_the_audit() -> None:
    """Without reveal_end most slots never open in the game: the audit still re-derives every pass."""
    peers = game(1, _pass_cheat("lock", 11, NON_CARD), seed=27)
    assert_named_by_all(peers, 1, "lock pass of deck 0 was not its input re-locked", "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_doubled_entry_in_a_pass_is_named_at_once_by_the_next_passer_and_by_every_audit() -> None:
    """§6.4 shape check: all entries distinct. Seat 1's shuffle goes to seat 2 only (v8): seat 2 names it at once, and
    seat 0 by the audit (the pass is not what seat 1's secrets make)."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "shuffle":
            cards = _points(body)
            cards[3] = cards[2]
            return {"cards": deck.pack(cards)}
        return body

    peers = game(1, alter, seed=28)
    assert_named_by_all(peers, 1, ("are equal", "was not a permutation"), "bad_pass")
    assert peers[2].fault is not None and "are equal" in peers[2].fault.reason and peers[2].fault.culprit == 1


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_pass_that_copies_an_input_entry_is_named_by_every_audit() -> None:
    """§6.4 shape check: no output entry may equal an input entry (a card passed through unlocked). Since v8 only the
    seat that made the pass before holds that input (the next passer does not), so every audit names it: the pass
    is not what seat 1's secrets make."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "lock":
            cards = _points(body)
            cards[0] = peers[1].decks[0].current[0]
            return {**body, "cards": deck.pack(cards)}
        return body

    peers = make_peers("toy", 3, {}, seed=29)
    cheat(peers[1], alter)
    run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert_named_by_all(peers, 1, ("the pass did not lock it", "was not its input re-locked"), "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("size_change", [-1, 1])
def test_pass_of_the_wrong_size_is_named_by_everyone(size_change: int) -> None:
    """Seat 2 is the last shuffler: its shuffle's points go to nobody but itself (v8), so every audit names it."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "shuffle":
            cards = _points(body)
            return {"cards": deck.pack(cards[:-1] if size_change < 0 else [*cards, NON_CARD])}
        return body

    assert_named_by_all(game(2, alter, seed=30), 2, ("expected 12 cards", "was not a permutation"), "bad_pass")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("kind_wanted,cheater", [("shuffle", 1), ("lock", 2)])
@pytest.mark.parametrize("cut", [-1, 1])
def test_pass_that_is_not_whole_points_is_named_at_once(kind_wanted: str, cheater: int, cut: int) -> None:
    """§6.4: `cards` is size × 32 bytes; a blob that does not split into 32-byte points names its sender: at once by
    the next passer, the one seat that gets them (v8), and by every other seat's audit."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == kind_wanted:
            blob = body["cards"]
            return {**body, "cards": blob[:-1] if cut < 0 else blob + b"\x00"}
        return body

    peers = game(cheater, alter, seed=36)
    assert_named_by_all(peers, cheater, ("are not whole 32-byte points", "as its secret dictates"), "bad_pass")
    next_passer = {1: 2, 2: 1}[cheater]
    fault = peers[next_passer].fault  # at once, and the one-line fault names the sender, never an honest seat
    assert fault is not None and fault.culprit == cheater and fault.code.value == "bad_pass", fault
    assert "are not whole 32-byte points" in fault.reason and "\n" not in fault.reason


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("change", [-1, 1, -8, 8])
def test_commitments_of_the_wrong_length_are_named_at_once_by_everyone(change: int) -> None:
    """§6.4 lock: `commits` is size × 8 bytes; one byte or one commitment too few or too many names the sender."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "lock":
            blob = body["commits"]
            return {**body, "commits": blob[:change] if change < 0 else blob + bytes(change)}
        return body

    peers = game(1, alter, seed=37)
    assert_named_by_all(peers, 1, "bad key commitments", "bad_pass")
    for p in peers:
        if p.seat != 1:
            assert p.fault is not None and p.fault.culprit == 1 and p.fault.code.value == "bad_pass", p.fault


@pytest.mark.parametrize("bad,words,code", [
    (bytes(8) * 11, "bad key commitments", "bad_pass"),
    (bytes(8) * 11 + bytes(7), "bad key commitments", "bad_pass"),
    ("commits", "field 'commits' has type str", "bad_message"),
    ([bytes(8)] * 12, "field 'commits' has type list", "bad_message"),  # v4's list form
    # twelve well-formed but false commitments pass the arrival check: the audit's commitment
    # check (at the lock pass, earlier than the deal where the first key fails) names the seat
    (bytes(8) * 12, "its key commitments for deck 0 do not match its secret", "bad_key"),
], ids=["short", "short-entry", "text", "list", "false"])
@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_malformed_lock_commitments_are_named_by_everyone(bad: Any, words: str, code: str) -> None:
    """§6.4 lock: `commits` is one bin of `size` × 8 bytes (v8)."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "commits": bad} if kind == "lock" else body

    assert_named_by_all(game(1, alter, seed=31), 1, words, code)


# ----------------------------------------------------------------------------- key commitments (§9.2 item 3)


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_commitment_to_a_never_released_key_is_named_at_the_audit() -> None:
    """A commitment for an undealt slot (never opened in the game) that does not match the released secret."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "lock":
            commits = _commits(body)
            commits[11] = bytes(deck.COMMITMENT_SIZE)
            return {**body, "commits": deck.pack(commits)}
        return body

    assert_named_by_all(game(1, alter, seed=32), 1, "its key commitments for deck 0 do not match its secret", "bad_key")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_commitment_that_the_released_key_fails_is_named_at_once() -> None:
    """A commitment for a slot dealt to another seat: the key released at the deal fails it.

    Every peer aborts at the deal ("released a wrong key"); the verdict then names the earlier
    deviation the audit finds, the false commitment itself (§9.3: smallest ``at`` first).
    """
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "lock":
            commits = _commits(body)
            commits[0] = bytes(deck.COMMITMENT_SIZE)  # slot 0 is dealt to seat 0; seat 1 releases its key at the deal
            return {**body, "commits": deck.pack(commits)}
        return body

    peers = game(1, alter, seed=33)
    assert_named_by_all(peers, 1, "its key commitments for deck 0 do not match its secret", "bad_key")
    for p in peers:
        if p.seat != 1:
            assert p.fault is not None and p.fault.culprit == 1 and "released a wrong key for slot 0" in p.fault.reason


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_a_released_key_that_only_matches_its_commitment_is_named_at_the_audit() -> None:
    """§7.3: a commitment is 8 bytes (v8); were a second key found to match one, the audit would still name its
    seat, since it compares every released key with the one its secret derives. (Such a key is planted here
    directly: finding one costs about 2^64 hashes for that one slot, before its key is due.)"""
    from p2php.session.audit import run_audit

    peers = game(1, lambda kind, body: body, seed=34)
    honest = peers[0]
    assert honest.verdict is not None and honest.verdict.clean, honest.verdict
    slot = next(s for s, keys in honest.released.items() if 1 in keys)
    honest.released[slot][1] = honest.released[slot][1] % (group.ORDER - 1) + 1  # another key
    verdict = run_audit(honest)
    assert verdict.culprit == 1 and verdict.code == "bad_key", verdict
    assert f"released a key for slot {slot} that is not its secret's" in verdict.reason


# ----------------------------------------------------------------------------- audit secrets (§9.1)


@pytest.mark.parametrize("body", [
    {"decks": bytes(31), "boxes": [], "evidence": []},  # wrong length
    {"decks": bytes(33), "boxes": [], "evidence": []},
    {"decks": "0" * 32, "boxes": [], "evidence": []},  # wrong type
    {"decks": 7, "boxes": [], "evidence": []},
    {"boxes": [], "evidence": []},  # missing
    {"decks": None, "boxes": [], "evidence": []},
], ids=["short", "long", "text", "int", "missing", "nil"])
@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_malformed_audit_secret_is_named_by_everyone(body: dict[str, Any]) -> None:
    """§9.1: an audit whose decks is not 32 bytes counts as malformed, and names its sender."""
    def alter(kind: str, b: dict[str, Any]) -> dict[str, Any]:
        return dict(body, evidence=b.get("evidence", [])) if kind == "audit" else b

    assert_named_by_all(game(2, alter, seed=34), 2, "released malformed audit secrets", "bad_audit")


@pytest.mark.parametrize("boxes", ["boxes", None, {}], ids=["text", "nil", "map"])
def test_audit_whose_boxes_is_not_a_list_is_named_by_everyone(boxes: Any) -> None:
    """§9.1: an audit whose boxes is not a list counts as malformed."""
    def alter(kind: str, b: dict[str, Any]) -> dict[str, Any]:
        return {**b, "boxes": boxes} if kind == "audit" else b

    assert_named_by_all(game(0, alter, seed=35), 0, "released malformed audit secrets", "bad_audit")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_audit_with_another_decks_secret_is_named_by_everyone() -> None:
    """A well-formed but false decks secret: its passes and commitments do not follow from it."""
    def alter(kind: str, b: dict[str, Any]) -> dict[str, Any]:
        return {**b, "decks": LocalSecrets(master=bytes(32)).decks_secret} if kind == "audit" else b

    peers = game(1, alter, seed=36)
    for p in peers:
        if p.seat != 1:
            assert p.verdict is not None and p.verdict.culprit == 1, (p.seat, p.verdict)
            assert "deck 0" in p.verdict.reason, p.verdict.reason


# ----------------------------------------------------------------------------- private show (§7.5)


def _show_owner(seed: int) -> int:
    """The owner of the toy game's Show step for ``seed`` (seat ``first``, drawn by the beacon)."""
    peers = make_peers("toy", 3, {}, seed=seed)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(3)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers)
    return peers[0].state.first


def _show_cheat(seed: int, keys_for: Callable[[Lockstep, list[int]], list[list[Any]]]) -> tuple[list[Lockstep], int]:
    """The Show's owner seals ``keys_for(owner_peer, its hand)`` instead of its duty, properly sealed."""
    owner = _show_owner(seed)
    peers = make_peers("toy", 3, {}, seed=seed)
    me = peers[owner]

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "show":
            payload = encode(keys_for(me, list(me.state.hands[owner])))
            key = me._box_key(owner, body["to"], me._my_seq)
            return {"to": body["to"], "box": channel.seal(key, payload, me.session_id)}
        return body

    cheat(me, alter)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(3)})
    return peers, owner


SHOW_SEED = 37


def _wrong_slot(me: Lockstep, hand: list[int]) -> list[list[Any]]:
    return [[hand[1], scalar_bytes(me._my_key(hand[1]))]]


def _no_slot(me: Lockstep, hand: list[int]) -> list[list[Any]]:
    return []


def _extra_slot(me: Lockstep, hand: list[int]) -> list[list[Any]]:
    return [[s, scalar_bytes(me._my_key(s))] for s in hand[:2]]


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("keys_for", [_wrong_slot, _no_slot, _extra_slot], ids=["wrong", "none", "extra"])
def test_show_of_the_wrong_slots_is_named_by_the_viewer(keys_for: Any) -> None:
    """§7.5: the viewer verifies the slots equal the sender's Show duty."""
    peers, owner = _show_cheat(SHOW_SEED, keys_for)
    assert_named_by(peers[(owner + 1) % 3], owner, "privately showed slots", "bad_show")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("keys_for", [_wrong_slot, _no_slot, _extra_slot], ids=["wrong", "none", "extra"])
def test_show_of_the_wrong_slots_is_named_by_everyone(keys_for: Any) -> None:
    peers, owner = _show_cheat(SHOW_SEED, keys_for)
    assert_named_by_all(peers, owner, "", "bad_show")


def _text_slot(me: Lockstep, hand: list[int]) -> list[list[Any]]:
    return [[str(hand[0]), scalar_bytes(me._my_key(hand[0]))]]  # the right key, its slot as text


def _bool_slot(me: Lockstep, hand: list[int]) -> list[list[Any]]:
    return [[True, scalar_bytes(me._my_key(hand[0]))]]


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("keys_for", [_text_slot, _bool_slot], ids=["text", "bool"])
def test_a_show_box_with_a_slot_that_is_no_integer_is_refused(keys_for: Any) -> None:
    """The opened box gets the shape check of a public key list: "5" or True is not slot 5 or 1."""
    peers, owner = _show_cheat(SHOW_SEED, keys_for)
    assert_named_by(peers[(owner + 1) % 3], owner, "private show could not be opened", "bad_show")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_show_of_a_wrong_key_is_named_by_everyone() -> None:
    """The right slot with a wrong key: the viewer names the owner at once, the audit for everyone else."""
    def wrong_key(me: Lockstep, hand: list[int]) -> list[list[Any]]:
        return [[hand[0], scalar_bytes(me._my_key(hand[0]) + 1)]]

    peers, owner = _show_cheat(SHOW_SEED, wrong_key)
    assert_named_by(peers[(owner + 1) % 3], owner, "privately showed a wrong key", "bad_show")
    assert_named_by_all(peers, owner, "", "bad_show")


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_show_sealed_under_another_key_is_named_by_everyone() -> None:
    """A box the released message key does not open (§9.2 item 4)."""
    owner = _show_owner(SHOW_SEED)
    peers = make_peers("toy", 3, {}, seed=SHOW_SEED)

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "show":
            return {"to": body["to"], "box": channel.seal(bytes(32), encode([]), peers[owner].session_id)}
        return body

    cheat(peers[owner], alter)
    run_in_memory(peers, {s: RandomBot(SHOW_SEED * 10 + s) for s in range(3)})
    assert_named_by(peers[(owner + 1) % 3], owner, "private show could not be opened", "bad_show")
    assert_named_by_all(peers, owner, "", "bad_show")


def test_show_to_another_seat_is_named_at_once_by_everyone() -> None:
    owner = _show_owner(SHOW_SEED)

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "to": (body["to"] + 1) % 3} if kind == "show" else body

    assert_named_by_all(game(owner, alter, seed=SHOW_SEED), owner, "showed cards to seat", "bad_show")


# ----------------------------------------------------------------------------- beacon (§8)


@pytest.mark.parametrize("value", ["skip", "anchor", "zero"])
def test_bad_randomness_reveal_is_named_by_everyone(value: str) -> None:
    """§8: D("p2php/chain/v1", binding, v_1) must equal the anchor: a skipped, repeated or made-up value fails."""
    peers = make_peers("toy", 3, {}, seed=38)
    me = peers[1]

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind != "beacon":
            return body
        assert me._chain is not None
        return {"value": {"skip": me._chain.value(2), "anchor": me._chain.anchor, "zero": bytes(32)}[value]}

    cheat(me, alter)
    run_in_memory(peers, {s: RandomBot(380 + s) for s in range(3)})
    assert_named_by_all(peers, 1, "breaks its hash chain", "bad_beacon")


def test_a_game_longer_than_its_hash_chains_renews_them_and_ends_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """§8 renewal: with 3 reveals a chain, a Hogwarts game's dice need many chains per seat (how many depends on
    the game the seed deals, which changes with the session id, hence with the protocol version)."""
    monkeypatch.setattr(handshake, "CHAIN_LENGTH", 3)
    peers = make_peers("hogwarts", 2, {"crypto": "fast"}, seed=2)  # (v9 deals: 39 chain values)
    run_in_memory(peers, {s: get_game("hogwarts").make_bot("heuristic", str(s)) for s in range(2)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    assert len({p.verdict.state_hash for p in peers if p.verdict}) == 1
    assert peers[0].chain_index >= 12 and peers[0]._renewals == peers[0].chain_index // 3


@pytest.mark.parametrize(("length", "alter", "reason"), [
    (1, lambda body: {"value": body["value"]}, "without a 32-byte anchor for the next"),
    (1, lambda body: {**body, "next": bytes(31)}, "without a 32-byte anchor for the next"),
    (2, lambda body: {**body, "next": bytes(32)}, "announced a new hash chain before its chain ran out"),
])
def test_a_chain_renewal_out_of_place_is_named_by_everyone(
        monkeypatch: pytest.MonkeyPatch, length: int, alter: Callable[[dict[str, Any]], dict[str, Any]],
        reason: str) -> None:
    """The last value of a chain must name the next chain's anchor, and no other value may."""
    monkeypatch.setattr(handshake, "CHAIN_LENGTH", length)
    peers = game(1, lambda kind, body: alter(body) if kind == "beacon" else body, seed=38)
    assert_named_by_all(peers, 1, reason, "bad_beacon")


def test_a_renewed_chain_that_does_not_match_its_anchor_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Announcing one anchor and revealing from another chain breaks the chain at the next draw."""
    monkeypatch.setattr(handshake, "CHAIN_LENGTH", 1)
    peers = make_peers("hogwarts", 2, {"crypto": "fast"}, seed=2)
    cheat(peers[1], lambda kind, body: {**body, "next": bytes(32)} if kind == "beacon" else body)
    run_in_memory(peers, {s: get_game("hogwarts").make_bot("heuristic", str(s)) for s in range(2)})
    assert_named_by_all(peers, 1, "breaks its hash chain", "bad_beacon")


def test_another_seats_randomness_value_is_named() -> None:
    """Copying seat 0's reveal fails seat 2's own chain (the binding names the seat)."""
    peers = make_peers("toy", 3, {}, seed=39)

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "beacon":
            chain0 = peers[0]._chain
            assert chain0 is not None
            return {"value": chain0.value(1)}
        return body

    cheat(peers[2], alter)
    run_in_memory(peers, {s: RandomBot(390 + s) for s in range(3)})
    assert_named_by_all(peers, 2, "breaks its hash chain", "bad_beacon")


# ----------------------------------------------------------------------------- sealed choices (§6.6)


@pytest.mark.parametrize("commit", [bytes(31), b"", bytes(33)])
def test_sealed_commitment_of_the_wrong_size_is_named_by_everyone(commit: bytes) -> None:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"commit": commit} if kind == "commit" else body

    assert_named_by_all(game(1, alter, seed=40, options={"sealed": True}), 1, "must be 32 bytes", "bad_commit")


def test_sealed_reveal_with_another_nonce_is_named_by_everyone() -> None:
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "nonce": bytes(32)} if kind == "action" and "nonce" in body else body

    peers = game(2, alter, seed=41, options={"sealed": True})
    assert_named_by_all(peers, 2, "does not match its commitment", "bad_commit")


# ----------------------------------------------------------------------------- the hello (§4.3)


OPTS = {"reveal_end": False, "flips": False, "sealed": False, "secret_deck": False}


def _hello(seat: int = 1, players: int = 3, game_name: str = "toy", options: dict[str, Any] | None = None
           ) -> dict[str, Any]:
    return make_hello(LocalSecrets(master=bytes([seat + 7]) * 32), seat, players, game_name,
                      dict(OPTS if options is None else options), f"peer{seat}")


def _check(hello: Any, seat: int | None = 1) -> dict[str, Any]:
    return check_hello(hello, seat=seat, players=3, game="toy", options=OPTS)


def test_a_good_hello_is_accepted() -> None:
    hello = _hello()
    assert _check(hello) is hello
    assert _check(hello, seat=None) is hello


@pytest.mark.parametrize("change,code", [
    ({"options": {**OPTS, "flips": True}}, RefusalCode.OPTIONS),
    ({"options": {}}, RefusalCode.OPTIONS),
    ({"game": "uno"}, RefusalCode.GAME),
    ({"players": 4}, RefusalCode.PLAYERS),
    ({"seat": 2}, RefusalCode.SEAT),
], ids=["other-option", "no-options", "game", "players", "seat"])
def test_a_hello_for_another_table_is_refused(change: dict[str, Any], code: RefusalCode) -> None:
    """§4.3: game, options, players and seat MUST match (a validly signed hello, for another table)."""
    kw: dict[str, Any] = {"seat": 1, "players": 3, "game_name": "toy", "options": None}
    kw.update({"game_name" if k == "game" else k: v for k, v in change.items()})
    with pytest.raises(HandshakeRefused) as refused:
        _check(_hello(**kw))
    assert refused.value.code is code


def test_a_hello_claiming_another_seat_is_refused_even_if_in_range() -> None:
    """A hello signed for seat 0 arriving on seat 1's connection."""
    with pytest.raises(HandshakeRefused, match="claims seat 0, expected seat 1") as refused:
        _check(_hello(seat=0))
    assert refused.value.code is RefusalCode.SEAT


def test_a_hello_with_a_seat_out_of_range_is_refused() -> None:
    with pytest.raises(HandshakeRefused, match="out of range"):
        _check(_hello(seat=3, players=3), seat=None)
    with pytest.raises(HandshakeRefused, match="out of range"):
        _check(dict(_hello(), seat=-1), seat=None)


@pytest.mark.parametrize("field,value,code", [
    ("hello", PROTOCOL_VERSION + 1, RefusalCode.VERSION),
    ("hello", PROTOCOL_VERSION - 1, RefusalCode.VERSION),
    ("hello", True, RefusalCode.MALFORMED),
    ("chain", 0, RefusalCode.KEYS),
    ("chain", (1 << 20) + 1, RefusalCode.KEYS),
    ("chain", True, RefusalCode.MALFORMED),
    ("sign_key", bytes(31), RefusalCode.KEYS),
    ("box_key", bytes(33), RefusalCode.KEYS),
    ("anchor", bytes(31), RefusalCode.KEYS),
    ("nonce", bytes(16), RefusalCode.KEYS),
    ("name", 5, RefusalCode.MALFORMED),
    ("sig", "sig", RefusalCode.MALFORMED),
])
def test_a_malformed_hello_is_refused(field: str, value: Any, code: RefusalCode) -> None:
    """§4.3: every field present with its type, version 1, 32-byte keys, 1 <= chain <= 2^20."""
    hello = dict(_hello(), **{field: value})
    with pytest.raises(HandshakeRefused) as refused:
        _check(hello)
    assert refused.value.code is code


_P25519 = 2**255 - 19
_LOW_ORDER_U = [0, 1, _P25519 - 1, _P25519, _P25519 + 1,
                325606250916557431795983626356110631294008115727848805560023387167927233504,
                39382357235489614581723060781553021112529911719440698176882885853963445705823]


@pytest.mark.parametrize("u", _LOW_ORDER_U)
def test_a_hello_with_a_low_order_box_key_is_refused(u: int) -> None:
    """A box key of small order (X25519 has no shared secret with it), signed by its own seat: every private show
    to or from that seat raised ChannelError in the honest peer, which ended the game unattributed as an
    ``internal`` fault instead of naming anyone (red-team rt3-proofs, rt3/lowbox.py)."""
    from p2php.canonical import digest, encode
    from p2php.tags import HELLO

    secrets = LocalSecrets(master=bytes([8]) * 32)
    hello = {k: v for k, v in _hello().items() if k != "sig"}
    hello["box_key"] = u.to_bytes(32, "little")
    hello["sig"] = secrets.identity.sign(digest(HELLO, encode(hello)))
    with pytest.raises(HandshakeRefused, match="box_key") as refused:
        _check(hello)
    assert refused.value.code is RefusalCode.KEYS


@pytest.mark.parametrize("old", [4, 5, 6, 7, 8, 9])
def test_an_older_hello_is_refused_with_one_clear_line(old: int) -> None:
    """§11 Why version 5 … 10: v4 peers send list passes and 32-byte commitments, v5 peers a proof per share
    (which a later peer would read as malformed shares, naming an honest seat), v6 peers Terelius–Wikström shuffle
    proofs (malformed Bayer–Groth proofs to a v7 peer), v7 peers a fast pass's points in every copy (a v8 peer
    would read an intermediate pass with points in its body as one without its digest), v8 peers a verified audit
    without the witness shares a v9 peer requires (it would name the honest v8 seat ``bad_audit``), v9 peers accept
    and quote a message denser than a value per 4 bytes (a v10 peer would name the honest v9 seat ``bad_message``
    for its abort's evidence), so a v10 peer refuses them."""
    assert PROTOCOL_VERSION == 10
    with pytest.raises(HandshakeRefused, match=f"protocol version {old}, we speak 10") as refused:
        _check(dict(_hello(), hello=old))
    assert refused.value.code is RefusalCode.VERSION and "\n" not in str(refused.value)


@pytest.mark.parametrize("field", ["name", "nonce", "anchor", "options"])
def test_a_hello_changed_after_signing_is_refused(field: str) -> None:
    """The signature covers every field but ``sig`` (§4.2)."""
    hello = _hello()
    changed = {"name": "mallory", "nonce": bytes(32), "anchor": bytes(32), "options": hello["options"]}[field]
    hello = dict(hello, **{field: changed})
    if field == "options":
        hello["extra"] = 1  # an unknown field is allowed, but it is signed
    with pytest.raises(HandshakeRefused) as refused:
        _check(hello)
    assert refused.value.code is RefusalCode.SIGNATURE


def test_a_hello_that_is_not_a_map_is_refused() -> None:
    with pytest.raises(HandshakeRefused) as refused:
        _check([1, 2])
    assert refused.value.code is RefusalCode.MALFORMED


def test_the_chain_length_bounds_are_inclusive() -> None:
    """chain = 1 and chain = 2^20 pass the range check (then fail only the signature, being edited)."""
    for chain in (1, 1 << 20):
        with pytest.raises(HandshakeRefused, match="bad signature"):
            _check(dict(_hello(), chain=chain))


# ----------------------------------------------------------------------------- aborts (§6.8, §9.3)


def _aborting(peer: Lockstep, body: dict[str, Any]) -> None:
    """``peer`` sends ``body`` as an abort instead of its first action, then goes to the audit."""
    send = peer._send
    state = {"done": False}

    def aborting_send(kind: str, b: dict[str, Any]) -> Any:
        if kind == "action" and not state["done"]:
            state["done"] = True
            send("abort", body)
            peer.auditing = True
            assert peer.secrets is not None
            return send("audit", {"decks": peer.secrets.decks_secret, "boxes": [], "evidence": []})
        return send(kind, b)

    peer._send = aborting_send  # type: ignore[method-assign]


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_an_abort_that_accuses_nobody_does_not_make_the_game_clean() -> None:
    """An abort with culprit -1 in the middle of the game: nobody is convicted, but the game did not finish."""
    peers = make_peers("toy", 3, {}, seed=42)
    _aborting(peers[1], {"culprit": -1, "reason": "made up", "at": [0, 0], "evidence": [], "claims": []})
    run_in_memory(peers, {s: RandomBot(420 + s) for s in range(3)})
    for p in (peers[0], peers[2]):
        assert p.finished and p.verdict is not None
        assert not p.verdict.clean, (p.seat, p.verdict)
        assert p.verdict.culprit is None, (p.seat, p.verdict)
        assert p.result is None


@pytest.mark.parametrize("body", [
    {"culprit": "seat 0", "reason": "made up", "at": [0, 0], "evidence": [], "claims": []},
    {"culprit": 0, "reason": 7, "at": [0, 0], "evidence": [], "claims": []},
], ids=["culprit-text", "reason-int"])
def test_a_malformed_abort_names_its_sender(body: dict[str, Any]) -> None:
    """§6.8: an abort whose culprit is not an int or whose reason is not a string names its sender.

    (Before 5b8b734 the fault was recorded as an accusation *by* its sender and ended unattributed.)
    """
    peers = make_peers("toy", 3, {}, seed=43)
    _aborting(peers[2], body)
    run_in_memory(peers, {s: RandomBot(430 + s) for s in range(3)})
    assert_named_by_all(peers, 2, "sent a malformed abort", "bad_message")


def test_a_malformed_abort_stops_the_game_for_everyone() -> None:
    """The malformed abort is seen and the game ends unclean, never naming an honest seat."""
    peers = make_peers("toy", 3, {}, seed=43)
    _aborting(peers[2], {"culprit": "seat 0", "reason": "made up", "at": [0, 0], "evidence": [], "claims": []})
    run_in_memory(peers, {s: RandomBot(430 + s) for s in range(3)})
    for p in peers[:2]:
        assert p.finished and p.verdict is not None and not p.verdict.clean, (p.seat, p.verdict)
        assert "malformed abort" in p.verdict.reason, (p.seat, p.verdict)
        assert p.verdict.culprit in (None, 2), (p.seat, p.verdict)  # never an honest seat


# ----------------------------------------------------------------------------- relays and acting out of turn


@pytest.mark.parametrize("sender", [3, -1, 99])
def test_a_relayed_message_from_no_seat_is_refused(sender: int) -> None:
    """§3.5: a relay is checked like a direct message; an author outside 0..n-1 is refused, not a crash."""
    peers = make_peers("toy", 3, {}, seed=44)
    frame = {"from": sender, "seq": 0, "prev": peers[0].session_id, "at": [0, 0], "state": bytes(32), "seen": [],
             "kind": "shuffle", "body": {"cards": []}, "sig": bytes(64)}
    assert peers[0].receive_relayed(frame) is False
    assert peers[0].fault is None


def test_acting_out_of_turn_is_refused_locally() -> None:
    """The local API refuses an action when the engine does not wait for this seat."""
    from p2php.engine.contract import IllegalAction

    peers = make_peers("toy", 3, {}, seed=45)
    assert not peers[0].awaiting_me()  # the game starts with a shuffle
    with pytest.raises(IllegalAction):
        peers[0].act({"type": "bid", "n": 1})


# ----------------------------------------------------------------------------- malformed input at the boundaries


@pytest.mark.parametrize("at", [[0], [0, 0, 0], [-1, 0], [0, -1], [True, 0], [0, "1"]])
def test_an_envelope_with_a_bad_point_is_refused(at: Any) -> None:
    """§5.2 item 1: ``at`` is two non-negative ints."""
    from p2php.session.messages import BadMessage, parse_message

    frame = {"from": 0, "seq": 0, "prev": bytes(32), "at": at, "state": bytes(32), "seen": [],
             "kind": "beacon", "body": {}, "sig": bytes(64)}
    with pytest.raises(BadMessage, match="'at'"):
        parse_message(frame)
    parse_message(dict(frame, at=[0, 0]))  # the same frame with a good point parses


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("form,words", [("text", "missing field 'digest'"), ("list", "missing field 'digest'")])
def test_a_pass_that_is_not_one_bin_is_named_by_everyone(form: str, words: str) -> None:
    """§6.4: a fast pass's `cards` is one bin; text, or v4's list of points, is a bad message of its sender (an
    intermediate pass, v8: a body without the digest it must sign)."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "shuffle":
            return {"cards": "x" * len(body["cards"]) if form == "text" else _points(body)}
        return body

    assert_named_by_all(game(1, alter, seed=46), 1, words, "bad_message")


def test_secrets_never_show_in_a_repr() -> None:
    """Deck secrets end up in logs only by mistake: their repr shows the context, never a key."""
    from p2php.crypto.deck import DeckSecrets

    ds = DeckSecrets.derive(bytes(32), b"ctx", 3)
    text = repr(ds)
    assert "ctx" in text
    for secret in (ds.shuffle_key, *ds.slot_keys):
        assert str(secret) not in text and hex(secret)[2:] not in text
    assert ds.seed.hex() not in text and str(ds.permutation) not in text


@pytest.mark.parametrize("keys", [[0], [group.ORDER], [True], [-1], [2, 0]])
def test_combine_keys_refuses_what_is_no_scalar(keys: list[int]) -> None:
    from p2php.crypto.deck import combine_keys

    with pytest.raises(ValueError):
        combine_keys(keys)


def test_combine_keys_accepts_every_scalar() -> None:
    from p2php.crypto.deck import combine_keys

    assert combine_keys([1]) == 1
    assert combine_keys([group.ORDER - 1, group.ORDER - 1]) == 1
    assert combine_keys([]) == 1


def test_a_zero_key_never_satisfies_a_commitment() -> None:
    """Even a commitment *to* 0 is not satisfied by 0: a key is a scalar, 1 <= k < q."""
    from p2php.crypto.deck import check_key_commitment, key_commitment

    assert not check_key_commitment(key_commitment(b"ctx", 0, 0, 0), b"ctx", 0, 0, 0)
    assert check_key_commitment(key_commitment(b"ctx", 0, 0, 1), b"ctx", 0, 0, 1)
    last = group.ORDER - 1
    assert check_key_commitment(key_commitment(b"ctx", 0, 0, last), b"ctx", 0, 0, last)


def test_card_points_of_a_negative_count_are_refused() -> None:
    from p2php.crypto.deck import card_points

    with pytest.raises(ValueError):
        card_points(b"d", -1)
    assert card_points(b"d", 0) == []


def test_mul_many_checks_the_scalar() -> None:
    p = group.hash_to_point(b"test", b"p")
    for k in (0, group.ORDER, True):
        with pytest.raises(ValueError):
            group.mul_many([p], k)
    assert group.mul_many([p], 3) == [group.mul(p, 3)]


def test_owner_instances_allows_exactly_max_copies() -> None:
    """A secret deck may hold every copy of a type, not one more (§7.8)."""
    from p2php.crypto.deck import owner_instances
    from p2php.rng import DetRng

    ids = owner_instances([4, 4, 4], 3, DetRng(b"x"))
    assert sorted(ids) == [12, 13, 14]
    with pytest.raises(ValueError):
        owner_instances([4, 4, 4, 4], 3, DetRng(b"x"))


def test_forged_relays_are_forgiven_up_to_the_bound_and_the_next_names_the_link() -> None:
    """§3.5: an honest peer relays only messages whose signatures it checked; ``MAX_BAD_RELAYS`` frames that are
    no signed message of the table are dropped (a few could be anything), the next names the seat that sent them."""
    from p2php.session.records import MAX_BAD_RELAYS, FaultCode

    peers = make_peers("toy", 3, {}, seed=46)
    forged = {"from": 2, "seq": 0, "prev": peers[0].session_id, "at": [0, 0], "state": bytes(32), "seen": [],
              "kind": "shuffle", "body": {"cards": []}, "sig": bytes(64)}
    for _ in range(MAX_BAD_RELAYS):
        peers[0].relayed_by(1, forged)
    assert peers[0].fault is None
    peers[0].relayed_by(2, forged)  # another link's count is its own
    assert peers[0].fault is None
    peers[0].relayed_by(1, forged)
    assert peers[0].fault is not None and peers[0].fault.culprit == 1 and peers[0].fault.code == FaultCode.BAD_MESSAGE
