"""Remote text made safe to print or quote: control characters escaped, length bounded.

Names in hellos and lobby frames, fault and verdict reasons, option values,
discovery answers: every string another peer (or a lobby host, or anyone who
can send a UDP datagram) chose ends up on somebody's terminal.  Printed raw,
such a string is a program for that terminal: ``\\r`` and ``ESC[2K`` erase the
line we just printed, ``\\n`` starts a new one that looks like ours (a fake
``audit: clean``), ``ESC[31m`` recolours everything after it, ``\\a`` rings the
bell, ``U+202E`` reverses the text that follows and ``U+2028`` breaks a line in
some terminals and in every log viewer.  Quoted raw into one of our own
messages, a 4 MiB string makes that message 4 MiB too.

Two helpers, for the two places remote text goes:

* :func:`safe` — text shown as is (a name in a table listing, a reason after
  ``audit:``): every control character becomes a visible escape and the text
  is cut to ``limit`` characters, saying how much was cut;
* :func:`quote` — a value quoted inside a sentence of ours (``bad name 'x…'``):
  a bounded ``repr``-like form, computed from a prefix only, so quoting a huge
  value costs no more than quoting a short one.

This module imports nothing from the rest of p2php, so every layer (the lobby,
discovery, the session, the terminal, the bridge) can use it.
"""

from __future__ import annotations

import re
import reprlib
import unicodedata
from collections.abc import Iterable

__all__ = ["LINE", "NAME", "is_control", "lookalike_keys", "quote", "safe", "seats_named"]

NAME = 48
"""Characters of a remote name shown where names are listed: lobby names are at most 24, and a name the
lobby or discovery already cut (24 or 32 characters and a cut note) is not cut a second time."""
LINE = 1000
"""Characters of one printed line at most (a last guard where whole lines are printed)."""

_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""C0/DEL/C1 controls, format characters (bidi overrides, zero-width ones), lone surrogates, line and
paragraph separators.  A lone surrogate is listed too: it cannot even be encoded to UTF-8, so printing one
raises instead of printing."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def is_control(char: str) -> bool:
    """Whether one character must never reach a terminal raw (see :data:`_UNSAFE_CATEGORIES`)."""
    return unicodedata.category(char) in _UNSAFE_CATEGORIES


def _escape(char: str) -> str:
    """A visible, unambiguous stand-in for a control character: ``\\n``, ``\\x1b``, ``\\u202e`` …"""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _cut_note(cut: int) -> str:
    return f"…(+{cut} chars)"


def _bounded(text: str, limit: int, escape_quote: str | None = None) -> tuple[str, int]:
    """The escaped prefix of ``text`` that fits in ``limit`` characters, and how many input characters it left out.

    Only the first ``limit`` input characters are looked at (an escape is never shorter than its
    character), so the cost is O(limit) whatever ``len(text)`` is.  ``escape_quote``: also escape that
    quote character and backslashes (for :func:`quote`, whose output reads like a Python literal).
    """
    limit = max(1, limit)
    out: list[str] = []
    width = 0
    used = 0
    for char in text[:limit]:
        if is_control(char):
            piece = _escape(char)
        elif escape_quote is not None and char in ("\\", escape_quote):
            piece = "\\" + char
        else:
            piece = char
        if width + len(piece) > limit:
            break
        out.append(piece)
        width += len(piece)
        used += 1
    return "".join(out), len(text) - used


def safe(text: object, limit: int = 80) -> str:
    """``str(text)`` safe to print: control characters escaped, at most ``limit`` characters (+ a cut note).

    Every character a terminal would act on instead of showing (C0 controls such as ``\\r``, ``\\n``,
    ``\\a`` and ``ESC``; DEL; C1 controls such as CSI ``\\x9b``; Unicode format characters such as the
    bidi override U+202E and zero-width spaces; line and paragraph separators U+2028/U+2029; lone
    surrogates) is replaced by its escape written out (``ESC`` becomes the four characters
    backslash-x-1-b), so the text stays readable and its author cannot draw, erase or recolour anything.
    Text longer than ``limit`` is cut and ends with ``…(+N chars)``, N being the number of characters cut,
    so the result is never more than ``limit + 20`` characters long.  Printable text (any script, emoji,
    ``·``, CJK) passes unchanged, so applying :func:`safe` twice changes nothing more.
    """
    value = text if isinstance(text, str) else str(text)
    shown, cut = _bounded(value, limit)
    return shown + _cut_note(cut) if cut else shown


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = 4
_REPR.maxarray = 4
_REPR.maxstring = _REPR.maxother = 40
_REPR.maxlong = 40


