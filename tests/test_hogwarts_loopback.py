"""A Year at Hogwarts between real peers over loopback TCP at a size the other tests do not play (6 peers, two
teams of 3), with the knowledge check of :mod:`p2php.testing.secrecy`; and the re-locking of a worn card
(E37, ``reseal``), which that check found missing.  Whole games of every mode at 1 to 6 peers are
``benchmarks/hogwarts_loopback.py``'s."""

from __future__ import annotations

import trio
from test_hogwarts_qualified import QTable

from p2php.engine.contract import Action, Deal, Reshuffle, Show
from p2php.games.hogwarts.decks import Draw
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import MISSIONS, deck_of_slot
from p2php.games.hogwarts.state import HogwartsState
from p2php.session.local_net import run_local_table
from p2php.session.lockstep import Lockstep
from p2php.session.runner import Decider, LeaveTable, bot_decider
from p2php.testing.protocol import ProtocolTable
from p2php.testing.secrecy import SecrecyWatch

PEERS = 6
DECISIONS = 60
"""Decisions of the whole table before seat 0 leaves: the sheets, the Death Eaters, the teammates' missions
shown, and some turns."""


def test_six_peers_in_two_teams_over_loopback_learn_nothing_early_and_the_partial_game_audits_clean() -> None:
    watch, probe = SecrecyWatch(), SecrecyWatch()
    asked: list[int] = []
    probed: list[int] = []

    def counted(seat: int, decide: Decider) -> Decider:
        async def one(ls: Lockstep) -> Action:
            asked.append(seat)
            if seat == 0 and len(asked) >= DECISIONS:
                raise LeaveTable()
            if seat == 1 and not probed and isinstance(ls.state, HogwartsState) and ls.state.hand[2]:
                probed.append(plant_a_leak(probe, ls))
            return await decide(ls)

        return watch.wrap(seat, one)

    deciders = [counted(s, bot_decider(GAME.make_bot("heuristic", f"loop/{s}"))) for s in range(PEERS)]
    options = {"mode": "team", "teams": "2", "length": "quick", "crypto": "fast"}
    results = trio.run(lambda: run_local_table(GAME.name, PEERS, deciders, options, seed=3, timeout=60.0))

    assert len(results) == PEERS and results[0].left
    verdicts = [r.lockstep.verdict for r in results]
    assert all(v is not None and v.code == "left" and v.culprit == 0 for v in verdicts), verdicts
    assert len({v.state_hash for v in verdicts if v is not None}) == 1
    assert watch.checks >= DECISIONS - 1 and not watch.violations, watch.violations[:3]
    shows = [e.step for e in results[1].lockstep.events if isinstance(e.step, Show)]
    team_shows = [s for s in shows if all(deck_of_slot(x) == MISSIONS for x in s.slots)]
    assert len(team_shows) == PEERS * 2  # each seat sees its 2 teammates' missions ...
    assert all(s.owner % 2 == s.viewer % 2 and s.owner != s.viewer for s in team_shows)
    # ... and the watch would have named a key of seat 2's hand card out of its hands, and a face known unshown
    assert probed and any(f"could open slot {probed[0]} (held by seat 2)" in v for v in probe.violations)
    assert any(f"knows the face of slot {probed[0]}" in v for v in probe.violations), probe.violations


def plant_a_leak(probe: SecrecyWatch, ls: Lockstep) -> int:
    """Check seat 1's lockstep with seat 2's key of one of its hand cards released, and that card's face known
    to seat 1, then undo both (nothing awaits in between: the game never sees them).  The slot."""
    assert isinstance(ls.state, HogwartsState)
    slot = ls.state.hand[2][0]
    probe.holders = lambda state: {slot: 2}
    ls.released[slot][2] = 0
    ls.released_at[(slot, 2)] = ls.tick
    ls.private_faces[slot] = 0
    try:
        probe.check(1, ls)
    finally:
        del ls.released[slot][2], ls.released_at[(slot, 2)], ls.private_faces[slot]
    return slot


def test_a_card_a_hand_held_is_locked_afresh_before_it_is_dealt_to_another_seat() -> None:
    """E37: seat 1's card goes under its deck face down and comes round to seat 2.  Dealt as it was, every
    seat could open it (seat 1 would release the last key other than seat 2's ... which seat 2 released when
    it was dealt to seat 1); it is re-locked (a Reshuffle of that one slot) and only seat 2 sees it."""
    t = QTable(3, mode="protocol")
    t.decide()
    g, peers = t.state, t.table.peers if isinstance(t.table, ProtocolTable) else []
    slot = g.hand[1][0]
    deck = deck_of_slot(slot)
    face = t.table.knowledge(1).face(slot)
    g.discard_from_hand(1, slot)
    g.deck[deck].remove(slot)
    g.deck[deck].insert(0, slot)
    seen = len(peers[0].events)
    t.push_task(Draw(2, deck))
    t.step()
    new = g.hand[2][-1]
    for seat in range(3):
        watch = SecrecyWatch()
        watch.check(seat, peers[seat])
        assert not watch.violations, watch.violations[:3]
    assert new != slot and slot not in g.worn and t.table.knowledge(2).face(new) == face
    assert t.table.knowledge(0).face(new) is None
    steps = [e.step for e in peers[0].events[seen:]]
    assert isinstance(steps[0], Reshuffle) and steps[0].slots == (slot,) and isinstance(steps[1], Deal)
    t.finish()
