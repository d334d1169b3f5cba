"""Issue 12's "every": the audit of A Year at Hogwarts' scenario tests, and the scenarios that fill its gaps.

Every list below is derived from the loaded data (``data.load()``), so a new mission, cell kind, deck, card,
token or Death Eater without a working effect fails here.  Engine mode (stacked decks, fixed dice: ``WIN``
rolls 6, 6, 6 then 1, 1, 2, so a 3-dice attack hits three times and the counter-roll misses), plus one
scenario through the real protocol.  The audit (before this file; R = test_hogwarts_rules, B = _board,
Q = _qualified, S = _solo_team, D = _quidditch, V = _voldemort; "both" = engine and protocol):

* Movement examples (data §1.9): the four distances and printed paths on the graph (B), Harry's 10-step turn
  through the engine (R).  No engine move for the four distances: added.
* Cell kinds (§1.1, 18 rows): a stop's effect was tested for event and action (their tasks pushed directly,
  both), duel (both; 1 LP gating), spell (m010, Harry's x2), life (hospital_wing only), special (Hagrid's hut,
  the task list only), common room (the token exchange only), the pitch (D), tower (flying powder, R), start and
  blocked (movement, B).  No scenario: corridor, star, place, bridge (no effect), potion, book, classroom (its
  cards; exams were tested alone), 16 of the 17 §1.7 cells, 7 of the 8 life cells, a common room's card.
  Added: one scenario per kind, every life cell, every §1.7 cell checked against the row's own text.
* Decks (§2.1, 8 + missions): each had a draw (spell, potion by Accio, book by exam, action, event, duel,
  battle, Quidditch, the mission deal), but few of their cards: action 2 of 11, event 4 of 16, duel 2 of 18,
  battle 3 of 30 (the Quidditch cards: all 7, D).  Added: every deck drawn from, every action, event (each
  term checked on both seats, the three group battles won) and duel card (won, or fled) resolved.
* Missions (§3.3, 30): attempted before: M04 (underage, both; won or lost), M02 (qualified, engine), M04 (team,
  S).  None of the other 28; no qualified mission through the protocol; the early stop that opens a mission
  with the move (E5, mission 30) never; a mission's own special token used in its battle (C-51) never.
  Added: all 30 won on their location with their tokens, underage, qualified (cards shown, then under their
  decks) and by a team (the teammate's token and cards, the doubled enemy): reward to the holder, tokens
  handed in to board 2 star cells, the card out of the hand; each of the 9 mission/special-token pairs used
  in the battle and handed in; mission 30 by an early stop; mission 16 qualified through the protocol (the
  card opened to every peer, clean audits).
* Object tokens (§3.1, 30): tested before: Elder Wand and Resurrection Stone (R), the Cloak (R), the
  Time-Turner (R); the Sword only as a Return-mode weapon (V); Buckbeak only as the board's destination list
  (B), never a trip; one pick-up in Harry's turn; no test of the holding limit of 6 and its swap (C-19) or of
  2 tokens a turn; only 2 mission items ever handed in.  Portal (D, both) and flying powder (R) trips were
  tested.  Added: every token picked up and swapped at 6, 2 a turn, every token a mission item (so handed in
  above), every special token's effect (the Sword's die, Buckbeak's trip and return).
* Battle kinds: each had a scenario — an enemy alone (R, missions, duels), a group (EV14, R), the underage
  dice duel (R, both), the qualified player battle (Q), the Death Eater battle (Q: backs 1 and 7; through the
  protocol), a team mission (S), Return battles (V).  Gaps: 6 of the 8 Death Eater backs never drawn, 2 of the
  3 event enemies.  Added: every back beaten (its cards dealt to its player only), every event enemy.
* Quidditch phases and modes: the challenge, houses and first player, Phase 1 (the worked match, each rule),
  Phase 2 (the worked match, each card), the reward (D), Snitch practice (S, solo only), the match requirement
  (Q); modes underage (R), qualified (Q), solo and team (S), Return (V), each with bot games.  Gap: the
  practice of one team of all (C-9).  Added: it.

Beyond the issue's list: the students' 18 abilities (data §4.1, §4.3) had scenarios for Harry's spell cell,
Draco's refusal, Pettigrew's ``rat`` (Q), Cho's card (D) and Ron's re-roll (V, Return only); the other 13
none.  The enemies' 12 ability terms (§2.2) had specific checks for ``reveal:lose``/``after:lose`` (Tom
Riddle, R) and ``after:roll`` (Fluffy's Dodge, R) only; the 8 Death Eaters' abilities in the base game's
battle (``versus``) none (``execute`` was met only with dice that would hit anyway; ``crucio`` and ``spy`` are
tested in the Return mode's own battle, V).  Of the 32 distinct spell and potion cards, two were played: stupefy
(a player battle, Q) and accio (R); the movement cards' rolls were tested as a pure function (R).  Added: one
scenario per student ability, per enemy term (the first card using it), the immunity, per Death Eater
ability, and per spell and potion card (its terms in a battle, or as a start-of-turn card).

Found and fixed: Greyback's ``bite_regen`` in a base-game Death Eater battle healed him up to 14, above his sheet's
8 LP; ``versus`` now caps a Death Eater at its sheet's LP, as the Return mode does (V18).

Left open: the scenarios of this file run on the engine only, except the one protocol run above (the protocol
runs of the other files: "both"); the Return mode's own lists (§4.4) stay with test_hogwarts_voldemort.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import pytest
from test_hogwarts_qualified import PLACES, QTable, back
from test_hogwarts_quidditch import dice as find_dice
from test_hogwarts_rules import Table
from test_hogwarts_solo_team import Team

from p2php.engine.contract import Decide, GameOver
from p2php.games.hogwarts.battle import Battle
from p2php.games.hogwarts.board import buckbeak_destinations, flying_powder_destinations, walks
from p2php.games.hogwarts.cards_flow import ActionCards
from p2php.games.hogwarts.cells_effects import CellEffect, Duel, effect_tasks
from p2php.games.hogwarts.data import graph, load
from p2php.games.hogwarts.death_eater_battle import DEATH_EATER_BACKS, DEATH_EATER_POINTS, DeathEaterBattle
from p2php.games.hogwarts.decks import Draw
from p2php.games.hogwarts.dice import faces
from p2php.games.hogwarts.events import Event
from p2php.games.hogwarts.ids import deck_of_slot, instance
from p2php.games.hogwarts.mission_flow import MissionAttempt
from p2php.games.hogwarts.missions import CardNeed, Mission
from p2php.games.hogwarts.moves import MAX_PICKUPS, Move, Pickups, Trip
from p2php.games.hogwarts.rules import constraints, location_cells
from p2php.games.hogwarts.start_cards import rolls_for
from p2php.games.hogwarts.state import MAX_TOKENS, HogwartsState
from p2php.games.hogwarts.terms import amount, parse
from p2php.games.hogwarts.turn import TimeTurner
from p2php.games.hogwarts.versus import Versus

DATA = load()
dice = cache(find_dice)
"""Joint random bytes for the dice wanted (searched once per pattern)."""
HARRY, HERMIONE, PETTIGREW = 1, 3, 9
WIN = hashlib.sha256(b"win293").digest()
"""Joint random bytes whose dice are 6, 6, 6, 1, 1, 2: a 3-dice attack hits any enemy (res ≤ 6) three times and
its counter-roll of up to 3 dice misses a res-3-or-more student (Harry: res 4, 3 against ``res-1``)."""
BOARD2_STARS = tuple(c.id for c in DATA.cells.values() if c.board == "board2" and c.kind == "star")
DIAGON_STARS = tuple(c.id for c in DATA.cells.values() if c.board == "board1" and c.kind == "star")


def give(g: HogwartsState, seat: int, token: str) -> str:
    """Move ``token`` from the board onto ``seat``'s sheet; the cell it lay on."""
    cell = next(c for c, tokens in sorted(g.tokens.items()) if token in tokens)
    g.take_token(cell, token)
    g.held[seat].append(token)
    return cell


FIRST, LAST = object(), object()
"""Answers :func:`drive` gives: the first or the last legal action."""


def drive(t: Table | QTable, until: str, answers: Mapping[str, Any] | None = None,
          seen: list[str] | None = None) -> Decide | GameOver:
    """Answer decisions (``answers`` by prompt: an action, FIRST or LAST; else the first legal action) until the
    prompt ``until``."""
    for _ in range(400):
        step = t.step()
        assert isinstance(step, Decide | GameOver)
        if isinstance(step, GameOver) or step.prompt == until:
            return step
        if seen is not None:
            seen.append(step.prompt)
        seat = step.seats[0]
        legal = t.legal(seat)
        wanted = (answers or {}).get(step.prompt, FIRST)
        t.act(seat, legal[0] if wanted is FIRST else legal[-1] if wanted is LAST else wanted)
    raise AssertionError(f"no {until!r} in 400 decisions")


