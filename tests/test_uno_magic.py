"""UNO Harry Potter: the Harry Potter cards on stacked decks."""

from __future__ import annotations

from typing import Any

import pytest

from p2php.engine.contract import GameOver, IllegalAction, Knowledge
from p2php.testing.uno import StackedTable

HAT = {"deck": "hat"}
MAGIC = {"deck": "magic"}
VOLDEMORT = {"deck": "voldemort"}


def rejects(t: StackedTable, seat: int, action: dict[str, Any], words: str = "", *, audit: bool = True) -> None:
    knowledge = t.table.everything() if audit else t.table.knowledge(seat)
    with pytest.raises(IllegalAction, match=words):
        t.state.check(seat, action, knowledge)


def draw_keep(t: StackedTable, seat: int) -> None:
    t.act(seat, {"type": "draw"})
    t.act(seat, {"type": "keep"})


def plays_of(t: StackedTable, seat: int, name: str) -> list[dict[str, Any]]:
    return [a for a in t.legal(seat) if "slot" in a and t.name(a["slot"]) == name]


def through(t: StackedTable, seat: int, card: str, **fields: Any) -> None:
    """Play ``card``; whoever it is played against just takes the effect."""
    t.act(seat, t.play(seat, card, **fields))
    while t.prompt is not None and t.prompt.startswith("respond:"):
        t.act(t.awaiting[0], {"type": "accept"})


# ----------------------------------------------------------------------------- Sorting Hat


def test_sorting_hat_draws_until_gryffindor() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["Sorting Hat"]}, first="red 3",
                     draws=["red 9", "green 0", "blue 6", "yellow 3", "red 1"], options=HAT)
    legal = t.legal(0)
    hat = plays_of(t, 0, "Sorting Hat")
    assert {"type": "draw"} in legal
    assert len(hat) == 4 and {a["target"] for a in hat} == {1}  # four colours, the only other seat
    rejects(t, 0, t.play(0, "Sorting Hat", colour="blue"), "needs a target")
    rejects(t, 0, t.play(0, "Sorting Hat", colour="blue", target=0), "another seat")
    t.act(0, t.play(0, "Sorting Hat", colour="blue", target=1))
    for name in ("red 9", "green 0", "blue 6"):
        assert t.prompt == "sorting" and t.awaiting == (1,)
        assert t.hand(1)[-1] == name
        assert t.legal(1) == [{"type": "not_yet"}]
        rejects(t, 1, {"type": "sorted"}, "not a Gryffindor")
        rejects(t, 1, {"type": "sorted"}, "not a Gryffindor", audit=False)
        t.state.check(1, {"type": "sorted"}, t.table.knowledge(0))  # seat 0 cannot tell
        slot = t.state.hands[1][-1]
        with pytest.raises(IllegalAction, match="not a Gryffindor"):
            t.state.apply([(1, {"type": "sorted"})], {slot: t.table.faces[slot]})
        t.act(1, {"type": "not_yet"})
    assert t.legal(1) == [{"type": "sorted"}]
    rejects(t, 1, {"type": "not_yet"}, "is a Gryffindor")
    t.state.check(1, {"type": "not_yet"}, t.table.knowledge(0))
    yellow3 = t.state.hands[1][-1]
    t.act(1, {"type": "sorted"})
    assert yellow3 in t.table.public  # shown to all; the earlier cards stay hidden
    assert not any(s in t.table.public for s in t.state.hands[1][-4:-1])
    assert len(t.state.hands[1]) == 11 and t.awaiting == (1,) and t.colour() == "blue"
    assert t.state.observation(None, Knowledge(t.table.public, {}))["public_hand_cards"]["1"] == ["yellow 3"]


def test_sorting_hat_three_players_target_keeps_turn() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Sorting Hat"]}, first="red 3", draws=["blue 2"], options=HAT)
    t.act(0, t.play(0, "Sorting Hat", colour="green", target=2))
    assert t.awaiting == (2,) and t.prompt == "sorting"
    t.act(2, {"type": "sorted"})
    assert t.awaiting == (1,) and t.prompt == "turn"


# ----------------------------------------------------------------------------- Voldemort


