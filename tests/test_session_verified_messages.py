"""Verified-deck message bodies (issue 10, increment 3b): the new kinds, the ``ct66`` and share list parsers, the
mode-exclusive fields, the verified fields of a deck record, and the crypto layer's fault codes pinned to the
session's."""

from __future__ import annotations

import pytest

from p2php.crypto import verified_deck as vd
from p2php.session.messages import (
    BATCH_PROOF_SIZE,
    CIPHERTEXT_SIZE,
    KINDS,
    SHARE_SIZE,
    BadMessage,
    Message,
    body_only,
    bytes_list,
    share_lists,
)
from p2php.session.records import DeckRecord, FaultCode


def _msg(body: dict[str, object], kind: str = "pass") -> Message:
    return Message(2, 5, bytes(32), (3, 1), bytes(32), (), kind, body, bytes(64))


def test_the_new_kinds() -> None:
    assert "deckkey" in KINDS and "pass" in KINDS
    assert KINDS[:9] == ("shuffle", "lock", "keys", "commit", "action", "beacon", "show", "abort", "audit")


def test_bytes_list_checks_count_then_sizes() -> None:
    ct = bytes(CIPHERTEXT_SIZE)
    assert bytes_list(_msg({"cards": [ct, ct]}), "cards", 2, CIPHERTEXT_SIZE) == [ct, ct]
    for bad in ([ct], [ct, ct, ct], [ct, ct[:-1]], [ct, "x"], "notalist"):
        with pytest.raises(BadMessage) as info:
            bytes_list(_msg({"cards": bad}), "cards", 2, CIPHERTEXT_SIZE)
        assert info.value.sender == 2
    with pytest.raises(BadMessage):
        bytes_list(_msg({}), "cards", 2, CIPHERTEXT_SIZE)


def test_share_lists() -> None:
    point, proof = bytes(SHARE_SIZE), bytes(BATCH_PROOF_SIZE)
    assert share_lists({"shares": [[4, point], [9, point]], "proofs": [proof]}) == ([(4, point), (9, point)],
                                                                                 [proof])
    assert share_lists({"shares": [], "proofs": []}) == ([], [])
    assert share_lists({"action": {}}) == ([], [])  # an empty release leaves both fields out
    assert share_lists({"shares": [[4, point]]}) is None and share_lists({"proofs": []}) is None  # not one alone
    for bad in ([[4, point[:-1]]], [[True, point]], [["4", point]], [[4, point, 1]], [point], "x", None):
        assert share_lists({"shares": bad, "proofs": [proof]}) is None
    for proofs in ([proof[:-1]], [proof, proof, proof], "x", None, [point]):  # more proofs than shares: refused
        assert share_lists({"shares": [[4, point], [9, point]], "proofs": proofs}) is None
    assert share_lists([[4, point]]) is None  # v5's box: a bare list of pairs


def test_a_field_of_the_other_mode_is_refused() -> None:
    body_only(_msg({"shares": [], "action": {}}, "action"), frozenset({"keys", "commits"}))
    with pytest.raises(BadMessage, match="'keys'"):
        body_only(_msg({"shares": [], "keys": []}, "keys"), frozenset({"keys", "commits"}))
    with pytest.raises(BadMessage, match="'shares'"):
        body_only(_msg({"shares": [], "keys": []}, "keys"), frozenset({"shares"}))


def test_deck_fault_codes_are_fault_codes() -> None:
    """``DeckFault.why`` becomes ``FaultCode(why)`` in the session: the values must stay equal."""
    for why, code in ((vd.BAD_KEY, FaultCode.BAD_KEY), (vd.BAD_PASS, FaultCode.BAD_PASS),
                      (vd.BAD_CARD, FaultCode.BAD_CARD), (vd.BAD_SECRET_DECK, FaultCode.BAD_SECRET_DECK)):
        assert FaultCode(why) is code


def test_a_fast_deck_record_is_unchanged() -> None:
    rec = DeckRecord(0, bytes(32), 0, 0, (1, 2))
    assert rec.y is None and rec.y_shares == {} and rec.cts == []
