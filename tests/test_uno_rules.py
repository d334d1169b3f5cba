"""UNO Harry Potter: base rules on stacked decks (dealer, first card, turns, UNO, Wild Draw Four, scoring)."""

from __future__ import annotations

from typing import Any

import pytest

from p2php.engine.contract import Decide, GameOver, IllegalAction, Knowledge, Show, Shuffle
from p2php.games.uno import GAME
from p2php.games.uno.cards import NUMBER
from p2php.games.uno.round import cut_order
from p2php.testing.uno import Arrangement, StackedTable, cut_random, cut_values

RED_RUN = ["red skip", "red skip", "red reverse", "red reverse", "red draw two", "red draw two", "red 7"]
RUN = {"reverse2": "skip"}  # two players: seat 0 plays the whole run only if a Reverse acts as Skip (house rule)


def nobody() -> Knowledge:
    """A peer that knows no face at all (e.g. a spectator validating)."""
    return Knowledge({}, {})


def rejects(t: StackedTable, seat: int, action: dict[str, Any], words: str = "", *, audit: bool = True) -> None:
    knowledge = t.table.everything() if audit else t.table.knowledge(seat)
    with pytest.raises(IllegalAction, match=words):
        t.state.check(seat, action, knowledge)


# ----------------------------------------------------------------------------- dealer


def test_dealer_is_highest_number_and_actions_count_zero() -> None:
    d = GAME.new_state(3, {}).deck
    # seat 0 turns up an action card, seat 1 a number, seat 2 a Harry Potter or Wild card: all but the number count 0
    random = cut_random(d, lambda cut: d.kind[cut[0]] != NUMBER and d.kind[cut[1]] == NUMBER and d.value[cut[1]] > 0
                        and d.kind[cut[2]] != NUMBER)
    t = StackedTable(3, cut=[random], hands={1: ["green 4"]})
    assert t.state.dealer == 1
    assert t.awaiting == (2,)  # left of the dealer starts
    assert [s.purpose for s in t.shuffles] == ["deck"]  # the cut is public: only the deal is a joint shuffle
    assert [step.purpose for kind, step in t.table.log if kind == "Randomness"] == ["dealer"]
    cuts = [e for e in t.state.events if e[0] == "cut"]
    assert [e[1] for e in cuts] == [0, 1, 2] and t.state.cut_deck == []  # all cards go back for the deal


def test_dealer_ties_turn_up_again() -> None:
    d = GAME.new_state(4, {}).deck

    def tie_then_seat_1(cut: list[int]) -> bool:
        v = cut_values(d, cut[:6])
        return v[0] == v[1] > max(v[2], v[3]) and v[5] > v[4]

    t = StackedTable(4, cut=[cut_random(d, tie_then_seat_1)], first="red 1")
    # seats 0 and 1 tie; they turn up again from the same cut deck and seat 1 turns up the higher number
    assert t.state.dealer == 1
    cuts = [e for e in t.state.events if e[0] == "cut"]
    assert [e[1] for e in cuts] == [0, 1, 2, 3, 0, 1]
    assert t.awaiting == (2,)


def test_the_cut_deck_is_public_and_unbiased_by_any_seat() -> None:
    """Every card turned up is the joint randomness's order of the whole deck: no seat chooses it."""
    d = GAME.new_state(2, {}).deck
    a, b = cut_order(tuple(range(d.size)), b"\x01" * 32), cut_order(tuple(range(d.size)), b"\x02" * 32)
    assert sorted(a) == sorted(b) == list(range(d.size)) and a != b


def test_dealer_passes_left_next_round() -> None:
    t = StackedTable(
        2, dealer=1, options={"target": 1000, **RUN},
        decks=[Arrangement({0: RED_RUN}, "red 3"), Arrangement({}, "blue 3")],
    )
    for card in RED_RUN[:-2]:
        t.act(0, t.play(0, card))
    t.act(0, t.play(0, "red draw two", uno=True))
    t.act(0, t.play(0, "red 7"))
    assert t.state.round_no == 1 and t.state.dealer == 0
    assert t.awaiting == (1,) and t.top() == "blue 3"
    assert [s.purpose for s in t.shuffles] == ["deck", "deck"]


# ----------------------------------------------------------------------------- first card


