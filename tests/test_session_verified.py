"""The verified deck in the session (issue 10, increment 3d): whole games over memory peers with
``crypto=verified`` end clean with every seat agreeing, and the cheats a proof stops are named at the step.

The lead test is the relation-planting attack of issue 10: the first shuffler replaces one card's ciphertext with
twice another's (``Y = 2·X``), which every honest SRA pass preserves; here its pass fails its shuffle proof on
every honest peer, before any card is dealt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("coincurve")

from p2php.bots import RandomBot  # noqa: E402
from p2php.crypto import verified_deck as vd  # noqa: E402
from p2php.crypto.bayer_groth import prove_shuffle  # noqa: E402
from p2php.crypto.elgamal import Ciphertext, remask  # noqa: E402
from p2php.crypto.secp256k1 import random_scalar  # noqa: E402
from p2php.session import memory  # noqa: E402
from p2php.session.lockstep import Lockstep  # noqa: E402
from p2php.session.records import DeckRecord, FaultCode, FaultError  # noqa: E402

VERIFIED = {"crypto": "verified"}


def _play(game: str, players: int, options: dict[str, Any], seed: int = 1) -> list[Lockstep]:
    peers = memory.make_peers(game, players, {**options, **VERIFIED}, seed=seed)
    memory.run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
    return peers


def _clean(peers: list[Lockstep]) -> None:
    assert all(p.finished and p.verdict is not None and p.verdict.clean for p in peers), \
        [(p.verdict, p.fault) for p in peers]
    assert len({p.verdict.state_hash for p in peers if p.verdict is not None}) == 1
    assert all(p.result is not None for p in peers)


def _cheat(peer: Lockstep, alter: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
    """Make ``peer`` a modified client whose outgoing bodies go through ``alter`` (before it signs them)."""
    send = peer._send
    peer._send = lambda kind, body: send(kind, alter(kind, body))  # type: ignore[method-assign]


def _named(peers: list[Lockstep], culprit: int, code: FaultCode) -> None:
    for p in peers:
        if p.seat == culprit:
            continue
        assert p.fault is not None and p.fault.culprit == culprit and p.fault.code == code, p.fault
        assert p.verdict is not None and not p.verdict.clean and p.verdict.culprit == culprit, p.verdict
        assert p.verdict.code == code.value


def test_toy_game_is_clean_and_its_audit_releases_no_secret() -> None:
    peers = _play("toy", 3, {})
    _clean(peers)
    for p in peers:
        assert p.vdeck is not None and p.decks[0].y is not None and len(p.decks[0].passes) == 3
        audits = [m for m in p.transcript if m.kind == "audit"]
        assert len(audits) == 3 and all("decks" not in m.body and m.body["boxes"] == [] for m in audits)
        assert not any(m.kind in ("shuffle", "lock") or "keys" in m.body for m in p.transcript)
        # A message that releases no share carries no share fields (an empty release is left out, §6.4).
        assert not any(m.body.get("shares") == [] or m.body.get("proofs") == [] for m in p.transcript)
        assert any(m.kind == "action" and "shares" not in m.body for m in p.transcript)


def test_uno_is_clean() -> None:
    peers = _play("uno", 3, {"deck": "magic", "rounds": 1})
    _clean(peers)
    assert len(peers[0].decks[0].cards) == 112
    faces = [p.public_faces for p in peers]
    assert all(f == faces[0] for f in faces) and faces[0]


def test_hpsha_is_clean() -> None:
    _clean(_play("hpsha", 4, {}))


def _plant(kind: str, body: dict[str, Any], done: list[bool]) -> dict[str, Any]:
    """``Y = 2·X``: card 1's ciphertext becomes twice card 0's; the proof is the honest one of the real output."""
    if kind != "pass" or done:
        return body
    done.append(True)
    x = Ciphertext.decode(body["cards"][0])
    cards = list(body["cards"])
    cards[1] = Ciphertext(x.a * 2, x.b * 2).encode()
    return {**body, "cards": cards}


def test_relation_planting_by_the_first_shuffler_is_named_at_its_pass() -> None:
    peers = memory.make_peers("uno", 3, {"deck": "magic", "rounds": 1, **VERIFIED}, seed=4)
    first = 0  # a public deck's first shuffler (pass_order)
    done: list[bool] = []
    _cheat(peers[first], lambda kind, body: _plant(kind, body, done))
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert done and peers[1].decks[0].pass_order(3)[0] == first
    _named(peers, first, FaultCode.BAD_PASS)
    for p in peers:
        assert p.fault is not None and p.fault.at[0] == peers[0].decks[0].tick
        assert not p.private_faces and not p.public_faces  # no card was dealt: nothing can be located
        assert p.seat == first or p.decks[0].cts == []  # no honest peer took the tampered output as its deck


def test_relation_planting_re_proven_over_the_tampered_deck_is_still_refused() -> None:
    """With the cheat's own outputs in the statement no witness exists: the proof it makes fails."""
    peers = memory.make_peers("toy", 3, VERIFIED, seed=5)
    cheater = peers[0]
    assert cheater.vdeck is not None
    honest = cheater.vdeck.own_shuffle_body

    def own(rec: DeckRecord, kind: str) -> dict[str, Any]:
        if kind != "pass":
            return honest(rec, kind)
        assert cheater.vdeck is not None and rec.y is not None
        ctx = cheater.vdeck.ctx(rec, "pass", 0, 0)
        deck = vd.public_deck(cheater.vdeck.book, rec.cards, rec.y)
        rng = cheater.vdeck.secrets(rec.number).rng(b"cheat", ctx)
        perm = rng.permutation(len(deck))
        rhos = [random_scalar(rng) for _ in deck]
        outputs = [remask(rec.y, deck[j], rho) for j, rho in zip(perm, rhos, strict=True)]
        outputs[1] = Ciphertext(outputs[0].a * 2, outputs[0].b * 2)
        proof = prove_shuffle(ctx, rec.y, deck, outputs, perm, rhos, rng)
        return {"cards": [ct.encode() for ct in outputs], "proof": proof.encode()}

    cheater.vdeck.own_shuffle_body = own  # type: ignore[method-assign]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 0, FaultCode.BAD_PASS)