def test_voldemort_dumps_faces() -> None:
    hand = ["Voldemort", "red 1", "blue 5", "green 0", "yellow 7", "blue 9", "green 6"]
    t = StackedTable(2, dealer=1, hands={0: hand}, first="red 3", options=VOLDEMORT)
    vold = plays_of(t, 0, "Voldemort")
    assert len(vold) == 3  # one order per choice of the last card
    assert {t.name(a["dump"][-1]) for a in vold} == {"red 1", "blue 5", "green 0"}
    for a in vold:
        t.state.check(0, a, t.table.everything())
    rejects(t, 0, t.play(0, "Voldemort", dump=["red 1", "blue 5"]), "must discard every")
    rejects(t, 0, t.play(0, "Voldemort", dump=["red 1", "blue 5", "green 0", "yellow 7"]), "cannot discard")
    rejects(t, 0, t.play(0, "Voldemort", dump=["red 1", "blue 5", "green 0"], colour="red"), "sets the colour")
    rejects(t, 0, t.play(0, "Voldemort", colour="red"), "dump list")
    rejects(t, 0, t.play(0, "Voldemort", dump=["red 1", "red 1"]), "twice")
    # an incomplete dump is a claim only the hand's owner and the audit can refute
    t.state.check(0, t.play(0, "Voldemort", dump=["red 1", "blue 5"]), t.table.knowledge(1))
    bad = t.play(0, "Voldemort", dump=["red 1", "yellow 7", "blue 5", "green 0"])
    with pytest.raises(IllegalAction, match="cannot discard"):
        t.state.apply([(0, bad)], {s: t.table.faces[s] for s in t.state.reveals(0, bad)})
    t.act(0, t.play(0, "Voldemort", dump=["blue 5", "red 1", "green 0"]))
    assert t.top() == "green 0" and t.colour() == "green"
    assert t.hand(0) == ["yellow 7", "blue 9", "green 6"] and t.awaiting == (1,)
    assert [t.deck.names[c] for c in t.state.discard] == ["red 3", "Voldemort", "blue 5", "red 1", "green 0"]


def test_voldemort_without_faces_is_wild() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["Voldemort", "red 7"]}, first="red 3", options=VOLDEMORT)
    vold = plays_of(t, 0, "Voldemort")
    assert [a["colour"] for a in vold] == ["blue", "green", "yellow", "red"] and all(a["dump"] == [] for a in vold)
    t.act(0, t.play(0, "Voldemort", dump=[], colour="yellow"))
    assert t.top() == "Voldemort" and t.colour() == "yellow"


def test_voldemort_faces_option() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["Voldemort", "red 1", "red 2", "blue 3", "red 5"]},
                     first="red 3", options={**VOLDEMORT, "voldemort_faces": "1,2,3"})
    vold = plays_of(t, 0, "Voldemort")
    assert {t.name(a["dump"][-1]) for a in vold} == {"red 1", "red 2", "blue 3"}


SOLO = {"reverse2": "skip"}  # two players: seat 0 plays a whole run only if a Reverse acts as Skip (house rule)
RUN = ["red skip", "red skip", "red reverse", "red reverse", "Voldemort", "red 1", "blue 5"]


def test_voldemort_empties_hand_with_uno() -> None:
    t = StackedTable(2, dealer=1, hands={0: RUN}, first="red 3", options={**SOLO, **VOLDEMORT, "rounds": 1})
    for card in RUN[:4]:
        t.act(0, t.play(0, card))
    legal = plays_of(t, 0, "Voldemort")
    assert all("uno" in a for a in legal) and len(legal) == 4  # 2 orders x UNO called or not
    result = t.act(0, t.play(0, "Voldemort", dump=["red 1", "blue 5"], uno=True))
    assert isinstance(result, GameOver) and result.winners == (0,)


def test_voldemort_out_without_uno_can_be_caught() -> None:
    t = StackedTable(2, dealer=1, hands={0: RUN}, first="red 3", options={**SOLO, **VOLDEMORT, "rounds": 1})
    for card in RUN[:4]:
        t.act(0, t.play(0, card))
    t.act(0, t.play(0, "Voldemort", dump=["red 1", "blue 5"]))
    assert t.prompt == "catch" and t.awaiting == (1,)
    t.act(1, {"type": "catch"})
    assert len(t.state.hands[0]) == 2 and t.awaiting == (1,) and t.prompt == "turn"


