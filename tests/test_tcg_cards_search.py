"""TCG cards that search a deck or shuffle cards into it (issue 11), on the engine's Reshuffle step.

"Search your deck … Then shuffle your deck": Alchemy, Apothecary, Mysterious Egg, Transmogrify, Vanishing Glass,
Nearly Headless Nick. "Shuffle up to N non-Healing cards from your discard pile into your deck": Elixir of Life,
Burning Bitterroot Balm, Hospital Wing, Professor Severus Snape; and Hiding From Snape, whose reward is a search for
any card, taken face down. Every test runs on a trusted local dealer
(``engine``) and through the real protocol with the fast deck (``fast``: both secret decks stacked through the
crypto, every audit clean); the verified deck (set-up ≈ 9 s here) runs one search and one shuffle-in.
"""

from __future__ import annotations

import importlib.util

import pytest

from p2php.engine.contract import IllegalAction
from p2php.games.tcg.cards import card_by_name
from p2php.games.tcg.effects import unimplemented
from p2php.testing.tcg import Duel

CMC, POT, TR, CH = "Care of Magical Creatures", "Potions", "Transfiguration", "Charms"
VERIFIED = pytest.param("verified", marks=pytest.mark.skipif(importlib.util.find_spec("coincurve") is None,
                                                             reason="needs coincurve"))
MODES = ["engine", "fast"]
ALL_MODES = [*MODES, VERIFIED]


def duel(mode: str, **kw: object) -> Duel:
    return Duel(protocol="" if mode == "engine" else mode, **kw)  # type: ignore[arg-type]


def deck(d: Duel, seat: int) -> list[int]:
    return list(d.state.deck[seat])


def assert_reshuffled(d: Duel, seat: int, before: list[int]) -> None:
    """The deck is a new deck (new slots), its owner knows none of its faces, and the old slots are gone."""
    now = deck(d, seat)
    assert now and not set(now) & set(before)
    assert min(now) >= 200 and all((s // 100) % 2 == seat for s in now)  # the seat's next block of slots
    for viewer in (0, 1):
        known = d.table.knowledge(viewer)
        assert all(known.face(s) is None for s in now if s not in d.table.public)


def search_slots(d: Duel, seat: int, name: str) -> list[int]:
    return [s for s in deck(d, seat) if d.name(s) == name]


def test_the_cards_are_implemented() -> None:
    for name in ("Alchemy", "Apothecary", "Mysterious Egg", "Transmogrify", "Vanishing Glass", "Nearly Headless Nick",
                 "Elixir of Life", "Burning Bitterroot Balm", "Hospital Wing", "Professor Severus Snape",
                 "Hiding From Snape"):
        assert not unimplemented(card_by_name(name)), name


# ---------------------------------------------------------------------- search your deck


@pytest.mark.parametrize("mode", ALL_MODES)
def test_alchemy_takes_up_to_two_lessons_shows_them_and_shuffles_the_deck(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Alchemy", "Guard Dog"]}, hands={0: ["Alchemy"]}, in_play={0: [TR, TR]},
             draws={0: [TR]}, reshuffled={0: ["Guard Dog"]})
    before = deck(d, 0)
    hand = len(d.state.hand[0])
    d.act(0, d.play(0, "Alchemy"))
    assert d.prompt == "search"
    # Seat 0 now sees its whole deck, seat 1 none of it.
    assert all(d.table.knowledge(0).face(s) is not None for s in before)
    assert all(d.table.knowledge(1).face(s) is None for s in before)
    dog = search_slots(d, 0, "Guard Dog")[0]
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "take", "slot": dog}, "search")  # not a Lesson
    first, second = search_slots(d, 0, POT)[:2]
    d.act(0, {"type": "take", "slot": first}, "search")
    d.act(0, {"type": "take", "slot": second}, "search")  # two taken: the deck is shuffled
    assert d.prompt == "action"
    assert {first, second} <= set(d.state.hand[0]) and len(d.state.hand[0]) == hand - 1 + 2
    assert d.table.public[first] == d.table.faces[first]  # shown to the opponent (opened to everyone)
    assert len(deck(d, 0)) == len(before) - 2
    assert_reshuffled(d, 0, before)
    assert d.name(deck(d, 0)[0]) == "Guard Dog"  # the stacked reshuffle
    d.finish()


