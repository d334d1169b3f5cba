"""LAN discovery: the datagrams (sans-IO) and a query/answer over loopback UDP (nothing leaves 127.0.0.1)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
import trio

from p2php import PROTOCOL_VERSION
from p2php.discovery import (
    ANSWER_MAX,
    QUERY_MIN,
    TableInfo,
    discover,
    format_tables,
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
