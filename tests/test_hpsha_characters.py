"""Harry Potter Sha: characters, their skills and rulings (every character's skills are implemented)."""

from __future__ import annotations

import pytest

from p2php.games.hpsha.data import CHARACTERS, MINISTER
from p2php.testing.hpsha import Scenario

pytestmark = pytest.mark.usefixtures("mode")  # each test: engine, then protocol (p2php.testing.plugin)


def pass_window(sc: Scenario, prompt: str, seats: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    for s in seats:
        sc.pass_(s, prompt)


def test_every_character_has_its_skills_and_none_is_labelled_a_stand_in() -> None:
    assert all(c.skilled for c in CHARACTERS) and len(CHARACTERS) == 25
    assert not any("stand-in" in c.label for c in CHARACTERS)


# ----------------------------------------------------------------------------- Harry Potter


def test_harry_stroke_of_luck_damage_at_most_once_per_turn() -> None:
    sc = Scenario(["ron", "harry", "voldemort", "luna"],
                  hands={0: ["walnut", "bombarda", "bombarda", "bombarda"]})
    st = sc.state
    sc.use(0, "walnut")
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 3
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    # no 呼神护卫 window: the locked skill already stops it; then the walnut backlash (its window)
    pass_window(sc, "respond:patronus")
    assert st.hp[1] == 3 and st.hp[0] == 3
    assert "cannot take more damage this turn" in sc.log()


def test_harry_natural_flyer_distances_inside_and_outside_his_turn() -> None:
    chars = ["harry", "snape", "voldemort", "luna", "sirius", "molly"]
    sc = Scenario(chars, hands={0: ["bombarda"]})
    st = sc.state
    assert sc.prompt() == ((0,), "skill:natural_flyer")
    targets = [a["target"] for a in sc.legal(0) if a["type"] == "invoke"]
    assert targets == [1, 2, 3, 4, 5]
    sc.act(0, {"type": "invoke", "target": 3})
    sc.prompt()
    # in his turn: his distance to X is seat 3's distance to X
    assert [st.distance(0, x) for x in range(1, 6)] == [2, 1, 1, 1, 2]
    assert st.distance(0, 3) == 1
    assert {a["targets"][0] for a in sc.legal(0) if a.get("kind") == "bombarda"} == {2, 3, 4}
    sc.end(0)
    sc.pass_until(1, "play")
    # outside his turn: X's distance to him is X's distance to seat 3
    assert st.distance(1, 0) == 2 and st.distance(4, 0) == 1 and st.distance(3, 0) == 1


def test_harry_flyer_marker_goes_when_the_designated_character_dies() -> None:
    sc = Scenario(["harry", "snape", "voldemort", "luna"])
    st = sc.state
    sc.act(0, {"type": "invoke", "target": 2}, "skill:natural_flyer")
    assert st.flags[0]["flyer"] == 2
    st.kill(2)
    assert "flyer" not in st.flags[0]


# ----------------------------------------------------------------------------- Hermione Granger


def test_hermione_brilliance_draws_before_an_instant_spell_resolves() -> None:
    sc = Scenario(["hermione", "snape", "voldemort", "luna"], hands={0: ["geminio", "counter"]})
    st = sc.state
    n = len(st.hands[0])
    sc.use(0, "geminio")
    sc.act(0, {"type": "invoke"}, "skill:brilliance")
    sc.prompt()
    assert len(st.hands[0]) == n  # −1 used, +1 drawn, before the 咒立停 window
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play") and len(st.hands[0]) == n + 2


def test_hermione_rescue_shows_a_red_card_heals_and_she_obtains_it_after_dying() -> None:
    sc = Scenario(["ron", "hermione", "voldemort", "luna"], hands={0: ["bombarda"], 3: ["tears"]})
    st = sc.state
    st.hp[3] = 1
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    tears = sc.slot(3, "tears")
    offers = [a for a in sc.legal(1) if a["type"] == "invoke"]
    assert {a["slot"] for a in offers} == set(st.hands[3])  # a blind pick among her hand
    sc.act(1, {"type": "invoke", "slot": tears}, "skill:rescue")
    sc.prompt()
    assert st.hp[3] == 1 and st.alive[3]  # red: she recovers 1 → out of the dying state
    assert tears in st.hands[1] and tears in st.pub


def test_hermione_still_gets_the_shown_card_when_it_was_used_to_save() -> None:
    sc = Scenario(["ron", "hermione", "voldemort", "luna"], hands={0: ["bombarda"], 3: ["tears", "bind"]})
    st = sc.state
    st.hp[3] = 1
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    st.hp[3] = -1  # test-only: deeper in the dying state
    tears = sc.slot(3, "tears")
    sc.act(1, {"type": "invoke", "slot": tears}, "skill:rescue")  # red: recovers 1 → HP 0, still dying
    for s in (0, 1, 2):
        sc.pass_(s, "respond:tears")
    sc.give(3, "tears", "respond:tears")  # the shown card itself saves her and goes to the discard pile
    sc.prompt()
    assert st.hp[3] == 1 and st.alive[3]
    assert tears in st.hands[1] and tears not in st.discard and tears not in st.set_aside


def test_hermione_obtains_the_shown_card_even_if_the_character_dies() -> None:
    sc = Scenario(["ron", "hermione", "voldemort", "luna"], hands={0: ["bombarda"], 3: ["bind"]})
    st = sc.state
    st.hp[3] = 1
    sc.use(0, "bombarda", [3])
    sc.pass_(3, "respond:bombarda")
    pass_window(sc, "respond:patronus")
    bind = sc.slot(3, "bind")
    sc.act(1, {"type": "invoke", "slot": bind}, "skill:rescue")  # black: no healing
    assert st.hp[3] == 0
    for s in (0, 1, 2, 3):
        sc.pass_(s, "respond:tears")
    sc.prompt()
    assert not st.alive[3] and bind in st.hands[1]


@pytest.mark.parametrize("crypto", ["fast", "verified"])
@pytest.mark.parametrize("seed", [1, 3])
def test_a_second_rescue_cannot_show_the_card_the_first_set_aside(crypto: str, seed: int) -> None:
    """Two 解危 at one dying: Tonks's 易容 copy first, then Hermione's. The card the first shows is set aside but
    stays in the hand list until the dying state ends; it was offered again, and 3daf63b's draw (a public face in
    the hand) took it: the one red card healed Neville twice, -1 to 1, in seeds 1 and 3 of 6, both decks (review of
    3daf63b). It is no longer offered nor drawn."""
    from p2php.games.hpsha.damage import DamageTask
    from p2php.games.hpsha.triggers import SKILLS_BY_CHARACTER

    sc = Scenario(["neville", "tonks", "hermione", "mcgonagall"],
                  hands={0: [("geminio", "♥", 7), ("stupefy", "♠", 13), ("crucio", "♣", 1)]},
                  options={"crypto": crypto}, seed=seed, mode="protocol")
    st = sc.state
    sc.decide()
    red = sc.slot(0, "geminio")
    herm = next(i for i, c in enumerate(CHARACTERS) if c.key == "hermione")
    pos = next(i for i, sk in enumerate(SKILLS_BY_CHARACTER["hermione"]) if sk.key == "rescue")
    st.flags[1]["borrowed"], st.flags[1]["disguise_seat"] = herm * 10 + pos, 2  # as DisguiseTask sets them
    st.characters_changed()
    st.hp[0] = 1
    st.push(DamageTask(-1, 0, 2, "walnut"))  # HP -1: dying
    rescues = 0
    for _ in range(40):
        d = sc.decide()
        if "rescue" in d.prompt:
            (seat,) = d.seats
            offers = [a["slot"] for a in sc.legal(seat) if a.get("type") == "invoke"]
            if rescues:
                assert red not in offers and red in st.hands[0]  # set aside, still in the list: not offered
            sc.table.act([(seat, {"type": "invoke", "slot": red if red in offers else offers[0]})])
            rescues += 1
            if rescues == 2:
                sc.step()
                break
        else:
            sc.table.act([(s, sc._default(s, d.prompt)) for s in d.seats])
    assert rescues == 2
    shown = [line for line in st.log if "解危" in line and "Geminio" in line and " shows " in line]
    assert len(shown) == 1, shown  # the red card was shown once: one recovery from it


# ----------------------------------------------------------------------------- Draco Malfoy


def test_draco_trickery_replaces_the_judgement_card_with_another_colour() -> None:
    sc = Scenario(["ron", "draco", "voldemort", "luna"], hands={0: ["bind"], 1: [("tears", "♥")]},
                  deck=["*", "*", ("bombarda", "♠", 8)])
    st = sc.state
    sc.use(0, "bind", [1])
    sc.end(0)
    sc.pass_until(1, "skill:trickery")
    tears = sc.slot(1, "tears")
    sc.give(1, "tears", "skill:trickery")
    assert st.pub[tears] and tears in st.discard  # played, becomes the judgement card, discarded
    assert sc.prompt() == ((1,), "play")  # a heart: not skipped
    assert "the judgement card is now 凤凰眼泪" in sc.log()


def test_draco_sneer_takes_the_cards_another_discarded() -> None:
    sc = Scenario(["ron", "draco", "voldemort", "luna"],
                  hands={0: [("bombarda", "♣", 3), ("bombarda", "♣", 4), ("bombarda", "♣", 5), ("bombarda", "♣", 7)],
                         1: [("tears", "♥", 3)]}, deck=[("bombarda", "♣", 8), ("bombarda", "♣", 9)])
    st = sc.state
    st.hp[0] = 1
    sc.end(0)
    for _ in range(5):
        sc.act(0, {"type": "discard", "slots": [st.hands[0][0]]}, "discard")
    discarded = list(st.discard[-5:])
    offers = [a for a in sc.legal(1) if a["type"] == "invoke"]
    assert {"type": "invoke", "slot": sc.slot(1, "tears")} in offers
    assert all(sc.table.faces[a["slot"]] not in range(13, 26) for a in offers)  # no club can be offered
    sc.act(1, {"type": "invoke", "slot": sc.slot(1, "tears")}, "skill:sneer")
    sc.prompt()
    assert all(s in st.hands[1] for s in discarded)


# ----------------------------------------------------------------------------- Remus Lupin


def test_lupin_two_red_cards_as_patronus() -> None:
    sc = Scenario(["ron", "lupin", "voldemort", "luna"],
                  hands={0: ["bombarda"], 1: [("tears", "♥"), ("apparate", "♦"), ("bombarda", "♠", 9)]})
    st = sc.state
    sc.use(0, "bombarda", [1])
    sc.pass_(1, "respond:bombarda")
    sc.pass_(0, "respond:patronus")
    pairs = [a for a in sc.legal(1) if a.get("skill") == "lupin_patronus"]
    red = [sc.slot(1, "tears"), sc.slot(1, "apparate")]
    assert {"type": "card", "slots": red, "skill": "lupin_patronus"} in pairs  # one heart + one diamond
    assert all(sc.slot(1, "bombarda") not in a["slots"] for a in pairs)
    sc.act(1, {"type": "card", "slots": red, "skill": "lupin_patronus"}, "respond:patronus")
    pass_window(sc, "respond:counter")
    assert sc.prompt() == ((0,), "play") and st.hp[1] == 4


def test_lupin_skips_discard_and_loses_hp_with_more_than_seven_cards() -> None:
    sc = Scenario(["lupin", "snape", "voldemort", "luna"], hands={0: ["geminio", "geminio"]})
    st = sc.state
    st.hp[0] = 1
    sc.use(0, "geminio", nth=0)
    pass_window(sc, "respond:counter")
    sc.use(0, "geminio", nth=0)
    pass_window(sc, "respond:counter")
    sc.prompt()
    assert len(st.hands[0]) == 8
    sc.end(0)
    # no discard phase; HP loss is not damage: no 呼神护卫 window, straight to dying
    assert sc.prompt() == ((0,), "respond:tears")
    assert "loses 1 HP" in sc.log() and "skips the discard phase" in sc.log()


# ----------------------------------------------------------------------------- Filius Flitwick


def test_flitwick_black_card_as_counter_and_his_spells_cannot_be_countered() -> None:
    sc = Scenario(["flitwick", "snape", "voldemort", "luna"],
                  hands={0: ["geminio", ("bombarda", "♠", 9)], 1: ["counter", "geminio"]})
    st = sc.state
    n = len(st.hands[0])
    sc.use(0, "geminio")
    assert sc.prompt() == ((0,), "play")  # no 咒立停 window at all
    assert len(st.hands[0]) == n + 1
    sc.end(0)
    sc.pass_until(1, "play")
    sc.use(1, "geminio")
    pass_window(sc, "respond:counter", (1, 2, 3))
    black = sc.slot(0, "bombarda")
    assert {"type": "card", "slots": [black], "skill": "charms"} in sc.legal(0)
    sc.act(0, {"type": "card", "slots": [black], "skill": "charms"}, "respond:counter")
    # his 咒立停 is an instant spell he uses: it cannot be countered either (seat 1 holds one)
    assert sc.prompt() == ((1,), "play") or sc.prompt()[1] == "play"
    assert "geminio" in sc.discard_kinds() and "cancelled" in sc.log()


def test_minister_hp_bonus_applies_to_skilled_characters_too() -> None:
    sc = Scenario(["lupin", "snape", "voldemort", "luna", "sirius"], roles=[MINISTER, "auror", "dark_wizard",
                                                                          "dark_wizard", "spy"])
    assert sc.state.max_hp[0] == 5
