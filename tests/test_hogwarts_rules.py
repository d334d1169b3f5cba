"""A Year at Hogwarts' rules as scripted scenarios: most run twice, on a trusted dealer and through the real
protocol (every peer's audit clean at the end), with stacked decks and test edits of the state."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest
from hogwarts_stacking import tops_first

from p2php.engine.contract import CardId, Decide, GameOver, IllegalAction, Shuffle
from p2php.engine.tasks import Task, TaskStack
from p2php.games.hogwarts.battle import Battle
from p2php.games.hogwarts.board import walks
from p2php.games.hogwarts.cards_flow import ActionCards, Exam
from p2php.games.hogwarts.cells_effects import CommonRoom, Duel, effect_tasks
from p2php.games.hogwarts.data import graph, load
from p2php.games.hogwarts.decks import Draw
from p2php.games.hogwarts.events import Event
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import deck_of_slot, instance
from p2php.games.hogwarts.mission_flow import MissionAttempt
from p2php.games.hogwarts.pvp import PlayerBattle
from p2php.games.hogwarts.rules import opponents_at
from p2php.games.hogwarts.search import searchable
from p2php.games.hogwarts.start_cards import rolls_for
from p2php.games.hogwarts.state import HogwartsState
from p2php.testing.protocol import ProtocolTable
from p2php.testing.scenario import Scenario

READS = frozenset({"student", "ability", "card_of", "figures_at", "in_truce", "public", "waiting", "asking"})
"""HogwartsState's methods that only read (protocol mode: calling them is no edit)."""
HARRY, RON = 1, 2
FIVE_FIVE = hashlib.sha256(b"49").digest()
"""Joint random bytes whose two dice are 5 and 5 (engine mode only: through the protocol they are joint)."""


class Table(Scenario):
    """A game whose decks start with the cards ``tops`` names (by card id, e.g. ``{"event": ["EV12"]}``) and
    whose seats choose ``sheets`` (default 1, 2, ...)."""

    state: HogwartsState  # in protocol mode a view of every peer's state (reads: seat 0's)
    wrap = (Task, TaskStack)  # pushing a task, and a pushed task's fields, are edits too

    def __init__(self, players: int = 2, tops: dict[str, list[str]] | None = None,
                 sheets: Sequence[int] = (), random: Sequence[bytes] = (), mode: Any = None) -> None:
        self.tops = tops or {}
        super().__init__(GAME, players, {}, 0, mode, random=random, reads=READS)
        for seat, sheet in enumerate(sheets or range(1, players + 1)):
            self.act(seat, {"type": "character", "sheet": sheet}, "character")
        self.step()  # the shuffles, the tokens and the deal

    def arrange(self, step: Shuffle) -> list[CardId]:
        return tops_first(step, self.tops)

    def first_legal_until(self, prompts: Sequence[str]) -> Decide | GameOver:
        """Answer every decision with its first legal action until one of ``prompts`` (or the end)."""
        while True:
            step = self.step()
            assert isinstance(step, Decide | GameOver)
            if isinstance(step, GameOver) or step.prompt in prompts:
                return step
            seat = step.seats[0]
            self.act(seat, self.legal(seat)[0])

    def push(self, task: Task[Any]) -> None:
        self.decide()
        self.state.stack.push(task)


# ----------------------------------------------------------------------------- set-up, secrecy


@pytest.mark.usefixtures("mode")
def test_sheet_cards_and_missions_are_dealt_secretly() -> None:
    t = Table(3, tops={"mission": ["M04", "M06", "M30"]})
    g = t.state
    assert [deck_of_slot(s) for s in g.hand[0]].count("spell") == 4  # Harry: 4 spell, 2 potion, 2 book (R)
    assert len(g.hand[0]) == 8 and g.lp[0] == 7
    mine = t.table.knowledge(0)
    assert [instance(mine.face(s) or -1).card for s in g.missions[0][:1]] == ["M04"]  # dealt in turn: 1st card
    assert all(t.table.knowledge(1).face(s) is None for s in g.missions[0] + g.hand[0])
    assert not g.pub


# ----------------------------------------------------------------------------- movement


