"""Harry Potter Sha's magical-creature pack (§11, ``creatures.py``): the deck, the selection on each death,
each creature played so far, and the interactions issue 15 names (the Phoenix and 阿瓦达索命, the Thestral
and the −1 broom).  Each scenario runs in engine and protocol mode (the ``mode`` fixture).

Table: seat 0 罗恩 (minister), seat 1 斯内普 (dark wizard, next to the minister), seat 2 伏地魔 (auror),
seat 3 卢娜 (spy).  The minister kills seat 1 with a 爆破咒 in the first turn: he draws 2 (deck 0–1), the
dark-wizard bounty draws 3 (deck 2–4), then the top creature is turned over; its deck card is deck 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from p2php.engine.contract import OptionError
from p2php.engine.local import LocalTable
from p2php.games.hpsha import GAME
from p2php.games.hpsha.creature_data import CREATURES, PLAYED, creature_id
from p2php.games.hpsha.damage import LoseHpTask
from p2php.games.hpsha.data import AUROR, DARK, MINISTER, SPY
from p2php.testing.conformance import check_game
from p2php.testing.hpsha import CardSpec, Scenario

C4 = ["ron", "snape", "voldemort", "luna"]
ROLES = [MINISTER, DARK, AUROR, SPY]
DRAWN: list[CardSpec] = ["*"] * 5  # the minister's draw and the bounty


def sc4(creatures: list[str], deck: Sequence[CardSpec] = (), hands: dict[int, list[CardSpec]] | None = None
        ) -> Scenario:
    hands = {0: ["bombarda"]} if hands is None else hands
    return Scenario(C4, roles=ROLES, hands=hands, deck=deck, creatures=creatures)


def kill(sc: Scenario, victim: int, by: int) -> None:
    """``by``'s 爆破咒 into ``victim`` (at 1 HP); nobody dodges or saves."""
    sc.state.hp[victim] = 1
    sc.use(by, "bombarda", [victim])
    sc.pass_until(by, "play")


@pytest.mark.usefixtures("mode")
class TestDeck:
    def test_the_chosen_creatures_are_shown_and_dealt_face_down(self) -> None:
        sc = sc4(["basilisk", "unicorn"])
        st = sc.state
        assert st.cr["chosen"] == sorted([creature_id("basilisk"), creature_id("unicorn")])
        assert "magical creatures in play" in sc.log()
        assert len(st.cr["deck"]) == 2 and not any(s in st.pub for s in st.cr["deck"])

    def test_off_by_default_and_no_creature_state(self) -> None:
        sc = Scenario(C4, roles=ROLES)
        assert sc.state.creatures == 0 and "cr" not in sc.state.snapshot()

    def test_a_creature_that_does_not_stay_goes_back_reshuffled(self) -> None:
        sc = sc4(["merpeople", "basilisk"], DRAWN + [("bombarda", "♠", 8)])
        st = sc.state
        old = list(st.cr["deck"])
        kill(sc, 1, 0)
        assert "turns over the creature 人鱼 Merpeople" in sc.log()
        assert sorted(st.cr["pool"]) == st.cr["chosen"] and len(st.cr["deck"]) == 2
        assert not set(st.cr["deck"]) & set(old)  # fresh face-down slots: nobody knows the order
        assert not st.face_down[0]  # rank 8: nothing


