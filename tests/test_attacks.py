"""Attacks on unmodified peers over real loopback sockets (issue 7): nothing from the network breaks an
honest peer, stopping is consistent, and an honest seat is never convicted.

The cheater is a :class:`adversarial.rogue.Rogue`: a real peer whose outgoing frames a policy rewrites.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
import trio
from adversarial.rogue import Out, Rogue, make_rogue, run_table_with_rogue

from p2php.bots import RandomBot
from p2php.net.framing import FrameDecoder, encode_frame
from p2php.net.linkauth import KeyExchange
from p2php.net.mesh import accept_forever, listen, listener_port
from p2php.session import transcript
from p2php.session.local_net import run_local_table
from p2php.session.runner import PeerResult, bot_decider

HOST = "127.0.0.1"


def bots(players: int, seed: int = 0) -> list[Any]:
    return [bot_decider(RandomBot(seed * 10 + s)) for s in range(players)]


def honest_results(results: list[PeerResult | None], rogue: int) -> list[PeerResult]:
    out = []
    for seat, r in enumerate(results):
        if seat == rogue:
            continue
        assert r is not None, f"honest seat {seat} has no result"
        assert r.lockstep.finished and r.lockstep.verdict is not None, f"seat {seat} did not finish"
        assert r.lockstep.transcript, "honest peers keep the record"
        out.append(r)
    return out


def never_an_honest_seat(results: list[PeerResult | None], rogue: int) -> None:
    for r in honest_results(results, rogue):
        v = r.lockstep.verdict
        assert v is not None and v.culprit in (None, rogue), (r.lockstep.seat, v)


# ------------------------------------------------------------------------------------ hostile frames


async def test_a_huge_string_in_an_envelope_is_named_and_never_crashes_the_honest_peers(tmp_path: Path) -> None:
    """A 4 MiB string in an envelope field with a garbage signature: before, the honest peer quoted it in
    its own abort, which then exceeded the frame limit and killed it with no verdict and no transcript."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action" and rogue.state.setdefault("seq", frame["seq"]) == frame["seq"]:
            return [(0.0, {**frame, "kind": "x" * (4 * 1024 * 1024 - 2000), "sig": bytes(64)})]
        return [(0.0, frame)]

    rogue = make_rogue(1, policy)
    results = await run_table_with_rogue("toy", 3, bots(3), rogue, transcripts=tmp_path)
    for r in honest_results(results, 1):
        v = r.lockstep.verdict
        assert v is not None and v.culprit == 1 and v.code == "bad_message", v
        assert len(v.reason) <= 300
        assert transcript.load(tmp_path / f"seat{r.lockstep.seat}.p2php")["messages"]


# ------------------------------------------------------------------------------------ stopping is consistent

KINDS = ["shuffle", "lock", "keys", "beacon", "show", "action", "commit", "audit"]


