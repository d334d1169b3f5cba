"""LAN discovery: the datagrams (sans-IO) and a query/answer over loopback UDP (nothing leaves 127.0.0.1)."""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import Any

import msgpack
import pytest
import trio

from p2php import PROTOCOL_VERSION
from p2php.discovery import (
    ANSWER_MAX,
    MAX_TABLES,
    QUERY_MIN,
    Answers,
    TableInfo,
    Tables,
    auto_pick_refusal,
    discover,
    format_tables,
    is_own_address,
    make_answer,
    make_query,
    open_responder,
    parse_answer,
    parse_query,
    parse_target,
    serve_discovery,
)

NONCE = b"12345678"
SUMMARY: dict[str, Any] = {"game": "uno", "options": {"rounds": 1, "deck": "base"}, "players": 4, "taken": 2,
                           "names": ["hana", "bot1"], "host": "hana", "port": 7711, "id": b"tableid1"}


def test_query_is_padded_and_round_trips() -> None:
    query = make_query(NONCE)
    assert QUERY_MIN <= len(query) <= QUERY_MIN + 8
    assert parse_query(query) == NONCE
    assert msgpack.unpackb(query)["v"] == PROTOCOL_VERSION


@pytest.mark.parametrize("data", [
    b"",
    b"\xff" * QUERY_MIN,
    msgpack.packb({"p2php": "discover", "v": 1, "nonce": NONCE}),  # unpadded: not answered
    msgpack.packb({"p2php": "discover", "v": 1, "nonce": b"short", "pad": bytes(600)}),
    msgpack.packb({"p2php": "table", "v": 1, "nonce": NONCE, "pad": bytes(600)}),
    msgpack.packb({"p2php": "discover", "nonce": NONCE, 1: 2, "pad": bytes(600)}),  # non-str key
])
def test_bad_queries_get_no_answer(data: bytes) -> None:
    assert parse_query(data) is None


def test_answer_round_trips_and_matches_the_nonce() -> None:
    data = make_answer(NONCE, SUMMARY)
    assert data is not None
    info = parse_answer(data, NONCE, "10.1.2.3")
    assert info == TableInfo("10.1.2.3", 7711, "uno", {"rounds": 1, "deck": "base"}, 4, 2, "hana",
                             ["hana", "bot1"], b"tableid1", PROTOCOL_VERSION)
    assert info.free == 2 and info.compatible
    assert parse_answer(data, b"87654321", "10.1.2.3") is None  # someone else's query
    assert parse_answer(b"junk", NONCE, "10.1.2.3") is None


def test_answers_stay_small_and_names_are_cleaned() -> None:
    crowded = {**SUMMARY, "players": 10, "taken": 10, "names": [f"player-\x1b[2J-{i:02}" + "x" * 14 for i in range(10)]}
    data = make_answer(NONCE, {**crowded, "names": crowded["names"] * 8})
    assert data is not None and len(data) <= ANSWER_MAX
    full = make_answer(NONCE, crowded)
    assert full is not None
    info = parse_answer(full, NONCE, "10.1.2.3")
    assert info is not None and all("\x1b" not in n for n in info.names)
    assert make_answer(NONCE, {**SUMMARY, "options": {"x": "y" * 2000}}) is None


def test_parse_target() -> None:
    assert parse_target("192.168.1.20") == ("192.168.1.20", 7700)
    assert parse_target("192.168.1.20:7800") == ("192.168.1.20", 7800)
    assert parse_target("[::1]:7801") == ("::1", 7801)
    for bad in ("host:port", ":7700", "h:0", "h:70000"):
        with pytest.raises(ValueError):
            parse_target(bad)


def test_listing_says_how_to_join() -> None:
    data = make_answer(NONCE, SUMMARY)
    assert data is not None
    info = parse_answer(data, NONCE, "10.1.2.3")
    assert info is not None
    text = "\n".join(format_tables([info]))
    assert "10.1.2.3:7711  uno  2/4 seated, 2 free  host hana" in text
    assert "p2php join 10.1.2.3:7711 --name NAME" in text
    assert "No open tables" in format_tables([])[0]