@pytest.mark.usefixtures("mode")
class TestCreatures:
    def test_unicorn_spade_the_killer_loses_one_hp(self) -> None:
        sc = sc4(["unicorn"], DRAWN + [("bombarda", "♠", 8)])
        kill(sc, 1, 0)
        assert sc.state.hp[0] == 3  # 4 HP (no minister's +1 with 4 players), 1 lost
        assert "loses 1 HP" in sc.log()

    def test_unicorn_diamond_the_killer_draws_one(self) -> None:
        sc = sc4(["unicorn"], DRAWN + [("tears", "♦")])
        st = sc.state
        before = len(st.hands[0])
        kill(sc, 1, 0)
        assert len(st.hands[0]) == before - 1 + 3 + 1

    def test_unicorn_without_a_killer_is_void(self) -> None:
        sc = sc4(["unicorn"], ["*", "*"])
        st = sc.state
        st.hp[1] = 1
        st.push(LoseHpTask(1, 1, "test"))
        sc.pass_until(0, "play")
        assert not st.alive[1] and "the selection is void" in sc.log()
        assert st.cr["pool"] == [creature_id("unicorn")] and len(st.cr["deck"]) == 1

    def test_merpeople_low_rank_flips_the_executor(self) -> None:
        sc = sc4(["merpeople"], DRAWN + [("legilimens", "♠", 3)])
        kill(sc, 1, 0)
        assert sc.state.face_down[0]

    def test_basilisk_counts_its_rank_in_turn_order_from_the_executor(self) -> None:
        sc = sc4(["basilisk"], DRAWN + [("hat", "♠", 2)])
        st = sc.state
        kill(sc, 1, 0)  # living in turn order from seat 0: 0, 2, 3 — rank 2 is seat 2
        assert st.hp[2] == 3 and "gaze falls on seat 2" in sc.log()

    def test_in_its_own_turn_the_dead_characters_next_player_executes(self) -> None:
        sc = sc4(["merpeople"], ["*"] * 4 + [("legilimens", "♠", 3)], hands={})
        st = sc.state
        sc.end(0)
        sc.pass_until(1, "play")
        st.hp[1] = 1
        st.push(LoseHpTask(1, 1, "test"))  # seat 1 dies in its own turn: seat 2 turns the creature over
        sc.pass_until(2, "play")
        assert "seat 2" in next(line for line in sc.log().splitlines() if "turns over the creature" in line)
        assert "seat 2 伏地魔 is flipped face down" in sc.log()


@pytest.mark.usefixtures("mode")
class TestPhoenix:
    def test_lowest_hp_who_never_killed_gets_it_and_it_stops_the_killing_curse(self) -> None:
        avada = ("avada", "♠")
        sc = sc4(["phoenix"], DRAWN + ["*", "*", ("bombarda", "♠", 8)], hands={0: ["bombarda", avada]})
        st = sc.state
        kill(sc, 1, 0)  # seat 0 killed; seat 2 has 4 HP, seat 3 (卢娜) 3: seat 3 gets the phoenix
        assert st.flags[3].get("phoenix") and st.cr["out"] == [[creature_id("phoenix"), 3]]
        sc.force_judge(0, "avada", 3)
        sc.end(0)
        sc.pass_until(3, "play")  # seat 3's judgement: ♠8 — 阿瓦达索命 strikes, the phoenix shields her
        assert "strikes seat 3" in sc.log() and "phoenix shields seat 3" in sc.log()
        assert st.hp[3] == 3

    def test_a_tie_holds_a_rank_off_repeated_until_one_wins(self) -> None:
        deck = DRAWN + [("bombarda", "♠", 8), ("bombarda", "♠", 8), ("hat", "♠", 2), ("bombarda", "♠", 10)]
        sc = sc4(["phoenix"], deck)
        st = sc.state
        st.hp[2] = 3  # seats 2 and 3 both at 3 HP and neither killed anyone
        kill(sc, 1, 0)
        assert sc.log().count("比点 rank-off") == 2
        assert st.flags[3].get("phoenix") and not st.flags[2].get("phoenix")

    def test_it_returns_to_the_deck_when_its_holder_dies(self) -> None:
        sc = Scenario(C4 + ["sirius"], roles=[MINISTER, DARK, AUROR, SPY, DARK], hands={0: ["bombarda"]},
                      deck=DRAWN, creatures=["phoenix"])
        st = sc.state
        st.hp[4] = 4
        kill(sc, 1, 0)
        assert st.flags[3].get("phoenix")
        st.hp[3], st.hp[4] = 1, 2
        st.push(LoseHpTask(3, 1, "test"))
        sc.pass_until(0, "play")
        assert "return to the creatures" in sc.log() and not st.flags[3].get("phoenix")
        # it is turned over again: seat 0 has killed, seat 4 has the lowest HP of the others
        assert st.flags[4].get("phoenix") and st.cr["out"] == [[creature_id("phoenix"), 4]]


@pytest.mark.usefixtures("mode")
class TestThestral:
    def test_it_replaces_the_minus_one_broom_and_the_slot_takes_no_other(self) -> None:
        sc = sc4(["thestral"], hands={0: ["bombarda", "firebolt", "comet260", "nimbus2000"]})
        st = sc.state
        sc.force_equip(0, "firebolt")
        kill(sc, 1, 0)
        assert "minus" not in st.equip[0] and "firebolt" in sc.discard_kinds()
        assert st.flags[0].get("thestral")
        kinds = {a.get("kind") for a in sc.legal(0) if a.get("type") == "use"}
        assert "comet260" not in kinds and "nimbus2000" in kinds

    def test_distance_minus_two(self) -> None:
        chars = ["ron", "snape", "voldemort", "luna", "sirius", "hermione", "harry"]
        roles = [MINISTER, DARK, AUROR, SPY, DARK, AUROR, DARK]
        sc = Scenario(chars, roles=roles, hands={0: ["bombarda"]}, deck=DRAWN, creatures=["thestral"])
        st = sc.state
        kill(sc, 1, 0)  # living 0, 2, 3, 4, 5, 6: seat 4 is 3 away either way
        assert st.raw_distance(0, 4) == 3 and st.distance(0, 4) == 1 and st.distance(4, 0) == 3