def _abort_instead(rogue: Rogue, frame: dict[str, Any], accused: int) -> dict[str, Any]:
    """A validly signed abort with the same number as ``frame``: a different message for the same slot."""
    body = {"culprit": accused, "reason": "made up", "code": "silent", "at": frame["at"], "evidence": [],
            "claims": []}
    return rogue.sign({**{k: v for k, v in frame.items() if k not in ("sig", "att")}, "kind": "abort", "body": body})


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("variant", ["split", "stop_towards_one"])
async def test_different_stop_and_continue_messages_never_convict_an_honest_seat(kind: str, variant: str) -> None:
    """The matrix of issue 7: at each phase the cheater (seat 1) sends an abort to seat 0 and carries on
    with seat 2 ("split"), or stops towards seat 0 only; every honest peer names the cheater or ends
    unattributed, and their transcripts verify to the same verdict."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") != kind or rogue.ls is None:
            return [(0.0, frame)]
        if "seq" not in rogue.state:
            rogue.state["seq"] = frame["seq"]
        if frame["seq"] != rogue.state["seq"] or to != 0:
            return [(0.0, frame)]
        if variant == "split":
            return [(0.0, _abort_instead(rogue, frame, accused=2))]
        return []  # seat 0 never hears this message

    seed = 3 if kind == "show" else 5  # with seed 3 the joint draw makes seat 1 the one who shows
    rogue = make_rogue(1, policy, seed=seed)
    options = {"sealed": True} if kind == "commit" else {}  # the sealed bid: commit, then reveal
    results = await run_table_with_rogue("toy", 3, bots(3, 5), rogue, options=options, seed=seed, timeout=2.0,
                                         resume_timeout=4.0)
    assert "seq" in rogue.state, f"the rogue never sent a {kind} message"
    never_an_honest_seat(results, 1)
    if variant == "split" and kind != "audit":
        # Seat 0 holds the abort, seat 2 the real message: the two signed versions reach everyone.
        for r in honest_results(results, 1):
            v = r.lockstep.verdict
            assert v is not None and v.culprit == 1 and v.code == "equivocation", (r.lockstep.seat, v)


async def test_an_audit_from_a_seat_we_wait_for_means_it_stopped_not_that_it_went_silent() -> None:
    """The cheater's abort reaches seat 0 only; seat 0 stops and forwards it. Before, seat 2 kept waiting
    for seat 0's next message and named the honest seat 0 silent (8 of 8 tries)."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action" and rogue.ls is not None and "seq" not in rogue.state:
            rogue.state["seq"] = frame["seq"]
        if frame.get("seq") == rogue.state.get("seq") and frame.get("kind") == "action":
            return [(0.0, _abort_instead(rogue, frame, accused=0))] if to == 0 else [(0.0, frame)]
        return [(0.0, frame)]

    for seed in range(3):
        rogue = make_rogue(1, policy, seed=seed)
        results = await run_table_with_rogue("toy", 3, bots(3, seed), rogue, seed=seed, timeout=2.0)
        never_an_honest_seat(results, 1)
        v2 = results[2].lockstep.verdict if results[2] else None
        assert v2 is not None and v2.culprit in (None, 1), v2


# ------------------------------------------------------------------------------------ every wait ends


async def test_harmless_traffic_never_postpones_a_withheld_action() -> None:
    """The cheater withholds its action but sends an empty sync every 0.2 s: named silent at its deadline.
    Before, every event restarted the wait, and the game stalled forever."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action":
            return [(0.2 * k, {"sync": []}) for k in range(1, 40)]  # 8 s of chatter instead of the action
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=2)
    start = trio.current_time()
    results = await run_table_with_rogue("toy", 3, bots(3, 2), rogue, timeout=1.5, limit=30)
    assert trio.current_time() - start < 12
    for r in honest_results(results, 1):
        v = r.lockstep.verdict
        assert v is not None and v.culprit in (1, None), v
    assert any(r is not None and r.lockstep.verdict is not None and r.lockstep.verdict.culprit == 1
               and r.lockstep.verdict.code == "silent" for r in results[:1] + results[2:])


@pytest.mark.parametrize("from_kind", ["action", "audit"])
async def test_a_seat_named_silent_is_not_lingered_for(from_kind: str) -> None:
    """After the end a peer lingers (``linger``) for every seat's ``fin``, so it keeps serving a seat that still
    needs its messages — but not for a seat its verdict names silent or refusing the audit: that one sends
    nothing more, and waiting for it would hold every honest peer the whole linger. The rogue stops sending
    anything from its first action (named silent) or from its audit (the game was clean: named for refusing
    the audit) and keeps its link open."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if rogue.state.get("mute"):
            return []
        if frame.get("kind") == from_kind:
            rogue.state["mute"] = True
            if from_kind == "audit":
                return []
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=2)
    ended: dict[int, float] = {}
    start = trio.current_time()
    results = await run_table_with_rogue("toy", 3, bots(3, 2), rogue, timeout=1.5, limit=60, linger=30.0,
                                         ended=ended)
    codes = {"action": ("silent",), "audit": ("refused_audit", "silent")}[from_kind]
    for r in honest_results(results, 1):
        v = r.lockstep.verdict
        assert v is not None and v.culprit == 1 and v.code in codes, v
    # The honest pair lingers for each other's fin (which comes), never the 30 s for the silent seat's.
    assert max(ended[0], ended[2]) - start < 20.0, {s: t - start for s, t in ended.items()}


