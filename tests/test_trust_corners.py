"""Corners of the trust core that mutation testing found unguarded (issue 8).

Each test here pins one behaviour that a small change of the code could break with
no other test noticing (``benchmarks/mutation.py`` found them): the exact bounds of
the text quoted from remote data, wire-format boundaries, a multi-slot private show
whose first slot the viewer already knows, an action that opens a slot which is no
card, an engine that refuses an answer only when it is applied, a resumed sealed
choice, and out-of-order messages kept and counted against flooding.  Every session
test asserts which seat is named, by every honest peer, and with which code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any

import msgpack
import pytest
from adversarial.tampers import equivocating_split, signed_by
from adversarial.verdicts import assert_named_by_all
from toygame import ToyGame, ToyState

from p2php.bots import RandomBot
from p2php.canonical import encode
from p2php.engine.contract import Action, IllegalAction, Knowledge, Seat, Show, Slot, Step
from p2php.engine.registry import register
from p2php.net import framing
from p2php.net.framing import FrameError, decode_frame_body
from p2php.session.audit import run_audit
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory
from p2php.session.records import MAX_BACKLOG, MAX_REASON, Fault, FaultCode, FaultError, bounded, short

# ------------------------------------------------------------------------ bounded remote text


def test_bounded_keeps_text_at_the_limit_and_cuts_one_over() -> None:
    assert bounded("x" * 10, 10) == "x" * 10
    cut = bounded("x" * 11, 10)
    assert len(cut) == 10 and cut == "x" * 9 + "…"
    assert len(bounded("y" * 5000)) == MAX_REASON


def test_a_fault_reason_is_capped_at_exactly_max_reason() -> None:
    assert MAX_REASON == 300
    assert Fault(1, "r" * 300).reason == "r" * 300
    long = Fault(1, "r" * 301).reason
    assert len(long) == 300 and long.endswith("…")


def test_short_quotes_at_most_48_characters_of_a_string() -> None:
    assert short("a" * 46) == repr("a" * 46)  # 48 characters with the quotes: whole
    quoted = short("a" * 200)
    assert len(quoted) == 48 and "..." in quoted


def test_short_shows_at_most_8_list_items_and_6_dict_items() -> None:
    assert short(list(range(8))) == repr(list(range(8)))
    assert short(list(range(9))) == "[0, 1, 2, 3, 4, 5, 6, 7, ...]"
    assert short(tuple(range(9))) == "(0, 1, 2, 3, 4, 5, 6, 7, ...)"
    six = {str(i): i for i in range(6)}
    assert short(six) == repr(six)
    assert short({str(i): i for i in range(7)}).endswith(", ...}")


def test_short_stops_three_levels_deep() -> None:
    assert short([[[1]]]) == "[[[1]]]"
    assert short([[[[1]]]]) == "[[[[...]]]]"


def test_short_cuts_a_huge_integer_and_any_repr_to_120() -> None:
    quoted = short(10**200)
    assert len(quoted) == 48 and "..." in quoted
    many = short([["b" * 40] * 8] * 8)
    assert len(many) == 120 and many.endswith("…")


def test_short_cuts_bytes_to_48_characters() -> None:
    assert short(b"x" * 10) == repr(b"x" * 10)
    quoted = short(b"x" * 100)
    assert len(quoted) == 48 and "..." in quoted


def test_verdicts_and_faults_are_frozen_and_say_who() -> None:
    import dataclasses

    from p2php.session.records import Verdict

    clean = Verdict(True, None, "", bytes(32))
    named = Verdict(False, 1, "cheated", bytes(32), "bad_key")
    for record in (clean, named, Fault(1, "r")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.reason = "changed"  # type: ignore[misc]
    assert clean.text() == "clean"
    assert Verdict(False, None, "lost", bytes(32)).text() == "unattributed: lost"
    assert named.text() == "seat 1: cheated"
    table = make_peers("toy", 3, {}, seed=1)[0].table
    assert named.text(table) == f"seat 1 ({table.name(1)}): cheated"
    # A fault says who the same way (the one line the CLI prints for it), and its exception carries the reason.
    assert Fault(None, "lost").describe(table) == "lost"
    assert Fault(1, "cheated").describe() == "seat 1: cheated"
    assert Fault(1, "cheated").describe(table) == f"seat 1 ({table.name(1)}): cheated"
    assert str(FaultError(Fault(1, "cheated"))) == "cheated"
    from p2php.session.records import Suspicion

    with pytest.raises(dataclasses.FrozenInstanceError):
        Suspicion(0, 1, 2, bytes(32)).seq = 5  # type: ignore[misc]


def test_a_refusal_quotes_at_most_five_unknown_fields() -> None:
    from p2php.session.messages import BadMessage, parse_message

    peers = make_peers("toy", 3, {}, seed=2)
    wire = peers[0]._send("action", {}).to_wire()
    five = {**wire, **{f"x{i}": 1 for i in range(5)}}
    with pytest.raises(BadMessage) as exact:
        parse_message(five)
    assert str(exact.value).endswith("'x0', 'x1', 'x2', 'x3', 'x4'")
    with pytest.raises(BadMessage) as more:
        parse_message({**five, "x5": 1})
    assert str(more.value).endswith("'x0', 'x1', 'x2', 'x3', 'x4' …")


def test_short_shows_an_exception_by_its_message_cut_to_160() -> None:
    assert short(ValueError("bad thing")) == "bad thing"
    cut = short(ValueError("e" * 500))
    assert len(cut) == 160 and cut.endswith("…")


# ------------------------------------------------------------------------ wire and canonical formats


def test_enum_values_encode_as_their_plain_values() -> None:
    class Small(IntEnum):
        ONE = 1

    assert encode(FaultCode.SILENT) == encode("silent")
    assert encode({"code": FaultCode.BAD_KEY, "n": Small.ONE}) == encode({"code": "bad_key", "n": 1})


def test_the_nesting_limit_is_32_levels() -> None:
    # Part of the wire contract (protocol.md §3): another implementation must agree on the number.
    assert framing.MAX_DEPTH == 32

    def nested(depth: int) -> dict[str, Any]:
        value: Any = 0
        for _ in range(depth - 1):
            value = [value]
        return {"a": value}

    assert decode_frame_body(msgpack.packb(nested(32)))
    with pytest.raises(FrameError, match="nesting deeper than 32"):
        decode_frame_body(msgpack.packb(nested(33)))


@pytest.mark.parametrize("body,expected", [
    (b"\xdf\x00\x00\x00\x01\xa1a\x01", {"a": 1}),  # map32
    (b"\xde\x00\x01\xa1a\x01", {"a": 1}),  # map16
    (b"\x81\xa1a\xdd\x00\x00\x00\x02\x01\x02", {"a": [1, 2]}),  # array32
    (b"\x81\xa1a\xdc\x00\x02\x01\x02", {"a": [1, 2]}),  # array16
    (b"\x81\xdb\x00\x00\x00\x01a\xc6\x00\x00\x00\x02hi", {"a": b"hi"}),  # str32 key, bin32 value
    (b"\x81\xda\x00\x01a\xc5\x00\x02hi", {"a": b"hi"}),  # str16 key, bin16 value
    (b"\x81\xd9\x01a\xc4\x02hi", {"a": b"hi"}),  # str8 key, bin8 value
    (b"\x81\xa1a\xd3\xff\xff\xff\xff\xff\xff\xff\xff", {"a": -1}),  # int64
    (b"\x81\xa1a\xcb" + b"\x00" * 8, {"a": 0.0}),  # float64 passes the scan (the session refuses floats)
])
def test_every_sized_header_is_understood(body: bytes, expected: dict[str, Any]) -> None:
    assert decode_frame_body(body) == expected


@pytest.mark.parametrize("body", [
    b"\xdf\x00\x00\x00\x02\xa1a\x01",  # map32 declares 2 pairs, holds 1
    b"\x81\xa1a\xdd\x00\x00\x00\x03\x01\x02",  # array32 declares 3, holds 2
    b"\x81\xa1a\xc6\x00\x00\x00\x03hi",  # bin32 declares 3 bytes, holds 2
    b"\x81\xa1a\xdb\x00\x00",  # str32 header cut short
])
def test_a_sized_header_that_lies_is_refused(body: bytes) -> None:
    with pytest.raises(FrameError):
        decode_frame_body(body)


def test_the_ext_hook_refuses_too() -> None:
    # The second line of defence, should the structural scan ever let an ext type through.
    with pytest.raises(FrameError, match="ext type 5"):
        framing._refuse_ext(5, b"x")


def test_a_master_secret_is_exactly_32_fresh_bytes() -> None:
    a, b = LocalSecrets(), LocalSecrets()
    assert len(a.master) == 32 and a.master != b.master
    for bad in (b"k" * 31, b"k" * 33, b""):
        with pytest.raises(ValueError, match="exactly 32 bytes"):
            LocalSecrets(master=bad)


# ------------------------------------------------------------------------ game variants for the session


class _ShowTwiceState(ToyState):
    """The toy game, then a second private show: the same first card again and a second one."""

    def step(self) -> Step:
        if self.phase == "show2":
            hand = self.hands[self.first]
            return Show((hand[0], hand[1]), self.first, (self.first + 1) % self.players)
        return super().step()

    def advance(self, faces: Any = None, random: bytes = b"") -> None:
        if self.phase == "show":
            self.phase = "show2"
        elif self.phase == "show2":
            self.phase = "bid"
        else:
            super().advance(faces, random)


class ShowTwiceGame(ToyGame):
    name = "toy-show-twice"

    def new_state(self, players: int, options: Mapping[str, object]) -> ToyState:
        state = _ShowTwiceState(players, self.parse_options(dict(options)))
        return state


class _LyingEngineState(ToyState):
    """The toy game with flips on, whose flips open slot 999 (no card), and whose apply refuses
    what ``check`` let through: a flip by seat 1 in turn play, seat 2's bid of 2 in the bid."""

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "flip" and self.variant == "no-card":
            return (999,)
        return super().reveals(seat, action)

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, int]) -> None:
        if self.variant == "refuse-play" and answers[0][1].get("type") == "flip":
            raise IllegalAction("the engine refuses the flip only when applying it")
        if self.variant == "refuse-bid" and self.phase == "bid":
            self.bids = [a["n"] for _, a in answers]  # half applied before it fails, as engines do
            if any(seat == 2 and a["n"] == 2 for seat, a in answers):
                raise IllegalAction("seat 2 may not bid 2 (found only when applying)")
        super().apply(answers, faces)

    variant = ""


