"""Sans-IO cryptography of p2php: mental-poker decks, identities, channels, randomness.

* :mod:`~p2php.crypto.group` -- commutative encryption (SRA) on P-256 via ECDH.
* :mod:`~p2php.crypto.deck` -- the two-pass shuffle/lock deck, dealing and audit checks.
* :mod:`~p2php.crypto.identity` -- Ed25519 signing + X25519 agreement keys per peer.
* :mod:`~p2php.crypto.channel` -- per-message sealed payloads between two peers.
* :mod:`~p2php.crypto.beacon` -- hash-chain joint randomness and commit-reveal.

Nothing here does I/O or draws global randomness (except :meth:`Identity.generate`):
secrets come in as seeds so that they can be revealed and re-derived at the audit.
"""

from p2php.crypto.beacon import HashChain, check_commit, combine, commit, verify_next
from p2php.crypto.channel import ChannelError, message_key, open_sealed, seal
from p2php.crypto.deck import (
    DeckSecrets,
    PointBook,
    card_points,
    check_deck_shape,
    check_key_commitment,
    combine_keys,
    key_commitment,
    key_commitments,
    lock_pass,
    open_point,
    owner_instances,
    owner_mask,
    rerandomise,
    shuffle_pass,
    verify_lock_pass,
    verify_shuffle_pass,
)
from p2php.crypto.group import (
    ORDER,
    InvalidPoint,
    hash_to_point,
    inverse,
    is_point,
    mul,
    mul_many,
    random_scalar,
)
from p2php.crypto.identity import Identity, PublicIdentity

__all__ = [
    "ORDER",
    "ChannelError",
    "DeckSecrets",
    "HashChain",
    "Identity",
    "InvalidPoint",
    "PointBook",
    "PublicIdentity",
    "card_points",
    "check_commit",
    "check_deck_shape",
    "check_key_commitment",
    "combine",
    "combine_keys",
    "commit",
    "hash_to_point",
    "inverse",
    "is_point",
    "key_commitment",
    "key_commitments",
    "lock_pass",
    "message_key",
    "mul",
    "mul_many",
    "open_point",
    "open_sealed",
    "owner_instances",
    "owner_mask",
    "random_scalar",
    "rerandomise",
    "seal",
    "shuffle_pass",
    "verify_lock_pass",
    "verify_next",
    "verify_shuffle_pass",
]
