"""A tiny custom game on the engine contract, played through the real protocol: "Catch the Snitch".

Run it:  python examples/tiny_game.py [--players 3] [--seed 1]

Twelve cards (1–12, four houses) are shuffled by every peer (mental poker); each
seat is dealt two face down, and one card is revealed as the Snitch.  In turn,
each seat plays one of its cards face up (the action reveals it); whoever
played closest to the Snitch wins.  Nobody learns the card a seat kept while
the game runs; the audit at the end opens and checks every face.  The game is
~80 lines of rules: the engine contract asks only what happens next (``step``),
what is legal, and how actions change the public state.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    Game,
    GameOver,
    GameState,
    IllegalAction,
    Knowledge,
    Reveal,
    Seat,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.registry import register

HOUSES = ("Gryffindor", "Slytherin", "Ravenclaw", "Hufflepuff")


class SnitchState(GameState):
    def __init__(self, players: int) -> None:
        self.players, self.phase, self.turn = players, "shuffle", 0
        self.hands: list[list[Slot]] = [[2 * s, 2 * s + 1] for s in range(players)]  # slots, faces unknown
        self.snitch = -1
        self.played: dict[Seat, CardId] = {}

    def step(self) -> Step:
        n = self.players
        if self.phase == "shuffle":
            return Shuffle(tuple(range(12)), first_slot=0)  # slot i = the i-th card of the shuffled deck
        if self.phase == "deal":
            return Deal(tuple((slot, s) for s in range(n) for slot in self.hands[s]))
        if self.phase == "snitch":
            return Reveal((2 * n,))
        if self.phase == "play":
            return Decide((self.turn,), "play a card")
        best = min(range(n), key=lambda s: (abs(self.played[s] - self.snitch), s))
        return GameOver((best,), tuple(int(s == best) for s in range(n)), f"seat {best} catches the Snitch")

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "play", "slot": slot} for slot in self.hands[seat]]

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if self.phase != "play" or seat != self.turn:
            raise IllegalAction(f"seat {seat} is not to play now")
        if action.get("type") != "play" or action.get("slot") not in self.hands[seat]:
            raise IllegalAction(f"play one of your own cards (slots {self.hands[seat]})")

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (action["slot"],)  # playing a card opens it to everyone: the protocol releases its keys

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        for seat, action in answers:
            self.hands[seat].remove(action["slot"])
            self.played[seat] = faces[action["slot"]]
        self.turn += 1
        self.phase = "play" if self.turn < self.players else "over"

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        if self.phase == "snitch":
            assert faces is not None
            self.snitch = faces[2 * self.players]
        self.phase = {"shuffle": "deal", "deal": "snitch", "snitch": "play"}[self.phase]

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        mine = [] if seat is None else [knowledge.face(slot) for slot in self.hands[seat]]
        return {"snitch": name(self.snitch) if self.snitch >= 0 else None, "turn": self.turn,
                "played": {s: name(c) for s, c in self.played.items()},
                "hand": [name(c) if c is not None else "?" for c in mine]}

    def snapshot(self) -> Any:
        return [self.phase, self.turn, self.hands, self.snitch, sorted(self.played.items())]

    def clone(self) -> SnitchState:
        import copy

        return copy.deepcopy(self)

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        card = faces.get(action["slot"])
        return f"plays {name(card) if card is not None else 'a card'}"


def name(card: CardId) -> str:
    return f"{card + 1} of {HOUSES[card % 4]}"


class SnitchGame(Game):
    name, min_players, max_players = "snitch", 2, 5

    def new_state(self, players: int, options: Mapping[str, object]) -> SnitchState:
        return SnitchState(players)

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        return name(card)

    def universe_size(self, options: Mapping[str, object]) -> int:
        return 12


register(SnitchGame())  # from now on "snitch" is a game like uno: demo, bots, transcripts, verify


async def main(players: int, seed: int | None) -> int:
    """Every seat is an independent peer on loopback TCP, with its own keys; seat 0's view is printed."""
    from p2php.session import transcript
    from p2php.session.local_net import run_local_table
    from p2php.session.runner import bot_decider
    from p2php.terminal import event_lines

    shown = [0]

    def show(ls: Any, _lines: list[str]) -> None:
        for event in ls.events[shown[0]:]:
            for line in event_lines(ls, event):
                print(line)
        shown[0] = len(ls.events)

    out = Path(tempfile.mkdtemp())
    deciders = [bot_decider(RandomBot(f"{seed}/{s}")) for s in range(players)]
    results = await run_local_table("snitch", players, deciders, seed=seed, transcripts=out, observe=show)
    ls = results[0].lockstep
    assert ls.result is not None and ls.verdict is not None
    print(f"{ls.result.summary}; audit: {ls.verdict.text(ls.table)}")
    check = transcript.verify(out / "seat0.p2php")
    print(f"transcript {out / 'seat0.p2php'} re-verified from scratch: {'OK' if check.ok else 'FAILED'}")
    return 0 if check.ok and all(r.lockstep.verdict and r.lockstep.verdict.clean for r in results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None, help="reproducible bots and keys (testing only)")
    args = parser.parse_args()
    raise SystemExit(trio.run(main, args.players, args.seed))