def test_first_number() -> None:
    t = StackedTable(3, dealer=2, first="green 5")
    assert t.prompt == "turn" and t.awaiting == (0,) and t.colour() == "green"


@pytest.mark.parametrize(("deck", "n"), [("base", 2), ("magic", 3)])
def test_first_draw_two(deck: str, n: int) -> None:
    t = StackedTable(3, dealer=2, first="green draw two", options={"deck": deck})
    assert len(t.state.hands[0]) == 7 + n
    assert t.awaiting == (1,) and t.prompt == "turn"


def test_first_reverse() -> None:
    t = StackedTable(3, dealer=2, first="green reverse")
    assert t.awaiting == (2,) and t.state.direction == -1
    t.act(2, {"type": "draw"})
    t.act(2, {"type": "keep"})
    assert t.awaiting == (1,)  # to the dealer's right


def test_first_reverse_two_players() -> None:
    t = StackedTable(2, dealer=1, first="green reverse")
    assert t.awaiting == (1,)


def test_first_skip() -> None:
    t = StackedTable(3, dealer=2, first="yellow skip")
    assert t.awaiting == (1,)


@pytest.mark.parametrize(
    ("deck", "card"), [("base", "Wild"), ("hat", "Sorting Hat"), ("magic", "Moody"), ("voldemort", "Voldemort")]
)
def test_first_wild_like_left_of_dealer_names_colour(deck: str, card: str) -> None:
    t = StackedTable(3, dealer=2, first=card, options={"deck": deck})
    assert t.prompt == "first_colour" and t.awaiting == (0,)
    assert t.colour() is None
    assert [a["colour"] for a in t.legal(0)] == ["blue", "green", "yellow", "red"]
    rejects(t, 0, {"type": "colour", "colour": "purple"}, "colour")
    rejects(t, 1, {"type": "colour", "colour": "red"}, "not asked")
    t.act(0, {"type": "colour", "colour": "green"})
    assert t.prompt == "turn" and t.awaiting == (0,) and t.colour() == "green"
    assert all(len(h) == 7 for h in t.state.hands)  # no draw effect


@pytest.mark.parametrize(
    ("deck", "card"),
    [("base", "Wild Draw Four"), ("magic", "Howler"), ("magic", "Invisibility"), ("magic", "Resurrection Stone")],
)
def test_first_put_back(deck: str, card: str) -> None:
    t = StackedTable(
        2, dealer=1, options={"deck": deck},
        decks=[Arrangement({}, card), Arrangement({0: ["red 5"]}, "red 3")],
    )
    assert [s.purpose for s in t.shuffles] == ["deck", "deck"]
    assert t.top() == "red 3" and t.awaiting == (0,)
    assert len(t.state.discard) == 1
    assert any(e[0] == "put_back" for e in t.state.events)
    assert all(len(h) == 7 for h in t.state.hands)


# ----------------------------------------------------------------------------- turns


def test_play_matching_and_check_rejections() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["red 5", "blue 3", "green 9", "Wild", "blue skip"]}, first="red 3")
    legal = t.legal(0)
    slots = {t.name(a["slot"]) for a in legal if a["type"] == "play"}
    assert slots == {"red 5", "blue 3", "Wild"}
    assert {"type": "draw"} in legal
    rejects(t, 0, t.play(0, "green 9"), "does not match")
    rejects(t, 0, t.play(0, "blue skip"), "does not match")
    rejects(t, 1, t.play(0, "red 5"), "not asked")
    rejects(t, 0, {"type": "play", "slot": t.state.hands[1][0]}, "not in seat 0")
    rejects(t, 0, {"type": "play", "slot": "x"}, "not in seat 0")
    rejects(t, 0, t.play(0, "Wild"), "needs a colour")
    rejects(t, 0, t.play(0, "Wild", colour="pink"), "colour must be")
    rejects(t, 0, t.play(0, "Wild", colour="red", target=1), "takes no target")
    rejects(t, 0, t.play(0, "red 5", colour="red"), "takes no colour")
    rejects(t, 0, t.play(0, "red 5", extra=1), "unexpected field")
    rejects(t, 0, {"type": "fly"}, "unknown action")
    rejects(t, 0, {"type": "keep"}, "not allowed now")
    rejects(t, 0, {"type": "play", "slot": t.slot_of(0, "red 5"), "uno": "yes"}, "uno")
    # a peer that cannot see the card accepts the claim; the opened face refutes it in apply()
    bad = t.play(0, "green 9")
    t.state.check(0, bad, nobody())
    with pytest.raises(IllegalAction, match="does not match"):
        t.state.apply([(0, bad)], {bad["slot"]: t.table.faces[bad["slot"]]})
    with pytest.raises(IllegalAction, match="not opened"):
        t.state.apply([(0, t.play(0, "red 5"))], {})
    t.act(0, t.play(0, "blue 3"))  # same number
    assert t.top() == "blue 3" and t.colour() == "blue" and t.awaiting == (1,)


