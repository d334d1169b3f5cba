"""The data's effect and ability terms (data §2.2) read into a head and its arguments:
``after:roll(2,res-1)`` is ``("after:roll", ["2", "res-1"])``, ``cancel_next`` is ``("cancel_next", [])``."""

from __future__ import annotations

import re

__all__ = ["amount", "parse", "terms_of"]

_TERM = re.compile(r"^(?:all:\s*)?([a-z_0-9]+(?::[a-z_0-9]+)?)(?:\(([^)]*)\))?(?:=(.*))?$")


def parse(term: str) -> tuple[str, list[str]]:
    """``(head, args)`` of one term; ``vs(dementor)=damage(8)`` keeps ``damage(8)`` as a last argument."""
    match = _TERM.match(term.strip())
    if match is None:
        raise ValueError(f"not a term of data §2.2: {term!r}")
    head, args, value = match.groups()
    out = [a.strip() for a in args.split(",")] if args else []
    if value:
        out.append(value)
    return head, out


def amount(arg: str) -> int:
    """A term's number: ``+2`` -> 2, ``-10`` -> -10."""
    return int(arg)


def terms_of(terms: tuple[str, ...], head: str) -> list[list[str]]:
    """The argument lists of every term with ``head``, in order."""
    return [args for h, args in (parse(t) for t in terms) if h == head]
