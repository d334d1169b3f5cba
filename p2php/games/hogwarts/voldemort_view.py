"""The terminal's lines for The Return of Lord Voldemort: who plays the villain and whether he has returned,
the Horcruxes destroyed, each side's goal, and where the Death Eaters stand with their LP and cards.
Presentation only: nothing here is hashed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .data import load

__all__ = ["return_lines"]


def return_lines(r: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    data = load()
    villain = int(r.get("villain", 0))
    who = names[villain] if villain < len(names) else f"seat {villain}"
    role = "Lord Voldemort" if r.get("returned") else "Peter Pettigrew (Voldemort has not returned)"
    destroyed = [data.object_tokens[t].name for t in r.get("destroyed", []) if t in data.object_tokens]
    lines = [f"  The Return of Lord Voldemort: {who} plays {role}",
             f"     Horcruxes destroyed {len(destroyed)}/{r.get('horcruxes')}: {', '.join(destroyed) or '—'}",
             f"     goals: Voldemort {'holds the Elder Wand' if r.get('villain_goal') else 'not yet'}; "
             f"heroes {'ready (Horcruxes and Stone)' if r.get('hero_goal') else 'not yet'}"]
    for name, cell, lp, cards in r.get("eaters", []):
        found = data.cells.get(str(cell))
        lines.append(f"     Death Eater {name}: {found.label if found is not None else cell}; {lp} LP, {cards} cards")
    if r.get("retry"):
        lines.append(f"     trying a Horcrux again: seats {', '.join(str(s) for s in r['retry'])}")
    return lines
