"""The one exception of A Year at Hogwarts' data: the shipped file disagrees with the data document."""

from __future__ import annotations

from p2php.errors import P2phpError

__all__ = ["DATA_FILE", "HogwartsDataError"]

DATA_FILE = "hogwarts_data.json"
"""The package data file, named in every error."""


class HogwartsDataError(P2phpError, ValueError):
    """``hogwarts_data.json`` is malformed or breaks a count or consistency check of hogwarts-data.md.

    The message is one line naming the item and what is wrong; regenerate the file with
    ``tools/extract_hogwarts_data.py`` or fix the document.
    """