def test_a_wrong_key_share_is_named_at_the_key_round() -> None:
    peers = memory.make_peers("toy", 3, VERIFIED, seed=6)
    other = peers[1]  # its own key share, proven under seat 2's context (a replay into another seat)

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "deckkey":
            return {"key": _foreign_key(other)}
        return body

    _cheat(peers[1], alter)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 1, FaultCode.BAD_KEY)


def _foreign_key(owner: Lockstep) -> bytes:
    """``owner``'s key share with its proof made under seat 2's context: under its own seat's, it fails."""
    assert owner.vdeck is not None
    rec = owner.decks[0]
    return vd.make_key_share(owner.vdeck.ctx(rec, "key", 0, 2), owner.vdeck.secrets(rec.number)).encode()


def test_a_pass_proof_replayed_from_another_seat_is_refused() -> None:
    """R: seat 1 sends a pass made under seat 0's context (position-unique contexts stop it)."""
    peers = memory.make_peers("toy", 3, VERIFIED, seed=7)
    cheater = peers[1]
    assert cheater.vdeck is not None
    vdeck = cheater.vdeck

    def own(rec: DeckRecord, kind: str, honest: Any = vdeck.own_shuffle_body) -> dict[str, Any]:
        if kind != "pass":
            return honest(rec, kind)
        assert rec.y is not None
        cards, proof = vd.make_pass(vdeck.ctx(rec, "pass", 1, 0), rec.y, rec.cts, vdeck.secrets(rec.number)).wire()
        return {"cards": cards, "proof": proof}

    vdeck.own_shuffle_body = own  # type: ignore[method-assign]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 1, FaultCode.BAD_PASS)


