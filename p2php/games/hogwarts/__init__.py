"""A Year at Hogwarts — the board game (issue 12; rules: shared/rules/hogwarts.md, data: hogwarts-data.md,
original: shared/seeds/002_*.txt, which wins where the digest differs).

Not playable yet, and so not registered as a game.  What exists (increment 1: the data and the board):

* ``hogwarts_data.json`` — everything hogwarts-data.md holds, extracted by ``tools/extract_hogwarts_data.py``
  (never retyped, never read from the markdown at run time): the 191 map cells of the three boards with their
  walk edges and links, §1.6's special links, §1.7's cell effects, the eight decks (210 cards) and the event
  enemies, the battle vocabulary, the 30 object tokens, the setup table, the 30 missions, the nine sheets
  (fronts and backs) and their ability rules, the Return of Lord Voldemort data, the Quidditch pitch (grid,
  formation, seeker circuit, tokens) and the §6 resolutions;
* ``data`` — :func:`~.data.load` (cached) reads it through importlib.resources, decodes it into the frozen
  records of ``cells``, ``cards``, ``missions``, ``sheets``, ``pitch`` (gathered in ``tables.HogwartsData``)
  and runs ``checks``: the document's counts (§1.8, §2.1: 210 cards + 30 missions) and every consistency check
  of its §7, each failure one :class:`~.errors.HogwartsDataError` line naming the item;
* ``board`` — movement as pure functions: every legal walk for a roll (mandatory, voluntary and dead-end
  stops, secret passages and the other free links, the cross-board steps), checking a chosen path, shortest
  paths, and the graph facts of flying powder, the portal, Buckbeak and the Invisibility Cloak's escape.

What comes next (the engine, on the shared task stack and ``p2php.testing``): set-up per mode
(underage | qualified | team | solo | return_of_voldemort) and length (quick | classic | long); turns with the
dice from the session's joint randomness; cell effects and the decks; object tokens and missions; battles
(enemy, player, Death Eater, dodge); the Quidditch match; team, solo and Return mode; bots, CLI and view.

Digest against the original (the original wins):

* the digest's note on Harry's ability (§10.2) says the worked turn applies it "on the Hufflepuff common
  room"; the original has Harry go "one more cell up" past the common room and end there, as the digest's own
  §17 says.  The data follows the original: that cell is ``m010``, a spell cell (H-1, C-50), so the ability
  applies as printed, and the test of Harry's turn checks it;
* the digest's cell kind names (``event_cell``, ``text_cell``, …, §0.8) are not the data's (``event``; "text"
  cells are the kinds data §1.1 marks as voluntary stops); the data's names are kept;
* otherwise the digest keeps the original's movement rules (§9) word for word; the original's own
  inconsistencies (point token values, the "board 2" heading over castle cells) are settled by C-1 and C-4.

Decisions where the rulebook and the data document are silent (ours), for movement:

* the starting cell counts as crossed: a move never re-enters it (rules §9.1, "to turn back, wait until your
  next turn");
* a free link taken before any step, followed by a voluntary stop at its far end, is a legal move of 0 steps
  (data §1.2 allows free links "at any point"; the far end is a crossed cell where the kind allows stopping);
* a cell that forces a stop cannot be left by a free link either: the move ends on entering it;
* an occupied start cell never forces a stop (C-18: entering it never starts a battle), so moves pass through;
* a figure that can enter nothing moves nowhere (a dead end at once); a roll of 0 may also stay put;
* a move that ends on its last step is ``exact`` even where it would also have been forced or a dead end; the
  engine decides from the cell's occupants whether a battle follows;
* distances and shortest paths ignore figures and tokens, and among equally short paths the first in sorted
  order is returned (for bots and tests);
* Buckbeak may fly to the graveyard (data §1.2 names him as a way in; the rulebook says "any cell on board 1
  or board 2"); flying powder may start from any tower cell (the engine checks the figure stopped there);
* the Invisibility Cloak's escape is every normal move of 1 to 5 steps; the engine passes no occupied cells
  (C-28: no battles).

For the data (ours): effects and abilities stay the document's terms, one string each, and every battle term
must be a §2.2 vocabulary entry; ids must be unique across cells, tokens and cards; spell and potion copies by
use, the mission reward sum (4920) and the kinds of Harry's example steps are checked too.
"""