@pytest.mark.usefixtures("mode")
class TestWerewolf:
    def test_the_executor_turns_into_the_werewolf_and_loses_its_skills(self) -> None:
        sc = sc4(["werewolf"], DRAWN)
        st = sc.state
        assert st.skills(0)
        kill(sc, 1, 0)
        assert st.flags[0].get("werewolf") and st.skills(0) == ()
        assert "keeps 狼人 Werewolf" in sc.log()

    def test_its_bombarda_also_bites_the_targets_next_player(self) -> None:
        sc = sc4(["werewolf"], hands={0: ["bombarda"]})
        st = sc.state
        st.flags[0]["werewolf"] = 1
        st.characters_changed()
        sc.use(0, "bombarda", [1])
        sc.pass_until(0, "play")
        assert st.hp[1] == 2 and st.hp[2] == 3  # seat 2 is seat 1's next player
        assert "bite also hurts seat 2" in sc.log()


@pytest.mark.usefixtures("mode")
class TestSalamander:
    def test_obtained_face_down_activated_at_the_holders_turn_then_heals_for_a_red_card(self) -> None:
        sc = sc4(["salamander"], DRAWN, hands={0: ["bombarda", ("tears", "♥")]})
        st = sc.state

        def offers(seat: int) -> list[dict[str, object]]:
            return [a for a in sc.legal(seat) if a.get("skill") == "salamander"]

        kill(sc, 1, 0)
        st.hp[0] = 2
        assert st.flags[0].get("salamander") == 1 and not st.cr.get("lit") and not offers(0)
        sc.end(0)
        sc.pass_until(0, "play")
        assert "turns face up: activated" in sc.log() and st.cr.get("lit")
        slot = sc.slot(0, "tears")
        sc.act(0, {"type": "skill", "skill": "salamander", "slots": [slot], "targets": [0]}, "play")
        sc.pass_until(0, "play")
        assert st.hp[0] == 3 and slot in st.discard and not offers(0)  # once per turn


@pytest.mark.usefixtures("mode")
class TestAcromantula:
    def test_it_goes_to_the_next_player_bites_on_a_spade_and_passes_on(self) -> None:
        sc = sc4(["acromantula"], DRAWN + [("bombarda", "♠", 8)])
        st = sc.state
        kill(sc, 1, 0)  # the current player is seat 0: its next living player, seat 2, gets it
        assert st.flags[2].get("acromantula") and st.cr["out"] == [[creature_id("acromantula"), 2]]
        sc.end(0)
        sc.pass_until(2, "play")
        assert st.hp[2] == 3  # its turn start: ♠ — 1 damage
        sc.end(2)
        sc.pass_until(3, "play")
        assert not st.flags[2].get("acromantula") and st.flags[3].get("acromantula")
        assert st.cr["out"] == [[creature_id("acromantula"), 3]]

    def test_its_holder_cannot_recover_and_is_not_saved_from_dying(self) -> None:
        sc = sc4(["acromantula"], DRAWN, hands={0: ["bombarda"], 2: ["tears"]})
        st = sc.state
        kill(sc, 1, 0)
        st.hp[2] = 2
        st.recover(2, 1)
        assert st.hp[2] == 2 and "no recovery" in sc.log()
        st.hp[2] = 1
        st.push(LoseHpTask(2, 1, "test"))
        sc.pass_until(0, "play")  # nobody is asked for 凤凰眼泪
        assert not st.alive[2]


