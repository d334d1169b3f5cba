"""Drive ``p2php bridge`` from a plain script: a subprocess, JSON lines in and out, nothing else.

Run it:  python examples/bridge_client.py [--bots 2] [--rounds 1] [--seed 7]

This is what a client in any language does (Node, Go, C#, GDScript ...): start
the bridge, write one JSON command per line to its stdin, read one JSON event
per line from its stdout.  It uses only the standard library on purpose — no
p2php import — so it reads like a port to another language.  The messages are
documented in docs/bridge.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any


def bridge_command() -> list[str]:
    """How to start the bridge: $P2PHP_BRIDGE if set, else ``p2php bridge`` as this Python runs it."""
    if os.environ.get("P2PHP_BRIDGE"):
        return shlex.split(os.environ["P2PHP_BRIDGE"])
    if importlib.util.find_spec("p2php") is not None:
        return [sys.executable, "-m", "p2php.cli", "bridge"]  # the same as `p2php bridge`
    exe = shutil.which("p2php")
    if exe is None:
        raise SystemExit("p2php is not installed: pip install p2php (or set P2PHP_BRIDGE)")
    return [exe, "bridge"]


def pick(legal: list[dict[str, Any]]) -> int:
    """Our policy: the first card we can play, else the first legal action (by index)."""
    return next((i for i, a in enumerate(legal) if a.get("type") == "play"), 0)


def main(bots: int, rounds: int, seed: int | None) -> int:
    demo: dict[str, Any] = {"op": "demo", "game": "uno", "bots": bots, "options": {"rounds": rounds}, "id": "t1"}
    if seed is not None:
        demo["seed"] = seed
    with subprocess.Popen(bridge_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          encoding="utf-8", bufsize=1) as bridge:
        assert bridge.stdin is not None and bridge.stdout is not None
        code = play(demo, bridge.stdin, bridge.stdout)
    return code if bridge.returncode == 0 else 1


def play(demo: dict[str, Any], to_bridge: IO[str], from_bridge: IO[str]) -> int:
    """The whole client: one command per line out, one event per line in."""

    def send(command: dict[str, Any]) -> None:
        to_bridge.write(json.dumps(command) + "\n")
        to_bridge.flush()

    send(demo)
    transcript = str(Path(tempfile.mkdtemp()) / "bridge.p2php")
    turns, code = 0, 1
    for line in from_bridge:
        event = json.loads(line)
        kind = event["event"]
        if kind == "started":
            print(f"seated at {event['seat']} of {event['names']} playing {event['game']}")
        elif kind == "step":
            for text in event["lines"]:
                print(f"  {text}")
        elif kind == "your_turn":
            turns += 1
            index = pick(event["legal"])
            print(f"> our turn: {event['labels'][index]}")
            # Echo the question's number: were this question withdrawn before our answer came (the bridge then asks
            # the next one at once), the answer is refused instead of played on a question we never looked at.
            send({"op": "act", "index": index, "turn": event["turn"]})
        elif kind == "game_over":
            print(event["text"])
            code = 0 if event["clean"] else 1
            send({"op": "save", "path": transcript})
            send({"op": "verify", "path": transcript})
        elif kind == "verified":
            print(f"we played {turns} turns; transcript {transcript}: {'verified' if event['ok'] else 'FAILED'}")
            code = code if event["ok"] else 1
            send({"op": "quit"})
        elif kind in ("error", "failed"):
            print(f"bridge says: {event['message']}", file=sys.stderr)
            if kind == "failed":
                send({"op": "quit"})
        elif kind == "bye":
            break
    return code


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None, help="reproducible bots and keys (testing only)")
    args = parser.parse_args()
    raise SystemExit(main(args.bots, args.rounds, args.seed))
