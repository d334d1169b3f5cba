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

    def full(self, now: float) -> bool:
        """Whether the bucket would hold ``capacity`` tokens at ``now`` (it is then as good as a new one)."""
        return self.tokens + max(0.0, now - self.at) / self.refill >= self.capacity

    def ready(self, now: float) -> bool:
        """Whether :meth:`take` would spend a token at ``now`` (nothing changes)."""
        return self.tokens + max(0.0, now - self.at) / self.refill >= 1.0

    def take(self, now: float) -> bool:
        self.tokens = min(float(self.capacity), self.tokens + max(0.0, now - self.at) / self.refill)
        self.at = max(self.at, now)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True