def test_harry_s_example_turn_takes_two_spell_cards_on_m010() -> None:
    """Rules §17: 5 + 5 from the start past the Clock Tower and a token to the cell above the Hufflepuff
    common room, a spell cell (C-50): by his ability Harry takes 2 spell cards."""
    t = Table(2, sheets=(HARRY, RON), random=(b"tokens" * 6, FIVE_FIVE), mode="engine")
    t.act(0, {"type": "no_start"}, "start_card")
    path = list(load().harry_turn)
    assert {"type": "move", "path": path, "roll": 10} in t.legal(0)
    t.act(0, {"type": "move", "path": path, "roll": 10}, "move")
    token = t.state.tokens["m006"][0]
    t.act(0, {"type": "take", "cell": "m006", "token": token}, "tokens")  # the only token on the way
    t.expect(1, "start_card")
    assert t.state.held[0] == [token] and t.state.pos[0] == "m010"
    assert [deck_of_slot(s) for s in t.state.hand[0]].count("spell") == 6


@pytest.mark.usefixtures("mode")
def test_moves_are_the_walks_of_the_roll_and_nothing_else() -> None:
    t = Table(2)
    t.act(0, {"type": "no_start"}, "start_card")
    step = t.expect(0, "move")
    roll = t.state.stack.top.rolls[0]  # type: ignore[attr-defined]
    assert 2 <= roll <= 12 and t.state.stack.top.rolls == [roll]  # type: ignore[attr-defined]
    want = [{"type": "move", "path": list(w.path), "roll": roll} for w in walks(graph(), "start", roll)]
    assert t.legal(0) == want and step.seats == (0,)
    for bad in ({"type": "move", "path": ["start", "two_hands_cell"], "roll": roll} if roll > 1 else {},
                {"type": "move", "path": want[0]["path"], "roll": roll + 1},
                {"type": "move", "path": ["m003", *want[0]["path"][1:]], "roll": roll}):
        t.assert_illegal(0, bad)
    t.act(0, want[-1])
    assert t.state.pos[0] == want[-1]["path"][-1]


def test_no_underage_battle_with_one_or_two_life_points_or_in_a_truce() -> None:
    t = Table(2, mode="engine")
    g = t.state
    g.pos[1] = "m003"
    assert opponents_at(g, 0, "m003") == [1]
    g.lp[1] = 2
    assert opponents_at(g, 0, "m003") == []
    g.lp[1] = 5
    g.truces.append([0, 1, 2, 2])
    assert opponents_at(g, 0, "m003") == [] and opponents_at(g, 1, "start") == []  # never on the start cell


# ----------------------------------------------------------------------------- decks and cells


@pytest.mark.usefixtures("mode")
def test_an_event_is_opened_to_everyone_applies_to_all_and_goes_under() -> None:
    t = Table(3, tops={"event": ["EV12"]})  # The House Cup race is on: everyone +10
    t.push(Event(0))
    t.expect(0, "start_card")
    g = t.state
    assert g.points == [10, 10, 10]
    slot = g.deck["event"][-1]
    assert instance(g.pub[slot]).card == "EV12"


@pytest.mark.usefixtures("mode")
def test_an_action_card_is_applied_to_its_drawer() -> None:
    t = Table(2, tops={"action": ["AC01", "AC09"]})
    t.push(ActionCards(0))
    t.expect(0, "start_card")
    assert t.state.points == [50, 0]
    t.push(ActionCards(1))  # -30 from 0: house points never drop below 0 (C-1)
    t.expect(0, "start_card")
    assert t.state.points == [50, 0]


@pytest.mark.usefixtures("mode")
def test_cards_taken_into_the_hand_are_seen_by_the_taker_only() -> None:
    t = Table(2, tops={"spell": ["stupefy"] * 6 + ["reducto", "protego", "accio"]})  # Harry 4, Ron 3, then two
    t.push(Draw(1, "spell", 2))
    t.expect(0, "start_card")
    new = t.state.hand[1][-2:]
    assert [instance(t.table.knowledge(1).face(s) or -1).card for s in new] == ["protego", "accio"]
    assert all(t.table.knowledge(0).face(s) is None for s in new)


