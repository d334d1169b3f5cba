"""Every domain-separation tag of p2php, defined once (protocol.md §2.6; tests/test_tags.py checks the two agree).

A tag goes first into ``D(tag, …)`` (:func:`p2php.canonical.digest`) unless its comment says it is a raw prefix.
Changing a byte of a normative tag changes the protocol: every peer must use the same bytes.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- normative (the wire depends on them)

RNG = b"p2php/rng/v1\x00"  # DetRng seed: a raw prefix of SHA-256, not via D (p2php/rng.py)
H2C = b"p2php/h2c/v1"  # hash_to_point: a raw prefix (crypto/group.py)
HELLO = b"p2php/hello/v1"  # the signature over a hello (session/handshake.py)
LINK = b"p2php/link/v1"  # the link proof of the connection handshake, §3.2 (net/mesh.py)
LINK_KEYS = b"p2php/link-keys/v1"  # the HKDF salt tag and info of the per-link frame keys, §3.2 (net/linkauth.py)
SESSION = b"p2php/session/v1"  # the session id, from every hello (session/handshake.py)
SAFETY = b"p2php/safety/v1"  # the safety code people compare, §4.4 (session/handshake.py)
CHAT = b"p2php/chat/v1"  # what a chat line's signature signs, §3.8 (session/chat.py)
REMATCH = b"p2php/rematch/v1"  # an old seat key vouching for its new hello in a rematch, §3.9 (session/rematch.py)
MSG = b"p2php/msg/v1"  # what a message signature signs (session/messages.py)
MSGID = b"p2php/msgid/v1"  # the hash naming one message (session/messages.py)
CARDS = b"p2php/cards/v1"  # the card point domain of a session and game (session/lockstep.py)
DECK = b"p2php/deck/v1"  # a deck's context (session/decks.py) and the DeckSecrets RNG seed (crypto/deck.py)
DECK_SEED = b"p2php/deck-seed/v1"  # the per-deck seed from the released decks secret (session/handshake.py)
KEY = b"p2php/key/v2"  # the 16-byte commitment to one slot key, v5 (crypto/deck.py)
PASS = b"p2php/pass/v1"  # the digest of a fast pass's points sent to its next seat only, v8 §6.4 (session/decks.py)
CHAIN_BINDING = b"p2php/chain-binding/v1"  # what binds a hash chain to its seat and key (session/handshake.py)
CHAIN = b"p2php/chain/v1"  # one step of a hash chain (crypto/beacon.py)
BEACON = b"p2php/beacon/v1"  # combining the reveals into one random value (crypto/beacon.py)
SHOW = b"p2php/show/v1"  # the context of a private show's key (session/decks.py)
BOX = b"p2php/box/v1"  # the HKDF info prefix of a message key (crypto/channel.py)
BOX_KEY = b"p2php/box-key/v1"  # the key check prefix of a sealed payload (crypto/channel.py)
COMMIT = b"p2php/commit/v1"  # the commitment of a sealed choice, §6.4 (crypto/beacon.py)
SEAL = b"p2php/seal/v1"  # the context of a sealed choice's commitment, §6.4 (session/lockstep.py)
VERIFIED_H2G = b"p2php/verified/h2g/v1"  # hash to secp256k1, Appendix B.2 (crypto/secp256k1.py)
VERIFIED_GENS = b"p2php/verified/gens/v1"  # the commitment generators H_i, Appendix B.2 (crypto/secp256k1.py)
VERIFIED_CARD = b"p2php/verified/card/v1"  # a card's point in a verified deck, Appendix B.3 (crypto/elgamal.py)
VERIFIED_CTX = b"p2php/verified/ctx/v1"  # the context every verified proof binds, Appendix B.4 (crypto/proofs.py)
VERIFIED_KEY = b"p2php/verified/key/v1"  # the Schnorr challenge of a key share, Appendix B.5 (crypto/proofs.py)
VERIFIED_SHARES = b"p2php/verified/shares/v1"  # a batch of shares: statement and challenge, B.6 (crypto/proofs.py)
VERIFIED_SHARES_W = b"p2php/verified/shares-w/v1"  # a batch's weights, Appendix B.6 (crypto/proofs.py)
VERIFIED_SHUFFLE = b"p2php/verified/shuffle/v1"  # a shuffle's statement digest, Appendix B.7 (crypto/shuffle_proof.py)
VERIFIED_SHUFFLE_U = b"p2php/verified/shuffle-u/v1"  # the shuffle's vector challenge u (crypto/shuffle_proof.py)
VERIFIED_SHUFFLE_C = b"p2php/verified/shuffle-c/v1"  # the shuffle's challenge γ (crypto/shuffle_proof.py)
VERIFIED_BG = b"p2php/verified/bg/v1"  # a Bayer–Groth shuffle's statement, Appendix B.11 (crypto/bayer_groth)
VERIFIED_BG_T = b"p2php/verified/bg-t/v1"  # one step of the Bayer–Groth transcript, B.11 (crypto/bayer_groth)
VERIFIED_BG_C = b"p2php/verified/bg-c/v1"  # a Bayer–Groth challenge, Appendix B.11 (crypto/bayer_groth)
VERIFIED_BG_BATCH = b"p2php/verified/bg-batch/v1"  # the reference verifier's batch weight, B.11 (informative)
VERIFIED_DECK = b"p2php/verified/deck/v1"  # the game part of a verified deck's contexts, B.10 (crypto/verified_deck.py)

# ----------------------------------------------------------------------------- informative (local derivations)

SEAL_NONCE = b"p2php/seal-nonce/v1"  # the reference's nonce of a sealed choice (session/lockstep.py)
FINGERPRINT = b"p2php/fingerprint/v1"  # the human-readable key fingerprint, display only (crypto/identity.py)
IDENTITY = b"p2php/identity/v1"  # a peer's identity secret from its master, §4.5 (session/handshake.py)
IDENTITY_SIGN = b"p2php/identity/sign/v1"  # the Ed25519 key from an identity secret (crypto/identity.py)
IDENTITY_BOX = b"p2php/identity/box/v1"  # the X25519 key from an identity secret (crypto/identity.py)
DECKS = b"p2php/decks/v1"  # the decks secret from the master, released at the audit (session/handshake.py)
BEACON_SEED = b"p2php/beacon-seed/v1"  # the hash-chain seed from the master (session/handshake.py)
NONCE = b"p2php/nonce/v1"  # the hello nonce from the master (session/handshake.py)
CHAIN_SEED = b"p2php/chain-seed/v1"  # the last value of a hash chain, from its seed and binding (crypto/beacon.py)
CHAIN_RENEW = b"p2php/chain-renew/v1"  # the seed of a peer's k-th renewed hash chain (session/handshake.py)
VERIFIED_DECK_SECRET = b"p2php/verified/deck-secret/v1"  # a seat's key share and nonces (crypto/verified_deck.py)

# ----------------------------------------------------------------------------- tests only

TEST_MASTER = b"p2php/test-master"  # the masters of the in-memory test peers (session/memory.py)
TEST_UNO_CUT = b"p2php/test-uno-cut"  # the candidate joint randomness of a stacked UNO cut (testing/uno.py)

PROTOCOL_TAGS = frozenset({
    RNG, H2C, HELLO, LINK, LINK_KEYS, SESSION, SAFETY, CHAT, REMATCH, MSG, MSGID, CARDS, DECK, DECK_SEED, KEY, PASS,
    CHAIN_BINDING, CHAIN, BEACON, SHOW, BOX, BOX_KEY, COMMIT, SEAL, SEAL_NONCE, FINGERPRINT, IDENTITY, IDENTITY_SIGN,
    IDENTITY_BOX, DECKS, BEACON_SEED, NONCE, CHAIN_SEED, CHAIN_RENEW, VERIFIED_H2G, VERIFIED_GENS, VERIFIED_CARD,
    VERIFIED_CTX, VERIFIED_KEY, VERIFIED_SHARES, VERIFIED_SHARES_W, VERIFIED_SHUFFLE,
    VERIFIED_SHUFFLE_U, VERIFIED_SHUFFLE_C, VERIFIED_BG, VERIFIED_BG_T, VERIFIED_BG_C, VERIFIED_BG_BATCH, VERIFIED_DECK,
    VERIFIED_DECK_SECRET,
})
"""Every tag a peer uses, normative or not (protocol.md §2.6 minus its tests-only row)."""

TEST_TAGS = frozenset({TEST_MASTER, TEST_UNO_CUT})
"""Tags only the test peers use (protocol.md §2.6, "tests only")."""
