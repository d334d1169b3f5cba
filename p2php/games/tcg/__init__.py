"""Harry Potter Trading Card Game (Wizards of the Coast, 2001): the Base Set, two players (issue 11).

Rules: ``shared/rules/tcg.md``, a digest of the rulebook excerpt in ``shared/seeds/004_*.txt`` (the
excerpt wins where they differ).  Two players duel with 40- or 60-card decks of Lessons (Power),
Creatures, Spells, Items, Characters and Adventures; damage mills the opponent's deck, and a player
whose deck runs out loses.

The data layer:

* :mod:`~p2php.games.tcg.cards` — the 116 Base Set cards (typed, from ``base_set.json``, which
  ``tools/extract_tcg_base_set.py`` extracts from ``shared/data/tcg``), looked up by number or name;
* :mod:`~p2php.games.tcg.decklist` — the plain-text deck format, deck-building checks, the two
  Starter Set decks (``decks/*.deck``).

The engine (every one of the 116 cards; a card a later set adds and the engine does not play yet is refused,
naming it -- ``effects.unimplemented``), one concept per module:

* :mod:`~p2php.games.tcg.ids` — instance ids in a fixed per-seat block, ``card_of(id)``;
* :mod:`~p2php.games.tcg.state` — the zones as slots, one-turn effects, the log, the task stack;
* :mod:`~p2php.games.tcg.turn` — set-up (secret decks, 7 cards, who goes first), turns, Actions, playing;
* :mod:`~p2php.games.tcg.power` — Power in play (Lessons, Items, Characters) and the Power check;
* :mod:`~p2php.games.tcg.damage` — milling (with damage sources and prevention), Creature damage, drawing,
  the loss;
* :mod:`~p2php.games.tcg.pieces` / :mod:`~p2php.games.tcg.effects` — card texts as reusable pieces keyed by
  card number (Spells, additional costs), and what each piece does; :mod:`~p2php.games.tcg.spells` — the
  tasks of pieces that ask or open cards;
* :mod:`~p2php.games.tcg.items` — Wands, Cauldrons, Items with a use;
* :mod:`~p2php.games.tcg.adventures` — one Adventure per side: effect, solving, reward;
* :mod:`~p2php.games.tcg.triggers` — effects at the kit's timing points (before a turn, Spell damage);
* :mod:`~p2php.games.tcg.abilities` — Characters' abilities;
* :mod:`~p2php.games.tcg.view`, :mod:`~p2php.games.tcg.bots`, :mod:`~p2php.games.tcg.game` (``GAME``).

Decisions (besides those in the modules' docstrings):

* "Search your deck … Then shuffle your deck" and "Shuffle up to N non-Healing cards from your discard pile into
  your deck" (Alchemy, Apothecary, Mysterious Egg, Transmogrify, Vanishing Glass, Nearly Headless Nick; Elixir of
  Life, Burning Bitterroot Balm, Hospital Wing, Professor Severus Snape; Hiding From Snape's reward, whose card
  is taken face down) use the engine's ``Reshuffle`` step: the
  deck's face-down cards are shown to their owner alone, each card taken is opened to everyone ("show it to your
  opponent") and goes into the hand face up, and the deck (with any cards shuffled in from the pile) becomes a new
  face-down deck shuffled by both peers, in the seat's next block of slots (``TcgState.fresh_block``). Details in
  :mod:`~p2php.games.tcg.spells` and :mod:`~p2php.games.tcg.abilities`;
* Apothecary's "a card that needs Potions Power" is a non-Lesson card of the Potions type (a Lesson gives Power,
  it needs none); its "discard 2 other cards from your hand" and Transmogrify's "discard 1 of your Creatures from
  play" are additional costs, paid first and chosen by the player; the card cannot be played without them;
* Incendio counts the caster's Charms Lessons in play as it resolves; a Creature must be chosen if any is in play
  (either side's: "a Creature of your choice"); with none in play the Spell may still be played and does nothing
  (the rulebook has no rule that a Spell needs a target).

The ``p2php.games`` entry point names this package; importing it registers the game, as UNO and HP Sha do.
"""

from __future__ import annotations

from p2php.engine.registry import register
from p2php.games.tcg.game import GAME, TcgGame

register(GAME)

__all__ = ["GAME", "TcgGame"]