def snapshot(g: HogwartsState) -> Any:
    return ([len(h) for h in g.hand], list(g.points), list(g.lp), list(g.pos), len(g.pub),
            {d: len(s) for d, s in sorted(g.deck.items())}, [list(h) for h in g.held])


# ----------------------------------------------------------------------------- the rulebook's movement examples


@pytest.mark.parametrize("example", DATA.movement_examples, ids=lambda e: f"{e.source}-{e.target}")
def test_the_rulebook_s_movement_examples_are_moves_of_the_engine(example: Any) -> None:
    """Data §1.9: from the example's start, a roll of its distance offers its printed path, and playing it
    puts the figure on the example's target (Harry's 10-step turn: test_hogwarts_rules)."""
    t = Table(2, random=(WIN, dice(1, example.steps - 1)), mode="engine")
    g = t.state
    t.decide()
    g.pos[0] = example.source
    t.act(0, {"type": "no_start"}, "start_card")
    move = {"type": "move", "path": list(example.path), "roll": example.steps}
    assert move in t.legal(0)
    t.act(0, move, "move")
    assert g.pos[0] == example.target


# ----------------------------------------------------------------------------- every mission


def card_for(need: CardNeed) -> str:
    """A spell or potion card that meets ``need`` (the exact card, else the first of its deck and use)."""
    if need.card:
        return need.card
    cards = DATA.spells if need.deck == "spell" else DATA.potions
    return next(c.id for c in cards.values() if c.use == need.use)


def mission_tops(mission: Mission, qualified: bool) -> dict[str, list[str]]:
    """Decks stacked so that seat 0 (Harry: 4 spell and 2 potion cards) is dealt ``mission`` first and, under
    the qualified rules, the cards it needs."""
    tops: dict[str, list[str]] = {"mission": [f"M{mission.number:02d}"], "spell": [], "potion": []}
    for need in mission.qualified_cards if qualified else ():
        card = card_for(need)
        tops[DATA.hand_card(card).deck].append(card)
    return tops


def complete(t: Table | QTable, mission: Mission) -> list[int]:
    """Seat 0 attempts ``mission`` on its location with its tokens (and cards) and wins its battle card; the
    slots of the cards shown."""
    g = t.state
    t.decide()
    g.lp[0] = 14
    for token in mission.tokens:
        give(g, 0, token)
    g.pos[0] = location_cells(mission.location)[0]
    slot, points = g.missions[0][0], g.points[0]
    if isinstance(t, Table):
        t.push(MissionAttempt(0))
    else:
        t.push_task(MissionAttempt(0))
    t.act(0, {"type": "mission", "slot": slot}, "mission")
    assert instance(g.pub[slot]).card == f"M{mission.number:02d}"  # opened to everyone
    shown: list[int] = []
    if mission.qualified_cards and isinstance(t, QTable):
        show = t.legal(0)[-1]
        assert show["type"] == "show" and len(show["slots"]) == len(mission.qualified_cards)
        shown = list(show["slots"])
        t.act(0, show, "mission_cards")
        assert [instance(g.pub[s]).card for s in shown] == [card_for(n) for n in mission.qualified_cards]
    placed: list[tuple[str, str]] = []
    for _ in range(60):
        step = t.decide()
        if step.prompt == "hand_in":
            action = t.legal(0)[-1]
            placed.append((action["token"], action["cell"]))
            t.act(0, action)
            continue
        if step.prompt == "start_card":
            break
        answer = {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}}.get(step.prompt)
        assert answer is not None, f"mission {mission.number}: unexpected decision {step.prompt}"
        t.act(0, answer)
    won = [e for e in g.events if e[0] == "battle_won"]
    assert won and won[-1][2] == mission.battle_card, f"mission {mission.number}: {g.events}"
    assert g.done[0] == [mission.number] and g.points[0] == points + mission.reward
    assert slot not in g.missions[0]
    assert sorted(t for t, _ in placed) == sorted(mission.tokens)  # handed in, the tokens used in battle too
    for token, cell in placed:
        assert cell in BOARD2_STARS and token in g.tokens[cell] and token not in g.held[0]
    for s in shown:  # the cards shown go under their decks, used or not (C-52)
        assert s not in g.hand[0] and s in g.deck[deck_of_slot(s)]
    return shown


def test_the_fixed_dice_hit_three_times_and_the_counter_roll_misses() -> None:
    assert faces(WIN, 6) == [6, 6, 6, 1, 1, 2]


@pytest.mark.parametrize("mission", DATA.missions, ids=lambda m: f"M{m.number:02d}")
def test_every_mission_is_completed_on_its_location_with_its_tokens(mission: Mission) -> None:
    t = Table(2, tops=mission_tops(mission, False), sheets=(HARRY, PETTIGREW), random=(WIN,) * 40, mode="engine")
    complete(t, mission)


@pytest.mark.parametrize("mission", [m for m in DATA.missions if m.qualified_cards], ids=lambda m: f"M{m.number:02d}")
def test_every_mission_is_completed_in_qualified_mode_with_its_cards_shown(mission: Mission) -> None:
    t = QTable(2, tops=mission_tops(mission, True), sheets=(HARRY, PETTIGREW), random=(WIN,) * 40, mode="engine")
    complete(t, mission)


# ----------------------------------------------------------------------------- every cell kind


def stop_on(cell: str, tops: dict[str, list[str]] | None = None, sheets: tuple[int, int] = (PETTIGREW, HARRY),
            random: tuple[bytes, ...] = ()) -> Table:
    """Seat 0 (Pettigrew: no movement ability changes a cell's effect) standing on ``cell``."""
    t = Table(2, tops=tops, sheets=sheets, random=random, mode="engine")
    t.decide()
    t.state.pos[0] = cell
    return t


def stopped(t: Table, answers: Mapping[str, Any] | None = None) -> list[str]:
    """Apply the effect of seat 0's cell (the turn's step 4); the prompts it asked."""
    seen: list[str] = []
    t.push(CellEffect(0))
    step = drive(t, "start_card", answers, seen)
    assert isinstance(step, Decide) and step.seats == (0,)
    return seen


def new_cards(t: Table, before: list[int]) -> list[str]:
    """The decks of the cards seat 0 took since ``before``; the taker sees them, the other seat does not."""
    new = [s for s in t.state.hand[0] if s not in before]
    assert all(t.table.knowledge(0).face(s) is not None and t.table.knowledge(1).face(s) is None for s in new)
    return sorted(deck_of_slot(s) for s in new)


def no_effect(cell: str) -> None:
    t = stop_on(cell)
    before = snapshot(t.state)
    assert effect_tasks(t.state, 0) == []
    assert stopped(t) == [] and snapshot(t.state) == before


def tower(cell: str) -> None:
    no_effect(cell)
    t = stop_on(cell)
    assert t.state.powder[0] >= 1  # a flying powder departure point (rules §9.7)
    flights = [a["to"] for a in Trip(0).offers(t.state) if a["type"] == "fly"]
    assert flights == list(flying_powder_destinations(graph())) and flights


def symbol(cell: str) -> None:
    t = stop_on(cell)
    hand = list(t.state.hand[0])
    assert stopped(t) == [] and new_cards(t, hand) == [DATA.cells[cell].kind]


def action(cell: str) -> None:
    t = stop_on(cell, tops={"action": ["AC01"]})  # Outstanding O.W.L. results: points(+50)
    g = t.state
    assert stopped(t) == [] and g.points == [50, 0]
    assert instance(g.pub[g.deck["action"][-1]]).card == "AC01"  # face up, under its deck


def event(cell: str) -> None:
    t = stop_on(cell, tops={"event": ["EV12"]})  # The House Cup race is on: everyone +10
    g = t.state
    assert stopped(t) == [] and g.points == [10, 10]
    assert instance(g.pub[g.deck["event"][-1]]).card == "EV12"


def duel(cell: str) -> None:
    t = stop_on(cell, tops={"duel": ["DU10"]}, sheets=(HARRY, PETTIGREW), random=(WIN,) * 20)  # Vincent Crabbe
    g = t.state
    hand = list(g.hand[0])
    stopped(t, {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}})
    assert ["battle_won", [0], "DU10"] in g.events
    assert new_cards(t, hand) == ["book", "potion", "spell"]  # a duel won (rules §14.3)
    assert instance(g.pub[g.deck["duel"][-1]]).card == "DU10"
    t = stop_on(cell)
    t.state.lp[0] = 1
    assert effect_tasks(t.state, 0) == []  # not with 1 LP