def _lying_game(variant: str) -> type[ToyGame]:
    class LyingGame(ToyGame):
        name = f"toy-lying-{variant}"

        def new_state(self, players: int, options: Mapping[str, object]) -> ToyState:
            opts = dict(self.parse_options(dict(options)))
            opts["flips"] = True
            state = _LyingEngineState(players, opts)
            state.variant = variant
            return state

    return LyingGame


for _game in (ShowTwiceGame(), *(_lying_game(v)() for v in ("no-card", "refuse-play", "refuse-bid"))):
    register(_game)


class _Scripted(RandomBot):
    """A random bot that takes ``prefer`` whenever it is legal (the first matching action)."""

    def __init__(self, seed: int, prefer: Mapping[str, Any]) -> None:
        super().__init__(seed)
        self.prefer = dict(prefer)

    def choose(self, state: Any, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        for action in legal:
            if all(action.get(k) == v for k, v in self.prefer.items()):
                return action
        return super().choose(state, seat, knowledge, legal)


def _assert_clean(peers: list[Lockstep]) -> None:
    hashes = set()
    for p in peers:
        assert p.finished and p.verdict is not None and p.verdict.clean, (p.seat, p.verdict)
        hashes.add(p.verdict.state_hash)
    assert len(hashes) == 1


# ------------------------------------------------------------------------ the session


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_second_show_opens_every_slot_the_viewer_does_not_know_yet(seed: int) -> None:
    peers = make_peers("toy-show-twice", 3, {}, seed=seed)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(3)})
    _assert_clean(peers)
    state = peers[0].state
    owner = state.first
    viewer = peers[(owner + 1) % 3]
    assert viewer.events, "the game ran"
    show2 = [e for e in viewer.events if isinstance(e.step, Show)][-1].step
    assert isinstance(show2, Show) and len(show2.slots) == 2
    truth = peers[owner].private_faces
    for slot in show2.slots:  # the second slot too, although the viewer knew the first one already
        assert viewer.private_faces.get(slot) == truth[slot], slot
    third = peers[(owner + 2) % 3]
    assert not set(show2.slots) & set(third.private_faces)  # nobody else learns them


