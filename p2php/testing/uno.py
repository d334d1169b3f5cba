"""UNO stacked-deck tables for rule tests and demos (engine only, trusted local dealer).

>>> t = StackedTable(2, dealer=1, hands={0: ["red 5", "red 7"]}, first="red 3")
>>> t.prompt
'turn'
>>> t.act(0, t.play(0, "red 7"))

Cards are named as :meth:`UnoGame.card_name` names them ("red 7", "blue skip",
"green draw two", "Wild", "Wild Draw Four", "Sorting Hat", ...).  Hands shorter
than seven cards are filled with high number cards nobody asked for; the draw
pile starts with ``draws`` (top first) and continues with the unused cards in id
order.  ``decks`` gives one arrangement per round-deck shuffle (a put-back first
card or a new round uses the next one); reshuffles of the discard pile keep the
order of the discard pile unless ``reshuffles`` names the order.

The cut for the dealer is a public order drawn from the joint randomness (UNO's
decision 3), which cannot be stacked card by card: :func:`cut_random` finds the
joint randomness whose cut satisfies a test's wish (by default: ``dealer`` turns up
the one highest number), and ``cut`` passes such values explicitly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2php import tags
from p2php.canonical import digest
from p2php.engine.contract import Action, CardId, Decide, GameOver, Seat, Shuffle, Slot
from p2php.engine.local import LocalTable
from p2php.games.uno import GAME
from p2php.games.uno.base import HAND_SIZE
from p2php.games.uno.cards import COLOURS, NUMBER, Deck, find
from p2php.games.uno.round import cut_order
from p2php.games.uno.state import UnoState
from p2php.testing.stacking import StackedChance, StackingError

__all__ = ["Arrangement", "StackedTable", "cut_random", "cut_values"]

CUT_SEARCH = 100_000
"""How many candidate values :func:`cut_random` tries before it gives up."""


def cut_values(deck: Deck, cut: Sequence[CardId]) -> list[int]:
    """What each turned-up card counts for the cut: a number card its value, any other card 0."""
    return [deck.value[c] if deck.kind[c] == NUMBER else 0 for c in cut]


def cut_random(deck: Deck, wanted: Callable[[list[CardId]], bool]) -> bytes:
    """The first joint randomness (of a fixed, seeded list) whose cut deck ``wanted`` accepts.

    ``wanted`` gets the cut deck's cards in the order they are turned up.
    """
    cards = tuple(range(deck.size))
    for i in range(CUT_SEARCH):
        random = digest(tags.TEST_UNO_CUT, i.to_bytes(4, "big"))
        if wanted(cut_order(cards, random)):
            return random
    raise StackingError(f"no cut of the {deck.name} deck among {CUT_SEARCH} tries is as asked")


def _dealer_cut(deck: Deck, players: int, dealer: Seat) -> Callable[[list[CardId]], bool]:
    def wanted(cut: list[CardId]) -> bool:
        values = cut_values(deck, cut[:players])
        return values[dealer] > max(v for s, v in enumerate(values) if s != dealer)
    return wanted


@dataclass
class Arrangement:
    """One round's deck: hands by seat, the first discard, then the top of the draw pile."""

    hands: Mapping[Seat, Sequence[str]] = field(default_factory=dict)
    first: str = "red 3"
    draws: Sequence[str] = ()