def quote(value: object, limit: int = 60) -> str:
    """``value`` quoted for one of our own messages: a ``repr``-like form of at most about ``limit + 20`` characters.

    Strings come out as ``'text'`` (control characters escaped as in :func:`safe`, quotes and
    backslashes escaped as in ``repr``), bytes as ``b'…'``, anything else through a bounded
    :mod:`reprlib` (a few items per container, a few levels deep) and then :func:`safe`.  A cut value
    ends with ``…(+N chars)``.  Nothing is converted whole before it is cut — never ``repr(value)`` —
    so quoting a 4 MiB string from the network costs as little as quoting a short one, and a message
    that quotes remote data can never outgrow the frame or screen it was meant for.
    """
    limit = max(4, limit)
    if isinstance(value, str):
        body, cut = _bounded(value, limit - 2, escape_quote="'")
        return f"'{body}'" + (_cut_note(cut) if cut else "")
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value[: limit])
        text = repr(raw)
        if len(text) > limit:
            # Cut whole escapes off the end until it fits (each byte is at most 4 characters).
            while len(text) > limit and raw:
                raw = raw[: max(0, len(raw) - max(1, (len(text) - limit) // 4))]
                text = repr(raw)
        cut = len(value) - len(raw)
        return text + (_cut_note(cut) if cut else "")
    if isinstance(value, BaseException):  # its repr holds every argument whole: name it, then its message
        kind = safe(type(value).__name__, limit // 2)
        return f"{kind}: {safe(value, max(1, limit - len(kind) - 2))}"
    try:
        text = _REPR.repr(value)
    except Exception as err:  # a __repr__ that fails: say so rather than fail in turn
        text = f"<unprintable {type(value).__name__}: {type(err).__name__}>"
    return safe(text, limit)


def with_seat(name: str, seat: int) -> str:
    """``name`` (already escaped and cut at :data:`NAME`) with `` (seat N)`` after it, cut first so that it stays within
    :data:`NAME` characters (the seat must survive every later cut at ``NAME``): how a name that could be taken for
    another seat's, or for the person's own, is shown."""
    suffix = f" (seat {seat})"
    room = NAME - len(suffix)
    return (name if len(name) <= room else name[: room - 1] + "…") + suffix


def seats_named(text: str, seats: Iterable[int]) -> list[int]:
    """The seats a message names as ``seat N`` (a whole number: "seat 1" is not "seat 10"), in order."""
    named = {int(n) for n in re.findall(r"\bseat (\d+)\b", text)}
    return [s for s in seats if s in named]


_DRAWN_ALIKE = str.maketrans({
    # Cyrillic and Greek letters drawn like Latin ones, each to the Latin letter of the same case; the strokes a
    # sans-serif font draws alike (capital I, small l, one, bar) to one; and zero, O and o to o.
    **dict.fromkeys("АΑ", "A"), **dict.fromkeys("ВΒ", "B"), "С": "C", **dict.fromkeys("ЕΕ", "E"), "Һ": "H",
    **dict.fromkeys("НΗ", "H"), **dict.fromkeys("ЈϳͿ", "J"), **dict.fromkeys("КΚ", "K"), **dict.fromkeys("МΜ", "M"),
    "Ν": "N", **dict.fromkeys("РΡ", "P"), "Ԛ": "Q", "Ѕ": "S", **dict.fromkeys("ТΤ", "T"), "Ԝ": "W",
    **dict.fromkeys("ХΧ", "X"), **dict.fromkeys("ҮΥ", "Y"), "Ζ": "Z",
    **dict.fromkeys("аɑ", "a"), "ϲ": "c", "с": "c", "ԁ": "d", "е": "e", "ɡ": "g", "һ": "h", **dict.fromkeys("іıι", "i"),
    "ј": "j", "р": "p", "ρ": "p", "ԛ": "q", "ѕ": "s", "υ": "u", "ν": "v", "ԝ": "w", "х": "x", "χ": "x", "у": "y",
    **dict.fromkeys("Il1|ІӀӏΙ", "l"), **dict.fromkeys("0OoОоΟο", "o"),
})


def lookalike_keys(name: str) -> frozenset[str]:
    """What two names are told apart by, for people: two names may be taken for one another if they share a key.

    Two keys: the name with compatibility forms folded (NFKC: a full-width ``Ｒon`` is ``Ron``) and case folded
    (``ANN`` is ``ann``); and its skeleton, case kept, with the letters drawn alike mapped to one (``Аnn`` with a
    Cyrillic ``А`` is ``Ann``, ``Hermi0ne`` is ``Hermione``, ``BIll`` and ``Bi1l`` are ``Bill``, but ``Ian`` is not
    ``Lan``). Accents are kept (``Hà`` and ``Hạ``, ``ゆうじ`` and ``ゆうし`` are two names), and so are ``rn`` and
    ``m``. Not a full Unicode confusables skeleton (UTS #39), which would need its data tables; a lobby refuses a
    name that shares a key with a seated one, so each mapping here is one a reader would really mistake.
    """
    nfkc = unicodedata.normalize("NFKC", name)
    return frozenset({"case:" + nfkc.casefold(), "drawn:" + nfkc.translate(_DRAWN_ALIKE)})