@pytest.mark.usefixtures("mode")
def test_an_exam_scores_a_book_of_the_classroom_s_subject() -> None:
    t = Table(2, tops={"book": ["BK18", "BK01"]})  # Harry's two books: Magical Draughts and Potions (10), charms
    potions, charms = t.state.hand[0][-2:]
    t.push(Exam(0, "potions"))
    assert t.legal(0) == [{"type": "done"}, {"type": "exam", "slot": potions}]
    t.assert_illegal(0, {"type": "exam", "slot": charms})
    t.act(0, {"type": "exam", "slot": potions}, "exam")
    t.act(0, {"type": "done"}, "exam")  # asked again: it still holds a book (which one is its secret)
    t.expect(0, "start_card")
    assert t.state.points[0] == 10 and potions in t.state.pub and t.state.deck["book"][-1] == potions


@pytest.mark.usefixtures("mode")
def test_a_duel_card_showing_your_own_character_is_replaced_and_the_duel_is_fought() -> None:
    t = Table(2, tops={"duel": ["DU01", "DU10"]})  # Harry Potter (seat 0 is Harry), then Vincent Crabbe
    hand = len(t.state.hand[0])
    t.push(Duel(0))
    t.first_legal_until(["start_card"])
    g = t.state
    assert [instance(g.pub[s]).card for s in g.deck["duel"][-2:]] == ["DU01", "DU10"]
    if g.lp[0] == 1:  # lost at 1 LP (C-32): 3 cards of its choice went under their decks
        assert len(g.hand[0]) <= hand - 3 + 5 and g.pos[0] == "start"
    else:  # won: a book, a potion and a spell card
        assert sorted(deck_of_slot(s) for s in g.hand[0][-3:]) == ["book", "potion", "spell"]


# ----------------------------------------------------------------------------- missions


@pytest.mark.usefixtures("mode")
def test_a_mission_is_opened_fought_and_its_tokens_go_to_board_2() -> None:
    t = Table(2, tops={"mission": ["M04", "M01"]})  # seat 0: 4 (Flying Ford Anglia) first, seat 1: 1
    g = t.state
    t.decide()
    cell = next(c for c, tokens in sorted(g.tokens.items()) if "flying_ford_anglia" in tokens)
    g.tokens[cell].remove("flying_ford_anglia")
    g.held[0].append("flying_ford_anglia")
    g.pos[0] = "whomping_willow"
    mission, other = g.missions[0][0], g.missions[0][1]
    t.push(MissionAttempt(0))
    assert {"type": "mission", "slot": mission} in t.legal(0)
    t.assert_illegal(0, {"type": "mission", "slot": other})
    t.act(0, {"type": "mission", "slot": mission}, "mission")
    assert instance(g.pub[mission]).card == "M04"
    step = t.first_legal_until(["hand_in"])
    assert isinstance(step, Decide)
    t.act(0, {"type": "place", "token": "flying_ford_anglia", "cell": "o007"}, "hand_in")
    assert "flying_ford_anglia" in g.tokens["o007"] and "flying_ford_anglia" not in g.held[0]
    if g.done[0]:
        assert g.done[0] == [4] and g.points[0] == 40 and mission not in g.missions[0]
    else:  # defeated: the Leaky Cauldron, 6 LP, no potion or spell card left (rules §14.1)
        assert g.pos[0] == "leaky_cauldron" and g.lp[0] == 6 and mission in g.missions[0]
        assert all(deck_of_slot(s) == "book" for s in g.hand[0])


def test_a_card_opened_as_a_mission_must_be_one() -> None:
    t = Table(2, tops={"mission": ["M04", "M01"]}, mode="engine")
    g = t.state
    g.pos[0] = "whomping_willow"
    g.held[0].append("flying_ford_anglia")
    t.push(MissionAttempt(0))
    hand_card = g.hand[0][0]
    with pytest.raises(IllegalAction):
        g.check(0, {"type": "mission", "slot": hand_card}, t.table.knowledge(0))


# ----------------------------------------------------------------------------- battles between players


