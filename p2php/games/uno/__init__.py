"""UNO — Harry Potter edition (rulebook: shared/rules/uno.md; project decisions: uno-data.md).

Options: ``deck`` = base (108) | hat (+4 Sorting Hat) | voldemort (+4 Voldemort) |
magic (+Howler, Invisibility, Moody, Resurrection Stone) | all (120);
``stacking`` = off | on; ``scoring`` = positive | negative; ``target`` (500);
``voldemort_faces`` = "1,5,0" | "1,2,3"; ``rounds`` (0: play to the target;
N > 0: exactly N rounds, best total wins).  2–10 players.

Actions (plain dicts):

* ``{"type": "play", "slot", "colour"?, "target"?, "dump"?, "uno"?}`` — play a card
  (on one's turn, the card just drawn, or a stacked Draw Two).  ``colour`` for
  colourless cards; ``target`` (another seat) for Sorting Hat and Howler, optional
  for Moody (absent: a plain Wild); ``dump`` (list of slots, required, maybe empty)
  for Voldemort; ``uno: true`` declares UNO.
* ``{"type": "draw"}``, ``{"type": "keep"}`` — draw on one's turn; keep the drawn card.
* ``{"type": "invisibility", "slot", "colour", "uno"?}`` — cancel a card played at you.
* ``{"type": "stone", "slot", "colour", "uno"?}`` — Resurrection Stone when someone went out.
* ``{"type": "accept"}``, ``{"type": "challenge"}`` — take a card's effect / challenge a Wild Draw Four.
* ``{"type": "verdict", "legal": bool}`` — the challenged player's (checked) admission.
* ``{"type": "sorted"}`` (opens the drawn card) / ``{"type": "not_yet"}`` — Sorting Hat draws.
* ``{"type": "catch"}`` / ``{"type": "pass"}`` — catch window; ``pass`` also answers the Stone window.
* ``{"type": "uno"}`` / ``{"type": "pass"}`` — UNO call after being brought back by the Stone.
* ``{"type": "colour", "colour"}`` — colour for a wild-type first card.

Bots: ``random`` (uniform over legal actions), ``heuristic`` (see
:class:`~p2php.games.uno.bots.HeuristicBot`) and ``eager`` (random, but plays
whenever it can, like RLCard's UNO; for benchmarks: a uniformly random player
draws at will and keeps what it draws, so its rounds are ~20 times longer).
:mod:`p2php.testing.uno` builds stacked-deck tables for rule tests.

Decide prompts: ``first_colour``, ``turn``, ``drawn``, ``catch`` (all other seats),
``respond:skip``, ``respond:draw_two``, ``respond:wild_draw_four``,
``respond:sorting_hat``, ``respond:moody``, ``respond:howler``, ``verdict``,
``sorting``, ``stone`` (all other seats), ``stone_uno``.

Decisions where the rulebook is silent or ambiguous (besides those of uno-data.md):

1. Seats sit in a circle; the left neighbour of seat ``s`` is ``s + 1``.  Play starts
   left of the dealer and goes left until a Reverse.
2. Only the five named decks exist (reading (a) of uno.md §3).  The +2 becomes +3 in
   ``magic`` and ``all`` (both Howler and Invisibility in the deck); it is still the
   "draw two" symbol and scores 20.  All Harry Potter cards are colourless and, like
   the Wild, playable on any card (with or without other playable cards).
3. Dealer: each seat turns up one card of a *cut deck*, in seat order.  Number cards
   count their value, every other card (Harry Potter cards too) 0.  Tied highest
   seats turn up again from the same cut deck, until one is left (a new cut deck is
   drawn if it runs out).  All cards then go back and a Shuffle (purpose ``deck``) is
   dealt.  In later rounds the deal passes to the left, without a new cut.  Every
   card of the cut is shown to all and the cut deck goes back whole, so none of it is
   ever secret: its order is drawn from the joint randomness (``Randomness("dealer")``,
   :func:`~.round.cut_order`), which turns up the same cards, with the same odds, as a
   face-down deck shuffled by every peer would — at the cost of a commit-and-reveal
   round instead of a whole joint shuffle of the deck (our choice; protocol v4 deals
   the same way in both crypto modes).
4. The first card is turned up from the top of the round's shuffled deck *before*
   the hands are dealt (the deck is uniformly shuffled, so this is the same as
   turning it up after the deal).  A Wild Draw Four, Howler, Invisibility or
   Resurrection Stone turned up goes back by reshuffling the whole deck (a new
   Shuffle) — nobody holds a card yet, so nobody learns where it went.  (The
   contract cannot hide a public card again inside a face-down pile.)
5. First card: a number needs nothing; Draw Two: the player left of the dealer draws
   2 (3) and loses the turn (no Invisibility or stacking against a turned-up card:
   nobody played it); Reverse: direction becomes right and the dealer plays first
   (with two players too); Skip: the
   player left of the dealer is skipped; Wild, Sorting Hat, Moody, Voldemort: the
   player left of the dealer names the colour (prompt ``first_colour``) and plays
   first; the Hat, Moody and Voldemort have no other effect then.
6. A turn is: play a matching card, or draw one card (always allowed, even holding
   a playable card).  After drawing, the player may play that card (if it matches)
   or keep it.  A card matches by colour (the named colour when the top card is
   colourless), number on number, or symbol on symbol (Draw Two / Reverse / Skip);
   colourless cards always match.
7. Reverse with two players: the direction turns and the other player is next, as
   the rulebook says (it makes no exception for two players; the digest's note 8
   cites standard UNO, where it acts as Skip).  ``reverse2=skip`` is that house
   rule: the player who played it plays again.  (Our choice: the original wins.)
8. Wild Draw Four: illegal while holding a card of the colour in force when it is
   played (the named colour if the top card is colourless); cards of
   other colours (even with the same number or symbol) and colourless cards do not
   block (reading (a)).  Bluffing is allowed: ``check`` never rejects the play, only a
   challenge can punish it.
9. The victim of a Wild Draw Four answers once: ``accept`` (draw 4, lose the turn),
   ``challenge`` or Invisibility.  On a challenge the challenged player's hand, as it
   was when the card was played (later penalty draws excluded), is shown to the
   challenger only (Show); then the challenged player sends a ``verdict``, which must
   be the truth (the challenged player, the challenger and the audit can check it).
   Illegal: the player draws 4 and the challenger plays their turn normally.  Legal:
   the challenger draws 6 and loses the turn.  The named colour stands.  If the
   player held nothing else, the play is publicly legal: no Show and no verdict.
10. Stacking (option on): the victim of a Draw Two may answer with any Draw Two; the
    total passes on to the next player.  Invisibility cancels the whole total.  Wild
    Draw Four is never stacked.
11. Sorting Hat, Howler and Moody target another player (not oneself); no target loses
    their turn: play continues after the player of the card.
12. Sorting Hat: the target draws one card at a time (a Deal of one card); after each
    card the target answers ``sorted`` (opening it to all: it must be a number 1–4 of
    any colour) or ``not_yet`` (a claim checked by whoever knows the face).  The
    earlier cards stay hidden.  If the draw pile runs out the discards are
    reshuffled; if nothing is left the draw stops.
13. Voldemort: played with the list of every number card of the chosen faces in the
    player's hand, in the order chosen; all are opened; the last sets colour and
    number; with an empty list it is a Wild (names a colour).  Completeness is a
    claim checked by whoever knows the hand.  ``legal_actions`` offers one order per
    choice of the last card (the others in hand order); any order passes ``check``.
14. UNO: the call is a flag on the play and is due whenever the play takes the hand
    from two or more cards to one or none (so a Voldemort dump that empties the hand
    needs it: "before burning the last card").  Without it, all other seats answer
    ``catch`` / ``pass`` right after the play (in turn order from the next player);
    if anyone catches, the player draws 2 (once) — and, if they had emptied their
    hand, is no longer out.  ``legal_actions`` offers each such play with and without
    the call (forgetting is legal, only risky); an UNO call when none is due is ignored.
15. Order after a play: the UNO catch window; then, if the hand is empty, the
    Resurrection Stone window and the end of the round; otherwise the card's effect,
    with the victim's reaction window (Invisibility, challenge, stacking).
16. Invisibility answers the card played against a seat: Draw Two/Three, Wild Draw
    Four or Skip (against the next player) and Sorting Hat, Moody (with a target) or
    Howler (against the target).  Not Reverse, not the Stone, not a turned-up first
    card.  It goes on the discard pile and its player names the colour; the card has
    no effect on them: the next player of a Skip/Draw/Wild Draw Four then plays their
    turn normally, after a targeted card play continues after that card's player.  It
    is a play: UNO call due, and emptying the hand ends the round.  On one's turn it
    is a plain Wild.
17. Reaction windows are opened only when the card could be in that hand by public
    information: the deck has it, it is not in the discard pile nor publicly in
    another hand, and the seat holds a face-down card (or publicly holds it).  When
    opened, every asked seat answers explicitly.  A Wild Draw Four always opens its
    window (challenge is always possible).
18. Resurrection Stone: when a hand becomes empty (after any catch penalty) and the
    Stone could be in another hand, every other seat answers ``stone`` / ``pass`` in
    turn order from the next player.  The Stone goes on top and its player names the
    colour; the player who went out draws 1 and must then call UNO (prompt
    ``stone_uno``: ``uno`` or ``pass``; ``pass`` costs 1 card at once, the rulebook's
    "one more card", no catch needed); then the card they went out with takes its
    effect as usual and play continues after them (in the normal order that card
    gives).  The Stone's player can go out with it.  If nothing could be drawn and
    the player is still empty-handed, the round ends after all.
19. Going out ends the round; the draw effects of the last card still apply before
    scoring (rulebook §9): the Draw Two/Three (stacked total included), Wild Draw Four
    (4), Moody (2), Sorting Hat (until 1–4), with no answer possible (the round is
    over; a final Wild Draw Four is always legal anyway).
20. Reshuffle: a draw from an empty draw pile first turns the discard pile, minus its
    top card, into a new draw pile (a new Shuffle with new slots; colours named on
    wild cards are forgotten).  If there is nothing to reshuffle, the draw stops: the
    player simply gets fewer cards (a turn draw that gets nothing ends the turn).
21. Blocked round: when as many consecutive turns as there are players end with a
    draw that gave nothing, the round ends; the player with the fewest hand points
    wins it (ties: the first in turn order from the current player).
22. End of round: every hand still face down is opened (one Reveal).  Positive
    scoring: the winner gains the others' points.  Negative scoring: everybody adds
    their own hand's points.  Game end with ``rounds=0``: positive, the first to the
    target wins; negative, once anyone reaches the target the lowest total wins
    (ties share the win).  With ``rounds=N`` the game ends after N rounds whatever the
    scores (target ignored); highest (positive) / lowest (negative) total wins, ties
    share.
23. Guard, not a rule: 50 000 turns in all (``state.MAX_TURNS``) end the game.  The
    round in play is scored as a blocked one (rule 21) and the game ends whatever the
    scores.  UNO itself has no end that play cannot put off: seats that always answer
    the next player with a Draw Two / Skip / Wild Draw Four, with the draw pile down
    to one card, make the victim draw a card for every card it plays, for ever.  The
    host's ``target`` (at most 100 000) and ``rounds`` (at most 1 000) are bounded
    too: the host's options bind every seat.
24. No jump-in and no playing several cards at once except Voldemort's dump.  The
    engine needs no joint randomness: all chance comes from shuffles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from p2php.bots import RandomBot
from p2php.engine.contract import Bot, CardId, Game, OptionError, OptionSpec
from p2php.engine.registry import register
from p2php.games.uno.bots import EagerRandomBot, HeuristicBot
from p2php.games.uno.cards import DECKS, deck
from p2php.games.uno.state import UnoState

__all__ = ["EagerRandomBot", "HeuristicBot", "UnoGame", "UnoState", "GAME"]


TARGET_LIMIT = 100_000
"""The highest ``target`` a table may set: a host's option binds every seat, and a made-up target of 10**18
would only hand the game to the turn guard (``state.MAX_TURNS``); 200 times the rulebook's 500 is room enough."""

