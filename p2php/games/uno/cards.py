"""Card universe of UNO Harry Potter: kinds, colours, values, points and names.

Every physical card is its own instance id.  The order is fixed per ``deck``
option so that every peer agrees on it:

* ids ``0 .. 99``: the four colours in the rulebook's order (blue, green, yellow,
  red), 25 cards each: ``0``, then ``1 1 2 2 .. 9 9``, then two Draw Two, two
  Reverse, two Skip;
* ``100 .. 103`` Wild, ``104 .. 107`` Wild Draw Four;
* then the Harry Potter cards of the variant, in this order: four Sorting Hat,
  four Voldemort, Howler, Invisibility, Moody, Resurrection Stone (only those
  the variant contains, so ids stay contiguous).
"""

from __future__ import annotations

from dataclasses import dataclass

COLOURS: tuple[str, ...] = ("blue", "green", "yellow", "red")
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}

# Card kinds.  Everything from WILD on is colourless and playable on any card.
NUMBER = 0
DRAW_TWO = 1
REVERSE = 2
SKIP = 3
WILD = 4
WILD_DRAW_FOUR = 5
SORTING_HAT = 6
VOLDEMORT = 7
HOWLER = 8
INVISIBILITY = 9
MOODY = 10
RESURRECTION_STONE = 11

KIND_IDS: tuple[str, ...] = (
    "number", "draw_two", "reverse", "skip", "wild", "wild_draw_four", "sorting_hat",
    "voldemort", "howler", "invisibility", "moody", "resurrection_stone",
)
_COLOURED_NAMES = {DRAW_TWO: "draw two", REVERSE: "reverse", SKIP: "skip"}
_WILD_NAMES = {
    WILD: "Wild", WILD_DRAW_FOUR: "Wild Draw Four", SORTING_HAT: "Sorting Hat", VOLDEMORT: "Voldemort",
    HOWLER: "Howler", INVISIBILITY: "Invisibility", MOODY: "Moody", RESURRECTION_STONE: "Resurrection Stone",
}

# Who is pictured on each number (project decision, uno-data.md).
CHARACTERS: tuple[str, ...] = (
    "Hagrid", "Harry", "Hermione", "Ron", "Neville", "Dumbledore", "McGonagall", "Snape", "Draco", "Luna",
)

DECKS: tuple[str, ...] = ("base", "hat", "voldemort", "magic", "all")
_EXTRAS: dict[str, tuple[int, ...]] = {
    "base": (),
    "hat": (SORTING_HAT,) * 4,
    "voldemort": (VOLDEMORT,) * 4,
    "magic": (HOWLER, INVISIBILITY, MOODY, RESURRECTION_STONE),
    "all": (SORTING_HAT,) * 4 + (VOLDEMORT,) * 4 + (HOWLER, INVISIBILITY, MOODY, RESURRECTION_STONE),
}

# First cards that go back into the deck (rulebook §6.5, §7.3, §7.4, §7.6).
PUT_BACK_FIRST: frozenset[int] = frozenset({WILD_DRAW_FOUR, HOWLER, INVISIBILITY, RESURRECTION_STONE})


@dataclass(frozen=True, slots=True)
class Deck:
    """Immutable per-variant tables indexed by card id."""

    name: str
    kind: tuple[int, ...]
    colour: tuple[int, ...]  # 0..3, or -1 for colourless cards
    value: tuple[int, ...]  # 0..9 for number cards, -1 otherwise
    points: tuple[int, ...]
    names: tuple[str, ...]
    draw_twos: tuple[int, ...]
    invisibility: int  # its card id, or -1 when the variant lacks it
    stone: int  # Resurrection Stone id, or -1
    draw_penalty: int  # 3 when the deck holds both Howler and Invisibility, else 2

    @property
    def size(self) -> int:
        return len(self.kind)

    def has(self, kind: int) -> bool:
        return kind in self.kind


def _build(name: str) -> Deck:
    kind: list[int] = []
    colour: list[int] = []
    value: list[int] = []
    for c in range(4):
        for v in (0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9):
            kind.append(NUMBER)
            colour.append(c)
            value.append(v)
        for k in (DRAW_TWO, DRAW_TWO, REVERSE, REVERSE, SKIP, SKIP):
            kind.append(k)
            colour.append(c)
            value.append(-1)
    for k in (WILD,) * 4 + (WILD_DRAW_FOUR,) * 4 + _EXTRAS[name]:
        kind.append(k)
        colour.append(-1)
        value.append(-1)
    points = tuple(value[i] if kind[i] == NUMBER else 20 if kind[i] < WILD else 50 for i in range(len(kind)))
    names = tuple(
        f"{COLOURS[colour[i]]} {value[i]}" if kind[i] == NUMBER
        else f"{COLOURS[colour[i]]} {_COLOURED_NAMES[kind[i]]}" if kind[i] < WILD
        else _WILD_NAMES[kind[i]]
        for i in range(len(kind))
    )
    both = HOWLER in kind and INVISIBILITY in kind
    return Deck(
        name=name,
        kind=tuple(kind),
        colour=tuple(colour),
        value=tuple(value),
        points=points,
        names=names,
        draw_twos=tuple(i for i, k in enumerate(kind) if k == DRAW_TWO),
        invisibility=kind.index(INVISIBILITY) if INVISIBILITY in kind else -1,
        stone=kind.index(RESURRECTION_STONE) if RESURRECTION_STONE in kind else -1,
        draw_penalty=3 if both else 2,
    )


_DECKS: dict[str, Deck] = {name: _build(name) for name in DECKS}


def deck(name: str) -> Deck:
    """The tables of deck variant ``name`` (one of :data:`DECKS`)."""
    return _DECKS[name]


def find(deck_: Deck, name: str) -> list[int]:
    """Card ids whose name is ``name`` (case-insensitive), in id order.  Handy in tests."""
    low = name.lower()
    return [i for i, n in enumerate(deck_.names) if n.lower() == low]