@pytest.mark.usefixtures("mode")
def test_the_underage_dice_duel_costs_the_loser_two_lp_and_gives_the_winner_a_prize() -> None:
    t = Table(2)
    g = t.state
    t.decide()
    g.pos[1] = "start"
    before = list(g.lp)
    t.push(PlayerBattle(0, [1]))
    step = t.decide()  # the dice duel is all chance: next is the winner's prize
    assert step.prompt == "prize"
    winner = step.seats[0]
    loser = 1 - winner
    assert before[loser] - g.lp[loser] == 2 and before[winner] - g.lp[winner] in (0, 1)
    assert {"type": "prize", "what": "portal"} in t.legal(winner)
    t.act(winner, {"type": "prize", "what": "portal"}, "prize")
    assert (g.portals[winner], g.portals[loser]) == (2, 0)
    assert g.truces == [[0, 1, 3, 2]]  # seat 0's turn is running: 2 more turns each (C-34)


# ----------------------------------------------------------------------------- trips, extra turns, the end

ONE_TWO = hashlib.sha256(b"12").digest()
"""Joint random bytes whose two dice are 1 and 2: 3 steps, start to the Clock Tower."""


def test_flying_powder_from_a_tower_and_back_without_the_destination_s_effect() -> None:
    t = Table(2, sheets=(RON, HARRY), random=(b"tokens" * 6, ONE_TWO), mode="engine")
    g = t.state
    t.act(0, {"type": "no_start"}, "start_card")
    t.act(0, {"type": "move", "path": ["start", "two_hands_cell", "hogwarts_crest_cell", "clock_tower"], "roll": 3})
    step = t.first_legal_until(["trip"])
    assert isinstance(step, Decide) and step.seats == (0,)
    hand = len(g.hand[0])
    t.act(0, {"type": "fly", "to": "o004"}, "trip")  # a potion cell of board 2: its effect does not apply (C-21)
    t.first_legal_until(["start_card"])  # nothing to take or attempt there: the turn ends, back to the tower
    assert g.turn == 1 and g.pos[0] == "clock_tower" and len(g.hand[0]) == hand and g.powder[0] == 1


def test_the_time_turner_gives_one_more_turn_and_goes_to_diagon_alley() -> None:
    t = Table(2, mode="engine")
    g = t.state
    t.decide()
    cell = next(c for c, tokens in sorted(g.tokens.items()) if "time_turner" in tokens)
    g.take_token(cell, "time_turner")
    g.held[0].append("time_turner")
    t.first_legal_until(["time_turner"])
    t.act(0, {"type": "time_turner"}, "time_turner")
    t.act(0, {"type": "place", "token": "time_turner", "cell": "d009"}, "place_used")
    assert "time_turner" in g.tokens["d009"] and "time_turner" not in g.held[0]
    t.expect(0, "start_card")  # its extra turn (C-49)
    assert g.turns == 1


def test_the_round_is_finished_and_every_player_meeting_the_goal_wins() -> None:
    t = Table(3, mode="engine")
    g = t.state
    t.decide()
    g.done[1], g.points[1] = [4], 211  # quick: 1 mission and more than 210 points
    over = t.first_legal_until([])
    assert isinstance(over, GameOver)
    assert over.winners == (1,) and g.turns == 3  # seat 2 still played its turn (C-15)
    assert over.scores == tuple(g.points)


# ----------------------------------------------------------------------------- more battles and cells


@pytest.mark.usefixtures("mode")
def test_a_lost_battle_sends_to_the_leaky_cauldron_with_6_lp_and_no_potion_or_spell() -> None:
    t = Table(2)
    g = t.state
    t.decide()
    g.lp[0] = 2
    t.push(Battle([0], "BA06", "mission", 5))  # Tom Riddle: "when revealed you lose 2 LP"
    t.expect(0, "move")  # no start-of-turn card left to offer
    assert g.pos[0] == "leaky_cauldron" and g.lp[0] == 6
    assert sorted(deck_of_slot(s) for s in g.hand[0]) == ["book", "book"]  # Harry's books are kept (C-30)


