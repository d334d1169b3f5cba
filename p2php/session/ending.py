"""The end of a lockstep game: faults, the abort, the audit round and timeouts.

The first fault a peer finds is broadcast in one ``abort``; every peer then
releases its secrets in one ``audit`` message, drains what is left in its queues,
and runs :func:`p2php.session.audit.run_audit` once every audit is in (or the
timeout names who withheld it).
"""

from __future__ import annotations

from typing import Any

from p2php.engine.contract import (
    GameOver,
    Seat,
)
from p2php.session.base import LockstepBase
from p2php.session.messages import (
    Message,
)
from p2php.session.records import Fault, Suspicion


class Ending(LockstepBase):
    """Faults, abort, audit round and timeouts (a part of ``Lockstep``)."""

    def _raise_fault(self, fault: Fault) -> None:
        """Record the first fault, tell the others, and move to the audit."""
        if self.fault is None and not self.auditing:
            self.fault = fault
            if self.secrets is not None and self.seat is not None and not self._have_own("abort"):
                self._send(
                    "abort",
                    {"culprit": -1 if fault.culprit is None else fault.culprit, "reason": fault.reason,
                     "at": list(fault.at), "evidence": self._evidence(),
                     "claims": [[s.seat, s.seq, s.claimer, s.claimed] for s in self.suspicions]},
                )
        self._start_audit()

    def _evidence(self) -> list[Any]:
        """Our signed copies of every message whose content is in dispute.

        Disputes come from our own suspicions and from evidence in others' aborts:
        two validly signed messages with one sender and number but different
        contents prove that sender equivocated.
        """
        wanted: list[tuple[Seat, int]] = [(s.seat, s.seq) for s in self.suspicions] + self.disputed
        for queue in self.inbox.values():
            for msg in queue:
                if msg.kind == "abort":
                    for item in msg.body.get("claims", []) if isinstance(msg.body.get("claims"), list) else []:
                        if isinstance(item, list) and len(item) == 4 and all(isinstance(x, int) for x in item[:2]):
                            wanted.append((item[0], item[1]))
                    for wire in msg.body.get("evidence", []) if isinstance(msg.body.get("evidence"), list) else []:
                        if isinstance(wire, dict) and isinstance(wire.get("from"), int) \
                                and isinstance(wire.get("seq"), int):
                            wanted.append((wire["from"], wire["seq"]))
        out = []
        for seat, seq in wanted:
            mine = self.processed.get(seat, {}).get(seq)
            if mine is None:
                mine = next((m for m in self.inbox.get(seat, ()) if m.seq == seq), None)
            if mine is not None and mine.to_wire() not in out:
                out.append(mine.to_wire())
        return out

    def _start_audit(self) -> None:
        if self.auditing:
            return
        self.waiting_at_abort = self.waiting_for()
        self.auditing = True
        if isinstance(self._step, GameOver) and self.fault is None:
            self.result = self._step
        if self.secrets is not None and self.seat is not None and not self._have_own("audit"):
            self._send(
                "audit",
                {"decks": self.secrets.decks_secret, "boxes": self._own_box_keys(), "evidence": self._evidence()},
            )

    def _have_own(self, kind: str) -> bool:
        assert self.seat is not None
        return any(m.kind == kind for m in self.processed[self.seat].values()) or any(
            m.kind == kind for m in self.inbox[self.seat]
        )

    def _own_box_keys(self) -> list[list[Any]]:
        """The message keys of every private show we sent (re-derived, so a resumed peer has them too)."""
        assert self.seat is not None
        own = list(self.processed[self.seat].values()) + list(self.inbox[self.seat])
        return [[m.seq, self._box_key(self.seat, m.body["to"], m.seq)] for m in own
                if m.kind == "show" and isinstance(m.body.get("to"), int)]

    def audit_required(self) -> list[Seat]:
        """Seats whose audit message is still awaited (not a seat known to be silent)."""
        gone = self.fault.culprit if self.fault is not None and self.fault.silent else None
        return [s for s in range(self.players) if s not in self.audit_bodies and s != gone]

    def _audit_round(self) -> None:
        for seat in range(self.players):
            queue = self.inbox[seat]
            while queue:
                msg = queue.popleft()
                self._consume_late(msg)
        if not self.audit_required():
            self._finish()

    def _consume_late(self, msg: Message) -> None:
        s = msg.sender
        self.last_seq[s] = msg.seq
        self.last_hash[s] = msg.msg_hash
        self.processed[s][msg.seq] = msg
        self.transcript.append(msg)
        if msg.kind == "abort":
            self.abort_messages.append(msg)
            if self.fault is None:
                self.fault = self._abort_fault(msg)
                self.fault_from = msg.sender
            claims = msg.body.get("claims")
            for item in claims if isinstance(claims, list) else []:
                if (isinstance(item, list) and len(item) == 4 and all(isinstance(x, int) for x in item[:3])
                        and isinstance(item[3], bytes)):
                    self.suspicions.append(Suspicion(item[0], item[1], item[2], item[3]))
        elif msg.kind == "audit":
            secret = msg.body.get("decks")
            boxes = msg.body.get("boxes")
            if isinstance(secret, bytes) and len(secret) == 32 and isinstance(boxes, list):
                self.audit_bodies[s] = msg.body
            else:
                self.audit_bodies[s] = {"invalid": True}

    def _abort_fault(self, msg: Message) -> Fault:
        culprit = msg.body.get("culprit", -1)
        reason = msg.body.get("reason", "")
        if not isinstance(culprit, int) or not isinstance(reason, str):
            return Fault(msg.sender, "sent a malformed abort", msg.at)
        silent = "went silent" in reason or "connection lost" in reason
        return Fault(None if culprit < 0 else culprit, f"seat {msg.sender} reported: {reason}", msg.at, silent)

    def _finish(self) -> None:
        from p2php.session.audit import run_audit

        self.verdict = run_audit(self)  # type: ignore[arg-type]  # always a Lockstep
        self.finished = True

    def timeout(self) -> list[Seat]:
        """The wait timed out: name the silent seats and move on (to the audit, or its end)."""
        if self.finished:
            return []
        if self.auditing:
            silent = [s for s in self.audit_required() if s != self.seat]
            for s in silent:
                self.audit_bodies[s] = {"refused": True}
            self._poll_keeping_outbox()
            return silent
        silent = [s for s in self.waiting_for() if s != self.seat]
        if silent:
            kind = self.expected()[silent[0]]
            self._raise_fault(Fault(silent[0], f"went silent (no {kind} message in time)",
                                    (self.tick, self.phase), silent=True))
            self._poll_keeping_outbox()
        return silent

    def _poll_keeping_outbox(self) -> None:
        """Advance now, but leave what must be sent in the outbox for the caller's next poll."""
        pending = self.poll()
        self.outbox = pending + self.outbox
