"""What every honest peer's verdict must say about a cheat: the culprit, the words, the code."""

from __future__ import annotations

from p2php.session.lockstep import Lockstep

Words = str | tuple[str, ...]


def assert_named_by(peer: Lockstep, culprit: int, words: Words, code: str | None = None) -> None:
    """``peer`` finished and its verdict names ``culprit``, with (one of) ``words`` in the reason.

    ``code``: the fault code (issue 8), checked when the verdict carries one.
    """
    assert peer.finished and peer.verdict is not None, f"seat {peer.seat} did not finish"
    verdict = peer.verdict
    assert verdict.culprit == culprit, (peer.seat, verdict)
    alternatives = (words,) if isinstance(words, str) else words
    assert any(w in verdict.reason for w in alternatives), (peer.seat, verdict.reason)
    if code is not None and getattr(verdict, "code", None) is not None:
        assert str(verdict.code) == code, (peer.seat, verdict)


def assert_named_by_all(peers: list[Lockstep], culprit: int, words: Words, code: str | None = None) -> None:
    """Every honest peer (every seat but ``culprit``) names ``culprit`` (see :func:`assert_named_by`)."""
    honest = [p for p in peers if p.seat != culprit]
    assert honest
    for p in honest:
        assert_named_by(p, culprit, words, code)