# ----------------------------------------------------------------------------- Howler, Invisibility


def test_howler_reveals_target_hand() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Howler"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "Howler", colour="green", target=2))
    assert t.prompt == "respond:howler" and t.awaiting == (2,)
    assert t.legal(2) == [{"type": "accept"}]
    t.act(2, {"type": "accept"})
    assert all(s in t.table.public for s in t.state.hands[2])
    assert not any(s in t.table.public for s in t.state.hands[1])
    obs = t.state.observation(None, Knowledge(t.table.public, {}))
    assert obs["public_hand_cards"]["2"] == t.hand(2)
    assert t.awaiting == (1,) and t.colour() == "green"


def test_invisibility_cancels_howler() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Howler"], 2: ["Invisibility", "blue 9"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "Howler", colour="green", target=2))
    inv = [a for a in t.legal(2) if a["type"] == "invisibility"]
    assert [a["colour"] for a in inv] == ["blue", "green", "yellow", "red"]
    rejects(t, 2, t.play(2, "blue 9", "invisibility", colour="red"), "not the Invisibility")
    rejects(t, 2, t.play(2, "Invisibility", "invisibility"), "needs a colour")
    t.act(2, t.play(2, "Invisibility", "invisibility", colour="yellow"))
    assert not any(s in t.table.public for s in t.state.hands[2])
    assert t.top() == "Invisibility" and t.colour() == "yellow" and t.awaiting == (1,)


def test_invisibility_cancels_skip_and_victim_plays() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red skip"], 1: ["Invisibility"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "red skip"))
    assert t.prompt == "respond:skip" and t.awaiting == (1,)
    t.act(1, t.play(1, "Invisibility", "invisibility", colour="blue"))
    assert t.awaiting == (1,) and t.prompt == "turn" and t.colour() == "blue"


def test_invisibility_cancels_draw_three() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["red draw two"], 1: ["Invisibility"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "red draw two"))
    t.act(1, t.play(1, "Invisibility", "invisibility", colour="green"))
    assert len(t.state.hands[1]) == 6 and t.awaiting == (1,)


def test_invisibility_against_wild_draw_four() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Wild Draw Four"], 1: ["Invisibility"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "Wild Draw Four", colour="blue"))
    kinds = [a["type"] for a in t.legal(1)]
    assert kinds[:2] == ["accept", "challenge"] and kinds.count("invisibility") == 4
    t.act(1, t.play(1, "Invisibility", "invisibility", colour="red"))
    assert len(t.state.hands[1]) == 6 and t.awaiting == (1,) and t.colour() == "red"


def test_invisibility_as_wild_and_no_window_once_public() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Invisibility"], 1: ["red skip"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "Invisibility", colour="red"))
    assert t.top() == "Invisibility" and t.awaiting == (1,)
    t.act(1, t.play(1, "red skip"))  # the Invisibility is in the discard pile: no window for seat 2
    assert t.prompt == "turn" and t.awaiting == (0,)


def test_invisibility_window_asked_even_without_the_card() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red skip"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "red skip"))
    assert t.prompt == "respond:skip" and t.legal(1) == [{"type": "accept"}]
    t.act(1, {"type": "accept"})
    assert t.awaiting == (2,)


# ----------------------------------------------------------------------------- Moody


def test_moody_target_draws_two() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Moody"]}, first="red 3", options=MAGIC)
    moody = plays_of(t, 0, "Moody")
    assert len(moody) == 4 * 2 + 4  # colour x target, or a plain Wild
    t.act(0, t.play(0, "Moody", colour="red", target=2))
    assert t.prompt == "respond:moody" and t.awaiting == (2,)
    t.act(2, {"type": "accept"})
    assert len(t.state.hands[2]) == 9 and t.awaiting == (1,) and t.colour() == "red"


def test_moody_as_plain_wild() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["Moody"]}, first="red 3", options=MAGIC)
    t.act(0, t.play(0, "Moody", colour="yellow"))
    assert t.prompt == "turn" and t.awaiting == (1,) and all(len(h) == 7 for h in t.state.hands[1:])


# ----------------------------------------------------------------------------- Resurrection Stone


OUT_RUN = ["red skip", "red skip", "red reverse", "red reverse", "red draw two", "red 5", "red 7"]


