"""A blocking call in a worker thread that a cancel abandons, on every trio p2php supports.

trio renamed ``to_thread.run_sync``'s ``cancellable`` to ``abandon_on_cancel`` (0.23). The bridge's stdin reader,
the resume log's writes, a transcript's save and a resume's rebuild each need it: one place keeps the shim.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import trio

T = TypeVar("T")

_ABANDON = {("abandon_on_cancel" if "abandon_on_cancel" in inspect.signature(trio.to_thread.run_sync).parameters
             else "cancellable"): True}


async def in_thread(fn: Callable[..., T], *args: Any, limiter: trio.CapacityLimiter | None = None) -> T:
    """``fn(*args)`` in a worker thread, left to finish alone if we are cancelled; under ``limiter`` (None: trio's
    default one, the loop's 40 threads)."""
    run_sync: Any = trio.to_thread.run_sync  # its keyword depends on the trio version
    result: T = await run_sync(fn, *args, limiter=limiter, **_ABANDON)
    return result
