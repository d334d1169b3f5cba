"""A tiny custom game on the shared kit, played through the real protocol: "Catch the Snitch".

Run it:  python examples/tiny_game.py [--players 3] [--seed 1]

Twelve cards (1–12, four houses) are shuffled by every peer (mental poker); each
seat is dealt two face down, and one card is revealed as the Snitch.  In turn,
each seat plays one of its cards face up (the action reveals it); whoever
played closest to the Snitch wins (on a tie, the earlier seat).  Nobody learns
the card a seat kept while the game runs; the audit at the end checks every face.

The template of docs/writing-a-game.md, in the order a game is written: cards as
plain data, small effects, the flow as tasks with named stages on the engine's
task stack, the state that hands the contract to the stack, the game, a bot.
"""

from __future__ import annotations

import argparse
import copy
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from pathlib import Path
from typing import Any

import trio

from p2php.bots import RandomBot
from p2php.engine.contract import (
    Action,
    Bot,
    CardId,
    Deal,
    Decide,
    Game,
    GameOver,
    GameState,
    Knowledge,
    Reveal,
    Seat,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.registry import register
from p2php.engine.taskgame import TaskGame
from p2php.engine.tasks import CONTINUE, Done, Outcome, Push, Task, TaskStack

# ----------------------------------------------------------------------------- the cards: plain data

HOUSES = ("Gryffindor", "Slytherin", "Ravenclaw", "Hufflepuff")
CARDS = tuple((number, HOUSES[(number - 1) % 4]) for number in range(1, 13))
"""Card id -> (number, house): card 0 is the 1 of Gryffindor, card 11 the 12 of Hufflepuff."""
DECK = tuple(range(len(CARDS)))
HAND = 2


def name(card: CardId) -> str:
    number, house = CARDS[card]
    return f"{number} of {house}"


# ----------------------------------------------------------------------------- effects: small state changes


def play(g: SnitchState, seat: Seat, slot: Slot, card: CardId) -> None:
    """``seat`` plays ``slot`` face up: it leaves the hand and lies on the table as ``card``."""
    g.hands[seat].remove(slot)
    g.played[seat] = card


def miss(card: CardId, snitch: CardId) -> int:
    """How far ``card`` misses the Snitch (integers only: every peer must compute the same)."""
    return abs(CARDS[card][0] - CARDS[snitch][0])


def result(g: SnitchState) -> GameOver:
    best = min(range(g.players), key=lambda s: (miss(g.played[s], g.snitch), s))
    return GameOver((best,), tuple(int(s == best) for s in range(g.players)), f"seat {best} catches the Snitch")


# ----------------------------------------------------------------------------- the flow: tasks


@dataclass
class Match(Task["SnitchState"]):
    """The whole game, at the bottom of the stack: the set-up, one turn per seat, the result."""

    class Stage(Enum):
        SHUFFLE = auto()  # every peer shuffles the twelve cards
        DEAL = auto()  # two face down to each seat
        SNITCH = auto()  # the next card is opened: the Snitch
        TURNS = auto()  # one Turn per seat, in seat order
        OVER = auto()

    stage: Stage = Stage.SHUFFLE

    def run(self, g: SnitchState) -> Outcome:
        S = Match.Stage
        if self.stage is S.SHUFFLE:
            return Shuffle(DECK, first_slot=0)  # slot i = the i-th card of the shuffled deck
        if self.stage is S.DEAL:
            return Deal(tuple((HAND * s + i, s) for s in range(g.players) for i in range(HAND)))
        if self.stage is S.SNITCH:
            return Reveal((g.snitch_slot,))
        if self.stage is S.TURNS:
            self.stage = S.OVER
            return Push(*(Turn(s) for s in range(g.players)))  # Turn(0) runs first
        return result(g)

    def received(self, g: SnitchState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Shuffle):
            self.stage = Match.Stage.DEAL
        elif isinstance(step, Deal):
            for slot, seat in step.to:
                g.hands[seat].append(slot)  # faces stay unknown to the public state
            self.stage = Match.Stage.SNITCH
        else:
            g.snitch = faces[g.snitch_slot]
            self.stage = Match.Stage.TURNS
        return CONTINUE


@dataclass
class Turn(Task["SnitchState"]):
    """``seat`` plays one of its cards face up."""

    seat: int

    def run(self, g: SnitchState) -> Outcome:
        return Decide((self.seat,), "play a card")

    def legal(self, g: SnitchState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        """Anything else is refused by Task.check's default ("not a legal action here")."""
        return [{"type": "play", "slot": slot} for slot in g.hands[seat]]

    def reveals(self, g: SnitchState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")  # playing a card opens it to everyone: the protocol releases its keys
        return (slot,) if slot in g.hands[seat] else ()

    def answer(self, g: SnitchState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        play(g, seat, action["slot"], faces[action["slot"]])
        return Done()


# ----------------------------------------------------------------------------- the state: the contract


class SnitchState(TaskGame):
    """The public state: who holds which slots, the Snitch, the cards played, and the pending tasks.

    :class:`~p2php.engine.taskgame.TaskGame` hands the contract's decision and chance methods
    (step, legal_actions, check, reveals, apply, advance) to the task on top of the stack.
    """

    def __init__(self, players: int) -> None:
        self.players = players
        self.hands: list[list[Slot]] = [[] for _ in range(players)]
        self.snitch = -1  # the Snitch's card once it is revealed
        self.played: dict[Seat, CardId] = {}
        self.pub: dict[Slot, CardId] = {}  # faces opened to everyone
        self.stack: TaskStack[SnitchState] = TaskStack([Match()])
        self.stack.settle(self)

    @property
    def snitch_slot(self) -> Slot:
        return HAND * self.players  # the first card after the hands

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        mine = [] if seat is None else [knowledge.face(slot) for slot in self.hands[seat]]
        return {"snitch": name(self.snitch) if self.snitch >= 0 else None, "turn": len(self.played),
                "played": {s: name(c) for s, c in sorted(self.played.items())},
                "hand": [name(c) if c is not None else "?" for c in mine]}

    def snapshot(self) -> Any:
        return {"players": self.players, "hands": self.hands, "snitch": self.snitch,
                "played": sorted(self.played.items()), "stack": self.stack.snapshot()}

    def clone(self) -> SnitchState:
        new = copy.copy(self)
        new.hands = [list(h) for h in self.hands]
        new.played = dict(self.played)
        new.stack = self.stack.clone()
        return new

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        card = faces.get(action.get("slot", -1))
        return f"plays {name(card) if card is not None else 'a card'}"


# ----------------------------------------------------------------------------- the game, a bot, registration


class SeekerBot:
    """Plays its card nearest the Snitch; like every bot it sees only its own seat's knowledge."""

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        assert isinstance(state, SnitchState)

        def distance(action: Action) -> int:
            face = knowledge.face(action["slot"])
            return len(DECK) if face is None else miss(face, state.snitch)

        return min(legal, key=distance)


class SnitchGame(Game):
    """The definition the registry holds: name, table sizes, card names, new states, bots."""

    name, min_players, max_players = "snitch", 2, 5
    bot_kinds = ("random", "heuristic")  # "heuristic": the kind the command line and the API pick by default

    def new_state(self, players: int, options: Mapping[str, object]) -> SnitchState:
        return SnitchState(players)

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        return name(card)

    def universe_size(self, options: Mapping[str, object]) -> int:
        return len(DECK)

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        return SeekerBot() if kind == "heuristic" else super().make_bot(kind, seed)


register(SnitchGame())  # importing this registers "snitch"; a package names the module in an entry point


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