async def test_query_and_answer_over_loopback() -> None:
    sock = await open_responder("127.0.0.1", 0)
    port = sock.getsockname()[1]
    state: dict[str, Any] = {"open": True}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve_discovery, sock, lambda: SUMMARY if state["open"] else None)
        tables = await discover([("127.0.0.1", port)], timeout=0.4)
        assert len(tables) == 1 and tables[0].address == "127.0.0.1" and tables[0].port == 7711
        assert tables[0].names == ["hana", "bot1"]
        state["open"] = False  # started or closed: silence
        assert await discover([("127.0.0.1", port)], timeout=0.3) == []
        nursery.cancel_scope.cancel()
    sock.close()


# ----------------------------------------------------------------------------- impersonation and floods
# Table ids are no secret (a table tells its id to whoever asks), and anyone on the LAN hears the broadcast query.


async def test_an_impersonator_answering_first_with_the_real_id_does_not_hide_the_host() -> None:
    """Keeping the first answer per id listed only the impersonator (answering first), and join went there."""
    real = await open_responder("127.0.0.1", 0)
    fake = await open_responder("127.0.0.1", 0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve_discovery, real, lambda: SUMMARY)
        nursery.start_soon(serve_discovery, fake, lambda: {**SUMMARY, "port": 6666})  # same id, its own lobby
        found = await discover([fake.getsockname(), real.getsockname()], timeout=0.4)  # the fake is asked first
        nursery.cancel_scope.cancel()
    real.close()
    fake.close()
    assert sorted(t.port for t in found) == [6666, 7711] and all(t.contested for t in found)
    text = "\n".join(format_tables(found))
    assert "the same table id answered from several addresses: someone may be impersonating the host" in text
    assert "join with" not in text  # no ready-made command for either: which one is the host is the question
    for pick in found:  # `p2php join` with no address, whichever of them fits, does not sit down by itself
        refusal = auto_pick_refusal(found, [pick])
        assert refusal is not None and "\n" not in refusal and "impersonating" in refusal
        assert "127.0.0.1:6666" in refusal and "127.0.0.1:7711" in refusal
    assert auto_pick_refusal(found, found) is not None  # both fit: still the one id


def test_only_this_machine_own_addresses_fold_into_one_table() -> None:
    """A local host heard on loopback and on the LAN is one table; another machine with its id and port is not."""
    def answer(address: str, port: int = 7711, table_id: bytes = b"tableid1") -> TableInfo:
        return TableInfo(address, port, "uno", {}, 4, 2, "hana", table_id=table_id)

    def local(address: str) -> bool:
        return address in ("127.0.0.1", "192.168.1.5")

    same_machine = Answers(is_local=local)
    for address in ("127.0.0.1", "192.168.1.5", "127.0.0.1", "192.168.1.5"):
        same_machine.add(answer(address))
    assert same_machine.tables() == [answer("192.168.1.5")]  # listed once, under the LAN address, not marked

    stolen = Answers(is_local=local)
    stolen.add(answer("127.0.0.1"))  # the host, on this machine
    stolen.add(answer("192.168.1.66"))  # another machine: same id, same port (it listens there too)
    stolen.add(answer("192.168.1.66", port=6666))
    stolen.add(answer("192.168.1.5"))  # the host again, on the LAN path
    assert [(t.address, t.port, t.contested) for t in stolen.tables()] == [
        ("192.168.1.5", 7711, True), ("192.168.1.66", 6666, True), ("192.168.1.66", 7711, True)]

    no_ids = Answers(is_local=local)  # answers without an id claim no identity: distinct, not contested
    no_ids.add(answer("10.0.0.1", table_id=b""))
    no_ids.add(answer("10.0.0.2", table_id=b""))
    assert [t.contested for t in no_ids.tables()] == [False, False]

    assert is_own_address("127.0.0.1") and is_own_address("127.0.0.2") and not is_own_address("198.51.100.7")
    assert not is_own_address("not an address") and not is_own_address("::ffff:198.51.100.7")


