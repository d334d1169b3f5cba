"""Places for connections not yet shown who they are: per-host and total bounds, and who makes way (sans-IO)."""

from __future__ import annotations

import pytest

from p2php.net.admission import Admission, Ticket, host_key


@pytest.mark.parametrize(("address", "host"), [
    ("192.0.2.7", "192.0.2.7"),
    ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),  # anywhere in the same /64: one host
    ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
    ("::ffff:192.0.2.7", "192.0.2.7"),  # an IPv4 peer on a dual-stack socket is that IPv4 host
    ("fe80::1%eth0", "fe80::/64"),
    ("::1", "::1"),  # this machine itself
    ("12D3KooWAbc", "12D3KooWAbc"),  # a libp2p peer id (or an in-memory network's name) is itself
    ("?", "?"),
])
def test_a_host_is_an_ipv4_address_an_ipv6_64_or_a_name(address: str, host: str) -> None:
    assert host_key(address) == host


def test_a_host_gets_at_most_its_share_and_a_place_given_back_is_free_again() -> None:
    room = Admission(total=4, per_host=2)
    a1, a2 = room.enter("a"), room.enter("a")
    assert a1 is not None and a2 is not None
    assert room.enter("a") is None and not room.room_for("a")
    assert room.held_by("a") == 2 and len(room) == 2
    room.leave(a1)
    room.leave(a1)  # again: harmless
    assert room.held_by("a") == 1 and len(room) == 1 and room.room_for("a")
    assert room.enter("a") is not None


def test_a_full_room_makes_way_for_a_host_holding_fewer_places_by_ending_the_oldest_of_the_host_holding_most() -> None:
    room = Admission(total=4, per_host=3)
    ended: list[str] = []
    tickets = {name: room.enter(host, lambda name=name: ended.append(name))  # type: ignore[misc]
               for name, host in [("a1", "a"), ("b1", "b"), ("a2", "a"), ("a3", "a")]}
    assert len(room) == 4
    assert room.room_for("c") and room.room_for("b")  # b holds 1, a holds 3
    assert ended == []  # asking changes nothing
    c1 = room.enter("c")
    assert c1 is not None and ended == ["a1"] and room.evictions == 1
    a1 = tickets["a1"]
    assert a1 is not None and a1.evicted and a1.scope.cancel_called
    assert (room.held_by("a"), room.held_by("b"), room.held_by("c"), len(room)) == (2, 1, 1, 4)
    room.leave(a1)  # the evicted connection gives its place back when it ends: already gone, nothing changes
    assert len(room) == 4
    assert room.enter("c") is not None and ended == ["a1", "a2"]  # c (1) < a (2): a makes way again
    assert room.enter("c") is None and ended == ["a1", "a2"]  # c holds 2 and so does a: nobody makes way


def test_when_hosts_tie_the_oldest_place_among_them_makes_way() -> None:
    room = Admission(total=4, per_host=4)
    order = [room.enter(host) for host in ("a", "b", "b", "a")]
    assert all(isinstance(t, Ticket) for t in order)
    room.enter("c")
    assert [t is not None and t.evicted for t in order] == [True, False, False, False]  # a's first was oldest
    room.enter("d")
    assert [t is not None and t.evicted for t in order] == [True, True, False, False]  # now b (2) holds most


def test_a_newcomer_from_the_host_holding_most_is_refused_not_given_its_own_place() -> None:
    room = Admission(total=2, per_host=2)
    first = room.enter("a")
    room.enter("a")
    assert room.enter("a") is None and first is not None and not first.evicted


@pytest.mark.parametrize("per_host", [0, 5])
def test_a_per_host_bound_outside_one_to_total_is_refused(per_host: int) -> None:
    with pytest.raises(ValueError, match="per_host must be 1 to total"):
        Admission(total=4, per_host=per_host)


def test_the_oldest_place_goes_first_even_when_its_host_arrived_later() -> None:
    """Age is the place's own arrival, not when its host first came: x came first, but its older place is gone and
    its remaining one is younger than y's (a counter that never moved would end x's instead)."""
    room = Admission(total=3, per_host=3)
    x1, y1, x2 = room.enter("x"), room.enter("y"), room.enter("x")
    assert x1 is not None and y1 is not None and x2 is not None
    room.leave(x1)
    room.enter("z")
    room.enter("w")
    assert y1.evicted and not x2.evicted


@pytest.mark.parametrize("per_host", [1, 4])
def test_a_per_host_bound_of_one_or_of_the_total_is_taken(per_host: int) -> None:
    room = Admission(total=4, per_host=per_host)
    assert room.enter("a") is not None
    assert (room.enter("a") is not None) == (per_host > 1)


def test_nothing_is_kept_for_a_host_once_it_holds_no_place() -> None:
    """An outsider cycling through addresses (an IPv6 /64 after another) must not grow the room's book: a host
    that holds no place any more is forgotten, evicted or gone."""
    room = Admission(total=2, per_host=2)
    for i in range(100):
        ticket = room.enter(f"2001:db8:{i}::/64")
        assert ticket is not None
        room.leave(ticket)
    room.enter("a")
    room.enter("a")
    room.enter("b")  # a's oldest makes way
    assert room._held.keys() == {"a", "b"} and len(room) == 2
    for ticket in list(room._held["a"]) + list(room._held["b"]):
        room.leave(ticket)
    assert room._held == {} and len(room) == 0