def out_with_stone(options: dict[str, Any] | None = None) -> StackedTable:
    """Two players; seat 0 goes out with red 7 while seat 1 holds the Stone."""
    t = StackedTable(2, dealer=1, hands={0: OUT_RUN, 1: ["Resurrection Stone"]},
                     first="red 3", options={**SOLO, **MAGIC, "rounds": 1, **(options or {})})
    for card in OUT_RUN[:5]:
        through(t, 0, card)
    t.act(0, t.play(0, "red 5", uno=True))
    draw_keep(t, 1)
    t.act(0, t.play(0, "red 7"))
    return t


def test_stone_brings_player_back() -> None:
    t = out_with_stone()
    assert t.prompt == "stone" and t.awaiting == (1,)
    stones = [a for a in t.legal(1) if a["type"] == "stone"]
    assert len(stones) == 4 and {"type": "pass"} in t.legal(1)
    rejects(t, 1, t.play(1, "blue 9", "stone", colour="red"), "not the Resurrection Stone")
    t.act(1, t.play(1, "Resurrection Stone", "stone", colour="green"))
    assert t.prompt == "stone_uno" and t.awaiting == (0,) and len(t.state.hands[0]) == 1
    t.act(0, {"type": "uno"})
    assert t.prompt == "turn" and t.awaiting == (1,)  # play continues after the player who went out
    assert t.top() == "Resurrection Stone" and t.colour() == "green"
    assert len(t.state.hands[0]) == 1


def test_stone_forgotten_uno_costs_one_card() -> None:
    t = out_with_stone()
    t.act(1, t.play(1, "Resurrection Stone", "stone", colour="green"))
    t.act(0, {"type": "pass"})
    assert len(t.state.hands[0]) == 2 and t.awaiting == (1,)


def test_stone_passed_round_ends() -> None:
    t = out_with_stone()
    result = t.act(1, {"type": "pass"})
    assert isinstance(result, GameOver) and result.winners == (0,)


def test_no_stone_window_when_stone_is_public() -> None:
    t = StackedTable(2, dealer=1, hands={0: OUT_RUN, 1: ["Resurrection Stone"]}, first="red 3",
                     options={**SOLO, **MAGIC, "rounds": 1})
    for card in OUT_RUN[:5]:
        through(t, 0, card)
    t.act(0, t.play(0, "red 5", uno=True))
    t.act(1, t.play(1, "Resurrection Stone", colour="red"))  # played as a plain Wild
    result = t.act(0, t.play(0, "red 7"))
    assert isinstance(result, GameOver) and result.winners == (0,)


def test_stone_three_players_order() -> None:
    hand = ["red 5", "red 7", "red 8", "red 9", "red 6", "red 4", "red 2"]
    t = StackedTable(3, dealer=2, hands={0: hand, 2: ["Resurrection Stone"]}, first="red 3",
                     options={**MAGIC, "rounds": 1})
    for card in hand[:-1]:
        t.act(0, t.play(0, card, uno=True) if card == "red 4" else t.play(0, card))
        draw_keep(t, 1)
        draw_keep(t, 2)
    t.act(0, t.play(0, "red 2"))
    assert t.prompt == "stone" and t.awaiting == (1, 2)
    assert t.legal(1) == [{"type": "pass"}]
    t.act((1, {"type": "pass"}), (2, t.play(2, "Resurrection Stone", "stone", colour="blue")))
    assert t.prompt == "stone_uno" and t.awaiting == (0,)
    t.act(0, {"type": "uno"})
    assert t.awaiting == (1,) and t.colour() == "blue" and t.hand(0) == [t.hand(0)[0]]


# ----------------------------------------------------------------------------- combinations


def test_invisibility_cancels_a_stacked_total() -> None:
    t = StackedTable(3, dealer=2, options={**MAGIC, "stacking": "on"},
                     hands={0: ["red draw two"], 1: ["blue draw two"], 2: ["Invisibility"]}, first="red 3")
    t.act(0, t.play(0, "red draw two"))
    t.act(1, t.play(1, "blue draw two"))
    assert t.state.pending() == {"effect": "draw_two", "by": 1, "against": 2, "draw": 6}
    t.act(2, t.play(2, "Invisibility", "invisibility", colour="green"))
    assert [len(h) for h in t.state.hands] == [6, 6, 6] and t.awaiting == (2,) and t.colour() == "green"


