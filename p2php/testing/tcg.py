"""TCG stacked duels for rule tests: on a trusted local dealer, or (``protocol="fast"``/``"verified"``) through
the real protocol, both secret decks stacked through the crypto and every audit checked by :meth:`Duel.finish`.

>>> d = Duel(first=1, hands={1: ["Magical Mishap"]}, in_play={1: ["Charms", "Charms"]})
>>> d.act(1, d.play(1, "Magical Mishap"))

A seat's secret deck is stacked in this order: its hand (``hands``, filled up to 7 with the deck's
Lessons), then its draws (``draws``, top first), then every other card of its deck; the cards named
in ``in_play`` (Lessons, Creatures, Items, Characters, an Adventure) are taken from the bottom of the
deck into play once the set-up is done, before the first player's first Action (a test-only edit:
every face stays consistent with the table).  ``first`` fixes who goes first (the joint randomness).
``reshuffled`` names the cards a seat's first reshuffle ("Then shuffle your deck") puts on top, in
order; the rest keep their order.  Cards are named as the card data names them ("Care of Magical
Creatures", "Vermillious").

``decks`` (and ``characters``, the starting ones) gives a seat a constructed deck instead
(:func:`deck_text`: the named cards, filled up to 60 with Lessons); then both seats play constructed
decks (the other one is all Lessons unless given).  :func:`random_deck_text` makes a seeded random
legal 60-card deck of implemented cards, for whole games.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import cast

from p2php.engine.contract import Action, CardId, Decide, GameOver, Seat, Shuffle, Slot
from p2php.engine.local import LocalTable
from p2php.games.tcg.cards import BASE_SET, CardType, LessonType, card_by_name
from p2php.games.tcg.effects import unimplemented
from p2php.games.tcg.game import GAME
from p2php.games.tcg.ids import card_of
from p2php.games.tcg.state import HAND, TcgState
from p2php.testing.edits import SharedState
from p2php.testing.protocol import ProtocolTable
from p2php.testing.stacking import StackedChance, StackingError

__all__ = ["Duel", "deck_text", "random_deck_text", "table_decks"]

LESSONS = ("Care of Magical Creatures", "Charms", "Potions", "Transfiguration")
CONSTRUCTED = 60


def deck_text(cards: Sequence[str], character: str = "Hermione Granger") -> str:
    """A 60-card constructed deck: ``cards`` (names, repeated for copies), then Lessons of each type in turn."""
    counts = Counter(cards)
    filler = CONSTRUCTED - len(cards)
    for i in range(filler):
        counts[LESSONS[i % len(LESSONS)]] += 1
    return "\n".join([f"Character: {character}", *(f"{n} {name}" for name, n in counts.items())]) + "\n"


def random_deck_text(seed: int | str) -> str:
    """A seeded random legal 60-card deck of implemented cards: two Lesson types, 24 Lessons, 36 others."""
    rng = random.Random(f"tcg-deck/{seed}")
    character = rng.choice(sorted({c.name for c in BASE_SET if c.can_start and not unimplemented(c)}))
    kinds = rng.sample(sorted(LessonType), 2)
    pool = sorted({c.name for c in BASE_SET if not unimplemented(c) and c.name != character
                   and c.type is not CardType.LESSON and (
        c.type in (CardType.CHARACTER, CardType.ADVENTURE) or c.lesson in kinds)})
    cards: list[str] = []
    while len(cards) < 36 and pool:
        name = rng.choice(pool)
        cards.append(name)
        if cards.count(name) == 4 or (card_by_name(name).unique and cards.count(name) == 1):
            pool.remove(name)
    names = {k: card_by_name(LESSONS[sorted(LessonType).index(k)]).name for k in kinds}
    lessons = [names[kinds[i % 2]] for i in range(CONSTRUCTED - len(cards))]
    counts = Counter([*cards, *lessons])
    return "\n".join([f"Character: {character}", *(f"{n} {name}" for name, n in sorted(counts.items()))]) + "\n"


def table_decks(options: Mapping[str, object]) -> dict[tuple[Seat, str], list[CardId]]:
    """Both seats' secret deck lists, keyed as :class:`LocalTable` wants them."""
    out: dict[tuple[Seat, str], list[CardId]] = {}
    for seat in (0, 1):
        for purpose, cards in GAME.private_decks(options, seat).items():
            out[(seat, purpose)] = cards
    return out


