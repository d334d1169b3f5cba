"""The TCG as an engine game: options, secret decks and their audit check, card names, bots.

Options: ``deck0`` / ``deck1`` = ``hermione`` | ``draco`` (a Starter Set deck, §14.2; its starting
Character is public, the deck's cards are the owner's secret) | ``own`` (the seat brings its own deck:
its list never leaves its peer — ``p2php demo/play tcg --deck FILE``, :meth:`TcgGame.read_private_deck` —
and ``character0`` / ``character1`` names its starting Character, which is public anyway), ``format`` =
``starter`` (40 + 1) | ``constructed`` (60 + 1, §10); ``decklist0`` / ``decklist1`` = a deck in the
plain-text format (``decklist.py``) *in the options*, hence public to every seat: for tests and demos
whose lists are no secret, replacing ``deckN`` when not empty.  Each seat's
peer supplies its deck's instance ids (:meth:`TcgGame.private_decks`); at the audit
:meth:`TcgGame.check_private_deck` says why a list breaks the rules.  A deck with a card this
engine does not implement yet is refused with one line naming the card (:func:`deck_problem`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from p2php.bots import RandomBot
from p2php.engine.contract import Bot, CardId, Game, OptionError, OptionSpec, Seat
from p2php.games.tcg.bots import HeuristicBot
from p2php.games.tcg.cards import card_by_name, card_by_number
from p2php.games.tcg.decklist import STARTER_DECKS, DeckError, DeckList, parse_deck, starter_deck, validate
from p2php.games.tcg.effects import unimplemented
from p2php.games.tcg.ids import (
    BLOCK,
    PLAYERS,
    card_of,
    counts_of,
    first_version,
    instance_ids,
    own_deck_ids,
    redrawn_copies,
    seat_of,
)
from p2php.games.tcg.state import TcgState
from p2php.games.tcg.triggers import TRIGGERS
from p2php.games.tcg.turn import Match
from p2php.games.tcg.view import table_lines
from p2php.text import quote

__all__ = ["GAME", "TcgGame", "deck_problem"]


def deck_problem(deck: DeckList, format: str) -> str | None:
    """Why ``deck`` cannot be played at a ``format`` table (deck-building, an unimplemented card), or None."""
    try:
        validate(deck, format="starter" if format == "starter" else "constructed")
    except DeckError as err:
        return str(err)
    for card in (deck.character, *(c for c, _ in deck.entries)):
        if unimplemented(card):
            return f"{deck.name}: {card.name} (Base {card.number}) is not implemented in this engine yet"
    return None


OWN = "own"
"""``deckN=own``: the seat brings its own deck (its list stays on its peer)."""


def _size(opts: Mapping[str, object]) -> int:
    return 40 if str(opts["format"]) == "starter" else 60


def _deck(opts: Mapping[str, object], seat: int) -> DeckList:
    text = str(opts.get(f"decklist{seat}", ""))
    if not text:
        return starter_deck(str(opts[f"deck{seat}"]))
    try:
        return parse_deck(text, name=f"decklist{seat}")
    except DeckError as err:
        raise OptionError(f"seat {seat}'s deck: {err}") from None


class TcgGame(Game):
    """Harry Potter Trading Card Game, Base Set, two players."""

    name: ClassVar[str] = "tcg"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "deck0": OptionSpec("hermione", (*STARTER_DECKS, OWN), "seat 0's Starter Set deck, or own (a secret list)"),
        "deck1": OptionSpec("draco", (*STARTER_DECKS, OWN), "seat 1's Starter Set deck, or own (a secret list)"),
        "format": OptionSpec("starter", ("starter", "constructed"), "deck size: 40 + 1 (starter) or 60 + 1"),
        "decklist0": OptionSpec("", None, "seat 0's deck as deck-list text, public to every seat (replaces deck0)"),
        "decklist1": OptionSpec("", None, "seat 1's deck as deck-list text, public to every seat (replaces deck1)"),
        "character0": OptionSpec("", None, "seat 0's starting Character when it brings its own deck (deck0=own)"),
        "character1": OptionSpec("", None, "seat 1's starting Character when it brings its own deck (deck1=own)"),
    }
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic")

    def _own(self, opts: Mapping[str, object], seat: int) -> bool:
        own = str(opts[f"deck{seat}"]) == OWN and not opts.get(f"decklist{seat}")
        if own and not opts.get(f"character{seat}"):
            raise OptionError(f"deck{seat}=own needs character{seat}=NAME (the starting Character is public)")
        return own

    def deck_of(self, options: Mapping[str, object], seat: int) -> DeckList | None:
        """``seat``'s deck list as the options give it, checked; ``None`` when the seat brings its own."""
        opts = self.parse_options(dict(options))
        if self._own(opts, seat):
            return None
        deck = _deck(opts, seat)
        problem = deck_problem(deck, str(opts["format"]))
        if problem:
            raise OptionError(f"seat {seat}'s deck: {problem}")
        return deck

    def decks(self, options: Mapping[str, object]) -> tuple[DeckList, DeckList]:
        """Both seats' deck lists, checked (:class:`OptionError` with the one-line reason); neither may be own."""
        out = [self.deck_of(options, s) for s in range(PLAYERS)]
        if out[0] is None or out[1] is None:
            raise OptionError("a seat brings its own deck: only its own peer knows the list")
        return out[0], out[1]

    def _public(self, opts: Mapping[str, object], seat: int) -> tuple[int, int]:
        """What every seat knows of ``seat``'s deck: its starting Character's number and the deck's size."""
        if self._own(opts, seat):
            name = str(opts[f"character{seat}"])
            try:
                character = card_by_name(name)
            except Exception:
                # The lobby blames the seats a problem names ("seat N"), and the name is the joiner's own text, which
                # may say "seat 0": the message names its own seat first, so that seat is always among them.
                raise OptionError(f"seat {seat}'s character{seat}: no Base Set card is named "
                                  f"{quote(name, 40)}") from None
            if not character.can_start or unimplemented(character):
                raise OptionError(f"seat {seat}'s character{seat}: {character.name} cannot be a starting Character "
                                  "here")
            return character.number, _size(opts)
        deck = self.deck_of(opts, seat)
        assert deck is not None
        return deck.character.number, deck.size

    def new_state(self, players: int, options: Mapping[str, object]) -> TcgState:
        self.check_players(players)
        opts = self.parse_options(dict(options))
        (c0, n0), (c1, n1) = self._public(opts, 0), self._public(opts, 1)
        return TcgState(opts, (c0, c1), (n0, n1), Match(), TRIGGERS)

    def read_private_deck(
        self, text: str, seat: Seat, options: Mapping[str, object]
    ) -> tuple[dict[str, list[CardId]], dict[str, str]]:
        """A player's deck file: its instance ids (secret, on its peer) and the public options it implies."""
        try:
            deck = parse_deck(text, name=f"seat {seat}'s deck")
        except DeckError as err:
            raise OptionError(str(err)) from None
        fmt = "starter" if deck.size == 40 else "constructed"
        wanted = str(options.get("format", fmt))
        problem = deck_problem(deck, wanted)
        if problem:
            raise OptionError(problem)
        return ({f"deck{seat}": own_deck_ids(seat, deck)},
                {f"deck{seat}": OWN, f"character{seat}": deck.character.name, "format": wanted})

    def private_decks_again(self, decks: Mapping[str, list[CardId]], options: Mapping[str, object],
                            seat: Seat) -> dict[str, list[CardId]]:
        """A rematch deals a seat's own deck with fresh copy numbers (§7.8): the ended game opened some of them."""
        again = {purpose: list(cards) for purpose, cards in decks.items()}
        purpose = f"deck{seat}"
        if purpose in again and str(options.get(purpose)) == OWN and not options.get(f"decklist{seat}"):
            again[purpose] = redrawn_copies(seat, again[purpose])
        return again

    def seat_options(self, seat: Seat) -> frozenset[str]:
        """A seat's deck and starting Character: what a joiner who brings its own deck sets in the lobby."""
        return frozenset({f"deck{seat}", f"character{seat}"})

    def private_pool(self, options: Mapping[str, object], owner: Seat, purpose: str) -> Sequence[CardId] | None:
        """The deck rules as a pool (a verified table proves the deck is drawn from it, protocol.md B.10).

        A deck the table names (a starter deck, or a ``decklistN``): exactly its ids, a public list anyway —
        any other would let its seat play a deck nobody agreed to. A seat's own deck: every instance id of the
        owner's block whose card this engine implements, of each card's first version only (:func:`first_version`)
        — four per name and 60 per Lesson, so any 60 distinct ids of it respect the copy limits of §10 (with
        both versions of Draco Malfoy in it, eight Dracos would have been drawn from it).
        """
        opts = self.parse_options(dict(options))
        deck = None if self._own(opts, owner) else self.deck_of(opts, owner)
        if deck is not None:
            return instance_ids(owner, deck)
        return [owner * BLOCK + i for i in range(BLOCK)
                if not unimplemented(card := card_of(owner * BLOCK + i)) and first_version(card.number) == card.number]

    def private_decks(self, options: Mapping[str, object], seat: Seat) -> dict[str, list[CardId]]:
        """What ``seat``'s peer supplies as its secret deck list by default (none for a seat's own deck)."""
        deck = self.deck_of(options, seat)
        return {} if deck is None else {f"deck{seat}": instance_ids(seat, deck)}

    def table_lines(self, observation: Mapping[str, Any], seat: Seat, names: Sequence[str]) -> list[str] | None:
        return table_lines(observation, seat, list(names))

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        return card_of(card).name

    def universe_size(self, options: Mapping[str, object]) -> int:
        return PLAYERS * BLOCK

    def check_private_deck(
        self, options: Mapping[str, object], owner: Seat, purpose: str, cards: Sequence[CardId]
    ) -> str | None:
        if purpose != f"deck{owner}":
            return f"seat {owner} has no secret deck {purpose!r}"
        if len(set(cards)) != len(cards):
            return f"seat {owner}'s deck lists a card instance twice"
        outside = [c for c in cards if not 0 <= c < PLAYERS * BLOCK or seat_of(c) != owner]
        if outside:
            return f"seat {owner}'s deck holds card ids outside its block: {sorted(outside)[:5]}"
        opts = self.parse_options(dict(options))
        named = None if self._own(opts, owner) else self.deck_of(opts, owner)
        if named is not None and sorted(cards) != instance_ids(owner, named):
            return f"seat {owner}'s deck is not the list the table names for it"
        later = [] if named is not None else sorted(
            {card.label for card in map(card_of, cards) if first_version(card.number) != card.number})
        if later:  # (what an honest peer's own deck never holds: it lists each name by its first version)
            return f"seat {owner}'s own deck lists a card by a later version, not its first: {', '.join(later[:3])}"
        number, size = self._public(opts, owner)
        deck = DeckList(card_by_number(number), tuple(counts_of(cards)), name=f"seat {owner}'s deck")
        problem = deck_problem(deck, str(opts["format"]))
        if problem:
            return problem
        if len(cards) != size:
            return f"seat {owner}'s deck has {len(cards)} cards, the table expects {size}"
        return None

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        if kind == "random":
            return RandomBot(seed)
        if kind == "heuristic":
            return HeuristicBot()
        raise OptionError(f"tcg has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")


GAME = TcgGame()
"""The game object; the entry point ``p2php.games`` names it (not registered on import)."""
