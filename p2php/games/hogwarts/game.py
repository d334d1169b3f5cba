"""A Year at Hogwarts as an engine game: options, players, card names, bots.

Options: ``mode`` = ``underage`` | ``qualified`` | ``solo`` | ``team`` | ``return_of_voldemort`` (2 to 4
players, the Dodge always on); ``length`` = ``quick`` | ``classic`` | ``long`` (rules §2); ``dodge`` = ``false``
| ``true`` (the optional Dodge rule, C-36); ``difficulty`` = ``underage`` | ``qualified`` (solo only: the rules it
plays by, C-11); ``teams`` (team mode only: how many teams, seat s in team s % teams; 1: one team of all, C-9).
2 to 9 players (C-14: nine sheets; team mode with several teams: 4 or more, 2 or 3 a team, C-8); solo: exactly 1.
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
RETURN_PLAYERS = (2, 4)
"""The Return of Lord Voldemort: 2–4 players (rules §16)."""


MIN_TABLE = 2
"""Players in every mode but solo (C-14)."""
TEAM_TABLE = 4
"""Team mode with several teams needs 4 players or more (C-8)."""


def check_teams(players: int, teams: int) -> None:
    """Teams of 2 or 3 (C-8), seat s in team s % teams; or one team of everyone (teams=1, C-9)."""
    if teams == 1:
        return
    if teams < 1 or players < TEAM_TABLE or not 2 * teams <= players <= 3 * teams:
        raise OptionError(f"hogwarts: mode=team needs teams of 2 or 3 players and at least {TEAM_TABLE} players "
                          f"(or teams=1, one team of everyone): {players} players cannot form {teams} teams")


class HogwartsGame(Game):
    """Harry Potter: A Year at Hogwarts, the board game."""

    name: ClassVar[str] = "hogwarts"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 9
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "mode": OptionSpec("underage", MODES, "difficulty or alternative mode"),
        "length": OptionSpec("quick", ("quick", "classic", "long"), "game length: missions and points to win"),
        "dodge": OptionSpec(False, None, "the optional Dodge rule against enemies' dice (C-36)"),
        "difficulty": OptionSpec("underage", ("underage", "qualified"), "solo: play as underage or qualified (C-11)"),
        "teams": OptionSpec(2, None, "team mode: how many teams; seat s plays in team s % teams (1: everyone, C-9)"),
    }
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic")

    def parse_options(self, raw: Mapping[str, object]) -> dict[str, str | int | bool]:
        opts = super().parse_options(raw)
        if opts["mode"] == RETURN:
            opts["dodge"] = True  # always on in Return mode (C-36)
        return opts

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise OptionError(f"hogwarts needs {MIN_TABLE}–{self.max_players} players (1 in mode=solo), not {players}")

    def new_state(self, players: int, options: Mapping[str, object]) -> HogwartsState:
        self.check_players(players)
        opts = self.parse_options(dict(options))
        if opts["mode"] == "solo" and players != 1:
            raise OptionError(f"hogwarts: mode=solo is played by 1 player, not {players}")
        if opts["mode"] != "solo" and players < MIN_TABLE:
            raise OptionError(f"hogwarts needs {MIN_TABLE}–{self.max_players} players (1 in mode=solo), not {players}")
        if opts["mode"] == "team":
            check_teams(players, int(opts["teams"]))
        load()  # a broken data file fails here, in one line
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