async def test_a_false_seen_claim_is_waited_on_only_until_the_audit_deadline() -> None:
    """The rogue signs a seen head for a message of seat 0 nobody holds. Evidence may still come, so the honest
    peers wait for it — until their audit deadline, then end naming nobody (a lost message looks like a lie).
    A wait with no deadline here would hold every honest peer for good."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "audit":  # its last message: no later one need chain to the forged copy
            rogue.state["lied"] = True
            seen = [[s, seq, bytes(32) if s == 0 else h] for s, seq, h in frame["seen"]]
            return [(0.0, rogue.sign({**frame, "seen": seen}))]
        return [(0.0, frame)]

    rogue = make_rogue(2, policy, seed=10)
    start = trio.current_time()
    results = await run_table_with_rogue("toy", 3, bots(3, 10), rogue, timeout=1.5, limit=40)
    assert "lied" in rogue.state
    for r in honest_results(results, 2):
        v = r.lockstep.verdict
        assert v is not None and v.culprit is None and v.code == "false_claim", v
    assert trio.current_time() - start < 20


async def test_a_seat_that_asks_for_a_full_form_once_gets_it_and_nobody_is_named() -> None:
    """Asking for the full form of a compact frame one could not rebuild is honest (§5.4): the asked peer answers
    with its message. Taken for a malformed message, the request would end the game naming the asker."""
    from p2php.session.compact import FULL, WANT

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action" and to == 0 and "asked" not in rogue.state:
            rogue.state["asked"] = True
            return [(0.0, frame), (0.0, {WANT: 0})]  # seat 0's first message, once
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=4)
    results = await run_table_with_rogue("toy", 3, bots(3, 4), rogue, timeout=3.0)
    assert rogue.state.get("asked")
    answers = [f[FULL] for seat, f in rogue.received if seat == 0 and FULL in f]
    assert [(a.get("from"), a.get("seq")) for a in answers] == [(0, 0)]  # answered, once
    for r in results:
        assert r is not None and r.lockstep.verdict is not None and r.lockstep.verdict.clean, r


# ------------------------------------------------------------------------------------ bounded resources


async def test_a_repeated_sync_request_is_answered_once_without_duplicates() -> None:
    """One 26 KiB sync request made a peer queue ~220 MiB; now: once per connection, each author once."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "beacon" and "sent" not in rogue.state:
            rogue.state["sent"] = True
            flood = {"sync": [[0, -1]] * 3000 + [[2, -1]] * 3000}
            return [(0.0, frame), (0.0, flood), (0.0, flood), (0.0, flood)]
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=3)
    results = await run_table_with_rogue("toy", 3, bots(3, 3), rogue, timeout=3.0)
    for r in honest_results(results, 1):
        assert r.lockstep.verdict is not None and r.lockstep.verdict.clean, r.lockstep.verdict
        assert r.bytes_sent < 400_000, r.bytes_sent  # a whole toy game, plus at most one catch-up answer


async def test_accept_survives_running_out_of_file_descriptors() -> None:
    """EMFILE from accept() crashed a running peer; now it backs off and keeps serving."""
    listener = await listen(HOST, 0)
    real_accept = listener.accept
    failures = [OSError(errno.EMFILE, "Too many open files"), OSError(errno.ENFILE, "File table overflow")]

    async def flaky_accept() -> Any:
        if failures:
            raise failures.pop(0)
        return await real_accept()

    listener.accept = flaky_accept  # type: ignore[method-assign]
    served: list[int] = []

    async def handle(stream: trio.SocketStream) -> None:
        served.append(1)
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(accept_forever, listener, handle, nursery)
        stream = await trio.open_tcp_stream(HOST, listener_port(listener))
        with trio.fail_after(5):
            while not served:
                await trio.sleep(0.01)
        await stream.aclose()
        nursery.cancel_scope.cancel()
    await listener.aclose()
    assert served == [1] and not failures


