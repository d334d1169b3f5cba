"""The TCG as an engine game: options, secret decks and their audit check, card names, bots.

Options: ``deck0`` / ``deck1`` = ``hermione`` | ``draco`` (a Starter Set deck, §14.2; its starting
Character is public, the deck's cards are the owner's secret), ``format`` = ``starter`` (40 + 1) |
``constructed`` (60 + 1, §10); ``decklist0`` / ``decklist1`` = a deck in the plain-text
format (``decklist.py``), which replaces ``deckN`` when not empty (constructed play).  Each seat's
peer supplies its deck's instance ids (:meth:`TcgGame.private_decks`); at the audit
:meth:`TcgGame.check_private_deck` says why a list breaks the rules.  A deck with a card this
engine does not implement yet is refused with one line naming the card (:func:`deck_problem`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from p2php.bots import RandomBot
from p2php.engine.contract import Bot, CardId, Game, OptionError, OptionSpec, Seat
from p2php.games.tcg.bots import HeuristicBot
from p2php.games.tcg.decklist import STARTER_DECKS, DeckError, DeckList, parse_deck, starter_deck, validate
from p2php.games.tcg.effects import unimplemented
from p2php.games.tcg.ids import BLOCK, PLAYERS, card_of, counts_of, instance_ids, seat_of
from p2php.games.tcg.state import TcgState
from p2php.games.tcg.triggers import TRIGGERS
from p2php.games.tcg.turn import Match

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
        "deck0": OptionSpec("hermione", STARTER_DECKS, "seat 0's Starter Set deck"),
        "deck1": OptionSpec("draco", STARTER_DECKS, "seat 1's Starter Set deck"),
        "format": OptionSpec("starter", ("starter", "constructed"), "deck size: 40 + 1 (starter) or 60 + 1"),
        "decklist0": OptionSpec("", None, "seat 0's deck as deck-list text (replaces deck0)"),
        "decklist1": OptionSpec("", None, "seat 1's deck as deck-list text (replaces deck1)"),
    }
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic")

    def decks(self, options: Mapping[str, object]) -> tuple[DeckList, DeckList]:
        """Both seats' deck lists, checked (:class:`OptionError` with the one-line reason)."""
        opts = self.parse_options(dict(options))
        out = tuple(_deck(opts, s) for s in range(PLAYERS))
        for s, deck in enumerate(out):
            problem = deck_problem(deck, str(opts["format"]))
            if problem:
                raise OptionError(f"seat {s}'s deck: {problem}")
        return out[0], out[1]

    def new_state(self, players: int, options: Mapping[str, object]) -> TcgState:
        self.check_players(players)
        d0, d1 = self.decks(options)
        return TcgState(self.parse_options(dict(options)), (d0.character.number, d1.character.number),
                        (d0.size, d1.size), Match(), TRIGGERS)

    def private_pool(self, options: Mapping[str, object], owner: Seat, purpose: str) -> Sequence[CardId] | None:
        """The deck rules as a pool (a verified table proves the deck is drawn from it, protocol.md B.10).

        Starter play: exactly the ids of the starter deck the table names (a public list anyway). Constructed
        play: every instance id of the owner's block whose card this engine implements — four per card and 60
        per Lesson, so any 60 distinct ids of it respect the copy limits of §10.
        """
        if str(self.parse_options(dict(options))["format"]) == "starter":
            return instance_ids(owner, self.decks(options)[owner])
        return [owner * BLOCK + i for i in range(BLOCK) if not unimplemented(card_of(owner * BLOCK + i))]

    def private_decks(self, options: Mapping[str, object], seat: Seat) -> dict[str, list[CardId]]:
        """What ``seat``'s peer supplies as its secret deck list (``private_decks``)."""
        return {f"deck{seat}": instance_ids(seat, self.decks(options)[seat])}

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
        mine = self.decks(options)[owner]
        deck = DeckList(mine.character, tuple(counts_of(cards)), name=f"seat {owner}'s deck")
        fmt = str(self.parse_options(dict(options))["format"])
        problem = deck_problem(deck, fmt)
        if problem:
            return problem
        if len(cards) != mine.size:
            return f"seat {owner}'s deck has {len(cards)} cards, the table expects {mine.size}"
        return None

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        if kind == "random":
            return RandomBot(seed)
        if kind == "heuristic":
            return HeuristicBot()
        raise OptionError(f"tcg has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")


GAME = TcgGame()
"""The game object; the entry point ``p2php.games`` names it (not registered on import)."""
