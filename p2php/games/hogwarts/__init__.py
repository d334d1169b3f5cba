"""A Year at Hogwarts — the board game (issue 12; rules: shared/rules/hogwarts.md, data: hogwarts-data.md,
original: shared/seeds/002_*.txt, which wins where the digest differs).

Playable in every mode: ``mode=underage``, ``mode=qualified`` and ``mode=team`` (``teams=N``) at every ``length``
(quick | classic | long), 2 to 9 players (C-14), ``mode=solo`` (1 player, ``difficulty=underage|qualified``) and
``mode=return_of_voldemort`` (rules §16, 2 to 4 players), Quidditch matches included, with the ``random`` and
``heuristic`` bots and the optional Dodge (``dodge=true``; always on in the Return mode).
Importing this package registers the game as ``hogwarts`` (an entry point names it, as for the TCG).

Increment 1 (the data and the board):

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

Increment 2 (the engine, on the shared task stack; one concept per module):

* ``game`` (options, players, card names, bots), ``state`` (the public state; hands and missions are slots
  whose faces only their holder knows), ``ids`` (card instances and the slot span of each deck), ``turn``
  (the year, a turn, the Time-Turner), ``setup``, ``moves`` (the walk, token pick-ups, trips), ``dice``
  (joint randomness), ``decks`` (Deal into a hand, Reveal face up), ``cells_effects`` (every cell, common
  rooms, duels), ``cards_flow`` (action cards, exams, cards put back), ``events``, ``battle`` (enemy cards,
  alone or as a group), ``pvp`` (the underage dice duel), ``defeat``, ``mission_flow``, ``start_cards``,
  ``search`` (Accio, Felix Felicis), ``rules`` (public facts: who fights whom, the goal), ``terms`` (the
  data's effect terms), ``bots``, ``view`` (observations, the terminal's lines), ``reseal`` (a worn card
  re-locked, E37), ``remask`` (a hand mixed into fresh slots before a random pick from it, E38).

Increment 3 (the Quidditch match, rules §15, data §5, C-25, C-37–C-40):

* ``quidditch`` (the challenge from the pitch, houses, the first player, the reward of 40 points),
  ``pitch_grid`` (Phase 1's geometry: steps, lines, a Bludger's straight line), ``quidditch_goals`` (Phase 1:
  actions from the dice, moves, passes, interceptions, shots, Bludgers), ``quidditch_snitch`` (Phase 2: the
  Seekers on the circuit and the Quidditch cards, hidden hand cards opened when played), ``bots_quidditch``
  (the heuristic's play).

Increment 4 (qualified, solo and team modes: rules §2, §3, §5, §11, §14.6, §14.7; C-8–C-12, C-33, C-35,
C-36, C-52):

* ``modes`` (what each mode changes, one question per function), ``death_eaters`` (the 6 tokens: placed in turn,
  or solo at random; who plays a Death Eater), ``versus`` (two sides attacking in turn: the qualified player
  battle and the Death Eater battle, the eight Death Eaters' abilities, Dodge), ``pvp_qualified`` (the
  qualified player battle and its prizes), ``death_eater_battle`` (a random back, its cards dealt to its player,
  20 points), ``qualified_battles`` (which battle a mandatory stop starts), ``mission_cards`` (the spell and
  potion cards a mission needs, shown through the protocol's reveal), ``snitch_practice`` (solo's Quidditch),
  ``teams`` (teammates' missions shown to each other).

Increment 5 (The Return of Lord Voldemort, rules §16 and §14, data §4.2 and §4.4, C-36, C-41–C-47):

* ``voldemort_rules`` (the campaign's public record, kept in the bottom task so the shared state needs no new
  fields; sides, tokens each side may take, where moves stop, the two goals, the view's facts),
  ``voldemort_setup`` (the set-up, Voldemort's return with his Death Eaters, the Stone and the Wand),
  ``voldemort_turn`` (the game's flow and a turn: C-41's cell effects, Pettigrew's way to the graveyard),
  ``voldemort_eaters`` (the Death Eaters' moves, their cards and battles), ``voldemort_battle`` (two sheets
  fighting with the Dodge, ≤3 cards a side), ``voldemort_goals`` (Horcruxes, the crossing, the final battle),
  ``voldemort_view`` (the terminal's lines), ``bots_voldemort`` (the heuristic's play).  Hooks elsewhere:
  ``game`` (the mode, 2–4 players, the Dodge always on), ``rules.constraints``, ``view``, ``bots``.

Decisions for the engine where the rulebook, the digest and the data are silent (ours, numbered):

E1. The first player is seat 0, the lobby's "youngest" (C-14); sheets are chosen in turn from it.
E2. Sheet cards come from the deck tops seat by seat, missions one at a time round the table (C-13); the
    tokens' places come from one joint permutation over the star cells in the data's order.
E3. Cards go under their own deck and no deck is ever reshuffled: a card that was opened comes round again
    face up, one put back unseen stays face down.  Which deck a hand card is from is public (card backs).
E4. Whether a mission attempt is asked depends on public facts only (some mission could be completed here
    with the tokens held); the answer opens the card, whose face the peers check.  An opened but failed
    mission stays in its holder's hand, face up.
E5. "Where you can complete a mission now" (an early stop) counts the tokens held when the move starts; a
    move that stops early only for a mission names and opens it, and that mission is then attempted (only
    mission 30's Great Hall cells need this: every other mission location is a text cell).
E6. Tokens are taken one decision at a time from any cell the move entered (2 per turn, trips included,
    C-19); a token given up in a swap at 6 is not offered again that turn.
E7. The winners are every seat that met the goal at the end of any turn of the final round (C-7, C-15).
E8. Underage player battle: a winner already holding 6 object tokens is offered no token; the truce's two
    turns do not count the mover's running turn (C-34).
E9. Luna's ``event_peek`` opens both cards to everyone; Ron's ``action_pick`` likewise.
E10. An exam is asked whenever the player holds a book card (public); "done" is always an answer.
E11. A common room's exchange is one token for one; offering it uses the room's effect, accepted or not.
E12. After an event moves the drawer, its mission step looks at where it then stands.
E13. Battle: protections are used up by each retaliation trigger, even one that costs nothing; the special
    battle tokens (Wand, Sword, Stone) are offered at the attack decision; Ron's re-roll after each dice
    attack until used; Luna's ``ignore_once`` is used for her on the first loss that would defeat her;
    Pettigrew's flight is offered after each of his rounds, alone or in a group (E35).
E14. Pettigrew's ``rat`` passes figures without a battle; stopping early on a figure's cell is not offered.
E15. The state's event log holds the current turn only (structured entries, rendered by ``view``).
E16. After a Cloak escape the turn ends (no mission) but the figure still returns from a trip; only a
    defeat keeps it where it fell (C-21) — the graveyard, which has no walk edges, is never a trap.
E17. Joint randomness is asked per roll that follows a decision, never earlier: the underage dice duel (no
    decision between its rolls) comes from one draw, and so do an attack's dice with the enemy's
    counter-roll when no re-roll or Dodge is to be asked: fewer draws, fewer rounds (a session's hash chains
    renew themselves, so a game may draw as often as it needs; ``benchmarks/hogwarts_sweep.py`` counts them).
E18. Accio and Felix Felicis search a deck only while every face-down card in it is under one joint key (the
    session reshuffles face-down cards of one key at a time; a deck's shuffle, its reshuffles, re-locks and
    hand re-masks share one, a reshuffle of face-up cards alone starts a new one: ``HogwartsState.family``;
    ``search``).  By shuffle block, a card put back from a re-masked hand (E38, a top-of-span slot) barred
    every search of its deck until drawn again.
E19. Quidditch: a player's own sheet's house is offered first; the match is the pitch's whole cell effect
    (after Cho's card), and the challenger's turn goes on to its mission step (``quidditch``).
E20. Phase 1: picking up the loose Quaffle is automatic for the side to move; each piece may be placed once
    when a side rearranges its formation; an intercepting Chaser moves on to a free cell next to the holder
    other than the one it came from (so that C-38's "no free cell" can happen); a Keeper knocked out
    holding the Quaffle leaves it to his side to place on their line (3), as after a shot
    (``quidditch_goals``).
E21. Phase 1 ends after 20 turns in all (10 a side) if no side has won it: the side ahead on goals wins it,
    a tie goes to the match's first player, so that every match ends (``PHASE1_TURNS``).
E22. A shot's two dice, a Bludger's die with its target's, and the first-player dice with their re-rolled
    ties are each one joint draw: nobody decides between them (as E17).  A match between heuristic bots
    still takes some 27 joint draws (up to about 55).
E23. Phase 2: a Seeker that reaches 24 by the roll alone catches the Snitch before any card; Plumpton Pass's
    re-rolled die is chosen after the card is opened (a card's action never depends on its hidden face); a
    move back against a guarded Seeker is used up without effect (``quidditch_snitch``).

E24. Death Eater tokens are placed after the deal (so each placer knows its missions; solo's random placement,
     C-11, needs them too), seat (first + k) placing the k-th; ``death_eaters``.
E25. Solo qualified: one joint permutation of the 18 towers; the player (who alone sees its missions) names
     the first 6 that are no location of its missions and whose blocking (with those before) cuts no cell
     off the walk from the start, and its engine checks the names against its knowledge.  The tokens are
     impassable to every figure, Pettigrew's too (without the second condition a tower could wall a mission
     in, and the game could only end in a defeat).
E26. The Death Eater's player is "the nearest to the right": turns pass clockwise (to the left), so the seat
     before the mover, skipping teammates; with nobody else (one team of all, C-9) the mover plays both sides.
E27. A Death Eater battle takes precedence when a Death Eater's cell also holds figures (one battle per move);
     the Death Eater's cards come from the spell then potion deck tops and its unplayed ones go under face down.
E28. Two sides attacking in turn (``versus``): a "retaliation" a protection answers is the other side's next
     attack, each attack using one up; Luna's ``ignore_once`` is used on the loss that would end the battle
     for her, Neville's ``last_stand`` on a drop to 0 (at 1 he still loses a player battle, undefeated);
     Pettigrew may flee after each attack on him; Rookwood's ``spy`` shows the mover's hand to the Death
     Eater's player (the protocol's private Show), who puts 1 card under its deck; the special tokens (the
     Cloak included, C-28) are offered to a player side at its attack decisions.  Dodge answers every dice
     attack in these battles, by the side hit (C-36).
E29. Qualified player battle: none starts against, or by, a player at 1 LP or fewer; 2 object tokens are one
     prize choice of a pair (one token if the loser holds one or the winner has room for one); the prize is
     taken before a loser at 0 LP is defeated; a battle nobody won (Cloak, flight) gives no prize, the truce
     still follows (C-34).
E30. Mission cards (C-52): after the mission is opened its holder shows the cards (an action whose reveal opens
     them to all); "no_mission" may still be answered then (nothing is handed in).  Whether to ask is decided
     by the public count of spell and potion cards held; the engine offers the first cards that fit (exact
     cards first) and accepts any that fit.
E31. The Quidditch requirement is ``HogwartsState.matches`` (public, per seat): a match counts for both
     players when it starts; solo, a Snitch practice counts (C-11), success or not.
E32. Solo (``difficulty`` = underage | qualified; other modes ignore it): every seat-count rule as the chosen
     difficulty (flying powder, card limit, Death Eaters, mission cards); Snitch practice is offered on the
     pitch at both difficulties (4 rolls, Quidditch cards allowed, 40 points on success); the game is lost at
     the end of the turn of a defeat (a battle lost at 0 LP; a duel never takes the last LP, C-32).
E33. Team mode: ``teams=N`` teams, seat s in team s % N (teams alternate round the table), 2 or 3 members each
     and at least 4 players, or ``teams=1``: one team of all (C-9: Snitch practice as solo, lost after 3
     defeats in all).  Teammates' missions are shown to each other after the deal (each hand stays secret).  A
     mission is attempted by its holder with every member on its location and the team's tokens; the members
     show their part of its cards in turn from the holder (the engine offers each the cards that fit what is
     still needed); short of cards there is no attempt.  The team fights it together (the enemy's LP times the
     members, 2 cards each, C-10); the points go to the holder's sheet, the score is the team's sum (C-8).  A
     member on any mission's location may wait instead of moving (rules §11), with no cell effect.

E34. The school year ends after ``turn.YEAR_ROUNDS`` (1000) rounds: a game nobody has won by then ends with no
     winner (solo: lost), so that every game ends — a goal can go out of reach (the portal token spent with
     the graveyard's mission still held, a needed token taken), and nothing else would end such a game.
     Heuristic games end in a few hundred turns; random bots' take up to some 800 rounds.
E35. Leaving a group battle (an event's enemy, a team's mission battle; rules §13, §14.4): the Invisibility
     Cloak is offered to its holder at each of its attack decisions and Pettigrew's flight after each of his
     rounds, as alone.  Only the one who uses it leaves: a Cloak escape moves it up to 5 steps (C-28) and
     ends its turn if it is the mover (E16); the others fight on against the enemy's LP as they stand
     (multiplied at the start by every member), and a battle with nobody left standing ends with no winner.
     An event's reward goes only to those still standing when the enemy falls.  A team mission is its
     holder's attempt: when the holder leaves, the mission fails at once for the team (C-26) — the battle ends
     with no winner, the others leave it unharmed, and the mission's tokens and the cards shown are handed in
     as after a lost battle (the opened card stays in the holder's hand, E4); a member other than the holder
     who leaves does not fail it (the rest may still win it for the holder).
E36. The underage dice duel (§14.6) has no moment between its rolls (E17), so the Cloak's "any moment of a
     battle" is before the roll: whoever holds it is asked, the mover first ("fight" declines).  Used, the
     duel ends with no winner and no prize, the escaper moves up to 5 steps (C-28) and puts the Cloak on a
     Diagon Alley star cell (C-29), and the truce still follows (C-34, as E29).  The mover's turn ends as
     after any player battle.
E37. A face-down card a hand held and put back under its deck (a Death Eater's unplayed cards, a defeat,
     Rookwood's spy, the Return's flip) is *worn*: its holder's way of opening it is known to all but that
     holder, so were it dealt again as it is, every seat could open it.  Before any Deal it is locked afresh (a
     Reshuffle of that one slot into the deck's reseal slots, counted down from the top of its span; the
     searches' blocks count up), which tells nobody anything (``reseal``; found by the knowledge check of
     ``benchmarks/hogwarts_loopback.py`` at 4 peers).
E38. A card taken from a hand at random -- the underage duel's prize card, the qualified battle's two, an enemy's
     ``reveal:discard``, Rookwood's ``spy`` in the Return (V8) -- is picked by its slot, and a slot says which card
     it is to whoever knew its face there: every seat, for a card that came round face up (E3) or a mission card
     shown and kept (E33); a card's old holder, for a card taken from its hand or a worn card dealt again (E37
     re-locks its key, not what its old holder knows); a Death Eater's player, for a hand Rookwood's spy showed
     it (E28).  So before such a pick, a hand holding such a card among those the pick may take is mixed face
     down into fresh slots: a Reshuffle per deck and joint key (a deck's shuffle and its reshuffles; a search of
     a deck whose cards were all face up starts a new key), the deck's opened cards joining one, taken from the
     top of the deck's span below the reseal slots, then one Deal of the new slots to the holder (``remask``;
     ``HogwartsState.seen`` keeps who was dealt or shown a hand-deck card, ``blocks`` the reshuffles under a new
     key).  Nobody but the taker and the old holder then knows the card taken; an opened card is face down
     again.  Which deck the card came from stays public (card backs), so a known card alone of its deck in the
     hand is still recognised, as at a table; a mission's cards on show keep their slots while it is attempted
     (they go under after its battle).  A re-masked card stays known to every seat that knew a face of its group
     (every seat, for an opened card): the others may leave or show, so the hand is mixed again before its next
     pick.  Only groups of two or more cards with such a face are mixed (cost: one
     re-mask of 4 cards at 4 seats, +15 messages / 18.6 KB fast, +7 / 21.7 KB verified;
     ``benchmarks/hogwarts_remask_cost.py``).  A card put back by its holder's choice (``ReturnCards``: a lost
     duel, an event) and the card Rookwood's player picks after his look (E28) are named by their slots too: the
     hand is re-masked the same way before that choice (before the look), unless all its cards go.
E39. A search (Accio, Felix Felicis, E18) takes its card by its slot, so when the deck holds a card whose face a
     seat other than the searcher knows (one that came round face up, E3; a worn card its old holder put under,
     E37), the deck is reshuffled into its next block before the look, and the take then says nothing of which
     card it was (``search``).  A deck nobody else knows is looked through as it lies; without room for both
     blocks (never in practice) the look is as before.  Cost: one reshuffle of the deck (26 cards at 4 seats:
     +12 messages / 25.8 KB fast, +4 / 58.9 KB verified).

Refused or skipped in this increment (never played wrongly, just not offered):

R1–R2 (the modes refused, Quidditch in underage mode only) are gone: every mode and length plays.
R3 is gone too: the Invisibility Cloak is offered in every battle — fought alone, by a group (E35), between
    two sides (E28) and before the underage dice duel (E36) — and Pettigrew's flight alone and in a group
    (E13, E35).  Team members pass no cards to each other: the original has no such rule (a team completes
    a mission with "all the necessary object tokens and spell and potion cards" of its members, and between
    members tokens change hands only by a common room's exchange), so nothing is built; members show their
    part of a mission's cards (E33).

Decisions for The Return of Lord Voldemort where the rules and the data are silent (ours, numbered apart):

V1. The villain is the first player (seat 0, C-14) and plays Pettigrew; the others choose Harry, Ron or
    Hermione in turn from his left, and the last to choose must take Harry if nobody has (data §4.4).
V2. The heroes win together; a side's win ends the game at once.  Scores: Horcruxes destroyed (heroes), left
    (villain).
V3. The heroes' goal counts the Resurrection Stone on any hero's sheet (the original: "Harry and his friends
    may collect" it); a Horcrux is tried only by a hero who holds a weapon himself (C-42).
V4. At the return Pettigrew's cards go under their decks; Voldemort's 3 spell + 2 potion cards and each Death
    Eater's come from the deck tops in one Deal to the villain (the heroes see them only when played; the view
    shows their counts).
V5. The villain places the Death Eaters in the data's order, one per tower, none on a hero's tower.
V6. Only §4.4's tokens are in play, so Buckbeak, the Cloak and the Time-Turner never are; the Elder Wand, the
    Stone and the Sword are goals, not battle tokens, in this mode.
V7. Ron's ``reroll_once`` is offered after each of his dice attacks until used (as E13).
V8. Rookwood's ``spy`` puts one of his opponent's potion or spell cards, drawn by the joint randomness, under
    its deck face down.
V9. A defeated hero puts his potion and spell cards under their decks (§14.1), goes to the start with 1 LP,
    his turn ends and a pending Horcrux retry is forgotten.
V10. Each Death Eater moves at most once a turn, in the order the villain picks; "done" ends the phase.
V11. A Death Eater meeting several heroes fights the lowest seat; a hero entering a cell of several Death
    Eaters fights the first in the data's order.  A hero's battle ends his turn (no cell effect, no Horcrux).
V12. A common room gives 1 spell or potion card of choice; classrooms and special cells give only their spell
    and potion cards (the Library and Flourish and Blotts nothing).
V13. The Death Eaters first move on the villain's turn after the return; at the end of the return turn he goes
    back to the pitch (data §4.4).  Arriving at the graveyard with the four tokens by a portal token returns
    him too.
V14. A game with no winner after 150 rounds is drawn (no winners), so that every game ends.
V15. Paths cross when a walk ends on the other's cell; a walk is forced to stop there only once a goal is
    reached (with neither goal both pass, C-44), and a trip landing there is no crossing.  In the final battle
    the one who moved attacks first.
V16. A failed Horcrux is retried at the start of the hero's next turn, which is then the whole turn (no card,
    no move, no cell effect); a hero no longer there with a weapon plays a normal turn.
V17. Start-of-turn searches (Accio, Felix Felicis) look only in the spell and potion decks.
V18. A Horcrux attempt's four dice (2 + 2) are one joint draw (as E17); Greyback's ``bite_regen`` never takes
    him above his sheet's LP.
V19. The Dodge is open to both sides of a Return battle: the villain may dodge for Voldemort and for his
    Death Eaters too; protections (``cancel_next``, ``skip``, ``reflect_next``, ``shield``) answer the
    opponent's next attack, cards or dice.

Next increment: nothing is left refused (R1–R3 are closed).

Digest against the original (the original wins):

* the digest's note on Harry's ability (§10.2) says the worked turn applies it "on the Hufflepuff common
  room"; the original has Harry go "one more cell up" past the common room and end there, as the digest's own
  §17 says.  The data follows the original: that cell is ``m010``, a spell cell (H-1, C-50), so the ability
  applies as printed, and the test of Harry's turn checks it;
* the digest's cell kind names (``event_cell``, ``text_cell``, …, §0.8) are not the data's (``event``; "text"
  cells are the kinds data §1.1 marks as voluntary stops); the data's names are kept;
* otherwise the digest keeps the original's movement rules (§9) word for word; the original's own
  inconsistencies (point token values, the "board 2" heading over castle cells) are settled by C-1 and C-4;
* Quidditch (digest §15 against the original's "III. Quidditch Match"): the digest keeps the original's
  rules; it only adds readings the original leaves open (first-player ties, interception costs, Bludger
  targets), which data §6 settles (C-37–C-40).  The original's worked match is replayed by the tests (data
  §5.1's formation names the Chasers differently: its "Slytherin Chaser 2" on ``q_5_2`` is ``B:chaser1``).
  Where the original's Phase 2 says the first full circle "wins the game and 40 points", the digest reads
  "the match", as does the engine (the Hogwarts Cup goes on).  The original's Keeper "may try to stop the
  shot by rolling their own die": not rolling could only concede the goal, so the engine always rolls for
  him (the digest says he rolls); its Chaser "may pick up" the Quaffle, which the engine makes automatic
  (E20).

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


from p2php.engine.registry import register

from .game import GAME, HogwartsGame

register(GAME)

__all__ = ["GAME", "HogwartsGame"]
