"""Smoke tests of the benchmark scripts: they run quickly and print the documented JSON keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

DEAL_KEYS = {
    "game", "peers", "options", "cards", "shuffles", "universe", "repeat",
    "setup_seconds", "setup_seconds_runs",
    "handshake_seconds", "shuffle_seconds", "deal_seconds", "other_seconds",
    "handshake_fraction", "shuffle_fraction", "deal_fraction", "other_fraction",
    "bytes_on_wire", "messages",
    "actions", "actions_measured", "action_latency_ms", "action_latency_ms_p90", "seconds_per_action",
    "machine", "note",
}
FULL_GAME_KEYS = {
    "game_seconds", "game_steps", "game_decisions", "game_messages", "bytes_per_game",
    "bytes_per_game_per_peer", "bytes_per_decision", "game_action_latency_ms", "game_audit", "bytes_by_kind",
}
ENGINE_KEYS = {
    "game", "players", "options", "unit", "seconds",
    "p2php_games", "p2php_games_per_s", "p2php_steps_per_s", "p2php_decisions_per_s",
    "p2php_decisions_per_game",
    "rlcard_version", "rlcard_games_per_s", "rlcard_decisions_per_s", "rlcard_decisions_per_game",
    "ratio", "decisions_ratio", "machine",
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "tests"), *filter(None, [env.get("PYTHONPATH")])]
    )
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def _json(*args: str) -> Any:
    proc = _run(*args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _check_deal(result: dict[str, Any], peers: int, actions: int) -> None:
    assert set(result) >= DEAL_KEYS, DEAL_KEYS - set(result)
    assert result["peers"] == peers
    assert result["setup_seconds"] > 0
    assert result["shuffle_seconds"] > 0
    assert result["bytes_on_wire"] > 0 and result["messages"] > 0
    assert result["cards"] >= result["universe"] > 0  # at least one whole deck was shuffled
    fractions = sum(result[f"{p}_fraction"] for p in ("handshake", "shuffle", "deal", "other"))
    assert fractions == pytest.approx(1.0, abs=0.01)
    assert 0 < result["actions_measured"] <= actions * result["repeat"]  # pooled over the runs
    assert {"nproc", "python"} <= set(result["machine"])


def test_deal_benchmark_uno() -> None:
    pytest.importorskip("p2php.games.uno")
    result = _json("benchmarks/deal.py", "--game", "uno", "--peers", "2", "--json", "--repeat", "1",
                   "--actions", "2")
    _check_deal(result, 2, 2)
    assert result["game"] == "uno"
    assert result["actions_measured"] == 2


def test_engine_speed_uno() -> None:
    pytest.importorskip("p2php.games.uno")
    result = _json("benchmarks/engine_speed.py", "--game", "uno", "--players", "2", "--seconds", "1",
                   "--json")
    assert set(result) >= ENGINE_KEYS, ENGINE_KEYS - set(result)
    assert result["unit"] == "round" and result["options"]["rounds"] == 1
    assert result["p2php_games"] >= 1 and result["p2php_games_per_s"] > 0
    assert result["p2php_steps_per_s"] > 0
    assert result["clock"] == "process_time" and result["p2php_state_hash_us"]["median"] > 0
    blocks = result["p2php_games_per_s_blocks"]
    assert blocks["min"] <= blocks["median"] <= blocks["max"]
    if result["rlcard_version"] is not None:  # rlcard is a benchmark-only dependency
        assert result["rlcard_games_per_s"] > 0 and result["ratio"] > 0
        assert result["rlcard_game_engine_per_s"] > 0 and result["engine_ratio"] > 0
    else:
        assert result["rlcard_skipped"] and result["rlcard_game_engine_per_s"] is None


def test_engine_speed_suite() -> None:
    pytest.importorskip("p2php.games.uno")
    out = _json("benchmarks/engine_speed.py", "--suite", "--seconds", "0.01", "--no-rlcard", "--json")
    assert [(r["game"], r["players"]) for r in out["suite"]] == [
        ("uno", 2), ("uno", 4), ("hpsha", 4), ("hpsha", 10), ("tcg", 2), ("hogwarts", 4)]
    assert all(r["p2php_games"] >= 1 and r["p2php_decisions_per_s"] > 0 for r in out["suite"])
    assert Path(out["p2php_from"]) == ROOT


def test_deal_benchmark_any_registered_game_with_a_full_game() -> None:
    result = _json("benchmarks/deal.py", "--import", "toygame", "--game", "toy", "--peers", "3", "--json",
                   "--repeat", "2", "--actions", "2", "--full-game", "--seed", "5")
    _check_deal(result, 3, 2)
    assert result["repeat"] == 2 and len(result["setup_seconds_runs"]) == 2
    assert set(result) >= FULL_GAME_KEYS, FULL_GAME_KEYS - set(result)
    assert result["game_audit"] == "clean"
    assert result["bytes_per_game"] >= result["bytes_on_wire"]


def test_engine_speed_any_registered_game() -> None:
    result = _json("benchmarks/engine_speed.py", "--import", "toygame", "--game", "toy", "--players", "3",
                   "--seconds", "0.2", "--json")
    assert set(result) >= ENGINE_KEYS
    assert result["unit"] == "game" and result["rlcard_games_per_s"] is None


@pytest.mark.parametrize("script", ["benchmarks/deal.py", "benchmarks/engine_speed.py"])
def test_unknown_game_is_a_clear_error(script: str) -> None:
    proc = _run(script, "--game", "no-such-game", "--json")
    assert proc.returncode == 2
    assert "unknown game 'no-such-game'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_deal_benchmark_pools_whole_games_and_measures_them_without_deflate() -> None:
    args = ("benchmarks/deal.py", "--import", "toygame", "--game", "toy", "--peers", "3", "--json", "--repeat", "1",
            "--actions", "0", "--games", "5-6")
    pooled, plain = _json(*args)["games"], _json(*args, "--no-deflate")["games"]
    assert pooled["seeds"] == [5, 6] and pooled["audits"] == ["clean", "clean"]
    assert pooled["bytes_per_decision"] == round(pooled["bytes"] / pooled["decisions"])
    assert plain["decisions"] == pooled["decisions"]  # the same two games, signed byte for byte
    assert plain["bytes"] > pooled["bytes"]  # deflate saved something on them
    kinds = pooled["bytes_by_kind"]
    assert {"action", "audit"} <= set(kinds) and list(kinds.values()) == sorted(kinds.values(), reverse=True)
    assert kinds == plain["bytes_by_kind"]  # counted before deflate: the same frames
    assert sum(kinds.values()) < plain["bytes"]  # link tags and handshakes are on the wire too


def test_deal_benchmark_refuses_malformed_seeds() -> None:
    proc = _run("benchmarks/deal.py", "--game", "uno", "--games", "1-x", "--json")
    assert proc.returncode == 2 and "expected seeds like 1-12" in proc.stderr and "Traceback" not in proc.stderr


def test_deal_counts_the_crypto_operations_of_a_fast_setup() -> None:
    """``--actions 0``: every P-256 product, signature and check of the set-up is counted and set against its CPU."""
    pytest.importorskip("p2php.games.uno")
    result = _json("benchmarks/deal.py", "--game", "uno", "--peers", "2", "--json", "--repeat", "1",
                   "--actions", "0", "--option", "deck=hat", "--option", "crypto=fast")
    ops = result["crypto_ops"]
    assert ops["p256_mul_many"] >= 2  # each peer's shuffle pass: one key for the whole deck
    assert ops["p256_mul_many_more"] >= 2 * (result["universe"] - 1)
    assert ops["p256_mul"] >= result["universe"]  # the lock passes: one key per card
    assert ops["ed25519_sign"] >= result["messages"] // 2 and ops["ed25519_verify"] >= 1
    assert set(result["group_ops"]) == {k for k in ops if k.startswith("p256_")}
    assert set(result["crypto_unit_us"]) == set(ops) and min(result["crypto_unit_us"].values()) > 0
    assert result["crypto_ops_seconds"] > result["group_ops_seconds"] > 0
    for key in ("group", "crypto"):  # the set-up costs more than its crypto, by either measure
        assert result[f"setup_cpu_over_{key}_ops"] > 1 and result[f"setup_cpu_over_{key}_ops_in_run"] > 1
        assert 0 < result[f"{key}_ops_cpu_fraction"] < 1


def test_crypto_counter_restores_every_call() -> None:
    """Counting wraps the calls in every module that imported them by name, and puts each one back after."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import deal
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from p2php.crypto import deck, group
    from p2php.crypto.identity import Identity, PublicIdentity
    from p2php.rng import DetRng

    before = (group.mul, deck.mul, deck.mul_many, Identity.sign, PublicIdentity.verify)
    point, k = group.hash_to_point(b"test", b"1"), group.random_scalar(DetRng(b"test"))
    with deal.CryptoOps() as ops:
        assert deck.mul is not before[1] and group.mul is deck.mul
        deck.mul_many([point, point, point], k)
        group.mul(point, k)
    assert (group.mul, deck.mul, deck.mul_many, Identity.sign, PublicIdentity.verify) == before
    assert ops.counts["p256_mul_many"] == 1 and ops.counts["p256_mul_many_more"] == 2
    assert ops.counts["p256_mul"] == 1 and ops.counts["ed25519_sign"] == 0


def test_engine_compare_reports_games_and_decisions_per_second_of_both_trees() -> None:
    pytest.importorskip("p2php.games.uno")
    out = _json("benchmarks/engine_compare.py", "--before", str(ROOT), "--repeat", "1", "--seconds", "0.01",
                "--no-rlcard", "--json")
    assert [(r["game"], r["players"]) for r in out["rows"]][:2] == [("uno", 2), ("uno", 4)]
    for row in out["rows"]:
        assert row["before_decisions_per_game"] > 0 and row["decisions_per_game"] > 0
        assert row["before_decisions_per_s"]["median"] > 0 and row["after_decisions_per_s"]["median"] > 0
        assert row["decisions_ratio"]["median"] > 0 and row["ratio"]["median"] > 0
