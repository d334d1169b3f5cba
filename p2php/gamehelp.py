"""Help on a game's cards, characters, skills, sheets and cells, from the game's own data, in one language.

Why one place: the terminal's ``? NAME`` and the browser's help panel (``/help/GAME.json``) must say the same
thing, and neither may retype rules text.  A game opts in by defining ``help_entries(lang)`` in its ``help``,
``view`` or ``words`` module (read-only, built from its data modules); a game without one simply has no help.

An entry is a plain dict: ``id`` (``"card:bombarda"``, unique in the game), ``kind`` (card, character, skill,
sheet, cell, token, mission …), ``title`` (in the asked language), ``names`` (every name a player may type
or a view may show: both languages, ids), ``facts`` (one short line: type, cost, numbers) and ``text``.
"""

from __future__ import annotations

import importlib
import unicodedata
from functools import cache
from typing import Any

__all__ = ["HELP_LANGS", "find", "help_entries", "help_tables"]

HELP_LANGS = ("en", "zh")
"""Languages a help table is served in (a game with one language gives the same entries for both)."""

HelpEntry = dict[str, Any]


@cache
def _provider(game: str) -> Any:
    for module in ("help", "view", "words"):
        try:
            found = importlib.import_module(f"p2php.games.{game}.{module}")
        except ImportError:
            continue
        if callable(getattr(found, "help_entries", None)):
            return found.help_entries
    return None


def help_entries(game: str, lang: str) -> list[HelpEntry]:
    """Every help entry of ``game`` in ``lang`` (``en`` or ``zh``), in the game's order; [] if it has none."""
    if lang not in HELP_LANGS:
        raise ValueError(f"no help in {lang!r}: one of {', '.join(HELP_LANGS)}")
    provider = _provider(game) if game.isidentifier() else None
    if provider is None:
        return []
    entries: list[HelpEntry] = provider(lang)
    return entries


def help_tables(game: str) -> dict[str, list[HelpEntry]]:
    """``{"en": [...], "zh": [...]}``: what the page fetches once per table."""
    return {lang: help_entries(game, lang) for lang in HELP_LANGS}


def _norm(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def find(entries: list[HelpEntry], query: str) -> list[HelpEntry]:
    """The entries ``query`` names: exact name matches if any, else every entry with a name containing it.

    Matching ignores case, spaces and punctuation (``"expecto patronum"`` finds ``Expecto Patronum``,
    ``"爆破"`` finds 爆破咒)."""
    want = _norm(query)
    if not want:
        return []
    exact = [e for e in entries if any(_norm(n) == want for n in e["names"])]
    if exact:
        return exact
    return [e for e in entries if any(want in _norm(n) for n in e["names"])]
