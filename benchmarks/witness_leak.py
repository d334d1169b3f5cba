"""How much a verified audit's witness opens when a game stops at a decision (red-team rt5-attrib; protocol.md §10.4).

Plays honest games (fast deck, for speed; the witness does not depend on the deck) and, at every decision of the
record, computes each answer's witness (p2php.session.witness) and how many of its slots the answer does not
open itself (``reveals``): the cards a stop at that decision would open beyond what the answer shows anyway.
"""
from __future__ import annotations

import sys
from collections import Counter

sys.path.insert(0, "tests")

import contextlib

import toygame  # noqa: E402,F401

from p2php.bots import RandomBot  # noqa: E402
from p2php.engine.contract import Decide  # noqa: E402
from p2php.session.memory import make_peers, run_in_memory  # noqa: E402
from p2php.session.witness import WitnessRecorder  # noqa: E402


def survey(game: str, players: int, seeds: range) -> None:
    extra: Counter[int] = Counter()
    where: Counter[str] = Counter()
    answers = 0
    for seed in seeds:
        peers = make_peers(game, players, {"crypto": "fast"}, seed=seed)
        run_in_memory(peers, {s: RandomBot(seed * 10 + s) for s in range(players)})
        ls = peers[0]
        state = ls.game.new_state(ls.players, ls.options)
        public: dict[int, int] = {}
        for ev in ls.events:
            if isinstance(ev.step, Decide):
                for seat, action in ev.answers:
                    rec = WitnessRecorder(public)
                    with contextlib.suppress(Exception):
                        state.check(seat, action, rec)
                    shown = set(state.reveals(seat, action))
                    more = [s for s in rec.asked if s not in shown]
                    answers += 1
                    extra[len(more)] += 1
                    if more:
                        where[str(action.get("type"))] += 1
                state.apply(ev.answers, ev.faces)
            elif ev.faces:
                state.advance(faces=ev.faces)
            elif ev.random:
                state.advance(random=ev.random)
            else:
                state.advance()
            public.update(ev.faces)
    print(f"{game} {players} seats, {len(seeds)} games, {answers} answers: hidden slots a witness opens beyond "
          f"the answer's own reveals -> {dict(sorted(extra.items()))}; by action type {dict(where.most_common(8))}")


if __name__ == "__main__":
    survey("uno", 4, range(3))
    survey("hpsha", 4, range(3))
    survey("hogwarts", 4, range(2))
    survey("toy", 3, range(3))