@pytest.mark.parametrize("mode", MODES)
def test_mysterious_egg_may_take_nothing_and_still_shuffles(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Mysterious Egg", "Guard Dog"]}, hands={0: ["Mysterious Egg"]},
             in_play={0: [CMC] * 4}, draws={0: [CMC]})
    before = deck(d, 0)
    d.act(0, d.play(0, "Mysterious Egg"))
    assert {"type": "take", "slot": search_slots(d, 0, "Guard Dog")[0]} in d.legal(0)
    assert all(a["type"] == "stop" or d.name(a["slot"]) == "Guard Dog" for a in d.legal(0))  # Creatures only
    d.act(0, {"type": "stop"}, "search")
    assert len(deck(d, 0)) == len(before)
    assert_reshuffled(d, 0, before)
    assert sorted(d.name(s) for s in deck(d, 0)) == sorted(d.name(s) for s in before)  # the same cards
    d.finish()


@pytest.mark.parametrize("mode", MODES)
def test_mysterious_egg_takes_a_creature(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Mysterious Egg", "Guard Dog"]}, hands={0: ["Mysterious Egg"]},
             in_play={0: [CMC] * 4}, draws={0: [CMC]})
    before = deck(d, 0)
    d.act(0, d.play(0, "Mysterious Egg"))
    dog = search_slots(d, 0, "Guard Dog")[0]
    d.act(0, {"type": "take", "slot": dog}, "search")
    assert dog in d.state.hand[0] and dog in d.table.public
    assert "Guard Dog" not in [d.name(s) for s in deck(d, 0)]
    assert_reshuffled(d, 0, before)
    d.finish()


@pytest.mark.parametrize("mode", MODES)
def test_transmogrify_discards_one_of_your_creatures_then_searches_a_creature(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Transmogrify", "Guard Dog", "Pet Toad"]}, hands={0: ["Transmogrify"]},
             in_play={0: [TR, TR, "Pet Toad"]}, draws={0: [TR]})
    before = deck(d, 0)
    toad = d.slot(0, "Pet Toad", "creatures")
    d.act(0, d.play(0, "Transmogrify"))
    d.act(0, {"type": "creature", "slot": toad}, "creature")  # the cost: one of your Creatures
    assert d.names(0, "discard") == ["Pet Toad"]
    dog = search_slots(d, 0, "Guard Dog")[0]
    d.act(0, {"type": "take", "slot": dog}, "search")
    assert dog in d.state.hand[0]
    assert_reshuffled(d, 0, before)
    d.finish()


def test_transmogrify_needs_a_creature_of_yours_in_play() -> None:
    from p2php.games.tcg.turn import why_not

    d = Duel(first=0, decks={0: ["Transmogrify"]}, hands={0: ["Transmogrify"]}, in_play={0: [TR, TR]})
    assert "nothing to act on" in str(why_not(d.state, 0, card_by_name("Transmogrify"), 2))


@pytest.mark.parametrize("mode", MODES)
def test_vanishing_glass_discards_an_opponents_lesson_then_searches_a_creature(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Vanishing Glass", "Guard Dog"]}, hands={0: ["Vanishing Glass"]},
             in_play={0: [TR] * 9, 1: [CH]}, draws={0: [TR]})
    before = deck(d, 0)
    charms = d.state.lessons[1][0]
    d.act(0, d.play(0, "Vanishing Glass"))
    d.act(0, {"type": "in_play", "slot": charms}, "in_play")
    assert not d.state.lessons[1] and d.names(1, "discard") == [CH]
    dog = search_slots(d, 0, "Guard Dog")[0]
    d.act(0, {"type": "take", "slot": dog}, "search")
    assert dog in d.state.hand[0]
    assert_reshuffled(d, 0, before)
    d.finish()