def test_every_legal_action_passes_check() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red 5", "Wild", "Wild Draw Four", "red 5", "blue 3"]}, first="red 3")
    for a in t.legal(0):
        t.state.check(0, a, t.table.knowledge(0))
        t.state.check(0, a, t.table.everything())
        t.state.check(0, a, nobody())


def test_draw_then_play_only_that_card() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["red 5"]}, first="red 3", draws=["red 9"])
    t.act(0, {"type": "draw"})
    assert t.prompt == "drawn" and t.awaiting == (0,)
    assert t.hand(0)[-1] == "red 9"
    drawn = t.state.hands[0][-1]
    assert {"type": "play", "slot": drawn} in t.legal(0) and {"type": "keep"} in t.legal(0)
    rejects(t, 0, t.play(0, "red 5"), "only the card just drawn")
    rejects(t, 0, {"type": "draw"}, "not allowed now")
    t.act(0, {"type": "play", "slot": drawn})
    assert t.top() == "red 9" and t.awaiting == (1,)


def test_draw_unplayable_then_keep() -> None:
    t = StackedTable(2, dealer=1, first="red 3", draws=["blue 9"])
    t.act(0, {"type": "draw"})
    assert t.legal(0) == [{"type": "keep"}]
    t.act(0, {"type": "keep"})
    assert t.awaiting == (1,) and len(t.state.hands[0]) == 8


def test_reverse_two_players_turns_the_direction_and_the_other_player_is_next() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["red reverse"]}, first="red 3")
    t.act(0, t.play(0, "red reverse"))
    assert t.awaiting == (1,) and t.prompt == "turn" and t.state.direction == -1


def test_reverse_two_players_acts_as_skip_with_the_house_rule() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["red reverse"]}, first="red 3", options={"reverse2": "skip"})
    t.act(0, t.play(0, "red reverse"))
    assert t.awaiting == (0,) and t.prompt == "turn"


def test_reverse_three_players() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red reverse"]}, first="red 3")
    t.act(0, t.play(0, "red reverse"))
    assert t.awaiting == (2,) and t.state.direction == -1


def test_skip() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red skip"]}, first="red 3")
    t.act(0, t.play(0, "red skip"))
    assert t.awaiting == (2,) and len(t.state.hands[1]) == 7


def test_draw_two_no_window_in_base_deck() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red draw two"]}, first="red 3")
    t.act(0, t.play(0, "red draw two"))
    assert len(t.state.hands[1]) == 9 and t.awaiting == (2,) and t.prompt == "turn"


def test_draw_two_stacking_on() -> None:
    t = StackedTable(
        3, dealer=2, options={"stacking": "on"},
        hands={0: ["red draw two"], 1: ["blue draw two"], 2: ["blue 1"]}, first="red 3",
    )
    t.act(0, t.play(0, "red draw two"))
    assert t.prompt == "respond:draw_two" and t.awaiting == (1,)
    legal = t.legal(1)
    assert {"type": "accept"} in legal and {"type": "play", "slot": t.slot_of(1, "blue draw two")} in legal
    rejects(t, 1, t.play(1, "blue 8"), "only a draw two")
    t.act(1, t.play(1, "blue draw two"))
    assert t.prompt == "respond:draw_two" and t.awaiting == (2,)
    assert t.state.pending() == {"effect": "draw_two", "by": 1, "against": 2, "draw": 4}
    t.act(2, {"type": "accept"})
    assert len(t.state.hands[2]) == 11 and t.awaiting == (0,) and t.colour() == "blue"