@pytest.mark.usefixtures("mode")
class TestGnome:
    def test_its_holder_chooses_an_empty_slot_which_then_takes_no_card(self) -> None:
        sc = sc4(["gnome"], DRAWN, hands={0: ["bombarda", "hat", "nimbus2000"]})
        st = sc.state
        st.hp[1] = 1
        sc.use(0, "bombarda", [1])
        sc.pass_until(0, "gnome")
        assert {a["value"] for a in sc.legal(0)} == {"weapon", "armour", "plus", "minus"}
        sc.choose(0, "armour", "gnome")
        sc.pass_until(0, "play")
        assert st.flags[0].get("gnome") == 2 and "gnome takes the armour slot" in sc.log()
        kinds = {a.get("kind") for a in sc.legal(0) if a.get("type") == "use"}
        assert "hat" not in kinds and "nimbus2000" in kinds

    def test_with_no_empty_slot_it_replaces_an_equipped_card(self) -> None:
        sc = sc4(["gnome"], ["bombarda"] + DRAWN[1:], hands={0: ["willow", "hat", "nimbus2000", "comet260"]})
        st = sc.state
        for kind in ("willow", "hat", "nimbus2000", "comet260"):
            sc.force_equip(0, kind)
        st.hp[1] = 1
        sc.use(0, "bombarda", [1])
        sc.pass_until(0, "gnome")
        sc.choose(0, "plus", "gnome")
        sc.pass_until(0, "play")
        assert "plus" not in st.equip[0] and "nimbus2000" in sc.discard_kinds()
        assert st.flags[0].get("gnome") == 3 and st.cr["out"] == [[creature_id("gnome"), 0]]

    def test_the_thestrals_slot_is_not_offered(self) -> None:
        sc = sc4(["gnome"], DRAWN, hands={0: ["bombarda", "willow", "hat", "nimbus2000"]})
        st = sc.state
        for kind in ("willow", "hat", "nimbus2000"):
            sc.force_equip(0, kind)
        st.flags[0]["thestral"] = 1
        st.hp[1] = 1
        sc.use(0, "bombarda", [1])
        sc.pass_until(0, "gnome")
        assert {a["value"] for a in sc.legal(0)} == {"weapon", "armour", "plus"}


    def _borrowing(self, hands1: list[CardSpec]) -> tuple[Scenario, int]:
        """Seat 0 kills seat 3, gets the gnome (armour slot), and borrows seat 1's 柳木魔杖 for its turn."""
        sc = sc4(["gnome"], DRAWN + ["*"] * 8, hands={0: ["bombarda"], 1: hands1})
        st = sc.state
        willow = sc.force_equip(1, "willow")
        st.hp[3] = 1
        sc.use(0, "bombarda", [3])
        sc.pass_until(0, "gnome")
        sc.choose(0, "armour", "gnome")
        sc.pass_until(0, "play")
        borrow = {"type": "skill", "skill": "gnome", "slots": [willow], "targets": [1]}
        assert borrow in sc.legal(0)
        sc.act(0, borrow, "play")
        assert st.equip[0].get("weapon") == willow and "weapon" not in st.equip[1]
        assert "borrows" in sc.log()
        assert not any(a.get("skill") == "gnome" for a in sc.legal(0))  # once per turn
        return sc, willow

    def test_its_advantage_borrows_a_card_for_the_turn_and_gives_it_back(self) -> None:
        sc, willow = self._borrowing(["willow"])
        st = sc.state
        assert st.attack_range(0) > 1  # the borrowed wand is used: its range counts
        sc.end(0)
        sc.pass_until(1, "play")
        assert st.equip[1].get("weapon") == willow and "weapon" not in st.equip[0]
        assert "gives" in sc.log() and "loan" not in st.cr

    def test_a_borrowed_card_whose_slot_was_filled_meanwhile_is_discarded(self) -> None:
        sc, willow = self._borrowing(["willow", "oak"])
        st = sc.state
        sc.force_equip(1, "oak")  # (test-only: the owner's slot takes another card before the return)
        sc.end(0)
        sc.pass_until(1, "play")
        assert willow in st.discard and st.kind(st.equip[1]["weapon"]) == "oak"
        assert "cannot give" in sc.log()

    def test_the_gnomes_own_slot_cannot_take_a_borrowed_card(self) -> None:
        sc = sc4(["gnome"], DRAWN, hands={0: ["bombarda"], 1: ["hat"]})
        st = sc.state
        sc.force_equip(1, "hat")
        st.hp[3] = 1
        sc.use(0, "bombarda", [3])
        sc.pass_until(0, "gnome")
        sc.choose(0, "armour", "gnome")
        sc.pass_until(0, "play")
        assert not any(a.get("skill") == "gnome" for a in sc.legal(0))  # seat 1's hat needs the armour slot


