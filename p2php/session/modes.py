"""Session options: what a table agrees on besides the game's own options (issue 10).

``crypto`` chooses the deck protocol, which the engine never sees:

* ``"fast"`` — the SRA deck of :mod:`p2php.crypto.deck` (protocol.md §7): passes are checked only at the audit,
  which releases every seat's deck secret;
* ``"verified"`` — the verified deck of :mod:`p2php.crypto.verified_deck` (protocol.md Appendix B.10): every key,
  pass and share proven when it is made, and an audit that releases no secret.

Wire rule (protocol.md §4.2, protocol v4): the hello's ``options`` map always holds ``crypto``, so parsing a
table's options again (the runner, resume, a spectator, a transcript) keeps its mode whatever the default is. A map
without the key reads as ``fast`` (the v3 deck). The mode is in the hellos, hence in the session id: seats that
disagree on it refuse each other's hello (``options``).

The default is ``verified`` wherever the group library is installed (the ``verified`` extra, which the README's
commands install), and ``fast`` on a bare install, which keeps LAN play on three runtime dependencies; the CLI
says which one a table deals with (:func:`crypto_notice`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from p2php.engine.contract import Game, OptionError, OptionSpec

__all__ = [
    "CRYPTO", "CRYPTO_MODES", "DEFAULT_CRYPTO", "FAST", "SESSION_OPTIONS", "VERIFIED", "crypto_mode", "crypto_notice",
    "game_options", "parse_table_options",
]

CRYPTO: Final = "crypto"
FAST: Final = "fast"
VERIFIED: Final = "verified"
CRYPTO_MODES: Final = (VERIFIED, FAST)



def _default() -> str:
    from p2php.crypto import secp256k1

    return VERIFIED if secp256k1.available() else FAST


DEFAULT_CRYPTO: str = _default()
"""The mode of a table that does not ask for one: ``verified`` when coincurve is installed, else ``fast``. Read
at each parse, so the testing kit can run a suite in the other mode (``P2PHP_TEST_CRYPTO``, its pytest plugin)."""

SESSION_OPTIONS: Final[Mapping[str, OptionSpec]] = {
    CRYPTO: OptionSpec(DEFAULT_CRYPTO, CRYPTO_MODES,
                       "deck protocol: verified (every step proven, private audit) or fast (SRA, audit reveals all)"),
}
"""Options of the session itself, accepted next to every game's own options."""


def parse_table_options(game: Game, raw: Mapping[str, object]) -> dict[str, str | int | bool]:
    """A table's options in wire form: ``game``'s options checked and filled in, plus the session options.

    ``crypto`` is always in the result (the wire rule above), taken from ``raw`` or the default. Raises
    :class:`~p2php.engine.contract.OptionError` for a bad value, and for a game that itself defines a session
    option's name (the two would be indistinguishable on the wire).
    """
    clash = sorted(set(SESSION_OPTIONS) & set(game.options))
    if clash:
        raise OptionError(f"{game.name} defines option(s) {', '.join(clash)}, reserved for the session")
    own = {k: v for k, v in raw.items() if k not in SESSION_OPTIONS}
    out = game.parse_options(own)
    mode = SESSION_OPTIONS[CRYPTO].parse(CRYPTO, raw[CRYPTO]) if CRYPTO in raw else DEFAULT_CRYPTO
    if mode == VERIFIED:
        from p2php.crypto import secp256k1  # only a verified table needs the extra

        if not secp256k1.available():  # refuse here, before a table forms, not at its first shuffle
            raise OptionError(f"crypto=verified: {secp256k1.unavailable_reason()}")
    out[CRYPTO] = mode
    return out


def game_options(options: Mapping[str, object]) -> dict[str, object]:
    """``options`` without the session's own: what the engine, the bots and the replay see."""
    return {k: v for k, v in options.items() if k not in SESSION_OPTIONS}


def crypto_notice(options: Mapping[str, object]) -> str:
    """One line for a player: how this table deals, and how to get verified dealing where it is not."""
    if crypto_mode(options) == VERIFIED:
        return "dealing: verified (every shuffle and reveal proven as it is made; the audit reveals no unplayed card)"
    hint = "" if _default() == VERIFIED else "; pip install 'p2php[verified]' for verified dealing"
    return f"dealing: fast (SRA: shuffles checked at the audit, which reveals every card){hint}"


def crypto_mode(options: Mapping[str, object]) -> str:
    """The deck protocol of a table's (wire-form) options: ``"verified"`` or ``"fast"`` (the key absent)."""
    mode = options.get(CRYPTO, FAST)
    if mode not in CRYPTO_MODES:
        raise OptionError(f"option crypto must be one of {', '.join(CRYPTO_MODES)}, not {str(mode)[:20]!r}")
    return str(mode)
