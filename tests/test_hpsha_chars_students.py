"""Harry Potter Sha: the students' skills (罗恩, 纳威, 金妮, 弗雷德&乔治, 克拉布&高尔, 卢娜) and their rulings.

One scenario per skill and per ※ ruling; each runs twice (the ``mode`` fixture): on a trusted
local dealer and through the real protocol (in-memory peers, stacked decks, clean audits).
The other seats are staff characters whose skills ask nothing outside their own play phase
(斯内普, 海格, 麦格), so the scripts only see the decisions under test.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from p2php.engine.contract import IllegalAction, Knowledge
from p2php.games.hpsha.data import CARDS, CHARACTERS
from p2php.games.hpsha.moves import DrawTask
from p2php.testing.hpsha import Scenario

MINE = {"ron", "neville", "ginny", "fred_george", "crabbe_goyle", "luna"}


pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def table(first: str, **kw: object) -> Scenario:
    """Seat 0 ``first`` (the minister, 4 players: no extra HP), then 斯内普, 海格, 麦格."""
    return Scenario([first, "snape", "hagrid", "mcgonagall"], **kw)  # type: ignore[arg-type]


def keep_only(sc: Scenario, seat: int, keep: Sequence[int]) -> None:
    """Test-only: discard (face up) every hand card of ``seat`` but ``keep``."""
    for s in list(sc.state.hands[seat]):
        if s not in keep:
            sc.open(s)
            sc.state.to_discard(s)


def pass_window(sc: Scenario, prompt: str, seats: Sequence[int] = (0, 1, 2, 3)) -> None:
    for s in seats:
        sc.pass_(s, prompt)


def run_until(sc: Scenario, seat: int, prompt: str) -> list[tuple[tuple[int, ...], str]]:
    """Answer every decision with the default (pass, end, first legal) until ``seat`` is asked
    ``prompt``; return the decisions seen on the way."""
    seen: list[tuple[tuple[int, ...], str]] = []
    for _ in range(300):
        d = sc.decide()
        if d.seats == (seat,) and d.prompt == prompt:
            return seen
        seen.append((d.seats, d.prompt))
        sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    raise AssertionError(f"seat {seat} was never asked {prompt}")


def turn_order(sc: Scenario, turns: int) -> list[int]:
    """Play on (ending every play phase at once) and list whose play phase comes, ``turns`` times."""
    out: list[int] = []
    for _ in range(turns):
        while True:
            d = sc.decide()
            if d.prompt == "play":
                break
            sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
        out.append(d.seats[0])
        sc.end(d.seats[0])
    return out


def test_the_students_are_no_longer_stand_ins() -> None:
    for c in CHARACTERS:
        if c.key in MINE:
            assert c.skilled and "stand-in" not in c.label
    sc = Scenario(["crabbe_goyle", "snape", "hagrid", "mcgonagall", "ron"])
    assert sc.state.max_hp[0] == 4  # 3, and 4 as minister (贪吃's own words; with 5+ players)


# ----------------------------------------------------------------------------- 罗恩 Ron Weasley


def test_ron_chess_mastery_discards_the_last_card_and_moves_a_field_card() -> None:
    sc = table("ron", hands={0: ["bombarda"], 1: ["bind"], 2: ["holly"], 3: ["oak"]})
    st = sc.state
    sc.decide()
    holly, _oak = sc.force_equip(2, "holly"), sc.force_equip(3, "oak")
    bind = sc.force_judge(1, "bind", 1)
    assert not [a for a in sc.legal(0) if a["type"] == "skill" and a["skill"] == "chess_mastery"]  # 6 cards
    last = sc.slot(0, "bombarda")
    keep_only(sc, 0, [last])
    act = {"type": "skill", "skill": "chess_mastery", "slots": [last], "targets": []}
    assert act in sc.legal(0)
    sc.act(0, act, "play")
    assert last in st.discard and st.pub[last] == sc.table.faces[last]
    moves = sc.legal(0)
    # ※ one card of a class per area: the 冬青木 cannot go where a weapon already is
    assert {"type": "move", "slot": holly, "to": 0} in moves and {"type": "move", "slot": holly, "to": 1} in moves
    assert {"type": "move", "slot": holly, "to": 3} not in moves
    assert {"type": "move", "slot": bind, "to": 2} in moves and {"type": "move", "slot": bind, "to": 1} not in moves
    sc.act(0, {"type": "move", "slot": holly, "to": 0}, "skill:chess_mastery")
    assert st.weapon(0) == "holly" and st.weapon(2) is None and st.attack_range(0) == 3
    assert sc.prompt() == ((0,), "play")


def test_ron_chess_mastery_again_when_he_gets_new_cards() -> None:
    sc = table("ron", hands={1: ["bind"]}, deck=["*", "*", "geminio"])
    st = sc.state
    sc.decide()
    sc.force_judge(1, "bind", 1)
    keep_only(sc, 0, st.hands[0][:1])
    sc.act(0, {"type": "skill", "skill": "chess_mastery", "slots": list(st.hands[0]), "targets": []}, "play")
    sc.pass_(0, "skill:chess_mastery")  # he may decline the move
    assert not st.hands[0] and st.judge[1]
    st.push(DrawTask(0, 1))  # test-only: "a new source of hand cards" (※)
    offers = [a for a in sc.legal(0) if a["type"] == "skill"]
    assert offers == [{"type": "skill", "skill": "chess_mastery", "slots": list(st.hands[0]), "targets": []}]
    sc.act(0, offers[0], "play")
    bind = st.judge[1][0][0]
    sc.act(0, {"type": "move", "slot": bind, "to": 3}, "skill:chess_mastery")
    assert st.has_judge(3, "bind") and not st.judge[1]


def test_ron_chess_mastery_cannot_move_a_homemakers_equipment() -> None:
    sc = Scenario(["ron", "molly", "hagrid", "mcgonagall"], hands={1: ["holly", "bind"]})
    st = sc.state
    sc.decide()
    holly = sc.force_equip(1, "holly")
    bind = sc.force_judge(1, "bind", 1)  # her judgement area is not protected (no one owns it)
    keep_only(sc, 0, st.hands[0][:1])
    sc.act(0, {"type": "skill", "skill": "chess_mastery", "slots": list(st.hands[0]), "targets": []}, "play")
    moved = {a["slot"] for a in sc.legal(0) if a["type"] == "move"}
    assert holly not in moved and bind in moved


def test_ron_quick_wit_draws_his_hp_with_no_hand_cards() -> None:
    sc = table("ron")
    st = sc.state
    sc.decide()
    keep_only(sc, 0, st.hands[0][:1])
    sc.act(0, {"type": "skill", "skill": "chess_mastery", "slots": list(st.hands[0]), "targets": []}, "play")
    st.hp[0] = 3
    sc.end(0)
    assert sc.prompt() == ((0,), "skill:quick_wit")
    sc.act(0, {"type": "invoke"})
    sc.step()
    assert len(st.hands[0]) == 3


def test_ron_quick_wit_not_with_hand_cards() -> None:
    sc = table("ron")
    sc.end(0)
    assert ((0,), "skill:quick_wit") not in run_until(sc, 1, "play")


# ----------------------------------------------------------------------------- 纳威 Neville Longbottom


def courage(sc: Scenario, target: int, mine: int, theirs: int) -> None:
    """Neville (seat 0) skips his play phase to 拼点 ``target`` with the cards ``mine`` / ``theirs``."""
    sc.act(0, {"type": "invoke", "target": target}, "skill:courage")
    d = sc.decide()
    assert d.seats == (0, target) and d.prompt == "point_duel" and d.sealed  # both pick at once
    assert sc.state.reveals(0, {"type": "duel", "slot": mine}) == ()  # face down until both picked
    sc.table.act([(0, {"type": "duel", "slot": mine}), (target, {"type": "duel", "slot": theirs})])
    sc.step()  # both cards are opened together


def test_neville_courage_won_obtains_both_cards_and_skips_the_discard_phase() -> None:
    sc = table("neville", hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♣", 1)]})
    st = sc.state
    st.hp[0] = 1
    assert sc.prompt() == ((0,), "skill:courage")
    offers = [a for a in sc.legal(0) if a["type"] == "invoke"]
    assert offers == [{"type": "invoke", "target": t} for t in (1, 2, 3)]
    k, two = sc.slot(0, "stupefy"), sc.slot(1, "crucio")
    courage(sc, 1, k, two)
    assert k in st.hands[0] and two in st.hands[0] and len(st.hands[0]) == 7
    sc.pass_until(1, "play")  # no play phase, no discard phase (7 cards, HP 1)
    assert len(st.hands[0]) == 7 and not st.face_down[0]
    assert "skips the play phase" in sc.log() and "skips the discard phase" in sc.log()


def test_neville_courage_lost_flips_him() -> None:
    sc = table("neville", hands={0: [("bombarda", "♠", 7)], 2: [("bombarda", "♣", 7)]})
    st = sc.state
    courage(sc, 2, sc.slot(0, "bombarda"), sc.slot(2, "bombarda"))  # a tie: the initiator does not win
    assert st.face_down[0] and len(st.hands[0]) == 7
    for _ in range(3):  # he still has his discard phase (7 cards, HP 4) ...
        sc.act(0, {"type": "discard", "slots": [st.hands[0][0]]}, "discard")
    assert turn_order(sc, 4) == [1, 2, 3, 1]  # ... and loses his next turn


def test_neville_forgetfulness_extra_play_phase_after_his_next_turn() -> None:
    sc = table("neville", hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♣", 1)]})
    st = sc.state
    courage(sc, 1, sc.slot(0, "stupefy"), sc.slot(1, "crucio"))
    assert turn_order(sc, 3) == [1, 2, 3]  # a marker gained this turn is not spent this turn
    assert st.flags[0]["fg"] == 1
    run_until(sc, 0, "skill:courage")
    sc.pass_(0)
    sc.end(0)
    run_until(sc, 0, "skill:forgetfulness")  # ※ right after this turn (his discard phase is over)
    sc.act(0, {"type": "invoke"})
    assert sc.prompt() == ((0,), "play") and st.current == 0  # the extra play phase: 勇气 cannot use it
    assert "extra play phase" in sc.log()
    sc.end(0)
    assert turn_order(sc, 3) == [1, 2, 3]
    run_until(sc, 0, "skill:courage")
    sc.pass_(0)
    sc.end(0)
    assert ((0,), "skill:forgetfulness") not in run_until(sc, 1, "play")  # the marker was spent


def test_neville_forgetfulness_may_be_given_up() -> None:
    sc = table("neville", hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♣", 1)]})
    st = sc.state
    courage(sc, 1, sc.slot(0, "stupefy"), sc.slot(1, "crucio"))
    turn_order(sc, 3)
    run_until(sc, 0, "skill:courage")
    sc.pass_(0)
    sc.end(0)
    run_until(sc, 0, "skill:forgetfulness")
    sc.pass_(0)  # ※ choosing not to: the chance is given up
    assert turn_order(sc, 3) == [1, 2, 3]
    run_until(sc, 0, "skill:courage")
    sc.pass_(0)
    sc.end(0)
    assert ((0,), "skill:forgetfulness") not in run_until(sc, 1, "play") and st.flags[0]["fg"] == 0


def test_neville_a_flip_is_not_a_skipped_play_phase() -> None:
    sc = table("neville", hands={0: [("crucio", "♣", 1)], 1: [("bombarda", "♣", 9)]})
    st = sc.state
    courage(sc, 1, sc.slot(0, "crucio"), sc.slot(1, "bombarda"))  # lost: marker + flipped
    run_until(sc, 1, "play")
    assert st.face_down[0] and st.flags[0]["fg"] == 1
    assert turn_order(sc, 4) == [1, 2, 3, 1]  # the lost turn neither adds nor spends a marker
    assert st.flags[0]["fg"] == 1 and not st.face_down[0]
    turn_order(sc, 2)
    run_until(sc, 0, "skill:courage")
    sc.pass_(0)
    sc.end(0)
    run_until(sc, 0, "skill:forgetfulness")  # the marker is spent at his next real turn


def test_neville_bind_skips_the_play_phase_no_courage_but_a_marker() -> None:
    sc = table("neville", hands={1: ["bind"]}, deck=["*"] * 8 + [("bombarda", "♠", 9)])
    st = sc.state
    sc.pass_(0, "skill:courage")
    sc.end(0)
    run_until(sc, 1, "play")
    sc.use(1, "bind", [0])
    sc.end(1)
    assert turn_order(sc, 2) == [2, 3]
    run_until(sc, 0, "respond:counter")
    pass_window(sc, "respond:counter", (0, 1, 2, 3))  # the 统统石化 is judged: ♠9, not a heart
    assert sc.prompt() == ((0,), "discard") and "统统石化: seat 0" in sc.log()  # ※ no right to act: no 勇气
    run_until(sc, 1, "play")
    assert st.flags[0]["fg"] == 1


# ----------------------------------------------------------------------------- 金妮 Ginny Weasley


def test_ginny_bashfulness_takes_back_a_dodged_bombarda() -> None:
    sc = table("ginny", hands={0: ["bombarda"], 1: ["apparate"]})
    st = sc.state
    b = sc.slot(0, "bombarda")
    sc.use(0, "bombarda", [1])
    sc.give(1, "apparate", "respond:bombarda")
    sc.act(0, {"type": "invoke"}, "skill:bashfulness")
    assert b in st.hands[0] and b not in st.discard
    assert sc.prompt() == ((0,), "play")


def test_ginny_bashfulness_when_armour_stopped_the_damage() -> None:
    sc = Scenario(["ginny", "harry", "hagrid", "mcgonagall"], hands={0: ["bombarda"], 1: ["hat"]})
    st = sc.state
    sc.decide()
    sc.force_equip(1, "hat")  # 分院帽: a Gryffindor source outside the wearer's turn cannot damage him
    b = sc.slot(0, "bombarda")
    sc.use(0, "bombarda", [1])
    run_until(sc, 0, "skill:bashfulness")
    assert st.hp[1] == 4 and "Sorting Hat" in sc.log()
    sc.act(0, {"type": "invoke"})
    assert b in st.hands[0]


def test_ginny_no_bashfulness_when_the_bombarda_hits() -> None:
    sc = table("ginny", hands={0: ["bombarda"]})
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 2 and sc.prompt() == ((0,), "play")


def test_ginny_quill_card_cannot_be_taken_back() -> None:
    sc = table("ginny", hands={0: ["quill", "geminio"]})
    st = sc.state
    sc.decide()
    sc.force_equip(0, "quill")
    g = sc.slot(0, "geminio")
    sc.act(0, {"type": "quill", "slot": g, "targets": [1]}, "play")
    sc.choose(1, "spell", "quill_guess")  # right: the card is void — "ultimately no damage" ...
    assert sc.prompt() == ((0,), "play")  # ... but nothing was used *as* a 爆破咒: no 羞赧 (※)
    assert g in st.discard


def test_ginny_bat_bogey_hex_covers_an_area_until_her_next_turn() -> None:
    sc = table("ginny", hands={0: [("bombarda", "♠", 8), ("bombarda", "♠", 9)], 1: ["maple", "holly", "bombarda"]})
    st = sc.state
    sc.decide()
    maple = sc.force_equip(1, "maple")
    spade = sc.slot(0, "bombarda")
    offers = [a for a in sc.legal(0) if a["type"] == "skill" and a["skill"] == "bat_bogey_hex"]
    assert {"type": "skill", "skill": "bat_bogey_hex", "slots": [spade], "targets": [1]} in offers
    assert all(CARDS[sc.table.faces[a["slots"][0]]].suit == "♠" for a in offers)
    sc.act(0, {"type": "skill", "skill": "bat_bogey_hex", "slots": [spade], "targets": [1]}, "play")
    sc.choose(0, "weapon", "skill:bat_bogey_hex")
    assert st.weapon(1) is None and st.attack_range(1) == 1 and maple not in st.equip[1].values()
    assert st.locate(maple) is None and st.locate(spade) is None  # out of the game, no owner
    assert not [a for a in sc.legal(0) if a["type"] == "skill" and a["skill"] == "bat_bogey_hex"]  # once
    sc.end(0)
    run_until(sc, 1, "play")
    assert not [a for a in sc.legal(1) if a.get("kind") == "holly"]  # nothing can be equipped there
    sc.end(1)
    run_until(sc, 0, "play")  # her next turn starts: the spade to the discard pile, the wand back
    assert st.equip[1].get("weapon") == maple and spade in st.discard
    assert "covered:weapon" not in st.flags[1]


def test_ginny_bat_bogey_hex_ends_when_she_dies() -> None:
    sc = table("ginny", hands={0: [("bombarda", "♠", 8)], 1: ["hat"]})
    st = sc.state
    sc.decide()
    hat = sc.force_equip(1, "hat")
    spade = sc.slot(0, "bombarda")
    sc.act(0, {"type": "skill", "skill": "bat_bogey_hex", "slots": [spade], "targets": [1]}, "play")
    sc.choose(0, "armour", "skill:bat_bogey_hex")
    assert st.armour(1) is None
    st.kill(0)  # test-only
    assert st.armour(1) == "hat" and st.equip[1]["armour"] == hat and spade in st.discard


# ----------------------------------------------------------------------------- 弗雷德&乔治 Fred & George


def test_fred_george_skip_class_discards_before_drawing() -> None:
    sc = table("fred_george", deck=["tears", "apparate"])
    st = sc.state
    st.hp[0] = 2
    assert sc.prompt() == ((0,), "skill:skip_class")
    sc.act(0, {"type": "invoke"})
    for _ in range(2):  # 4 cards, limit 2, before drawing
        sc.act(0, {"type": "discard", "slots": [st.hands[0][0]]}, "discard")
    assert sc.prompt() == ((0,), "play") and len(st.hands[0]) == 4  # then the draw phase
    assert {"tears", "apparate"} <= set(sc.hand_kinds(0))
    sc.end(0)
    run_until(sc, 1, "play")  # the discard phase was moved, not added
    assert len(st.hands[0]) == 4 and "skips the discard phase" in sc.log()


def test_fred_george_mischief_diamond_as_bind_heart_as_reparo_each_once_per_phase() -> None:
    sc = table("fred_george", hands={0: [("bombarda", "♦", 6), ("bombarda", "♦", 7), ("tears", "♥", 3),
                                         ("tears", "♥", 4)]})
    st = sc.state
    st.hp[1] = 2
    sc.pass_(0, "skill:skip_class")
    legal = sc.legal(0)
    d6 = sc.slot(0, "bombarda")
    bind = {"type": "skill", "skill": "mischief", "kind": "bind", "slots": [d6], "targets": [2]}
    assert bind in legal
    assert all(CARDS[sc.table.faces[a["slots"][0]]].suit == "♦" for a in legal if a.get("kind") == "bind")
    sc.act(0, bind, "play")
    assert st.has_judge(2, "bind") and CARDS[st.pub[d6]].kind == "bombarda"
    legal = sc.legal(0)
    assert not [a for a in legal if a.get("skill") == "mischief" and a["kind"] == "bind"]  # ※ once each
    h3 = sc.slot(0, "tears")
    reparo = {"type": "skill", "skill": "mischief", "kind": "reparo", "slots": [h3], "targets": [1]}
    assert reparo in legal
    bad = {"type": "skill", "skill": "mischief", "kind": "reparo", "slots": [sc.slot(0, "bombarda")], "targets": [1]}
    with pytest.raises(IllegalAction):
        st.check(0, bad, sc.table.knowledge(0))
    sc.act(0, reparo, "play")
    pass_window(sc, "respond:counter")
    sc.choose(1, "recover", "reparo")
    assert st.hp[1] == 3
    assert not [a for a in sc.legal(0) if a.get("skill") == "mischief"]


# ----------------------------------------------------------------------------- 克拉布&高尔 Crabbe & Goyle


def cg5(**kw: object) -> Scenario:
    """克拉布&高尔 as the minister of five: max HP 4, so the four starting cards allow 贪吃."""
    return Scenario(["crabbe_goyle", "snape", "hagrid", "mcgonagall", "bellatrix"], **kw)  # type: ignore[arg-type]


def test_crabbe_goyle_tag_along_everyone_within_distance_one_draws() -> None:
    sc = cg5()
    st = sc.state
    sc.pass_(0, "skill:gluttony")
    sc.end(0)
    while len(st.hands[0]) > st.hand_limit(0):
        sc.act(0, {"type": "discard", "slots": [st.hands[0][0]]}, "discard")
    before = [len(h) for h in st.hands]
    run_until(sc, 1, "play")
    after = [len(h) for h in st.hands]
    # themselves (distance 0) and both neighbours; seats 2 and 3 are 2 away; seat 1 then draws 2 more
    assert [a - b for a, b in zip(after, before, strict=True)] == [1, 3, 0, 0, 1]
    assert "尾随" in sc.log()


def test_crabbe_goyle_gluttony_takes_a_shared_suit_and_skips_drawing() -> None:
    deck = [("bombarda", "♥", 10), ("apparate", "♦", 2), ("tears", "♥", 3), ("bombarda", "♣", 2), "geminio"]
    sc = cg5(deck=deck)
    st = sc.state
    assert sc.prompt() == ((0,), "skill:gluttony")
    top = st.deck[:4]
    sc.act(0, {"type": "invoke"})
    sc.decide()
    assert all(s in sc.table.private[0] for s in top) and not any(s in sc.table.public for s in top)
    order = [top[3], top[1], top[0], top[2]]
    sc.act(0, {"type": "arrange", "order": order}, "arrange_top")
    hearts = [top[0], top[2]]
    legal = sc.legal(0)
    assert legal == [{"type": "pass"}, {"type": "take", "slots": hearts}]
    with pytest.raises(IllegalAction):  # the audit (who knows every face) refuses a mixed pair
        st.check(0, {"type": "take", "slots": [top[0], top[1]]}, Knowledge(dict(sc.table.faces)))
    sc.act(0, {"type": "take", "slots": hearts}, "skill:gluttony")
    assert all(s in st.hands[0] and s in st.pub for s in hearts)  # shown and obtained
    assert sc.prompt() == ((0,), "play") and len(st.hands[0]) == 6  # 6 > max HP 4: no drawing
    assert st.deck[:2] == [top[3], top[1]]  # the rest stay on top in the arranged order


def test_crabbe_goyle_gluttony_may_decline_and_draw_normally() -> None:
    deck = [("bombarda", "♥", 10), ("tears", "♥", 3), "geminio", "geminio"]
    sc = cg5(deck=deck)
    st = sc.state
    top = st.deck[:4]
    sc.act(0, {"type": "invoke"}, "skill:gluttony")
    sc.act(0, {"type": "arrange", "order": top}, "arrange_top")
    sc.act(0, {"type": "pass"}, "skill:gluttony")  # ※ shared suits, but he may not take them
    assert sc.prompt() == ((0,), "play") and set(top[:2]) <= set(st.hands[0]) and len(st.hands[0]) == 6


def test_crabbe_goyle_gluttony_two_pairs_may_be_taken_together() -> None:
    deck = [("bombarda", "♥", 10), ("bombarda", "♣", 2), ("tears", "♥", 3), ("bombarda", "♣", 3)]
    sc = cg5(deck=deck)
    st = sc.state
    top = st.deck[:4]
    sc.act(0, {"type": "invoke"}, "skill:gluttony")
    sc.act(0, {"type": "arrange", "order": top}, "arrange_top")
    legal = sc.legal(0)
    assert {"type": "take", "slots": top} in legal  # ※ two suits with two each: all four
    assert {"type": "take", "slots": [top[0], top[2]]} in legal and {"type": "take", "slots": [top[1], top[3]]} in legal
    sc.act(0, {"type": "take", "slots": top}, "skill:gluttony")
    assert sc.prompt() == ((0,), "play") and len(st.hands[0]) == 8 and "skips drawing" in sc.log()


def test_crabbe_goyle_gluttony_needs_a_hand_no_larger_than_max_hp() -> None:
    sc = table("crabbe_goyle")
    assert sc.prompt() == ((0,), "play")  # 4 cards > max HP 3: not offered


# ----------------------------------------------------------------------------- 卢娜 Luna Lovegood


def luna5(**kw: object) -> Scenario:
    return Scenario(["luna", "snape", "hagrid", "mcgonagall", "bellatrix"], **kw)  # type: ignore[arg-type]


def contrarian(sc: Scenario, b: int, a: int) -> None:
    """Luna (seat 0) ends her play phase and in her end phase swaps ``b`` (earlier) and ``a``."""
    st = sc.state
    sc.end(0)
    while sc.prompt() == ((0,), "discard"):
        sc.act(0, {"type": "discard", "slots": [st.hands[0][0]]})
    offers = [x for x in sc.legal(0) if x["type"] == "invoke"]
    assert len(offers) == 6 and {"type": "invoke", "targets": [b, a]} in offers
    sc.act(0, {"type": "invoke", "targets": [b, a]}, "skill:contrarian")
    card = st.hands[0][0]
    sc.act(0, {"type": "card", "slots": [card]}, "skill:contrarian")
    assert card in st.discard


def test_luna_contrarian_swaps_the_next_turns_of_two_others() -> None:
    sc = luna5()
    contrarian(sc, 1, 3)
    assert turn_order(sc, 5) == [3, 1, 2, 4, 0]  # 3 early, then 1; 3's own place is skipped
    assert "ct_st" not in sc.state.flags[0]


def test_luna_contrarian_with_marker_b_flipped() -> None:
    sc = luna5()
    sc.decide()
    sc.state.face_down[1] = True  # test-only
    contrarian(sc, 1, 3)
    assert turn_order(sc, 4) == [3, 2, 4, 0]  # A first, then B turns face up and skips (※)
    assert not sc.state.face_down[1]


def test_luna_contrarian_with_marker_a_flipped() -> None:
    sc = luna5()
    sc.decide()
    sc.state.face_down[3] = True  # test-only
    contrarian(sc, 1, 3)
    assert turn_order(sc, 4) == [1, 2, 4, 0]  # A turns face up and skips at B's place, then B (※)
    assert not sc.state.face_down[3]


def test_luna_contrarian_ends_when_a_designated_character_dies() -> None:
    sc = luna5()
    contrarian(sc, 2, 4)
    assert sc.prompt() == ((1,), "play")
    sc.state.kill(4)  # test-only: A dies before the swap
    assert turn_order(sc, 3) == [1, 2, 3]
    assert "反调 ends" in sc.log() and "ct_st" not in sc.state.flags[0]


def test_luna_nargles_after_replacing_equipment_several_times() -> None:
    sc = Scenario(["luna", "snape", "hagrid", "mcgonagall"],
                  hands={0: ["vine", "walnut", "oak"]}, deck=["*", "*", "tears", "apparate", "geminio"])
    st = sc.state
    sc.use(0, "vine")  # into an empty slot: not a replacement
    assert sc.prompt() == ((0,), "play")
    sc.use(0, "walnut")
    offers = [a for a in sc.legal(0) if a["type"] == "invoke"]
    assert {a["slot"] for a in offers} == set(st.hands[0])
    oak = sc.slot(0, "oak")
    first, second = [s for s in st.hands[0] if s != oak][:2]
    sc.act(0, {"type": "invoke", "slot": first}, "skill:nargles")
    sc.act(0, {"type": "discard", "slots": [second]}, "nargles_more")
    n = len(st.hands[0])
    sc.pass_(0, "nargles_more")
    sc.decide()
    assert len(st.hands[0]) == n + 2 and {"tears", "apparate"} <= set(sc.hand_kinds(0))
    sc.use(0, "oak")
    sc.pass_(0, "skill:nargles")  # ※ again on the next replacement
    assert st.weapon(0) == "oak"


def test_a_point_duel_pick_stays_hidden_until_both_have_picked(mode: str) -> None:
    """拼点 is a simultaneous face-down choice: sealed, so the target cannot wait for Neville's signed pick. Here
    it would have told it the card: both cards of his first 勇气 went into his hand face up (rt3: unsealed, the
    target read slot and face off his action and tied his K)."""
    sc = table("neville", hands={0: [("stupefy", "♠", 13)], 1: [("crucio", "♣", 1), ("bombarda", "♦", 13)]})
    st = sc.state
    k = sc.slot(0, "stupefy")
    courage(sc, 1, k, sc.slot(1, "crucio"))
    assert k in st.hands[0] and k in st.pub  # a known card in his hand
    run_until(sc, 0, "skill:courage")
    sc.act(0, {"type": "invoke", "target": 1}, "skill:courage")
    assert sc.decide().sealed
    if mode != "protocol":
        return
    peers = sc.table.peers
    peers[0].act({"type": "duel", "slot": k})
    sc.table._pump(None)
    assert peers[1].awaiting_me()
    held = [m for m in peers[1].inbox[0] if m.at[0] == peers[1].tick]
    assert [m.kind for m in held] == ["commit"], held  # no slot, no key: nothing to read before its own pick
    peers[1].act({"type": "duel", "slot": sc.slot(1, "bombarda")})
    sc.table._pump(None)
    sc.step()
    assert st.face_down[0]  # a tie: the initiator does not win
