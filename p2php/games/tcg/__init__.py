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

Decisions where the rules are silent -- all of them, by the open points of the digest (``tcg.md`` "Not specified
by the source", items 1-13, and its "Note (ambiguity)" paragraphs); the module named has the details:

* the card texts (item 1): the card data is all there is (``cards.py``).  Where a text leaves a question
  open: a Spell that must choose something cannot be played with nothing to choose, "up to" and "if"
  effects can (``effects.py``); Lessons of one type and copies in the discard pile are interchangeable, so
  the newest is taken without a question (``effects.py``, ``spells.py``); "chooses N of his or her Lessons"
  asks the type of each Lesson in turn (``spells.LoseLesson``); the opponent chooses their discards one card
  at a time, each opened as it goes (``spells.py``); a card returned to the hand from play or from the pile
  stays face up, and cards put on the bottom of the deck stay face up there (``spells.py``); "look at your
  opponent's hand" is a Show to the caster alone, and "show it to your opponent" opens the card to everyone
  (``spells.py``, ``abilities.py``); Potions Exam's opponent decides first whether to prevent it
  (``spells.py``); Steelclaw's damage is Creature damage (``damage.py``, ruling rc1ef75c5); a Shield covers
  the opponent's whole next turn, its "before your turn" stage included (``effects.py``, ruling rab1851a2);
  with two copies of a card with an optional effect in play, one offer per copy, the oldest first
  (``triggers.py``); Delivery Owl's draw comes before the turn's draw (``triggers.py``); Unicorn's Action on
  the turn it is played, kept if it leaves play (``turn.py``); Hermione Granger's "already" is counted before
  the first of the two Lessons (``abilities.py``); the old Wand's Power counts for a new Wand's condition
  (``items.py``); Dean Thomas's once per game is remembered per card in play, so a Dean that left play and
  came back may use it again (``abilities.py``, §9);
* the set list (item 2): the data's 116 numbers, Lessons 113-116 (``cards.py``);
* who goes first, and the first draw (item 3, §2 note): a fair coin from the peers' joint randomness; the first
  player draws on turn 1 too ("Do this first every turn!", no exception stated) (``turn.py``);
* the end (item 4, §1 note): a player loses the moment their deck reaches 0 cards, by damage or by drawing
  (reading (a)); damage beyond the cards left mills what is there; only one deck shrinks at a time, so both
  cannot run out together; a player may draw with an Action from a one-card deck, and so lose (``damage.py``,
  ``turn.py``);
* an Item's Action cost (item 5, §5.4 note): 1 Action, like a Creature (reading (a), ``turn.py``);
* solving Adventures (item 6, §5.6 note): no Action, as often as the solver can pay, all at once, offered only
  when it can be done in full; "skips a total of N Actions" is an action that uses 1 Action, the count kept
  with the Adventure; besides solving, only a card's text removes one (Apparate, Logic Puzzle, Draco's Trick)
  (``adventures.py``);
* deck size and copies (item 7, §10 notes): constructed 60 + 1 (the "also" reading), starter 40 + 1; the
  starting Character is not counted against the 4-copy limit, and Uniqueness adds no deck-building rule
  (``decklist.py``);
* targeting (item 8): "a Creature of your choice" / "a Creature in play" is any Creature in play, either
  side's; damage "to your opponent or to a Creature of your choice" is one choice among both (``effects.py``);
  Incendio must choose a Creature if any is in play and otherwise does nothing (below);
* timing (item 9): nobody acts during the opponent's turn unless a card says so -- the damaged player's "whenever
  a Spell card damages you" effects (Kelpie, Pet Toad, Potion Ingredients, Invisibility Cloak) are offered at
  the Spell-damage timing point, one after another until one takes the damage (``triggers.py``), and choices
  a card gives the opponent (Confundus, Take Root, Snape's Question, Transfiguration Test, Potions Exam) are
  theirs to make; there is no other response window;
* Wands and Cauldrons (item 10): no general "one Wand" rule; each Base Set Wand's own text discards the old
  Wand as the new one enters; Cauldrons have no such text, so several may be in play (``items.py``);
* hand size (item 11): no limit;
* counters (item 12): only damage counters are on cards; the other things the game remembers (once-per-game
  uses, one-turn shields, muzzled Creatures, skipped Actions) are fields of the public state (``state.py``);
* the excerpt's missing pages (item 13): nothing is assumed from them;
* Power from Items and Characters (§4 note): typed, so it can be the one Power that matches the symbol
  (``power.py``);
* a Character that is a copy of a starting Character (§8 note): it cannot be played (a copy is in play);
  both players may still start with the same Character (``turn.py``);
* the two versions of Draco Malfoy and Hermione Granger (§14.1): one card for the copy limit and Uniqueness;
  a bare name in a deck list means the lowest-numbered version (``cards.py``, ``decklist.py``);
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

Every card is played through the real protocol (the lockstep, both secret decks through the card crypto) by a
scene of ``tests/test_tcg_protocol_cards.py``, which also runs it on the engine alone and compares the two.

The ``p2php.games`` entry point names this package; importing it registers the game, as UNO and HP Sha do.
"""

from __future__ import annotations

from p2php.engine.registry import register
from p2php.games.tcg.game import GAME, TcgGame

register(GAME)

__all__ = ["GAME", "TcgGame"]
