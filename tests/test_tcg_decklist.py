"""Harry Potter TCG deck lists (issue 11): the text format, the deck-building rules, the Starter Set decks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.games.tcg.cards import BASE_SET, CardType, card_by_name, card_by_number
from p2php.games.tcg.decklist import (
    MAX_BYTES,
    MAX_LINES,
    DeckError,
    DeckList,
    format_deck,
    parse_deck,
    read_deck,
    starter_deck,
    validate,
)

# tcg.md §14.2, as the rulebook prints the lists.
STARTERS = {
    "draco": ("Draco Malfoy", {
        "Care of Magical Creatures": 10, "Charms": 9, "Accio": 2, "Boa Constrictor": 2, "Curious Raven": 3,
        "Hagrid and the Stranger": 2, "Magical Mishap": 4, "Stupefy": 2, "Surly Hound": 2, "Vermillious": 4,
    }),
    "hermione": ("Hermione Granger", {
        "Care of Magical Creatures": 12, "Transfiguration": 7, "Avifors": 2, "Curious Raven": 4, "Epoximise": 2,
        "Forest Troll": 3, "Hagrid and the Stranger": 2, "Incarcifors": 3, "Take Root": 2, "Vicious Wolf": 3,
    }),
}


def _deck(*lines: str, character: str = "Hermione Granger") -> str:
    return "\n".join((f"Character: {character}", *lines)) + "\n"


def _error(text: str, **kwargs: str) -> DeckError:
    with pytest.raises(DeckError) as info:
        fmt = kwargs.pop("format", None)
        deck = parse_deck(text, name="my.deck")
        if fmt is not None:
            validate(deck, format=fmt, **kwargs)  # type: ignore[arg-type]
    error = info.value
    assert "\n" not in str(error) and str(error).startswith("my.deck")
    assert isinstance(error, ValueError)
    return error


# ----------------------------------------------------------------------------- starter decks

@pytest.mark.parametrize("which", sorted(STARTERS))
def test_starter_decks_are_exactly_the_rulebook_lists(which: str) -> None:
    character, contents = STARTERS[which]
    deck = starter_deck(which)
    assert deck.character.name == character and deck.character.can_start
    assert {card.name: count for card, count in deck.entries} == contents
    assert deck.size == sum(contents.values()) == 40
    assert sum(count for card, count in deck.entries if card.type is CardType.LESSON) == 19  # §14.2 totals
    assert len(deck.cards()) == 40 and list(deck.cards()) == sorted(deck.cards())
    assert validate(deck, format="starter") is deck
    with pytest.raises(DeckError, match="constructed deck has exactly 60") as info:
        validate(deck)  # 40 + 1 is not a constructed deck
    assert info.value.kind == "size"


def test_starter_deck_files_parse_the_same_from_disk() -> None:
    folder = Path(__file__).resolve().parent.parent / "p2php" / "games" / "tcg" / "decks"
    assert sorted(p.name for p in folder.glob("*.deck")) == ["draco.deck", "hermione.deck"]
    for which in STARTERS:
        assert read_deck(folder / f"{which}.deck") == starter_deck(which)
    with pytest.raises(ValueError, match="no starter deck"):
        starter_deck("harry")


# ----------------------------------------------------------------------------- the format

def test_the_format_tolerates_case_spaces_and_comments() -> None:
    text = "\ufeff# my deck\r\n\r\n  character :   hermione   granger  \r\n\t4x  CURIOUS raven\r\n" \
           "2 X Vicious Wolf\n#comment\n34 charms lesson\n1 #80\n   \n"
    deck = parse_deck(text)
    assert deck.character.number == 9
    assert [(card.name, count) for card, count in deck.entries] == [
        ("Curious Raven", 5), ("Vicious Wolf", 2), ("Charms", 34)]
    assert deck.character_line == 3 and deck.lines == ((4, 8), (5,), (7,))
    assert deck.copies("Curious Raven") == 5


def test_versions_by_set_and_number() -> None:
    deck = parse_deck(_deck("1 Draco Malfoy (Base 3)", "1 draco malfoy", "1 #10", "1 Hermione Granger (base #9)",
                            "1 Draco Malfoy (3)", character="#10"))
    assert deck.character.number == 10
    assert [(card.number, count) for card, count in deck.entries] == [(3, 2), (2, 1), (10, 1), (9, 1)]
    assert deck.copies("Draco Malfoy") == 3
    assert "Draco Malfoy (Base 3)" in format_deck(deck) and "Draco Malfoy (Base 2)" in format_deck(deck)


def test_cards_are_in_number_order() -> None:
    deck = parse_deck(_deck("2 Vicious Wolf", "1 Accio", "3 Charms"))
    assert deck.cards() == (73, 110, 110, 114, 114, 114)


def test_format_is_canonical_and_round_trips() -> None:
    deck = parse_deck("# x\nCharacter: hermione granger\n\n4 curious raven\n10 CHARMS LESSON\n1 #3\n")
    text = format_deck(deck)
    assert text == ("Character: Hermione Granger (Base 9)\n4 Curious Raven\n10 Charms\n"
                    "1 Draco Malfoy (Base 3)\n")
    assert parse_deck(text) == deck and format_deck(parse_deck(text)) == text


def test_equality_ignores_where_it_came_from() -> None:
    a = parse_deck(_deck("4 Curious Raven"), name="a.deck")
    b = parse_deck("\n\n" + _deck("4 curious raven"), name="b.deck")
    assert a == b and a.lines != b.lines


def test_a_decklist_refuses_duplicate_or_empty_entries() -> None:
    raven = card_by_name("Curious Raven")
    hermione = card_by_number(9)
    with pytest.raises(ValueError):
        DeckList(hermione, ((raven, 1), (raven, 2)))
    with pytest.raises(ValueError):
        DeckList(hermione, ((raven, 0),))


# ----------------------------------------------------------------------------- errors, each with its line

def test_unknown_card_names_the_nearest() -> None:
    error = _error(_deck("4 Curious Raven", "3 Curios Raven"))
    assert error.kind == "unknown_card" and error.line == 3
    assert str(error) == "my.deck:3: unknown card 'Curios Raven' (nearest: Curious Raven)"


def test_unknown_character() -> None:
    error = _error(_deck("4 Curious Raven", character="Hermoine"))
    assert (error.kind, error.line) == ("unknown_card", 1) and "Hermione Granger" in str(error)


@pytest.mark.parametrize(("line", "kind"), [
    ("1 #117", "unknown_card"), ("1 #0", "unknown_card"), ("1 #99999999999999999999", "unknown_card"),
    ("1 Draco Malfoy (Base 4)", "mismatch"), ("1 Draco Malfoy (Chamber of Secrets 3)", "unknown_set"),
    ("0 Curious Raven", "count"), ("100 Charms", "count"), ("99999999999999999999999999 Charms", "count"),
    ("Curious Raven", "syntax"), ("four Curious Raven", "syntax"), ("Character:", "syntax"),
    ("Character: Harry Potter", "character"),
])
def test_each_error_kind_names_its_line(line: str, kind: str) -> None:
    error = _error(_deck("4 Curious Raven", line))
    assert (error.kind, error.line) == (kind, 3), str(error)
    assert str(error).startswith("my.deck:3: ")


def test_counts_added_over_lines_are_bounded() -> None:
    error = _error(_deck("60 Charms", "60 Charms"))
    assert (error.kind, error.line) == ("count", 3)


def test_missing_character() -> None:
    error = _error("4 Curious Raven\n")
    assert (error.kind, error.line) == ("character", None)
    assert str(error).startswith("my.deck: no 'Character: <card>' line")


def _legal(*extra: str, character: str = "Hermione Granger", lessons: int | None = None) -> str:
    used = sum(int(line.split()[0]) for line in extra)
    return _deck(*extra, f"{60 - used if lessons is None else lessons} Charms", character=character)


def test_a_legal_constructed_deck() -> None:
    deck = validate(parse_deck(_legal("4 Curious Raven", "4 Vicious Wolf", "4 Hermione Granger")))
    assert deck.size == 60 and len(deck.cards()) == 60


@pytest.mark.parametrize(("character", "why"), [
    ("Rubeus Hagrid", "neither a Wizard nor a Witch"), ("Nearly Headless Nick", "neither a Wizard nor a Witch"),
    ("Curious Raven", "not a Character"), ("Charms", "not a Character"),
])
def test_not_a_legal_starting_character(character: str, why: str) -> None:
    error = _error(_legal(character=character), format="constructed")
    assert (error.kind, error.line) == ("character", 1) and why in str(error)


def test_too_many_copies_names_the_line() -> None:
    error = _error(_legal("3 Curious Raven", "1 Accio", "2 curious raven"), format="constructed")
    assert (error.kind, error.line) == ("copies", 4)
    assert str(error) == "my.deck:4: 5 copies of Curious Raven; at most 4 of a card (Lessons excepted)"


def test_both_versions_count_as_one_card() -> None:
    error = _error(_legal("3 Draco Malfoy (Base 2)", "2 #3"), format="constructed")
    assert (error.kind, error.line) == ("copies", 3) and "5 copies of Draco Malfoy" in str(error)
    validate(parse_deck(_legal("2 Draco Malfoy (Base 2)", "2 #3")))


def test_lessons_are_unlimited_and_the_character_is_not_counted() -> None:
    validate(parse_deck(_deck("30 Charms", "30 Potions")))
    error = _error(_legal("4 Hermione Granger", "1 Hermione Granger (Base 10)"), format="constructed")
    assert error.kind == "copies"  # 5 in the deck proper; the starting one is apart
    validate(parse_deck(_legal("4 Hermione Granger")))  # 4 + the starting Character is fine


@pytest.mark.parametrize(("size", "fmt"), [(59, "constructed"), (61, "constructed"), (39, "starter"),
                                          (41, "starter"), (0, "starter")])
def test_wrong_size(size: int, fmt: str) -> None:
    text = _deck(f"{size} Charms") if size else _deck()
    error = _error(text, format=fmt)
    assert (error.kind, error.line) == ("size", None)
    assert f"{size} cards besides the starting Character" in str(error)


def test_house_decks() -> None:
    validate(parse_deck(_legal("4 Ron Weasley", "2 Accio")), house="Gryffindor")
    error = _error(_legal("4 Ron Weasley", "1 Professor Severus Snape"), format="constructed", house="gryffindor")
    assert (error.kind, error.line) == ("house", 3) and "Slytherin" in str(error)
    error = _error(_legal(character="Draco Malfoy"), format="constructed", house="Gryffindor")
    assert (error.kind, error.line) == ("house", 1)
    with pytest.raises(ValueError, match="unknown House"):
        validate(starter_deck("draco"), format="starter", house="Durmstrang")


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown deck format"):
        validate(starter_deck("draco"), format="sealed")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- hostile input

def test_control_characters_are_refused_and_escaped() -> None:
    error = _error(_deck("4 Curious\x1b[2J Raven"))
    assert (error.kind, error.line) == ("bad_text", 2)
    assert "\x1b" not in str(error) and "\\x1b" in str(error)
    for bad in ("\u202e", "\x00", "\x85", "\u2028", "\x0b"):
        assert _error(_deck(f"4 Curious{bad}Raven")).kind == "bad_text"


def test_long_lines_are_refused_without_echoing_them() -> None:
    error = _error(_deck("4 " + "A" * 5000))
    assert (error.kind, error.line) == ("bad_text", 2) and len(str(error)) < 120


def test_long_unknown_names_are_quoted_short() -> None:
    error = _error(_deck("4 " + "Q" * 190))
    assert error.kind == "unknown_card" and len(str(error)) < 160


def test_huge_files_are_refused_before_reading_them() -> None:
    error = _error("Character: Harry Potter\n" + "1 Charms\n" * 1_000_000)
    assert (error.kind, error.line) == ("too_large", None)
    error = _error("\n" * (MAX_LINES + 1))
    assert error.kind == "too_large" and f"at most {MAX_LINES}" in str(error)
    error = _error("é" * (MAX_BYTES // 2 + 1))  # under the limit in characters, over it in bytes
    assert error.kind == "too_large"
    parse_deck("\n" * (MAX_LINES - 1) + "Character: Harry Potter")  # right at the limit is fine


def test_read_deck_bounds_and_decodes(tmp_path: Path) -> None:
    big = tmp_path / "big.deck"
    big.write_bytes(b"#" * (MAX_BYTES + 10))
    with pytest.raises(DeckError, match="big.deck: more than") as info:
        read_deck(big)
    assert info.value.kind == "too_large"
    latin = tmp_path / "latin.deck"
    latin.write_bytes(b"Character: Harry Potter\n4 Caf\xe9\n")
    with pytest.raises(DeckError, match=r"latin.deck:2: not UTF-8"):
        read_deck(latin)


def test_hostile_file_name_is_escaped() -> None:
    with pytest.raises(DeckError) as info:
        parse_deck("4 Charms\n", name="evil\x1b[31m\n.deck")
    assert "\x1b" not in str(info.value) and "\n" not in str(info.value)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_or_fails_with_one_line(text: str) -> None:
    try:
        parse_deck(text)
    except DeckError as error:
        assert "\n" not in str(error) and len(str(error)) < 400


# ----------------------------------------------------------------------------- round trip

_STARTERS = [c for c in BASE_SET if c.can_start]
_OTHERS = [c for c in BASE_SET if c.type is not CardType.LESSON]
_LESSONS = [c for c in BASE_SET if c.type is CardType.LESSON]


@st.composite
def _decks(draw: st.DrawFn, legal: bool = False) -> DeckList:
    """A random deck: legal ones have at most 4 of each non-Lesson name and exactly 60 cards."""
    character = draw(st.sampled_from(_STARTERS))
    if legal:
        others = draw(st.lists(st.sampled_from(_OTHERS), unique_by=lambda c: c.name, max_size=10))
    else:
        others = draw(st.lists(st.sampled_from(_OTHERS), unique_by=lambda c: c.number, max_size=20))
    entries = [(card, draw(st.integers(1, 4 if legal else 99))) for card in others]
    lessons = draw(st.lists(st.sampled_from(_LESSONS), unique=True, min_size=1, max_size=4))
    room = 60 - sum(count for _, count in entries)  # at least 20 when legal
    cuts = sorted(draw(st.lists(st.integers(1, room - 1), unique=True, min_size=len(lessons) - 1,
                                max_size=len(lessons) - 1))) if legal else []
    bounds = [0, *cuts, room]
    for index, lesson in enumerate(lessons):
        count = bounds[index + 1] - bounds[index] if legal else draw(st.integers(1, 99))
        entries.insert(draw(st.integers(0, len(entries))), (lesson, count))
    return DeckList(character, tuple(entries))


@settings(max_examples=150, deadline=None)
@given(_decks(legal=True))
def test_random_legal_decks_round_trip(deck: DeckList) -> None:
    assert validate(deck) is deck
    again = parse_deck(format_deck(deck))
    assert again == deck and validate(again) == deck
    assert again.cards() == deck.cards() and len(again.cards()) == 60


@settings(max_examples=150, deadline=None)
@given(_decks())
def test_random_decks_round_trip(deck: DeckList) -> None:
    assert parse_deck(format_deck(deck)) == deck