def test_vanishing_glass_needs_an_opponents_lesson_in_play() -> None:
    from p2php.games.tcg.turn import why_not

    d = Duel(first=0, decks={0: ["Vanishing Glass"]}, hands={0: ["Vanishing Glass"]}, in_play={0: [TR] * 9})
    assert "nothing to act on" in str(why_not(d.state, 0, card_by_name("Vanishing Glass"), 2))


@pytest.mark.parametrize("mode", MODES)
def test_apothecary_discards_two_other_cards_then_takes_a_card_that_needs_potions_power(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Apothecary", "Potion Ingredients", "Guard Dog"]}, hands={0: ["Apothecary"]},
             in_play={0: [POT] * 5}, draws={0: [POT]})
    before = deck(d, 0)
    d.act(0, d.play(0, "Apothecary"))
    for _ in range(2):  # the cost: 2 other cards of the hand
        d.act(0, {"type": "discard", "slot": d.state.hand[0][0]}, "discard_own")
    assert len(d.names(0, "discard")) == 2
    for refused in ("Guard Dog", POT):  # a Creature of another type; a Lesson gives Power, it needs none
        with pytest.raises(IllegalAction):
            d.act(0, {"type": "take", "slot": search_slots(d, 0, refused)[0]}, "search")
    ingredients = search_slots(d, 0, "Potion Ingredients")[0]
    d.act(0, {"type": "take", "slot": ingredients}, "search")
    assert ingredients in d.state.hand[0]
    assert_reshuffled(d, 0, before)
    d.finish()


def test_apothecary_needs_two_other_cards_in_the_hand() -> None:
    from p2php.games.tcg.turn import why_not

    d = Duel(first=0, decks={0: ["Apothecary"]}, hands={0: ["Apothecary"]}, in_play={0: [POT] * 5})
    g = d.state
    while len(g.hand[0]) > 2:
        g.hand[0].remove(next(s for s in g.hand[0] if d.name(s) != "Apothecary"))
    assert "nothing to act on" in str(why_not(g, 0, card_by_name("Apothecary"), 2))


@pytest.mark.parametrize("mode", MODES)
def test_nearly_headless_nick_searches_two_items_once_per_game(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Nearly Headless Nick", "Cage", "Dragon Heart Wand", "Guard Dog"]},
             in_play={0: ["Nearly Headless Nick"]}, draws={0: [CH]})
    before = deck(d, 0)
    nick = {"type": "once", "card": 13}
    assert nick in d.legal(0)
    d.act(0, nick, "action")  # no Action spent
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "take", "slot": search_slots(d, 0, "Guard Dog")[0]}, "search")
    cage, wand = search_slots(d, 0, "Cage")[0], search_slots(d, 0, "Dragon Heart Wand")[0]
    d.act(0, {"type": "take", "slot": cage}, "search")
    d.act(0, {"type": "take", "slot": wand}, "search")
    assert {cage, wand} <= set(d.state.hand[0])
    assert_reshuffled(d, 0, before)
    assert nick not in d.legal(0) and any(a == {"type": "end"} for a in d.legal(0))
    d.finish()


# ---------------------------------------------------------------------- shuffle cards from the discard pile in


def _pile(d: Duel, seat: int, *creatures: str) -> list[int]:
    """Put ``creatures`` (in play) into the discard pile, as if they had been defeated."""
    slots = [d.slot(seat, name, "creatures") for name in creatures]
    for slot in slots:
        d.state.remove_creature(slot)
    return slots


