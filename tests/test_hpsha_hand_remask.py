"""A card taken "at random" from an HP Sha hand must not be recognised by its slot (protocol.md §10.4).

Before a random pick from a hand holding a card whose face a seat other than the holder may know (opened in
the hand, taken from another hand, seen in a look), the hand is re-masked: a Reshuffle into fresh slots per
deck family, then one Deal of the new slots to the holder (``p2php/games/hpsha/remask.py``).  Through the
real protocol, in both decks: after 摄神取念 takes one of Neville's two opened 勇气 cards, no seat but the taker
and the old holder (who knows what it lost), and no spectator, knows the card the taker got; the audits are
clean and every peer ends with the same state hash (``Scenario.finish``).
"""

from __future__ import annotations

import pytest

from p2php.engine.contract import Reshuffle
from p2php.games.hpsha.moves import DrawTask, LookAtHandTask, PickCardTask, ReshuffleTask
from p2php.testing.hpsha import Scenario
from p2php.testing.secrecy import SecrecyWatch

CRYPTO = ("fast", "verified")


def courage_won(crypto: str, extra: int = 0, seed: int = 0) -> tuple[Scenario, list[int]]:
    """Neville (seat 0) wins 勇气's 拼点 against Snape (seat 1): both cards (opened) are in his hand.  His
    other cards are discarded (face up, a test edit) but ``extra`` hidden ones.  Returns the opened slots."""
    sc = Scenario(["neville", "snape", "hagrid", "mcgonagall"],
                  hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♣", 1), "legilimens"]},
                  options={"crypto": crypto}, seed=seed, mode="protocol")
    st = sc.state
    st.hp[0] = 1
    sc.decide()
    mine, theirs = sc.slot(0, "stupefy"), sc.slot(1, "crucio")
    sc.act(0, {"type": "invoke", "target": 1}, "skill:courage")
    sc.table.act([(0, {"type": "duel", "slot": mine}), (1, {"type": "duel", "slot": theirs})])
    sc.step()
    hidden = [s for s in st.hands[0] if s not in (mine, theirs)]
    for s in hidden[extra:]:
        sc.open(s)
        st.to_discard(s)
    assert mine in sc.table.public and theirs in sc.table.public
    return sc, [mine, theirs]


def legilimens_on_neville(sc: Scenario) -> tuple[list[int], int]:
    """Snape uses 摄神取念 on Neville, who has nothing but hand cards: returns the steps' kinds since the use and
    the slot Snape took."""
    st = sc.state
    sc.pass_until(1, "play")
    before = set(st.hands[1]) - {sc.slot(1, "legilimens")}
    events = len(sc.table.peers[0].events)
    sc.use(1, "legilimens", [0])
    for _ in range(10):
        d = sc.decide()
        if d.prompt != "respond:counter":
            break
        sc.table.act([(s, {"type": "pass"}) for s in d.seats])
    sc.step()
    kinds = [type(e.step).__name__ for e in sc.table.peers[0].events[events:]]
    (taken,) = [s for s in st.hands[1] if s not in before]
    return kinds, taken