def test_a_wrong_decryption_share_is_named_on_arrival() -> None:
    peers = memory.make_peers("toy", 3, VERIFIED, seed=8)
    done: list[bool] = []

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "keys" and len(body.get("shares", [])) >= 2 and not done:
            done.append(True)
            shares = [list(s) for s in body["shares"]]
            shares[0][1], shares[1][1] = shares[1][1], shares[0][1]  # each a valid share, of the other slot
            return {**body, "shares": shares}
        return body

    _cheat(peers[2], alter)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert done
    _named(peers, 2, FaultCode.BAD_KEY)


def _swap_one(body: dict[str, Any], old: list[dict[str, Any]]) -> dict[str, Any]:
    """One share replaced by a valid share of this seat for another slot (made earlier); its proof kept."""
    shares = [list(s) for s in body["shares"]]
    shares[-1][1] = old[0]["shares"][0][1]
    return {**body, "shares": shares}


def _no_proof(body: dict[str, Any], old: list[dict[str, Any]]) -> dict[str, Any]:
    return {**body, "proofs": []}


def _old_proof(body: dict[str, Any], old: list[dict[str, Any]]) -> dict[str, Any]:
    """The batch proof of an earlier release of this seat: bound to other contexts and shares."""
    return {**body, "proofs": old[0]["proofs"]}


@pytest.mark.parametrize("tamper", [_swap_one, _no_proof, _old_proof])
def test_a_batch_of_shares_with_one_wrong_share_or_proof_is_named(tamper: Any) -> None:
    """One batch proof covers a seat's shares under one key (B.6): one share out of place among good ones, a
    missing proof or a proof of another batch names the sender, never anyone else."""
    peers = memory.make_peers("toy", 3, VERIFIED, seed=8)
    old: list[dict[str, Any]] = []
    done: list[bool] = []

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind not in ("keys", "action") or not body.get("shares") or done:
            return body
        if not old:
            old.append(body)
            return body
        done.append(True)
        return tamper(body, old)

    _cheat(peers[2], alter)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert done
    _named(peers, 2, FaultCode.BAD_KEY)


@pytest.mark.parametrize("where", ["keys", "key round"])
def test_a_fast_field_in_a_verified_body_is_a_bad_message(where: str) -> None:
    """In a key release, and in a deck's key round (each seat's key share for the joint key)."""
    peers = memory.make_peers("toy", 3, VERIFIED, seed=9)

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        hit = kind == "keys" if where == "keys" else "key" in body and "cards" not in body
        return {**body, "keys": []} if hit else body

    _cheat(peers[1], alter)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 1, FaultCode.BAD_MESSAGE)


@pytest.mark.parametrize("field, junk", [("shares", "no list"), ("proofs", [b"short"])])
def test_a_release_whose_shares_or_proofs_are_not_their_form_is_a_bad_message(field: str, junk: Any) -> None:
    """Shares that are no list of ``[slot, point]`` or proofs that are no 64-byte strings: named on arrival as a
    bad message, before any share is looked at."""
    peers = memory.make_peers("toy", 3, VERIFIED, seed=9)
    _cheat(peers[1], lambda kind, body: {**body, field: junk} if kind == "keys" and "shares" in body else body)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 1, FaultCode.BAD_MESSAGE)


def test_a_fast_field_in_a_verified_pass_is_a_bad_message() -> None:
    peers = memory.make_peers("toy", 3, VERIFIED, seed=9)
    _cheat(peers[1], lambda kind, body: {**body, "commits": []} if kind == "pass" else body)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 1, FaultCode.BAD_MESSAGE)