@pytest.mark.parametrize(("mode", "spell", "lessons", "cost", "up_to"), [
    ("engine", "Elixir of Life", 10, 2, 16), ("fast", "Elixir of Life", 10, 2, 16),
    ("engine", "Burning Bitterroot Balm", 6, 1, 10), ("fast", "Burning Bitterroot Balm", 6, 1, 10),
    ("engine", "Hospital Wing", 4, 1, 8), ("fast", "Hospital Wing", 4, 1, 8), (VERIFIED.values[0], "Hospital Wing",
                                                                               4, 1, 8),
])
def test_healing_spells_shuffle_non_healing_cards_of_the_pile_into_the_deck(
        mode: str, spell: str, lessons: int, cost: int, up_to: int) -> None:
    if mode == "verified" and importlib.util.find_spec("coincurve") is None:
        pytest.skip("needs coincurve")
    d = duel(mode, first=0, decks={0: [spell, "Guard Dog", "Pet Toad", "Boil Cure"]}, hands={0: [spell]},
             in_play={0: [POT] * lessons + ["Guard Dog", "Pet Toad"]}, draws={0: [POT]},
             reshuffled={0: ["Pet Toad"]})
    dog, toad = _pile(d, 0, "Guard Dog", "Pet Toad")
    before = deck(d, 0)
    d.act(0, d.play(0, spell))
    assert len(d.state.lessons[0]) == lessons - cost  # the cost: Potions Lessons from play
    offered = {d.name(a["slot"]) for a in d.legal(0) if a["type"] == "take"}
    assert offered == {"Guard Dog", "Pet Toad", POT}  # non-Healing only (the Spell is not in the pile yet)
    d.act(0, {"type": "take", "slot": dog}, "retrieve")
    d.act(0, {"type": "take", "slot": toad}, "retrieve")
    d.act(0, {"type": "stop"}, "retrieve")
    assert dog not in d.state.discard[0] and toad not in d.state.discard[0]
    assert len(deck(d, 0)) == len(before) + 2
    assert_reshuffled(d, 0, [*before, dog, toad])
    assert d.name(deck(d, 0)[0]) == "Pet Toad"  # the stacked reshuffle: a face-up card now face down on top
    assert deck(d, 0)[0] not in d.table.public
    assert sorted(d.name(s) for s in deck(d, 0)) == sorted([*(d.name(s) for s in before), "Guard Dog", "Pet Toad"])
    assert d.names(0, "discard")[-1] == spell
    d.finish()


@pytest.mark.parametrize("mode", MODES)
def test_hospital_wing_taking_nothing_still_shuffles_the_deck(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Hospital Wing", "Guard Dog"]}, hands={0: ["Hospital Wing"]},
             in_play={0: [POT] * 4 + ["Guard Dog"]}, draws={0: [POT]})
    _pile(d, 0, "Guard Dog")
    before = deck(d, 0)
    d.act(0, d.play(0, "Hospital Wing"))
    d.act(0, {"type": "stop"}, "retrieve")
    assert len(deck(d, 0)) == len(before)
    assert_reshuffled(d, 0, before)
    d.finish()


@pytest.mark.parametrize("mode", MODES)
def test_snape_shuffles_up_to_seven_non_healing_cards_in_once_per_game(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Guard Dog", "Pet Toad"]}, in_play={0: [POT, "Guard Dog", "Pet Toad"]},
             characters={0: "Professor Severus Snape"}, draws={0: [POT]})
    dog, toad = _pile(d, 0, "Guard Dog", "Pet Toad")
    before = deck(d, 0)
    snape = {"type": "once", "card": 16}
    assert snape in d.legal(0)
    d.act(0, snape, "action")
    d.act(0, {"type": "take", "slot": toad}, "retrieve")
    d.act(0, {"type": "stop"}, "retrieve")
    assert toad not in d.state.discard[0] and dog in d.state.discard[0]
    assert len(deck(d, 0)) == len(before) + 1
    assert_reshuffled(d, 0, [*before, toad])
    assert snape not in d.legal(0)
    d.finish()


