"""The board's records: cell kinds (data §1.1), cells and their links (§1.3–1.5), special links (§1.6) and
the effects of classrooms and special cells (§1.7).

Cells keep the document's ids and labels, which are the game's identifiers.  A cell lists its walk
neighbours (1 step each) and its links; every link but the portal is a free link (0 steps, part of
movement, data §1.2), which is why :attr:`Link.is_free` is the only distinction movement needs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BOARDS", "PORTAL", "Cell", "CellEffect", "CellKind", "Link", "SpecialLink", "kind_template"]

BOARDS = ("main", "board1", "board2")
"""The three map boards (the Quidditch pitch is separate, :mod:`.pitch`)."""
PORTAL = "portal"
"""The one link type that is not movement: the portal-token trip from the pitch to the graveyard."""
GREAT_HALL_FLAG = "gh"


def kind_template(kind: str) -> str:
    """The §1.1 row a cell kind belongs to: ``life:3`` -> ``life:N``; other kinds are their own row."""
    return "life:N" if re.fullmatch(r"life:\d+", kind) else kind


@dataclass(frozen=True, slots=True)
class CellKind:
    """One row of §1.1: what stopping on a cell of this kind does and whether you may stop there early."""

    kind: str
    effect: str
    voluntary_stop: str  # "yes", "no", "always" (the pitch ends movement), "never" (cannot be entered)
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CellKind:
        return cls(str(raw["kind"]), str(raw["effect"]), str(raw["voluntary_stop"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class Link:
    """A link listed on a cell: ``passage1``-``3`` and ``free`` cost no step; ``portal`` is not movement."""

    type: str
    to: str

    @property
    def is_free(self) -> bool:
        return self.type != PORTAL


@dataclass(frozen=True, slots=True)
class Cell:
    """One map cell (§1.3–1.5): ``neighbours`` are 1-step walk edges, ``links`` the 0-step and portal links."""

    id: str
    board: str
    kind: str
    label: str
    flags: tuple[str, ...]
    neighbours: tuple[str, ...]
    links: tuple[Link, ...]
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Cell:
        return cls(str(raw["id"]), str(raw["board"]), str(raw["kind"]), str(raw["label"]),
                   tuple(str(f) for f in raw["flags"]), tuple(str(n) for n in raw["neighbours"]),
                   tuple(Link(str(link["type"]), str(link["to"])) for link in raw["links"]), str(raw["src"]))

    @property
    def life_points(self) -> int | None:
        """N for a ``life:N`` cell ("+N LP"), else ``None``."""
        match = re.fullmatch(r"life:(\d+)", self.kind)
        return int(match.group(1)) if match else None

    @property
    def in_great_hall(self) -> bool:
        """Whether the cell is "part of the Great Hall" (flag ``gh``): a destination for EV03 and mission 30."""
        return GREAT_HALL_FLAG in self.flags

    @property
    def free_links(self) -> tuple[str, ...]:
        return tuple(link.to for link in self.links if link.is_free)


@dataclass(frozen=True, slots=True)
class SpecialLink:
    """One row of §1.6; ``cost`` is ``None`` for the portal, which is not movement."""

    source: str
    target: str
    type: str
    cost: int | None
    two_way: bool
    use: str
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> SpecialLink:
        cost = raw["cost"]
        return cls(str(raw["from"]), str(raw["to"]), str(raw["type"]), None if cost is None else int(cost),
                   bool(raw["two_way"]), str(raw["use"]), str(raw["src"]))


@dataclass(frozen=True, slots=True)
class CellEffect:
    """One row of §1.7: the cards a classroom or special cell gives when you stop there.

    ``take`` lists ``(deck, count)`` to take into the hand; ``action_draws`` action cards are drawn and applied;
    ``exam`` is the subject whose book cards may be scored there (classrooms only).
    """

    cell: str
    text: str
    take: tuple[tuple[str, int], ...]
    action_draws: int
    exam: str | None
    src: str

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CellEffect:
        exam = raw["exam"]
        return cls(str(raw["cell"]), str(raw["text"]), tuple((str(d), int(n)) for d, n in raw["take"]),
                   int(raw["action_draws"]), None if exam is None else str(exam), str(raw["src"]))
