"""Our own decider's action that the rules refuse, or that cannot be sent, is asked for again, never raised.

The runner played a decider's action with ``Lockstep.act``, whose refusal ended the peer with no verdict and no
transcript; the other seats then waited ``resume_timeout`` and named it unreachable. An embedder reached it through
``Peer.submit`` with a float for a slot number, a field of 70 000 values the rules ignore, or a dict it changed after
submitting (red-team rt4-embed). The API now checks those itself; the runner no longer trusts that it did.
"""

from __future__ import annotations

from typing import Any

from p2php.bots import RandomBot
from p2php.session.local_net import run_local_table
from p2php.session.lockstep import Lockstep
from p2php.session.runner import MAX_OWN_REFUSALS, bot_decider


def _clumsy(bad: list[Any], seed: int) -> Any:
    """A decider that first answers each of ``bad`` (at its first decision), then as a random bot."""
    bot = bot_decider(RandomBot(seed))
    left = list(bad)

    async def decide(ls: Lockstep) -> Any:
        if left:
            return left.pop(0)
        return await bot(ls)

    return decide


async def test_a_refused_or_oversized_own_action_is_asked_again_and_the_game_ends_clean() -> None:
    bad = [{"type": "play", "slot": 10**6}, {"type": "no such move"}, {"type": "pass", "x": [0] * 70_000},
           {"type": "pass", "f": 1.5}]
    deciders = [_clumsy(bad, 0), bot_decider(RandomBot(1)), bot_decider(RandomBot(2))]
    results = await run_local_table("toy", 3, deciders, seed=3, timeout=10.0)
    assert len(results) == 3
    for r in results:
        assert r.lockstep.verdict is not None and r.lockstep.verdict.clean, r.lockstep.verdict


async def test_a_decider_that_answers_nothing_legal_leaves_the_table() -> None:
    """It leaves (a signed leave, verdict ``left``) rather than ask for ever; the others end the game at once."""
    deciders = [_clumsy([{"type": "no such move"}] * MAX_OWN_REFUSALS, 0), bot_decider(RandomBot(1)),
                bot_decider(RandomBot(2))]
    results = await run_local_table("toy", 3, deciders, seed=3, timeout=10.0)
    assert len(results) == 3 and results[0].left
    for r in results:
        verdict = r.lockstep.verdict
        assert verdict is not None and verdict.code == "left" and verdict.culprit == 0, verdict


def test_lockstep_act_refuses_an_action_past_the_bound_before_signing_it() -> None:
    """``Lockstep.act`` itself refuses an action past ``MAX_ACTION_VALUES`` / ``MAX_ACTION_BYTES`` (the bound every
    other seat applies on arrival, §5.2 check 6), whatever drives it. Before, only the runner and the API's
    ``submit`` checked it: a game whose legal action is past the bound, played by honest bots through the in-memory
    network or the protocol testing kit, had the honest seat's action signed and sent, and every other seat named
    it ``bad_message`` (review rv8-red)."""
    import pytest

    from p2php.engine.contract import IllegalAction
    from p2php.engine.contract import RandomBot as Bot
    from p2php.session.memory import make_peers, run_in_memory

    class Stray(Bot):  # type: ignore[misc]
        def choose(self, state: Any, seat: int, knowledge: Any, legal: list[Any]) -> Any:
            return {**legal[0], "zz": "y" * 70_000}  # a field the toy game's check ignores, as HP Sha's do

    peers = make_peers("toy", 3, {"crypto": "fast"}, seed=16)
    with pytest.raises(IllegalAction, match="an action holds at most 4096 values and 65536 bytes"):
        run_in_memory(peers, {0: Stray(0), 1: Stray(1), 2: Stray(2)})
    for ls in peers:
        assert ls.fault is None, ls.fault  # nobody was named (before: the sender, bad_message)
        assert all("zz" not in (m.body.get("action") or {}) for m in ls.poll() if m.kind == "action")


def test_an_action_exactly_at_each_bound_is_not_past_it() -> None:
    """``past_action_bound`` is strict on both bounds: an action of exactly ``MAX_ACTION_BYTES`` bytes or exactly
    ``MAX_ACTION_VALUES`` values is one an honest seat signs and every other seat takes (refused, its seat would be
    named ``bad_message`` for a legal action); one more byte or value is past it."""
    from p2php.canonical import encode
    from p2php.net.framing import body_values
    from p2php.session.messages import MAX_ACTION_BYTES, MAX_ACTION_VALUES, past_action_bound

    def padded(n: int) -> bytes:
        return encode({"type": "x", "pad": b"\0" * n})

    n = MAX_ACTION_BYTES - len(padded(300)) + 300  # (300: a bin16's header, as at the bound)
    assert len(padded(n)) == MAX_ACTION_BYTES and body_values(padded(n)) < MAX_ACTION_VALUES
    assert not past_action_bound(padded(n))
    assert len(padded(n + 1)) == MAX_ACTION_BYTES + 1 and past_action_bound(padded(n + 1))

    def listed(k: int) -> bytes:
        return encode({"type": "x", "v": [0] * k})

    k = MAX_ACTION_VALUES - body_values(listed(0))
    assert body_values(listed(k)) == MAX_ACTION_VALUES and len(listed(k)) < MAX_ACTION_BYTES
    assert not past_action_bound(listed(k))
    assert body_values(listed(k + 1)) == MAX_ACTION_VALUES + 1 and past_action_bound(listed(k + 1))
