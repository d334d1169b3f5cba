"""Playing in a terminal: what a person sees, and how their choices are read.

Everything a person sees comes from the same per-seat observation every bot
gets; input is re-asked until it is valid, and end of input or Ctrl-C ends the
game politely (the other peers then name this seat as gone, as they must).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

import trio

from p2php.engine.contract import Action, Deal, Decide, Randomness, Reveal, Show, Shuffle
from p2php.session.lockstep import Event, Lockstep


class Quit(Exception):
    """The person at the terminal chose to leave."""


def event_lines(ls: Lockstep, event: Event) -> list[str]:
    """Human lines for one resolved step, from this peer's point of view."""
    step = event.step
    name = ls.game.card_name
    if isinstance(step, Decide):
        return [f"{ls.table.name(seat)}: {line}" for (seat, _), line in zip(event.answers, event.lines,
                                                                             strict=False)]
    if isinstance(step, Shuffle):
        return [f"· every peer shuffled and locked a deck of {len(step.cards)} cards ({step.purpose})"]
    if isinstance(step, Deal):
        mine = [slot for slot, seat in step.to if seat == ls.seat]
        counts: dict[int, int] = {}
        for _, seat in step.to:
            counts[seat] = counts.get(seat, 0) + 1
        dealt = ", ".join(f"{ls.table.name(s)} {n}" for s, n in counts.items())
        line = f"· dealt face down: {dealt}"
        if mine:
            line += "  (you got: " + ", ".join(name(ls.private_faces[s], ls.options) for s in mine
                                               if s in ls.private_faces) + ")"
        return [line]
    if isinstance(step, Reveal):
        return ["· revealed: " + ", ".join(name(c, ls.options) for c in event.faces.values())]
    if isinstance(step, Show):
        return [f"· {ls.table.name(step.owner)} showed {len(step.slots)} card(s) privately to "
                f"{ls.table.name(step.viewer)}"]
    if isinstance(step, Randomness):
        return [f"· joint random draw ({step.purpose}): {event.random.hex()[:8]}"]
    return []


def render_observation(obs: dict[str, Any]) -> str:
    """A compact, readable rendering of an observation dict."""
    lines = []
    for key, value in obs.items():
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = ", ".join(value)
        lines.append(f"  {key.replace('_', ' ')}: {value}")
    return "\n".join(lines)


def action_label(ls: Lockstep, action: Action) -> str:
    assert ls.seat is not None
    known = {**ls.private_faces, **ls.public_faces}
    try:
        return ls.state.describe(ls.seat, action, known)
    except Exception:
        return str(action)


def terminal_decider(
    out: TextIO = sys.stdout, ask: Callable[[str], str] | None = None
) -> Callable[[Lockstep], Any]:
    """A decider that asks a person, re-asking until the answer is valid."""
    reader = ask or input

    async def decide(ls: Lockstep) -> Action:
        assert ls.seat is not None
        legal = ls.legal_actions()
        obs = ls.state.observation(ls.seat, ls.knowledge())
        out.write("\n" + "─" * 60 + "\nYour view:\n" + render_observation(obs) + "\n")
        for i, action in enumerate(legal, 1):
            out.write(f"  {i:>2}. {action_label(ls, action)}\n")
        out.flush()
        while True:
            try:
                raw = await trio.to_thread.run_sync(reader, f"Choose 1–{len(legal)} (q to quit): ")
            except (EOFError, KeyboardInterrupt):
                raise Quit() from None
            raw = raw.strip().lower()
            if raw in ("q", "quit", "exit"):
                raise Quit()
            if raw.isdigit() and 1 <= int(raw) <= len(legal):
                return legal[int(raw) - 1]
            out.write(f"  '{raw}' is not a choice: type a number from 1 to {len(legal)}.\n")
            out.flush()

    return decide
