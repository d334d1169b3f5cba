"""Invite codes and seat locators (protocol.md §3.7), and the online lobby's checks: pure, no libp2p needed."""

from __future__ import annotations

import base64
import hashlib

import pytest

from p2php.canonical import encode
from p2php.engine.registry import get_game
from p2php.errors import RefusalCode
from p2php.lobby import PROTOCOL_VERSION, Refusal, Table
from p2php.net.invite import Invite, InviteError, Locator, looks_like_invite, parse_invite, parse_locator

PEER = "12D3KooWAg32d38pkErNFDRWQtUqRgCVtY5u73w46rzxmu8RxNDs"
OTHER = "12D3KooWCAxWYiKdcAy81dqjefUESUAbCUAUKE9SiXscDSv3ZeKs"
RELAY = f"/ip4/203.0.113.7/tcp/4001/p2p/{OTHER}"
INVITE = Invite(PEER, ("/ip4/192.168.1.20/tcp/40123",), (RELAY,), bytes(range(8)), "uno", 4, {"rounds": 1})


def _code(fields: dict[str, object]) -> str:
    """A code with a valid checksum around any content: what a hostile inviter could send."""
    body = encode(fields)
    return "p2php-" + base64.urlsafe_b64encode(body + hashlib.sha256(body).digest()[:4]).decode().rstrip("=")


def test_an_invite_reads_back_as_it_was_written_and_survives_a_wrapped_paste() -> None:
    code = INVITE.code()
    assert looks_like_invite(code) and len(code) < 400
    assert parse_invite(code) == INVITE
    wrapped = "  " + code[:50] + "\n" + code[50:120] + " \n" + code[120:] + "\n"
    assert parse_invite(wrapped) == INVITE
    assert INVITE.circuits() == [f"{RELAY}/p2p-circuit/p2p/{PEER}"]


@pytest.mark.parametrize(("mangle", "reason"), [
    (lambda c: c[:-5], "cut short or mistyped"),
    (lambda c: c[:40] + ("A" if c[40] != "A" else "B") + c[41:], "checksum does not match"),
    (lambda c: c.replace("p2php-", "p2php:"), "starts with 'p2php-'"),
    (lambda c: c + "!", "not base64url"),
    (lambda c: "p2php-" + "A" * 5000, "at most 4096"),
    (lambda c: "p2php-", "cut short or mistyped"),
    # a checksum alone, and the right one for nothing: still cut short, not a content to read
    (lambda c: "p2php-" + base64.urlsafe_b64encode(hashlib.sha256(b"").digest()[:4]).decode().rstrip("="),
     "cut short or mistyped"),
])
def test_a_mistyped_or_cut_code_is_refused_in_one_line(mangle: object, reason: str) -> None:
    with pytest.raises(InviteError, match=reason) as err:
        parse_invite(mangle(INVITE.code()))  # type: ignore[operator]
    assert "\n" not in str(err.value)


GOOD = {"v": 1, "peer": PEER, "addrs": [], "relays": [RELAY], "table": bytes(8), "game": "uno", "players": 2,
        "options": {}}


@pytest.mark.parametrize(("change", "reason"), [
    ({"v": 2}, "format v2"),
    ({"peer": "not a peer id"}, "no valid libp2p peer id"),
    ({"peer": "0" * 40}, "no valid libp2p peer id"),
    ({"relays": []}, "nowhere to reach the host"),
    ({"relays": [RELAY + "/p2p-circuit"]}, "relay's own address"),
    ({"relays": ["/ip4/1.2.3.4/tcp/1"]}, "relay's own address"),
    ({"addrs": ["/ip4/1.2.3.4/tcp/1 ; rm -rf /"]}, "not a list of multiaddrs"),
    ({"addrs": ["x" * 10]}, "not a list of multiaddrs"),
    ({"addrs": "/ip4/1.2.3.4/tcp/1"}, "not a list of multiaddrs"),
    ({"table": b"short"}, "table id is not 8 bytes"),
    ({"game": "UNO\x1b[31m"}, "no valid game"),
    ({"players": True}, "player count"),
    ({"players": 10_000}, "player count"),
    ({"players": 65}, "player count"),
    ({"players": 0}, "player count"),
    ({"options": {"Bad Key": 1}}, "map of option names"),
    ({"options": {"deck": [1, 2]}}, "option value"),
])
def test_a_hostile_code_with_a_good_checksum_is_refused_field_by_field(change: dict[str, object],
                                                                        reason: str) -> None:
    with pytest.raises(InviteError, match=reason):
        parse_invite(_code({**GOOD, **change}))