# ------------------------------------------------------------------------------------ authenticated connections


async def test_a_copied_hello_cannot_take_a_seat() -> None:
    """Hellos are public (every spectator gets them): an outsider replaying seat 1's hello to seat 0's
    listener is refused for lack of proof, and the real seat 1's link stays up."""
    from adversarial.rogue import honest

    seen: dict[str, Any] = {}

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if rogue.ls is not None and "hello" not in seen:
            seen["hello"] = rogue.ls.table.hellos[1]
        return honest(rogue, frame, to)

    listeners_info: dict[str, Any] = {}
    rogue = make_rogue(1, policy, seed=6)

    async def impostor(port_of_seat0: int) -> None:
        while "hello" not in seen:
            await trio.sleep(0.01)
        stream = await trio.open_tcp_stream(HOST, port_of_seat0)
        frames = [seen["hello"], {"challenge": bytes(32), "kx": KeyExchange().public}, {"proof": bytes(64)},
                  {"mesh": "ok"}]
        await stream.send_all(b"".join(encode_frame(f) for f in frames))
        decoder, got = FrameDecoder(), []
        with trio.move_on_after(5):
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    break
                got += decoder.feed(data)
        await stream.aclose()
        listeners_info["verdict"] = [f for f in got if "mesh" in f]

    import adversarial.rogue as rogue_module

    real_listen = rogue_module.mesh_module.listen
    ports: list[int] = []

    async def recording_listen(host: str, port: int = 0) -> Any:
        lst = await real_listen(host, port)
        ports.append(listener_port(lst))
        return lst

    rogue_module.mesh_module.listen = recording_listen  # type: ignore[assignment]
    try:
        async with trio.open_nursery() as nursery:
            async def table() -> None:
                listeners_info["results"] = await run_table_with_rogue("toy", 3, bots(3, 6), rogue, timeout=3.0)

            nursery.start_soon(table)
            while not ports:
                await trio.sleep(0.01)
            nursery.start_soon(impostor, ports[0])
    finally:
        rogue_module.mesh_module.listen = real_listen
    verdict = listeners_info["verdict"]
    assert verdict and verdict[0]["mesh"] == "reject" and "did not prove" in verdict[0]["reason"], verdict
    for r in listeners_info["results"]:
        assert r is not None and r.lockstep.verdict is not None and r.lockstep.verdict.clean


async def test_every_peer_shows_the_same_safety_code() -> None:
    results = await run_local_table("toy", 3, bots(3), seed=9)
    codes = {r.lockstep.table.safety_code for r in results}
    assert len(codes) == 1
    code = codes.pop()
    assert len(code) == 24 and code.count("-") == 4
    other = await run_local_table("toy", 3, bots(3), seed=10)
    assert other[0].lockstep.table.safety_code != code  # another session, another code


async def test_parked_future_messages_count_towards_the_flood_limit() -> None:
    """Messages from far ahead in the sender's chain are parked until the gap fills; a sender that
    sends thousands of them is named for flooding and nothing more of it is kept."""
    from p2php.session.records import MAX_BACKLOG

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action" and rogue.ls is not None \
                and rogue.state.setdefault("seq", frame["seq"]) == frame["seq"]:
            ahead = [rogue.sign({**frame, "seq": frame["seq"] + 10 + k}) for k in range(MAX_BACKLOG + 5)]
            return [(0.0, {"relay": f}) for f in ahead]
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=7)
    results = await run_table_with_rogue("toy", 3, bots(3, 7), rogue, timeout=20.0, limit=90)
    for r in honest_results(results, 1):
        v = r.lockstep.verdict
        assert v is not None and v.culprit == 1 and v.code == "flood", v
        assert not r.lockstep.parked.get(1)