def test_answers_past_the_limit_are_counted_and_still_mark_a_stolen_id() -> None:
    """A flood must neither grow without bound nor push out the sign that the host's id was claimed twice."""
    answers = Answers(limit=3, is_local=lambda a: a.startswith("127."))
    real = TableInfo("10.0.0.5", 7711, "uno", {}, 4, 2, "hana", table_id=b"tableid1")
    answers.add(real)
    for i in range(2, 40):
        for _ in range(3):  # every query is sent three times: a table's repeated answers count once
            answers.add(replace(real, address=f"10.0.0.{i}", table_id=i.to_bytes(8, "big")))
    answers.add(replace(real, address="10.0.0.66"))  # the real id, from elsewhere, after the limit
    found = answers.tables()
    assert len(found) == 3 and found.ignored == 36 + 1  # tables 4 to 39, and the stolen id
    assert next(t for t in found if t.table_id == b"tableid1").contested
    assert "37 more answers ignored" in format_tables(found)[-1]


async def test_one_discover_keeps_and_prints_a_bounded_number_of_tables() -> None:
    """One query answered with hundreds of made-up tables: at most MAX_TABLES kept and listed, the rest counted."""
    flood = 200
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    await sock.bind(("127.0.0.1", 0))

    async def flooder() -> None:
        data, source = await sock.recvfrom(4 * ANSWER_MAX)
        nonce = parse_query(data)
        assert nonce is not None
        for i in range(flood):
            answer = make_answer(nonce, {**SUMMARY, "id": i.to_bytes(8, "big"), "host": f"h{i}"})
            assert answer is not None
            await sock.sendto(answer, source)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(flooder)
        found = await discover([sock.getsockname()], timeout=0.5, repeats=1)
        nursery.cancel_scope.cancel()
    sock.close()
    assert len(found) == MAX_TABLES and 0 < found.ignored <= flood - MAX_TABLES  # (loopback UDP may drop some)
    lines = format_tables(found)
    assert len(lines) <= 4 * MAX_TABLES + 2
    assert f"more answers ignored (at most {MAX_TABLES} are kept): someone may be flooding the network" in lines[-1]
    refusal = auto_pick_refusal(found, found[:1])  # the real table may be among those ignored
    assert refusal is not None and "flooding" in refusal


def test_the_listing_is_bounded_however_many_tables_it_is_given() -> None:
    tables = [TableInfo(f"10.0.{i // 250}.{i % 250}", 7711, "uno", {}, 4, 2, "hana", ["ann"] * 40,
                        i.to_bytes(8, "big")) for i in range(1000)]
    lines = format_tables(tables)
    assert len(lines) <= 4 * MAX_TABLES + 1 and lines[-1] == f"… and {1000 - MAX_TABLES} more tables not shown"


def test_join_picks_a_lone_clean_table_by_itself() -> None:
    """What stays as it was: one fitting table, heard from one place, nothing ignored (or several: join asks)."""
    one = TableInfo("10.0.0.5", 7711, "uno", {}, 4, 2, "hana", table_id=b"tableid1")
    other = replace(one, address="10.0.0.6", table_id=b"tableid2")
    assert auto_pick_refusal(Tables([one, other]), [one]) is None
    assert auto_pick_refusal([one, other], [one, other]) is None  # join lists them and asks to pick, as before
    assert auto_pick_refusal([], []) is None
    assert auto_pick_refusal(Tables([one], ignored=1), [one]) is not None


async def test_join_refuses_a_table_whose_id_answered_from_several_addresses(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`p2php join` with no address: one error line naming the places and exit 2, whichever of them fit."""
    import argparse

    from p2php.session import netplay

    real = TableInfo("10.0.0.5", 7711, "uno", {}, 4, 2, "hana", table_id=b"tableid1")
    args = argparse.Namespace(discover_timeout=0.1, to=["127.0.0.1"], discovery_port=7700, game="uno")
    for fake in (replace(real, address="10.0.0.66"), replace(real, address="10.0.0.66", taken=4)):  # fits, or not
        answers = Answers(is_local=lambda a: False)
        answers.add(fake)  # answered first
        answers.add(real)
        found = answers.tables()

        async def fake_discover(targets: Any, timeout: float, found: Tables = found) -> Tables:
            return found

        monkeypatch.setattr(netplay, "discover", fake_discover)
        assert await netplay.find_table(args, {}) == 2
        err = [line for line in capsys.readouterr().err.splitlines() if line]
        assert len(err) == 1 and "impersonating the host" in err[0], err
        assert "10.0.0.5:7711" in err[0] and "10.0.0.66:7711" in err[0]
