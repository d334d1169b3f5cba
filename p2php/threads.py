"""A blocking call in a worker thread that a cancel abandons, on every trio p2php supports.

trio renamed ``to_thread.run_sync``'s ``cancellable`` to ``abandon_on_cancel`` (0.23). The bridge's stdin reader,
the resume log's writes, a transcript's save and a resume's rebuild each need it: one place keeps the shim. And
:func:`loop_limiter`, a loop's own pool of threads for one kind of work.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import trio

T = TypeVar("T")

_LIMITERS: dict[str, trio.lowlevel.RunVar[trio.CapacityLimiter]] = {}

_ABANDON = {("abandon_on_cancel" if "abandon_on_cancel" in inspect.signature(trio.to_thread.run_sync).parameters
             else "cancellable"): True}


async def in_thread(fn: Callable[..., T], *args: Any, limiter: trio.CapacityLimiter | None = None) -> T:
    """``fn(*args)`` in a worker thread, left to finish alone if we are cancelled; under ``limiter`` (None: trio's
    default one, the loop's 40 threads)."""
    run_sync: Any = trio.to_thread.run_sync  # its keyword depends on the trio version
    result: T = await run_sync(fn, *args, limiter=limiter, **_ABANDON)
    return result


def loop_limiter(name: str, size: int) -> trio.CapacityLimiter:
    """This trio loop's own limiter for the work called ``name`` (``size`` threads, set the first time it is asked):
    never trio's default one, the loop's 40 threads, which a hung disk's other calls may have spent (review
    rv7b-disk)."""
    var = _LIMITERS.setdefault(name, trio.lowlevel.RunVar(f"p2php_{name}"))
    try:
        return var.get()
    except LookupError:
        limiter = trio.CapacityLimiter(size)
        var.set(limiter)
        return limiter
