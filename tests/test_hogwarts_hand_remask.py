"""A card taken "at random" from a Hogwarts hand must not be recognised by its slot (E38, protocol.md §10.4).

Before a random pick from a hand (the duels' prize cards, an enemy's ``reveal:discard``, Rookwood's ``spy`` in the
Return) whose cards another seat may know -- a card that came round face up (E3), a card taken from another hand,
a hand shown to a Death Eater's player, a worn card dealt again -- the hand is re-masked: a Reshuffle per deck and
joint key into fresh slots at the top of the deck's span, then one Deal of the new slots to the holder
(``p2php/games/hogwarts/remask.py``).  Through the real protocol in both decks, and the plan in engine mode.
"""

from __future__ import annotations

from typing import Any

import pytest
from hogwarts_stacking import tops_first
from test_hogwarts_rules import READS as RULE_READS

from p2php.engine.contract import CardId, Deal, Randomness, Reshuffle, Shuffle
from p2php.engine.tasks import Task, TaskStack
from p2php.games.hogwarts.cards_flow import ReturnCards
from p2php.games.hogwarts.decks import Draw, OpenTop
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import SPAN, deck_first_slot, deck_of_slot
from p2php.games.hogwarts.mission_flow import MissionAttempt
from p2php.games.hogwarts.pvp import PlayerBattle
from p2php.games.hogwarts.remask import RemaskHand, remask_groups
from p2php.games.hogwarts.search import SearchDeck, searchable
from p2php.games.hogwarts.state import HogwartsState
from p2php.games.hogwarts.versus import Versus
from p2php.testing.scenario import Scenario
from p2php.testing.secrecy import SecrecyWatch

CRYPTO = ("fast", "verified")
READS = RULE_READS | {"family"}
ROOKWOOD = 5


class T(Scenario):
    state: HogwartsState
    wrap = (Task, TaskStack)

    def __init__(self, players: int = 3, mode: Any = "protocol", crypto: str = "fast", seed: int = 0) -> None:
        super().__init__(GAME, players, {"crypto": crypto} if mode == "protocol" else {}, seed, mode, reads=READS)
        for seat in range(players):
            self.act(seat, {"type": "character", "sheet": seat + 1}, "character")
        self.step()

    def arrange(self, step: Shuffle) -> list[CardId]:
        return tops_first(step, {})

    def push(self, task: Task[Any]) -> None:
        self.decide()
        self.state.stack.push(task)

    def open_and_draw(self, seat: int, deck: str = "spell") -> int:
        """A card of ``deck`` is opened (as a played one is), goes under face up (E3), and -- the deck having gone
        round to it (a test edit) -- ``seat`` draws it: it lies face up in its hand.  Its slot."""
        g = self.state
        self.decide()
        slot = int(g.deck[deck][0])
        self.push(OpenTop(deck))
        self.step()
        g.under(slot)
        g.deck[deck].remove(slot)
        g.deck[deck].insert(0, slot)
        self.push(Draw(seat, deck))
        self.step()
        return slot

    def keep(self, seat: int, slots: list[int], n: int) -> None:
        """Test edit: ``seat``'s hand is ``slots`` and its first other cards up to ``n`` (the rest go under)."""
        g = self.state
        for s in [int(x) for x in g.hand[seat] if x not in slots][n - len(slots):]:
            g.discard_from_hand(seat, s)

    def duel(self, a: int, b: int) -> tuple[int, int, int, list[str]]:
        """An underage duel of ``a`` against ``b`` whose winner takes a card at random: (winner, loser, the slot
        taken, the chance steps' kinds since the duel)."""
        g = self.state
        g.pos[b] = g.pos[a]
        g.truces.clear()
        before = len(self.table.peers[0].events) if self.mode == "protocol" else 0
        self.push(PlayerBattle(a, [b]))
        d = self.decide()
        assert d.prompt == "prize", d
        winner = d.seats[0]
        held = set(g.hand[winner])
        self.act(winner, {"type": "prize", "what": "card"}, "prize")
        self.step()
        (taken,) = [s for s in g.hand[winner] if s not in held]
        kinds = [type(e.step).__name__ for e in getattr(self.table, "peers", [None])[0].events[before:]
                 if isinstance(e.step, Randomness | Reshuffle | Deal)] if self.mode == "protocol" else []
        return winner, b if winner == a else a, taken, kinds