@pytest.mark.parametrize("crypto", CRYPTO)
def test_nobody_else_learns_which_opened_card_legilimens_took(crypto: str) -> None:
    sc, opened = courage_won(crypto)
    kinds, taken = legilimens_on_neville(sc)
    st = sc.state
    for seat in (2, 3):  # the bystanders know no card of Snape's hand ...
        assert [s for s in st.hands[1] if sc.table.knowledge(seat).face(s) is not None] == []
    assert taken not in sc.table.public  # ... nor does a spectator know the one he took
    assert taken not in opened  # a new slot, not one whose face everyone knew
    assert "Reshuffle" in kinds and "Deal" in kinds  # the hand was mixed before the Randomness
    assert kinds.index("Deal") < kinds.index("Randomness")
    assert sc.table.knowledge(1).face(taken) == sc.table.face_of(taken)  # the taker sees it (Show)
    assert sc.table.knowledge(0).face(taken) == sc.table.face_of(taken)  # the old holder knows what it lost
    assert not any(s in opened for h in st.hands for s in h)  # both old slots are spent
    edited = {s for s in sc.table.public if s in st.discard}  # the test's own openings (sc.open) aside,
    for seat, ls in enumerate(sc.table.peers):  # no seat knows, or holds the keys of, a slot not granted to it
        watch = SecrecyWatch()
        watch.check(seat, ls)
        wrong = [v for v in watch.violations if not any(f"slot {s}:" in v or f"slot {s} " in v for s in edited)]
        assert watch.checks == 1 and not wrong, wrong[:3]
    sc.finish()  # clean audits, equal state hashes


@pytest.mark.parametrize("crypto", CRYPTO)
def test_a_hand_nobody_else_knows_is_not_remasked(crypto: str) -> None:
    sc = Scenario(["neville", "snape", "hagrid", "mcgonagall"], hands={1: ["legilimens"]},
                  options={"crypto": crypto}, mode="protocol")
    sc.state.hp[0] = 1
    sc.pass_(0, "skill:courage")
    from p2php.games.hpsha.remask import remask_groups

    assert remask_groups(sc.state, 0) == []
    kinds, _taken = legilimens_on_neville(sc)
    assert "Reshuffle" not in kinds and "Shuffle" not in kinds  # no cost when nothing is known
    sc.finish()


@pytest.mark.parametrize("crypto", CRYPTO)
@pytest.mark.parametrize("exposed", ["both", "new"])
def test_a_hand_of_two_deck_families_is_remasked_per_family(crypto: str, exposed: str) -> None:
    """After the discard pile became a new deck (its own joint key), Neville holds cards of both decks: each
    family is mixed by its own Reshuffle (the verified deck refuses a mix), the opened cards join one (with
    ``new``: the new deck's, though they came from the first deck)."""
    sc, opened = courage_won(crypto, extra=2)
    st = sc.state
    first = [s for s in st.hands[0] if s not in opened]
    assert len(first) == 2
    if exposed == "both":
        st.seen[first[0]] = [2]  # test edit: seat 2 saw one of them (as 禁闭's look or a peek would)
    pile = len(st.discard)
    assert pile >= 2
    st.push(ReshuffleTask())  # the discard pile (Neville's discarded cards) becomes a new deck ...
    sc.step()
    fresh = st.deck[-pile:]
    st.deck[:] = fresh + [s for s in st.deck if s not in fresh]  # ... whose cards he draws next
    st.push(DrawTask(0, 2))
    sc.step()
    second = st.hands[0][-2:]
    from p2php.games.hpsha.remask import remask_groups

    assert st.family(second[0]) == st.family(second[1]) != st.family(first[0]) == st.family(first[1])
    if exposed == "both":
        assert remask_groups(st, 0) == [first + opened]  # the new deck's: nobody else knows a face there
    st.seen[second[1]] = [1, 3]  # test edit: now seats 1 and 3 saw one of the new deck's (a peek, say)
    groups = remask_groups(st, 0)
    if exposed == "both":
        assert groups == [first + opened, second]  # equal sizes: the opened ones join the older family
    else:
        assert groups == [second + opened]  # the first deck's two: nobody else knows them, they stay
    kinds, taken = legilimens_on_neville(sc)
    assert kinds.count("Reshuffle") == len(groups) and kinds.count("Deal") == 1
    assert not {s for g in groups for s in g} & {s for h in st.hands for s in h}
    assert taken not in sc.table.public
    for seat in (2, 3):
        kn = sc.table.knowledge(seat)
        assert [s for s in st.hands[0] + st.hands[1] if s not in sc.table.public and kn.face(s) is not None] == []
    sc.finish()


