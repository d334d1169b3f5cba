"""A tiny game built around the Reshuffle step, for tests/test_reshuffle.py.

A public deck of cards 0..9 is shuffled into slots 0..9. Slot 0 is dealt to seat 0, slot 1 to seat 1, slots 2 and 3
are turned face up (a "discard pile"), and seat 0 privately looks at slots 4..6 (a "search", shown to itself). Then
the eight cards of slots 2..9 — six face down, two face up — are reshuffled into slots 100..107. Seat 0 may turn one
of them over (or pass); the eight are reshuffled again, face-up one included, into slots 120..127; 120 is dealt to
seat 1 and 121..127 are turned face up.

With ``secret=True`` seat 0 then brings a secret deck of four cards (ids 10..15 are its pool), slots 200..203, looks
at all of it, turns 200 face up and reshuffles the four into 300..303, which are turned face up; those four, every
face public now, are reshuffled once more into 400..403 (a plain shuffle of public faces) and turned face up.

With ``relay=True`` the game is another one: slots 2 and 3 are turned face up, reshuffled with every face public
into 500..501 (a plain shuffle: a new deck, its own key) and turned face up again; then slot 9 (face down, of the
first deck) and those two are reshuffled together into 600..602 and turned face up. Cards opened once in the first
deck come back there at new slots.

``bug`` makes the engine misbehave: ``spent`` reveals slot 4 after the first reshuffle, ``mix`` reshuffles seat 0's
dealt card together with the secret deck's face-down cards (two decks under different keys).
"""

from __future__ import annotations

import copy
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
    OptionSpec,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.registry import register

FIRST = tuple(range(4, 10)) + (2, 3)
SECRET_POOL = tuple(range(10, 16))
SECRET_LIST = [10, 12, 13, 15]


class ReshuffleState(GameState):
    def __init__(self, players: int, options: Mapping[str, Any]) -> None:
        self.players = players
        self.secret = bool(options.get("secret"))
        self.bug = str(options.get("bug", ""))
        self.relay = bool(options.get("relay"))
        self.phase = 0
        self.played: int | None = None
        self.faces: dict[int, int] = {}

    def _steps(self) -> list[Step]:
        if self.relay:
            return [Shuffle(tuple(range(10)), 0), Reveal((2, 3)), Reshuffle((2, 3), 500, "public-only"),
                    Reveal((500, 501)), Reshuffle((9, 500, 501), 600, "back-with-a-face-down-card"),
                    Reveal((600, 601, 602))]
        steps: list[Step] = [
            Shuffle(tuple(range(10)), 0),
            Deal(((0, 0), (1, 1))),
            Reveal((2, 3)),
            Show((4, 5, 6), 0, 0),
            Reshuffle(FIRST, 100, "first"),
        ]
        if self.bug == "spent":
            steps.append(Reveal((4,)))
        steps += [
            Decide((0,), "play"),
            Reshuffle(tuple(range(100, 108)), 120, "second"),
            Deal(((120, 1),)),
            Reveal(tuple(range(121, 128))),
        ]
        if self.secret:
            steps += [
                Shuffle((), 200, "secret", owner=0, size=4),
                Show((200, 201, 202, 203), 0, 0),
                Reveal((200,)),
                Reshuffle((0, 201, 202) if self.bug == "mix" else (201, 202, 203, 200), 300, "secret-again"),
                Reveal(tuple(range(300, 303 if self.bug == "mix" else 304))),
                Reshuffle(tuple(range(300, 304)), 400, "all-public"),  # every face up: a Shuffle of those faces
                Reveal(tuple(range(400, 404))),
            ]
        return steps

    def step(self) -> Step:
        steps = self._steps()
        if self.phase < len(steps):
            return steps[self.phase]
        return GameOver((0,), (len(self.faces),) + (0,) * (self.players - 1))

    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "pass"}] + [{"type": "play", "slot": s} for s in range(100, 108)]

    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if seat != 0 or not isinstance(self.step(), Decide):
            raise IllegalAction("only seat 0 plays, when asked")
        if action.get("type") == "pass":
            return
        if action.get("type") != "play" or action.get("slot") not in range(100, 108):
            raise IllegalAction("play one of slots 100..107 or pass")

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (int(action["slot"]),) if action.get("type") == "play" else ()

    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        (_, action), = answers
        if action["type"] == "play":
            self.played = int(action["slot"])
            self.faces[self.played] = faces[self.played]
        self.phase += 1

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        self.faces.update(faces or {})
        self.phase += 1

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        return {"faces": dict(self.faces)}

    def snapshot(self) -> Any:
        return {"phase": self.phase, "played": self.played, "faces": sorted(self.faces.items())}

    def clone(self) -> ReshuffleState:
        return copy.deepcopy(self)


class ReshuffleGame(Game):
    name = "reshuffle-toy"
    min_players = 2
    max_players = 4
    options = {"secret": OptionSpec(False), "bug": OptionSpec("", ("", "spent", "mix")), "relay": OptionSpec(False)}

    def new_state(self, players: int, options: Mapping[str, object]) -> ReshuffleState:
        self.check_players(players)
        return ReshuffleState(players, self.parse_options(dict(options)))

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        return f"card {card}"

    def universe_size(self, options: Mapping[str, object]) -> int:
        return 16

    def private_pool(self, options: Mapping[str, object], owner: Seat, purpose: str) -> Sequence[CardId] | None:
        return SECRET_POOL

    def check_private_deck(
        self, options: Mapping[str, object], owner: Seat, purpose: str, cards: Sequence[CardId]
    ) -> str | None:
        return None if all(c in SECRET_POOL for c in cards) else "a secret deck holds cards 10..15 only"

    def private_decks(self, options: Mapping[str, object], seat: Seat) -> dict[str, list[CardId]]:
        return {"secret": list(SECRET_LIST)} if seat == 0 and self.parse_options(dict(options))["secret"] else {}


GAME = register(ReshuffleGame())