def no_breach(t: T) -> None:
    for seat, ls in enumerate(t.table.peers):  # type: ignore[union-attr]
        watch = SecrecyWatch()
        watch.check(seat, ls)
        assert watch.checks == 1 and not watch.violations, watch.violations[:3]


@pytest.mark.parametrize("crypto", CRYPTO)
def test_nobody_else_learns_the_prize_card_taken_from_a_hand_holding_a_card_that_came_round_face_up(
        crypto: str) -> None:
    t = T(crypto=crypto)
    g = t.state
    opened = {seat: t.open_and_draw(seat) for seat in (0, 1)}
    for seat in (0, 1):
        t.keep(seat, [opened[seat]], 2)  # the opened card and one hidden card
    hands = {seat: list(g.hand[seat]) for seat in (0, 1)}
    winner, loser, taken, kinds = t.duel(0, 1)
    assert taken not in t.table.public and t.table.knowledge(2).face(taken) is None  # a spectator, a bystander
    assert kinds[1:] == ["Reshuffle", "Deal", "Randomness"]  # the duel's dice, then the re-mask, then the pick
    assert taken not in hands[loser] and not set(hands[loser]) & set(g.hand[loser])  # fresh slots
    assert deck_of_slot(taken) == "spell" and taken >= deck_first_slot("spell") + SPAN - 2  # the span's top
    assert t.table.knowledge(winner).face(taken) == t.table.face_of(taken)  # the taker sees it
    assert t.table.knowledge(loser).face(taken) == t.table.face_of(taken)  # the old holder knows what it lost
    assert [s for s in g.hand[loser] if s in t.table.public] == []  # the opened card is face down again
    assert g.resealed == {"spell": 2} and g.seen[taken] == [0, 1, 2]  # the opened card: every seat may know it
    no_breach(t)
    t.finish()  # clean audits, equal state hashes


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_card_taken_from_another_hand_is_not_recognised_by_its_old_holder(crypto: str) -> None:
    """Seat 0 takes a hidden card of seat 1 (seat 1 knows it), then loses a duel to seat 2: seat 0's hand is mixed
    before seat 2's pick, and seat 1 no longer knows where its old card is."""
    t = T(crypto=crypto, seed=12)
    g = t.state
    w1, l1, first, _kinds = t.duel(0, 1)
    assert (w1, l1) == (0, 1) and g.seen[first] == [0, 1]
    deck = deck_of_slot(first)
    mate = next(int(s) for s in g.hand[w1] if s != first and deck_of_slot(s) == deck)
    t.keep(w1, [first, mate], 2)
    assert [sorted(grp) for grp in remask_groups(g, w1)] == [sorted([first, mate])]
    g.lp[0] = g.lp[2] = 10
    w2, _l2, taken, kinds = t.duel(2, 0)
    assert w2 == 2 and t.table.knowledge(1).face(taken) is None  # seat 1 no longer knows where its card went
    assert t.table.knowledge(1).face(g.hand[0][0]) is None
    assert kinds[1:] == ["Reshuffle", "Deal", "Randomness"]
    no_breach(t)
    t.finish()


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_hand_nobody_else_knows_is_not_remasked(crypto: str) -> None:
    t = T(crypto=crypto)
    g = t.state
    t.decide()
    assert all(remask_groups(g, s) == [] for s in range(3))  # the deal: each hand known to its holder alone
    _w, _l, _taken, kinds = t.duel(0, 1)
    assert "Reshuffle" not in kinds  # no cost when nothing is known
    t.finish()


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_hand_holding_cards_of_two_joint_keys_of_one_deck_is_mixed_per_key(crypto: str) -> None:
    """A deck whose cards are all face up is searched: its reshuffle has no face-down input, so its cards are
    under a new joint key (a new family).  A hand holding face-down cards of both keys, each known to another
    seat, is mixed by one Reshuffle per key (the session refuses a mix of keys), the opened card joining one."""
    t = T(crypto=crypto)
    g = t.state
    ups = [t.open_and_draw(2, "potion") for _ in range(3)]  # three opened potion cards, drawn by seat 2 ...
    for s in ups:
        g.discard_from_hand(2, s)  # ... and put under face up: the potion deck is now these three alone
    t.decide()
    g.deck["potion"] = list(ups)  # test edit: the face-down cards are out of play
    face = t.table.face_of(ups[0])
    t.push(SearchDeck(2, ["potion"]))
    t.act(2, {"type": "deck", "deck": "potion"}, "search_deck")
    t.decide()  # the face-up cards are mixed first (E39): the first reshuffle has no face-down input
    mine = next(s for s in g.deck["potion"] if t.table.knowledge(2).face(s) == face)
    t.act(2, {"type": "take", "slot": mine}, "search_take")
    t.step()
    fresh = list(g.deck["potion"])
    key = g.blocks[0][0]
    assert len(fresh) == 2 and g.family(fresh[0]) == g.family(fresh[1]) == key != deck_first_slot("potion")
    assert g.blocks == [[key, 3, key], [fresh[0], 2, key]]
    t.push(Draw(1, "potion", 2))  # seat 1 draws both: face down, of the new key
    t.step()
    mine = [int(s) for s in g.hand[1] if deck_of_slot(s) == "potion" and s not in fresh]
    assert mine and g.family(mine[0]) == deck_first_slot("potion")
    up = t.open_and_draw(1, "spell")
    t.keep(1, [*fresh, *mine[:2], up], 5)
    g.seen[fresh[0]] = [0, 1]  # test edit: seat 0 saw one card of each key (as Rookwood's spy would show it)
    g.seen[mine[0]] = [0, 1]
    groups = remask_groups(g, 1)
    assert sorted(map(sorted, groups)) == sorted([sorted(fresh), sorted(mine[:2])])
    t.push(RemaskHand(1))  # as before a random pick from seat 1's hand
    t.step()
    assert not {s for grp in groups for s in grp} & set(g.hand[1])
    assert len({g.family(s) for s in g.hand[1] if deck_of_slot(s) == "potion"}) == 2
    no_breach(t)
    t.finish()