def test_only_exposed_groups_of_two_or_more_are_mixed() -> None:
    """Engine mode: the plan alone (no crypto).  A lone exposed card of a family is left (a one-slot Reshuffle
    would hide nothing); opened cards join the largest exposed group; 禁闭's sealed cards mix only together."""
    from p2php.games.hpsha.remask import remask_groups

    sc = Scenario(["neville", "snape", "hagrid", "mcgonagall"], mode="engine")
    st = sc.state
    hand = st.hands[0]
    assert len(hand) >= 4 and len({st.family(s) for s in hand}) == 1
    assert remask_groups(st, 0) == []
    st.seen[hand[0]] = [0]  # only the holder: nothing to hide
    assert remask_groups(st, 0) == []
    st.seen[hand[0]] = [0, 3]
    assert remask_groups(st, 0) == [hand]
    st.flags[0][f"sealed:{hand[0]}"] = st.turn_no  # sealed alone: a group of one, nothing to mix
    assert remask_groups(st, 0) == []
    st.flags[0][f"sealed:{hand[1]}"] = st.turn_no
    assert remask_groups(st, 0) == [hand[:2]]
    step = Reshuffle(tuple(hand[:2]), st.alloc(2), "hand0")
    old = list(hand)
    st.remasked(0, step)
    assert hand == [*step.new_slots, *old[2:]]
    assert all(not st.can_use(0, s) for s in step.new_slots) and all(st.can_use(0, s) for s in old[2:])
    assert st.family(step.first_slot) == st.family(old[0])  # the re-mask belongs to its inputs' family


def test_who_may_know_a_hidden_face_is_tracked() -> None:
    """Engine mode: a card taken from a hand is known to the hand it left; a look (禁闭's) at a hand makes every
    card of it known to the viewer; the next random pick from such a hand mixes it first."""
    from p2php.games.hpsha.remask import remask_groups

    sc = Scenario(["neville", "snape", "hagrid", "mcgonagall"], mode="engine")
    st = sc.state
    sc.decide()
    assert remask_groups(st, 1) == [] and remask_groups(st, 2) == []
    st.push(PickCardTask(1, 2, ["hand"], "obtain", "legilimens"))  # Snape takes one of Hagrid's hidden cards
    sc.decide()
    (taken,) = [s for s in st.hands[1] if st.seen.get(s) == [2]]
    assert remask_groups(st, 1) == [st.hands[1]]  # Hagrid knows it: Snape's hand is mixed before a pick
    assert remask_groups(st, 2) == []
    st.push(LookAtHandTask(3, 2))  # McGonagall looks at Hagrid's hand (as 禁闭's option 2 does)
    sc.decide()
    assert all(st.seen.get(s) == [3] for s in st.hands[2])
    assert remask_groups(st, 2) == [st.hands[2]]
    before = list(st.hands[2])
    st.push(PickCardTask(1, 2, ["hand"], "discard", "expelliarmus"))
    sc.decide()
    assert not set(before) & set(st.hands[2]) and len(st.hands[2]) == len(before) - 1
    # McGonagall still knows which cards Hagrid holds, only not in which new slot: she would learn it by
    # elimination as he plays them, so each new slot keeps her, and the next pick mixes the hand again.
    assert all(st.seen.get(s) == [3] for s in st.hands[2])
    assert remask_groups(st, 2) == ([st.hands[2]] if len(st.hands[2]) >= 2 else [])
    assert "hand (" in sc.log() and "is mixed face down before a random pick" in sc.log()


