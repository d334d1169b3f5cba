"""The Harry Potter TCG Base Set data (issue 11): counts, the two-version cards, lookups, the extraction."""

from __future__ import annotations

import importlib.util
import json
import sys
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest

from p2php.games.tcg import cards
from p2php.games.tcg.cards import (
    BASE_SET,
    RULINGS,
    Card,
    CardDataError,
    CardType,
    LessonType,
    Rarity,
    card_by_name,
    card_by_number,
    cards_named,
    name_key,
    nearest_names,
)

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "tcg"

# tcg.md §14.1 / the rulebook's "Complete Harry Potter TCG Base Set Card List", in its order, as printed.
LISTED = (
    "Dean Thomas", "Draco Malfoy", "Draco Malfoy", "Dragon's Escape", "Elixir of Life", "Gringotts' Cart Ride",
    "Hannah Abbott", "Harry Potter", "Hermione Granger", "Hermione Granger", "Human Chess Game",
    "Invisibility Cloak", "Nearly Headless Nick", "Obliviate", "Professor Filius Flitwick",
    "Professor Severus Snape", "Ron Weasley", "Rubeus Hagrid", "Troll in the Bathroom", "Unicorn", "Delivery Owl",
    "Draught of Living Death", "Harry Hunting", "History of Magic", "Incendio", "Malevolent Mixture",
    "Meet the Centaurs", "Mountain Troll", "Mrs Norris", "Norbert", "Phoenix Feather Wand", "Platform 9 3/4",
    "Potion Ingredients", "Raven to Writing Desk", "Shrinking Potion", "Titillando", "Transfiguration Exam",
    "Transfiguration Test", "Privet Drive", "Alchemy", "Apothecary", "Apparate", "Baby Dragon", "Bluebell Flames",
    "Burning Bitterroot Balm", "Cage", "Confundus", "Diagon Alley", "Dogbreath Potion", "Draco's Trick",
    "Dragon Heart Wand", "Fumos", "Guard Dog", "Hiding From Snape", "Kelpie", "Logic Puzzle", "Mysterious Egg",
    "Nurture", "Ollivanders", "Peeves Causes Trouble", "Pet Toad", "Pomfrey's Pick-Me-Up", "Potions Exam",
)


def test_the_set_has_116_numbers_in_order() -> None:
    assert len(BASE_SET) == cards.SET_SIZE == 116
    assert [c.number for c in BASE_SET] == list(range(1, 117))
    assert all(card_by_number(c.number) is c for c in BASE_SET)
    assert len({c.name for c in BASE_SET}) == 114  # two names have two versions


def test_type_counts() -> None:
    counts = {t: sum(c.type is t for c in BASE_SET) for t in CardType}
    assert counts == {CardType.SPELL: 61, CardType.CREATURE: 17, CardType.CHARACTER: 12, CardType.ADVENTURE: 12,
                      CardType.ITEM: 10, CardType.LESSON: 4}
    assert len(CardType) == 6 and len(LessonType) == 4  # §0.1, §0.2


def test_the_rulebook_list_is_numbers_1_to_63() -> None:
    assert len(LISTED) == 63
    for number, name in enumerate(LISTED, start=1):
        assert card_by_number(number) in cards_named(name), (number, name)
    assert card_by_name("Privet Drive").name == "4 Privet Drive"  # the list drops the "4" (§14.1 note)


def test_rarities_of_the_listed_rows() -> None:
    listed = [c.rarity for c in BASE_SET[:63]]
    assert listed.count(Rarity.HOLO_PORTRAIT_PREMIUM) == 10
    assert listed.count(Rarity.UNCOMMON) == 25
    # The rulebook says foil premium for 28 and 29; the data (and their place in the list) say rare.
    assert (card_by_number(28).rarity, card_by_number(29).rarity) == (Rarity.RARE, Rarity.RARE)
    assert listed.count(Rarity.FOIL_PREMIUM) == 12 - 2 and listed.count(Rarity.RARE) == 16 + 2
    assert all(c.rarity is Rarity.COMMON for c in BASE_SET[72:112])
    assert [c.rarity for c in BASE_SET[112:]] == [Rarity.LESSON] * 4


