"""Output shared by the command-line front ends (:mod:`p2php.cli` and :mod:`p2php.peercli`)."""

from __future__ import annotations

import argparse
from typing import Any

from p2php.session.lockstep import Lockstep
from p2php.session.runner import check_seconds
from p2php.text import LINE, safe


def seconds(text: str) -> float:
    """An argparse type for a timeout: a finite number of seconds above 0 (NaN, inf or -5 is a usage error)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text[:20]!r}") from None
    try:
        return check_seconds(value, "the value")
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


class LogPrinter:
    """Prints the public log of one peer as the game goes (and its private view when asked)."""

    def __init__(self, stream: Any, view: bool) -> None:
        self.stream = stream
        self.view = view
        self.done = 0
        self.coded = False

    def __call__(self, ls: Lockstep, _lines: list[str]) -> None:
        from p2php.terminal import event_lines, safety_line

        if not self.coded:
            self.coded = True
            print(safety_line(ls), file=self.stream)

        while self.done < len(ls.events):
            event = ls.events[self.done]
            self.done += 1
            for line in event_lines(ls, event, person=True):
                if line.startswith("·") and not self.view and "revealed" not in line:
                    continue
                print(safe(line, LINE), file=self.stream)