@pytest.mark.parametrize("spoil", ["not-a-point", "short"])
def test_a_verified_pass_whose_cards_do_not_decode_is_named_at_once(spoil: str) -> None:
    """A ciphertext that is no pair of curve points (or the wrong count of them): named by every honest peer at
    the pass, with the pass's own reason, before any proof is run."""
    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind != "pass":
            return body
        cards = list(body["cards"])
        if spoil == "short":
            return {**body, "cards": cards[:-1]}
        cards[0] = b"\x05" + cards[0][1:]  # no SEC1 point starts with 05
        return {**body, "cards": cards}

    peers = memory.make_peers("toy", 3, VERIFIED, seed=9)
    _cheat(peers[2], alter)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    for p in peers[:2]:
        assert p.fault is not None and p.fault.culprit == 2 and p.fault.at[0] == p.decks[0].tick, p.fault
        assert p.verdict is not None and p.verdict.culprit == 2 and not p.verdict.clean


def test_shares_released_for_other_slots_than_the_duty_are_named() -> None:
    peers = memory.make_peers("toy", 3, VERIFIED, seed=9)
    assert peers[1].vdeck is not None
    items = peers[1].vdeck.own_items
    done: list[bool] = []

    def shifted(slots: list[int]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = items(slots)
        if out.get("shares") and not done:
            done.append(True)
            out = {**out, "shares": [[slot + 1, share] for slot, share in out["shares"]]}
        return out

    peers[1].vdeck.own_items = shifted  # type: ignore[method-assign]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert done
    for p in (peers[0], peers[2]):
        assert p.fault is not None and p.fault.culprit == 1 and "expected" in p.fault.reason, p.fault
        assert p.verdict is not None and p.verdict.culprit == 1 and not p.verdict.clean


@pytest.mark.parametrize("broken", ["no-card", "twice"])
def test_a_slot_that_opens_wrong_behind_the_proofs_stops_the_table_naming_nobody(
        broken: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth: were the proofs ever to let a bad card through (a slot that opens to no card of the book,
    or to a card another slot of the deck already showed), a public deck's opening is an internal fault naming
    nobody (its cards are no seat's choice), never an assertion or a card shown twice."""
    import p2php.session.verified as session_verified

    real = session_verified.vd.open_slot
    first: list[int] = []

    def open_slot(book: Any, ct: Any, shares: Any, players: int, *, slot: int) -> int:
        card = real(book, ct, shares, players, slot=slot)
        if first and broken == "no-card":
            raise vd.DeckFault(vd.BAD_CARD, None, f"slot {slot} opens to no card")
        if first and broken == "twice":
            return first[0]
        first.append(card)
        return card

    monkeypatch.setattr(session_verified.vd, "open_slot", open_slot)
    peers = memory.make_peers("toy", 3, VERIFIED, seed=9)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    for p in peers:
        assert p.fault is not None and p.fault.culprit is None and p.fault.code == FaultCode.INTERNAL, p.fault
        assert ("no card" if broken == "no-card" else "not in its place") in p.fault.reason


def test_a_verified_transcript_verifies_from_the_transcript_alone(tmp_path: Any) -> None:
    """``p2php verify`` re-checks every key share, pass and public share; no audit secret exists or is needed."""
    from p2php.session import transcript

    peers = _play("toy", 3, {}, seed=2)
    _clean(peers)
    result = transcript.verify(transcript.save(peers[1], tmp_path / "game.p2php"))
    assert result.ok, result.lines
    assert result.spectator is not None and result.spectator.vdeck is not None


def test_the_wire_holds_no_share_set_that_opens_an_unopened_slot() -> None:
    """Privacy: for every slot never opened in public, some seat's share appears in no public message or audit.

    (A dealt slot's recipient never sends its own share; a shown slot's shares are sealed to the viewer.)
    """
    peers = _play("toy", 3, {}, seed=3)
    _clean(peers)
    spectator = peers[0]
    public: dict[int, set[int]] = {}
    for msg in spectator.transcript:
        for slot, _ in msg.body.get("shares", []) if msg.kind in ("keys", "action") else []:
            public.setdefault(slot, set()).add(msg.sender)
        assert "decks" not in msg.body
    unopened = [slot for slot in spectator.slot_deck if slot not in spectator.public_faces]
    assert unopened
    for slot in unopened:
        assert len(public.get(slot, set())) < 3, slot


@pytest.mark.parametrize("spoil", ["wrong share", "not shares"])
def test_a_wrong_share_in_a_private_show_is_named_by_the_viewer(spoil: str) -> None:
    """A show box whose shares do not open the card, or that holds no share list at all (a box that decrypts but
    is no release: with no check it was an internal fault naming nobody), is named by its viewer."""
    peers = memory.make_peers("toy", 3, VERIFIED, seed=10)
    shown: list[int] = []
    for cheater in peers:
        seat = cheater.seat
        assert seat is not None and cheater.vdeck is not None
        items = cheater.vdeck.own_items

        def bad(slots: list[int], items: Any = items, cheater: Lockstep = cheater) -> dict[str, list[Any]]:
            out: dict[str, list[Any]] = items(slots)
            from p2php.engine.contract import Show

            if isinstance(cheater.step, Show) and out.get("shares"):
                shown.append(cheater.seat or 0)
                if spoil == "not shares":
                    out = {"shares": "no list", "proofs": out["proofs"]}
                elif len(slots) > 1:  # every share the last slot's: the batch proof fails
                    last = items([slots[-1]])["shares"][0][1]
                    out = {**out, "shares": [[slot, last] for slot, _ in out["shares"]]}
                else:
                    out = {**out, "proofs": [_shifted(p) for p in out["proofs"]]}
            return out

        cheater.vdeck.own_items = bad  # type: ignore[method-assign]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert shown
    culprit = shown[0]
    viewer = [p for p in peers if p.fault is not None and p.fault.code == FaultCode.BAD_SHOW and p.fault_from is None]
    assert viewer and all(p.fault is not None and p.fault.culprit == culprit for p in viewer)
    # The viewer's abort publishes the box key, so every peer (not only the viewer) convicts the sender.
    aborts = [m for m in viewer[0].transcript if m.kind == "abort" and m.sender == viewer[0].seat]
    assert aborts and isinstance(aborts[0].body.get("box"), list)
    for p in peers:
        if p.seat != culprit:
            assert p.verdict is not None and p.verdict.culprit == culprit and p.verdict.code == "bad_show", p.verdict


def test_a_show_box_that_opens_to_no_msgpack_convicts_its_sender_everywhere() -> None:
    """Sealed under the real key, opening to one byte that is not msgpack: the viewer named the sender and published
    the key, which opens the sender's own signed box, yet every other honest peer ended unattributed (a content
    that does not decode was taken for a key that opens nothing)."""
    from p2php.crypto import channel

    peers = memory.make_peers("toy", 3, VERIFIED, seed=10)
    cheats: list[int] = []
    for cheater in peers:
        send = cheater._send

        def alter(kind: str, body: dict[str, Any], send: Any = send, cheater: Lockstep = cheater) -> Any:
            if kind == "show" and not cheats:
                assert cheater.seat is not None
                cheats.append(cheater.seat)
                key = cheater._box_key(cheater.seat, body["to"], cheater._my_seq)
                body = {**body, "box": channel.seal(key, b"\xc1", cheater.session_id)}
            return send(kind, body)

        cheater._send = alter  # type: ignore[method-assign]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert cheats
    for p in peers:
        if p.seat != cheats[0]:
            assert p.verdict is not None and p.verdict.culprit == cheats[0] and p.verdict.code == "bad_show", p.verdict
    viewer = next(p for p in peers if p.fault is not None and p.fault_from is None)
    assert viewer.fault is not None and "opened to something that is not its keys" in viewer.fault.reason


def test_a_viewer_that_lies_about_a_good_show_is_not_believed() -> None:
    """A viewer that aborts with ``bad_show`` and the real box key of an honest show: nobody convicts the sender."""
    from p2php.engine.contract import Show
    from p2php.session.records import Fault, FaultError

    peers = memory.make_peers("toy", 3, VERIFIED, seed=10)
    liars: list[int] = []
    for liar in peers:
        accept = liar.vdeck.accept if liar.vdeck is not None else None
        assert accept is not None

        def lie(seat: int, msg: Any, duty: list[int], *, items: Any = None, private: bool = False,
                accept: Any = accept, liar: Lockstep = liar) -> None:
            accept(seat, msg, duty, items=items, private=private)
            if private and isinstance(liar.step, Show) and not liars:
                liars.append(liar.seat or 0)
                liar.show_box = [msg.seq, liar._box_key(seat, liar.seat or 0, msg.seq)]
                raise FaultError(Fault(seat, "invented", msg.at, FaultCode.BAD_SHOW))

        liar.vdeck.accept = lie  # type: ignore[method-assign, union-attr]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    assert liars
    for p in peers:
        if p.seat != liars[0]:
            assert p.verdict is not None and not p.verdict.clean and p.verdict.culprit is None, p.verdict
            assert p.verdict.code == "accusation"


def _shifted(proof: bytes) -> bytes:
    """A proof whose response is off by one: it decodes, and fails."""
    s = (int.from_bytes(proof[-32:], "big") + 1).to_bytes(32, "big")
    return proof[:-32] + s


async def test_uno_over_loopback_is_clean(tmp_path: Any) -> None:
    """Real sockets, every peer its own run_peer and transcript: the verified UNO game ends clean."""
    from p2php.session.local_net import run_local_table
    from p2php.session.runner import bot_decider

    results = await run_local_table("uno", 3, [bot_decider(RandomBot(s)) for s in range(3)],
                                    {"deck": "hat", "rounds": 1, **VERIFIED}, seed=11, timeout=120.0,
                                    transcripts=tmp_path)
    _clean([r.lockstep for r in results])
    assert all(r.lockstep.crypto == "verified" for r in results)


# ---------------------------------------------------------------------- secret-composition decks (increment 3f)

SECRET = {"secret_deck": True, **VERIFIED}


def _secret_peers(cards: list[int], seed: int) -> list[Lockstep]:
    return memory.make_peers("toy", 3, SECRET, seed=seed, private_decks={0: {"secret": cards}})


@pytest.mark.parametrize("pool", [(6, 7, 7, 8), (6, 7), (6, 7, True), (6, 7, -1)])
def test_a_games_bad_pool_for_a_secret_deck_stops_the_table_naming_nobody(pool: tuple[int, ...],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's pool (a repeated id, fewer ids than the deck, a bool, an id past the book: -1 stands for the
    first id past it) is the game author's error: every peer stops with an internal fault that names no seat."""
    from p2php.engine.registry import get_game

    past = get_game("toy").universe_size(SECRET)
    pool = tuple(past if c == -1 else c for c in pool)
    monkeypatch.setattr(type(get_game("toy")), "private_pool", lambda self, options, owner, purpose: pool)
    peers = _secret_peers([6, 7, 8], 17)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    for p in peers:
        assert p.fault is not None and p.fault.culprit is None and p.fault.code == FaultCode.INTERNAL, p.fault
        assert "pool" in p.fault.reason and p.verdict is not None and p.verdict.culprit is None


@pytest.mark.parametrize("pool", [(6, 7, 8), (0, 6, 7, 8)])
def test_a_pool_at_its_bounds_is_a_good_pool(pool: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool exactly as large as the deck, and one holding card id 0, are the game's right: the table plays."""
    from p2php.engine.registry import get_game

    monkeypatch.setattr(type(get_game("toy")), "private_pool", lambda self, options, owner, purpose: pool)
    peers = _secret_peers([6, 7, 8], 17)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _clean(peers)


def test_a_verified_secret_deck_is_dealt_and_its_audit_opens_nothing() -> None:
    peers = _secret_peers([6, 8, 11], 17)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _clean(peers)
    assert peers[0].private_faces[100] in (6, 8, 11)
    assert 100 not in peers[1].private_faces and 100 not in peers[1].public_faces
    rec = next(r for r in peers[1].decks if r.owner == 0)
    assert len(rec.cts) == 3
    selection = next(m for m in peers[1].transcript if m.kind == "pass" and m.sender == 0)
    assert len(selection.body["cards"]) == 6  # the owner's proven pass over its whole pool; the deck is its head
    audits = [m.body for m in peers[1].transcript if m.kind == "audit"]
    assert len(audits) == 3 and all(set(body) == {"boxes", "evidence"} and body["boxes"] == [] for body in audits)
    # The card that was never opened stays unknown to every other seat, at the audit too.
    unopened = [slot for slot in rec_slots(rec) if slot not in peers[1].public_faces]
    assert unopened and all(slot not in peers[2].private_faces for slot in unopened)


def rec_slots(rec: DeckRecord) -> range:
    return range(rec.first_slot, rec.first_slot + rec.size)


def test_a_secret_deck_outside_the_rules_is_named_at_the_owners_pass() -> None:
    """The owner builds its selection from a pool holding a red card (1): no proof against the real pool exists."""
    from p2php.session.verified import VerifiedDeck

    peers = _secret_peers([6, 1, 11], 18)
    owner = peers[0].vdeck
    assert owner is not None
    real = VerifiedDeck._pool
    owner._pool = lambda rec: [1 if c == 7 else c for c in real(owner, rec)]  # type: ignore[method-assign]
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 0, FaultCode.BAD_SECRET_DECK)
    assert all(p.fault is not None and p.fault.at[0] == 0 for p in peers[1:])  # at the set-up's first shuffle
    assert all(not p.private_faces and not p.public_faces for p in peers[1:])  # before any card was dealt


def test_an_honest_owner_refuses_to_play_a_deck_outside_the_pool() -> None:
    """Its own peer will not make the pass: the table stops at once, unattributed, and says why."""
    peers = _secret_peers([6, 1, 11], 18)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    for p in peers:
        assert p.verdict is not None and not p.verdict.clean and p.verdict.culprit is None, p.verdict
    assert "distinct card ids of the game's pool" in (peers[0].verdict.reason if peers[0].verdict else "")


def test_a_selection_pass_with_a_bad_proof_is_named_at_the_owners_pass() -> None:
    peers = _secret_peers([6, 8, 11], 20)

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if kind == "pass" and len(body["cards"]) == 6:  # the owner's selection pass
            body = {**body, "cards": [body["cards"][1], body["cards"][0], *body["cards"][2:]]}
        return body

    _cheat(peers[0], alter)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    _named(peers, 0, FaultCode.BAD_SECRET_DECK)


def test_a_release_under_two_joint_keys_carries_one_batch_proof_for_each() -> None:
    """Shares of two decks (two joint keys, so two key shares of the sender) go in one message with one proof per
    key, in order of first appearance (§6.4): checked as such, and any other count or order is ``bad_key``."""
    from p2php.session.messages import Message, share_lists

    peers = _secret_peers([6, 8, 11], 17)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(3)})
    sender, judge = peers[0], peers[1]
    assert sender.vdeck is not None and judge.vdeck is not None
    assert (sender.tick, sender._state_hash) == (judge.tick, judge._state_hash)  # both at the end: same contexts
    slots = [102, 0, 101, 1]  # the secret deck's slots (deck 0) and the shared deck's (deck 1), interleaved
    release = sender.vdeck.own_items(slots)
    assert len(release["proofs"]) == 2 and [s for s, _ in release["shares"]] == slots

    def judged(body: dict[str, Any]) -> list[tuple[int, Any]]:
        msg = Message(0, 9, bytes(32), (judge.tick, 0), bytes(32), (), "keys", body, bytes(64))
        parsed = share_lists(body)
        assert parsed is not None
        return judge.vdeck._checked(0, msg, slots, parsed, False)  # type: ignore[union-attr]

    points = judged(release)
    assert [s for s, _ in points] == slots
    assert all(d == sender.vdeck.own_point(s) for s, d in points)
    for proofs in (release["proofs"][::-1], release["proofs"][:1], release["proofs"] * 2):
        with pytest.raises(FaultError) as info:
            judged({**release, "proofs": proofs})
        assert info.value.fault.culprit == 0 and info.value.fault.code == FaultCode.BAD_KEY


# ----------------------------------------------------------------------------- passes checked at the deck's last pass


def _swap_two(body: dict[str, Any], done: list[bool]) -> dict[str, Any]:
    """Two cards of the pass swapped after proving: a well-formed pass whose proof fails."""
    if done:
        return body
    done.append(True)
    cards = list(body["cards"])
    cards[0], cards[1] = cards[1], cards[0]
    return {**body, "cards": cards}


def test_a_middle_seats_bad_pass_is_named_by_the_deck_s_last_pass_not_the_seat_after_it() -> None:
    """Seat 1's pass fails its proof; seats 2 and 3 pass honestly over it (their proofs hold): every honest peer
    names seat 1 at seat 1's message, no card is dealt, and the refused output is nobody's deck."""
    peers = memory.make_peers("toy", 4, VERIFIED, seed=11)
    done: list[bool] = []
    _cheat(peers[1], lambda kind, body: _swap_two(body, done) if kind == "pass" else body)
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(4)})
    assert done
    _named(peers, 1, FaultCode.BAD_PASS)
    for p in peers:
        if p.seat == 1:
            continue
        assert p.fault is not None and "pass 1 of deck 0" in p.fault.reason
        assert [s for s, _, _ in p.decks[0].passes] == [0, 1, 2, 3]  # seats 2 and 3 did pass over it
        assert p.fault.at[0] == p.decks[0].tick and p.fault.at[1] == 2  # seat 1's message: phase 2 (key round 0)
        assert not p.private_faces and not p.public_faces
        assert p.vdeck is not None and p.decks[0].cts != [] and not p.vdeck._held  # the deck before seat 1's pass


