"""Whole TCG games: the conformance check, 200 seeded engine games with both bots, one game through the protocol."""

from __future__ import annotations

from typing import Any

import pytest

from p2php.engine.local import LocalTable
from p2php.games.tcg.game import GAME
from p2php.testing import conformance
from p2php.testing.tcg import table_decks


def _incendio_unplayable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Base Set card is implemented: these tests take Incendio out of the engine to have one that is not."""
    from p2php.games.tcg import effects

    monkeypatch.delitem(effects.SPELLS, 25)


def test_conformance() -> None:
    played = conformance.check_game(GAME, seeds=range(4))
    assert all(p.result.winners for p in played)


def _play(seed: int, kinds: tuple[str, str], options: dict[str, Any]) -> LocalTable:
    opts = GAME.parse_options(options)
    table = LocalTable(GAME.new_state(2, opts), seed, private_decks=table_decks(opts))
    table.play({s: GAME.make_bot(kinds[s], f"{seed}/{s}") for s in (0, 1)})
    return table


def test_200_seeded_games_with_both_bots_finish_with_a_winner() -> None:
    kinds = [("random", "random"), ("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random")]
    decks = [{}, {"deck0": "draco", "deck1": "hermione"}, {"deck0": "draco"}, {"deck1": "hermione"}]
    wins = [0, 0]
    for seed in range(200):
        table = _play(seed, kinds[seed % 4], decks[(seed // 4) % 4])
        over = table.state.step()
        assert type(over).__name__ == "GameOver" and len(over.winners) == 1  # type: ignore[union-attr]
        wins[over.winners[0]] += 1  # type: ignore[union-attr]
    assert min(wins) > 0


def test_the_heuristic_beats_the_random_bot_mostly() -> None:
    wins = 0
    for seed in range(40):
        heuristic = seed % 2
        kinds = ("heuristic", "random") if heuristic == 0 else ("random", "heuristic")
        over = _play(1000 + seed, kinds, {}).state.step()
        wins += over.winners == (heuristic,)  # type: ignore[union-attr]
    assert wins >= 28


@pytest.mark.parametrize(("kind", "crypto"), [("heuristic", "verified"), ("random", "fast")])
def test_a_game_through_the_protocol_audits_clean(kind: str, crypto: str) -> None:
    """Secret decks through mental poker; the random bots also use Draco's ability (a Show, a Reveal of a hand card)."""
    from p2php.session.memory import make_peers, run_in_memory

    peers = make_peers("tcg", 2, {"crypto": crypto}, seed=3)  # each seat brings the deck the options name
    assert peers[0].private_decks == GAME.private_decks(GAME.parse_options({}), 0)
    run_in_memory(peers, {s: GAME.make_bot(kind, f"3/{s}") for s in (0, 1)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    assert len({p.state.state_hash() for p in peers}) == 1
    if kind == "random":
        assert any(e[0] == "discarded" for e in peers[0].state.events)  # type: ignore[attr-defined]


def _with_incendio() -> tuple[dict[int, dict[str, list[int]]], int]:
    from p2php.games.tcg.ids import BLOCK, card_of

    opts = GAME.parse_options({})
    decks = {s: GAME.private_decks(opts, s) for s in (0, 1)}
    incendio = next(i for i in range(BLOCK) if card_of(i).name == "Incendio")
    decks[0]["deck0"] = [incendio, *decks[0]["deck0"][1:]]
    return decks, incendio


def test_the_fast_audit_catches_a_secret_deck_with_a_card_the_table_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody sees a secret deck's list during the game; the fast audit recovers it and names the cheat."""
    _incendio_unplayable(monkeypatch)
    from p2php.session.memory import make_peers, run_in_memory

    decks, _ = _with_incendio()
    peers = make_peers("tcg", 2, {"crypto": "fast"}, seed=3, private_decks=decks)
    run_in_memory(peers, {s: GAME.make_bot("heuristic", f"3/{s}") for s in (0, 1)})
    for peer in peers:
        assert peer.verdict is not None and not peer.verdict.clean and peer.verdict.culprit == 0
        assert "seat 0's deck is not the list the table names for it" in peer.verdict.reason  # (Incendio in it)


def test_a_verified_table_names_a_secret_deck_outside_the_rules_at_its_first_pass(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A modified owner draws its deck from a pool with Incendio in it: its selection proof fails at once."""
    _incendio_unplayable(monkeypatch)
    from p2php.session.memory import make_peers, run_in_memory
    from p2php.session.verified import VerifiedDeck

    decks, incendio = _with_incendio()
    peers = make_peers("tcg", 2, {"crypto": "verified"}, seed=3, private_decks=decks)
    cheat = peers[0].vdeck
    assert cheat is not None
    honest = VerifiedDeck._pool
    cheat._pool = lambda rec: [incendio, *honest(cheat, rec)[1:]]  # type: ignore[method-assign]
    run_in_memory(peers, {s: GAME.make_bot("heuristic", f"3/{s}") for s in (0, 1)})
    other = peers[1]
    assert other.verdict is not None and other.verdict.culprit == 0 and other.verdict.code == "bad_secret_deck"
    assert not other.private_faces and not other.public_faces  # before a single card was dealt
