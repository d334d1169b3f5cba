"""TCG rules in engine mode: set-up, the turn, Actions, Power, damage milling, the loss, the deck checks."""

from __future__ import annotations

import pytest

from p2php.engine.contract import GameOver, IllegalAction, OptionError, Shuffle
from p2php.games.tcg.cards import card_by_name
from p2php.games.tcg.decklist import DeckList, starter_deck
from p2php.games.tcg.game import GAME, deck_problem
from p2php.games.tcg.ids import BLOCK, card_of, instance_ids
from p2php.testing.tcg import Duel

CMC = "Care of Magical Creatures"
OPTS = GAME.parse_options({})


# ----------------------------------------------------------------------------- ids and deck checks


def _incendio_unplayable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Base Set card is implemented: these tests take Incendio out of the engine to have one that is not."""
    from p2php.games.tcg import effects

    monkeypatch.delitem(effects.SPELLS, 25)


def test_instance_ids_name_their_card_and_stay_in_the_seats_block() -> None:
    for seat, which in ((0, "hermione"), (1, "draco")):
        deck = starter_deck(which)
        ids = instance_ids(seat, deck)
        assert len(ids) == len(set(ids)) == 40
        assert all(seat * BLOCK <= i < (seat + 1) * BLOCK for i in ids)
        assert sorted(card_of(i).number for i in ids) == list(deck.cards())
    assert GAME.universe_size(OPTS) == 2 * BLOCK


def test_the_secret_decks_are_checked_at_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    _incendio_unplayable(monkeypatch)
    mine = instance_ids(0, starter_deck("hermione"))
    assert GAME.check_private_deck(OPTS, 0, "deck0", mine) is None
    assert GAME.check_private_deck(OPTS, 1, "deck1", instance_ids(1, starter_deck("draco"))) is None
    assert "outside its block" in str(GAME.check_private_deck(OPTS, 1, "deck1", mine))
    assert "twice" in str(GAME.check_private_deck(OPTS, 0, "deck0", mine[:-1] + mine[:1]))
    assert GAME.check_private_deck(OPTS, 0, "deck0", mine[:-1]) is not None  # 39 cards
    dracos = [i for i in range(BLOCK) if card_of(i).name == "Draco Malfoy"]  # Base 2 x4 and Base 3 x4
    five = [i for i in mine if card_of(i).name != "Take Root"][:35] + dracos[:5]  # one card, two versions
    assert GAME.check_private_deck(OPTS, 0, "deck0", five) == "seat 0's deck is not the list the table names for it"
    own = {**OPTS, "deck0": "own", "character0": "Hermione Granger", "format": "starter"}  # the rules, not a list
    problem = GAME.check_private_deck(own, 0, "deck0", five)
    assert problem is not None and "Draco Malfoy" in problem
    incendio = next(i for i in range(BLOCK) if card_of(i).name == "Incendio")
    swapped = [incendio if card_of(i).name == "Take Root" and i == mine[0] else i for i in mine]
    problem = GAME.check_private_deck(own, 0, "deck0", swapped)
    assert problem is not None and "Incendio" in problem and "not implemented" in problem


def test_a_deck_with_an_unimplemented_card_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _incendio_unplayable(monkeypatch)
    deck = starter_deck("draco")
    entries = tuple((card_by_name("Incendio"), 2) if c.name == "Accio" else (c, n) for c, n in deck.entries)
    problem = deck_problem(DeckList(deck.character, entries, name="mine.deck"), "starter")
    assert problem == "mine.deck: Incendio (Base 25) is not implemented in this engine yet"
    assert deck_problem(deck, "starter") is None


def test_the_format_option_checks_the_deck_size() -> None:
    with pytest.raises(OptionError, match="seat 0's deck"):
        GAME.new_state(2, {"format": "constructed"})


# ----------------------------------------------------------------------------- set-up


@pytest.mark.parametrize("first", [0, 1])
def test_set_up_characters_secret_decks_seven_cards_and_who_goes_first(first: int) -> None:
    d = Duel(first=first)
    g = d.state
    shuffles = [step for kind, step in d.table.log if kind == "Shuffle"]
    assert [(s.owner, s.size, s.cards, s.purpose) for s in shuffles if isinstance(s, Shuffle)] == \
        [(0, 40, (), "deck0"), (1, 40, (), "deck1")]
    assert g.observation(None, d.table.knowledge(0))["sides"][0]["character"] == "Hermione Granger"
    assert [c.name for c in g.characters_of(1)] == ["Draco Malfoy"]
    assert g.first == first and g.turn == first
    assert len(g.hand[first]) == 8 and len(g.deck[first]) == 32  # the first player draws too (§2 decision)
    assert len(g.hand[1 - first]) == 7 and len(g.deck[1 - first]) == 33
    assert not g.pub  # nothing opened: hands are known to their owners only
    hand = d.table.knowledge(1 - first)
    assert all(hand.face(s) is None for s in g.hand[first])


# ----------------------------------------------------------------------------- the turn


def test_two_actions_then_the_turn_passes_and_the_next_player_draws() -> None:
    d = Duel(first=0)
    d.act(0, {"type": "draw"}, "action")
    d.act(0, {"type": "draw"}, "action")
    g = d.state
    assert len(g.hand[0]) == 10 and g.turn == 1 and len(g.hand[1]) == 8


def test_actions_are_optional_and_not_saved() -> None:
    d = Duel(first=0)
    d.end_turn(0)
    assert d.state.turn == 1
    d.end_turn(1)
    assert d.state.turn == 0 and d.prompt == "action"
    d.act(0, {"type": "draw"})
    d.act(0, {"type": "draw"})
    assert d.state.turn == 1  # still only two


def test_creatures_deal_damage_at_the_start_of_their_owners_turn() -> None:
    d = Duel(first=0, in_play={0: ["Vicious Wolf", "Curious Raven"]})
    # the first turn's damage step ran before the edit put them in play; the next one counts
    d.end_turn(0)
    before = len(d.state.deck[1])
    d.end_turn(1)
    assert len(d.state.deck[1]) == before - 4 and len(d.state.discard[1]) == 4
    assert all(s in d.table.public for s in d.state.discard[1])  # milled face up


# ----------------------------------------------------------------------------- Power


def test_power_needs_the_total_and_one_of_the_type() -> None:
    d = Duel(first=0, hands={0: ["Vicious Wolf", "Curious Raven"]}, in_play={0: ["Transfiguration"] * 6})
    assert d.play(0, "Vicious Wolf") not in d.legal(0)  # 6 Power, none of it Care of Magical Creatures
    assert d.play(0, "Curious Raven") not in d.legal(0)
    with pytest.raises(IllegalAction, match="Power"):
        d.act(0, d.play(0, "Vicious Wolf"))


def test_power_is_not_used_up() -> None:
    d = Duel(first=1, hands={1: ["Vermillious", "Vermillious"]}, in_play={1: ["Charms"] * 4})
    d.act(1, d.play(1, "Vermillious"))
    d.act(1, {"type": "target", "seat": 0})
    d.act(1, d.play(1, "Vermillious"))  # the same 4 Lessons again (FAQ 3)
    d.act(1, {"type": "target", "seat": 0})
    assert d.names(1, "discard") == ["Vermillious", "Vermillious"]


def test_too_little_power_in_total() -> None:
    d = Duel(first=1, hands={1: ["Boa Constrictor"]}, in_play={1: [CMC, CMC, "Charms"]})
    assert d.play(1, "Boa Constrictor") not in d.legal(1)


def test_a_refused_play_opens_nothing() -> None:
    d = Duel(first=1, hands={1: ["Stupefy"]}, in_play={1: ["Charms"]})
    slot = d.slot(1, "Stupefy")
    with pytest.raises(IllegalAction):
        d.act(1, {"type": "play", "slot": slot})
    assert slot not in d.state.pub and d.prompt == "action"


def test_a_card_not_in_hand_is_refused() -> None:
    d = Duel(first=0)
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "play", "slot": d.state.deck[0][0]})
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "cast"})


# ----------------------------------------------------------------------------- damage and the end


def test_damage_beyond_the_deck_mills_what_is_there_and_the_player_loses() -> None:
    d = Duel(first=1, hands={1: ["Stupefy"]}, in_play={1: ["Charms"] * 6})
    del d.state.deck[0][2:]  # test-only edit: seat 0 has two cards left
    d.act(1, d.play(1, "Stupefy"))
    assert isinstance(d.step, GameOver)
    assert d.step.winners == (1,) and d.step.scores == (0, 1)
    assert d.state.deck[0] == [] and len(d.state.discard[0]) == 2


def test_drawing_the_last_card_loses() -> None:
    d = Duel(first=0)
    del d.state.deck[1][1:]
    d.end_turn(0)  # seat 1 draws its last card: its deck has run out (§1 decision)
    assert isinstance(d.step, GameOver) and d.step.winners == (0,)
    assert "seat 1's deck ran out" in d.step.summary


def test_drawing_with_an_action_can_lose_too() -> None:
    d = Duel(first=0)
    del d.state.deck[0][1:]
    d.act(0, {"type": "draw"})
    assert isinstance(d.step, GameOver) and d.step.winners == (1,)


def test_an_observation_shows_ones_own_hand_only() -> None:
    d = Duel(first=0, hands={0: ["Vicious Wolf"]})
    mine = d.state.observation(0, d.table.knowledge(0))
    theirs = d.state.observation(1, d.table.knowledge(1))
    assert "Vicious Wolf" in mine["hand"] and len(theirs["hand"]) == 7
    assert mine["sides"][0]["hand"] == 8 and mine["sides"][1]["deck"] == 33
    assert GAME.card_name(instance_ids(0, starter_deck("hermione"))[0], OPTS) == "Take Root"


def test_characters_cost_two_actions_and_unique_cards_cannot_be_doubled(monkeypatch: pytest.MonkeyPatch) -> None:
    _incendio_unplayable(monkeypatch)
    from p2php.games.tcg.turn import why_not

    d = Duel(first=0)
    hermione, draco = card_by_name("Hermione Granger"), card_by_name("Draco Malfoy")
    assert why_not(d.state, 1, hermione, 2) is not None  # Seat 0's starting Hermione is in play (§8)
    assert "Unique" in str(why_not(d.state, 0, draco, 2))  # so is seat 1's Draco
    d.state.start[1] = card_by_name("Hermione Granger").number  # both may start with the same one
    assert "2 Actions" in str(why_not(d.state, 1, draco, 1))
    assert why_not(d.state, 1, draco, 2) is None  # no Power needed
    assert "not implemented" in str(why_not(d.state, 0, card_by_name("Incendio"), 2))
