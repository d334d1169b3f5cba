"""The root of every exception p2php raises on purpose, and the one for bad user input.

Callers (the CLI, the bridge, an embedding program) catch :class:`P2phpError` to tell
"p2php refused something, here is why in one line" from a bug, which should surface
as a traceback.  Each subclass keeps its historical standard base too (``ValueError``
for refusals of bad input, ``TypeError`` for values with no canonical form), so code
that caught those still works.  What a *peer* did wrong is not an exception at all: it
becomes a :class:`~p2php.session.records.Fault` with a
:class:`~p2php.session.records.FaultCode`, matched by code, never by its words.
"""

from __future__ import annotations


class P2phpError(Exception):
    """Something p2php refused or could not do, with a message meant for a person (one line)."""


class UsageError(P2phpError, ValueError):
    """A bad command-line value, address or option combination."""
