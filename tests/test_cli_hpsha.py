"""``p2php demo hpsha`` and ``p2php play hpsha`` as a person (or a script) uses them: real processes, real sockets."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

P2PHP = [sys.executable, "-m", "p2php.cli"]
BILINGUAL = re.compile(r"[\u4e00-\u9fff][\u4e00-\u9fff·&]* [A-Z][A-Za-z]+")
"""A Chinese name with its English beside it, e.g. "爆破咒 Bombarda", "部长 Minister"."""


def run(*args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*P2PHP, *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def test_demo_hpsha_json_audits_clean() -> None:
    out = run("demo", "hpsha", "--peers", "4", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["game"] == "hpsha" and result["peers"] == 4
    assert result["audit"] == "clean" and result["agree"]
    assert result["winner"] and "Minister" in result["summary"]


@pytest.mark.parametrize("seed", [5, 8])
def test_play_hpsha_reasks_invalid_input_and_finishes(seed: int) -> None:
    answers = "hello\n0\n99\n" + "1\n" * 3000
    out = run("play", "hpsha", "--bots", "3", "--seed", str(seed), stdin=answers)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    assert "Traceback" not in text
    assert "is not a choice" in out.stdout
    assert "audit: clean" in out.stdout or "You left the table" in out.stdout
    # the view: names in Chinese with English beside, identity, characters, HP, distances, whose turn
    assert "Your view" in out.stdout and "Harry Potter Sha" in out.stdout
    assert "身份 Identity" in out.stdout and "部长 Minister" in out.stdout
    assert len(set(BILINGUAL.findall(out.stdout))) > 20
    assert re.search(r"HP \d+/\d+", out.stdout) and "distance" in out.stdout
    assert "Your hand" in out.stdout and "play phase" in out.stdout


def test_play_hpsha_ends_politely_when_input_ends() -> None:
    out = run("play", "hpsha", "--bots", "3", "--seed", "5", stdin="2\n")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "You left the table" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_play_hpsha_in_english_only() -> None:
    out = run("play", "hpsha", "--bots", "3", "--seed", "5", "--lang", "en", stdin="1\n" * 3000)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Minister" in out.stdout and "部长" not in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