async def test_relays_that_are_not_signed_messages_name_the_seat_that_sent_them() -> None:
    """An honest peer relays only messages whose signatures it checked. A cheater's forged relays — an honest
    seat's message with a 64 KB body and a signature that does not verify — each cost the receiver a decode and
    a signature check and named nobody; past MAX_BAD_RELAYS of them its connection's seat is named (by the seat
    that got them; the other, which got none, cannot confirm the abort and ends unattributed)."""
    from p2php.session.records import MAX_BAD_RELAYS

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "action" and to == 0 and not rogue.state.get("sent"):
            rogue.state["sent"] = True
            forged = {**frame, "from": 0, "body": {**frame["body"], "pad": "x" * 65536}, "sig": bytes(64)}
            return [(0.0, frame)] + [(0.0, {"relay": forged})] * (MAX_BAD_RELAYS + 2)
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=8)
    results = await run_table_with_rogue("toy", 3, bots(3, 8), rogue, timeout=20.0, limit=90)
    first, other = honest_results(results, 1)
    v = first.lockstep.verdict
    assert v is not None and v.culprit == 1 and v.code == "bad_message" and "not signed messages" in v.reason, v
    v = other.lockstep.verdict
    assert v is not None and not v.clean and v.culprit in (None, 1) and "not signed messages" in v.reason, v


# ------------------------------------------------------------------------------------ the audit decides exactly


@pytest.mark.crypto("fast")  # the fast deck's own mechanics (its keys, passes or schedule)
def test_a_pass_that_is_not_what_its_secret_makes_is_named_even_when_the_final_deck_looks_right() -> None:
    """Seat 2 (last shuffler, first locker) swaps two entries of its shuffle pass and swaps them back in
    its lock pass: the final deck is exactly the honest one, so the old fast path said "clean".  The
    exact pass-by-pass check names seat 2 for its shuffle pass at every honest peer."""
    from p2php.crypto import deck
    from p2php.crypto.group import POINT_SIZE
    from p2php.session.memory import make_peers, run_in_memory

    peers = make_peers("toy", 3, {}, seed=21)
    liar = peers[2]
    send = liar._send

    def swapped(cards: list[bytes]) -> list[bytes]:
        return [cards[1], cards[0], *cards[2:]]

    def cheating_send(kind: str, body: dict[str, Any]) -> Any:
        if kind == "shuffle" and liar.tick == 0:  # a fast pass is one packed bin of points (§6.4)
            body = {**body, "cards": deck.pack(swapped(deck.unpack(body["cards"], POINT_SIZE)))}
        elif kind == "lock" and liar.tick == 0:
            rec = liar.decks[0]
            body = {**body, "cards": deck.pack(deck.lock_pass(liar._deck_secrets(0), swapped(rec.current)))}
        return send(kind, body)

    liar._send = cheating_send  # type: ignore[method-assign]
    run_in_memory(peers, {s: RandomBot(210 + s) for s in range(3)})
    for p in peers[:2]:
        v = p.verdict
        assert v is not None and v.culprit == 2 and v.code == "bad_pass", (p.seat, v)
        assert "shuffle pass of deck 0" in v.reason


async def test_a_withheld_decryption_share_in_verified_mode_is_named_silent() -> None:
    """Verified dealing: a seat that never sends its decryption shares for a deal holds up only itself —
    every honest peer names it silent at the deadline, as a withheld key is named in fast mode."""

    def policy(rogue: Rogue, frame: dict[str, Any], to: int) -> Out:
        if frame.get("kind") == "keys":
            return []  # its shares never leave
        return [(0.0, frame)]

    rogue = make_rogue(1, policy, seed=4)
    results = await run_table_with_rogue("toy", 3, bots(3, 4), rogue, options={"crypto": "verified"},
                                         timeout=1.5, limit=40)
    honest = honest_results(results, 1)
    assert honest
    for r in honest:
        v = r.lockstep.verdict
        assert v is not None and v.culprit == 1 and v.code == "silent", v
