"""A tiny game that exercises every engine step, for session and crypto tests.

12 cards (value = id % 6, red if id < 6).  Shuffle, deal 3 each, a joint random
pick of the first player, a private show of that player's first card to the next
seat, a simultaneous bid by everyone, then each seat in turn plays a card (opened
to all) or passes claiming "I hold no red card" (a claim only the audit, or a
peer who saw the hand, can check).  Highest card played wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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
    OptionError,
    OptionSpec,
    Randomness,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.registry import register
from p2php.rng import DetRng


class ToyState(GameState):
    def __init__(self, players: int, options: Mapping[str, Any]) -> None:
        self.players = players
        self.phase = "secret" if options.get("secret_deck") else "shuffle"
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.first = 0
        self.turn = 0
        self.played: list[int | None] = [None] * players
        self.bids: list[int] = []
        self.passed: list[bool] = [False] * players
        self.table: dict[int, int] = {}
        self.reveal_end = bool(options.get("reveal_end", False))
        self.flips = bool(options.get("flips", False))
        self.sealed = bool(options.get("sealed", False))
        self.secret_face = -1

    def step(self) -> Step:
        n = self.players
        if self.phase == "secret":
            return Shuffle((), 100, purpose="secret", owner=0, size=3)
        if self.phase == "secret_deal":
            return Deal(((100, 0),))
        if self.phase == "secret_reveal":
            return Reveal((101,))
        if self.phase == "shuffle":
            return Shuffle(tuple(range(12)), 0)
        if self.phase == "deal":
            return Deal(tuple((i * n + s, s) for i in range(3) for s in range(n)))
        if self.phase == "random":
            return Randomness("first player")
        if self.phase == "show":
            return Show((self.hands[self.first][0],), self.first, (self.first + 1) % n)
        if self.phase == "bid":
            return Decide(tuple(range(n)), "bid", sealed=self.sealed)
        if self.phase == "play":
            return Decide(((self.first + self.turn) % n,), "play")
        if self.phase == "reveal_rest":
            return Reveal(tuple(s for h in self.hands for s in h))
        best = max(range(n), key=lambda s: (self.table.get(s, -1), -s))
        return GameOver((best,), tuple(self.table.get(s, -1) for s in range(n)))

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        if self.phase == "bid":
            return [{"type": "bid", "n": k} for k in range(3)]
        acts: list[Action] = [{"type": "play", "slot": s} for s in self.hands[seat]]
        if self.flips:
            acts.append({"type": "flip"})
        faces = [knowledge.face(s) for s in self.hands[seat]]
        if all(f is not None and f >= 6 for f in faces):
            acts.append({"type": "pass"})
        return acts

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        step = self.step()
        if not isinstance(step, Decide) or seat not in step.seats:
            raise IllegalAction(f"seat {seat} is not awaited")
        kind = action.get("type")
        if self.phase == "bid":
            if kind != "bid" or action.get("n") not in (0, 1, 2):
                raise IllegalAction("bid 0, 1 or 2")
            return
        if kind == "play":
            if action.get("slot") not in self.hands[seat]:
                raise IllegalAction(f"slot {action.get('slot')} is not in seat {seat}'s hand")
        elif kind == "flip":
            if not self.flips:
                raise IllegalAction("flips are off")
        elif kind == "pass":
            for s in self.hands[seat]:
                f = knowledge.face(s)
                if f is not None and f < 6:
                    raise IllegalAction("passed claiming no red card while holding one")
        else:
            raise IllegalAction(f"unknown action {kind!r}")

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "flip":
            return (3 * self.players + self.turn,)  # an undealt deck card: every peer's key is needed
        return (action["slot"],) if action.get("type") == "play" else ()

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        if self.phase == "bid":
            self.bids = [a["n"] for _, a in answers]
            self.phase = "play"
            return
        (seat, action), = answers
        if action["type"] == "play":
            self.hands[seat].remove(action["slot"])
            self.table[seat] = faces[action["slot"]] % 6
        elif action["type"] == "flip":
            self.table[seat] = faces[3 * self.players + self.turn] % 6
        else:
            self.passed[seat] = True
        self.turn += 1
        if self.turn == self.players:
            self.phase = "reveal_rest" if self.reveal_end else "over"

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        n = self.players
        if self.phase == "secret":
            self.phase = "secret_deal"
        elif self.phase == "secret_deal":
            self.phase = "secret_reveal"
        elif self.phase == "secret_reveal":
            assert faces is not None
            self.secret_face = faces[101]
            self.phase = "shuffle"
        elif self.phase == "shuffle":
            self.phase = "deal"
        elif self.phase == "deal":
            for i in range(3):
                for s in range(n):
                    self.hands[s].append(i * n + s)
            self.phase = "random"
        elif self.phase == "random":
            self.first = DetRng(random).below(n)
            self.phase = "show"
        elif self.phase == "show":
            self.phase = "bid"
        elif self.phase == "reveal_rest":
            self.phase = "over"

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        hand = [knowledge.face(s) for s in self.hands[seat]] if seat is not None else None
        return {"table": dict(self.table), "hand": hand}

    def snapshot(self) -> Any:
        return {"phase": self.phase, "secret_face": self.secret_face, "hands": self.hands, "first": self.first,
                "turn": self.turn, "table": self.table, "bids": self.bids, "passed": self.passed}

    def clone(self) -> ToyState:
        import copy
        return copy.deepcopy(self)


class ToyGame(Game):
    name = "toy"
    min_players = 2
    max_players = 4  # 12 cards, 3 in each hand (a flip turns an undealt card: 3 players at most with flips)
    options = {"reveal_end": OptionSpec(False), "flips": OptionSpec(False), "sealed": OptionSpec(False),
               "secret_deck": OptionSpec(False)}

    def check_private_deck(
        self, options: Mapping[str, object], owner: Seat, purpose: str, cards: Sequence[CardId]
    ) -> str | None:
        if any(c < 6 for c in cards):
            return "a secret deck may hold black cards only"
        return None

    def private_pool(self, options: Mapping[str, object], owner: Seat, purpose: str) -> Sequence[CardId] | None:
        return tuple(range(6, 12))  # the same rule as a pool: any three distinct black cards

    def new_state(self, players: int, options: Mapping[str, object]) -> ToyState:
        self.check_players(players)
        parsed = self.parse_options(dict(options))
        if parsed["flips"] and 4 * players > 12:
            raise OptionError(f"flips need an undealt card for every turn: 3 players at most, not {players}")
        return ToyState(players, parsed)

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        return f"{'red' if card < 6 else 'black'} {card % 6}"

    def universe_size(self, options: Mapping[str, object]) -> int:
        return 12


register(ToyGame())