def test_an_action_that_opens_a_slot_which_is_no_card_is_named_by_everyone() -> None:
    # Seat 1 runs a modified engine (its flip opens a real deck card); the honest engines say the
    # flip opens slot 999, which is no card, and must name seat 1 instead of failing on the key.
    peers = make_peers("toy-lying-no-card", 3, {}, seed=8)
    peers[1].state.variant = ""  # type: ignore[attr-defined]
    bots = {s: _Scripted(80 + s, {"type": "play"}) for s in range(3)}
    bots[1] = _Scripted(81, {"type": "flip"})
    run_in_memory(peers, bots)
    assert_named_by_all(peers, 1, "which is no card", FaultCode.ILLEGAL_ACTION.value)


def test_an_answer_the_engine_refuses_when_applying_names_its_seat() -> None:
    peers = make_peers("toy-lying-refuse-play", 3, {}, seed=9)
    bots = {s: RandomBot(90 + s) for s in range(3)}
    bots[1] = _Scripted(91, {"type": "flip"})
    run_in_memory(peers, bots)
    assert_named_by_all(peers, 1, "illegal play", FaultCode.ILLEGAL_ACTION.value)


def test_in_a_batch_that_fails_only_whole_nobody_is_named_for_answering_last() -> None:
    """Every answer passes its check and every shorter batch applies; only the whole batch is refused. That is
    all the peers can see, and it is also what a lie about a face nobody else saw looks like (HP Sha's Minister
    answering ``not_minister``, tests/test_multi_answer_attribution.py): the last seat of the batch was named
    (here seat 2, rightly, but there an honest seat), so the batch now names nobody; its reason says why."""
    peers = make_peers("toy-lying-refuse-bid", 3, {}, seed=10)
    bots = {s: RandomBot(100 + s) for s in range(3)}
    bots[2] = _Scripted(102, {"type": "bid", "n": 2})
    bots[0] = _Scripted(100, {"type": "bid", "n": 2})  # seat 0's bid of 2 is fine: not the culprit
    run_in_memory(peers, bots)
    for p in peers:
        v = p.verdict
        assert p.finished and v is not None and not v.clean and v.culprit is None, (p.seat, v)
        assert "seat 2 may not bid 2" in v.reason and v.code == FaultCode.ILLEGAL_ACTION.value, (p.seat, v)


