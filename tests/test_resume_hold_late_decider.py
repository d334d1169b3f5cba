"""A decider withdrawn before its task first ran (rv7-stale).

The runner starts the decider with ``nursery.start_soon``, and the decider's task set ``decider_scope`` only once it
ran: trio may run the runner's next step first (a frame already waiting in its channel -- the sync answer that hands
our move back), and the withdrawal then cancelled the previous decider's scope, or none: the stale decider ran all
the same, its question open beside the owed one's. An app on the Peer API answered it (its receive was first in the
channel), the answer was dropped by number, the owed question waited, and seat 1 was named silent; a person at a
terminal kept a prompt open for good (``asking``: no progress line for the rest of the game), or lost the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from test_resume_hold_stale_ask import _play

from p2php.session import runner as runner_module


@pytest.mark.parametrize("who", ["app", "person"])
async def test_a_decider_withdrawn_before_it_ran_asks_nothing(tmp_path: Path, monkeypatch: Any, who: str) -> None:
    run_decider = runner_module._Runner._run_decider
    late: list[int] = []

    async def scheduled_late(self: Any, *args: Any) -> None:
        run = args[1]
        if self.hold_until is not None and not late:  # the hold's first decider: its task first runs after the
            late.append(run)  # runner's next step (an order trio allows: the frame handing our move back waited)
            with trio.move_on_after(2.0):
                while self.decider_run == run:
                    await trio.sleep(0)
        await run_decider(self, *args)

    monkeypatch.setattr(runner_module._Runner, "_run_decider", scheduled_late)
    said = await _play(tmp_path, leave=False, api=who == "app", person=who == "person")
    assert late
    assert all(v is not None and v[1] != 1 for v in said.values()), said
