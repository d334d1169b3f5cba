"""The Quidditch pitch (data §5): the 41-cell grid of Phase 1, the 24-cell seeker circuit of Phase 2, the
default formation and the 32 Quidditch tokens.

Grid cells are ``q_C_R`` (column 0..8 from side A's goal, row 0..4); ``zone`` says which line a cell is on
(``goal_A``, ``line3_A``, ``line4_A``, ``centre_line``, ``centre``, ``line4_B``, ``line3_B``, ``goal_B``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["CircuitCell", "Formation", "Pitch", "PitchCell", "PitchLine", "PitchTokens"]


def _counts(raw: Mapping[str, Any]) -> Mapping[str, int]:
    return MappingProxyType({str(key): int(raw[key]) for key in sorted(raw)})


@dataclass(frozen=True, slots=True)
class PitchCell:
    id: str
    col: int
    row: int
    zone: str
    neighbours: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PitchLine:
    """One row of §5.1's lines table, as printed."""

    line: str
    side_a: str
    side_b: str
    src: str


@dataclass(frozen=True, slots=True)
class Formation:
    """A side's default starting cells (§5.1), which reproduce the rulebook's worked match."""

    keeper: str
    beaters: tuple[str, ...]
    chasers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CircuitCell:
    id: str
    next: str
    note: str | None


@dataclass(frozen=True, slots=True)
class PitchTokens:
    """§5.3: per house one Seeker, one Keeper, two Beaters, three Chasers; plus the balls; 32 in all."""

    houses: int
    pieces: Mapping[str, int]
    balls: Mapping[str, int]
    total: int


@dataclass(frozen=True, slots=True)
class Pitch:
    grid: Mapping[str, PitchCell]  # in the document's order
    lines: tuple[PitchLine, ...]
    formation: Mapping[str, Formation]  # "A" (the challenger, west) and "B"
    bludger_start: Mapping[str, str]
    circuit: tuple[CircuitCell, ...]  # clockwise from the starting cell
    tokens: PitchTokens

    @property
    def quaffle_start(self) -> str:
        """The centre cell, where the Quaffle starts."""
        return next(c.id for c in self.grid.values() if c.zone == "centre")

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Pitch:
        grid = {str(c["id"]): PitchCell(str(c["id"]), int(c["col"]), int(c["row"]), str(c["zone"]),
                                        tuple(str(n) for n in c["neighbours"])) for c in raw["grid"]}
        formation = {str(side): Formation(str(f["keeper"][0]), tuple(str(b) for b in f["beaters"]),
                                          tuple(str(c) for c in f["chasers"]))
                     for side, f in sorted(raw["formation"].items())}
        tokens = raw["tokens"]
        return cls(
            MappingProxyType(grid),
            tuple(PitchLine(str(r["line"]), str(r["side_a"]), str(r["side_b"]), str(r["src"])) for r in raw["lines"]),
            MappingProxyType(formation),
            MappingProxyType({str(s): str(c) for s, c in sorted(raw["bludger_start"].items())}),
            tuple(CircuitCell(str(c["id"]), str(c["next"]), None if c["note"] is None else str(c["note"]))
                  for c in raw["circuit"]),
            PitchTokens(int(tokens["houses"]), _counts(tokens["pieces"]), _counts(tokens["balls"]),
                        int(tokens["total"])),
        )