def test_draw_two_stacking_off_rejects_stack() -> None:
    t = StackedTable(3, dealer=2, options={"deck": "magic"}, hands={0: ["red draw two"], 1: ["blue draw two"]})
    t.act(0, t.play(0, "red draw two"))
    assert t.prompt == "respond:draw_two"  # the Invisibility could be in seat 1's hand
    assert not any(a["type"] == "play" for a in t.legal(1))
    rejects(t, 1, t.play(1, "blue draw two"), "not allowed now")
    t.act(1, {"type": "accept"})
    assert len(t.state.hands[1]) == 10  # +3 with Howler and Invisibility in the deck
    assert t.awaiting == (2,)


# ----------------------------------------------------------------------------- UNO


def test_uno_catch() -> None:
    reds = ["red 1", "red 2", "red 4", "red 5", "red 6", "red 7", "red 8"]
    t = StackedTable(3, dealer=2, hands={0: reds}, first="red 3")
    for card in reds[:5]:
        t.act(0, t.play(0, card))
        draw_keep(t, 1)
        draw_keep(t, 2)
    assert t.awaiting == (0,) and len(t.state.hands[0]) == 2
    legal = t.legal(0)
    assert t.play(0, "red 7", uno=True) in legal and t.play(0, "red 7", uno=False) in legal
    t.act(0, t.play(0, "red 7"))  # no UNO call
    assert t.prompt == "catch" and t.awaiting == (1, 2)
    assert t.legal(1) == [{"type": "catch"}, {"type": "pass"}]
    rejects(t, 0, {"type": "catch"}, "not asked")
    t.act((1, {"type": "pass"}), (2, {"type": "catch"}))
    assert len(t.state.hands[0]) == 3 and t.awaiting == (1,)
    assert ("caught", 2, 0) in t.state.events


def test_uno_called_or_nobody_catches() -> None:
    t = StackedTable(2, dealer=1, hands={0: RED_RUN}, first="red 3", options=RUN)
    for card in RED_RUN[:5]:
        t.act(0, t.play(0, card))
    t.act(0, t.play(0, "red draw two", uno=True))
    assert t.prompt == "turn" and t.awaiting == (0,) and len(t.state.hands[0]) == 1
    t2 = StackedTable(2, dealer=1, hands={0: RED_RUN}, first="red 3", options=RUN)
    for card in RED_RUN[:6]:
        t2.act(0, t2.play(0, card))
    assert t2.prompt == "catch" and t2.awaiting == (1,)
    t2.everyone({"type": "pass"})
    assert len(t2.state.hands[0]) == 1 and t2.awaiting == (0,)


# ----------------------------------------------------------------------------- Wild Draw Four


def wd4_table(hand0: list[str]) -> StackedTable:
    t = StackedTable(3, dealer=2, hands={0: hand0}, first="red 3")
    t.act(0, t.play(0, "Wild Draw Four", colour="blue"))
    assert t.prompt == "respond:wild_draw_four" and t.awaiting == (1,)
    assert t.legal(1) == [{"type": "accept"}, {"type": "challenge"}]
    return t


def test_wd4_accept() -> None:
    t = wd4_table(["Wild Draw Four", "red 5"])  # a bluff nobody checks
    t.act(1, {"type": "accept"})
    assert len(t.state.hands[1]) == 11 and t.awaiting == (2,) and t.colour() == "blue"


def test_wd4_challenge_illegal_play() -> None:
    t = wd4_table(["Wild Draw Four", "red 5", "green 1"])
    t.act(1, {"type": "challenge"})
    shows = [s for kind, s in t.table.log if kind == "Show"]
    assert len(shows) == 1 and isinstance(shows[0], Show)
    show = shows[0]
    assert show.owner == 0 and show.viewer == 1 and set(show.slots) == set(t.state.hands[0])
    # the challenger saw the hand, the third player did not
    assert set(show.slots) <= set(t.table.private[1]) and not set(show.slots) & set(t.table.private[2])
    assert t.prompt == "verdict" and t.awaiting == (0,)
    assert t.legal(0) == [{"type": "verdict", "legal": False}]
    lie = {"type": "verdict", "legal": True}
    rejects(t, 0, lie, "false verdict")
    rejects(t, 0, lie, "false verdict", audit=False)
    t.state.check(0, lie, t.table.knowledge(2))  # seat 2 cannot tell
    with pytest.raises(IllegalAction):
        t.state.check(0, lie, Knowledge(t.table.public, t.table.private[1]))  # the challenger can
    t.act(0, {"type": "verdict", "legal": False})
    assert len(t.state.hands[0]) == 6 + 4 and len(t.state.hands[1]) == 7
    assert t.awaiting == (1,) and t.prompt == "turn" and t.colour() == "blue"