def test_invisibility_cancels_sorting_hat() -> None:
    t = StackedTable(3, dealer=2, options={"deck": "all"}, hands={0: ["Sorting Hat"], 2: ["Invisibility"]},
                     first="red 3")
    t.act(0, t.play(0, "Sorting Hat", colour="blue", target=2))
    assert t.prompt == "respond:sorting_hat" and t.awaiting == (2,)
    t.act(2, t.play(2, "Invisibility", "invisibility", colour="yellow"))
    assert len(t.state.hands[2]) == 6 and t.awaiting == (1,) and t.colour() == "yellow"


def test_going_out_with_invisibility_ends_the_round() -> None:
    run = ["red skip", "red skip", "red reverse", "red reverse", "red draw two", "red 7", "Invisibility"]
    t = StackedTable(2, dealer=1, hands={0: run, 1: ["red draw two"]}, first="red 3",
                     options={**SOLO, **MAGIC, "rounds": 1})
    for card in run[:5]:
        through(t, 0, card)
    t.act(0, t.play(0, "red 7", uno=True))
    t.act(1, t.play(1, "red draw two"))
    assert t.prompt == "respond:draw_two" and t.awaiting == (0,)
    t.act(0, t.play(0, "Invisibility", "invisibility", colour="red"))
    assert t.prompt == "stone" and t.awaiting == (1,)  # the Stone might be in seat 1's hand
    result = t.act(1, {"type": "pass"})
    assert isinstance(result, GameOver) and result.winners == (0,)


def test_stone_after_going_out_with_draw_two() -> None:
    run = ["red skip", "red skip", "red reverse", "red reverse", "red 5", "red 7", "red draw two"]
    t = StackedTable(3, dealer=2, hands={0: run, 2: ["Resurrection Stone"]}, first="red 3",
                     options={**MAGIC, "rounds": 1})
    for card in run[:6]:
        t.act(0, t.play(0, card, uno=True) if card == "red 7" else t.play(0, card))
        while t.awaiting != (0,):
            seat = t.awaiting[0]
            if t.prompt == "respond:skip":
                t.act(seat, {"type": "accept"})
            else:
                draw_keep(t, seat)
    t.act(0, t.play(0, "red draw two"))
    assert t.prompt == "stone" and t.awaiting == (1, 2)
    t.act((1, {"type": "pass"}), (2, t.play(2, "Resurrection Stone", "stone", colour="blue")))
    t.act(0, {"type": "uno"})
    # then the Draw Two (+3 here) still hits the next player, who loses the turn
    assert t.prompt == "respond:draw_two" and t.awaiting == (1,)
    before = len(t.state.hands[1])
    t.act(1, {"type": "accept"})
    assert len(t.state.hands[1]) == before + 3 and t.awaiting == (2,) and t.colour() == "blue"


def test_apply_prefix_only_validates() -> None:
    reds = ["red 1", "red 2", "red 4", "red 5", "red 6", "red 7", "red 8"]
    t = StackedTable(3, dealer=2, hands={0: reds}, first="red 3")
    for card in reds[:5]:
        t.act(0, t.play(0, card))
        draw_keep(t, 1)
        draw_keep(t, 2)
    t.act(0, t.play(0, "red 7"))
    assert t.prompt == "catch"
    before = t.state.state_hash()
    t.state.apply([(1, {"type": "catch"})], {})
    assert t.state.state_hash() == before
    with pytest.raises(IllegalAction):
        t.state.apply([(1, {"type": "catch"}), (2, {"type": "uno"})], {})
    with pytest.raises(IllegalAction, match="expected the answer of seat 1"):
        t.state.apply([(2, {"type": "catch"})], {})
    assert t.state.state_hash() == before


def test_heuristic_beats_random() -> None:
    from p2php.bots import RandomBot
    from p2php.engine.local import LocalTable
    from p2php.games.uno import GAME, HeuristicBot

    wins = 0
    for seed in range(40):
        table = LocalTable(GAME.new_state(2, {"rounds": 1, "deck": "all"}), seed)
        over = table.play({seed % 2: HeuristicBot(seed), 1 - seed % 2: RandomBot(seed)})
        wins += over.winners == (seed % 2,)
    assert wins >= 28