def test_two_reshuffles_use_the_seats_next_blocks() -> None:
    d = Duel(first=0, decks={0: ["Alchemy", "Alchemy"]}, hands={0: ["Alchemy", "Alchemy"]}, in_play={0: [TR, TR]})
    d.act(0, d.play(0, "Alchemy"))
    d.act(0, {"type": "stop"}, "search")
    assert min(deck(d, 0)) == 200
    d.act(0, d.play(0, "Alchemy"))
    d.act(0, {"type": "stop"}, "search")
    assert min(deck(d, 0)) == 400 and d.state.fresh_block(1) == 300


@pytest.mark.parametrize("crypto", ["fast", VERIFIED])
def test_whole_games_with_search_decks_reshuffle_and_audit_clean(crypto: str) -> None:
    """Heuristic bots play decks full of these cards through the protocol: several reshuffles, both audits clean."""
    from p2php.engine.contract import Reshuffle
    from p2php.games.tcg.game import GAME
    from p2php.session.memory import make_peers, run_in_memory
    from p2php.testing.tcg import deck_text

    cards = ["Alchemy"] * 4 + ["Mysterious Egg"] * 4 + ["Hospital Wing"] * 4 + ["Burning Bitterroot Balm"] * 4 + \
        ["Guard Dog"] * 4 + ["Pet Toad"] * 4
    opts = {"crypto": crypto, "format": "constructed", "decklist0": deck_text(cards, "Professor Severus Snape"),
            "decklist1": deck_text(cards, "Hermione Granger")}
    peers = make_peers("tcg", 2, opts, seed=0)
    run_in_memory(peers, {s: GAME.make_bot("heuristic", f"0/{s}") for s in (0, 1)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    assert peers[0].result is not None and len({p.state.state_hash() for p in peers}) == 1
    assert sum(isinstance(e.step, Reshuffle) for e in peers[0].events) >= 3


@pytest.mark.parametrize("mode", MODES)
def test_hiding_from_snape_is_solved_with_four_items_and_rewards_a_face_down_search(mode: str) -> None:
    d = duel(mode, first=0, decks={0: ["Cage"] * 4 + ["Guard Dog"], 1: ["Hiding From Snape"]},
             hands={0: ["Cage"] * 4}, in_play={1: ["Hiding From Snape"]}, draws={0: [CH]})
    assert not any(a.get("slot") in d.state.hand[0] and d.name(a["slot"]) == "Cage"
                   for a in d.legal(0) if a["type"] == "play")  # "Your opponent can't play Item cards"
    before = deck(d, 0)
    d.act(0, {"type": "solve"}, "action")
    lesson = next(s for s in d.state.hand[0] if d.name(s) != "Cage")
    with pytest.raises(IllegalAction):
        d.act(0, {"type": "discard", "slot": lesson}, "discard_item")
    for _ in range(4):
        d.act(0, {"type": "discard", "slot": d.slot(0, "Cage")}, "discard_item")
    assert d.names(0, "discard") == ["Cage"] * 4 and d.state.adventures[1] == -1
    dog = search_slots(d, 0, "Guard Dog")[0]
    d.act(0, {"type": "take", "slot": dog}, "search")  # any card; into the hand face down
    assert dog in d.state.hand[0] and dog not in d.table.public
    assert d.table.knowledge(0).face(dog) is not None and d.table.knowledge(1).face(dog) is None
    assert_reshuffled(d, 0, before)
    d.finish()


def test_hiding_from_snape_is_not_offered_without_four_items_in_hand() -> None:
    d = Duel(first=0, decks={0: ["Cage"] * 3, 1: ["Hiding From Snape"]}, hands={0: ["Cage"] * 3},
             in_play={1: ["Hiding From Snape"]})
    assert {"type": "solve"} not in d.legal(0)