def life(cell: str) -> None:
    for kind_cell in (c.id for c in DATA.cells.values() if c.life_points is not None):
        t = stop_on(kind_cell)
        t.state.lp[0] = 1
        assert stopped(t) == [] and t.state.lp[0] == 1 + (DATA.cells[kind_cell].life_points or 0)
        t.state.lp[0] = 13
        assert stopped(t) == [] and t.state.lp[0] == 14  # never above 14


def effect_cell(cell: str) -> None:
    """Every classroom or special cell of ``cell``'s kind gives what §1.7's text says."""
    for each in (c.id for c in DATA.cells.values() if c.kind == DATA.cells[cell].kind):
        listed(each)


def common_room(cell: str) -> None:
    t = stop_on(cell)
    hand = list(t.state.hand[0])
    t.push(CellEffect(0))
    assert [a["deck"] for a in t.legal(0) if a["type"] == "deck"] == ["action", "book", "potion", "spell"]
    t.act(0, {"type": "deck", "deck": "potion"}, "common_room")
    t.expect(0, "start_card")
    assert new_cards(t, hand) == ["potion"]


def pitch(cell: str) -> None:
    t = stop_on(cell)
    t.push(CellEffect(0))
    assert t.legal(0) == [{"type": "no_match"}, {"type": "challenge", "seat": 1}]
    t.act(0, {"type": "no_match"}, "challenge")
    t.expect(0, "start_card")


def blocked(cell: str) -> None:
    assert cell not in graph().enterable
    assert not any(cell in c.neighbours or cell in c.free_links for c in DATA.cells.values())


KIND_SCENARIOS: dict[str, Callable[[str], None]] = {
    "start": no_effect, "corridor": no_effect, "star": no_effect, "place": no_effect, "bridge": no_effect,
    "tower": tower, "spell": symbol, "potion": symbol, "book": symbol, "action": action, "event": event,
    "duel": duel, "life:N": life, "classroom": effect_cell, "special": effect_cell, "common_room": common_room,
    "quidditch_pitch": pitch, "blocked": blocked}
"""One scenario per §1.1 kind, run on the first cell of that kind (every cell, for life, classroom, special)."""


@pytest.mark.parametrize("kind", list(DATA.cell_kinds))
def test_every_cell_kind_does_what_the_data_says_when_stopped_on(kind: str) -> None:
    assert kind in KIND_SCENARIOS, f"cell kind {kind!r} has no scenario"
    cells = [c.id for c in DATA.cells.values() if c.kind == kind or (kind == "life:N" and c.life_points)]
    assert cells, f"no cell of kind {kind!r}"
    KIND_SCENARIOS[kind](cells[0])


def test_every_classroom_and_special_cell_has_a_listed_effect() -> None:
    assert sorted(DATA.cell_effects) == sorted(c.id for c in DATA.cells.values() if c.kind in ("classroom", "special"))


def listed(cell: str) -> None:
    """Stopping on a §1.7 cell gives the cards its *text* names (read here, apart from the extracted terms)."""
    text = DATA.cell_effects[cell].text
    takes = [(deck, int(n)) for n, deck in re.findall(r"(\d) (spell|potion|book|Quidditch) cards?", text)]
    draws = sum(int(n) for n in re.findall(r"draw (\d) action cards?", text))
    exam = re.search(r"exams: subject `(\w+)`", text)
    t = stop_on(cell)
    g = t.state
    hand, actions = list(g.hand[0]), len(g.pub)
    seen = stopped(t)
    want = sorted(deck.lower() for deck, n in takes for _ in range(n))
    assert new_cards(t, hand) == want, f"{cell}: {text}"
    opened = [s for s in g.deck["action"] if s in g.pub]
    assert len(opened) == draws and len(g.pub) - actions == draws, f"{cell}: {text}"
    assert ("exam" in seen) == bool(exam), f"{cell}: {text}"  # Pettigrew holds a book card
    if exam:
        assert DATA.cell_effects[cell].exam == exam.group(1)


@pytest.mark.parametrize("cell", list(DATA.cell_effects))
def test_every_listed_cell_effect_fires(cell: str) -> None:
    listed(cell)


# ----------------------------------------------------------------------------- every object token


def test_every_object_token_is_an_item_of_some_mission() -> None:
    """So the mission scenarios above hand in every token (the role of the horcrux, ritual, weapon and plain
    groups outside the Return mode) and fight with the special ones on the sheet."""
    items = {t for m in DATA.missions for t in m.tokens}
    assert sorted(DATA.object_tokens) == sorted(items)


@pytest.mark.parametrize("token", list(DATA.object_tokens))
def test_every_object_token_is_picked_up_and_swapped_at_six(token: str) -> None:
    t = Table(2, mode="engine")
    g = t.state
    t.decide()
    cell = next(c for c, tokens in sorted(g.tokens.items()) if token in tokens)
    t.push(Pickups(0, [cell]))
    take = {"type": "take", "cell": cell, "token": token}
    assert t.legal(0) == [take, {"type": "done"}]
    t.act(0, take, "tokens")
    t.expect(0, "start_card")
    assert g.held[0] == [token] and token not in g.tokens.get(cell, [])
    g.held[0].remove(token)
    g.place_token(cell, token)
    for other in [x for x in DATA.object_tokens if x != token][:MAX_TOKENS]:
        give(g, 0, other)
    held = list(g.held[0])
    t.push(Pickups(0, [cell]))
    assert t.legal(0) == [{**take, "give": u} for u in held] + [{"type": "done"}]  # full: only swaps (C-19)
    t.act(0, {**take, "give": held[2]}, "tokens")
    t.expect(0, "start_card")  # the token given up is not offered again this turn
    assert len(g.held[0]) == MAX_TOKENS and token in g.held[0] and g.tokens[cell] == [held[2]]


def test_two_tokens_a_turn_at_most() -> None:
    t = Table(2, mode="engine")
    g = t.state
    t.decide()
    cells = sorted(c for c, tokens in g.tokens.items() if tokens)[:MAX_PICKUPS + 1]
    t.push(Pickups(0, cells))
    for cell in cells[:MAX_PICKUPS]:
        t.act(0, {"type": "take", "cell": cell, "token": g.tokens[cell][0]}, "tokens")
    t.expect(0, "start_card")
    assert len(g.held[0]) == MAX_PICKUPS and g.tokens[cells[-1]]


def battle_with(token: str, enemy: str) -> tuple[Table, Battle]:
    """Harry (14 LP, ``token`` on his sheet, the fixed dice) fights ``enemy`` alone."""
    t = Table(2, sheets=(HARRY, PETTIGREW), random=(WIN,) * 30, mode="engine")
    g = t.state
    t.decide()
    give(g, 0, token)
    g.lp[0] = 14
    battle = Battle([0], enemy, "mission", 5)
    t.push(battle)
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(0, {"type": "token", "token": token}, "attack")
    return t, battle


def put_back(t: Table, token: str) -> None:
    """The battle ends; the special token used goes to a Diagon Alley star cell (rules §13, C-29)."""
    step = drive(t, "place_used", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}})
    assert isinstance(step, Decide)
    assert t.legal(0) == [{"type": "place", "token": token, "cell": c} for c in DIAGON_STARS]
    t.act(0, {"type": "place", "token": token, "cell": DIAGON_STARS[-1]}, "place_used")
    assert token in t.state.tokens[DIAGON_STARS[-1]] and token not in t.state.held[0]


def extra_die(token: str) -> None:
    t, battle = battle_with(token, "BA04")  # the Whomping Willow: no counter-roll shares the attack's draw
    assert battle.bonus == {0: 1} and token not in t.state.held[0]
    t.act(0, {"type": "dice"}, "attack")
    t.decide()
    rolls = [e[2] for e in t.state.events if e[:2] == ["roll", "attack"]]
    assert len(rolls[0]) == DATA.students[HARRY - 1].attack_dice + 1
    put_back(t, token)


def stone(token: str) -> None:
    t, battle = battle_with(token, "BA06")  # Tom Riddle: -2 when revealed, -3 after each attack
    g = t.state
    assert battle.buffer == {0: 6} and g.lp[0] == 12
    t.act(0, {"type": "dice"}, "attack")
    t.decide()
    assert g.lp[0] == 12 and battle.buffer == {0: 3}  # the Stone's 6 LP take the losses first
    put_back(t, token)
    assert battle.buffer == {}  # they vanish with the battle (C-27)