def test_a_resumed_sealed_choice_rederives_the_nonce_it_committed_to() -> None:
    peers = make_peers("toy", 3, {"sealed": True}, seed=11)
    checked: list[int] = []
    for peer in peers:
        act = peer.act

        def checking_act(action: Action, peer: Lockstep = peer, act: Any = act) -> None:
            act(action)
            if peer._sealed is not None:
                committed = peer._sealed
                peer._sealed = None
                peer.restore_sealed(peer.tick, action)  # what `p2php resume` does after a crash
                assert peer._sealed == committed
                checked.append(peer.tick)

        peer.act = checking_act  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(110 + s) for s in range(3)})
    _assert_clean(peers)
    assert len(checked) == 3


def test_an_early_message_is_kept_until_the_gap_fills() -> None:
    peers = make_peers("toy", 3, {}, seed=12)
    held: dict[int, dict[str, Any]] = {}
    parked_seen: list[int] = []

    def reorder(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        # Seat 1's messages 2 and 3 reach seat 0 in the order 3, 2.
        if sender != 1 or receiver != 0 or frame.get("seq") not in (2, 3):
            return frame
        if frame["seq"] == 2:
            held[2] = frame
            return None
        peers[0].receive(1, frame)
        parked_seen.append(len(peers[0].parked.get(1, [])))
        return held.pop(2)

    run_in_memory(peers, {s: RandomBot(120 + s) for s in range(3)}, tamper=reorder)
    assert parked_seen == [1]
    assert not peers[0].parked.get(1)
    _assert_clean(peers)


def _signed_burst(author: Lockstep, count: int, body: dict[str, Any]) -> list[dict[str, Any]]:
    return [author._send("action", body).to_wire() for _ in range(count)]


def test_early_messages_count_against_flooding_by_number() -> None:
    peers = make_peers("toy", 3, {}, seed=13)
    burst = _signed_burst(peers[1], MAX_BACKLOG + 2, {"n": 0})
    for frame in burst[1:MAX_BACKLOG + 1]:  # message 0 never comes: every other one waits for it
        peers[0].receive(1, frame)
    assert peers[0].fault is None and len(peers[0].parked[1]) == MAX_BACKLOG  # the bound itself is allowed
    peers[0].receive(1, burst[MAX_BACKLOG + 1])
    assert peers[0].fault is not None
    assert peers[0].fault.culprit == 1 and peers[0].fault.code == FaultCode.FLOOD
    assert 1 in peers[0].flooded and not peers[0].parked.get(1)


def test_early_messages_count_against_flooding_by_bytes() -> None:
    # Each message is 2 MiB and a few hundred bytes: 15 waiting are under the 32 MiB bound, the 16th is over. The
    # 2 MiB ride in ``shares``, a field a verified deck's ``action`` has and that is read only when the message is
    # processed: in the action itself they would be refused on arrival (past MAX_ACTION_BYTES), never parked.
    peers = make_peers("toy", 3, {}, seed=14)
    burst = _signed_burst(peers[1], 17, {"action": {"type": "pass"}, "shares": [[0, b"p" * (2 * 1024 * 1024)]]})
    for frame in burst[1:16]:
        peers[0].receive(1, frame)
    assert peers[0].fault is None
    peers[0].receive(1, burst[16])
    assert peers[0].fault is not None and peers[0].fault.code == FaultCode.FLOOD
    assert peers[0].fault.culprit == 1


# ------------------------------------------------------------------------ how the audit weighs what it holds


def _finished_clean(seed: int, players: int = 3, options: dict[str, Any] | None = None) -> list[Lockstep]:
    peers = make_peers("toy", players, options or {}, seed=seed)
    run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
    _assert_clean(peers)
    return peers


@pytest.mark.parametrize("crypto", ["fast", "verified"])
def test_an_audit_replay_that_ends_in_another_state_is_a_desync_naming_nobody(crypto: str) -> None:
    """The audit replays the game knowing the faces (every one in the fast deck, the opened ones in the verified
    deck); if that ends in another state than the one we played to (an engine that let hidden faces steer it
    differently), the table cannot agree on the result: a desync, naming nobody, never a clean verdict."""
    if crypto == "verified":
        pytest.importorskip("coincurve")
    ls = _finished_clean(17, options={"crypto": crypto})[0]
    ls.state.state_hash = lambda: bytes(32)  # type: ignore[method-assign]  # where the live game ended instead
    verdict = run_audit(ls)
    assert not verdict.clean and verdict.culprit is None and verdict.code == "desync", verdict
    assert "replay" in verdict.reason


def test_a_false_abort_followed_by_more_play_names_its_sender_through_our_later_finding() -> None:
    """Seat 1's first action is swapped for an abort accusing seat 2 of a made-up fault (which nobody can
    confirm); seat 1's client plays on regardless, so its next messages come after its own abort. Those are
    our own later findings against seat 1: kept after we stopped, weighed by the audit, and they name it."""
    peers = make_peers("toy", 3, {}, seed=18)
    swapped: list[int] = []

    def tamper(sender: int, recipient: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender != 1 or frame.get("kind") != "action" or (swapped and swapped[0] != frame["seq"]):
            return frame
        swapped[:] = [frame["seq"]]
        body = {"culprit": 2, "reason": "made up", "code": "bad_key", "at": frame["at"], "evidence": [],
                "claims": []}
        return signed_by(peers[1], {**frame, "kind": "abort", "body": body})

    run_in_memory(peers, {s: RandomBot(180 + s) for s in range(3)}, tamper=tamper)
    assert swapped
    for p in (peers[0], peers[2]):
        assert p.later_faults and any(f.culprit == 1 for f in p.later_faults), (p.seat, p.later_faults)
        assert p.verdict is not None and p.verdict.culprit == 1, (p.seat, p.verdict)


def test_the_claims_an_abort_carries_become_our_disputes_exactly_and_malformed_ones_are_dropped() -> None:
    """An abort lists its sender's disputes (``claims``: seat, number, claimer, claimed hash); every receiver
    takes each well-formed one as its own, so the audit weighs it, and drops the rest."""
    from p2php.session.records import Suspicion

    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=19)
    peers[0].poll()
    claimed = bytes(range(32))
    peers[1].suspicions += [Suspicion(2, 5, 0, claimed)]
    peers[1]._raise_fault(Fault(2, "made up", (0, 0), FaultCode.BAD_KEY))
    out = peers[1].poll()
    abort = next(m.to_wire() for m in out if m.kind == "abort")
    body = {**abort["body"], "claims": [*abort["body"]["claims"], [2, 6, 0], [2, 7, 0, "text"], ["2", 8, 0, claimed]]}
    peers[0].receive(1, signed_by(peers[1], {**abort, "body": body}))
    peers[0].poll()
    assert peers[0].suspicions == [Suspicion(2, 5, 0, claimed)]


def test_an_audit_that_fails_ends_in_an_unattributed_verdict_and_is_not_run_again() -> None:
    """Our own audit code raising (a bug, a corrupt record) must still end the game with a verdict — naming
    nobody — and must not be retried in a loop: the poll that ran it returns finished."""
    peers = make_peers("toy", 3, {}, seed=20)
    runs: list[int] = []
    real = peers[0]._audit_round

    def failing() -> None:
        runs.append(1)
        if len(runs) == 1:
            raise RuntimeError("corrupt record")
        real()

    peers[0]._audit_round = failing  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(200 + s) for s in range(3)})
    v = peers[0].verdict
    assert peers[0].finished and v is not None and not v.clean and v.culprit is None, v
    assert v.code == "internal" and "the audit itself failed: RuntimeError: corrupt record" in v.reason, v
    assert runs == [1]
    assert all(p.verdict is not None and p.verdict.clean for p in peers[1:])  # the others' audits are theirs


