"""The end of a lockstep game: faults, the abort, the audit round and timeouts.

The first fault a peer finds is broadcast in one ``abort``; every peer then
releases its secrets in one ``audit`` message, drains what is left in its queues,
and runs :func:`p2php.session.audit.run_audit` once every audit is in (or the
timeout names who withheld it).

Stopping must look the same from every honest peer, or a cheater could stop
towards some peers and carry on towards others until an honest seat looks
silent.  So (protocol.md §6.8):

* an ``abort`` *or* an ``audit`` from another seat means "that seat stopped":
  we stop too, and never count that seat as silent;
* every ``abort`` and ``audit`` that reaches us from its author is forwarded, as
  the signed original, to every other seat, so whatever made one honest peer
  stop reaches all of them;
* two validly signed versions of one message (equivocation) are forwarded too,
  both of them, so every honest peer holds the proof; ``seen`` heads are still
  compared during the audit round, and a dispute nobody has backed yet keeps
  the round open until the audit deadline.
"""

from __future__ import annotations

from typing import Any

from p2php.canonical import encode
from p2php.engine.contract import (
    Decide,
    GameOver,
    Seat,
)
from p2php.net.framing import MAX_VALUES, VALUE_BYTES, body_values
from p2php.session import witness
from p2php.session.audit import run_audit
from p2php.session.base import LockstepBase
from p2php.session.messages import (
    Message,
    parse_message,
)
from p2php.session.records import MAX_REASON, TIMING_CODES, Fault, FaultCode, Suspicion, Verdict, bounded
from p2php.text import safe

MALFORMED_ABORT = "sent a malformed abort"
MAX_EVIDENCE_VALUES = MAX_VALUES // 4
"""Values (the frame rule's count, §3.1) of the signed copies one abort or audit carries as evidence: a frame holds
65 536 at most, and a cheater's abort naming every message of the game made every honest audit one no peer could
read (each then named the others ``refused_audit``)."""

MAX_CLAIMS_READ = 64
"""Claims and evidence items read from one abort (what an honest seat sends at most)."""

MAX_EVIDENCE_BYTES = 1 << 20
"""Signed copies carried in one abort or audit: a cheater's big messages cannot make ours unsendable."""


BOX_CODES = (FaultCode.BAD_SHOW, FaultCode.ILLEGAL_ACTION)
"""Verified aborts that carry the message key of the accused's private show (§6.4): a bad show, or an action whose
check failed on faces that show told us (v9)."""