def cloak(token: str) -> None:
    t, _ = battle_with(token, "BA02")
    g = t.state
    escapes = t.legal(0)
    assert escapes and all(a["type"] == "escape" and 1 <= len(a["path"]) - 1 <= 5 for a in escapes)
    t.act(0, escapes[-1], "cloak_move")
    assert g.pos[0] == escapes[-1]["path"][-1] and 0 in g.ended  # no winner; the turn ends (C-28)
    assert not [e for e in g.events if e[0] in ("battle_won", "battle_lost")]
    t.act(0, {"type": "place", "token": token, "cell": DIAGON_STARS[0]}, "place_used")
    assert token in g.tokens[DIAGON_STARS[0]]


def time_turner(token: str) -> None:
    t = Table(2, mode="engine")
    g = t.state
    t.decide()
    give(g, 0, token)
    t.push(TimeTurner(0))
    assert t.legal(0) == [{"type": "pass"}, {"type": "time_turner"}]
    t.act(0, {"type": "time_turner"}, "time_turner")
    t.act(0, {"type": "place", "token": token, "cell": DIAGON_STARS[1]}, "place_used")
    t.expect(0, "start_card")  # the extra turn, run before the rest of the current one (C-49)
    assert token in g.tokens[DIAGON_STARS[1]] and token not in g.held[0]


def buckbeak(token: str) -> None:
    """After the move, Buckbeak flies to any cell of board 1 or 2 (no cell effect there, C-21), goes to
    Diagon Alley, and the figure is back where the move ended when the turn ends."""
    t = Table(2, sheets=(HARRY, PETTIGREW), random=(WIN,) * 4, mode="engine")  # the roll: 6 + 6
    g = t.state
    t.decide()
    give(g, 0, token)
    t.act(0, {"type": "no_start"}, "start_card")
    move = next(a for a in t.legal(0) if DATA.cells[a["path"][-1]].kind in ("corridor", "star", "bridge"))
    t.act(0, move, "move")
    drive(t, "trip", {"tokens": {"type": "done"}})
    trips = [a["to"] for a in t.legal(0) if a["type"] == "buckbeak"]
    assert trips == [c for c in buckbeak_destinations(graph()) if c != g.pos[0]]
    to = next(c for c in trips if DATA.cells[c].kind == "potion" and not g.tokens.get(c))
    hand = len(g.hand[0])
    t.act(0, {"type": "buckbeak", "to": to}, "trip")
    assert g.pos[0] == to and token not in g.held[0]
    t.act(0, {"type": "place", "token": token, "cell": DIAGON_STARS[0]}, "place_used")
    step = drive(t, "start_card", {"tokens": {"type": "done"}})
    assert isinstance(step, Decide) and step.seats == (1,)
    assert g.pos[0] == move["path"][-1] and len(g.hand[0]) == hand and token in g.tokens[DIAGON_STARS[0]]


SPECIAL_SCENARIOS: dict[str, Callable[[str], None]] = {
    "elder_wand": extra_die, "gryffindors_sword": extra_die, "resurrection_stone": stone,
    "invisibility_cloak": cloak, "time_turner": time_turner, "buckbeak": buckbeak}
"""What each special token does (data §3.1); the other groups are mission items only outside the Return mode."""


@pytest.mark.parametrize("token", [t.id for t in DATA.object_tokens.values() if t.group == "special"])
def test_every_special_token_does_what_the_data_says(token: str) -> None:
    assert token in SPECIAL_SCENARIOS, f"special token {token!r} has no scenario"
    SPECIAL_SCENARIOS[token](token)


# ----------------------------------------------------------------------------- every deck and its cards


def hand_deck(deck: str) -> None:
    t = Table(2, mode="engine")
    t.decide()
    hand = list(t.state.hand[0])
    t.push(Draw(0, deck))
    t.expect(0, "start_card")
    assert new_cards(t, hand) == [deck]


def face_up_deck(deck: str) -> None:
    """The top card is opened to everyone, applied, and goes under its deck (E3)."""
    t = Table(2, sheets=(HARRY, HERMIONE), random=(WIN,) * 30, mode="engine")
    t.decide()
    top = t.state.deck[deck][0]
    t.state.lp[0] = 14
    t.push({"action": ActionCards, "event": Event, "duel": Duel}[deck](0))
    drive(t, "start_card", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}})
    assert top in t.state.pub and top in t.state.deck[deck][-2:]  # a duel showing the drawer: one more card
    assert t.state.deck[deck][-1] in t.state.pub


def battle_deck(deck: str) -> None:
    """Not shuffled, one card per mission: the mission scenarios above fight every one of them."""
    assert sorted(m.battle_card for m in DATA.missions) == sorted(DATA.battle_cards)


def mission_deck(deck: str) -> None:
    t = Table(3, mode="engine")
    for seat, slots in enumerate(t.state.missions):
        assert len(slots) == 5 and all(deck_of_slot(s) == "mission" for s in slots)
        assert all(t.table.knowledge(seat).face(s) is not None for s in slots)
        assert all(t.table.knowledge((seat + 1) % 3).face(s) is None for s in slots)


DECK_SCENARIOS: dict[str, Callable[[str], None]] = {
    "spell": hand_deck, "potion": hand_deck, "book": hand_deck, "quidditch": hand_deck, "action": face_up_deck,
    "event": face_up_deck, "duel": face_up_deck, "battle": battle_deck, "mission": mission_deck}


@pytest.mark.parametrize("deck", list(DATA.decks))
def test_every_deck_is_drawn_from(deck: str) -> None:
    assert deck in DECK_SCENARIOS, f"deck {deck!r} has no scenario"
    DECK_SCENARIOS[deck](deck)


@pytest.mark.parametrize("card", list(DATA.actions))
def test_every_action_card_is_applied_to_its_drawer(card: str) -> None:
    t = Table(2, tops={"action": [card]}, mode="engine")
    g = t.state
    t.decide()
    g.points[0] = 100
    before = g.powder[0]
    t.push(ActionCards(0))
    t.expect(0, "start_card")
    for term in DATA.actions[card].effect:
        head, args = parse(term)
        assert head in ("points", "flying_powder"), f"{card}: no scenario for {term}"
        if head == "points":
            assert g.points == [100 + amount(args[0]), 0]
        else:
            assert g.powder[0] == before + amount(args[0])
    assert instance(g.pub[g.deck["action"][-1]]).card == card


def event_holds(g: HogwartsState, s: int, term: str, before: Any, seen: list[str]) -> bool:
    """Whether seat ``s`` shows the effect of an event's ``term`` (``before``: the seats' state before)."""
    hands, points, lp, powder, portals = before
    head, args = parse(term)
    new = [deck_of_slot(x) for x in g.hand[s] if x not in hands[s]]
    gone = [x for x in hands[s] if x not in g.hand[s]]
    n = amount(args[0]) if args and args[0].lstrip("+-").isdigit() else 0
    if head == "group_battle":
        reward = parse((DATA.event_battles[args[0]].reward or "").split(":")[-1])[1][0]
        return g.points[s] == points[s] + amount(reward)
    outcomes = {
        "flying_powder": g.powder[s] == powder[s] + n,
        "portal": g.portals[s] == portals[s] + n,
        "move_to": g.pos[s] in (DATA.great_hall_cells() if args[0] == "gh" else (args[0],)),
        "heal": g.lp[s] == min(14, lp[s] + n),
        "heal_to": g.lp[s] == max(lp[s], n),
        "lose_min1": g.lp[s] == max(1, lp[s] - n),
        "points": g.points[s] == points[s] + n,
        "draw": new == args[:1],
        "draw_choice": len(new) == 1 and new[0] in args,
        "exam_anywhere": len(gone) == n and g.points[s] > points[s] and "exam" in seen,
        "return_card": len(gone) == n and not new,
    }
    assert head in outcomes, f"no scenario for the event term {term!r}"
    return outcomes[head]


@pytest.mark.parametrize("card", list(DATA.events))
def test_every_event_card_applies_to_all_players(card: str) -> None:
    t = Table(2, tops={"event": [card]}, sheets=(HARRY, HERMIONE), random=(WIN,) * 40, mode="engine")
    g = t.state
    t.decide()
    g.points[:], g.lp[:] = [100, 100], [5, 5]
    if parse(DATA.events[card].effect[0])[0] == "group_battle":
        g.lp[:] = [14, 14]
    before = ([list(h) for h in g.hand], list(g.points), list(g.lp), list(g.powder), list(g.portals))
    seen: list[str] = []
    t.push(Event(0))
    drive(t, "start_card", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}, "exam": LAST}, seen)
    for seat in (0, 1):
        for term in DATA.events[card].effect:  # every term, so that a second one no rule applies would fail
            assert event_holds(g, seat, term, before, seen), f"{card} ({term}), seat {seat}: {g.events}"
    assert instance(g.pub[g.deck["event"][-1]]).card == card