def test_a_deadline_never_names_our_own_seat() -> None:
    """When a deadline passes while the table waits for us (our own decider or pass is late), the peer names
    nobody: our own lateness is not a finding against anyone. Another peer names us."""
    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=19)
    assert peers[0].waiting_for() == [0] and peers[1].waiting_for() == [0]  # seat 0 shuffles first
    assert peers[0].timeout() == [] and peers[0].fault is None
    assert peers[1].timeout() == [0] and peers[1].fault is not None and peers[1].fault.culprit == 0


def test_later_findings_are_kept_once_each_and_at_most_64() -> None:
    """After the first fault a peer keeps what else it finds (the audit weighs it), but a peer that keeps
    misbehaving cannot make us hold an unbounded list: 64 distinct findings at most, each once, and the first
    fault is not among them."""
    ls = make_peers("toy", 3, {}, seed=19)[0]
    first = Fault(1, "first", (0, 0), FaultCode.BAD_KEY)
    ls._raise_fault(first)
    assert ls.fault == first and ls.later_faults == []
    for i in range(100):
        ls._raise_fault(Fault(1, f"later {i}", (i, 0), FaultCode.OUT_OF_TURN))
        ls._raise_fault(Fault(1, f"later {i}", (i, 0), FaultCode.OUT_OF_TURN))
    assert [f.reason for f in ls.later_faults] == [f"later {i}" for i in range(64)]