def test_a_remasked_group_stays_known_to_whoever_knew_one_of_its_faces() -> None:
    """After a re-mask, every seat still knows an opened card is one of the new slots, and learns which by
    elimination once the others are played (the review of Hogwarts' E38): each new slot keeps who knew a face of
    the group, so the next random pick from the hand mixes it again."""
    from p2php.games.hpsha.remask import remask_groups

    sc, opened = courage_won("fast", extra=1)
    legilimens_on_neville(sc)
    st = sc.state
    assert len(st.hands[0]) == 2 and not set(st.hands[0]) & set(opened)
    for s in st.hands[0]:
        assert st.seen.get(s) == [0, 1, 2, 3], (s, st.seen.get(s))
    assert remask_groups(st, 0) == [list(st.hands[0])]
    sc.finish()


@pytest.mark.parametrize("crypto", CRYPTO)
def test_rescue_cannot_pick_a_card_whose_face_is_known(crypto: str) -> None:
    """解危 picks blind, by slot (decision 28): Neville's hand holds 勇气's two opened cards, so Hermione (seat 2)
    could pick the red one's slot and be sure of the recovery (red-team rt5-secrecy: 30 of 30 seeded games).  The
    place is now drawn with joint randomness (before the review of 3daf63b the hand was re-masked and the card
    shown was the one at the place she picked, a card of that place's group), with no re-mask: the card drawn is
    opened to all."""
    from p2php.games.hpsha.damage import DamageTask

    sc = Scenario(["neville", "snape", "hermione", "mcgonagall"],
                  hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♦", 1), "legilimens"]},
                  options={"crypto": crypto}, mode="protocol")
    st = sc.state
    st.hp[0] = 1
    sc.decide()
    mine, theirs = sc.slot(0, "stupefy"), sc.slot(1, "crucio")
    sc.act(0, {"type": "invoke", "target": 1}, "skill:courage")
    sc.table.act([(0, {"type": "duel", "slot": mine}), (1, {"type": "duel", "slot": theirs})])
    sc.step()
    assert theirs in st.hands[0] and theirs in sc.table.public  # the red card, opened in Neville's hand
    st.push(DamageTask(-1, 0, 1, "walnut"))
    for _ in range(20):
        d = sc.decide()
        if d.prompt == "skill:rescue":
            break
        sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    events, hand = len(sc.table.peers[0].events), list(st.hands[0])
    sc.act(2, {"type": "invoke", "slot": theirs}, "skill:rescue")
    sc.step()
    steps = [e.step for e in sc.table.peers[0].events[events:]]
    kinds = [type(s).__name__ for s in steps]
    assert "Randomness" in kinds and "Reshuffle" not in kinds, kinds  # the place is drawn, not hers
    assert "Reveal" not in kinds or kinds.index("Randomness") < kinds.index("Reveal")
    (shown,) = st.set_aside  # the card drawn, shown and set aside for Hermione (hers after the dying state)
    assert shown in hand and [[2, shown]] in st.after_dying.values()


@pytest.mark.parametrize("crypto", CRYPTO)
def test_detention_seals_fresh_slots_when_another_seat_knows_a_face(crypto: str) -> None:
    """禁闭 (option 2) seals half of the source's hand by slot, publicly (H12).  Neville's hand holds 勇气's two
    opened cards, so every seat learnt whether the ♦A card Filch sealed was that one (red-team rt5-secrecy: 30 of
    30 seeded games).  The hand is now re-masked before Filch's look: the slots he seals are fresh ones."""
    from p2php.games.hpsha.damage import DamageTask

    sc = Scenario(["neville", "snape", "filch", "mcgonagall"],
                  hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♦", 1), "legilimens"], 2: ["geminio"]},
                  options={"crypto": crypto}, mode="protocol")
    st = sc.state
    sc.decide()
    mine, theirs = sc.slot(0, "stupefy"), sc.slot(1, "crucio")
    sc.act(0, {"type": "invoke", "target": 1}, "skill:courage")
    sc.table.act([(0, {"type": "duel", "slot": mine}), (1, {"type": "duel", "slot": theirs})])
    sc.step()
    opened = [mine, theirs]
    assert all(s in st.hands[0] and s in sc.table.public for s in opened)
    st.push(DamageTask(0, 2, 1, "bombarda"))
    for _ in range(20):
        d = sc.decide()
        if d.prompt == "skill:detention":
            break
        sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    events = len(sc.table.peers[0].events)
    sc.act(2, next(a for a in sc.legal(2) if a.get("option") == 2), "skill:detention")
    d = sc.decide()
    assert d.prompt == "skill:detention"
    kinds = [type(e.step).__name__ for e in sc.table.peers[0].events[events:]]
    assert "Reshuffle" in kinds and kinds.index("Deal") < kinds.index("Show")  # mixed before Filch's look
    assert not any(s in st.hands[0] for s in opened)  # the opened slots are spent: the seals name fresh ones
    assert all(a["value"] not in opened for a in sc.legal(2))


