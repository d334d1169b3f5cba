"""A player's own deck file (a trading-card deck): read on the player's machine, kept on the player's peer.

The game turns the file's text into its secret lists (``PeerConfig.private_decks``, never sent) and the public
options it implies (``Game.read_private_deck``): a seat's starting Character, "this seat brings its own deck". The
CLI's ``demo``, ``play``, ``host`` and ``join`` read deck files through here, so every one of them bounds the file
and says what is wrong in one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from p2php.engine.contract import Game, OptionError
from p2php.session.modes import game_options, parse_table_options
from p2php.text import safe, seats_named

__all__ = ["MAX_DECK_FILE", "check_implied", "read_deck_text", "read_own_decks", "table_setup"]

MAX_DECK_FILE = 64 * 1024
"""A deck file is a short text (a few dozen lines); anything larger is refused before it is parsed."""


def read_own_decks(game: Game, files: Sequence[tuple[int, str | None]],
               raw: dict[str, str]) -> dict[int, dict[str, list[int]]]:
    """Each ``(seat, FILE)``'s own deck: its secret lists (kept on this machine) and the options it implies.

    The implied options (a seat's starting Character, "brings its own deck") are added to ``raw``, the table's
    public options; an explicit ``--option`` that says otherwise is an error rather than silently overridden.
    """
    out: dict[int, dict[str, list[int]]] = {}
    for seat, name in files:
        if name is None:
            continue
        lists, implied = game.read_private_deck(read_deck_text(name), seat, raw)
        for key, value in implied.items():
            if key in raw and raw[key] != value:
                raise OptionError(f"--deck {safe(name, 80)} needs {key}={value}, but --option says {key}={raw[key]}")
            raw[key] = value
        out[seat] = lists
    return out




def table_setup(game: Game, players: int, raw: dict[str, str], decks: Sequence[tuple[int, str | None]],
                joiners: Sequence[int] = ()) -> tuple[dict[str, str | int | bool], dict[int, dict[str, list[int]]]]:
    """A table's wire-form options and this machine's own decks, from ``--option`` pairs and ``--deck`` files.

    The options are also tried on a fresh engine state, so options that only clash together (a starter deck at a
    constructed table) are one line now rather than a failure at every peer once the table has formed; except
    where the clash names a seat in ``joiners`` that has options of its own (``Game.seat_options``): a lobby's
    joiner fixes that when it brings its deck, and the lobby starts no table that makes no game.
    """
    own = read_own_decks(game, decks, raw)
    options = parse_table_options(game, raw)
    try:
        game.new_state(players, game_options(options))
    except OptionError as err:
        if not any(game.seat_options(s) for s in seats_named(str(err), joiners)):
            raise
    return options, own


def read_deck_text(name: str) -> str:
    """The text of the deck file ``name``, bounded and decoded (:class:`OptionError` in one line otherwise)."""
    try:
        with Path(name).open("rb") as handle:
            data = handle.read(MAX_DECK_FILE + 1)
    except OSError as err:
        raise OptionError(f"--deck {safe(name, 80)}: cannot read it ({err.strerror or err})") from None
    if len(data) > MAX_DECK_FILE:
        raise OptionError(f"--deck {safe(name, 80)}: larger than {MAX_DECK_FILE // 1024} KiB, not a deck list")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise OptionError(f"--deck {safe(name, 80)}: not UTF-8 text") from None


def check_implied(game: Game, name: str, seat: int, options: Mapping[str, object]) -> dict[str, list[int]]:
    """A joiner's deck for ``seat`` at a table whose options are fixed: its lists, if the table fits the deck.

    The table must say what the deck implies: the joiner's ``deck`` frame sets it in the lobby (protocol.md §3.3),
    or the host opened the table with, say, ``--option deck1=own --option character1="Harry Potter"``.
    """
    lists, implied = game.read_private_deck(read_deck_text(name), seat, {})  # the deck's own format, then compare
    wrong = [f"{k}={v}" for k, v in implied.items() if str(options.get(k)) != v]
    if wrong:
        raise OptionError(f"--deck {safe(name, 80)} needs the table's options {' '.join(wrong)} for seat {seat}")
    return lists