def test_our_own_later_finding_names_the_culprit_behind_an_unconfirmed_accusation() -> None:
    ls = _finished_clean(15)[0]
    ls.fault, ls.fault_from = Fault(2, "released keys for the wrong slots", (3, 1), FaultCode.BAD_KEY), 1
    ls.later_faults = [Fault(1, "sent a message out of turn after its abort", (4, 0), FaultCode.OUT_OF_TURN)]
    verdict = run_audit(ls)
    assert (verdict.culprit, verdict.code) == (1, "out_of_turn"), verdict


def test_a_later_timing_fault_convicts_nobody() -> None:
    # Silence seen after we stopped is our clock's word only: it never names a seat.
    ls = _finished_clean(16)[0]
    ls.fault, ls.fault_from = Fault(2, "released keys for the wrong slots", (3, 1), FaultCode.BAD_KEY), 1
    ls.later_faults = [Fault(1, "went silent", (4, 0), FaultCode.SILENT)]
    verdict = run_audit(ls)
    assert verdict.culprit is None and verdict.code == "accusation", verdict


def test_a_silence_accusation_we_saw_too_is_confirmed_before_the_missing_audit() -> None:
    ls = _finished_clean(17)[0]
    tick = ls.tick
    ls.fault, ls.fault_from = Fault(2, "went silent", (tick, 1), FaultCode.SILENT), 1
    ls.waiting_at_abort = [2]  # we were waiting for seat 2 too
    ls.audit_bodies[2] = {"refused": True}  # and it never sent its audit
    verdict = run_audit(ls)
    assert (verdict.culprit, verdict.code) == (2, "silent"), verdict  # the silence, not the missing audit
    assert "went silent" in verdict.reason


