"""A read of the person's line that is cancelled (a question withdrawn, the game ending under the prompt) must not
swallow the line typed for the next read (rt7-stale).

``read_line`` reads in a worker thread; cancelled, it abandoned that thread, still blocked in ``input()``: the next
line typed went to it and was lost, and the next read waited for another line."""

from __future__ import annotations

import os
import threading
from typing import Any

import trio

from p2php.terminal import read_line


def _pipe() -> tuple[Any, Any]:
    r, w = os.pipe()
    return os.fdopen(r, "r"), os.fdopen(w, "w")


def _stdin_like(stream: Any) -> Any:
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        line = stream.readline()
        if not line:
            raise EOFError
        return str(line.rstrip("\n"))

    ask.prompts = prompts  # type: ignore[attr-defined]
    return ask


async def test_a_line_typed_after_a_cancelled_read_reaches_the_next_read() -> None:
    reader, writer = _pipe()
    ask = _stdin_like(reader)
    with trio.move_on_after(0.3):  # the question is withdrawn while the person thinks
        await read_line("A? ", ask)
    got: list[str | None] = []
    with trio.move_on_after(3.0):
        async with trio.open_nursery() as nursery:
            async def second() -> None:
                got.append(await read_line("B? ", ask))
            nursery.start_soon(second)
            await trio.sleep(0.2)
            writer.write("2\n")  # typed for B, once B is asked
            writer.flush()
    print("second read got:", got)
    assert got == ["2"], got
    writer.close()
    reader.close()


async def test_a_line_that_ends_while_nobody_waits_is_dropped_not_given_to_the_next_question() -> None:
    """Answered once A was withdrawn and before B was asked, a line was meant for A: B must not take it."""
    reader, writer = _pipe()
    ask = _stdin_like(reader)
    with trio.move_on_after(0.2):
        await read_line("A? ", ask)
    writer.write("3\n")  # meant for A, which nobody asks any more
    writer.flush()
    await trio.sleep(0.3)
    got: list[str | None] = []
    with trio.move_on_after(1.0):
        got.append(await read_line("B? ", ask))
    assert got == [], got  # B still waits: "3" was not its answer
    with trio.fail_after(3.0):
        async with trio.open_nursery() as nursery:
            async def again() -> None:
                got.append(await read_line("B? ", ask))
            nursery.start_soon(again)
            await trio.sleep(0.2)
            writer.write("1\n")  # typed once B is asked (again)
            writer.flush()
    assert got == ["1"], got
    writer.close()
    reader.close()


async def test_reads_one_after_another_and_end_of_input() -> None:
    threads = threading.active_count()  # (other tests' idle worker threads may still be alive)
    reader, writer = _pipe()
    ask = _stdin_like(reader)
    writer.write("x\ny\n")
    writer.flush()
    with trio.fail_after(3.0):
        assert await read_line("1? ", ask) == "x"
        assert await read_line("2? ", ask) == "y"
        writer.close()
        assert await read_line("3? ", ask) is None
    assert threading.active_count() <= threads + 1  # (the reader's own thread, ending)
    reader.close()


def test_piped_stdin_shows_each_prompt_once() -> None:
    """``p2php … < moves.txt``: each question's prompt is printed once. When the next read came before the reading
    thread had looked again (a quick "v" or "? NAME" at a prompt, a paste, a script), read_line printed the prompt as
    if the thread were still in the withdrawn question's ``input()``, and the thread then printed it again: 2 833
    prompts for 2 001 reads (rv7-stale)."""
    import subprocess
    import sys

    script = ("import trio\nfrom p2php.terminal import read_line\n"
              "async def main():\n    for i in range(301):\n        await read_line(f'<P{i}>')\ntrio.run(main)\n")
    out = subprocess.run([sys.executable, "-c", script], input="".join(f"{i}\n" for i in range(300)),
                         capture_output=True, text=True, timeout=60, check=True).stdout
    print("prompts shown:", out.count("<P"), "for 301 reads")
    assert out.count("<P") == 301


async def test_two_reads_waiting_at_once_each_get_a_line_the_newest_first() -> None:
    """Two questions open on one input, neither withdrawn (two people at one input in one process: a test's host and
    joiner both asked "Play again?" as their game ended): the newest takes the first line, the other the next one.
    Before, the older one was forgotten and waited for good (the host never returned, under load)."""
    reader, writer = _pipe()
    ask = _stdin_like(reader)
    got: dict[str, str | None] = {}
    with trio.fail_after(3.0):
        async with trio.open_nursery() as nursery:
            async def one(name: str) -> None:
                got[name] = await read_line(f"{name}? ", ask)
            nursery.start_soon(one, "A")
            await trio.sleep(0.1)
            nursery.start_soon(one, "B")
            await trio.sleep(0.1)
            writer.write("first\nsecond\n")
            writer.flush()
    assert got == {"B": "first", "A": "second"}, got
    writer.close()
    reader.close()