def test_the_two_version_cards_are_distinct_cards_with_the_same_text() -> None:
    for name, numbers in (("Draco Malfoy", (2, 3)), ("Hermione Granger", (9, 10))):
        holo, foil = cards_named(name)
        assert (holo.number, foil.number) == numbers
        assert holo != foil and hash(holo) != hash(foil)
        assert (holo.rarity, foil.rarity) == (Rarity.HOLO_PORTRAIT_PREMIUM, Rarity.FOIL_PREMIUM)
        assert holo.game_text() == foil.game_text()
        assert card_by_name(name) is holo  # the default version is the lowest number
        assert holo.label == f"{name} (Base {numbers[0]})" and foil.label == f"{name} (Base {numbers[1]})"
        assert holo.can_start and holo.unique
    assert card_by_number(80).label == "Curious Raven"


def test_the_example_cards_as_the_rulebook_prints_them() -> None:
    hound = card_by_name("Surly Hound")
    assert (hound.number, hound.type, hound.cost, hound.lesson, hound.damage, hound.health, hound.keywords) == (
        107, CardType.CREATURE, 3, LessonType.CARE_OF_MAGICAL_CREATURES, 1, 3, ("Dog",))
    wand = card_by_name("Borrowed Wand")
    assert (wand.number, wand.type, wand.cost, wand.provides) == (78, CardType.ITEM, 3, ((LessonType.CHARMS, 2),))
    privet = card_by_number(39)
    assert privet.effect == ("Your opponent can't play Spell cards.",)
    assert privet.to_solve == "Your opponent chooses 6 cards in his or her hand and discards them."
    assert privet.reward == "Your opponent may draw a card."
    assert card_by_name("Illegibilus").cost == 5 and card_by_name("Boil Cure").keywords == ("Healing",)
    assert card_by_name("Unusual Pets").note == "Play this card only if your opponent has any Creatures in play."


def test_numbers_are_ints_and_fields_fit_the_type() -> None:
    for c in BASE_SET:
        for value in (c.cost, c.damage, c.health):
            assert value is None or (type(value) is int and value >= 0)
        assert all(type(amount) is int and amount > 0 for _, amount in c.provides)
        if c.type is CardType.LESSON:
            assert c.provides == ((c.lesson, 1),) and c.cost is None
        if c.type in (CardType.CHARACTER, CardType.ADVENTURE):
            assert c.cost is None  # 2 Actions, no Power (§5.5, §5.6)
    assert [c.name for c in BASE_SET if c.type is CardType.LESSON] == [
        "Care of Magical Creatures", "Charms", "Potions", "Transfiguration"]


def test_starting_characters_are_the_wizards_and_witches() -> None:
    starters = {c.name for c in BASE_SET if c.can_start}
    assert "Rubeus Hagrid" not in starters and "Nearly Headless Nick" not in starters  # neither Wizard nor Witch
    assert {"Draco Malfoy", "Hermione Granger", "Harry Potter", "Hannah Abbott"} <= starters
    assert card_by_name("Hannah Abbott").houses == ("Hufflepuff",)


def test_rulings_are_linked_both_ways() -> None:
    assert RULINGS
    for rid, ruling in RULINGS.items():
        assert ruling.id == rid and ruling.cards
        for number in ruling.cards:
            assert rid in card_by_number(number).rulings
    assert len(card_by_name("Human Chess Game").rulings) == 2  # misspelt "Human Chees Game" in rulings.json
    assert len(card_by_name("Rubeus Hagrid").rulings) == 3


@pytest.mark.parametrize(("text", "number"), [
    ("Curious Raven", 80), ("  curious   RAVEN ", 80), ("Mrs. Norris", 29), ("mrs norris", 29),
    ("Epoximize", 82), ("Wingardium Leviosa", 111), ("Platform 9¾", 32), ("gringotts cart ride", 6),
    ("Pomfrey’s Pick Me Up", 62), ("Charms Lesson", 114), ("Care of Magical Creatures Lesson", 113),
    ("Transfiguration Lessons", 116), ("4 Privet Drive", 39), ("privet drive", 39),
])
def test_lookup_by_name_is_forgiving(text: str, number: int) -> None:
    assert card_by_name(text).number == number


def test_lesson_suffix_only_for_lessons() -> None:
    assert cards_named("Curious Raven Lesson") == ()
    assert cards_named("Lesson") == ()