def test_the_stone_absorbs_losses_and_the_wand_adds_a_die_for_the_battle() -> None:
    t = Table(2, mode="engine")
    g = t.state
    t.decide()
    for token in ("resurrection_stone", "elder_wand"):
        cell = next(c for c, tokens in sorted(g.tokens.items()) if token in tokens)
        g.take_token(cell, token)
        g.held[0].append(token)
    battle = Battle([0], "BA06", "mission", 5)
    t.push(battle)
    t.decide()
    assert g.lp[0] == 5  # 7 - 2 when revealed
    t.act(0, {"type": "no_defence"}, "defend")
    assert {"type": "token", "token": "resurrection_stone"} in t.legal(0)
    t.act(0, {"type": "token", "token": "resurrection_stone"}, "attack")
    t.act(0, {"type": "token", "token": "elder_wand"}, "attack")
    assert battle.buffer == {0: 6} and battle.bonus == {0: 1} and g.held[0] == []
    t.act(0, {"type": "dice"}, "attack")
    t.decide()
    rolls = [e[2] for e in g.events if e[:2] == ["roll", "attack"]]
    assert len(rolls[-1]) == 4  # Harry's 3 dice and the Wand's
    assert g.lp[0] == 5 and battle.buffer == {0: 3}  # "you lose 3 LP after each attack": the Stone takes them
    t.first_legal_until(["place_used"])
    t.act(0, {"type": "place", "token": "resurrection_stone", "cell": "d006"}, "place_used")
    t.act(0, {"type": "place", "token": "elder_wand", "cell": "d012"}, "place_used")
    assert g.tokens["d006"][-1] == "resurrection_stone" and g.tokens["d012"][-1] == "elder_wand"


@pytest.mark.usefixtures("mode")
def test_draco_may_refuse_a_duel_and_take_a_spell_card() -> None:
    t = Table(2, sheets=(8, HARRY))
    g = t.state
    hand, duels = len(g.hand[0]), list(g.deck["duel"])
    t.push(Duel(0))
    t.act(0, {"type": "refuse"}, "duel_refuse")
    t.decide()  # the Deal of the spell card
    assert len(g.hand[0]) == hand + 1 and deck_of_slot(g.hand[0][-1]) == "spell" and g.deck["duel"] == duels


@pytest.mark.usefixtures("mode")
def test_a_common_room_exchange_may_be_refused_or_accepted() -> None:
    t = Table(2)
    g = t.state
    t.decide()
    for seat, token in ((0, "nagini"), (1, "pensieve")):
        cell = next(c for c, tokens in sorted(g.tokens.items()) if token in tokens)
        g.take_token(cell, token)
        g.held[seat].append(token)
    offer = {"type": "exchange", "with": 1, "give": "nagini", "take": "pensieve"}
    for answer, after in (("refuse", ["nagini"]), ("accept", ["pensieve"])):
        t.push(CommonRoom(0, 1))
        t.act(0, offer, "common_room")
        t.act(1, {"type": answer}, "exchange_offer")
        assert g.held[0] == after


def test_no_duel_card_is_drawn_with_one_life_point() -> None:
    t = Table(2, mode="engine")
    g = t.state
    g.pos[0] = next(c.id for c in g.data.cells.values() if c.kind == "duel")
    g.lp[0] = 1
    assert effect_tasks(g, 0) == []
    g.lp[0] = 2
    assert [type(x).__name__ for x in effect_tasks(g, 0)] == ["Duel"]


# ----------------------------------------------------------------------------- a whole game through the protocol


def test_a_whole_game_of_heuristic_bots_through_the_protocol_ends_with_clean_audits() -> None:
    t = Table(2, mode="protocol")
    assert isinstance(t.table, ProtocolTable)
    bots = {s: GAME.make_bot("heuristic", s) for s in range(2)}
    for _ in range(5000):
        step = t.step()
        if isinstance(step, GameOver):
            break
        assert isinstance(step, Decide)
        seat = step.seats[0]
        peer = t.table.peers[seat].state  # a bot sees its own peer's state and knowledge only
        knowledge = t.table.knowledge(seat)
        t.table.act([(seat, bots[seat].choose(peer, seat, knowledge, peer.legal_actions(seat, knowledge)))])
    assert isinstance(step, GameOver) and step.winners
    t.finish()  # every peer's audit: clean verdicts, equal state hashes