class Ending(LockstepBase):
    """Faults, abort, audit round and timeouts (a part of ``Lockstep``)."""

    def _raise_fault(self, fault: Fault) -> None:
        """Record the first fault, tell the others, and move to the audit.

        A fault we find ourselves after we stopped is kept too (``later_faults``): it
        is our own observation, and the audit weighs it like the first.
        """
        if self.rejoin_hold and self.fault is None and not self.auditing:
            # Resumed, in the rejoin hold (§3.5): our abort (and audit) is a message of our own, numbered after the
            # last our log holds, where a lost message of ours that the others hold may stand: made now, a fault
            # found on receipt (a cheater's bad frame) had every seat name us equivocation (rt7-stale). Raised once
            # the hold ends (end_rejoin_hold), as our player's leave is.
            if fault not in self.held_faults and len(self.held_faults) < 64:
                self.held_faults.append(fault)
            return
        if (self.fault is not None or self.auditing) and fault not in self.later_faults \
                and len(self.later_faults) < 64:
            self.later_faults.append(fault)
        if self.fault is None and not self.auditing:
            self.fault = fault
            if self.secrets is not None and self.seat is not None and not self._have_own("abort"):
                self._send(
                    "abort",
                    {"culprit": -1 if fault.culprit is None else fault.culprit, "reason": bounded(fault.reason),
                     "code": str(fault.code), "at": list(fault.at), "evidence": self._evidence(),
                     "claims": [[s.seat, s.seq, s.claimer, s.claimed] for s in self.suspicions][:64],
                     **({"box": self.show_box} if self.show_box is not None and fault.code in BOX_CODES
                        else {})},
                )
        self._start_audit()

    def end_rejoin_hold(self) -> None:
        """The rejoin hold is over (our lost messages handed back, or its time up): the faults found in it are
        raised now, the first one making our abort."""
        self.rejoin_hold = False
        held, self.held_faults = self.held_faults, []
        for fault in held:
            self._raise_fault(fault)

    def leave(self) -> None:
        """Our player leaves: an abort naming ourselves (``left``), so every peer ends at once, knows who left and
        why, and keeps the record, instead of waiting out a deadline to name a silent seat (protocol.md §6.8)."""
        if self.seat is None or self.secrets is None or self.finished:
            return
        self._raise_fault(Fault(self.seat, "left the table", (self.tick, self.phase), FaultCode.LEFT))

    def _evidence(self) -> list[Any]:
        """Our signed copies of every message whose content is in dispute (within a byte budget).

        Disputes come from our own suspicions and from evidence in others' aborts:
        two validly signed messages with one sender and number but different
        contents prove that sender equivocated.
        """
        wanted: list[tuple[Seat, int]] = [(s.seat, s.seq) for s in self.suspicions] + self.disputed
        for queue in self.inbox.values():
            for msg in queue:
                if msg.kind == "abort":
                    claims, evidence = msg.body.get("claims"), msg.body.get("evidence")
                    for item in claims[:MAX_CLAIMS_READ] if isinstance(claims, list) else []:
                        if isinstance(item, list) and len(item) == 4 and all(isinstance(x, int) for x in item[:2]):
                            wanted.append((item[0], item[1]))
                    for wire in evidence[:MAX_CLAIMS_READ] if isinstance(evidence, list) else []:
                        if isinstance(wire, dict) and isinstance(wire.get("from"), int) \
                                and isinstance(wire.get("seq"), int):
                            wanted.append((wire["from"], wire["seq"]))
        out: list[Any] = []
        budget, values = MAX_EVIDENCE_BYTES, MAX_EVIDENCE_VALUES
        for seat, seq in dict.fromkeys(wanted):
            copies = [m.to_wire() for m in self._held(seat, seq)] + self.equivocations.get((seat, seq), [])
            for wire in copies:
                if wire in out:
                    continue
                data = encode(wire)
                size, count = len(data), body_values(data) + 1  # (+1: its place in the evidence list)
                if size > budget or count > values or VALUE_BYTES * count > size:
                    # (the last: a copy at the density limit, a cheater's, would make our abort or audit denser
                    # than a seat accepts, §5.2 check 6, and us named bad_message; rt6-dense)
                    continue
                budget, values = budget - size, values - count
                out.append(wire)
        return out

    def _held(self, seat: Seat, seq: int) -> list[Message]:
        mine = self.processed.get(seat, {}).get(seq)
        if mine is None:
            mine = next((m for m in self.inbox.get(seat, ()) if m.seq == seq), None)
        return [] if mine is None else [mine]

    def _forward(self, wire: dict[str, Any]) -> None:
        """Pass a signed message of another seat on to everyone (once): see the module docstring."""
        key = encode(wire)
        if key not in self._forwarded:
            self._forwarded.add(key)
            self.forward.append(wire)

    def _start_audit(self) -> None:
        if self.auditing:
            return
        self.waiting_at_abort = self.waiting_for()
        self.auditing = True
        if isinstance(self._step, GameOver) and self.fault is None:
            self.result = self._step
        if self.secrets is not None and self.seat is not None and not self._have_own("audit"):
            if self.vdeck is not None:  # a verified deck releases no secret: every step was proven when made (§6.4)
                # ... but the witness of our answer to the decision we stopped at, if any (§6.4, v9)
                self._send("audit", {"boxes": [], "evidence": self._evidence(), **self._own_witness()})
            else:
                self._send(
                    "audit",
                    {"decks": self.secrets.decks_secret, "boxes": self._own_box_keys(), "evidence": self._evidence()},
                )

    def _own_witness(self) -> dict[str, list[Any]]:
        """A verified audit's witness shares (§6.4): when we stopped at a decision we had answered, our proven
        shares of the hidden slots its check asks the face of, so that a lie about them can be proven. The
        audit is signed at this point, so its tick and state are the proofs' context."""
        assert self.vdeck is not None and self.seat is not None
        if not isinstance(self._step, Decide):
            return {}
        own = list(self.processed[self.seat].values()) + list(self.inbox[self.seat])
        action = next((m.body["action"] for m in own if m.kind == "action" and m.at[0] == self.tick
                       and isinstance(m.body.get("action"), dict)), None)
        if action is None:
            return {}
        state, public = witness.decision_start(self)  # type: ignore[arg-type]  # always a Lockstep
        slots = witness.witness_slots(self, state, public, self.seat, action)  # type: ignore[arg-type]
        return self.vdeck.own_items(slots, phase="witness")

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
        # Only a seat we saw go silent ourselves is not waited for; one accused by another
        # peer may well be alive, and its audit is what clears it (audit.py _judge_fault).
        gone = self.fault.culprit if self.fault is not None and self.fault.silent and self.fault_from is None \
            else None
        return [s for s in range(self.players) if s not in self.audit_bodies and s != gone]

    def open_disputes(self) -> list[Suspicion]:
        """Claims about a message that no signed copy we hold backs yet (evidence may still come)."""
        if self.suspicions_closed:
            return []
        out = []
        for s in self.suspicions:
            if s.seat in self._equivocators:
                continue  # proven an equivocator already: we keep no more of its versions (_record_equivocation)
            held = {m.msg_hash for m in self._held(s.seat, s.seq)}
            held |= {parse_message(w).msg_hash for w in self.equivocations.get((s.seat, s.seq), [])}
            if s.claimed not in held and len(held) < 2:
                out.append(s)
        return out

    def _audit_round(self) -> None:
        for seat in range(self.players):
            queue = self.inbox[seat]
            while queue:
                msg = queue.popleft()
                self._consume_late(msg)
        if not self.audit_required() and not self.open_disputes():
            self._finish()

    def _consume_late(self, msg: Message) -> None:
        s = msg.sender
        self.last_seq[s] = msg.seq
        self.last_hash[s] = msg.msg_hash
        self.processed[s][msg.seq] = msg
        self.transcript.append(msg)
        self._note_seen(msg)
        if msg.kind == "abort":
            self.abort_messages.append(msg)
            if self.fault is None:
                self.fault = self._abort_fault(msg)
                # A malformed abort is our own finding against its sender, not its accusation.
                malformed = self.fault.culprit == msg.sender and self.fault.reason == MALFORMED_ABORT
                self.fault_from = None if malformed else msg.sender
            claims = msg.body.get("claims")
            for item in claims[:MAX_CLAIMS_READ] if isinstance(claims, list) else []:
                if (isinstance(item, list) and len(item) == 4 and all(isinstance(x, int) for x in item[:3])
                        and isinstance(item[3], bytes)):
                    self.suspicions.append(Suspicion(item[0], item[1], item[2], item[3]))
        elif msg.kind == "audit":
            secret = msg.body.get("decks")
            boxes = msg.body.get("boxes")
            if self.vdeck is not None:
                ok = secret is None and boxes == []  # a verified audit hands out nothing
                self.audit_bodies[s] = msg.body if ok else {"invalid": True}
            elif isinstance(secret, bytes) and len(secret) == 32 and isinstance(boxes, list):
                self.audit_bodies[s] = msg.body
            else:
                self.audit_bodies[s] = {"invalid": True}

    def _note_seen(self, msg: Message) -> None:
        """Compare a late message's ``seen`` heads with what we hold; a mismatch is a dispute.

        Our own copy goes to everyone, so the claimer (if honest) sees the second
        version and forwards its own: the round waits for that (or the deadline).
        """
        for other, seq, h in msg.seen:
            if not 0 <= other < self.players or other == msg.sender:
                continue
            held = self._held(other, seq)
            if held and held[0].msg_hash != h:
                claim = Suspicion(other, seq, msg.sender, h)
                if claim not in self.suspicions:
                    self.suspicions.append(claim)
                    self._forward(held[0].to_wire())

    def _abort_fault(self, msg: Message) -> Fault:
        culprit = msg.body.get("culprit", -1)
        reason = msg.body.get("reason", "")
        code = msg.body.get("code", FaultCode.BAD_MESSAGE.value)
        if (not isinstance(culprit, int) or isinstance(culprit, bool) or not isinstance(reason, str)
                or not isinstance(code, str)):
            return Fault(msg.sender, MALFORMED_ABORT, msg.at, FaultCode.BAD_MESSAGE)
        try:
            parsed = FaultCode(code)
        except ValueError:
            parsed = FaultCode.BAD_MESSAGE
        accused = culprit if 0 <= culprit < self.players else None
        # The accuser's own words: escaped here, at the source, since the reason becomes the verdict's that the
        # API, the bridge and the page hand on (the terminal escapes again; a client may not).
        return Fault(accused, f"seat {msg.sender} reported: {safe(reason, MAX_REASON)}", msg.at, parsed)

    def _finish(self) -> None:
        try:
            self.verdict = run_audit(self)  # type: ignore[arg-type]  # always a Lockstep
        except Exception as err:  # an audit that fails must still end in a verdict
            self._finish_failed(err)
        self.finished = True

    def _finish_failed(self, err: Exception) -> None:
        """End with an unattributed verdict when our own audit code failed."""
        try:
            state_hash = self.state.state_hash()
        except Exception:
            state_hash = bytes(32)
        self.verdict = Verdict(False, None, bounded(f"the audit itself failed: {type(err).__name__}: {err}"),
                               state_hash, FaultCode.INTERNAL.value)
        self.finished = True

    def timeout(self, seats: list[Seat] | None = None, unreachable: frozenset[Seat] = frozenset(),
                behind: frozenset[Seat] = frozenset()) -> list[Seat]:
        """A deadline passed: name the late seats and move on (to the audit, or its end).

        ``seats``: the awaited seats whose own deadline passed (default: every awaited
        seat); ``unreachable``: those whose link was down all along — named with
        :attr:`FaultCode.UNREACHABLE`, which is a network fault, not a cheat; ``behind``:
        those that said (in heartbeats) they still wait for others — nobody is named
        then, since the hold-up is further up the chain.
        """
        if self.finished:
            return []
        if self.auditing:
            silent = [s for s in self.audit_required() if s != self.seat and (seats is None or s in seats)]
            for s in silent:
                self.audit_bodies[s] = {"refused": True, "unreachable": s in unreachable}
            self.suspicions_closed = True
            self._poll_keeping_outbox()
            if not self.finished and not self.audit_required():
                self._finish()
            return silent
        silent = [s for s in self.waiting_for() if s != self.seat and (seats is None or s in seats)]
        if silent:
            first = silent[0]
            kind = self.expected()[first]
            if first in behind:
                fault = Fault(None, f"seat {first} is still waiting for others, so no {kind} message came from it",
                              (self.tick, self.phase), FaultCode.SILENT)
            elif first in unreachable:
                fault = Fault(first, f"could not be reached (no {kind} message; its link stayed down)",
                              (self.tick, self.phase), FaultCode.UNREACHABLE)
            else:
                fault = Fault(first, f"went silent (no {kind} message in time)", (self.tick, self.phase),
                              FaultCode.SILENT)
            self._raise_fault(fault)
            self._poll_keeping_outbox()
        return silent

    def _poll_keeping_outbox(self) -> None:
        """Advance now, but leave what must be sent in the outbox for the caller's next poll."""
        pending = self.poll()
        self.outbox = pending + self.outbox


__all__ = ["TIMING_CODES", "Ending"]
