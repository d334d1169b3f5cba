"""A bot at a table other people play at has a secret seed: its choices are a function of its seed and its hand, so
an opponent who knew the seed (``None/1``, ``host/1``, ``resumed/1``) could replay the bot for every hand it might
hold and keep those that make the choices it saw (red-team rt3-secrecy's suspicion)."""

from __future__ import annotations

from typing import Any

import pytest

from p2php import peercli
from p2php.bots import bot_seed
from p2php.engine.registry import get_game


def test_a_bot_with_no_seed_given_gets_a_fresh_secret_one() -> None:
    seeds = {bot_seed(None, 1) for _ in range(20)}
    assert len(seeds) == 20 and all(len(s) >= 32 and "None" not in s for s in seeds)
    assert bot_seed(7, 1) == "7/1"  # a given seed (tests, demos) stays reproducible


def _seeds_of_uno_bots(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The seeds UNO's bots are made with from now on (the list fills as they are made)."""
    game = get_game("uno")
    seen: list[str] = []
    real = game.make_bot

    def make_bot(kind: str, seed: Any) -> Any:
        seen.append(str(seed))
        return real(kind, seed)

    monkeypatch.setattr(game, "make_bot", make_bot)
    return seen


@pytest.mark.parametrize("given", [None, 5])
def test_p2php_peer_and_resume_seed_their_bots_secretly_unless_told(monkeypatch: pytest.MonkeyPatch,
                                                                    given: int | None) -> None:
    seen = _seeds_of_uno_bots(monkeypatch)
    peercli._decider("uno", "random", given, 1)
    peercli._decider("uno", "random", given, 1)
    if given is None:
        assert seen[0] != seen[1] and not seen[0].endswith("/1"), seen
    else:
        assert seen == ["5/1", "5/1"]


def test_the_bots_of_an_online_table_are_seeded_secretly(monkeypatch: pytest.MonkeyPatch) -> None:
    """``host_online_table(bots=N)`` seated its bots with the public seed ``online/<seat>`` (red-team rt5:
    a joiner foretold 14 of 14 Wild Draw Four challenges of the UNO bot)."""
    pytest.importorskip("libp2p")
    from p2php.session import online_table

    seen = _seeds_of_uno_bots(monkeypatch)
    online_table.host_bot("uno", "heuristic", 1)
    online_table.host_bot("uno", "heuristic", 1)
    assert seen[0] != seen[1] and "online" not in seen[0] and not seen[0].endswith("/1"), seen
