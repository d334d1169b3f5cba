"""The Reshuffle step (protocol.md §7.6): a new face-down deck of the cards now in some slots, face down or face up.

Over the real protocol in both deck modes: the multiset of faces is kept, face-down and public cards mix, a
secret-composition deck is reshuffled and stays checked, a seat that had seen a face does not know where it went,
stacked orders work in engine and protocol mode, and every audit is clean. Attacks: a tampered reshuffle pass is
named at the step (verified) or at the audit (fast), a malformed pass is refused with a one-line fault, an engine
that names a spent slot or mixes two decks' keys is stopped. Transcripts and a resumed seat verify.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from reshuffle_game import FIRST, SECRET_LIST

from p2php.bots import RandomBot
from p2php.crypto import deck
from p2php.crypto.group import POINT_SIZE, hash_to_point
from p2php.engine.contract import CardId, Reshuffle, Shuffle
from p2php.engine.local import LocalTable
from p2php.engine.registry import get_game
from p2php.session import memory, transcript
from p2php.session.lockstep import Lockstep
from p2php.session.records import FaultCode
from p2php.testing import Scenario, scenario_mode

GAME = "reshuffle-toy"
MODES = ["fast", pytest.param("verified", marks=pytest.mark.skipif(
    __import__("importlib").util.find_spec("coincurve") is None, reason="needs coincurve"))]


def _peers(crypto: str, seed: int = 1, **options: Any) -> list[Lockstep]:
    return memory.make_peers(GAME, 3, {**options, "crypto": crypto}, seed=seed)


def _run(peers: list[Lockstep]) -> None:
    memory.run_in_memory(peers, {s: RandomBot(s) for s in range(len(peers))})


def _clean(peers: list[Lockstep]) -> None:
    assert all(p.finished and p.verdict is not None and p.verdict.clean for p in peers), \
        [(p.seat, p.verdict, p.fault) for p in peers]
    assert len({p.verdict.state_hash for p in peers if p.verdict is not None}) == 1


def _cheat(peer: Lockstep, alter: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
    """``peer`` becomes a modified client whose outgoing bodies go through ``alter`` before it signs them."""
    send = peer._send
    peer._send = lambda kind, body: send(kind, alter(kind, body))  # type: ignore[method-assign]


def _named(peers: list[Lockstep], culprit: int, code: FaultCode) -> None:
    for p in peers:
        if p.seat == culprit:
            continue
        assert p.verdict is not None and not p.verdict.clean, (p.seat, p.verdict)
        assert p.verdict.culprit == culprit and p.verdict.code == code.value, (p.seat, p.verdict, p.fault)


def _reshuffle_tick(p: Lockstep, first_slot: int) -> int:
    return next(e.tick for e in p.events if isinstance(e.step, Reshuffle) and e.step.first_slot == first_slot)


# ---------------------------------------------------------------------- honest games


@pytest.mark.parametrize("crypto", MODES)
def test_a_reshuffle_keeps_the_cards_mixes_hidden_and_public_and_audits_clean(crypto: str) -> None:
    peers = _peers(crypto)
    _run(peers)
    _clean(peers)
    p0, p1 = peers[0], peers[1]
    faces = p1.public_faces
    # Slots 2 and 3 were public, 4..9 face down; after two reshuffles the eight cards are in 120..127: 120 was
    # dealt to seat 1, the rest opened. Together they are exactly the eight cards of slots 2..9.
    first_deal = {p0.private_faces[0], p1.private_faces[1]}
    eight = {faces[s] for s in range(121, 128)} | {p1.private_faces[120]}
    assert len(eight) == 8 and eight == set(range(10)) - first_deal
    assert {faces[2], faces[3]} <= eight
    for p in peers:
        assert {4, 5, 6, 7, 8, 9, 2, 3} <= p._spent and set(range(100, 108)) <= p._spent
        first = next(r for r in p.decks if r.first_slot == 100)
        assert first.inputs == FIRST and first.hidden and first.key_deck == 0
    # Seat 0 had looked at slots 4..6 (a search): it knows nothing of where those cards went.
    assert {4, 5, 6} <= set(p0.private_faces)
    assert not any(100 <= s < 108 and s not in faces for s in p0.private_faces)
    assert 120 not in p0.private_faces and 120 not in peers[2].private_faces
    if crypto == "verified":  # no new key round: the reshuffle keeps deck 0's joint key, one proven pass per seat
        kinds = [(m.kind, m.sender) for m in p1.transcript if m.at[0] == _reshuffle_tick(p1, 100)]
        assert kinds == [("pass", 0), ("pass", 1), ("pass", 2)]
        audits = [m.body for m in p1.transcript if m.kind == "audit"]
        assert all("decks" not in body for body in audits)
    else:  # a rekey round, then the shuffle and lock rounds
        sent = [m.kind for m in p1.transcript if m.at[0] == _reshuffle_tick(p1, 100)]
        assert sent == ["shuffle"] * 6 + ["lock"] * 3


@pytest.mark.crypto("verified")
def test_verified_the_wire_holds_no_share_set_that_opens_an_unopened_new_slot() -> None:
    """Privacy after a reshuffle: for every new slot never opened in public, some seat's share is on no public
    message; and a verified audit releases nothing."""
    pytest.importorskip("coincurve")
    peers = _peers("verified", seed=11)
    _run(peers)
    _clean(peers)
    spectator = peers[2]
    public: dict[int, set[int]] = {}
    for msg in spectator.transcript:
        for slot, _ in msg.body.get("shares", []) if msg.kind in ("keys", "action") else []:
            public.setdefault(slot, set()).add(msg.sender)
        assert "decks" not in msg.body
    hidden = [s for s in range(100, 128) if s in spectator.slot_deck and s not in spectator.public_faces]
    assert 120 in hidden  # dealt to seat 1
    for slot in hidden:
        assert len(public.get(slot, set())) < 3, slot


@pytest.mark.parametrize("crypto", MODES)
def test_cards_opened_before_come_back_through_a_public_deck_and_open_again_with_no_fault(crypto: str) -> None:
    """A card seen at a slot of the first deck, reshuffled face up into a plain deck and back into a reshuffle of
    the first deck, opens at its new slot: an honest table, so nobody may be named (an "opened twice" check that
    remembered the old slot once named a seat here)."""
    peers = _peers(crypto, relay=True)
    _run(peers)
    _clean(peers)
    faces = peers[1].public_faces
    back = {faces[600], faces[601], faces[602]}
    assert {faces[500], faces[501]} == {faces[2], faces[3]} and len(back) == 3
    assert {faces[2], faces[3]} < back  # the two travellers, and slot 9's card (never opened before)


@pytest.mark.parametrize("crypto", MODES)
def test_a_secret_composition_deck_is_reshuffled_and_still_checked(crypto: str) -> None:
    peers = _peers(crypto, seed=2, secret=True)
    _run(peers)
    _clean(peers)
    opened = sorted(peers[2].public_faces[s] for s in range(300, 304))
    assert opened == sorted(SECRET_LIST)
    assert sorted(peers[1].public_faces[s] for s in range(400, 404)) == sorted(SECRET_LIST)
    for p in peers:  # every input face up: a plain shuffle of those faces (a verified one with its own key round)
        last = next(r for r in p.decks if r.first_slot == 400)
        assert not last.hidden and sorted(last.cards) == sorted(SECRET_LIST) and last.key_deck is None
        assert set(range(300, 304)) <= p._spent
    for p in peers:
        rec = next(r for r in p.decks if r.first_slot == 300)
        secret = next(r for r in p.decks if r.owner == 0)
        assert rec.hidden and rec.key_deck == secret.number
        assert rec.seen_faces is secret.seen_faces  # "never seen twice" holds across the deck and its reshuffles
        if crypto == "verified":
            assert rec.allowed == frozenset(range(10, 16))  # the owner's pool: a slot opening elsewhere is refused


@pytest.mark.parametrize("crypto", MODES)
def test_a_transcript_of_a_game_with_reshuffles_verifies(crypto: str, tmp_path: Path) -> None:
    peers = _peers(crypto, seed=3, secret=True)
    _run(peers)
    _clean(peers)
    for seat in (0, 2):
        result = transcript.verify(transcript.save(peers[seat], tmp_path / f"seat{seat}.p2php"))
        assert result.ok, result.lines


# ---------------------------------------------------------------------- stacking


class Sorted(Scenario):
    """Every public deck and every reshuffle comes out in descending order (a secret deck: its owner's list)."""

    def arrange(self, step: Shuffle) -> Sequence[CardId]:
        if step.owner is not None:
            return list(SECRET_LIST)
        return sorted(step.cards, reverse=True)


@pytest.mark.parametrize("crypto", MODES)
@pytest.mark.parametrize("mode", ["engine", "protocol"])
def test_a_scenario_stacks_the_order_a_reshuffle_produces(mode: str, crypto: str) -> None:
    with scenario_mode(mode):  # type: ignore[arg-type]
        sc = Sorted(get_game(GAME), 3, {"secret": True, "crypto": crypto}, editable=False)
        sc.expect(0, "play")
        table = sc.table
        # Slots 0..9 hold 9..0; the reshuffle of slots 4..9, 2, 3 (cards 5..0, 7, 6) comes out 7..0 in 100..107.
        sc.act(0, {"type": "play", "slot": 100})
        assert table.public[100] == 7
        end = sc.over()
        assert end.winners == (0,)
        assert [table.public[s] for s in range(121, 128)] == [6, 5, 4, 3, 2, 1, 0]
        assert table.private[1][120] == 7
        assert [table.public[s] for s in range(300, 304)] == sorted(SECRET_LIST, reverse=True)
        assert [table.public[s] for s in range(400, 404)] == sorted(SECRET_LIST, reverse=True)
    # protocol mode: leaving scenario_mode ran every peer's audit, clean, with equal state hashes


def test_local_table_reshuffles_with_its_seeded_chance() -> None:
    game = get_game(GAME)
    table = LocalTable(game.new_state(2, {"secret": True}), seed=5,
                       private_decks={(0, "secret"): list(SECRET_LIST)})
    table.play()
    faces = table.faces
    assert sorted(faces[s] for s in range(120, 128)) == sorted(faces[s] for s in (*FIRST,))
    assert sorted(faces[s] for s in range(300, 304)) == sorted(SECRET_LIST)


# ---------------------------------------------------------------------- attacks


def _at_reshuffle(peer: Lockstep, kind: str, pass_number: int) -> Callable[[str, dict[str, Any]], bool]:
    """True for ``peer``'s message of ``kind`` that is pass ``pass_number`` of the first reshuffle."""
    def hit(k: str, body: dict[str, Any]) -> bool:
        step = peer.step
        return (k == kind and isinstance(step, Reshuffle) and step.first_slot == 100
                and peer.phase == pass_number)
    return hit


@pytest.mark.crypto("verified")
def test_verified_a_substituted_card_in_a_reshuffle_pass_is_named_at_the_step() -> None:
    pytest.importorskip("coincurve")
    from p2php.crypto import verified_deck as vd

    peers = _peers("verified", seed=4)
    cheater = peers[1]
    hit = _at_reshuffle(cheater, "pass", 1)
    done: list[bool] = []

    def alter(kind: str, body: dict[str, Any]) -> dict[str, Any]:
        if not hit(kind, body) or done:
            return body
        done.append(True)
        assert cheater.vdeck is not None
        rec = cheater.decks[-1]
        assert rec.y is not None
        other = vd.public_deck(cheater.vdeck.book, [0], rec.y)[0]  # card 0 (seat 0's dealt card) in place of one
        return {**body, "cards": [other.encode(), *body["cards"][1:]]}

    _cheat(cheater, alter)
    _run(peers)
    assert done
    _named(peers, 1, FaultCode.BAD_PASS)
    for p in (peers[0], peers[2]):
        assert p.fault is not None and p.fault.at == (4, 1)  # the reshuffle's tick, seat 1's pass
        assert "reshuffled deck" in p.fault.reason
        assert not any(100 <= s < 108 for s in p.slot_deck)  # no honest peer took the tampered deck


@pytest.mark.crypto("fast")
@pytest.mark.parametrize("pass_number", [1, 4, 7])  # a rekey pass, a shuffle pass, a lock pass (3 seats)
def test_fast_a_tampered_reshuffle_pass_is_named_at_the_audit(pass_number: int) -> None:
    peers = _peers("fast", seed=5)
    cheater = peers[1]  # seat 1 makes passes 1 (rekey), 4 (shuffle) and 7 (lock)
    kind = "lock" if pass_number >= 6 else "shuffle"
    hit = _at_reshuffle(cheater, kind, pass_number)
    done: list[bool] = []

    def alter(k: str, body: dict[str, Any]) -> dict[str, Any]:
        if not hit(k, body) or done:
            return body
        done.append(True)
        cards = deck.unpack(body["cards"], POINT_SIZE)  # a fast pass is one packed bin (§6.4)
        cards[0] = hash_to_point(b"not a card", b"")  # a valid point, distinct, but no card of the deck
        return {**body, "cards": deck.pack(cards)}

    _cheat(cheater, alter)
    _run(peers)
    assert done
    _named(peers, 1, FaultCode.BAD_PASS)
    for p in (peers[0], peers[2]):
        assert p.verdict is not None and "reshuffled deck" in p.verdict.reason, p.verdict


@pytest.mark.crypto("fast")
def test_fast_a_reshuffle_pass_with_another_permutation_is_named_at_the_audit() -> None:
    peers = _peers("fast", seed=6)
    cheater = peers[2]
    hit = _at_reshuffle(cheater, "shuffle", 5)  # seat 2's pass of the shuffle round
    done: list[bool] = []

    def alter(k: str, body: dict[str, Any]) -> dict[str, Any]:
        if not hit(k, body) or done:
            return body
        done.append(True)
        cards = deck.unpack(body["cards"], POINT_SIZE)
        cards[0], cards[1] = cards[1], cards[0]  # every card still there: only the audit's recomputation sees it
        return {**body, "cards": deck.pack(cards)}

    _cheat(cheater, alter)
    _run(peers)
    assert done
    _named(peers, 2, FaultCode.BAD_PASS)


@pytest.mark.parametrize("crypto", MODES)
@pytest.mark.parametrize("what", ["short", "not bytes", "copied input"])
def test_a_malformed_reshuffle_pass_is_refused_at_once_with_one_line(crypto: str, what: str) -> None:
    peers = _peers(crypto, seed=7)
    cheater = peers[0]
    kind = "pass" if crypto == "verified" else "shuffle"
    hit = _at_reshuffle(cheater, kind, 0)
    done: list[bool] = []

    def alter(k: str, body: dict[str, Any]) -> dict[str, Any]:
        if not hit(k, body) or done:
            return body
        done.append(True)
        fast = crypto == "fast"  # a fast pass is one packed bin, a verified one a list of ciphertexts (§6.4)
        cards: list[Any] = deck.unpack(body["cards"], POINT_SIZE) if fast else list(body["cards"])
        if what == "short":
            cards = cards[:-1]
        elif what == "not bytes":
            if fast:
                return {**body, "cards": cards}  # the points as a list, not one bin
            cards[0] = "garbage"
        else:
            rec = cheater.decks[-1]
            cards[0] = rec.start_cts[0].encode() if crypto == "verified" else rec.start[0]
        return {**body, "cards": deck.pack(cards) if fast else cards}

    _cheat(cheater, alter)
    _run(peers)
    assert done
    for p in peers[1:]:
        assert p.fault is not None and p.fault.culprit == 0, p.fault
        assert p.fault.at[0] == 4 and "\n" not in p.fault.reason and len(p.fault.reason) <= 300
        assert p.fault.code in (FaultCode.BAD_PASS, FaultCode.BAD_MESSAGE), p.fault
        assert p.verdict is not None and p.verdict.culprit == 0, p.verdict


@pytest.mark.parametrize("crypto", MODES)
def test_an_engine_that_names_a_spent_slot_is_stopped(crypto: str) -> None:
    peers = _peers(crypto, seed=8, bug="spent")
    _run(peers)
    for p in peers:
        assert p.fault is not None and p.fault.code == FaultCode.INTERNAL and p.fault.culprit is None, p.fault
        assert "slot 4" in p.fault.reason and "reshuffle" in p.fault.reason
        assert p.verdict is not None and p.verdict.culprit is None


@pytest.mark.parametrize("crypto", MODES)
def test_a_reshuffle_of_two_decks_face_down_cards_is_refused(crypto: str) -> None:
    peers = _peers(crypto, seed=9, secret=True, bug="mix")
    _run(peers)
    for p in peers:
        assert p.fault is not None and p.fault.code == FaultCode.INTERNAL and p.fault.culprit is None, p.fault
        assert "different joint keys" in p.fault.reason
        assert p.verdict is not None and p.verdict.culprit is None


@pytest.mark.parametrize("crypto", MODES)
async def test_a_reshuffle_the_engine_got_wrong_stops_a_table_over_loopback_without_crashing_a_peer(
        crypto: str) -> None:
    """The same engine bug with real peers: the runner asks what is due again and again after the fault (for its
    deadlines, heartbeats and decider), and every ask must find nothing due, not raise the engine's fault anew —
    before that guard was tested, removing it crashed every honest peer here."""
    from p2php.session.local_net import run_local_table
    from p2php.session.runner import bot_decider

    with trio.fail_after(60):
        results = await run_local_table(GAME, 3, [bot_decider(RandomBot(s)) for s in range(3)],
                                        {"secret": True, "bug": "mix", "crypto": crypto}, seed=9, timeout=3.0)
    for r in results:
        v = r.lockstep.verdict
        assert v is not None and v.code == "internal" and v.culprit is None and "different joint keys" in v.reason, v


@pytest.mark.parametrize("crypto", MODES)
def test_playing_a_spent_slot_is_an_illegal_action(crypto: str) -> None:
    """A seat whose action opens an old slot after the reshuffle (its engine would refuse it; a modified client)."""
    peers = _peers(crypto, seed=10)
    for p in peers:  # every engine lets slot 4 pass its own checks, so only the session's spent check refuses it
        p.state.check = lambda seat, action, knowledge: None  # type: ignore[method-assign]
    cheater = peers[0]
    honest = cheater.legal_actions

    def legal() -> list[dict[str, Any]]:
        return [{"type": "play", "slot": 4}] if cheater.step.__class__.__name__ == "Decide" else honest()

    cheater.legal_actions = legal  # type: ignore[method-assign]
    _run(peers)
    for p in peers[1:]:
        assert p.fault is not None and p.fault.culprit == 0 and p.fault.code == FaultCode.ILLEGAL_ACTION, p.fault


# ---------------------------------------------------------------------- resume (real sockets)


@pytest.mark.parametrize("crypto", MODES)
async def test_a_seat_killed_during_a_reshuffle_resumes_and_the_game_ends_clean(tmp_path: Path, crypto: str) -> None:
    from p2php.net.mesh import listen, listener_port
    from p2php.session.handshake import LocalSecrets
    from p2php.session.memory import seeded_secrets
    from p2php.session.resume import restore
    from p2php.session.runner import PeerConfig, PeerResult, bot_decider, run_peer

    options = {"secret": True, "crypto": crypto}

    def cfg(seat: int, secrets: LocalSecrets) -> PeerConfig:
        return PeerConfig(GAME, options, 3, seat, f"p{seat}", timeout=10.0, resume_timeout=30.0, secrets=secrets,
                          resume_path=tmp_path / f"seat{seat}.resume")

    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}
    results: dict[int, PeerResult] = {}
    crash = trio.CancelScope()

    def observe(ls: Lockstep, _: list[str]) -> None:
        if isinstance(ls.step, Reshuffle) and ls.phase >= 1 and not crash.cancel_called:
            crash.cancel()  # seat 1's process "dies" in the middle of the first reshuffle

    async def play(seat: int) -> None:
        results[seat] = await run_peer(cfg(seat, seeded_secrets(12, seat)), addresses, listeners[seat],
                                       bot_decider(RandomBot(seat)))

    async def victim() -> None:
        with crash:
            await run_peer(cfg(1, seeded_secrets(12, 1)), addresses, listeners[1], bot_decider(RandomBot(1)),
                           observe)
        assert crash.cancelled_caught, "the game ended before the crash"
        await listeners[1].aclose()
        await trio.sleep(0.3)
        header, ls = restore(tmp_path / "seat1.resume")  # re-verifies everything it logged
        relisten = await listen("127.0.0.1", addresses[1][1])
        results[1] = await run_peer(cfg(1, LocalSecrets(master=header["master"])), addresses, relisten,
                                    bot_decider(RandomBot(11)), restored=ls)
        await relisten.aclose()

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0)
            nursery.start_soon(victim)
            nursery.start_soon(play, 2)
    _clean([results[s].lockstep for s in range(3)])
    assert all(any(isinstance(e.step, Reshuffle) for e in results[s].lockstep.events) for s in range(3))