def test_a_silence_accusation_against_a_seat_that_stopped_is_not_confirmed() -> None:
    ls = _finished_clean(18)[0]
    ls.fault, ls.fault_from = Fault(2, "went silent", (ls.tick, 1), FaultCode.SILENT), 1
    ls.waiting_at_abort = [2]  # its audit came: it stopped, it was not silent
    verdict = run_audit(ls)
    assert verdict.culprit is None and verdict.code == "accusation", verdict


class _PeekState(ToyState):
    """The toy game whose show is a peek: the next seat looks at two undealt deck cards, so every
    other seat holds a key of them and sends a show."""

    def step(self) -> Step:
        if self.phase == "show":
            n = self.players
            viewer = (self.first + 1) % n
            return Show((3 * n, 3 * n + 1), viewer, viewer)
        return super().step()


class PeekGame(ToyGame):
    name = "toy-peek"

    def new_state(self, players: int, options: Mapping[str, object]) -> ToyState:
        return _PeekState(players, self.parse_options(dict(options)))


register(PeekGame())


def test_a_peek_gathers_a_key_from_every_other_seat() -> None:
    peers = make_peers("toy-peek", 3, {}, seed=37)
    run_in_memory(peers, {s: RandomBot(370 + s) for s in range(3)})
    _assert_clean(peers)
    viewer = (peers[0].state.first + 1) % 3
    shows = [m for m in peers[0].transcript if m.kind == "show"]
    assert sorted(m.sender for m in shows) == [s for s in range(3) if s != viewer]
    assert {9, 10} <= set(peers[viewer].private_faces)
    assert not {9, 10} & set(peers[(viewer + 1) % 3].private_faces)


@pytest.mark.parametrize("which", ["lower", "higher"])
def test_a_show_to_another_seat_is_named_at_once_whichever_sender_cheats(which: str) -> None:
    # Each show's recipient is checked, not only the first one's.
    probe = make_peers("toy-peek", 3, {}, seed=37)
    run_in_memory(probe, {s: RandomBot(370 + s) for s in range(3)})
    viewer = (probe[0].state.first + 1) % 3
    senders = sorted(s for s in range(3) if s != viewer)
    cheater = senders[0] if which == "lower" else senders[1]
    peers = make_peers("toy-peek", 3, {}, seed=37)
    send = peers[cheater]._send

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        return send(kind, {**body, "to": (body["to"] + 1) % 3} if kind == "show" else body)

    peers[cheater]._send = cheating_send  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(370 + s) for s in range(3)})
    assert_named_by_all(peers, cheater, "showed cards to seat", FaultCode.BAD_SHOW.value)


def test_a_broken_chain_is_named_and_our_copy_goes_out_as_evidence() -> None:
    peers = make_peers("toy", 3, {}, seed=19)
    cheater = peers[1]
    prev = cheater._my_prev
    broken = {"done": False}

    def wrong_prev() -> bytes:
        if cheater._my_seq == 3 and not broken["done"]:
            broken["done"] = True
            return b"\x00" * 32  # message 3 claims another message 2 than the one it sent
        return prev()

    cheater._my_prev = wrong_prev  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(190 + s) for s in range(3)})
    assert_named_by_all(peers, 1, "does not chain to its previous message", FaultCode.EQUIVOCATION.value)
    for honest in (peers[0], peers[2]):
        aborts = [m for m in honest.processed[honest.seat].values() if m.kind == "abort"]
        if not aborts:
            continue  # it stopped on the other's abort
        evidence = aborts[0].body["evidence"]
        assert any(w.get("from") == 1 and w.get("seq") == 2 for w in evidence), evidence


class _StuckState(ToyState):
    def advance(self, faces: Any = None, random: bytes = b"") -> None:
        if self.phase == "show":
            raise IllegalAction("this engine cannot leave the show")
        super().advance(faces, random)


