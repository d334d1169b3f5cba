"""A token bucket: how often a remote party may do something that costs us work (a chat line, a spectator's join).

Wall-clock time is fine here: it bounds what a remote party spends, it never decides a rule of the game.
"""

from __future__ import annotations


class TokenBucket:
    """``capacity`` tokens, one more every ``refill`` seconds; :meth:`take` spends one if there is one."""

    def __init__(self, capacity: int, refill: float, now: float) -> None:
        self.capacity = capacity
        self.refill = refill
        self.tokens = float(capacity)
        self.at = now

    def _level(self, now: float) -> float:
        """The tokens the bucket would hold at ``now`` before its cap (a clock that went back refills nothing)."""
        return self.tokens + max(0.0, now - self.at) / self.refill

    def full(self, now: float) -> bool:
        """Whether the bucket would hold ``capacity`` tokens at ``now`` (it is then as good as a new one)."""
        return self._level(now) >= self.capacity

    def ready(self, now: float) -> bool:
        """Whether :meth:`take` would spend a token at ``now`` (nothing changes)."""
        return self._level(now) >= 1.0

    def take(self, now: float) -> bool:
        self.tokens = min(float(self.capacity), self._level(now))
        self.at = max(self.at, now)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True
