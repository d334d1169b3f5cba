"""Cost of one A Year at Hogwarts hand re-mask (E38, protocol.md §10.4), and of the reshuffle before a search's
look (E39): messages and bytes through the real protocol, both decks, 4 and 9 seats.

At the first turn seat 1 holds 4 spell cards (a test edit: it draws 4 and puts its other cards under), one of
them marked as known to seat 0 (as after a steal); :class:`~p2php.games.hogwarts.remask.RemaskHand` then mixes
them: one Reshuffle of the 4 slots + one Deal to the holder, what a random pick from that hand is preceded by.
The messages every peer broadcasts until the next decision are counted, with the bytes of every frame on every
link (msgpack of the wire form each recipient gets).  The pick's own Randomness is not counted: it is paid with or
without the re-mask.  A search (Accio) of the potion deck is then measured from the deck's choice to the take,
with a deck nobody else knows (the look alone) and with one card in it that came round face up (E3: the deck is
reshuffled first, E39).

    .venv/bin/python benchmarks/hogwarts_remask_cost.py
"""

from __future__ import annotations

import time

from wire_counter import Counter

from p2php.engine.contract import CardId, Shuffle
from p2php.engine.tasks import Task, TaskStack
from p2php.games.hogwarts.decks import Draw, OpenTop
from p2php.games.hogwarts.game import GAME
from p2php.games.hogwarts.ids import deck_of_slot
from p2php.games.hogwarts.remask import RemaskHand, remask_groups
from p2php.games.hogwarts.search import SearchDeck
from p2php.games.hogwarts.state import HogwartsState
from p2php.testing.scenario import Scenario

READS = frozenset({"student", "ability", "card_of", "figures_at", "in_truce", "public", "waiting", "asking",
                   "family"})
CARDS = 4


class Table(Scenario):
    state: HogwartsState
    wrap = (Task, TaskStack)

    def __init__(self, players: int, crypto: str) -> None:
        super().__init__(GAME, players, {"crypto": crypto}, 0, "protocol", reads=READS)
        for seat in range(players):
            self.act(seat, {"type": "character", "sheet": seat + 1}, "character")
        self.step()

    def arrange(self, step: Shuffle) -> list[CardId]:
        return list(step.cards)


def measure_search(n: int, crypto: str, exposed: bool) -> tuple[int, int, int, int]:
    t = Table(n, crypto)
    g = t.state
    t.decide()
    if exposed:
        slot = int(g.deck["potion"][0])
        g.stack.push(OpenTop("potion"))
        t.step()
        g.under(slot)
        t.decide()
    size = len(g.deck["potion"])
    g.stack.push(SearchDeck(1, ["potion"]))
    t.expect(1, "search_deck")
    with Counter() as c:  # from the deck's choice to the take (the look, and the reshuffle before it if any)
        t.table.act([(1, {"type": "deck", "deck": "potion"})])
        t.decide()
    t.finish()
    return c.count["msgs"], c.count["frames"], c.count["bytes"], size


def measure(n: int, crypto: str) -> tuple[int, int, int, float, list[int], dict[str, int]]:
    t = Table(n, crypto)
    g = t.state
    t.decide()
    g.stack.push(Draw(1, "spell", CARDS))
    t.step()
    for s in [int(x) for x in g.hand[1] if deck_of_slot(x) != "spell"][:]:
        g.discard_from_hand(1, s)
    spells = [int(x) for x in g.hand[1] if deck_of_slot(x) == "spell"]
    for s in spells[:-CARDS]:
        g.discard_from_hand(1, s)
    hand = list(g.hand[1])
    g.seen[hand[0]] = [0, 1]  # test edit: seat 0 knows one of them (it took it from seat 1 and lost it back)
    groups = [len(grp) for grp in remask_groups(g, 1)]
    t.decide()
    g.stack.push(RemaskHand(1))
    with Counter() as c:
        t0 = time.perf_counter()
        t.step()
    dt = time.perf_counter() - t0
    assert not set(hand) & set(g.hand[1]) and len(g.hand[1]) == len(hand)
    t.finish()
    return c.count["msgs"], c.count["frames"], c.count["bytes"], dt, groups, c.kinds


if __name__ == "__main__":
    for crypto in ("fast", "verified"):
        for n in (4, 9):
            msgs, frames, size, dt, groups, kinds = measure(n, crypto)
            print(f"crypto={crypto:8} n={n}: one re-mask of {groups} cards: +{msgs} messages, +{frames} frames, "
                  f"+{size} bytes on all links, {dt * 1000:.0f} ms (all peers in one process) {kinds}", flush=True)
            base, mixed = measure_search(n, crypto, False), measure_search(n, crypto, True)
            print(f"crypto={crypto:8} n={n}: a search's look at {base[3]} cards: {base[0]} messages, {base[2]} bytes; "
                  f"reshuffled first ({mixed[3]} cards, one face up): +{mixed[0] - base[0]} messages, "
                  f"+{mixed[1] - base[1]} frames, +{mixed[2] - base[2]} bytes on all links", flush=True)