@pytest.mark.parametrize("card", list(DATA.duels))
def test_every_duel_card_is_fought_and_won_with_the_fixed_dice(card: str) -> None:
    own = DATA.duels[card].name == DATA.students[HARRY - 1].name  # a card showing the drawer is replaced
    t = Table(2, tops={"duel": [card]}, sheets=(HERMIONE, HARRY) if own else (HARRY, HERMIONE),
              random=(WIN,) * 30, mode="engine")
    g = t.state
    t.decide()
    g.lp[0] = 14
    hand = list(g.hand[0])
    t.push(Duel(0))
    drive(t, "start_card", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}})
    fled = "flee" in " ".join(DATA.duels[card].abilities)
    assert ["battle_won" if not fled else "fled", *([[0]] if not fled else []), card] in g.events, g.events
    assert new_cards(t, hand) == (["book"] if fled else ["book", "potion", "spell"])  # fled: 1 card of choice
    assert instance(g.pub[g.deck["duel"][-1]]).card == card


# ----------------------------------------------------------------------------- every Death Eater


@pytest.mark.parametrize("eater", range(1, DEATH_EATER_BACKS + 1), ids=lambda n: DATA.death_eaters[n - 1].name)
def test_every_death_eater_back_is_fought_with_its_cards_and_beaten(eater: int) -> None:
    """Each of the 8 backs a Death Eater battle draws (C-35) takes its sheet's cards, dealt to its player only,
    and fights until Harry (14 LP, the fixed dice) wins 20 points and the token leaves the board."""
    assert len(DATA.death_eaters) - 1 == DEATH_EATER_BACKS  # the ninth is Lord Voldemort
    t = QTable(2, sheets=(HARRY, PETTIGREW), random=(back(eater), *(WIN,) * 20), mode="engine")
    g = t.state
    t.decide()
    g.pos[0], g.lp[0] = PLACES[0], 14
    sheet = DATA.death_eaters[eater - 1]
    dealt = [s for deck in ("spell", "potion") for s in g.deck[deck][:sheet.start_cards.get(deck, 0)]]
    battle = DeathEaterBattle(0, PLACES[0])
    t.push_task(battle)
    drive(t, "start_card", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}})
    assert battle.eater == eater and ["death_eater_battle", 0, eater, 1] in g.events
    assert dealt and all(t.table.knowledge(1).face(s) is not None for s in dealt)  # dealt to its player
    assert all(t.table.knowledge(0).face(s) is None for s in dealt if s not in g.pub)
    assert all(s in g.deck[deck_of_slot(s)] for s in dealt)  # under their decks afterwards
    assert g.points[0] == DEATH_EATER_POINTS and PLACES[0] not in g.death_eaters, g.events


# ----------------------------------------------------------------------------- through the real protocol


def test_a_qualified_mission_is_completed_through_the_protocol_with_its_cards_revealed() -> None:
    """Mission 16 (Dumbledore's Army: the coin, an attack spell) in qualified mode through the real protocol:
    the card is opened with the answer, the spell card shown through the reveal (every peer sees its face),
    the battle won on joint dice, the coin handed in to board 2; every peer's audit is clean."""
    mission = DATA.mission(16)
    t = QTable(2, tops=mission_tops(mission, True), sheets=(HARRY, PETTIGREW), mode="protocol")
    shown = complete(t, mission)
    assert len(shown) == 1
    spell = card_for(mission.qualified_cards[0])
    for peer in t.table.peers:
        assert peer.state.done[0] == [16] and instance(peer.state.pub[shown[0]]).card == spell
    t.finish()


def test_a_move_may_stop_early_to_complete_a_mission_opened_with_it() -> None:
    """E5 (rules §9.5.1): mission 30's Great Hall cells are no voluntary stops, yet a move of 12 may end on one
    when the mission can be completed there; the move names and opens the card, and the attempt follows without
    being asked."""
    mission = DATA.mission(30)
    t = Table(2, tops=mission_tops(mission, False), sheets=(HARRY, PETTIGREW), random=(WIN,) * 40, mode="engine")
    g = t.state
    t.decide()
    g.lp[0] = 14
    for token in mission.tokens:
        give(g, 0, token)
    slot = g.missions[0][0]
    hall = DATA.great_hall_cells()
    g.pos[0] = next(n for c in hall for n in DATA.cells[c].neighbours if n not in hall)
    t.act(0, {"type": "no_start"}, "start_card")
    early = [a for a in t.legal(0) if "mission" in a]
    assert early and all(a["mission"] == slot and a["path"][-1] in hall and len(a["path"]) - 1 < 12 for a in early)
    t.act(0, early[0], "move")
    assert instance(g.pub[slot]).card == "M30"
    seen: list[str] = []
    drive(t, "hand_in", {"tokens": {"type": "done"}, "defend": {"type": "no_defence"}, "attack": {"type": "dice"}},
          seen)
    assert "mission" not in seen and g.done[0] == [30]


# ----------------------------------------------------------------------------- every student's abilities


def other(sheet: int) -> int:
    """A sheet for seat 1 that is not ``sheet``."""
    return PETTIGREW if sheet != PETTIGREW else HARRY


def fight(sheet: int, enemy: str, *random: bytes, lp: int | None = None) -> tuple[Table, Battle]:
    """``sheet`` (seat 0) fights ``enemy`` alone with the fixed dice ``random``."""
    t = Table(2, sheets=(sheet, other(sheet)), random=(WIN, *random), mode="engine")
    g = t.state
    t.decide()
    if lp is not None:
        g.lp[0] = lp
    battle = Battle([0], enemy, "mission", 5)
    t.push(battle)
    return t, battle


def attack_with_dice(t: Table) -> None:
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(0, {"type": "dice"}, "attack")
    t.decide()


def res_minus_1(sheet: int) -> None:
    t, battle = fight(sheet, "BA04", dice(4, 4, 4))  # the Whomping Willow: res 5, 6 LP
    attack_with_dice(t)
    assert battle.lp == 6 - 3


def sixes_double(sheet: int) -> None:
    t, battle = fight(sheet, "BA04", dice(6, 6, 6))
    attack_with_dice(t)
    assert ["hits", 0, 6] in t.state.events and battle.result == "won"


def card_plus_1(sheet: int) -> None:
    t = Table(2, tops={"potion": ["ageing_potion"]}, sheets=(sheet, other(sheet)), mode="engine")  # damage(4)
    t.decide()
    battle = Battle([0], "BA04", "mission", 5)  # immune to spells
    t.push(battle)
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    potion = next(x for x in t.state.hand[0] if instance(t.table.knowledge(0).face(x) or -1).card == "ageing_potion")
    t.act(0, {"type": "card", "slot": potion}, "attack")
    t.decide()
    assert battle.lp == 6 - 5


def hit_regen(sheet: int) -> None:
    t, _ = fight(sheet, "BA01", dice(4, 4, 1, 1, 1), lp=5)  # Norbert: res 4, after:roll(2) (the 1s miss)
    attack_with_dice(t)
    assert t.state.lp[0] == 6


def serpensortia(sheet: int) -> None:
    t, battle = fight(sheet, "BA04")
    t.decide()
    assert battle.start_lp == 6 and battle.lp == 5


def last_stand(sheet: int) -> None:
    t, battle = fight(sheet, "BA04", dice(1, 1, 1), lp=1)  # after:lose(1) would take the last LP
    attack_with_dice(t)
    assert t.state.lp[0] == 1 and "last_stand:0" in battle.once


def ignore_once(sheet: int) -> None:
    t, _ = fight(sheet, "BA04", dice(1, 1, 1, 1), lp=1)
    attack_with_dice(t)
    assert t.state.lp[0] == 1 and ["ignored", 0, 1] in t.state.events


def reroll_once(sheet: int) -> None:
    t, battle = fight(sheet, "BA04", dice(1, 1, 1), dice(6, 6, 6))
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(0, {"type": "dice"}, "attack")
    assert t.legal(0) == [{"type": "keep"}, {"type": "reroll"}]
    t.act(0, {"type": "reroll"}, "reroll")
    t.decide()
    assert battle.lp == 6 - 3 and ["reroll", 0] in t.state.events


def flee_once(sheet: int) -> None:
    t, battle = fight(sheet, "BA04", dice(1, 1), lp=5)
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(0, {"type": "dice"}, "attack")
    assert t.legal(0) == [{"type": "stay"}, {"type": "flee"}]
    t.act(0, {"type": "flee"}, "flee")
    drive(t, "start_card")
    assert battle.result == "escaped" and ["flee", 0] in t.state.events


