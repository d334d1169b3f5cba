"""Whole games with random legal 60-card constructed decks of the implemented cards (``format=constructed``)."""

from __future__ import annotations

from p2php.engine.contract import GameOver
from p2php.engine.local import LocalTable
from p2php.games.tcg.decklist import parse_deck
from p2php.games.tcg.game import GAME, deck_problem
from p2php.testing import conformance
from p2php.testing.tcg import random_deck_text, table_decks

KINDS = [("random", "random"), ("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random")]


def options(seed: int) -> dict[str, str | int | bool]:
    return GAME.parse_options({"format": "constructed", "decklist0": random_deck_text(2 * seed),
                               "decklist1": random_deck_text(2 * seed + 1)})


def test_the_generator_makes_legal_decks_of_implemented_cards() -> None:
    for seed in range(50):
        assert deck_problem(parse_deck(random_deck_text(seed)), "constructed") is None
    assert random_deck_text(7) == random_deck_text(7)


def test_100_seeded_constructed_games_finish_with_a_winner() -> None:
    wins = [0, 0]
    for seed in range(100):
        opts = options(seed)
        table = LocalTable(GAME.new_state(2, opts), seed, private_decks=table_decks(opts))
        kinds = KINDS[seed % 4]
        table.play({s: GAME.make_bot(kinds[s], f"{seed}/{s}") for s in (0, 1)})
        over = table.state.step()
        assert isinstance(over, GameOver) and len(over.winners) == 1
        wins[over.winners[0]] += 1
    assert min(wins) > 0


def test_conformance_with_constructed_decks() -> None:
    played = conformance.check_game(GAME, seeds=range(2), options=options(3))
    assert all(p.result.winners for p in played)


def test_a_constructed_game_through_the_protocol_audits_clean() -> None:
    """Random bots exercise the new cards' steps (Shows, Reveals of hand and deck cards) through mental poker."""
    from p2php.session.memory import make_peers, run_in_memory

    opts = {"crypto": "fast", "format": "constructed", "decklist0": random_deck_text(2),
            "decklist1": random_deck_text(3)}
    peers = make_peers("tcg", 2, opts, seed=1)
    run_in_memory(peers, {s: GAME.make_bot("random", f"1/{s}") for s in (0, 1)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    assert len({p.state.state_hash() for p in peers}) == 1
