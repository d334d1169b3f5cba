"""Harry Potter Trading Card Game (Wizards of the Coast, 2001): the Base Set's cards and deck lists (issue 11).

Rules: ``shared/rules/tcg.md``, a digest of the rulebook excerpt in ``shared/seeds/004_*.txt`` (the
excerpt wins where they differ).  Two players duel with 40- or 60-card decks of Lessons (Power),
Creatures, Spells, Items, Characters and Adventures; damage mills the opponent's deck, and a player
whose deck runs out loses.

Only the data layer exists so far, which the engine will stand on:

* :mod:`p2php.games.tcg.cards` — the 116 Base Set cards (typed, from ``base_set.json``, which
  ``tools/extract_tcg_base_set.py`` extracts from ``shared/data/tcg``), looked up by number or name;
* :mod:`p2php.games.tcg.decklist` — the plain-text deck format, deck-building checks, the two
  Starter Set decks (``decks/*.deck``).

There is no game engine, no move set and no bot yet, so this package is deliberately not registered
as a game (no ``p2php.games`` entry point): nothing can start a TCG table until the engine exists.
"""
