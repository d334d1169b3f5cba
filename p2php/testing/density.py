"""Does every action a game offers fit the wire's density rule?  A check for a game's author, before any table.

Every seat refuses a signed message whose wire form holds more than one value (§3.1's count: the items of every
container, map keys included) for every :data:`~p2php.net.framing.VALUE_BYTES` bytes (protocol.md §5.2 check 6,
``bad_message``): a reader of a transcript or resume log affords no more for a whole file. An honest message
spends 7 bytes or more on each value, but the action is a game's own data: an action that is a long list of small
ints (a one-byte value each) makes its seat's honest message too dense, and every other seat names that seat.

:func:`density_fault` puts an action in the leanest message an honest seat sends it in (an ``action`` with no
keys and no ``seen`` heads, small numbers; every real message adds bytes of keys and heads, at 8 bytes a value or
more) and asks at least :data:`ACTION_VALUE_BYTES` bytes a value of the whole: a quarter above the rule's 4, so
that no legal action comes near what honest seats refuse. The built-in games' densest legal actions spend about 6
there (HP Sha at 10 seats: Aguamenti's ten targets, 43 values in 256 bytes; UNO 7.5, Hogwarts 6.9, the TCG 7.9; a
real message, with its keys and ``seen`` heads, 7.3 or more); an action holding a list of 20 small ints fails.
:func:`~p2php.testing.agreement.check_agreement` and :func:`~p2php.testing.conformance.check_game` apply it to
every legal action they meet.
"""

from __future__ import annotations

from p2php.canonical import encode
from p2php.engine.contract import Action
from p2php.net.framing import VALUE_BYTES, body_values
from p2php.session.messages import MAX_ACTION_BYTES, MAX_ACTION_VALUES, Message, past_action_bound

__all__ = ["ACTION_VALUE_BYTES", "density_fault", "lean_message_size", "shown"]

ACTION_VALUE_BYTES = 5
"""Bytes a value the leanest honest message carrying a legal action must spend at least (the rule asks
:data:`~p2php.net.framing.VALUE_BYTES`, 4)."""

assert ACTION_VALUE_BYTES > VALUE_BYTES


def _lean(action: Action) -> Message:
    return Message(sender=0, seq=1, prev=bytes(32), at=(1, 0), state=bytes(32), seen=(), kind="action",
                   body={"action": action, "keys": []}, sig=bytes(64))


_EMPTY = _lean({}).wire_bytes
_EMPTY_VALUES = body_values(_EMPTY)
_EMPTY_ACTION = encode({})
_EMPTY_ACTION_VALUES = body_values(_EMPTY_ACTION)


def lean_message_size(action: Action) -> tuple[int, int]:
    """The bytes and values of the leanest honest message carrying ``action`` (its wire form, §5.1): the envelope
    is the same for every action, so only the action is encoded and walked."""
    mine = encode(action)
    return (len(_EMPTY) - len(_EMPTY_ACTION) + len(mine),
            _EMPTY_VALUES - _EMPTY_ACTION_VALUES + body_values(mine))


def density_fault(action: Action) -> str | None:
    """Why ``action`` is too dense for the wire (one line), or None if its leanest message spends at least
    :data:`ACTION_VALUE_BYTES` bytes on each value and it is within the action bound (``MAX_ACTION_VALUES``,
    ``MAX_ACTION_BYTES``)."""
    mine = encode(action)
    if past_action_bound(mine):
        # (no seat signs it, and every other seat names its sender bad_message, §5.2 check 6; review rv8-red)
        return (f"it holds {body_values(mine)} values in {len(mine)} bytes, and an action holds at most "
                f"{MAX_ACTION_VALUES} values and {MAX_ACTION_BYTES} bytes (protocol.md §5.2 check 6): a seat refuses "
                "to send it")
    size, values = lean_message_size(action)
    if ACTION_VALUE_BYTES * values <= size:
        return None
    return (f"encoded as on the wire, its leanest message holds {values} values in {size} bytes "
            f"({size / values:.1f} bytes a value; a game's actions must spend at least {ACTION_VALUE_BYTES}, and "
            f"every seat refuses a message under {VALUE_BYTES}, naming its sender bad_message, protocol.md §5.2 "
            f"check 6): carry many small numbers as one bin or string, or fewer of them")


def shown(action: Action, most: int = 160) -> str:
    """``action`` for an error line, cut after ``most`` characters (a too dense one may hold thousands of values)."""
    text = repr(action)
    return text if len(text) <= most else f"{text[:most]}… ({len(text)} characters)"