def test_the_invisibility_cloak_ends_a_battle_with_an_escape_of_up_to_5_steps() -> None:
    t = Table(2, mode="engine")
    g = t.state
    t.decide()
    cell = next(c for c, tokens in sorted(g.tokens.items()) if "invisibility_cloak" in tokens)
    g.take_token(cell, "invisibility_cloak")
    g.held[0].append("invisibility_cloak")
    t.push(Battle([0], "BA02", "mission", 5))  # Fluffy
    t.first_legal_until(["attack"])
    t.act(0, {"type": "token", "token": "invisibility_cloak"}, "attack")
    escapes = t.legal(0)
    assert escapes and all(1 <= len(a["path"]) - 1 <= 5 for a in escapes)
    t.act(0, escapes[-1], "cloak_move")
    t.act(0, {"type": "place", "token": "invisibility_cloak", "cell": "d006"}, "place_used")
    assert g.pos[0] == escapes[-1]["path"][-1] and 0 in g.ended and "invisibility_cloak" in g.tokens["d006"]


@pytest.mark.usefixtures("mode")
def test_accio_looks_through_a_deck_takes_one_card_and_the_deck_is_shuffled() -> None:
    t = Table(2, tops={"spell": ["accio"]})  # Harry's first spell card
    g = t.state
    accio = g.hand[0][0]
    t.act(0, {"type": "start", "slot": accio}, "start_card")
    assert t.legal(0) == [{"type": "deck", "deck": "potion"}, {"type": "deck", "deck": "spell"}]
    t.act(0, {"type": "deck", "deck": "potion"}, "search_deck")
    t.expect(0, "search_take")
    before = list(g.deck["potion"])
    mine, theirs = t.table.knowledge(0), t.table.knowledge(1)
    assert all(mine.face(s) is not None for s in before) and not any(theirs.face(s) for s in before)
    felix = next(s for s in before if instance(mine.face(s) or -1).card == "felix_felicis")
    t.act(0, {"type": "take", "slot": felix}, "search_take")
    t.expect(0, "move")
    assert g.hand[0][-1] == felix and theirs.face(felix) is None
    assert len(g.deck["potion"]) == len(before) - 1 and not set(g.deck["potion"]) & set(before)  # new slots
    assert g.deck["spell"][-1] == accio and instance(g.pub[accio]).card == "accio"


def test_the_optional_dodge_rerolls_the_dice_that_hit() -> None:
    """C-36: with dodge=true, Fluffy's counter-attack (after:roll(3)) may be dodged; 1-2 cost 2, 3-5 cost 1,
    a 6 costs Fluffy 1."""
    t = Scenario(GAME, 2, {"dodge": True}, mode="engine")
    for seat in (0, 1):
        t.act(seat, {"type": "character", "sheet": seat + 1}, "character")
    g = t.state
    assert isinstance(g, HogwartsState)
    t.decide()
    battle = Battle([0], "BA02", "mission", 5)
    g.stack.push(battle)
    for _ in range(40):
        step = t.decide()
        if step.prompt == "dodge":
            break
        t.act(step.seats[0], t.legal(step.seats[0])[0])
    else:
        pytest.skip("no hit to dodge in 40 decisions")
    hits = battle.dice[0]
    g.lp[0] = 14  # a dodge of 3 dice costs at most 6: no defeat muddles the count
    lp, fluffy = g.lp[0], battle.lp
    t.act(0, {"type": "dodge"}, "dodge")
    t.decide()
    dodged = [e[2] for e in g.events if e[:2] == ["roll", "dodge"]][-1]
    assert len(dodged) == hits
    assert lp - g.lp[0] == sum(2 if d <= 2 else 0 if d == 6 else 1 for d in dodged)
    assert fluffy - battle.lp >= dodged.count(6)


# ----------------------------------------------------------------------------- events that ask, cells, start cards