def test_a_bad_pass_held_when_the_table_stops_mid_shuffle_is_still_named() -> None:
    """Seat 1's pass fails its proof and seat 2 never sends its pass (its link is cut): the honest peers stop on
    seat 2's silence before the deck's last pass, check the pass they hold at the audit, and the verdict names seat 1,
    whose deviation came first."""
    peers = memory.make_peers("toy", 4, VERIFIED, seed=12)
    done: list[bool] = []
    _cheat(peers[1], lambda kind, body: _swap_two(body, done) if kind == "pass" else body)

    def cut(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        return None if sender == 2 and frame.get("kind") == "pass" else frame

    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(4)}, tamper=cut)
    assert done
    for p in (peers[0], peers[3]):
        assert p.finished and p.verdict is not None and not p.verdict.clean
        assert p.verdict.culprit == 1 and p.verdict.code == FaultCode.BAD_PASS.value, (p.fault, p.verdict)
        assert p.vdeck is not None and not p.vdeck._held


def test_an_honest_table_checks_each_deck_s_passes_in_one_batch() -> None:
    """Every pass of another seat is checked once, at its deck's last pass, in one call: the batch multiplies a deck
    that one pass outputs and the next takes in once, where a check on arrival multiplies it twice."""
    calls: list[int] = []
    original = vd.check_passes

    def counted(passes: Any) -> None:
        calls.append(len(passes))
        original(passes)

    vd.check_passes = counted  # type: ignore[assignment]
    try:
        peers = _play("toy", 4, {}, seed=13)
    finally:
        vd.check_passes = original  # type: ignore[assignment]
    _clean(peers)
    decks = len(peers[0].decks)
    assert calls == [3] * (4 * decks), calls  # each peer: one batch of the three others' passes per deck