@pytest.mark.parametrize("crypto", CRYPTO)
def test_rescue_draws_the_place_when_a_known_face_cannot_be_remasked(crypto: str) -> None:
    """A card whose face Hermione knows (a test edit: she gave it, say) is Neville's only card of the first deck, the
    others came from the discard pile reshuffled into a new deck: a one-card family group is not re-masked, so she
    named its slot and got it, every time (review of 16e4f42, 6 of 6). The place
    is now drawn with joint randomness: the card shown is not hers to name."""
    from p2php.games.hpsha.damage import DamageTask
    from p2php.games.hpsha.remask import remask_groups

    sc = Scenario(["neville", "snape", "hermione", "mcgonagall"],
                  hands={0: [("geminio", "♥", 7), "expelliarmus", "legilimens"]},
                  options={"crypto": crypto}, mode="protocol")
    st = sc.state
    sc.decide()
    red = sc.slot(0, "geminio")
    for s in [s for s in st.hands[0] if s != red]:
        sc.open(s)
        st.to_discard(s)
    pile = len(st.discard)
    st.push(ReshuffleTask())
    sc.step()
    fresh = st.deck[-pile:]
    st.deck[:] = fresh + [s for s in st.deck if s not in fresh]
    st.push(DrawTask(0, 2))
    sc.step()
    st.seen[red] = [0, 2]
    assert remask_groups(st, 0) == []  # alone of its family: nothing to mix
    st.hp[0] = 1
    st.push(DamageTask(-1, 0, 1, "walnut"))
    for _ in range(30):
        d = sc.decide()
        if d.prompt == "skill:rescue":
            break
        sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    events = len(sc.table.peers[0].events)
    sc.act(2, {"type": "invoke", "slot": red}, "skill:rescue")
    sc.step()
    kinds = [type(e.step).__name__ for e in sc.table.peers[0].events[events:]]
    assert "Randomness" in kinds and kinds.index("Randomness") < kinds.index("Reveal"), kinds


def test_a_card_set_aside_or_revealed_by_prophecy_keeps_its_slot() -> None:
    """Engine mode: 解危's card (set aside) and 预言's revealed card keep their slots through a re-mask (they are
    named by their slots later); the rest of the hand is mixed as if they were not in it (mutation run T)."""
    from p2php.games.hpsha.remask import remask_groups

    sc = Scenario(["neville", "snape", "hagrid", "mcgonagall"], mode="engine")
    st = sc.state
    hand = st.hands[0]
    assert len(hand) >= 4 and len({st.family(s) for s in hand}) == 1
    st.seen[hand[0]] = [0, 3]
    st.seen[hand[1]] = [2]
    assert remask_groups(st, 0) == [hand]
    st.set_aside.append(hand[0])  # 解危's card
    assert remask_groups(st, 0) == [hand[1:]]
    st.set_aside.append(hand[-1])
    assert remask_groups(st, 0) == [hand[1:-1]]
    st.set_aside.clear()
    st.set_aside.append(st.hands[1][0])  # another seat's card set aside pins nothing here
    assert remask_groups(st, 0) == [hand]
    st.set_aside.clear()
    sc.open(hand[1])  # 预言's card: revealed, kept for the judgement's result
    st.flags[0]["prophecy"] = hand[1]
    assert remask_groups(st, 0) == [[s for s in hand if s != hand[1]]]
    st.flags[0].pop("prophecy")
    assert remask_groups(st, 0) == [[s for s in hand if s != hand[1]] + [hand[1]]]  # an opened card joins