READS = frozenset({"card", "characters_of", "has_character", "in_play_names", "in_play", "lessons_of",
                   "creature_damage", "adventure_of", "marked", "shielded", "face_up", "fresh_block", "listening",
                   "public"})
""":class:`TcgState`'s methods that only read: a script calls them through the shared state without an edit check
(which hashes the state twice)."""
_FIRST_SEEDS: dict[Seat, int] = {}
"""The scenario seed whose peers' first joint draw makes each seat go first (found once per process)."""


class Duel:
    """A :class:`LocalTable` over stacked secret decks, driven by scripted actions."""

    def __init__(
        self,
        *,
        first: Seat = 0,
        hands: Mapping[Seat, Sequence[str]] | None = None,
        draws: Mapping[Seat, Sequence[str]] | None = None,
        in_play: Mapping[Seat, Sequence[str]] | None = None,
        options: Mapping[str, object] | None = None,
        decks: Mapping[Seat, Sequence[str]] | None = None,
        characters: Mapping[Seat, str] | None = None,
        reshuffled: Mapping[Seat, Sequence[str]] | None = None,
        protocol: str = "",
    ) -> None:
        opts = dict(options or {})
        if decks is not None:
            opts["format"] = "constructed"
            for seat in (0, 1):
                start = (characters or {}).get(seat, "Hermione Granger" if seat == 0 else "Draco Malfoy")
                opts.setdefault(f"decklist{seat}", deck_text(decks.get(seat, ()), start))
        self.options = GAME.parse_options(opts)
        self.hands = {s: list((hands or {}).get(s, ())) for s in (0, 1)}
        self.draws = {s: list((draws or {}).get(s, ())) for s in (0, 1)}
        self.in_play = {s: list((in_play or {}).get(s, ())) for s in (0, 1)}
        self.reshuffled = {s: list((reshuffled or {}).get(s, ())) for s in (0, 1)}
        self.table: LocalTable | ProtocolTable
        self.state: TcgState
        if protocol:
            self._through_protocol(protocol, first, opts)
        else:
            self.state = GAME.new_state(2, self.options)
            self.table = LocalTable(self.state, 0, chance=StackedChance(self._arrange, [bytes([first]) * 32]),
                                    private_decks=table_decks(self.options))
            self.step: Decide | GameOver = self.table.run_chance()
        self._put_in_play()

    def _through_protocol(self, crypto: str, first: Seat, opts: Mapping[str, object]) -> None:
        """Two real peers in memory (``crypto`` = ``fast`` or ``verified``), every deck stacked through the crypto.

        Who goes first is joint randomness there, which nobody can fix: the seeds are tried in turn until the
        table's draw gives ``first`` (the seeded peers make the same draw every run).  That draw is the peers'
        first beacon, which depends on their seeded secrets and its step number alone (the same at every TCG
        set-up, whatever the options and decks), so what a seed gives is remembered (:data:`_FIRST_SEEDS`) and
        later duels start with the right one: one set-up, not a search (a wrong memory only costs the search).
        """
        known = _FIRST_SEEDS.get(first)
        for seed in ([known] if known is not None else []) + [s for s in range(64) if s != known]:
            table = ProtocolTable(GAME, 2, {**opts, "crypto": crypto}, seed, self._arrange, stack_secret=True,
                                  reads=READS)
            step = table.run_chance()
            drawn: Seat = table.peers[0].state.first  # type: ignore[attr-defined]
            _FIRST_SEEDS.setdefault(drawn, seed)  # what this seed gives, for the next duel that wants it
            if drawn == first:
                self.table, self.step = table, step
                self.state = cast(TcgState, SharedState(table))
                return
        raise StackingError(f"no seed of 64 makes seat {first} go first")

    def state_hash(self) -> bytes:
        """The state hash (seat 0's peer's, through the protocol): equal in both modes for the same script."""
        if isinstance(self.table, ProtocolTable):
            return self.table.peers[0].state.state_hash()
        return self.state.state_hash()

    def played(self) -> list[int]:
        """The card numbers played from a hand so far, in order (the log's ``play`` entries)."""
        return [card_of(self.table.faces[e[2]]).number for e in self.state.events if e[0] == "play"]

    def finish(self) -> None:
        """Through the protocol: end the game here, run both peers' audits, and check them clean."""
        if isinstance(self.table, ProtocolTable):
            self.table.finish()

    def _take(self, pool: list[CardId], name: str, seat: Seat) -> CardId:
        for card in pool:  # a name, or a label for one of two versions ("Draco Malfoy (Base 3)")
            if name in (card_of(card).name, card_of(card).label):
                pool.remove(card)
                return card
        raise StackingError(f"seat {seat}'s deck has no (more) {name!r}")

    def _arrange(self, step: Shuffle) -> list[CardId]:
        if step.purpose.startswith("reshuffle"):  # "Then shuffle your deck": the named cards on top, then the rest
            seat = int(step.purpose.removeprefix("reshuffle"))
            rest = list(step.cards)
            top = [self._take(rest, n, seat) for n in self.reshuffled[seat]]
            self.reshuffled[seat] = []  # only the first reshuffle of the seat is stacked
            return top + rest
        seat = int(step.purpose.removeprefix("deck"))
        pool = sorted(table_decks(self.options)[(seat, step.purpose)])
        hand = [self._take(pool, n, seat) for n in self.hands[seat]]
        draws = [self._take(pool, n, seat) for n in self.draws[seat]]
        bottom = [self._take(pool, n, seat) for n in self.in_play[seat]]
        fillers = [c for c in pool if card_of(c).type is CardType.LESSON]
        while len(hand) < HAND:
            if not fillers:
                raise StackingError(f"seat {seat}'s deck has too few Lessons to fill the hand")
            hand.append(fillers.pop(0))
            pool.remove(hand[-1])
        return hand + draws + pool + bottom

    def _put_in_play(self) -> None:
        g = self.state
        for seat in (0, 1):
            for _ in self.in_play[seat]:
                slot = g.deck[seat].pop()
                face = self.table.faces[slot]
                g.pub[slot] = face
                self.table.public[slot] = face
                kind = card_of(face).type
                if kind is CardType.LESSON:
                    g.lessons[seat].append(slot)
                elif kind is CardType.ITEM:
                    g.items[seat].append(slot)
                elif kind is CardType.CHARACTER:
                    g.characters[seat].append(slot)
                elif kind is CardType.ADVENTURE:
                    g.adventures[seat] = slot
                else:
                    g.creatures[seat].append([slot, 0])

    # ------------------------------------------------------------------ reading
    def name(self, slot: Slot) -> str:
        return card_of(self.table.faces[slot]).name

    def slot(self, seat: Seat, name: str, zone: str = "hand") -> Slot:
        """The first slot of ``seat``'s ``zone`` (hand, lessons, discard, creatures) holding ``name``."""
        slots = [c[0] for c in self.state.creatures[seat]] if zone == "creatures" else getattr(self.state, zone)[seat]
        for slot in slots:
            if name in (self.name(slot), card_of(self.table.faces[slot]).label):
                return int(slot)
        raise AssertionError(f"no {name!r} in seat {seat}'s {zone}")

    def names(self, seat: Seat, zone: str) -> list[str]:
        if zone == "creatures":
            return [self.name(c[0]) for c in self.state.creatures[seat]]
        return [self.name(s) for s in getattr(self.state, zone)[seat]]

    def play(self, seat: Seat, name: str) -> Action:
        return {"type": "play", "slot": self.slot(seat, name)}

    @property
    def prompt(self) -> str:
        assert isinstance(self.step, Decide), f"the game is over: {self.step}"
        return self.step.prompt

    def legal(self, seat: Seat) -> list[Action]:
        return self.state.legal_actions(seat, self.table.knowledge(seat))

    # ------------------------------------------------------------------ driving
    def act(self, seat: Seat, action: Action, prompt: str | None = None) -> None:
        """``seat`` (who must be asked) answers ``action``; chance steps run on to the next decision."""
        assert isinstance(self.step, Decide), f"the game is over: {self.step}"
        assert self.step.seats == (seat,), f"seats {self.step.seats} are asked ({self.step.prompt}), not {seat}"
        assert prompt is None or self.step.prompt == prompt, f"prompt {self.step.prompt!r}, not {prompt!r}"
        self.table.act([(seat, action)])
        self.step = self.table.run_chance()

    def end_turn(self, seat: Seat) -> None:
        self.act(seat, {"type": "end"}, "action")
