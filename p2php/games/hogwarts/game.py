"""A Year at Hogwarts as an engine game: options, players, card names, bots.

Options: ``mode`` = ``underage`` (built) | ``qualified`` | ``team`` | ``solo`` (not built yet: refused with an
:class:`~p2php.engine.contract.OptionError` naming what is missing) | ``return_of_voldemort`` (built: 2 to 4
players, the Dodge always on); ``length`` = ``quick`` | ``classic`` | ``long`` (rules §2); ``dodge`` =
``false`` | ``true`` (the optional Dodge rule, C-36).  2 to 9 players (C-14: nine sheets; solo, 1, is not built).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from p2php.bots import RandomBot
from p2php.engine.contract import Bot, CardId, Game, OptionError, OptionSpec, Seat

from .bots import HeuristicBot
from .data import load
from .ids import instance, universe
from .state import HogwartsState
from .turn import Year
from .view import table_lines
from .voldemort_rules import RETURN
from .voldemort_turn import ReturnYear

__all__ = ["GAME", "HogwartsGame"]

MODES = ("underage", "qualified", "team", "solo", "return_of_voldemort")
BUILT_MODES = ("underage", RETURN)
RETURN_PLAYERS = (2, 4)
"""The Return of Lord Voldemort: 2–4 players (rules §16)."""
NOT_BUILT = {
    "qualified": "qualified mode needs the Death Eater tokens and battles, alternating player battles and the "
                 "requirement to take part in a Quidditch match, which are not built yet",
    "team": "team mode needs teams, shared missions and Death Eaters, which are not built yet",
    "solo": "solo mode needs one-player play and Snitch practice, which are not built yet",
}


class HogwartsGame(Game):
    """Harry Potter: A Year at Hogwarts, the board game."""

    name: ClassVar[str] = "hogwarts"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 9
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "mode": OptionSpec("underage", MODES, "difficulty or alternative mode (built: underage, return_of_voldemort)"),
        "length": OptionSpec("quick", ("quick", "classic", "long"), "game length: missions and points to win"),
        "dodge": OptionSpec(False, None, "the optional Dodge rule against enemies' dice (C-36)"),
    }
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic")

    def parse_options(self, raw: Mapping[str, object]) -> dict[str, str | int | bool]:
        opts = super().parse_options(raw)
        mode = str(opts["mode"])
        if mode not in BUILT_MODES:
            raise OptionError(f"hogwarts: mode={mode} is not playable yet: {NOT_BUILT[mode]}")
        if mode == RETURN:
            opts["dodge"] = True  # always on in Return mode (C-36)
        return opts

    def new_state(self, players: int, options: Mapping[str, object]) -> HogwartsState:
        self.check_players(players)
        load()  # a broken data file fails here, in one line
        opts = self.parse_options(dict(options))
        if opts["mode"] == RETURN:
            low, high = RETURN_PLAYERS
            if not low <= players <= high:
                raise OptionError(f"hogwarts: mode={RETURN} is for {low}–{high} players, not {players}")
            return HogwartsState(players, opts, ReturnYear())
        return HogwartsState(players, opts, Year())

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        inst = instance(card)
        data = load()
        if inst.deck == "mission":
            return f"mission {data.mission(int(inst.card[1:])).number}: {data.mission(int(inst.card[1:])).title}"
        found = data.deck(inst.deck)[inst.card]
        return str(getattr(found, "name", None) or getattr(found, "title", None) or getattr(found, "text", inst.card))

    def table_lines(self, observation: Mapping[str, Any], seat: Seat, names: Sequence[str]) -> list[str] | None:
        return table_lines(observation, seat, names)

    def universe_size(self, options: Mapping[str, object]) -> int:
        return len(universe())

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        if kind == "random":
            return RandomBot(seed)
        if kind == "heuristic":
            return HeuristicBot(seed)
        raise OptionError(f"hogwarts has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")


GAME = HogwartsGame()
"""The game object an entry point ``p2php.games`` would name (not registered yet)."""