def test_wd4_challenge_legal_play() -> None:
    t = wd4_table(["Wild Draw Four", "blue 5", "Wild", "green 3"])  # other colours and wilds do not block
    t.act(1, {"type": "challenge"})
    assert t.legal(0) == [{"type": "verdict", "legal": True}]
    rejects(t, 0, {"type": "verdict", "legal": False}, "false verdict")
    rejects(t, 0, {"type": "verdict"}, "legal=true or legal=false")
    t.act(0, {"type": "verdict", "legal": True})
    assert len(t.state.hands[1]) == 13 and len(t.state.hands[0]) == 6
    assert t.awaiting == (2,) and t.colour() == "blue"


def test_wd4_same_colour_action_card_makes_it_illegal() -> None:
    t = wd4_table(["Wild Draw Four", "red skip", "blue 3"])
    t.act(1, {"type": "challenge"})
    assert t.legal(0) == [{"type": "verdict", "legal": False}]


# ----------------------------------------------------------------------------- piles


def draw_keep(t: StackedTable, seat: int) -> None:
    t.act(seat, {"type": "draw"})
    t.act(seat, {"type": "keep"})


def test_reshuffle_discard_except_top() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["red 5", "red 8"], 1: ["red 6"]}, first="red 3")
    t.act(0, t.play(0, "red 5"))
    t.act(1, t.play(1, "red 6"))
    t.act(0, t.play(0, "red 8"))
    seat = 1
    while t.state.pile:
        draw_keep(t, seat)
        seat = 1 - seat
    t.act(seat, {"type": "draw"})
    last = t.shuffles[-1]
    assert last.purpose == "reshuffle"
    assert [t.deck.names[c] for c in last.cards] == ["red 3", "red 5", "red 6"]
    assert t.top() == "red 8" and len(t.state.discard) == 1 and len(t.state.pile) == 2
    assert t.hand(seat)[-1] == "red 3"


def test_nothing_to_draw_blocks_the_round() -> None:
    t = StackedTable(2, dealer=1, first="red 3", options={"rounds": 1})
    seat = 0
    while t.state.pile:
        draw_keep(t, seat)
        seat = 1 - seat
    t.act(seat, {"type": "draw"})  # nothing to reshuffle: the draw gives nothing
    assert t.prompt == "turn" and t.awaiting == (1 - seat,)
    assert ("dry", seat) in t.state.events
    result = t.act(1 - seat, {"type": "draw"})
    assert isinstance(result, GameOver)
    last = t.state.last_round
    assert last is not None and last["blocked"]
    points = last["hand_points"]
    assert last["winner"] == min(range(2), key=lambda s: points[s])
    assert result.scores[last["winner"]] == points[1 - last["winner"]]


# ----------------------------------------------------------------------------- scoring


SEAT1 = ["blue 1", "blue 2", "blue 3", "green skip", "Wild", "yellow 5", "yellow 9"]  # 90 points
DRAWS = ["green 4", "green 5", "green 6", "green 7"]  # 22 points


def go_out(options: dict[str, Any], run: list[str] = RED_RUN) -> StackedTable:
    t = StackedTable(2, dealer=1, hands={0: run, 1: SEAT1}, first="red 3", draws=DRAWS, options={**RUN, **options})
    for card in run[:5]:
        t.act(0, t.play(0, card))
    t.act(0, t.play(0, run[5], uno=True))
    t.act(0, t.play(0, run[6]))
    return t


def test_positive_scoring() -> None:
    t = go_out({"rounds": 1})
    assert isinstance(t.result, GameOver)
    assert t.result.winners == (0,) and t.result.scores == (112, 0)
    assert all(s in t.table.public for s in t.state.hands[1])  # remaining hands revealed
    assert t.state.tasks == [(27,)]


