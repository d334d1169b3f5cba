"""p2php.testing on the toy game: one script in both modes, stacked decks, fixed dice, clear errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from p2php.engine.contract import CardId, Shuffle
from p2php.engine.registry import get_game
from p2php.rng import DetRng
from p2php.session.memory import run_in_memory
from p2php.testing import Scenario, StackingError, stacked_peers
from p2php.testing.protocol import ProtocolTable
from p2php.testing.scenario import Mode, scenario_mode


class Reversed(Scenario):
    """Two toy seats; the deck comes out in reverse: seat 0 holds 11, 9, 7 and seat 1 holds 10, 8, 6."""

    def __init__(self, mode: Mode | None = None, **kw: object) -> None:
        super().__init__(get_game("toy"), 2, {}, mode=mode, **kw)  # type: ignore[arg-type]

    def arrange(self, step: Shuffle) -> Sequence[CardId]:
        return list(reversed(step.cards))


@pytest.mark.usefixtures("mode")
def test_one_script_runs_on_a_dealer_and_through_the_protocol() -> None:
    sc = Reversed()
    sc.expect((0, 1), "bid")
    sc.answer([(0, {"type": "bid", "n": 1}), (1, {"type": "bid", "n": 2})])
    first = sc.state.first  # type: ignore[attr-defined]
    assert [sc.table.faces[s] for s in (0, 2, 4)] == [11, 9, 7]
    sc.assert_illegal(first, {"type": "play", "slot": 1 - first})  # the other seat's card
    sc.assert_legal(first, {"type": "play", "slot": first})
    sc.script([(first, {"type": "play", "slot": first}, "play"), (1 - first, {"type": "play", "slot": 1 - first})])
    over = sc.over()
    assert over.winners == (0,)  # 11 % 6 = 5 beats 10 % 6 = 4


class ReversedVerified(Reversed):
    """The same scenario through the verified deck (a scenario may ask for a deck protocol)."""

    def __init__(self, mode: Mode | None = None, **kw: object) -> None:
        Scenario.__init__(self, get_game("toy"), 2, {"crypto": "verified"}, mode=mode, **kw)  # type: ignore[arg-type]


@pytest.mark.usefixtures("mode")
def test_a_scenario_may_ask_for_the_verified_deck() -> None:
    sc = ReversedVerified()
    if isinstance(sc.table, ProtocolTable):
        assert all(p.crypto == "verified" for p in sc.table.peers)
    sc.answer([(0, {"type": "bid", "n": 1}), (1, {"type": "bid", "n": 2})])
    first = sc.state.first  # type: ignore[attr-defined]
    assert [sc.table.faces[s] for s in (0, 2, 4)] == [11, 9, 7]  # stacked through proven passes
    sc.script([(first, {"type": "play", "slot": first}, "play"), (1 - first, {"type": "play", "slot": 1 - first})])
    assert sc.over().winners == (0,)


def test_fixed_dice_on_a_trusted_dealer() -> None:
    for value in (bytes(32), bytes([7]) * 32):
        sc = Reversed("engine", random=[value])
        sc.decide()
        assert sc.state.first == DetRng(value).below(2)  # type: ignore[attr-defined]


def test_fixed_dice_through_the_protocol_is_refused_clearly() -> None:
    with pytest.raises(StackingError, match="trusted dealer"):
        Reversed("protocol", random=[bytes(32)])


class Short(Reversed):
    def arrange(self, step: Shuffle) -> Sequence[CardId]:
        return [c for c in step.cards if c != 5] + [3]


@pytest.mark.parametrize("mode", ["engine", "protocol"])
def test_an_arrangement_that_is_no_permutation_says_which_cards(mode: Mode) -> None:
    wanted = r"deck deck at slot 0 .*not placed \[5\].*placed twice \[3\]"
    with pytest.raises(StackingError, match=wanted), scenario_mode(mode):
        Short(mode).decide()


def test_an_expected_prompt_that_does_not_come_is_named() -> None:
    sc = Reversed("engine")
    with pytest.raises(AssertionError, match=r"expected seats \(0,\) to decide, got \(0, 1\) \(bid\)"):
        sc.expect(0)
    with pytest.raises(AssertionError, match="expected prompt 'play', got 'bid'"):
        sc.expect((0, 1), "play")


@pytest.mark.parametrize("crypto", ["verified", "fast"])
def test_stacked_peers_play_a_whole_audited_game(crypto: str) -> None:
    """Stacking works in both deck protocols; in a verified one every stacked pass still carries a valid proof."""
    peers = stacked_peers("toy", 3, lambda step: list(reversed(step.cards)), {"reveal_end": True, "crypto": crypto},
                          seed=4)
    assert all(p.crypto == crypto for p in peers)
    bots = {s: get_game("toy").make_bot("random", s) for s in range(3)}
    run_in_memory(peers, bots)
    assert all(p.verdict is not None and p.verdict.clean for p in peers)
    assert len(peers[0].public_faces) >= 6  # every dealt card opens at the end (reveal_end)
    assert all(p.public_faces[s] == 11 - s for p in peers for s in p.public_faces)


@pytest.mark.usefixtures("mode")
def test_a_test_only_edit_reaches_every_peer_and_the_audit() -> None:
    sc = Reversed()
    sc.answer([(0, {"type": "bid", "n": 0}), (1, {"type": "bid", "n": 0})])
    first = sc.state.first  # type: ignore[attr-defined]
    sc.state.turn = 1  # type: ignore[attr-defined]  # skip the first player's turn
    last = 1 - first
    sc.act(last, {"type": "play", "slot": last}, "play")
    assert sc.over().winners == (last,)  # the audit (protocol mode) replays the edit at the same point


def test_hpsha_scenarios_refuse_a_starting_hand_longer_than_the_deal() -> None:
    from p2php.testing.hpsha import Scenario as HpshaScenario

    with pytest.raises(StackingError, match="seat 1 is dealt 4 cards, the scenario lists 5"):
        HpshaScenario(["ron", "snape", "voldemort", "luna"], hands={1: ["tears"] * 5}, mode="engine")


def test_hpsha_fillers_never_take_a_card_named_later() -> None:
    from p2php.games.hpsha.data import CARDS
    from p2php.testing.hpsha import INERT
    from p2php.testing.hpsha import Scenario as HpshaScenario

    first = next(c for c in CARDS if c.kind in INERT)  # the card a '*' takes first, named after the fillers
    sc = HpshaScenario(["ron", "snape", "voldemort", "luna"], hands={0: ["*", "*", first.id]}, mode="engine")
    assert first.id in [sc.table.faces[s] for s in sc.state.hands[0]]
