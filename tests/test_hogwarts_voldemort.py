"""The Return of Lord Voldemort (rules §16, data §4.4, C-36, C-41–C-47) as scripted scenarios with stacked
positions and fixed dice, a protocol run with clean audits, and a seeded sweep of whole bot games."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from p2php.engine.contract import Decide, GameOver, OptionError
from p2php.engine.local import LocalTable
from p2php.engine.tasks import Task, TaskStack
from p2php.games.hogwarts.board import Ending
from p2php.games.hogwarts.data import graph, load
from p2php.games.hogwarts.dice import faces
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import deck_of_slot
from p2php.games.hogwarts.moves import legal_walks
from p2php.games.hogwarts.rules import constraints
from p2php.games.hogwarts.state import HogwartsState
from p2php.games.hogwarts.voldemort_battle import SheetBattle
from p2php.games.hogwarts.voldemort_eaters import EaterFight, EaterPhase
from p2php.games.hogwarts.voldemort_goals import Crossing, HorcruxAttempt
from p2php.games.hogwarts.voldemort_rules import Campaign, campaign, horcrux_here, may_take
from p2php.games.hogwarts.voldemort_setup import placement_cells
from p2php.games.hogwarts.voldemort_turn import MAX_ROUNDS, ReturnTrip, ReturnTurn, SidePickups, effect_tasks
from p2php.testing.conformance import check_game
from p2php.testing.protocol import ProtocolTable
from p2php.testing.scenario import Scenario

RETURN = {"mode": "return_of_voldemort"}
READS = frozenset({"student", "ability", "card_of", "figures_at", "in_truce", "public", "waiting", "asking"})
TOKENS = b"tokens" * 6
HARRY, RON, HERMIONE = 1, 2, 3
RITUAL = ("cauldron", "fathers_bone", "wormtails_hand", "harry_potter_token")
EATERS = ("Bellatrix Lestrange", "Augustus Rookwood", "Yaxley", "Walden Macnair", "Lucius Malfoy", "Fenrir Greyback")


def dice(*wanted: int) -> bytes:
    """Joint random bytes whose first dice are ``wanted``."""
    for i in itertools.count():
        random = hashlib.sha256(str(i).encode()).digest()
        if faces(random, len(wanted)) == list(wanted):
            return random
    raise AssertionError("not reached")


class Rov(Scenario):
    """A Return-mode game: seat 0 is Pettigrew, the other seats choose ``sheets`` (default Harry, Ron, ...)."""

    state: HogwartsState
    wrap = (Task, TaskStack, Campaign)

    def __init__(self, players: int = 2, sheets: Sequence[int] = (), random: Sequence[bytes] = (),
                 mode: Any = None) -> None:
        super().__init__(GAME, players, RETURN, 0, mode, random=random, reads=READS)
        for seat, sheet in zip(range(1, players), sheets or range(1, players), strict=True):
            self.act(seat, {"type": "character", "sheet": sheet}, "character")
        self.step()

    def push(self, task: Task[Any]) -> None:
        self.decide()
        self.state.stack.push(task)


def engine(*random: bytes, players: int = 2, sheets: Sequence[int] = ()) -> Rov:
    return Rov(players, sheets, (TOKENS, *random), mode="engine")


def returned(t: Rov, eaters: dict[str, str] | None = None, lp: int = 7) -> Campaign:
    """Voldemort has returned (no cards for anyone), with ``eaters`` on their cells."""
    g = t.state
    c = campaign(g)
    c.returned = True
    g.lp[0] = lp
    for seat in range(g.players):
        g.hand[seat] = []
    for name, cell in (eaters or {}).items():
        c.eaters[name] = cell
        c.eater_lp[name] = next(d.lp for d in g.data.death_eaters if d.name == name)
        c.eater_hand[name] = []
    return c


# ----------------------------------------------------------------------------- options and set-up


def test_return_mode_is_for_two_to_four_players_and_always_dodges() -> None:
    for bad in (5, 9):
        with pytest.raises(OptionError, match="2–4 players"):
            GAME.new_state(bad, RETURN)
    assert GAME.parse_options(RETURN)["dodge"] is True  # C-36
    assert GAME.parse_options({**RETURN, "dodge": False})["dodge"] is True


@pytest.mark.usefixtures("mode")
def test_set_up_sheets_tokens_cards_and_supplies() -> None:
    t = Rov(4, sheets=(RON, HERMIONE, HARRY))
    g, rv = t.state, load().return_of_voldemort
    assert g.sheet == [9, RON, HERMIONE, HARRY]
    for token, cell in rv.horcruxes.items():
        assert token in g.tokens[cell]
    stars = [c.id for c in load().cells.values() if c.kind == "star"]
    placed = {token: cell for cell, tokens in g.tokens.items() for token in tokens if token in rv.random_tokens}
    assert sorted(placed) == sorted(rv.random_tokens) and len(set(placed.values())) == 6
    assert all(cell in stars for cell in placed.values())
    assert all(t not in [x for ts in g.tokens.values() for x in ts] for t in ("elder_wand", "resurrection_stone"))
    assert sum(len(ts) for ts in g.tokens.values()) == 12  # the other 16 stay in the box
    for seat in range(4):
        sheet = g.student(seat)
        held = [deck_of_slot(s) for s in g.hand[seat]]
        assert {d: held.count(d) for d in ("spell", "potion")} == {d: sheet.start_cards[d] for d in ("spell", "potion")}
        assert "book" not in held and g.missions[seat] == []
        assert (g.lp[seat], g.powder[seat], g.portals[seat], g.pos[seat]) == (sheet.lp, 1, 1, "start")
    assert g.deck["book"] == g.deck["mission"] == g.deck["event"] == []  # not used in this mode
    assert t.state.step() == Decide((0,), "start_card")  # Pettigrew starts (rules §16.3)


def test_harry_is_always_in() -> None:
    t = Rov(3, sheets=(RON, HARRY), mode="engine")
    assert t.state.sheet == [9, RON, HARRY]
    st = GAME.new_state(2, RETURN)
    tb = LocalTable(st, 0)
    step = tb.run_chance()
    assert step == Decide((1,), "character") and st.legal_actions(1, tb.knowledge(1)) == [
        {"type": "character", "sheet": HARRY}]


# ----------------------------------------------------------------------------- tokens and cells


def test_each_side_collects_only_its_own_tokens_and_nobody_a_horcrux() -> None:
    t = engine(players=3)
    g = t.state
    t.decide()
    g.place_token("m003", "cauldron")
    g.place_token("m003", "basilisk_fang")
    g.place_token("m003", "elder_wand")
    g.place_token("m003", "resurrection_stone")
    offered = {s: {a["token"] for a in SidePickups(s, ["m003", "clock_tower"]).offers(g)} for s in range(3)}
    assert offered[0] == {"cauldron", "elder_wand"}
    assert offered[1] == offered[2] == {"basilisk_fang", "resurrection_stone"}
    assert not may_take(g, 1, "nagini") and not may_take(g, 0, "nagini")


def test_cells_give_only_what_return_mode_allows() -> None:
    t = engine()
    g = t.state
    t.decide()

    def effect(seat: int, cell: str) -> list[str]:
        g.pos[seat] = cell
        return [type(x).__name__ + str(getattr(x, "deck", "")) for x in effect_tasks(g, seat)]

    assert effect(1, "m001") == ["Gift"]  # an action cell: 1 flying powder or portal token
    assert effect(1, "m009") == [] and effect(1, "m008") == []  # book and duel cells do nothing
    assert effect(1, "quidditch_pitch") == []  # no Quidditch
    assert effect(1, "m010") == ["Drawspell"] and g.ability(1)[0] == "spell_cell_x2"
    assert effect(1, "library") == [] and effect(1, "hagrids_hut") == ["Drawpotion", "Drawspell"]
    g.lp[1] = 3
    effect(1, "m021")
    assert g.lp[1] == 5
    returned(t, lp=4)
    effect(0, "m021")
    assert g.lp[0] == 4  # Voldemort gains no LP from life cells


# ----------------------------------------------------------------------------- the return


def test_pettigrew_with_the_four_tokens_goes_from_the_pitch_to_the_graveyard_and_voldemort_returns() -> None:
    t = engine(dice(1, 1))
    g = t.state
    t.decide()
    c = campaign(g)
    c.destroyed = ["nagini", "tom_riddles_diary"]
    g.pos[0] = "m023"
    g.held[0] = list(RITUAL)
    g.portals[0] = 0
    t.act(0, {"type": "no_start"}, "start_card")
    t.act(0, {"type": "move", "path": ["m023", "quidditch_pitch"], "roll": 2}, "move")
    assert t.legal(0) == [{"type": "stay"}, {"type": "graveyard"}]
    t.act(0, {"type": "graveyard"}, "trip")
    t.expect(0, "place_eater")
    assert c.returned and g.lp[0] == 5 and g.pos[0] == "little_hangleton_graveyard"  # 7 − 2 (C-43)
    assert sorted(deck_of_slot(s) for s in g.hand[0]) == ["potion", "potion", "spell", "spell", "spell"]
    assert {n: len(c.eater_hand[n]) for n in EATERS} == {
        "Bellatrix Lestrange": 3, "Augustus Rookwood": 3, "Yaxley": 4, "Walden Macnair": 3, "Lucius Malfoy": 4,
        "Fenrir Greyback": 3}
    assert all(t.table.knowledge(1).face(s) is None for n in EATERS for s in c.eater_hand[n])
    towers = {a["cell"] for a in t.legal(0)}
    assert len(towers) == 18 and all(graph().kinds[x] == "tower" for x in towers)
    t.act(0, {"type": "place_eater", "eater": "Bellatrix Lestrange", "cell": "clock_tower"}, "place_eater")
    assert "clock_tower" not in {a["cell"] for a in t.legal(0)}  # one Death Eater per tower
    for name, tower in zip(EATERS[1:], ("bell_tower", "east_tower", "owlery", "west_tower", "dark_tower"), strict=True):
        t.act(0, {"type": "place_eater", "eater": name, "cell": tower}, "place_eater")
    t.expect(0, "place_stone")
    assert "little_hangleton_graveyard" not in {a["cell"] for a in t.legal(0)}
    t.act(0, {"type": "place", "token": "resurrection_stone", "cell": "m040"})
    t.expect(1, "place_wand")  # then Harry hides the Elder Wand (C-46)
    t.act(1, {"type": "place", "token": "elder_wand", "cell": "o001"})
    t.expect(1, "start_card")
    assert g.pos[0] == "quidditch_pitch" and c.eaters["Walden Macnair"] == "owlery"
    assert "resurrection_stone" in g.tokens["m040"] and "elder_wand" in g.tokens["o001"]
    assert placement_cells(g) == sorted(c for c in graph().enterable if c != "little_hangleton_graveyard")


def test_no_graveyard_way_without_the_four_tokens() -> None:
    t = engine()
    g = t.state
    t.decide()
    g.pos[0] = "quidditch_pitch"
    g.held[0] = list(RITUAL[:3])
    assert {"type": "graveyard"} not in ReturnTrip(0).offers(g)
    g.held[0].append(RITUAL[3])
    assert {"type": "graveyard"} in ReturnTrip(0).offers(g)
    g.pos[1], g.held[1] = "quidditch_pitch", list(RITUAL)
    assert {"type": "graveyard"} not in ReturnTrip(1).offers(g)


# ----------------------------------------------------------------------------- moves and Death Eaters


def test_who_stops_for_whom() -> None:
    t = engine(players=3, sheets=(HARRY, RON))
    g = t.state
    t.decide()
    g.pos[0], g.pos[1], g.pos[2] = "m003", "m006", "m014"
    assert constraints(g, 1).occupied == frozenset()  # no battles before the return
    c = returned(t, {"Yaxley": "m005"})
    assert constraints(g, 1).occupied == {"m005"} == constraints(g, 2).occupied  # heroes stop on Death Eaters
    assert constraints(g, 0).occupied == frozenset()  # Voldemort ignores Ron, and Harry without a goal
    g.held[0].append("elder_wand")
    assert constraints(g, 0).occupied == {"m006"} and constraints(g, 1).occupied == {"m005", "m003"}
    assert constraints(g, 2).occupied == {"m005"}  # Ron never stops for Voldemort
    c.eaters["Yaxley"] = "start"
    assert "start" not in constraints(g, 1).occupied


def test_lucius_moves_onto_hermione_and_she_dodges_as_in_the_rulebook() -> None:
    """Rules §16.5's example: Lucius rolls 2, 3, 5, 1 against Hermione's resistance 4 less 1: 2 hits; she
    dodges with 3 and 6: she loses 1, he loses 1."""
    t = engine(dice(1), dice(2, 3, 5, 1), dice(3, 6), players=2, sheets=(HARRY,))
    g = t.state
    returned(t, {"Lucius Malfoy": "m005"})
    g.sheet[1], g.lp[1] = HERMIONE, 6
    g.pos[1] = "m006"
    t.push(EaterPhase(0))
    assert t.legal(0) == [{"type": "eater", "eater": "Lucius Malfoy"}, {"type": "done"}]
    t.act(0, {"type": "eater", "eater": "Lucius Malfoy"}, "eater")
    moves = t.legal(0)
    assert {"type": "eater_move", "eater": "Lucius Malfoy", "path": ["m005", "m006"]} in moves
    t.act(0, {"type": "eater_move", "eater": "Lucius Malfoy", "path": ["m005", "m006"]}, "eater_move")
    t.expect(1, "dodge")
    assert t.legal(1) == [{"type": "take_hits"}, {"type": "dodge"}]
    t.act(1, {"type": "dodge"})
    t.step()  # the dodge dice, then Hermione's round
    assert g.lp[1] == 5
    assert [e[1:] for e in g.events if e[0] == "lose"][:2] == [["Lucius Malfoy", 1], ["Hermione Granger", 1]]
    assert [e[1:] for e in g.events if e[0] == "hits"][0] == ["Lucius Malfoy", 2]


def test_a_hero_entering_a_death_eater_attacks_first_and_the_loser_leaves() -> None:
    t = engine(dice(6, 6, 6), players=2, sheets=(HARRY,))
    g = t.state
    c = returned(t, {"Augustus Rookwood": "m005"})
    c.eater_lp["Augustus Rookwood"] = 2
    c.eater_hand["Augustus Rookwood"] = [g.deck["spell"].pop(0)]  # spy: takes nothing from an empty hand
    g.pos[1] = "m005"
    t.push(EaterFight(1, "Augustus Rookwood", eater_first=False))
    t.expect(0, "dodge")  # Harry's 3 sixes hit (res 5 − 1); the villain may dodge for Rookwood
    t.act(0, {"type": "take_hits"})
    assert "Augustus Rookwood" not in c.eaters and "Augustus Rookwood" not in c.eater_hand
    assert g.deck["spell"][-1:] and g.pos[1] == "m005"


def test_a_hero_who_loses_goes_to_the_start_with_1_lp_and_no_cards() -> None:
    t = engine(dice(6, 6, 6, 6), players=2, sheets=(HARRY,))
    g = t.state
    returned(t, {"Lucius Malfoy": "m005"})
    g.hand[1] = [g.deck["potion"].pop(0)]
    g.lp[1] = 2
    g.pos[1] = "m005"
    t.push(EaterFight(1, "Lucius Malfoy", eater_first=True))
    while (step := t.decide()).prompt != "dodge":
        t.act(step.seats[0], t.legal(step.seats[0])[0])
    t.act(1, {"type": "take_hits"})
    assert (g.pos[1], g.lp[1], g.hand[1]) == ("start", 1, [])
    assert "Lucius Malfoy" in campaign(g).eaters


def test_bellatrix_curses_at_once_and_the_card_limit_is_three() -> None:
    t = engine(players=2, sheets=(HARRY,))
    g = t.state
    returned(t, {"Bellatrix Lestrange": "m005"})
    g.hand[1] = [s for s in g.deck["spell"][:5]]
    t.push(SheetBattle(["eater:Bellatrix Lestrange", "seat:1"]))
    t.decide()
    assert g.lp[1] == 5  # crucio: Harry 7 − 2
    battle = g.stack.top
    assert isinstance(battle, SheetBattle)
    battle.used[1] = 3
    assert not battle.playable(g, 1, "attack") and not battle.card_actions(g, 1, t.table.knowledge(1), "defence")


# ----------------------------------------------------------------------------- Horcruxes


def test_a_horcrux_needs_a_weapon_and_a_strictly_higher_roll() -> None:
    t = engine(dice(3, 3, 4, 2), dice(6, 5, 1, 2), players=2, sheets=(HARRY,))
    g = t.state
    t.decide()
    c = campaign(g)
    g.pos[1] = "clock_tower"
    assert horcrux_here(g, 1) is None  # no weapon
    g.held[1].append("gryffindors_sword")
    assert horcrux_here(g, 1) == "nagini" and horcrux_here(g, 0) is None
    t.push(HorcruxAttempt(1, "nagini"))
    t.decide()
    assert c.retry == [1] and c.destroyed == []  # 6 against 6: a tie fails
    g.stack.pop()  # the turn in progress: Harry's next one begins instead
    t.state.stack.push(ReturnTurn(1))
    t.decide()
    assert c.destroyed == ["nagini"] and c.retry == [] and "nagini" not in g.tokens.get("clock_tower", [])
    assert [e for e in g.events if e[0] == "move"] == []  # the retry replaced the move


def test_a_horcrux_destroyed_after_the_return_costs_voldemort_1_lp() -> None:
    t = engine(dice(6, 6, 1, 1), players=2, sheets=(HARRY,))
    g = t.state
    returned(t, lp=4)
    g.pos[1] = "gringotts"
    g.held[1].append("basilisk_fang")
    t.push(HorcruxAttempt(1, "helga_hufflepuffs_cup"))
    t.decide()
    assert g.lp[0] == 3 and campaign(g).destroyed == ["helga_hufflepuffs_cup"]


# ----------------------------------------------------------------------------- the crossing and the final battle


def crossing(t: Rov, wand: bool, ready: bool) -> Any:
    g = t.state
    c = returned(t, lp=1)
    g.pos[0] = g.pos[1] = "m003"
    if wand:
        g.held[0].append("elder_wand")
    if ready:
        c.destroyed = list(load().return_of_voldemort.horcruxes)
        g.held[1].append("resurrection_stone")
    t.push(Crossing(1))
    return t.step()


def test_paths_crossing_with_neither_goal_do_nothing() -> None:
    t = engine(players=2, sheets=(HARRY,))
    assert crossing(t, False, False) == Decide((0,), "move")  # the turn in progress goes on (no cards: no start)


@pytest.mark.parametrize(("wand", "winners"), [(True, (0,)), (False, (1, 2))])
def test_paths_crossing_with_one_goal_give_that_side_the_win(wand: bool, winners: tuple[int, ...]) -> None:
    t = engine(players=3, sheets=(HARRY, RON))
    over = crossing(t, wand, not wand)
    assert isinstance(over, GameOver) and over.winners == winners


def test_with_both_goals_the_final_battle_decides() -> None:
    t = engine(dice(6, 6, 6), players=3, sheets=(HARRY, RON))
    assert crossing(t, True, True) == Decide((0,), "dodge")  # Harry (no cards) attacked first: 3 hits
    t.act(0, {"type": "take_hits"})
    over = t.over()
    assert over.winners == (1, 2) and "final battle" in over.summary


def test_voldemort_s_dodge_sixes_cost_nobody() -> None:
    t = engine(dice(6, 6, 6), dice(6, 6, 6), players=2, sheets=(HARRY,))
    g = t.state
    returned(t, lp=7)
    t.push(SheetBattle(["seat:1", "seat:0"], "final_battle"))
    while (step := t.decide()).prompt != "dodge":
        t.act(step.seats[0], {"type": "no_defence"} if step.prompt == "defend" else {"type": "dice"})
    t.act(0, {"type": "dodge"})
    assert g.lp[0] == 7 and g.lp[1] == 7  # Harry's sixes met Voldemort's dodge of three 6s: nobody loses


# ----------------------------------------------------------------------------- whole games


def bot_play(tb: LocalTable | None, bots: dict[int, Any], table: Rov | None = None, limit: int = 20000) -> GameOver:
    for _ in range(limit):
        step = table.step() if table is not None else tb.run_chance()  # type: ignore[union-attr]
        if isinstance(step, GameOver):
            return step
        assert isinstance(step, Decide)
        seat = step.seats[0]
        if table is not None:
            assert isinstance(table.table, ProtocolTable)
            st, known = table.table.peers[seat].state, table.table.knowledge(seat)
            table.table.act([(seat, bots[seat].choose(st, seat, known, st.legal_actions(seat, known)))])
        else:
            assert tb is not None
            known = tb.knowledge(seat)
            tb.act([(seat, bots[seat].choose(tb.state, seat, known, tb.state.legal_actions(seat, known)))])
    raise AssertionError("the game did not end")


def test_a_game_of_heuristic_bots_through_the_protocol_ends_with_clean_audits_and_secret_hands() -> None:
    t = Rov(3, mode="protocol")
    over = bot_play(None, {s: GAME.make_bot("heuristic", f"p/{s}") for s in range(3)}, t)
    assert over.winners
    g = t.table.peers[0].state
    assert isinstance(g, HogwartsState)
    c = campaign(g)
    for seat in range(3):
        others = [o for o in range(3) if o != seat]
        hidden = [s for s in g.hand[seat] if s not in g.pub]
        assert all(t.table.knowledge(o).face(s) is None for o in others for s in hidden)
    for name, slots in c.eater_hand.items():
        assert all(t.table.knowledge(h).face(s) is None for h in (1, 2) for s in slots if s not in g.pub), name
    t.finish()  # every peer's audit: clean verdicts, equal state hashes


def test_seeded_bot_games_at_two_three_and_four_seats_all_end() -> None:
    """Engine only; heuristic bots almost always reach a winner, random bots end at the latest by the draw."""
    won = 0
    for seed in range(24):
        players = 2 + seed % 3
        kind = "random" if seed % 6 == 5 else "heuristic"
        st = GAME.new_state(players, RETURN)
        tb = LocalTable(st, seed)
        over = bot_play(tb, {s: GAME.make_bot(kind, f"{seed}/{s}") for s in range(players)})
        assert st.turns <= MAX_ROUNDS * players, seed
        if kind == "heuristic":
            won += bool(over.winners)
            assert campaign(st).returned, seed
    assert won >= 18


def test_the_same_seed_gives_the_same_game() -> None:
    def play(seed: int) -> tuple[GameOver, bytes]:
        st = GAME.new_state(3, RETURN)
        result = LocalTable(st, seed).play({s: GAME.make_bot("heuristic", s) for s in range(3)})
        return result, st.state_hash()

    assert play(5) == play(5)


def test_the_walks_of_a_hero_end_on_a_death_eater() -> None:
    t = engine(players=2, sheets=(HARRY,))
    g = t.state
    t.decide()
    returned(t, {"Yaxley": "hogwarts_crest_cell"})
    walks = legal_walks("start", 5, constraints(g, 1))
    through = [w for w in walks if "hogwarts_crest_cell" in w.path]
    assert through and all(w.end == "hogwarts_crest_cell" and w.ending is Ending.FORCED for w in through)


def test_return_mode_conforms_to_the_engine_contract() -> None:
    check_game(GAME, (3,), range(1), RETURN, every=9)


def test_the_terminal_view_shows_the_return_state() -> None:
    t = engine(players=3, sheets=(HARRY, RON))
    g = t.state
    t.decide()
    c = returned(t, {"Yaxley": "clock_tower"})
    c.destroyed = ["nagini"]
    g.held[0].append("elder_wand")
    c.eater_hand["Yaxley"] = [g.deck["spell"].pop(0)]
    lines = "\n".join(GAME.table_lines(g.observation(1, t.table.knowledge(1)), 1, ["ann", "bob", "cy"]))
    assert "ann — Lord Voldemort" in lines and "ann plays Lord Voldemort" in lines
    assert "Horcruxes destroyed 1/6: Nagini" in lines and "Voldemort holds the Elder Wand" in lines
    assert "Death Eater Yaxley: Clock Tower; 7 LP, 1 cards" in lines
    assert "tokens: Elder Wand" in lines


def test_a_death_eater_on_a_spell_cell_takes_a_spell_card_and_nothing_else() -> None:
    t = engine(dice(1), players=2, sheets=(HARRY,))
    g = t.state
    c = returned(t, {"Yaxley": "m011"})
    g.place_token("m010", "basilisk_fang")
    t.push(EaterPhase(0))
    t.act(0, {"type": "eater", "eater": "Yaxley"}, "eater")
    t.act(0, {"type": "eater_move", "eater": "Yaxley", "path": ["m011", "m010"]}, "eater_move")
    t.expect(0, "move")  # each Death Eater moves once a turn: the phase is over, the turn below goes on
    assert c.eaters["Yaxley"] == "m010" and [deck_of_slot(s) for s in c.eater_hand["Yaxley"]] == ["spell"]
    assert t.table.knowledge(0).face(c.eater_hand["Yaxley"][0]) is not None  # the villain sees its face
    assert t.table.knowledge(1).face(c.eater_hand["Yaxley"][0]) is None
    assert "basilisk_fang" in g.tokens["m010"]  # Death Eaters take no tokens


def test_ron_may_roll_his_attack_again_once_per_battle() -> None:
    t = engine(dice(1, 1, 1), dice(6, 6, 6), players=3, sheets=(RON, HARRY))
    g = t.state
    c = returned(t, {"Yaxley": "m005"})
    t.push(SheetBattle(["seat:1", "eater:Yaxley"]))
    t.expect(1, "reroll")
    assert t.legal(1) == [{"type": "keep"}, {"type": "reroll"}]
    t.act(1, {"type": "reroll"})
    t.expect(0, "dodge")  # three 6s hit Yaxley (res 4); the villain may dodge for him
    t.act(0, {"type": "take_hits"})
    assert c.eater_lp["Yaxley"] == 4
    battle = next(x for x in g.stack if isinstance(x, SheetBattle))
    assert battle.reroll == [True, False]


def test_a_hero_s_move_onto_a_death_eater_ends_in_a_battle_that_ends_his_turn() -> None:
    six, one = dice(6, 6, 6), dice(1, 1, 1)
    t = engine(dice(1, 1), six, one, six, one, six, players=2, sheets=(HARRY,))
    g = t.state
    c = returned(t, {"Yaxley": "hogwarts_crest_cell"})
    t.push(ReturnTurn(1))
    assert {"type": "move", "path": ["start", "two_hands_cell", "hogwarts_crest_cell"], "roll": 2} in t.legal(1)
    assert all(m["path"][-1] == "hogwarts_crest_cell" for m in t.legal(1) if "hogwarts_crest_cell" in m["path"])
    t.act(1, {"type": "move", "path": ["start", "two_hands_cell", "hogwarts_crest_cell"], "roll": 2}, "move")
    for _ in range(3):  # Harry attacks first: 3 hits a round (res 4 − 1); Yaxley's 1s miss
        t.act(0, {"type": "take_hits"}, "dodge")
    assert "Yaxley" not in c.eaters and g.pos[1] == "hogwarts_crest_cell"
    t.expect(0, "move")  # Harry's turn is over: Voldemort's, below it, goes on
    assert [e for e in g.events if e[0] in ("trip", "draw", "gift")] == []