@pytest.mark.usefixtures("mode")
def test_owl_post_lets_every_player_choose_a_deck_from_the_drawer_clockwise() -> None:
    t = Table(3, tops={"event": ["EV09"]})
    g = t.state
    sizes = [len(h) for h in g.hand]
    t.push(Event(1))
    for seat, deck in ((1, "book"), (2, "potion"), (0, "spell")):
        t.act(seat, {"type": "deck", "deck": deck}, "choose_deck")
    t.expect(0, "start_card")
    assert [len(h) - n for h, n in zip(g.hand, sizes, strict=True)] == [1, 1, 1]
    assert [deck_of_slot(h[-1]) for h in g.hand] == ["spell", "book", "potion"]


@pytest.mark.usefixtures("mode")
def test_the_start_of_term_feast_sends_everyone_to_a_great_hall_cell_of_their_choice() -> None:
    t = Table(2, tops={"event": ["EV03"]})
    g = t.state
    hall = list(load().great_hall_cells())
    t.push(Event(0))
    assert t.legal(0) == [{"type": "go", "cell": c} for c in hall]
    t.act(0, {"type": "go", "cell": hall[0]}, "event_cell")
    t.act(1, {"type": "go", "cell": hall[-1]}, "event_cell")
    t.expect(0, "start_card")
    assert g.pos == [hall[0], hall[-1]]


def test_a_group_battle_multiplies_the_enemy_s_lp_by_the_participants() -> None:
    t = Table(3, tops={"event": ["EV14"]}, mode="engine")  # Troll in the dungeon: 5 LP per participant
    g = t.state
    t.decide()
    g.lp[2] = 2  # only players with 3 LP or more take part
    t.push(Event(0))
    t.decide()
    battle = g.stack.top
    assert isinstance(battle, Battle) and battle.participants == [0, 1] and battle.start_lp == 10
    assert battle.limit == 2
    points = list(g.points)
    t.first_legal_until(["start_card"])
    if battle.lp <= 0:
        assert [g.points[s] - points[s] for s in (0, 1)] == [0 if s in g.fallen else 20 for s in (0, 1)]
    assert g.points[2] == points[2]


def test_movement_cards_change_the_roll() -> None:
    assert rolls_for("", [3, 4]) == [7]
    assert rolls_for("move(+2)", [3, 4]) == [9]
    assert rolls_for("move(pm1)", [3, 4]) == [6, 7, 8]
    assert rolls_for("move(set1)", [3, 4]) == [4, 5, 6, 7, 8, 9, 10]
    assert rolls_for("move(3d6keep2)", [1, 5, 6]) == [6, 7, 11]


def test_life_cells_heal_up_to_14_and_hagrid_s_hut_gives_a_potion_and_a_spell() -> None:
    t = Table(2, mode="engine")
    g = t.state
    g.pos[0], g.lp[0] = "hospital_wing", 12
    assert effect_tasks(g, 0) == [] and g.lp[0] == 14
    g.pos[0] = "hagrids_hut"
    assert [(type(x).__name__, x.deck, x.n) for x in effect_tasks(g, 0) if isinstance(x, Draw)] == \
        [("Draw", "potion", 1), ("Draw", "spell", 1)]
    g.pos[0] = "m010"  # a spell cell: Harry takes 2 (his ability)
    assert [(x.deck, x.n) for x in effect_tasks(g, 0) if isinstance(x, Draw)] == [("spell", 2)]


def test_a_deck_holding_face_down_cards_of_two_joint_keys_is_not_searched() -> None:
    """The session reshuffles face-down cards of one joint key at a time (search.py's decision); a deck's shuffle
    and its reshuffles share one (a card of an older shuffle is no obstacle), a reshuffle of face-up cards alone
    starts a new one (``HogwartsState.family``)."""
    t = Table(2, mode="engine")
    g = t.state
    assert searchable(g, ["potion", "spell"]) == ["potion", "spell"]
    g.reshuffles["potion"] = 1  # as if searched once: the deck's face-down cards are of shuffle 0, same key
    assert searchable(g, ["potion", "spell"]) == ["potion", "spell"]
    other = int(g.deck["potion"][0])
    g.blocks = [[other, 1, other]]  # as if that card were under a new key
    assert searchable(g, ["potion", "spell"]) == ["spell"]
    for slot in g.deck["potion"]:  # face up, a card of an older shuffle is no obstacle
        g.pub[slot] = t.table.faces[slot]
    assert searchable(g, ["potion"]) == ["potion"]