def doubled(kind: str) -> Callable[[int], None]:
    def scenario(sheet: int) -> None:
        t = stop_on(next(c.id for c in DATA.cells.values() if c.kind == kind), sheets=(sheet, other(sheet)))
        hand = list(t.state.hand[0])
        stopped(t)
        assert new_cards(t, hand) == [kind, kind]
    return scenario


def action_pick(sheet: int) -> None:
    t = stop_on(next(c.id for c in DATA.cells.values() if c.kind == "action"), tops={"action": ["AC01", "AC02"]},
                sheets=(sheet, other(sheet)))
    g = t.state
    t.push(CellEffect(0))
    two = t.legal(0)
    assert [instance(g.pub[a["slot"]]).card for a in two] == ["AC01", "AC02"]
    t.act(0, two[1], "action_card")
    t.expect(0, "start_card")
    assert g.points == [40, 0] and all(a["slot"] in g.deck["action"][-2:] for a in two)


def event_peek(sheet: int) -> None:
    t = stop_on(next(c.id for c in DATA.cells.values() if c.kind == "event"), tops={"event": ["EV06", "EV12"]},
                sheets=(sheet, other(sheet)))
    g = t.state
    t.push(CellEffect(0))
    two = t.legal(0)
    assert [instance(g.pub[a["slot"]]).card for a in two] == ["EV06", "EV12"]
    t.act(0, two[1], "event_card")
    t.expect(0, "start_card")
    assert g.points == [10, 10] and all(a["slot"] in g.deck["event"][-2:] for a in two)


def common_room_x2(sheet: int) -> None:
    t = stop_on(next(c.id for c in DATA.cells.values() if c.kind == "common_room"), sheets=(sheet, other(sheet)))
    hand = list(t.state.hand[0])
    stopped(t, {"common_room": {"type": "deck", "deck": "potion"}})
    assert new_cards(t, hand) == ["potion", "potion"]


def pitch_pass(sheet: int) -> None:
    t = stop_on("quidditch_pitch", sheets=(sheet, other(sheet)))
    hand = list(t.state.hand[0])
    t.push(CellEffect(0))
    t.expect(0, "challenge")
    assert new_cards(t, hand) == ["quidditch"]
    far = [w for w in walks(graph(), "m023", 3, constraints(t.state, 0)) if "quidditch_pitch" in w.path[:-1]]
    assert far  # the pitch does not end her move (B: the walks)


def duel_refuse(sheet: int) -> None:
    t = stop_on(next(c.id for c in DATA.cells.values() if c.kind == "duel"), sheets=(sheet, other(sheet)))
    hand = list(t.state.hand[0])
    stopped(t, {"duel_refuse": {"type": "refuse"}})
    assert new_cards(t, hand) == ["spell"] and not [e for e in t.state.events if e[0] == "battle"]


def rat(sheet: int) -> None:
    t = Table(2, sheets=(sheet, other(sheet)), random=(WIN, dice(1, 2)), mode="engine")
    g = t.state
    t.decide()
    g.pos[1] = "hogwarts_crest_cell"  # a figure on the way, with LP enough for a battle
    t.act(0, {"type": "no_start"}, "start_card")
    through = {"type": "move", "path": ["start", "two_hands_cell", "hogwarts_crest_cell", "clock_tower"], "roll": 3}
    assert through in t.legal(0)
    t.act(0, through, "move")
    drive(t, "start_card", {"tokens": {"type": "done"}})
    assert g.pos[0] == "clock_tower" and not [e for e in g.events if e[0] == "battle"]


ABILITY_SCENARIOS: dict[str, Callable[[int], None]] = {
    "res_minus_1": res_minus_1, "reroll_once": reroll_once, "card_plus_1": card_plus_1, "last_stand": last_stand,
    "ignore_once": ignore_once, "sixes_double": sixes_double, "hit_regen": hit_regen, "serpensortia": serpensortia,
    "flee_once": flee_once, "spell_cell_x2": doubled("spell"), "book_cell_x2": doubled("book"),
    "potion_cell_x2": doubled("potion"), "action_pick": action_pick, "event_peek": event_peek,
    "pitch_pass": pitch_pass, "common_room_x2": common_room_x2, "duel_refuse": duel_refuse, "rat": rat}
"""A scenario for each student's movement and battle ability (data §4.1, §4.3)."""


@pytest.mark.parametrize("ability", [(s.sheet, a.key) for s in DATA.students
                                     for a in (s.movement_ability, s.battle_ability)], ids=lambda a: a[1])
def test_every_student_ability_does_what_its_sheet_says(ability: tuple[int, str]) -> None:
    sheet, key = ability
    assert key in ABILITY_SCENARIOS, f"ability {key!r} has no scenario"
    ABILITY_SCENARIOS[key](sheet)


USABLE = ("elder_wand", "gryffindors_sword", "resurrection_stone", "invisibility_cloak")
"""The special tokens a battle fought alone offers (rules §13, C-28)."""


@pytest.mark.parametrize("case", [(m, tok) for m in DATA.missions for tok in m.tokens if tok in USABLE],
                         ids=lambda c: f"M{c[0].number:02d}-{c[1]}")
def test_a_mission_s_own_special_token_used_in_its_battle_is_handed_in_with_the_others(
        case: tuple[Mission, str]) -> None:
    """C-51: used in the mission's battle, it goes to board 2 with the mission's other tokens (not to Diagon
    Alley); the Cloak ends the battle with no winner (no points, the card stays in the hand)."""
    mission, token = case
    t = Table(2, tops=mission_tops(mission, False), sheets=(HARRY, PETTIGREW), random=(WIN,) * 40, mode="engine")
    g = t.state
    t.decide()
    g.lp[0] = 14
    for each in mission.tokens:
        give(g, 0, each)
    g.pos[0] = location_cells(mission.location)[0]
    slot = g.missions[0][0]
    t.push(MissionAttempt(0))
    t.act(0, {"type": "mission", "slot": slot}, "mission")
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(0, {"type": "token", "token": token}, "attack")
    seen: list[str] = []
    drive(t, "start_card", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}, "hand_in": LAST}, seen)
    assert "place_used" not in seen and seen.count("hand_in") == len(mission.tokens)
    assert not g.held[0] and all(any(x in g.tokens.get(c, []) for c in BOARD2_STARS) for x in mission.tokens)
    escaped = token == "invisibility_cloak"
    assert (slot in g.missions[0]) == escaped and g.done[0] == ([] if escaped else [mission.number])


@pytest.mark.parametrize("mission", DATA.missions, ids=lambda m: f"M{m.number:02d}")
def test_every_mission_is_completed_by_a_team(mission: Mission) -> None:
    """Team mode (C-10, E33): seat 0 (Harry) holds the mission, its teammate seat 2 (Hermione) holds the last of
    its tokens and stands there too; the members show the cards in turn, both fight the enemy's doubled LP,
    the reward goes to the holder, every token to board 2 — also the teammate's."""
    t = Team(tops=mission_tops(mission, True), random=(WIN,) * 60)
    g = t.state
    t.decide()
    g.lp[0] = g.lp[2] = 14
    *mine, theirs = mission.tokens
    for token in mine:
        give(g, 0, token)
    give(g, 2, theirs)
    g.pos[0] = g.pos[2] = location_cells(mission.location)[0]
    slot, points = g.missions[0][0], list(g.points)
    t.push_task(MissionAttempt(0))
    t.act(0, {"type": "mission", "slot": slot}, "mission")
    for member in (0, 2):
        if mission.qualified_cards:
            t.act(member, max(t.legal(member), key=lambda a: len(a.get("slots", []))), "mission_cards")
    battle = g.stack.top
    assert isinstance(battle, Battle) and battle.participants == [0, 2]
    assert battle.start_lp == 2 * DATA.battle_cards[mission.battle_card].lp
    seen: list[str] = []
    drive(t, "start_card", {"defend": {"type": "no_defence"}, "attack": {"type": "dice"}, "hand_in": LAST}, seen)
    assert seen.count("hand_in") == len(mission.tokens) and not g.held[0] and not g.held[2]
    assert g.done[0] == [mission.number] and slot not in g.missions[0]
    assert g.points == [points[0] + mission.reward, *points[1:]]


def test_one_team_of_all_practises_the_snitch_as_a_solo_player() -> None:
    """C-9: with one team of everyone there is nobody to challenge; the pitch offers Snitch practice (E32), which
    counts as a match and scores 40 when caught within its rolls."""
    t = Team(players=2, teams=1, random=(dice(6, 6), dice(6, 6)))
    g = t.state
    t.decide()
    g.pos[0] = "quidditch_pitch"
    t.push_task(CellEffect(0))
    assert t.legal(0) == [{"type": "no_match"}, {"type": "practice"}]
    t.act(0, {"type": "practice"}, "challenge")
    t.expect(0, "start_card")
    assert g.points == [40, 0] and g.matches[0] == 1