def test_who_may_know_a_hidden_face_is_tracked() -> None:
    """Engine mode: a Death Eater's player shown a hand (Rookwood's spy, qualified rules), a worn card dealt again
    (E37's re-lock keeps who knew it) -- and the pick's pool: only the decks the pick may take are mixed."""
    t = T(mode="engine")
    g = t.state
    t.decide()
    hand = list(g.hand[0])
    assert len(hand) >= 2 and remask_groups(g, 0) == []
    g.stack.push(Versus([0, -1], [0, 2], 0, ROOKWOOD, 6, []))  # seat 2 plays Rookwood against seat 0
    assert t.decide().prompt == "spy"
    assert all(g.seen[s] == [0, 2] for s in hand)  # the spy's look
    by_deck: dict[str, list[int]] = {}
    for s in hand:
        by_deck.setdefault(deck_of_slot(s), []).append(s)
    assert remask_groups(g, 0) == [grp for _d, grp in sorted(by_deck.items()) if len(grp) >= 2] != []
    assert remask_groups(g, 0, ("spell", "potion")) == [by_deck[d] for d in ("potion", "spell")
                                                       if len(by_deck.get(d, [])) >= 2]

    t2 = T(mode="engine")
    st = t2.state
    t2.decide()
    card = int(st.hand[1][0])
    deck = deck_of_slot(card)
    st.discard_from_hand(1, card)  # under face down: worn, seat 1 knows it
    st.deck[deck].remove(card)
    st.deck[deck].insert(0, card)  # test edit: the deck has gone round to it
    t2.push(Draw(2, deck))
    t2.step()
    new = st.hand[2][-1]
    assert new != card and st.seen[new] == [1, 2]  # re-locked (E37), still known to seat 1
    assert remask_groups(st, 2) != []  # so seat 2's hand is mixed before a pick (it holds another of that deck)