def test_sealed_cards_and_the_others_are_two_groups_the_unsealed_first() -> None:
    """Engine mode: 禁闭's sealed cards (this turn) and the hand's other cards are mixed apart, each group when
    a face of it is known, in a fixed order (the unsealed group first) that every peer computes alike."""
    from p2php.games.hpsha.remask import remask_groups

    sc = Scenario(["neville", "snape", "hagrid", "mcgonagall"], mode="engine")
    st = sc.state
    hand = st.hands[0]
    assert len(hand) >= 4
    for s in hand[:2]:
        st.flags[0][f"sealed:{s}"] = st.turn_no
    st.seen[hand[0]] = [3]
    assert remask_groups(st, 0) == [hand[:2]]
    st.seen[hand[2]] = [1]
    assert remask_groups(st, 0) == [hand[2:], hand[:2]]
    st.flags[0][f"sealed:{hand[0]}"] = st.turn_no - 1  # sealed in an earlier turn: not sealed now
    assert remask_groups(st, 0) == [[hand[0], *hand[2:]]]


@pytest.mark.parametrize("crypto", CRYPTO)
def test_rescue_draws_the_place_when_a_remask_group_holds_known_faces(crypto: str) -> None:
    """Neville holds two red first-deck cards Hermione knows (a test edit: she gave them, say) and three cards drawn
    from the discard pile reshuffled into a new deck.  A re-mask mixes per family and keeps each group's places:
    the pair was mixed (both known), the three left alone, so the place she named (a red one's) chose the pair and
    the card shown was one she knew, both red: a sure recovery, where a blind pick of 5 finds one with odds 2/5
    (review of 3daf63b, 20 of 20 seeded games, both decks).  The place is
    now drawn with joint randomness whenever a face in the hand is known to another seat."""
    from p2php.games.hpsha.damage import DamageTask
    from p2php.games.hpsha.remask import remask_groups

    sc = Scenario(["neville", "snape", "hermione", "mcgonagall"],
                  hands={0: [("geminio", "♥", 7), ("bombarda", "♥", 10), "expelliarmus", "legilimens"]},
                  options={"crypto": crypto}, mode="protocol")
    st = sc.state
    sc.decide()
    reds = [sc.slot(0, "geminio"), sc.slot(0, "bombarda")]
    for s in [s for s in st.hands[0] if s not in reds]:
        sc.open(s)
        st.to_discard(s)
    pile = len(st.discard)
    st.push(ReshuffleTask())
    sc.step()
    fresh = st.deck[-pile:]
    st.deck[:] = fresh + [s for s in st.deck if s not in fresh]
    st.push(DrawTask(0, 3))
    sc.step()
    for r in reds:
        st.seen[r] = [0, 2]
    assert remask_groups(st, 0) == [reds] and len(st.hands[0]) == 5  # only the known pair would be mixed
    st.hp[0] = 1
    st.push(DamageTask(-1, 0, 1, "walnut"))
    for _ in range(30):
        d = sc.decide()
        if d.prompt == "skill:rescue":
            break
        sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    events = len(sc.table.peers[0].events)
    sc.act(2, {"type": "invoke", "slot": reds[0]}, "skill:rescue")
    sc.step()
    kinds = [type(e.step).__name__ for e in sc.table.peers[0].events[events:]]
    assert "Reshuffle" not in kinds, kinds  # no re-mask whose groups she could choose between
    assert "Randomness" in kinds and kinds.index("Randomness") < kinds.index("Reveal"), kinds