def test_negative_scoring() -> None:
    t = go_out({"rounds": 1, "scoring": "negative"})
    assert isinstance(t.result, GameOver)
    assert t.result.winners == (0,) and t.result.scores == (0, 112)


def test_last_card_draw_two_still_counts() -> None:
    run = ["red skip", "red skip", "red reverse", "red reverse", "blue reverse", "blue draw two", "red draw two"]
    t = go_out({"rounds": 1}, run)
    assert isinstance(t.result, GameOver)
    assert len(t.state.hands[1]) == 7 + 2 + 2  # the final draw two is still drawn before scoring
    assert t.result.scores == (112, 0)


def test_target_ends_game() -> None:
    t = go_out({"target": 100})
    assert isinstance(t.result, GameOver) and t.result.winners == (0,)
    t2 = go_out({"target": 113})
    assert isinstance(t2.result, Decide) and t2.state.round_no == 1 and t2.state.scores == [112, 0]


def test_state_is_plain_and_hashable() -> None:
    t = StackedTable(3, dealer=2, hands={0: ["red 5"]}, first="red 3")
    h = t.state.state_hash()
    c = t.state.clone()
    assert c.state_hash() == h
    t.act(0, t.play(0, "red 5"))
    assert c.state_hash() == h != t.state.state_hash()
    obs = t.state.observation(None, Knowledge(t.table.public, {}))
    assert "hand" not in obs and obs["hand_counts"] == [6, 7, 7]
    mine = t.state.observation(1, t.table.knowledge(1))
    assert len(mine["hand"]) == 7 and all(c["name"] for c in mine["hand"])
    assert mine["top"] == "red 5" and mine["turn"] == 1 and mine["colour"] == "red"
    assert t.state.describe(0, t.play(1, "red 9"), t.table.faces).startswith("seat 0 plays red 9")
    assert isinstance(t.shuffles[0], Shuffle)


def test_dealer_cut_deck_runs_out_and_a_new_one_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php.games.uno import round as uno_round
    from p2php.games.uno.cards import NUMBER, deck

    d = deck("base")
    value = [d.value[c] if d.kind[c] == NUMBER else 0 for c in range(d.size)]
    tied = sorted(range(d.size), key=lambda c: (value[c], c))  # 54 tied pairs
    red_1, red_9 = d.names.index("red 1"), d.names.index("red 9")
    decks = [tied, [red_1, red_9] + [c for c in range(d.size) if c not in (red_1, red_9)]]
    monkeypatch.setattr(uno_round, "cut_order", lambda cards, random: list(decks.pop(0)))
    t = StackedTable(2, cut=[bytes(32), bytes(32)], first="blue 4")
    assert [step.purpose for kind, step in t.table.log if kind == "Randomness"] == ["dealer", "dealer"]
    assert [s.purpose for s in t.shuffles] == ["deck"]
    assert t.state.dealer == 1 and t.awaiting == (0,)
    cuts = [e for e in t.state.events if e[0] == "cut"]
    assert cuts[-2:] == [("cut", 0, red_1), ("cut", 1, red_9)]  # the deciding pair, from the second cut deck


def test_wild_names_the_colour() -> None:
    t = StackedTable(2, dealer=1, hands={0: ["Wild"], 1: ["green 8", "red 8"]}, first="red 3")
    wilds = [a for a in t.legal(0) if a.get("slot") == t.slot_of(0, "Wild")]
    assert [a["colour"] for a in wilds] == ["blue", "green", "yellow", "red"]
    t.act(0, t.play(0, "Wild", colour="green"))
    assert t.top() == "Wild" and t.colour() == "green" and t.awaiting == (1,)
    playable = {t.name(a["slot"]) for a in t.legal(1) if a["type"] == "play"}
    assert "green 8" in playable and "red 8" not in playable  # only the named colour matches a Wild


def test_apply_listed_needs_a_pending_decision() -> None:
    """``UnoState.apply_listed`` skips the answers' validation, not the question whether one is awaited."""
    from p2php.engine.local import LocalTable

    table = LocalTable(GAME.new_state(2, GAME.parse_options({"rounds": "1"})), seed=1)
    assert not isinstance(table.state.step(), Decide)  # the cut for the dealer: a chance step
    with pytest.raises(IllegalAction):
        table.state.apply_listed([(0, {"type": "draw"})], {})