def test_greyback_s_bite_never_takes_him_above_his_sheet_s_lp() -> None:
    """Harry's first attack misses; Greyback (8 LP) hits back with his 4 dice and regains 1 LP — none lost."""
    greyback = next(n for n, s in enumerate(DATA.death_eaters, 1) if s.battle_ability.key == "bite_regen")
    t = QTable(2, sheets=(HARRY, PETTIGREW), random=(back(greyback), dice(1, 1, 1), dice(6, 6, 6, 6)),
               mode="engine")
    g = t.state
    t.decide()
    g.pos[0], g.lp[0] = PLACES[0], 14
    t.push_task(DeathEaterBattle(0, PLACES[0]))
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(0, {"type": "dice"}, "attack")
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    t.act(1, {"type": "dice"}, "attack")  # the Death Eater's player rolls for him
    t.decide()
    versus = next(x for x in g.stack._tasks if isinstance(x, Versus))
    assert ["hits", 0, 0] in g.events and g.lp[0] == 14 - 4
    assert versus.eater_lp == DATA.death_eaters[greyback - 1].lp


# ----------------------------------------------------------------------------- every enemy ability (data §2.2)


def first_attack(enemy: str, *random: bytes, lp: int = 14, spells: tuple[str, ...] = (),
                 card: str = "") -> tuple[Table, Battle, int]:
    """Harry (``lp``) fights ``enemy``: no defence, one attack (the dice, or the spell ``card``); the LP he had
    when the battle was revealed."""
    t = Table(2, tops={"spell": list(spells)}, sheets=(HARRY, PETTIGREW), random=(WIN, *random), mode="engine")
    g = t.state
    t.decide()
    g.lp[0] = lp
    battle = Battle([0], enemy, "duel" if enemy in DATA.duels else "mission", 5)
    t.push(battle)
    step = drive(t, "attack", {"defend": {"type": "no_defence"}})
    assert isinstance(step, Decide)
    revealed = g.lp[0]
    if card:
        slot = next(x for x in g.hand[0] if instance(t.table.knowledge(0).face(x) or -1).card == card)
        t.act(0, {"type": "card", "slot": slot}, "attack")
    else:
        t.act(0, {"type": "dice"}, "attack")
    t.decide()
    return t, battle, revealed


def enemy_with(head: str) -> str:
    return next(e.id for e in (*DATA.battle_cards.values(), *DATA.duels.values())
                if any(parse(a)[0] == head for a in e.abilities))


def ability_term(head: str) -> None:
    """One scenario per term head (the first enemy card using it), Harry: res 4, 3 dice, res_minus_1."""
    enemy = enemy_with(head)
    card = DATA.battle_cards.get(enemy) or DATA.duels[enemy]
    args = [parse(a)[1] for a in card.abilities if parse(a)[0] == head][0]
    n = amount(args[0]) if args and args[0].isdigit() else 0
    if head == "reveal:lose":
        t, _, revealed = first_attack(enemy, dice(1, 1, 1, 1, 1, 1))
        assert revealed == 14 - n
    elif head == "reveal:discard":
        t = Table(2, sheets=(HARRY, PETTIGREW), mode="engine")
        t.decide()
        hand = len(t.state.hand[0])
        t.push(Battle([0], enemy, "mission", 5))
        t.decide()
        assert len(t.state.hand[0]) == hand - n
    elif head == "before:lose":
        t, _, revealed = first_attack(enemy, dice(1, 1, 1, 1, 1, 1))
        assert revealed == 14 - n  # before the first defence
    elif head == "after:lose":
        t, _, revealed = first_attack(enemy, dice(1, 1, 1, 1, 1, 1))
        assert t.state.lp[0] == revealed - n
    elif head == "after:roll":
        t, _, revealed = first_attack(enemy, dice(1, 1, 1, *[4] * n))  # each counter die at res 4 hits
        assert t.state.lp[0] == revealed - n
    elif head == "execute":
        t, _, revealed = first_attack(enemy, dice(1, 1, 1, 2, 2), lp=3)  # at 3 LP its 2s hit
        assert t.state.lp[0] == 1
    elif head == "cap":
        t, battle, _ = first_attack(enemy, dice(6, 6, 6, 1, 1, 1))
        assert battle.start_lp - battle.lp == n
    elif head == "regen":
        t, battle, _ = first_attack(enemy, dice(6, 6, 1, 1, 1))
        assert battle.lp == battle.start_lp - 2 + n
    elif head == "sixes":
        t, _, revealed = first_attack(enemy, dice(1, 1, 1, 6, 6))
        assert t.state.lp[0] == revealed - 2 * n
    elif head == "spell_bonus":
        t, battle, _ = first_attack(enemy, spells=("stupefy",), card="stupefy")  # damage(3)
        assert battle.start_lp - battle.lp == 3 + n
    elif head == "weak":
        t, battle, _ = first_attack(enemy, spells=("incendio",), card="incendio")  # damage(4), fire
        assert "fire" in args and battle.start_lp - battle.lp == 2 * 4
    elif head == "flee":
        t, battle, _ = first_attack(enemy, dice(6, 6, 1, 1, 1))
        assert battle.result == "fled"
    else:
        raise AssertionError(f"enemy term {head!r} has no scenario")


@pytest.mark.parametrize("head", sorted({parse(a)[0] for e in (*DATA.battle_cards.values(), *DATA.duels.values(),
                                                                 *DATA.event_battles.values()) for a in e.abilities}))
def test_every_enemy_ability_does_what_the_vocabulary_says(head: str) -> None:
    ability_term(head)


def test_an_enemy_immune_to_spells_is_offered_no_spell_card() -> None:
    t = Table(2, tops={"spell": ["stupefy"], "potion": ["ageing_potion"]}, sheets=(HARRY, PETTIGREW), mode="engine")
    t.decide()
    immune = next(e for e in DATA.battle_cards.values() if "spells" in e.immune)
    t.push(Battle([0], immune.id, "mission", 5))
    drive(t, "attack", {"defend": {"type": "no_defence"}})
    cards = [a["slot"] for a in t.legal(0) if a["type"] == "card"]
    assert cards and all(deck_of_slot(s) == "potion" for s in cards)


# ----------------------------------------------------------------------------- every Death Eater's ability


NO_DEFENCE = {"defend": {"type": "no_defence"}}


def eater_battle(eater: int, *random: bytes, tops: dict[str, list[str]] | None = None,
                 lp: int = 14) -> tuple[QTable, DeathEaterBattle]:
    """Harry (``lp``) enters a Death Eater's tower; back ``eater`` is drawn, the fixed dice follow."""
    t = QTable(2, tops=tops, sheets=(HARRY, PETTIGREW), random=(back(eater), *random), mode="engine")
    g = t.state
    t.decide()
    g.pos[0], g.lp[0] = PLACES[0], lp
    battle = DeathEaterBattle(0, PLACES[0])
    t.push_task(battle)
    return t, battle


def versus_of(t: QTable) -> Versus:
    return next(x for x in t.state.stack._tasks if isinstance(x, Versus))


def attack(t: QTable, seat: int, action: dict[str, Any]) -> None:
    """Up to ``seat``'s next attack (no defences), which is ``action``."""
    step = drive(t, "attack", NO_DEFENCE)
    assert isinstance(step, Decide) and step.seats == (seat,)
    t.act(seat, action, "attack")


def slot_of(t: Table | QTable, seat: int, card: str, slots: list[int]) -> int:
    return next(s for s in slots if instance(t.table.knowledge(seat).face(s) or -1).card == card)


def first_card_void(eater: int) -> None:
    t, _ = eater_battle(eater, tops={"spell": ["stupefy"]})
    attack(t, 0, {"type": "card", "slot": slot_of(t, 0, "stupefy", t.state.hand[0])})
    t.decide()
    assert ["voided", 0] in t.state.events and versus_of(t).eater_lp == DATA.death_eaters[eater - 1].lp


def bite_regen(eater: int) -> None:
    t, _ = eater_battle(eater, dice(6, 6, 6), dice(6, 6, 6, 6))
    attack(t, 0, {"type": "dice"})
    attack(t, 1, {"type": "dice"})
    t.decide()
    assert versus_of(t).eater_lp == DATA.death_eaters[eater - 1].lp - 3 + 1 and t.state.lp[0] == 14 - 4


