"""Harry Potter Sha scenarios: fixed identities, characters, hands and deck order, in both modes.

:class:`Scenario` drives the setup decisions so that each seat gets the requested
identity and character, deals the requested starting hands and stacks the deck,
then lets a test script the rest with :meth:`Scenario.act` and friends (see
:mod:`p2php.testing.scenario` for the two modes).  In protocol mode
``Scenario.state`` is a :class:`~p2php.testing.edits.SharedState`, so tests may
set a position up by writing to it (``st.hp[0] = 2``, ``st.push(task)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2php.engine.contract import Action, GameState, Shuffle
from p2php.games.hpsha import HpshaGame
from p2php.games.hpsha.creature_data import creature_id
from p2php.games.hpsha.data import (
    AUROR,
    CARDS,
    CHARACTER_BASE,
    CHARACTER_INDEX,
    CHARACTERS,
    DARK,
    GAME_CARDS,
    MINISTER,
    RANK_NAMES,
    SPY,
    identity_cards,
    identity_role,
    role_counts,
)
from p2php.games.hpsha.flow import HAND_START
from p2php.games.hpsha.state import HpshaState
from p2php.games.hpsha.tasks import Task
from p2php.games.hpsha.words import lines
from p2php.testing.scenario import MODES, Mode, scenario_mode
from p2php.testing.scenario import Scenario as BaseScenario
from p2php.testing.stacking import StackingError

__all__ = ["INERT", "MODES", "CardSpec", "Mode", "Scenario", "default_roles", "scenario_mode"]

INERT = ("geminio", "expelliarmus", "legilimens", "out_of_body", "aguamenti", "impediment", "bind", "reparo")
"""Filler cards: spells that answer nothing and change no distance."""

CardSpec = str | int | tuple[str, str] | tuple[str, str, int]
"""A card: its id, a kind (``"bombarda"``), (kind, suit) or (kind, suit, rank), or ``"*"`` (a filler)."""

READS = frozenset({
    "distance", "raw_distance", "attack_range", "in_range", "kind", "card", "names", "weapon", "armour",
    "has_judge", "order_from", "next_alive", "who", "faction", "gender", "hand_limit", "skips", "locate",
    "unopened", "game_decided", "final_result", "current_or_first", "skills", "skill_label",
    "discard_available", "damage_prevented", "uncounterable",
})
"""HpshaState's methods that only read (called on seat 0's state alone in protocol mode)."""


def default_roles(n: int, alt: bool = False) -> list[str]:
    m, a, d, s = role_counts(n, alt)
    return [MINISTER] * m + [AUROR] * a + [DARK] * d + [SPY] * s


class Scenario(BaseScenario):
    """A game with a stacked deck; seat 0..n-1 get ``chars`` and ``roles``."""

    state: HpshaState
    wrap = (Task,)  # a pushed task's fields are edits too

    def __init__(
        self,
        chars: Sequence[str],
        roles: Sequence[str] | None = None,
        hands: dict[int, list[CardSpec]] | None = None,
        deck: Sequence[CardSpec] = (),
        options: dict[str, Any] | None = None,
        seed: int = 0,
        mode: Mode | None = None,
        creatures: Sequence[str] = (),
    ) -> None:
        n = len(chars)
        opts = {"roles": "standard", "max_turns": 1000, **(options or {})}
        if creatures:  # the creature deck, top first (the ``creatures`` option defaults to how many)
            opts.setdefault("creatures", len(creatures))
        self.creature_order = [creature_id(k) for k in creatures]
        self.alt_roles = opts["roles"] == "alt"
        self.roles = list(roles) if roles is not None else default_roles(n, self.alt_roles)
        self.chars = list(chars)
        self.used: set[int] = set()
        hands = hands or {}
        for seat, cards in sorted(hands.items()):
            if not 0 <= seat < n:
                raise StackingError(f"hands: seat {seat} is not at a table of {n}")
            if len(cards) > HAND_START:
                raise StackingError(f"hands: seat {seat} is dealt {HAND_START} cards, the scenario lists "
                                    f"{len(cards)} (give it more by the deck order, or with a test edit)")
        self.hand_ids, self.deck_ids = self._resolve([hands.get(s, []) for s in range(n)], deck)
        self.reshuffle_order: list[int] | None = None
        super().__init__(HpshaGame(), n, opts, seed, mode, reads=READS)
        self._setup()

    def engine_state(self) -> GameState:
        return HpshaState(self.n, self.options)


    # ------------------------------------------------------------------ cards
    def _resolve(self, hands: list[list[CardSpec]], deck: Sequence[CardSpec]) -> tuple[dict[int, list[int]], list[int]]:
        """Card ids for the hands and the deck top: named cards first, ``"*"`` fillers after, so a
        filler never takes a card named later in the scenario."""
        specs = [*(c for h in hands for c in h), *deck]
        named = {i: self.card(c) for i, c in enumerate(specs) if c != "*"}
        ids = [named[i] if i in named else self.card("*") for i in range(len(specs))]
        out, at = {}, 0
        for seat, h in enumerate(hands):
            out[seat] = ids[at:at + len(h)]
            at += len(h)
        return out, ids[at:]

    def card(self, spec: CardSpec) -> int:
        """Resolve a card spec to an unused card id (and mark it used)."""
        if isinstance(spec, int):
            if spec in self.used:
                raise StackingError(f"card {spec} used twice")
            self.used.add(spec)
            return spec
        if spec == "*":  # any filler card
            c = next((c for c in CARDS if c.id not in self.used and c.kind in INERT), None)
            if c is None:
                raise StackingError("no unused filler card left for a '*' (the scenario names too many cards)")
            self.used.add(c.id)
            return c.id
        if isinstance(spec, str):
            kind, suit, rank = spec, "", 0
        else:
            kind, suit = spec[0], spec[1]
            rank = spec[2] if len(spec) == 3 else 0
        for c in CARDS:
            if c.id in self.used or c.kind != kind or (suit and c.suit != suit) or (rank and c.rank != rank):
                continue
            self.used.add(c.id)
            return c.id
        raise StackingError(f"no unused card {kind} {suit}{RANK_NAMES[rank] if rank else ''}")

    def _order_from_minister(self) -> list[int]:
        m = self.roles.index(MINISTER)
        return [(m + i) % self.n for i in range(self.n)]

    def arrange(self, step: Shuffle) -> list[int]:
        """The stacked order of each deck (a pure function of the scenario: protocol peers all ask)."""
        if step.purpose == "identities":
            pool = list(identity_cards(self.n, self.alt_roles))
            out = []
            for role in self.roles:
                c = next((x for x in pool if identity_role(x) == role), None)
                if c is None:
                    raise StackingError(f"roles {self.roles}: more {role} than {self.n} players have")
                pool.remove(c)
                out.append(c)
            return out
        if step.purpose == "characters":
            want = [CHARACTER_BASE + CHARACTER_INDEX[k] for k in self.chars]
            cards = list(step.cards)
            if len(cards) == len(CHARACTERS):  # the first deal: the minister's five
                first = want[self.roles.index(MINISTER)]
                return [first] + [c for c in cards if c != first]
            each = 2 if self.n >= 9 else 3
            rest = [c for c in cards if c not in want]
            out = []
            for seat in self._order_from_minister()[1:]:
                out.append(want[seat])
                out += [rest.pop() for _ in range(each - 1)]
            return out + rest
        if step.purpose == "deck":
            order = self._order_from_minister()
            free = [c for c in range(GAME_CARDS) if c not in self.used]
            # fillers: spells that answer nothing and change no distance, taken first
            free.sort(key=lambda c: (CARDS[c].kind not in INERT, c))
            hands = {s: list(self.hand_ids[s]) for s in range(self.n)}
            for s in hands:
                while len(hands[s]) < HAND_START:
                    hands[s].append(free.pop(0))
            out = [hands[seat][i] for i in range(HAND_START) for seat in order]
            return out + self.deck_ids + free
        if step.purpose in ("creature_pool", "creatures"):  # the chosen creatures first, in the order given
            want = [c for c in self.creature_order if c in step.cards]
            return want + [c for c in step.cards if c not in want]
        if self.reshuffle_order is not None:
            order = [c for c in self.reshuffle_order if c in step.cards]
            return order + [c for c in step.cards if c not in order]
        return list(step.cards)

    def _setup(self) -> None:
        st, tb = self.state, self.table
        for _ in range(3):
            step = self.decide()
            if step.prompt == "identity":
                tb.act([(s, st.legal_actions(s, tb.knowledge(s))[0]) for s in step.seats])
            else:
                answers = []
                for s in step.seats:
                    want = CHARACTER_BASE + CHARACTER_INDEX[self.chars[s]]
                    legal = st.legal_actions(s, tb.knowledge(s))
                    answers.append((s, next(a for a in legal if tb.faces[a["slot"]] == want)))
                tb.act(answers)
        tb.run_chance()
        assert [CHARACTERS[c].key for c in st.char] == self.chars

    # ------------------------------------------------------------------ HP Sha helpers
    def slot(self, seat: int, kind: str, nth: int = 0) -> int:
        """A slot of ``seat``'s hand holding a card of ``kind``."""
        got = [s for s in self.state.hands[seat] if CARDS[self.table.faces[s]].kind == kind]
        return got[nth]

    def slot_of(self, card: int) -> int:
        return next(s for s, c in self.table.faces.items() if c == card)

    def open(self, slot: int) -> None:
        """Test-only: make a slot's face public (as if it had been revealed)."""
        self.state.pub[slot] = self.table.faces[slot]
        self.table.public[slot] = self.table.faces[slot]

    def force_equip(self, seat: int, kind: str) -> int:
        """Test-only shortcut: equip a card of ``kind`` from ``seat``'s hand without a turn."""
        s = self.slot(seat, kind)
        self.open(s)
        self.state.put_equipment(seat, s)
        return s

    def force_judge(self, seat: int, kind: str, onto: int) -> int:
        """Test-only shortcut: move a delayed spell from ``seat``'s hand into ``onto``'s judgement area."""
        s = self.slot(seat, kind)
        self.open(s)
        self.state.take(s)
        self.state.judge[onto].append([s, kind])
        return s

    def discard_kinds(self) -> list[str]:
        return [self.state.kind(s) for s in self.state.discard]

    def hand_kinds(self, seat: int) -> list[str]:
        return sorted(CARDS[self.table.faces[s]].kind for s in self.state.hands[seat])

    def use(self, seat: int, kind: str, targets: Sequence[int] | None = None, nth: int = 0) -> None:
        """Use a hand card of ``kind`` in the play phase (targets default to the only legal list)."""
        s = self.slot(seat, kind, nth)
        legal = [a for a in self.legal(seat) if a.get("type") == "use" and a["slots"] == [s]]
        if targets is None:
            assert len(legal) == 1, f"targets needed: {legal}"
            action = legal[0]
        else:
            action = {"type": "use", "kind": kind, "slots": [s], "targets": list(targets)}
        self.act(seat, action, "play")

    def give(self, seat: int, kind: str, prompt: str | None = None, nth: int = 0) -> None:
        """Answer an AskCard with a hand card of ``kind``."""
        self.act(seat, {"type": "card", "slots": [self.slot(seat, kind, nth)]}, prompt)

    def pass_(self, seat: int, prompt: str | None = None) -> None:
        self.act(seat, {"type": "pass"}, prompt)

    def choose(self, seat: int, value: Any, prompt: str | None = None) -> None:
        self.act(seat, {"type": "choose", "value": value}, prompt)

    def end(self, seat: int) -> None:
        self.act(seat, {"type": "end"}, "play")

    def pass_until(self, seat: int, prompt: str, limit: int = 200) -> None:
        """Answer every decision with a pass (or end / first legal) until ``seat`` is asked ``prompt``."""
        for _ in range(limit):
            d = self.decide()
            if d.seats == (seat,) and d.prompt == prompt:
                return
            self.table.act([(s, self._default(s, d.prompt)) for s in d.seats])
        raise AssertionError(f"seat {seat} was never asked {prompt}")

    def _default(self, seat: int, prompt: str) -> Action:
        legal = self.state.legal_actions(seat, self.table.knowledge(seat))
        if prompt == "discard":  # keep the cards a test gave: throw fillers first
            inert = [a for a in legal if CARDS[self.table.faces[a["slots"][0]]].kind in INERT]
            return inert[0] if inert else legal[-1]
        for t in ("pass", "end"):
            for a in legal:
                if a["type"] == t:
                    return a
        return legal[0]

    def log(self) -> str:
        """The game's log so far, in English (rendered from its events, which are what the state keeps)."""
        return "\n".join(lines(self.state))