def test_a_code_at_the_bounds_of_its_fields_reads_back() -> None:
    for players in (1, 64):
        assert parse_invite(_code({**GOOD, "players": players})).players == players


def test_a_code_whose_content_is_not_a_map_or_too_big_is_refused() -> None:
    with pytest.raises(InviteError, match="not a p2php invite"):
        parse_invite(_code([1, 2, 3]))  # type: ignore[arg-type]
    with pytest.raises(InviteError, match="not a p2php invite"):
        parse_invite(_code({**GOOD, "addrs": ["/ip4/1.2.3.4/tcp/1"] * 20}))


def test_a_locator_names_one_peer_its_direct_addresses_and_its_relays() -> None:
    where = Locator(PEER, ("/ip4/10.0.0.2/tcp/5000", "/ip4/127.0.0.1/tcp/5000"), (RELAY,))
    assert parse_locator(where.text()) == where
    assert where.text().split(" ")[2] == f"{RELAY}/p2p-circuit/p2p/{PEER}"
    relayed_only = Locator(PEER, (), (RELAY,))  # a seat that listens nowhere: one circuit address
    assert parse_locator(relayed_only.text()) == relayed_only
    widest = Locator(PEER, tuple(f"/ip4/10.0.0.{i}/tcp/5000" for i in range(8)), ())
    assert parse_locator(widest.text()) == widest


@pytest.mark.parametrize(("text", "reason"), [
    ("", "1 to 8 multiaddrs"),
    (f"/ip4/1.2.3.4/tcp/1/p2p/{PEER}  /ip4/1.2.3.4/tcp/2/p2p/{PEER}", "single spaces"),
    ("/ip4/1.2.3.4/tcp/1", "ends /p2p/PEER_ID"),
    (f"/ip4/1.2.3.4/tcp/1/p2p/{PEER} /ip4/1.2.3.4/tcp/2/p2p/{OTHER}", "different peers"),
    (f"/ip4/1.2.3.4/tcp/1/p2p-circuit/p2p/{PEER}", "RELAY/p2p/RELAY_ID/p2p-circuit"),
    (f"/ip4/1.2.3.4/tcp/1/p2p/{OTHER}/p2p/{PEER}", "names one peer only"),
    (" ".join([f"/ip4/1.2.3.4/tcp/{i}/p2p/{PEER}" for i in range(9)]), "1 to 8 multiaddrs"),
    ("x" * 3000, "at most 2048"),
])
def test_a_bad_locator_is_refused(text: str, reason: str) -> None:
    with pytest.raises(InviteError, match=reason):
        parse_locator(text)


def _join(addr: object) -> dict[str, object]:
    frame: dict[str, object] = {"lobby": "join", "v": PROTOCOL_VERSION, "name": "ann", "port": 4242}
    if addr is not None:
        frame["addr"] = addr
    return frame


def test_an_online_table_seats_a_joiner_where_its_locator_says_and_refuses_one_without() -> None:
    table = Table(get_game("uno"), {}, 2, "host", online=True)
    mine = Locator(OTHER, ("/ip4/127.0.0.1/tcp/5000",), ()).text()
    table.seat_local("host", "host", 5000, ready=True, addr=mine)
    for bad in (None, 42, "/ip4/1.2.3.4/tcp/1", "/ip4/1.2.3.4/tcp/1/p2p/" + PEER + "\x1b[2J"):
        with pytest.raises(Refusal) as refused:
            table.join(1, _join(bad), None)
        assert refused.value.code == RefusalCode.MALFORMED and "addr" in refused.value.reason
    theirs = Locator(PEER, (), (RELAY,)).text()
    assert table.join(1, _join(theirs), "10.9.9.9") == 1  # the connection's address is not what counts
    table.set_ready(1)
    assert table.start()["addresses"] == [[mine, 5000], [theirs, 4242]]


def test_a_lan_table_ignores_an_addr_and_uses_the_connections_ip() -> None:
    table = Table(get_game("uno"), {}, 2, "host")
    table.seat_local("host", "host", 5000, ready=True)
    table.join(1, _join("/ip4/6.6.6.6/tcp/1/p2p/" + PEER), "192.168.1.30")
    assert table.addresses()[1] == ("192.168.1.30", 4242)