class StuckGame(ToyGame):
    name = "toy-stuck"

    def new_state(self, players: int, options: Mapping[str, object]) -> ToyState:
        return _StuckState(players, self.parse_options(dict(options)))


register(StuckGame())


def test_an_engine_that_refuses_to_advance_ends_in_an_internal_verdict_naming_nobody() -> None:
    peers = make_peers("toy-stuck", 3, {}, seed=20)
    run_in_memory(peers, {s: RandomBot(200 + s) for s in range(3)})
    for p in peers:
        assert p.finished and p.verdict is not None and not p.verdict.clean, p.seat
        assert p.verdict.culprit is None and p.verdict.code == "internal", p.verdict
        assert "engine refused step" in p.verdict.reason


def test_equivocation_split_between_two_peers_is_proven_to_both() -> None:
    # Seat 1 sends one bid to seat 0 and another, validly signed too, to seat 2. Neither holds both
    # directly; the heads they claim and the evidence they exchange must still convict seat 1 everywhere.
    peers = make_peers("toy", 3, {}, seed=21)
    run_in_memory(peers, {s: RandomBot(210 + s) for s in range(3)}, tamper=equivocating_split(peers))
    assert_named_by_all(peers, 1, "equivocation", FaultCode.EQUIVOCATION.value)


def test_a_fault_only_one_peer_saw_reaches_the_others_as_its_abort() -> None:
    # Only seat 0 gets seat 1's altered message: it names seat 1 and says so in its abort; seat 2 cannot
    # check the claim itself, so it ends unattributed, quoting the accusation it received.
    peers = make_peers("toy", 3, {}, seed=22)

    def alter_for_seat_0(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        if sender == 1 and receiver == 0 and frame.get("kind") == "action":
            return {**frame, "sig": bytes(64)}
        return frame

    run_in_memory(peers, {s: RandomBot(220 + s) for s in range(3)}, tamper=alter_for_seat_0)
    verdict0 = peers[0].verdict
    assert verdict0 is not None and (verdict0.culprit, verdict0.code) == (1, "bad_message"), verdict0
    aborts = [m for m in peers[2].processed[0].values() if m.kind == "abort"]
    assert len(aborts) == 1
    assert (aborts[0].body["culprit"], aborts[0].body["code"]) == (1, "bad_message")
    verdict2 = peers[2].verdict
    assert verdict2 is not None and verdict2.culprit is None and verdict2.code == "accusation", verdict2
    assert "seat 0" in verdict2.reason


def test_a_seat_that_withholds_only_its_audit_is_named_by_everyone() -> None:
    peers = make_peers("toy", 3, {}, seed=23)

    def drop_audit_of_seat_1(sender: int, receiver: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        return None if sender == 1 and frame.get("kind") == "audit" else frame

    run_in_memory(peers, {s: RandomBot(230 + s) for s in range(3)}, tamper=drop_audit_of_seat_1)
    for p in (peers[0], peers[2]):
        assert p.finished and p.verdict is not None, p.seat
        assert (p.verdict.culprit, p.verdict.code) == (1, "refused_audit"), p.verdict
        assert p.audit_bodies[1] == {"refused": True, "unreachable": False}


def test_an_audit_at_the_head_of_an_awaited_seat_means_it_stopped_not_that_it_went_silent() -> None:
    # Where seat 1 owes its first action it stops with an audit and no abort (a peer whose own code
    # failed may). The others, waiting for its action, must see that it stopped, not that it went silent.
    peers = make_peers("toy", 3, {}, seed=24)
    quitter = peers[1]

    class Quitter(RandomBot):
        def choose(self, state: Any, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
            quitter._start_audit()
            return legal[0]

    quitter.act = lambda action: None  # type: ignore[method-assign]  # it answers nothing any more
    bots = {s: RandomBot(240 + s) for s in range(3)}
    bots[1] = Quitter(241)
    run_in_memory(peers, bots)
    assert not quitter.fault and [m.kind for m in quitter.processed[1].values()][-1] == "audit"
    for p in (peers[0], peers[2]):
        assert p.finished and p.verdict is not None, p.seat
        assert p.verdict.culprit is None and p.verdict.code == "unfinished", p.verdict  # stopped, not silent