def test_a_mission_s_cards_on_show_keep_their_slots() -> None:
    """Engine mode: while a mission is attempted, the cards shown for it (face up, E30) stay where they are -- they go
    under after its battle by their slots -- and an enemy's ``reveal:discard`` mixes the rest of the hand only."""
    t = T(mode="engine")
    g = t.state
    t.decide()
    up = t.open_and_draw(0, "spell")
    spells = [s for s in g.hand[0] if deck_of_slot(s) == "spell" and s != up]
    assert len(spells) == 4 and remask_groups(g, 0) == [[*spells, up]]  # the opened card joins the hidden ones
    g.hand[0].remove(up)
    g.hand[0].insert(0, up)  # test edit: the opened card first in the hand, the hidden ones after it
    assert remask_groups(g, 0) == [[*spells, up]]
    g.stack.push(MissionAttempt(0, shown=[up]))
    assert remask_groups(g, 0) == []  # on show: nothing else is known
    g.seen[spells[0]] = [0, 2]
    assert remask_groups(g, 0) == [spells]
    # Cards on show anywhere in the hand keep their slots, and the cards after them in the hand are still mixed
    # (mutation run T: with the skip made a stop, the hand's cards after the first one on show were never mixed).
    g.stack.pop()
    g.stack.push(MissionAttempt(0, shown=[spells[0], up]))
    g.seen[spells[1]] = [0, 2]
    assert remask_groups(g, 0) == [spells[1:]]


@pytest.mark.parametrize("crypto", CRYPTO)
@pytest.mark.parametrize("kind", ["face up", "worn"])
def test_a_searched_card_is_not_recognised_by_its_slot(crypto: str, kind: str) -> None:
    """E39: Accio takes a card of a deck by its slot.  A deck holding a card another seat knows -- one that came
    round face up (E3), or a worn one its old holder put under (E37) -- is reshuffled before the look, so taking
    that card tells them nothing; a deck nobody else knows is looked through as it lies."""
    t = T(crypto=crypto)
    g = t.state
    t.decide()
    if kind == "face up":
        slot, knower = int(g.deck["potion"][0]), 2
        t.push(OpenTop("potion"))
        t.step()
        g.under(slot)
    else:
        slot, knower = next(int(s) for s in g.hand[1] if deck_of_slot(s) == "potion"), 1
        g.discard_from_hand(1, slot)
    face = t.table.face_of(slot)
    held = set(g.hand[0])
    before = len(t.table.peers[0].events)  # type: ignore[union-attr]
    t.push(SearchDeck(0, ["potion"]))
    t.act(0, {"type": "deck", "deck": "potion"}, "search_deck")
    t.decide()
    assert slot not in g.deck["potion"]  # mixed before the look
    mine = next(s for s in g.deck["potion"] if t.table.knowledge(0).face(s) == face)
    t.act(0, {"type": "take", "slot": mine}, "search_take")
    t.step()
    (taken,) = [s for s in g.hand[0] if s not in held]
    assert t.table.knowledge(knower).face(taken) is None and taken not in t.table.public
    assert t.table.knowledge(0).face(taken) == face
    steps = [type(e.step).__name__ for e in t.table.peers[0].events[before:]]  # type: ignore[union-attr]
    assert steps.count("Reshuffle") == 2 and g.reshuffles == {"potion": 2}
    no_breach(t)
    t.finish()


def test_a_deck_nobody_else_knows_is_searched_as_it_lies() -> None:
    t = T(mode="engine")
    g = t.state
    t.push(SearchDeck(0, ["potion"]))
    t.act(0, {"type": "deck", "deck": "potion"}, "search_deck")
    t.act(0, {"type": "take", "slot": int(g.deck["potion"][0])}, "search_take")  # the old slot: no re-mix
    t.step()
    assert g.reshuffles == {"potion": 1}


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_card_put_back_by_choice_is_not_recognised_by_its_slot(crypto: str) -> None:
    """ReturnCards (a lost duel, an event) names the slot put back: a hand holding a card that came round face up
    is re-masked first, and the card goes under face down, unknown to the others."""
    t = T(crypto=crypto)
    g = t.state
    up = t.open_and_draw(1, "spell")
    face = t.table.face_of(up)
    t.push(ReturnCards(1, 1))
    d = t.decide()
    assert up not in g.hand[1]  # mixed before the choice
    mine = next(s for s in g.hand[1] if t.table.knowledge(1).face(s) == face)
    t.act(1, {"type": "return", "slot": mine}, d.prompt)
    t.step()
    assert g.deck["spell"][-1] == mine and mine not in t.table.public and mine in g.worn
    assert t.table.knowledge(2).face(mine) is None and t.table.knowledge(0).face(mine) is None
    no_breach(t)
    t.finish()


