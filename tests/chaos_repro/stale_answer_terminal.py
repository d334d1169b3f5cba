"""A person's line typed for a withdrawn question answers the next one at the terminal (read_line has no question id).

Same table as stale_answer_bridge.py (seat 1 resumed from a log cut back, asked in the rejoin hold about a point seat 0
hands back at once: question A withdrawn, the owed question B asked). Seat 1 is a person at a TerminalUI whose lines
come from a pipe; they read A's menu, think 1.5 s and type their choice for A (its last entry). The line goes to B.
Run: PYTHONPATH=. .venv/bin/python tests/chaos_repro/stale_answer_terminal.py [--prefix]
(--prefix: the person types "#N k", N the question number the menu shows, after the proposed fix.)
"""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio

from p2php.net.mesh import listen, listener_port
from p2php.session.handshake import LocalSecrets
from p2php.session.lockstep import Lockstep
from p2php.session.memory import seeded_secrets
from p2php.session.resume import restore
from p2php.session.runner import run_peer
from p2php.terminal import TerminalUI
from tests.log_cut import LogCut
from tests.test_resume_hold_stale_ask import _bot, _cfg

THINK = 1.5
PREFIX = "--prefix" in sys.argv


async def main(tmp_path: Path) -> int:
    log = tmp_path / "seat1.resume"
    listeners = [await listen("127.0.0.1", 0) for _ in range(2)]
    addresses = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    results: dict[int, Any] = {}
    power = trio.CancelScope()
    marks: list[tuple[int, int]] = []
    counter = LogCut()
    wrong: list[Any] = []

    def observe(ls: Lockstep, _lines: Any) -> None:
        counter.watch(ls)
        if ls.tick >= 20 and ls.awaiting_me() and (not marks or marks[-1][0] != ls.tick):
            marks.append((ls.tick, counter.mark(ls)))
            if len(marks) == 2:
                power.cancel()

    async def seat_0() -> None:
        results[0] = await run_peer(_cfg(0, tmp_path, seeded_secrets(2, 0)), addresses, listeners[0], _bot(0))

    async def seat_1() -> None:
        with power:
            await run_peer(_cfg(1, tmp_path, seeded_secrets(2, 1)), addresses, listeners[1], _bot(1), observe)
        await listeners[1].aclose()
        counter.cut(log, marks[0][1])
        header, ls = restore(log)
        again = await listen("127.0.0.1", addresses[1][1])
        typed, keys = os.pipe()
        lines, keyboard = os.fdopen(typed, "r"), os.fdopen(keys, "w")

        def ask(_prompt: str) -> str:
            line = lines.readline()
            if not line:
                raise EOFError
            return str(line.rstrip("\n"))

        screen = io.StringIO()
        ui = TerminalUI(out=screen, ask=ask, lang="en", colour=False, tty=False)
        asked: list[tuple[int, list[Any]]] = []

        def menus() -> list[tuple[str, str]]:
            """Each menu printed so far: its header line and its last entry's number."""
            out: list[tuple[str, str]] = []
            for block in screen.getvalue().split("▶")[1:]:
                rows = block.splitlines()
                entries = [x for x in rows[1:] if re.match(r"\s+\d+\. ", x)]
                if entries:
                    out.append(("▶" + rows[0], entries[-1].strip().split(".")[0]))
            return out

        async def person() -> None:  # reads the first menu it sees (A), thinks THINK s, types A's last entry; then
            done = 0  # answers each newer menu after 0.2 s
            while True:
                await trio.sleep(0.05)
                seen = menus()
                if len(seen) <= done or not ui.asking:
                    continue
                first = done == 0
                header, last = seen[0] if first else seen[-1]
                done = len(seen) if not first else 1
                number = re.search(r"#(\d+)", header)
                await trio.sleep(THINK if first else 0.2)
                line = f"#{number.group(1)} {last}" if PREFIX and number else last
                if first:
                    print(f"person read menu {header!r}; types {line!r} (its last entry) after {THINK}s; "
                          f"menus printed by then: {len(menus())}")
                keyboard.write(line + "\n")
                keyboard.flush()
                if first:  # the person looks at the screen again: refused, they answer the open menu, else the next
                    await trio.sleep(0.3)
                    done = 2 - ("not played" in screen.getvalue())  # (A and B: B open still, or answered)

        async def decide(ls: Lockstep) -> Any:
            legal = ui.choices(ls, ls.legal_actions())
            asked.append((ls.tick, legal))
            if len(asked) <= 3:
                print(f"asked at tick {ls.tick}: {len(legal)} choices, last {legal[-1]}")
            action = await ui.decide(ls)
            if len(asked) <= 3:
                print(f"  answered at tick {ls.tick} with {action}")
            return action

        async with trio.open_nursery() as n:
            n.start_soon(person)
            results[1] = await run_peer(_cfg(1, tmp_path, LocalSecrets(master=header["master"])), addresses, again,
                                        decide, restored=ls)
            n.cancel_scope.cancel()
        await again.aclose()
        if asked and len(asked) > 1:
            wrong.append(asked)
        refused = [x for x in screen.getvalue().splitlines() if "question" in x and "open" in x]
        print("terminal lines refusing a stale answer:", refused[:2])

    with trio.fail_after(150):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat_0)
            nursery.start_soon(seat_1)
    for s in (0, 1):
        v = results[s].lockstep.verdict
        print(f"seat {s} verdict:", None if v is None else (v.code, v.culprit))
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        sys.exit(trio.run(main, Path(d)))