@pytest.mark.usefixtures("mode")
class TestCentaur:
    def test_it_takes_a_seat_after_the_turns_character_and_counts_in_distances(self) -> None:
        sc = sc4(["centaur"], DRAWN)
        st = sc.state
        kill(sc, 1, 0)  # living 0, 2, 3 (all 1 apart): the centaur sits between seat 0 and seat 2
        assert st.flags[0].get("centaur") and st.cr["out"] == [[creature_id("centaur"), 0]]
        assert st.raw_distance(0, 2) == 2 and st.raw_distance(2, 0) == 2
        assert st.raw_distance(0, 3) == 1 and st.raw_distance(2, 3) == 1

    def test_its_holder_places_a_card_face_up_to_reorder_the_deck_top(self) -> None:
        deck = DRAWN + ["*"] * 3
        sc = sc4(["centaur"], deck, hands={0: ["bombarda", "hat"]})
        st = sc.state
        kill(sc, 1, 0)
        slot = sc.slot(0, "hat")
        sc.act(0, {"type": "skill", "skill": "centaur", "slots": [slot], "targets": []}, "play")
        assert slot in st.pub and slot in st.hands[0] and "places" in sc.log()
        top = list(st.deck[:3])
        sc.pass_until(0, "arrange_top")
        sc.act(0, {"type": "arrange", "order": top[::-1]}, "arrange_top")
        sc.pass_until(0, "play")
        assert st.deck[:3] == top[::-1]
        assert not [a for a in sc.legal(0) if a.get("skill") == "centaur"]  # once per turn


@pytest.mark.usefixtures("mode")
class TestDragon:
    def test_the_egg_burns_its_holder_on_a_spade_before_the_next_turn(self) -> None:
        sc = sc4(["dragon"], DRAWN + [("bombarda", "♠", 8)])
        st = sc.state
        kill(sc, 1, 0)
        assert st.flags[0].get("dragon") and st.cr["out"] == [[creature_id("dragon"), 0]]
        sc.end(0)
        sc.pass_until(2, "play")  # seat 2's turn start: ♠ — seat 0, the egg's holder, is burned
        assert st.hp[0] == 3 and st.flags[0].get("dragon")

    def test_on_a_diamond_the_egg_goes_to_the_character_whose_turn_it_is(self) -> None:
        sc = sc4(["dragon"], DRAWN + [("tears", "♦")])
        st = sc.state
        kill(sc, 1, 0)
        sc.end(0)
        sc.pass_until(2, "play")
        assert st.flags[2].get("dragon") and not st.flags[0].get("dragon")
        assert st.cr["out"] == [[creature_id("dragon"), 2]] and "dragon egg goes from seat 0" in sc.log()


def test_the_option_accepts_only_creatures_played() -> None:
    assert len(PLAYED) == len(CREATURES)
    GAME.new_state(4, {"creatures": len(PLAYED)})
    with pytest.raises(OptionError):
        GAME.new_state(4, {"creatures": len(PLAYED) + 1})
    assert GAME.universe_size({"creatures": 1}) > GAME.universe_size({})


def test_games_with_every_creature_conform() -> None:
    check_game(GAME, (4, 7), range(1), {"creatures": len(PLAYED)}, every=13)


def test_100_seeded_heuristic_games_with_every_creature_finish_with_a_winner() -> None:
    for seed in range(100):
        n = 4 + seed % 4  # 4–7 players: under ~15 s
        st = GAME.new_state(n, {"creatures": len(PLAYED)})
        r = LocalTable(st, seed).play({s: GAME.make_bot("heuristic", f"{seed}/{s}") for s in range(n)})
        assert r.winners, (seed, r.summary)


def test_the_gnomes_loan_returns_at_the_turns_end_at_a_table_where_no_character_listens_there(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A creature's skill is no character's: ``fire`` asked at TURN_END only if some character listened there, so at
    a table of characters without a turn-end skill (7 players, seed 2003) the borrowed card was never given back
    (review rv8-hpsha: the Gnome's return never fired)."""
    from test_hpsha_speed import _trace

    from p2php.games.hpsha import creatures

    returned: list[int] = []
    real = creatures.GnomeReturn.invoke

    def counted(self: Any, st: Any, seat: int, *rest: Any) -> None:
        returned.append(seat)
        real(self, st, seat, *rest)

    monkeypatch.setattr(creatures.GnomeReturn, "invoke", counted)
    _trace(7, "random", 2003, {"creatures": 11})
    assert returned, "the gnome's loan was never given back"