def test_unknown_names_say_the_nearest() -> None:
    with pytest.raises(KeyError, match="Curious Raven"):
        card_by_name("Curios Raven")
    assert nearest_names("Curios Raven") == ("Curious Raven",)
    assert nearest_names("hermoine")[0] == "Hermione Granger"
    assert nearest_names("Vermilious")[0] == "Vermillious"
    assert len(nearest_names("potion", n=2)) == 2
    assert nearest_names("qqqqqqqq") == () and nearest_names("") == ()
    assert nearest_names("x" * 1_000_000) == ()  # only a prefix is looked at


def test_bad_numbers() -> None:
    for bad in (0, 117, -1, True):
        with pytest.raises(KeyError):
            card_by_number(bad)
    with pytest.raises(KeyError):
        card_by_number("3")  # type: ignore[arg-type]


def test_unknown_name_messages_are_escaped_and_bounded() -> None:
    with pytest.raises(KeyError) as info:
        card_by_name("\x1b[2J" + "A" * 10_000)
    message = str(info.value)
    assert "\x1b" not in message and len(message) < 300


def test_name_key_folds_spelling() -> None:
    assert name_key("Flavor  Armor!") == name_key("flavour armour") == "flavour armour"
    assert name_key("Realize") == name_key("realise")
    assert name_key("Mrs. Norris") == name_key("mrs norris")


def test_cards_are_frozen() -> None:
    card = card_by_number(1)
    with pytest.raises(AttributeError):
        card.cost = 3  # type: ignore[misc]
    assert isinstance(card, Card)


def test_a_file_that_disagrees_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The load-time checks, on doctored copies of base_set.json."""
    data = json.loads(resources.files("p2php.games.tcg").joinpath("base_set.json").read_bytes())

    def load(doctored: dict[str, object]) -> None:
        (tmp_path / "base_set.json").write_text(json.dumps(doctored), encoding="utf-8")
        monkeypatch.setattr(resources, "files", lambda package: tmp_path)
        cards._data.cache_clear()
        try:
            cards._data()
        finally:
            monkeypatch.undo()
            cards._data.cache_clear()

    short = dict(data, cards=data["cards"][:-1])
    with pytest.raises(CardDataError, match="1..116"):
        load(short)
    wrong = json.loads(json.dumps(data))
    wrong["cards"][106]["health"] = 4
    with pytest.raises(CardDataError, match="Surly Hound"):
        load(wrong)
    wrong = json.loads(json.dumps(data))
    wrong["cards"][2]["effect"] = ["Something else."]
    with pytest.raises(CardDataError, match="same game text"):
        load(wrong)
    wrong = json.loads(json.dumps(data))
    wrong["cards"][79]["cost"] = "2"
    with pytest.raises(CardDataError, match="cost"):
        load(wrong)
    wrong = json.loads(json.dumps(data))
    wrong["cards"][0]["type"] = "location"
    with pytest.raises(CardDataError, match="malformed"):
        load(wrong)
    load(data)  # the real file still loads after all that
    assert cards._data().cards == BASE_SET


def _extractor() -> ModuleType:
    path = ROOT / "tools" / "extract_tcg_base_set.py"
    spec = importlib.util.spec_from_file_location("extract_tcg_base_set", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not (SHARED / "cards.json").exists(), reason="shared/data/tcg/cards.json is not checked out")
def test_base_set_json_is_a_fresh_extraction() -> None:
    fresh = _extractor().extract(SHARED / "cards.json", SHARED / "rulings.json")
    shipped = resources.files("p2php.games.tcg").joinpath("base_set.json").read_bytes()
    assert shipped == fresh, "p2php/games/tcg/base_set.json is stale: run tools/extract_tcg_base_set.py"
    assert _extractor().extract(SHARED / "cards.json", SHARED / "rulings.json") == fresh  # deterministic


def test_the_extractor_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    extractor = _extractor()
    card = {"number": "1", "name": "X", "type": ["Creature"], "rarity": "Common", "setName": "Base",
            "horizontal": True, "cost": "*", "lesson": ["Charms"], "health": "1"}
    (tmp_path / "cards.json").write_text(json.dumps([card]), encoding="utf-8")
    (tmp_path / "rulings.json").write_bytes(b"[]")
    with pytest.raises(extractor.ExtractError, match="whole number"):
        extractor.extract(tmp_path / "cards.json", tmp_path / "rulings.json")
    card["cost"] = "2"
    (tmp_path / "cards.json").write_text(json.dumps([card]), encoding="utf-8")
    with pytest.raises(extractor.ExtractError, match="1..116"):
        extractor.extract(tmp_path / "cards.json", tmp_path / "rulings.json")