def test_rookwood_s_choice_after_his_look_is_made_in_a_re_masked_hand() -> None:
    """Engine mode: the spy's player names the card put under by its slot, so a hand holding a card that came round
    face up is re-masked before the look (E38): the look shows fresh slots."""
    t = T(mode="engine")
    g = t.state
    up = t.open_and_draw(0, "spell")
    t.decide()
    g.stack.push(Versus([0, -1], [0, 2], 0, ROOKWOOD, 6, []))
    assert t.decide().prompt == "spy"
    assert up not in g.hand[0] and not any(s in g.pub for s in g.hand[0] if deck_of_slot(s) == "spell")
    assert all(2 in g.seen[s] for s in g.hand[0])
    assert {a["slot"] for a in t.legal(2)} == set(g.hand[0])


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_card_known_by_elimination_after_a_re_mask_is_mixed_again_before_the_next_pick(crypto: str) -> None:
    """Seat 0 takes X from seat 1 and holds it with one card of its deck; seat 1 wins a duel and takes the other
    card of the re-masked pair, so it knows by elimination the slot left in seat 0's hand is X.  Seat 0 draws a
    card of that deck and loses a duel to seat 2: the hand is mixed again (the re-mask kept who knew a face of
    the group), so the slot seat 2 takes does not tell seat 1 whether X went (before: it did)."""
    t = T(crypto=crypto, seed=19)
    g = t.state
    w1, l1, x, _kinds = t.duel(0, 1)
    assert (w1, l1) == (0, 1)
    deck = deck_of_slot(x)
    t.keep(0, [x, next(int(s) for s in g.hand[0] if s != x and deck_of_slot(s) == deck)], 2)
    face_x = t.table.face_of(x)
    g.lp[0] = g.lp[1] = 10
    w2, _l2, took, kinds = t.duel(1, 0)
    assert w2 == 1 and "Reshuffle" in kinds and t.table.knowledge(1).face(took) != face_x
    (left,) = g.hand[0]
    assert t.table.face_of(left) == face_x  # seat 1 knows it by elimination
    assert g.seen[left] == [0, 1]
    t.push(Draw(0, deck))
    t.step()
    g.lp[0] = g.lp[2] = 10
    w3, _l3, taken, kinds = t.duel(2, 0)
    assert w3 == 2 and kinds[-3:] == ["Reshuffle", "Deal", "Randomness"] and left not in g.hand[0] + [taken]
    assert t.table.knowledge(1).face(taken) is None
    no_breach(t)
    t.finish()


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_card_put_back_from_a_re_masked_hand_leaves_its_deck_searchable(crypto: str) -> None:
    """The card put back lies in a slot at the top of the deck's span, under the deck's joint key: the deck may
    still be searched (E18), and the search's Reshuffle takes it with the others (before: no search of the deck
    until that card was drawn again)."""
    t = T(crypto=crypto)
    g = t.state
    t.open_and_draw(1, "spell")
    t.push(ReturnCards(1, 1))
    d = t.decide()
    back = next(int(s) for s in g.hand[1] if deck_of_slot(s) == "spell")
    t.act(1, {"type": "return", "slot": back}, d.prompt)
    t.step()
    assert g.deck["spell"][-1] == back >= deck_first_slot("spell") + SPAN - 10  # re-masked: a top slot
    assert searchable(g, ["spell"]) == ["spell"]
    t.push(SearchDeck(0, ["spell"]))
    t.act(0, {"type": "deck", "deck": "spell"}, "search_deck")
    assert t.decide().prompt == "search_take"
    assert back not in g.deck["spell"] and g.reshuffles == {"spell": 1}  # E39: seat 1 knows the card put back
    took = int(g.deck["spell"][0])
    t.act(0, {"type": "take", "slot": took}, "search_take")
    t.step()
    assert took in g.hand[0] and g.reshuffles == {"spell": 2} and searchable(g, ["spell"]) == ["spell"]
    no_breach(t)
    t.finish()