class StackedTable:
    """A :class:`LocalTable` over a stacked deck, driven by scripted actions."""

    def __init__(
        self,
        players: int = 2,
        *,
        dealer: Seat = 0,
        hands: Mapping[Seat, Sequence[str]] | None = None,
        first: str = "red 3",
        draws: Sequence[str] = (),
        decks: Sequence[Arrangement] | None = None,
        reshuffles: Sequence[Sequence[str]] = (),
        cut: Sequence[bytes] | None = None,
        options: Mapping[str, object] | None = None,
    ) -> None:
        self.game = GAME
        self.state: UnoState = GAME.new_state(players, dict(options or {}))
        self.deck: Deck = self.state.deck
        self.players = players
        self.dealer = dealer
        self.decks = list(decks) if decks is not None else [Arrangement(dict(hands or {}), first, draws)]
        self.reshuffles = [list(r) for r in reshuffles]
        self.deck_count = 0
        self.shuffles: list[Shuffle] = []
        cuts = list(cut) if cut is not None else [cut_random(self.deck, _dealer_cut(self.deck, players, dealer))]
        self.table = LocalTable(self.state, 0, chance=StackedChance(self._arrange, cuts))
        self.result: GameOver | Decide = self.table.run_chance()

    # ------------------------------------------------------------------ arrangement

    def ids(self, names: Sequence[str], used: set[int]) -> list[CardId]:
        out = []
        for name in names:
            free = [c for c in find(self.deck, name) if c not in used]
            if not free:
                raise StackingError(f"no {name!r} left in the {self.deck.name} deck")
            used.add(free[0])
            out.append(free[0])
        return out

    def _arrange(self, step: Shuffle) -> list[CardId]:
        self.shuffles.append(step)
        cards = list(step.cards)
        if step.purpose == "deck":
            arr = self.decks[min(self.deck_count, len(self.decks) - 1)]
            self.deck_count += 1
            return self._arrange_deck(arr, cards)
        if self.reshuffles:
            names = self.reshuffles.pop(0)
            used: set[int] = set()
            pool = [c for c in cards]
            head = []
            for name in names:
                match = [c for c in pool if self.deck.names[c] == name and c not in used]
                if not match:
                    raise StackingError(f"no {name!r} in the reshuffled discards")
                used.add(match[0])
                head.append(match[0])
            return head + [c for c in pool if c not in used]
        return cards

    def _arrange_deck(self, arr: Arrangement, cards: list[CardId]) -> list[CardId]:
        d = self.deck
        n = self.players
        used: set[int] = set()
        first = self.ids([arr.first], used)[0]
        hands = {s: self.ids(list(arr.hands.get(s, ())), used) for s in range(n)}
        draws = self.ids(list(arr.draws), used)
        fillers = sorted(
            (c for c in cards if c not in used and d.kind[c] == NUMBER and d.value[c] >= 6),
            key=lambda c: (-d.value[c], c),
        )
        for s in range(n):
            while len(hands[s]) < HAND_SIZE:
                c = fillers.pop(0)
                used.add(c)
                hands[s].append(c)
        order = [first]
        dealer = self.state.dealer
        for r in range(HAND_SIZE):
            for i in range(n):
                order.append(hands[(dealer + 1 + i) % n][r])
        order.extend(draws)
        order.extend(c for c in cards if c not in used)
        return order

    # ------------------------------------------------------------------ driving

    @property
    def prompt(self) -> str | None:
        return self.result.prompt if isinstance(self.result, Decide) else None

    @property
    def awaiting(self) -> tuple[Seat, ...]:
        return self.result.seats if isinstance(self.result, Decide) else ()

    def name(self, slot: Slot) -> str:
        return self.deck.names[self.table.faces[slot]]

    def hand(self, seat: Seat) -> list[str]:
        return [self.name(s) for s in self.state.hands[seat]]

    def slot_of(self, seat: Seat, name: str) -> Slot:
        for s in self.state.hands[seat]:
            if self.name(s) == name:
                return s
        raise ValueError(f"seat {seat} holds no {name!r}: {self.hand(seat)}")

    def play(self, seat: Seat, name: str, typ: str = "play", **fields: Any) -> Action:
        action: Action = {"type": typ, "slot": self.slot_of(seat, name)}
        if "dump" in fields:
            fields["dump"] = [self.slot_of(seat, n) if isinstance(n, str) else n for n in fields["dump"]]
        action.update(fields)
        return action

    def legal(self, seat: Seat) -> list[Action]:
        return self.state.legal_actions(seat, self.table.knowledge(seat))

    def act(self, *answers: Any) -> GameOver | Decide:
        """``act(seat, action)`` or ``act((seat, action), (seat, action), ...)``."""
        single = len(answers) == 2 and isinstance(answers[0], int)
        pairs = [(answers[0], answers[1])] if single else list(answers)
        self.table.act(pairs)
        self.result = self.table.run_chance()
        return self.result

    def everyone(self, action: Action) -> GameOver | Decide:
        """Every awaited seat answers ``action`` (e.g. a pass)."""
        return self.act(*[(s, dict(action)) for s in self.awaiting])

    def top(self) -> str:
        top = self.state.top_card()
        return self.deck.names[top] if top is not None else ""

    def colour(self) -> str | None:
        return COLOURS[self.state.colour] if self.state.colour >= 0 else None