def spell_plus_1(eater: int) -> None:
    fill = [c.id for c in DATA.spells.values() if c.id != "stupefy" for _ in range(c.copies)][:6]
    t, _ = eater_battle(eater, dice(1, 1, 1), tops={"spell": [*fill, "stupefy"]})  # dealt 4 + 2, then his
    attack(t, 0, {"type": "dice"})
    step = drive(t, "attack", NO_DEFENCE)
    assert isinstance(step, Decide) and step.seats == (1,)
    t.act(1, {"type": "card", "slot": slot_of(t, 1, "stupefy", versus_of(t).eater_hand)}, "attack")
    t.decide()
    assert t.state.lp[0] == 14 - (3 + 1)


def crucio(eater: int) -> None:
    t, _ = eater_battle(eater)
    drive(t, "attack", NO_DEFENCE)
    assert t.state.lp[0] == 14 - 2


def spy(eater: int) -> None:
    t, _ = eater_battle(eater)
    g = t.state
    hand = list(g.hand[0])
    step = drive(t, "spy")
    assert isinstance(step, Decide) and step.seats == (1,)
    assert all(t.table.knowledge(1).face(s) is not None for s in hand)  # his player sees the hand
    assert t.legal(1) == [{"type": "spy", "slot": s} for s in hand]
    t.act(1, {"type": "spy", "slot": hand[0]}, "spy")
    t.decide()
    assert g.hand[0] == hand[1:] and hand[0] in g.deck[deck_of_slot(hand[0])]


def imperius(eater: int) -> None:
    t, _ = eater_battle(eater, dice(1, 1, 1), dice(1, 1, 1), tops={"spell": ["protego"], "potion": ["pepperup_potion"]})
    t.act(0, {"type": "card", "slot": slot_of(t, 0, "protego", t.state.hand[0])}, "defend")
    t.act(0, {"type": "dice"}, "attack")
    attack(t, 1, {"type": "dice"})
    assert t.decide() == Decide((0,), "attack")  # his pepperup potion is not offered: 1 defence card a battle


def execute(eater: int) -> None:
    t, _ = eater_battle(eater, dice(1, 1, 1), dice(2, 2, 2), lp=3)
    attack(t, 0, {"type": "dice"})
    attack(t, 1, {"type": "dice"})  # at 3 LP or fewer his 2s hit
    t.decide()
    assert t.state.pos[0] == "leaky_cauldron" and t.state.defeats[0] == 1


def eater_res_minus_1(eater: int) -> None:
    t, _ = eater_battle(eater, dice(1, 1, 1), dice(3, 3, 3, 3))
    attack(t, 0, {"type": "dice"})
    attack(t, 1, {"type": "dice"})  # Harry's res 4 counts as 3
    t.decide()
    assert t.state.lp[0] == 14 - 4


EATER_SCENARIOS: dict[str, Callable[[int], None]] = {
    "first_card_void": first_card_void, "bite_regen": bite_regen, "spell_plus_1": spell_plus_1, "crucio": crucio,
    "spy": spy, "imperius": imperius, "execute": execute, "res_minus_1": eater_res_minus_1}


@pytest.mark.parametrize("eater", range(1, DEATH_EATER_BACKS + 1),
                         ids=lambda n: DATA.death_eaters[n - 1].battle_ability.key)
def test_every_death_eater_s_ability_does_what_its_back_says(eater: int) -> None:
    key = DATA.death_eaters[eater - 1].battle_ability.key
    assert key in EATER_SCENARIOS, f"Death Eater ability {key!r} has no scenario"
    EATER_SCENARIOS[key](eater)


# ----------------------------------------------------------------------------- every spell and potion card


PLAIN_ENEMY, DEMENTOR = "BA24", "BA10"
"""Fenrir Greyback (10 LP, res 4, after:roll(3), no immunity or tag) and A Hundred Dementors (tagged dementor)."""


def card_in_battle(card_id: str, enemy: str, *random: bytes) -> tuple[Table, Battle]:
    """Harry (10 LP) holding ``card_id`` fights ``enemy`` and plays it at its step (defence or attack)."""
    card = DATA.hand_card(card_id)
    t = Table(2, tops={card.deck: [card_id]}, sheets=(HARRY, PETTIGREW), random=(WIN, *random), mode="engine")
    g = t.state
    t.decide()
    g.lp[0] = 10
    battle = Battle([0], enemy, "mission", 5)
    t.push(battle)
    slot = slot_of(t, 0, card_id, g.hand[0])
    if card.use == "defence":
        t.act(0, {"type": "card", "slot": slot}, "defend")
        t.act(0, {"type": "dice"}, "attack")
    else:
        drive(t, "attack", NO_DEFENCE)
        t.act(0, {"type": "card", "slot": slot}, "attack")
    t.decide()
    assert slot in g.pub and slot in g.deck[card.deck]  # opened, under its deck
    return t, battle


def attack_card(card_id: str) -> None:
    """Its terms against Greyback, whose counter-roll (6, 6, 6) would cost Harry 3 LP."""
    card = DATA.hand_card(card_id)
    heads = {parse(term)[0]: parse(term)[1] for term in card.effect}
    if "dice" in heads:  # a dice attack with extra dice or a res cut: the hits come from the faces rolled
        extra, *cut = heads["dice"]
        n = 3 + amount(extra)
        t, battle = card_in_battle(card_id, PLAIN_ENEMY, WIN)
        rolled = [e[2] for e in t.state.events if e[:2] == ["roll", "attack"]][0]
        assert len(rolled) == n + 3  # with the counter-roll, one draw (E17)
        res = max(2, DATA.battle_cards[PLAIN_ENEMY].res - 1 - (int(cut[0][len("res-"):]) if cut else 0))
        assert battle.start_lp - battle.lp == sum(d >= res for d in rolled[:n])
        assert t.state.lp[0] == 10 - sum(d >= DATA.students[HARRY - 1].res for d in rolled[n:])
        return
    t, battle = card_in_battle(card_id, PLAIN_ENEMY, dice(6, 6, 6))
    g = t.state
    assert battle.start_lp - battle.lp == amount(heads["damage"][0])
    guarded = "cancel_next" in heads or "skip" in heads
    assert g.lp[0] == (10 if guarded else 10 - 3)
    if "skip" in heads:
        assert battle.guard[0][0] == amount(heads["skip"][0]) - 1  # one retaliation used up
    if "vs" in heads:
        tag, instead = heads["vs"]
        assert tag in DATA.battle_cards[DEMENTOR].tags
        _, battle = card_in_battle(card_id, DEMENTOR, dice(1, 1))
        assert battle.start_lp - battle.lp == amount(parse(instead)[1][0])


def defence_card(card_id: str) -> None:
    """Played before a missed dice attack on Greyback, whose counter-roll (6, 6, 6) hits 3 times."""
    t, battle = card_in_battle(card_id, PLAIN_ENEMY, dice(1, 1, 1, 6, 6, 6))
    lp, loss, reflected = 10, 3, 0
    for term in DATA.hand_card(card_id).effect:
        head, args = parse(term)
        assert head in ("heal", "shield", "reflect_next", "cancel_next"), f"{card_id}: no scenario for {term}"
        if head == "heal":
            lp = min(14, lp + amount(args[0]))
        elif head == "shield":
            loss = max(0, loss - amount(args[0]))
        else:
            reflected, loss = (loss if head == "reflect_next" else 0), 0
    assert t.state.lp[0] == lp - loss and battle.start_lp - battle.lp == reflected


def start_card(card_id: str) -> None:
    """Played at the start of the turn: a search offers its decks; a movement card changes the roll."""
    card = DATA.hand_card(card_id)
    head, args = parse(card.effect[0])
    t = Table(2, tops={card.deck: [card_id]}, sheets=(HARRY, PETTIGREW), random=(WIN, dice(3, 4, 5)), mode="engine")
    g = t.state
    t.act(0, {"type": "start", "slot": slot_of(t, 0, card_id, g.hand[0])}, "start_card")
    if head == "search":
        assert sorted(a["deck"] for a in t.legal(0)) == sorted(args)
        return
    assert head in ("move", "stop_anywhere"), f"{card_id}: no scenario for {card.effect}"
    t.expect(0, "move")
    move = g.stack.top
    assert isinstance(move, Move)
    rolled = [e[2] for e in g.events if e[:2] == ["roll", "move"]][-1]
    assert move.rolls == rolls_for(card.effect[0], rolled) and move.stop_anywhere == (head == "stop_anywhere")
    if head == "move":
        assert move.rolls != [sum(rolled[:2])] or args == ["pm1"]


@pytest.mark.parametrize("card", [*DATA.spells, *DATA.potions])
def test_every_spell_and_potion_card_does_what_its_terms_say(card: str) -> None:
    scenarios = {"attack": attack_card, "defence": defence_card, "start": start_card}
    use = DATA.hand_card(card).use
    assert use in scenarios, f"{card}: no scenario for use {use!r}"
    scenarios[use](card)
