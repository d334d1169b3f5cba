"""The ``crypto`` session option (issue 10): parsed beside the game's options, in the hellos and so in the session
id, never seen by the engine; always explicit on the wire (protocol v4), verified by default where coincurve is."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from p2php.canonical import encode
from p2php.engine.contract import OptionError
from p2php.engine.registry import get_game
from p2php.errors import RefusalCode
from p2php.session.handshake import HandshakeRefused, Table, check_hello, make_hello
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, seeded_secrets
from p2php.session.modes import (
    CRYPTO_MODES,
    DEFAULT_CRYPTO,
    crypto_mode,
    game_options,
    parse_table_options,
)
from p2php.session.netplay import table_fits


def test_the_modes_and_the_default() -> None:
    from p2php.crypto import secp256k1
    from p2php.session import modes

    assert CRYPTO_MODES == ("verified", "fast")
    assert modes._default() == ("verified" if secp256k1.available() else "fast")
    assert DEFAULT_CRYPTO in CRYPTO_MODES  # the library's, or P2PHP_TEST_CRYPTO's (p2php.testing.plugin)


def test_the_mode_is_always_explicit_on_the_wire_and_parsing_again_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php.session import modes

    uno = get_game("uno")
    plain = uno.parse_options({"deck": "hat"})
    fast = parse_table_options(uno, {"deck": "hat", "crypto": "fast"})
    verified = parse_table_options(uno, {"deck": "hat", "crypto": "verified"})
    assert fast == {**plain, "crypto": "fast"} and verified == {**plain, "crypto": "verified"}
    assert parse_table_options(uno, {"deck": "hat"})["crypto"] == DEFAULT_CRYPTO
    for default in ("fast", "verified"):  # the runner, resume and transcripts parse a table's options again
        monkeypatch.setattr(modes, "DEFAULT_CRYPTO", default)
        assert parse_table_options(uno, fast) == fast and parse_table_options(uno, verified) == verified
    assert crypto_mode(plain) == "fast"  # a map without the key (an engine-only caller) is the fast deck
    assert crypto_mode(fast) == "fast" and crypto_mode(verified) == "verified"
    assert game_options(verified) == plain == game_options(fast)


@pytest.mark.parametrize("raw", ["secure", 1, True, ""])
def test_a_bad_mode_is_an_option_error(raw: object) -> None:
    with pytest.raises(OptionError, match="crypto"):
        parse_table_options(get_game("uno"), {"crypto": raw})
    with pytest.raises(OptionError, match="crypto"):
        crypto_mode({"crypto": raw})


def test_game_options_are_still_checked() -> None:
    with pytest.raises(OptionError, match="unknown option"):
        parse_table_options(get_game("uno"), {"crypto": "fast", "colour": "red"})


def _table(options: dict[str, object]) -> Table:
    game = get_game("toy")
    opts = parse_table_options(game, options)
    hellos = [make_hello(seeded_secrets(1, s), s, 2, game.name, opts, f"p{s}") for s in range(2)]
    return Table(game.name, opts, tuple(hellos))


def test_the_mode_is_in_the_session_id() -> None:
    assert _table({"crypto": "fast"}).session_id != _table({"crypto": "verified"}).session_id
    assert _table({}).session_id == _table({"crypto": DEFAULT_CRYPTO}).session_id


def test_seats_that_disagree_on_the_mode_refuse_each_others_hello() -> None:
    game = get_game("toy")
    fast, verified = parse_table_options(game, {"crypto": "fast"}), parse_table_options(game, {"crypto": "verified"})
    hello = make_hello(seeded_secrets(1, 1), 1, 2, game.name, verified, "p1")
    with pytest.raises(HandshakeRefused) as err:
        check_hello(hello, seat=1, players=2, game=game.name, options=fast)
    assert err.value.code == RefusalCode.OPTIONS
    assert encode(check_hello(hello, seat=1, players=2, game=game.name, options=verified)) == encode(hello)


def test_the_engine_never_sees_the_mode() -> None:
    for mode in CRYPTO_MODES:
        peers = make_peers("toy", 2, {"crypto": mode}, seed=3)
        assert all(ls.crypto == mode and "crypto" not in ls.options for ls in peers)


def test_a_verified_lockstep_has_the_verified_deck_and_the_engine_never_sees_it() -> None:
    table = _table({"crypto": "verified"})
    ls = Lockstep(get_game("toy"), table, 0, seeded_secrets(1, 0))
    assert ls.crypto == "verified" and ls.vdeck is not None and "crypto" not in ls.options
    assert make_peers("toy", 2, {"crypto": "fast"}, seed=3)[0].vdeck is None


def test_a_join_may_ask_for_a_mode() -> None:
    from p2php.discovery import TableInfo

    def info(options: Mapping[str, object]) -> TableInfo:
        return TableInfo("127.0.0.1", 1, "toy", dict(options), 2, 1, "host")

    fast, verified = info(parse_table_options(get_game("toy"), {"crypto": "fast"})), info({"crypto": "verified"})
    assert table_fits(fast, "toy", {}) and table_fits(verified, "toy", {})
    assert table_fits(fast, "toy", {"crypto": "fast"}) and not table_fits(fast, "toy", {"crypto": "verified"})
    assert table_fits(verified, "toy", {"crypto": "verified"}) and not table_fits(verified, "toy", {"crypto": "fast"})
    assert not table_fits(fast, "toy", {"crypto": "nonsense"})


def test_a_verified_table_without_coincurve_is_refused_before_it_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php.crypto import secp256k1
    from p2php.engine.contract import OptionError
    from p2php.engine.registry import get_game
    from p2php.session.modes import parse_table_options

    monkeypatch.setattr(secp256k1, "_coincurve", None)
    with pytest.raises(OptionError, match=r"pip install 'p2php\[verified\]'"):
        parse_table_options(get_game("uno"), {"crypto": "verified"})
    assert parse_table_options(get_game("uno"), {"crypto": "fast"})["crypto"] == "fast"  # fast needs nothing


def test_a_bare_install_deals_fast_and_says_how_to_get_verified_dealing(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php.crypto import secp256k1
    from p2php.session import modes

    monkeypatch.setattr(secp256k1, "_coincurve", None)
    assert modes._default() == "fast"
    assert "pip install 'p2php[verified]'" in modes.crypto_notice({"crypto": "fast"})
    assert modes.crypto_notice({"crypto": "verified"}).startswith("dealing: verified")
