"""A seat's side of its spectators (session/watchers.py), with a fake mesh: no sockets, no clock."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from p2php.net.framing import MAX_FRAME
from p2php.net.mesh import Mesh, SpectatorLeft
from p2php.session.lockstep import Lockstep
from p2php.session.watchers import Watchers


class _Mesh:
    max_frame = MAX_FRAME

    def __init__(self) -> None:
        self.sent: dict[int, list[Any]] = {}
        self.up: set[int] = set()

    def send_spectator(self, spectator: int, frame: Any) -> None:
        if spectator in self.up:
            self.sent.setdefault(spectator, []).append(frame)

    def spectator_up(self, spectator: int) -> bool:
        return spectator in self.up


def _table(messages: int, finished: bool = False) -> Lockstep:
    record = [SimpleNamespace(to_wire=lambda n=n: {"from": 0, "seq": n}) for n in range(messages)]
    table = SimpleNamespace(hellos=({"seat": 0},), game="uno", options={"rounds": 1})
    return cast(Lockstep, SimpleNamespace(transcript=record, finished=finished, table=table))


def _watchers(linger: float = 10.0) -> tuple[Watchers, _Mesh]:
    mesh = _Mesh()
    return Watchers(cast(Mesh, mesh), linger), mesh


def test_each_relay_frame_is_encoded_once_for_every_spectator_and_each_gets_the_whole_record() -> None:
    watchers, mesh = _watchers()
    ls = _table(3)
    mesh.up |= {0, 1}
    watchers.joined(0, ls)
    watchers.relay(ls)
    ls.transcript.append(SimpleNamespace(to_wire=lambda: {"from": 1, "seq": 0}))  # type: ignore[arg-type]
    watchers.joined(1, ls)  # joins late: the whole record, then what comes
    watchers.relay(ls)
    assert mesh.sent[0][0] == {"watch": "table", "hellos": [{"seat": 0}], "game": "uno", "options": {"rounds": 1}}
    assert mesh.sent[1][0] == mesh.sent[0][0]
    assert mesh.sent[0][1:] == mesh.sent[1][1:] == watchers.frames and len(watchers.frames) == 4
    assert all(a is b for a, b in zip(mesh.sent[0][1:], mesh.sent[1][1:], strict=True))  # the same bytes
    watchers.relay(ls)  # nothing new: nothing sent again
    assert len(mesh.sent[0]) == len(mesh.sent[1]) == 5


def test_no_spectator_no_encoding() -> None:
    watchers, _ = _watchers()
    watchers.relay(_table(5))
    assert watchers.frames == []


def test_chat_goes_to_every_spectator_up() -> None:
    watchers, mesh = _watchers()
    mesh.up |= {0, 1}
    watchers.joined(0, _table(0))
    watchers.joined(1, _table(0))
    watchers.left(SpectatorLeft(1, "spectator left"), 1.0)
    watchers.chat({"from": 0, "text": "hi"})
    assert mesh.sent[0][-1] == {"chat": {"from": 0, "text": "hi"}} and mesh.sent[1][-1] != mesh.sent[0][-1]


def test_a_link_that_ended_before_the_end_is_waited_for_linger_seconds_from_its_break() -> None:
    watchers, mesh = _watchers(linger=10.0)
    mesh.up.add(0)
    watchers.joined(0, _table(2))
    watchers.relay(_table(2))
    mesh.up.discard(0)
    watchers.left(SpectatorLeft(0, "spectator left"), 100.0)  # mid-game
    assert watchers.coming_back(100.0) and watchers.coming_back(109.9)
    assert not watchers.coming_back(110.0) and watchers.wait_until() == 110.0


def test_a_later_link_shown_the_end_is_the_spectators_return() -> None:
    watchers, mesh = _watchers()
    watchers.joined(0, _table(2))
    watchers.left(SpectatorLeft(0, "connection broken"), 5.0)
    assert watchers.coming_back(6.0)
    mesh.up.add(1)
    done = _table(4, finished=True)
    watchers.joined(1, done)
    watchers.relay(done)
    assert not watchers.coming_back(6.0)  # up, with the end queued
    mesh.up.discard(1)
    watchers.left(SpectatorLeft(1, "spectator left"), 7.0)  # it hung up once it had it all
    assert not watchers.coming_back(7.0)


def test_a_link_that_ends_with_the_end_unsent_or_broken_missed_it() -> None:
    for left in (SpectatorLeft(0, "spectator left", unsent=300), SpectatorLeft(0, "send failed: reset")):
        watchers, mesh = _watchers()
        mesh.up.add(0)
        done = _table(3, finished=True)
        watchers.joined(0, done)
        watchers.relay(done)
        mesh.up.discard(0)
        watchers.left(left, 1.0)
        assert watchers.coming_back(1.0), left


def test_nobody_is_waited_for_when_every_spectator_got_the_end_or_none_came() -> None:
    watchers, mesh = _watchers()
    assert not watchers.coming_back(0.0)
    mesh.up.add(0)
    done = _table(3, finished=True)
    watchers.joined(0, done)
    watchers.relay(done)
    mesh.up.discard(0)
    watchers.left(SpectatorLeft(0, "spectator left"), 1.0)
    assert not watchers.coming_back(1.0)
    assert watchers.relayed == {}  # a gone link is forgotten


def test_a_resumed_seat_waits_for_the_spectator_of_the_process_that_died_until_a_link_of_its_own_gets_the_end() -> None:
    watchers, mesh = _watchers(linger=10.0)
    watchers.resumed(50.0)  # no link of ours yet: the dead process's spectator is coming back
    assert watchers.coming_back(50.0) and watchers.coming_back(54.9) and not watchers.coming_back(55.0)
    mesh.up.add(0)
    done = _table(3, finished=True)
    watchers.joined(0, done)
    watchers.relay(done)
    mesh.up.discard(0)
    watchers.left(SpectatorLeft(0, "spectator left"), 51.0)  # our first link hung up with the end: it returned
    assert not watchers.coming_back(51.0)


def test_the_table_a_spectator_is_shown_announces_the_seats_waits() -> None:
    mesh = _Mesh()
    watchers = Watchers(cast(Mesh, mesh), 10.0, {"timeout": 5.0, "resume_timeout": 20.0, "linger": 1.0})
    mesh.up.add(0)
    watchers.joined(0, _table(0))
    assert mesh.sent[0][0]["waits"] == {"timeout": 5.0, "resume_timeout": 20.0, "linger": 1.0}


def test_leaving_with_our_verdict_tells_each_linked_spectator_after_the_record() -> None:
    """``ended()``: each spectator still linked gets ``{"watch": "end"}`` after the record relayed to it (so one whose
    record lacks reveals closes its audit at once); one that left gets nothing."""
    watchers, mesh = _watchers()
    ls = _table(2)
    mesh.up |= {0, 1}
    watchers.joined(0, ls)
    watchers.joined(1, ls)
    watchers.relay(ls)
    watchers.left(SpectatorLeft(1, "spectator left"), 5.0)
    watchers.ended()
    assert mesh.sent[0][-1] == {"watch": "end"} and mesh.sent[0][1:-1] == watchers.frames
    assert {"watch": "end"} not in mesh.sent[1]
