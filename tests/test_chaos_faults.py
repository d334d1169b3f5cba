"""Combined faults found by ``benchmarks/chaos_soak.py`` (every seat honest), each as one deterministic case."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent / "chaos_repro"))

from repro_audit_kill import audit_kill_table  # noqa: E402
from repro_lost_lock import lost_lock_table  # noqa: E402


def test_an_abort_parked_behind_a_compact_frame_for_a_later_tick_still_stops_us() -> None:
    """Seat 0 dies after its last lock pass reached seat 1 only (chaos seed 3). Seat 1 plays on to step 2.0, then
    ends the game since seat 2 is behind; seat 2 still waits for seat 0 (link down: ``resume_timeout``, longer than
    the audit's ``timeout``). Seat 1's abort must stop seat 2 at once, though it came after seat 1's keys message,
    a compact frame seat 2 cannot rebuild before it reaches step 2. Before, the abort stayed parked behind it,
    seat 2 sent its audit only when seat 0's resume timeout ran out, and seat 1 had named it ``refused_audit``."""
    stopped_by: dict[int, int | None] = {}
    verdicts = trio.run(partial(lost_lock_table, 3.0, 12.0, lambda line: None, stopped_by=stopped_by))
    assert set(verdicts) == {1, 2}
    assert stopped_by[2] == 1  # seat 1's abort stopped seat 2 (not its own wait for seat 0, resume_timeout later)
    for seat, v in verdicts.items():
        assert v is not None and v.culprit is None, (seat, v.culprit, v.reason)
        assert v.code == "unreachable" and v.seats == (0,), (seat, v.code, v.reason)


def test_a_seat_still_waiting_for_a_dropped_seat_is_given_its_resume_timeout_for_its_audit() -> None:
    """Seat 0 dies after its last action of the game reached seat 1 only (the toy game, seeded). Seat 1 ends the
    game and audits; seat 2 still waits for that action (seat 0's link is down: ``resume_timeout``), so its audit
    comes only then, and its heartbeats say it still plays. Before, seat 1 named it ``refused_audit`` a ``timeout``
    into the audit; now its audit is due a ``timeout`` after the down seat's ``resume_timeout``."""
    import toygame  # noqa: F401  (registers "toy")

    verdicts = trio.run(partial(lost_lock_table, 3.0, 12.0, lambda line: None, game="toy", on_kind="action", nth=2))
    assert set(verdicts) == {1, 2}
    for seat, v in verdicts.items():
        assert v is not None and v.culprit is None, (seat, v.culprit, v.reason)


def test_a_seat_killed_in_the_audit_and_resumed_after_the_others_linger_still_ends_clean(tmp_path: Path) -> None:
    """Seat 0 dies after its audit went out and before the others' came in (chaos seed 105); it comes back from its
    log 4 s later, after the others' 2 s linger, within the 20 s ``resume_timeout``. Before, the others (clean) had
    gone and the resumed seat ended "no connection with seat(s) [1, 2]" with no verdict; now they wait for it."""
    out = trio.run(audit_kill_table, tmp_path, 4.0, lambda line: None)
    assert set(out) == {0, 1, 2}
    for seat, v in out.items():
        assert not isinstance(v, str), (seat, v)
        assert v is not None and v.clean, (seat, v)


async def _fast_game_with_logs(tmp: Path) -> None:
    """A whole three-seat toy game, fast deck, over loopback, each seat keeping a resume log."""
    import toygame  # noqa: F401  (registers "toy")

    from p2php.bots import RandomBot
    from p2php.net.mesh import listen, listener_port
    from p2php.session.memory import seeded_secrets
    from p2php.session.runner import PeerConfig, bot_decider, run_peer

    listeners = [await listen("127.0.0.1", 0) for _ in range(3)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(3)}

    async def one(seat: int) -> None:
        cfg = PeerConfig("toy", {"crypto": "fast"}, 3, seat, f"p{seat}", timeout=10.0, secrets=seeded_secrets(4, seat),
                         resume_path=tmp / f"seat{seat}.resume")
        result = await run_peer(cfg, addresses, listeners[seat], bot_decider(RandomBot(seat)))
        assert result.lockstep.verdict is not None and result.lockstep.verdict.clean
        await listeners[seat].aclose()

    async with trio.open_nursery() as nursery:
        for seat in range(3):
            nursery.start_soon(one, seat)


def test_the_log_a_resumed_seat_writes_can_be_resumed_again(tmp_path: Path) -> None:
    """A resumed seat writes its log anew from what it restored (``ResumeLog.create``). A fast deck's intermediate
    pass reaches only the next passer with its points, which that seat let go once it had taken the pass; so the new
    log held those passes without their points, and a second resume stopped at the first one (chaos seed 139: the
    twice-resumed seat came back "at step 0: 0 logged messages", waited for points the finished seats no longer
    sent, and named an honest seat ``silent``)."""
    from p2php.session.resume import ResumeLog, restore
    from p2php.session.runner import PeerConfig

    trio.run(_fast_game_with_logs, tmp_path)
    for seat in range(3):
        header, ls = restore(tmp_path / f"seat{seat}.resume")
        assert ls.finished
        again = tmp_path / f"again{seat}.resume"
        cfg = PeerConfig("toy", ls.table.options, 3, seat, f"p{seat}", secrets=ls.secrets, resume_path=again)
        ResumeLog.create(cfg, ls, {s: (str(a[0]), int(a[1])) for s, a in enumerate(header["addresses"])}).close()
        _, twice = restore(again)
        assert (twice.tick, twice.phase, len(twice.transcript)) == (ls.tick, ls.phase, len(ls.transcript)), seat
        assert twice.finished and twice.verdict is not None and twice.verdict.clean


def test_a_seat_that_drops_again_after_our_verdict_does_not_extend_our_linger() -> None:
    """A cheater that never sends fin and drops its link over and over (its runner redialling) must not hold a
    finished honest peer for good: its first drop after our verdict fixes how long we serve it
    (review rt5: seat 0 still there 39 s after its verdict, linger 1 s, resume_timeout 5 s)."""
    from types import SimpleNamespace

    from p2php.session.runner import _Runner

    clock = SimpleNamespace(t=1.0)
    r: Any = object.__new__(_Runner)
    r.ls = SimpleNamespace(verdict=None, fault=None)
    r.fins, r.back_by, r.down = set(), {}, {1: 0.0}
    r.cfg = SimpleNamespace(resume_timeout=5.0)
    r.clock = SimpleNamespace(now=lambda: clock.t)
    assert r._coming_back(100.0) == 104.0  # (trio time 100 is clock 1): served until clock 5
    del r.down[1]  # it rejoined
    for drop in (4.0, 8.0, 12.0):  # and dropped again, and again
        r.down[1] = drop
        clock.t = drop + 0.5
        assert r._coming_back(100.0 + drop - 0.5) <= 104.0 + 1e-9
        del r.down[1]


def test_a_seat_held_up_by_a_cheater_that_keeps_our_link_up_is_not_named_refused_audit() -> None:
    """Seat 0 sends its last action to seat 1 only, cuts its link to seat 2 and refuses its redials, but keeps its
    link to seat 1 up. Seat 2 waits ``resume_timeout`` for it; seat 1 sees no link down, so 12f973e's grace did not
    apply and seat 1 named the honest seat 2 ``refused_audit`` a ``timeout`` into its audit. Now seat 1 sends the
    late seat its sync, it asks back, and gets seat 0's last action relayed."""
    from repro_withhold_keep_link import table

    verdicts = trio.run(partial(table, 3.0, 12.0, lambda line: None))
    assert set(verdicts) == {0, 1, 2}
    for seat, v in verdicts.items():
        assert v is not None and v.culprit != 2, (seat, v.culprit, v.code, v.reason)


def test_a_log_holding_our_own_abort_at_a_step_that_never_completes_restores_in_the_audit() -> None:
    """Chaos seed 4005 (``--extra``): seat 2 died at the set-up, before its
    deckkey; seat 3 aborted naming it unreachable, sent its audit and was killed. Its log (this file, kept as it was
    at the kill) holds its deckkey, seats 0 and 1's, its abort and its audit. Before, the abort sat in our own queue
    behind our deckkey, held by the step seat 2 never completes: restore gave step 0 with nothing processed, not
    auditing, and the resumed seat never sent its audit again; seats 0 and 1 named it refused_audit."""
    import pytest

    pytest.importorskip("coincurve")
    from p2php.session.resume import restore

    _, ls = restore(Path(__file__).resolve().parent / "chaos_repro" / "setup_abort_seat3.resume")
    assert ls.auditing
    assert ls.fault is not None and ls.fault.culprit == 2 and ls.fault.code == "unreachable", ls.fault
    assert len(ls.transcript) == 5  # all five logged messages processed
    assert not [m for m in ls.outbox if m.kind == "audit"]  # the logged audit is ours already: not made again


def test_a_restored_seat_does_not_wait_for_a_seat_still_away_before_it_plays(tmp_path: Path) -> None:
    """Seats 1 and 2 die at the set-up (chaos ``--extra`` seed 5004); seat 2 comes back at once, seat 1 8 s later
    (past the 2 s ``timeout``, inside the 15 s ``resume_timeout``). Before, the restored seat 2 waited the whole
    ``connect_timeout`` for seat 1 before its mesh formed, while seat 0, linked to it, gave it one ``timeout`` for
    its beacon and named the honest seat silent; now it forms a ``timeout`` / 4 after its first link."""
    from repro_rejoin_away import rejoin_away_table

    out = trio.run(rejoin_away_table, tmp_path, 8.0, lambda line: None)
    assert set(out) == {0, 1, 2}
    for seat, v in out.items():
        assert not isinstance(v, str), (seat, v)
        assert v is not None and v.culprit is None, (seat, v.culprit, v.reason)
