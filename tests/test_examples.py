"""Every file in examples/ works as its documentation says: run each one, check the walkthrough's commands."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from p2php.bridge import OPS
from p2php.cli import build_parser

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True,
                         timeout=120, cwd=EXAMPLES.parent)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    return out


def test_embed_client_plays_uno_against_bots() -> None:
    out = run_example("embed_client.py", "--bots", "2", "--rounds", "1", "--seed", "3").stdout
    assert "table formed: uno" in out and "> our turn" in out
    assert "audit: clean" in out and "verified" in out


def test_bridge_client_drives_the_bridge_over_stdio() -> None:
    out = run_example("bridge_client.py", "--bots", "2", "--rounds", "1", "--seed", "4").stdout
    assert "seated at 0" in out and "> our turn" in out
    assert "audit: clean" in out and "verified" in out


@pytest.mark.parametrize("players", [2, 4])
def test_tiny_game_plugs_into_the_protocol(players: int) -> None:
    out = run_example("tiny_game.py", "--players", str(players), "--seed", "2").stdout
    assert "every peer shuffled" in out and "you got:" in out and "revealed:" in out
    assert "catches the Snitch; audit: clean" in out and "re-verified from scratch: OK" in out


def code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_lan_party_walkthrough_uses_real_commands_and_flags() -> None:
    text = (EXAMPLES / "lan_party.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = [line for block in code_blocks(text, "sh") for line in block.splitlines()
                if line.startswith("p2php ")]
    assert len(commands) >= 8
    for line in commands:
        try:
            parser.parse_args(shlex.split(line)[1:])
        except SystemExit:
            pytest.fail(f"examples/lan_party.md: `{line}` is not a valid p2php command")
    inline = set(re.findall(r"`p2php ([a-z]+)", text))
    known = {name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
             for name in action.choices}
    assert inline <= known, inline - known
    for block in code_blocks(text, "json"):
        assert json.loads(block)["op"] in OPS