ROUNDS_LIMIT = 1_000
"""The most ``rounds`` a table may ask for, for the same reason."""


class UnoGame(Game):
    """UNO Harry Potter edition."""

    name: ClassVar[str] = "uno"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "deck": OptionSpec("base", DECKS, "base (108) | hat | voldemort | magic (112 each) | all (120)"),
        "stacking": OptionSpec("off", ("off", "on"), "a Draw Two may answer a Draw Two"),
        "scoring": OptionSpec("positive", ("positive", "negative"), "who scores at the end of a round"),
        "target": OptionSpec(500, None, f"score that ends the game, 1 to {TARGET_LIMIT}"),
        "voldemort_faces": OptionSpec("1,5,0", ("1,5,0", "1,2,3"), "numbers Voldemort discards"),
        "rounds": OptionSpec(0, None, f"0: play to the target; N (up to {ROUNDS_LIMIT}): stop after N rounds"),
        "reverse2": OptionSpec("reverse", ("reverse", "skip"),
                               "two players: a Reverse only turns the direction (the rulebook), or acts as Skip"),
    }
    # "eager": random, but draws only when it must (RLCard's UNO rules) — for benchmarks.
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic", "eager")

    def _opts(self, options: Mapping[str, object]) -> dict[str, str | int | bool]:
        opts = self.parse_options(dict(options))
        if not 1 <= int(opts["target"]) <= TARGET_LIMIT:
            raise OptionError(f"option target: 1 to {TARGET_LIMIT}")
        if not 0 <= int(opts["rounds"]) <= ROUNDS_LIMIT:
            raise OptionError(f"option rounds: 0 to {ROUNDS_LIMIT}")
        return opts

    def new_state(self, players: int, options: Mapping[str, object]) -> UnoState:
        self.check_players(players)
        return UnoState(players, self._opts(options))

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        d = deck(str(self._opts(options)["deck"]))
        if not 0 <= card < d.size:
            raise ValueError(f"no card {card} in the {d.name} deck")
        return d.names[card]

    def universe_size(self, options: Mapping[str, object]) -> int:
        return deck(str(self._opts(options)["deck"])).size

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        if kind == "random":
            return RandomBot(seed)
        if kind == "heuristic":
            return HeuristicBot(seed)
        if kind == "eager":
            return EagerRandomBot(seed)
        raise OptionError(f"uno has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")


GAME = UnoGame()
register(GAME)
