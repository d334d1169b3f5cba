"""The audit: after the game, everyone re-checks everything.

When a game ends (or aborts) every peer releases the secret from which all its
deck keys and permutations follow, plus the keys of the private messages it sent.
Each peer then re-verifies, in transcript order:

1. every deck: the final ciphertexts must be exactly what the released secrets
   produce from the public card list; if not, each shuffle and lock pass is
   checked on its own and the first dishonest pass names its sender;
2. every published key commitment against the released secrets;
3. every private show (decrypted with its released message key);
4. every action, replayed through the engine knowing every face, which catches
   lies about hidden cards (a false claim, a bluff called wrongly ...).

The verdict names the first peer that deviated, or says the game was clean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from p2php.canonical import decode
from p2php.crypto import channel, deck, group
from p2php.engine.contract import CardId, Seat, Slot
from p2php.session.handshake import Table
from p2php.session.replay import ReplayFault, replay_events

if TYPE_CHECKING:
    from p2php.session.lockstep import DeckRecord, Fault, Lockstep


@dataclass(frozen=True)
class Verdict:
    """The outcome of the audit."""

    clean: bool
    culprit: Seat | None
    reason: str
    state_hash: bytes

    def text(self, table: Table | None = None) -> str:
        if self.clean:
            return "clean"
        if self.culprit is None:
            return f"unattributed: {self.reason}"
        name = f" ({table.name(self.culprit)})" if table is not None else ""
        return f"seat {self.culprit}{name}: {self.reason}"


def run_audit(ls: Lockstep) -> Verdict:
    from p2php.session.lockstep import Fault

    findings: list[Fault] = []
    end = (ls.tick + 1, 0)
    if ls.fault is not None:
        judged = _judge_fault(ls)
        if judged is not None:
            findings.append(judged)
    findings.extend(_judge_equivocation(ls))
    secrets: dict[Seat, bytes] = {}
    for seat in range(ls.players):
        body = ls.audit_bodies.get(seat)
        if body is None:
            continue
        if body.get("refused"):
            findings.append(Fault(seat, "did not release its secrets for the audit", end))
        elif body.get("invalid"):
            findings.append(Fault(seat, "released malformed audit secrets", end))
        else:
            secret = body["decks"]
            assert isinstance(secret, bytes)
            secrets[seat] = secret

    faces: dict[Slot, CardId] = {}
    for rec in ls.decks:
        findings.extend(_audit_deck(ls, rec, secrets, faces))
    findings.extend(_audit_shows(ls, secrets))

    final_hash = ls.state.state_hash()
    if len(faces) == len(ls.slot_deck):
        # Replay every completed step knowing every face: lies about hidden cards show here.
        try:
            replayed = replay_events(ls.game, ls.players, ls.options, ls.events, everything=faces)
            if ls.fault is None:
                final_hash = replayed.state_hash()
                if final_hash != ls.state.state_hash():
                    findings.append(Fault(None, "replay gives a different final state", end))
        except ReplayFault as err:
            findings.append(Fault(err.seat, f"step {err.tick}: {err.reason}", (err.tick, 0)))
    elif ls.fault is None:
        findings.append(Fault(None, "some cards could not be opened at the audit", end))

    named = sorted((f for f in findings if f.culprit is not None), key=lambda f: f.at)
    if named:
        first = named[0]
        return Verdict(False, first.culprit, first.reason, final_hash)
    if findings:
        return Verdict(False, None, findings[0].reason, final_hash)
    if ls.result is None:
        return Verdict(False, None, "the game did not finish", final_hash)
    return Verdict(True, None, "", final_hash)


def _audit_deck(
    ls: Lockstep, rec: DeckRecord, secrets: dict[Seat, bytes], faces: dict[Slot, CardId]
) -> list[Fault]:
    from p2php.session.lockstep import Fault

    if len(rec.passes) != 2 * ls.players:
        return []  # the game stopped during this shuffle
    derived = {
        seat: ls.secrets_of(seat, rec, secret)
        for seat, secret in secrets.items()
    }
    out: list[Fault] = []
    for seat, ds in derived.items():
        if deck.key_commitments(ds, rec.context, seat) != rec.commits.get(seat):
            out.append(Fault(seat, f"its key commitments for deck {rec.number} do not match its secret",
                             (rec.tick, 2 * ls.players)))
    cards_in = list(rec.cards)
    if rec.owner is not None:
        # A secret deck: the owner's first pass, unlocked with its released secret,
        # gives its private list back; check it against the deck-building rules.
        owner = derived.get(rec.owner)
        if owner is None:
            return out
        recovered = _recover_secret_list(ls, rec, owner)
        if isinstance(recovered, str):
            out.append(Fault(rec.owner, f"its secret deck {rec.number}: {recovered}", (rec.tick, 0)))
            return out
        cards_in = recovered
    # Fast path: with every secret known, the final deck must be exactly what the
    # honest passes produce.  One multiplication per card.
    if len(derived) == ls.players:
        order = list(cards_in)
        for seat in rec.pass_order(ls.players):
            perm = derived[seat].permutation
            order = [order[perm[j]] for j in range(rec.size)]
        honest = True
        for index in range(rec.size):
            keys = [derived[s].slot_keys[index] for s in range(ls.players)]
            try:
                card = ls.points.card_of(deck.open_point(rec.current[index], keys))
            except ValueError:  # not a point at all
                card = None
            if card != order[index]:
                honest = False
                break
            faces[rec.first_slot + index] = card
        if honest:
            return out
    # Slow path: find the first pass that is not exactly what its sender's secret
    # produces (the permutation too: a peer may not choose another one).
    source = [ls.points.points[c] for c in cards_in]
    for number, (seat, kind, cards) in enumerate(rec.passes):
        mine = derived.get(seat)
        if mine is not None and not _pass_is_exact(mine, kind, source, cards):
            what = "a permutation of its input" if kind == "shuffle" else "its input re-locked"
            out.append(Fault(seat, f"{kind} pass of deck {rec.number} was not {what} as its secret dictates",
                             (rec.tick, number)))
            return out
        source = cards
    return out


def _recover_secret_list(ls: Lockstep, rec: DeckRecord, owner: deck.DeckSecrets) -> list[CardId] | str:
    """The owner's private list, in the order it fed its first pass, or why it is invalid."""
    first = rec.passes[0][2]
    try:
        unlocked = group.mul_many(first, group.inverse(owner.shuffle_key))
    except ValueError:
        return "its first pass holds a point that is not on the curve"
    plain: list[bytes] = [b""] * rec.size
    for j, i in enumerate(owner.permutation):
        plain[i] = unlocked[j]
    cards = [ls.points.card_of(p) for p in plain]
    if any(c is None for c in cards):
        return "it holds something that is no card"
    listed = [c for c in cards if c is not None]
    if len(set(listed)) != len(listed):
        return "it holds the same card instance twice"
    assert rec.owner is not None
    problem = ls.game.check_private_deck(ls.options, rec.owner, rec.purpose, listed)
    return problem if problem is not None else listed


def _pass_is_exact(secrets: deck.DeckSecrets, kind: str, source: list[bytes], cards: list[bytes]) -> bool:
    try:
        expected = deck.shuffle_pass(secrets, source) if kind == "shuffle" else deck.lock_pass(secrets, source)
    except ValueError:  # the input already held a non-point: the earlier pass is to blame
        return True
    return expected == cards


def _judge_fault(ls: Lockstep) -> Fault | None:
    """Our own findings stand; an accusation from another peer's abort must be confirmed."""
    from p2php.session.lockstep import Fault

    fault = ls.fault
    assert fault is not None
    if ls.fault_from is None or fault.culprit is None:
        return fault if fault.culprit is not None or ls.fault_from is None else None
    accuser = ls.fault_from
    if fault.silent:
        if fault.culprit in ls.waiting_at_abort:
            return Fault(fault.culprit, fault.reason, fault.at, silent=True)
        return Fault(None, f"seat {accuser} says seat {fault.culprit} went silent, but its messages reached us",
                     fault.at)
    return Fault(None, f"{fault.reason} — an accusation by seat {accuser} against seat {fault.culprit} "
                 "that our own checks and the audit do not confirm", fault.at)


def _judge_equivocation(ls: Lockstep) -> list[Fault]:
    """Two validly signed messages with one sender and number prove equivocation;
    a claim to have seen a message that nobody can produce blames the claimer."""
    from p2php.session.lockstep import Fault
    from p2php.session.messages import BadMessage, parse_message, signing_bytes

    copies: dict[tuple[int, int], set[bytes]] = {}

    def add(wire: Any) -> None:
        try:
            msg = parse_message(wire)
        except (BadMessage, TypeError):
            return
        if not 0 <= msg.sender < ls.players:
            return
        if ls.publics[msg.sender].verify(msg.sig, signing_bytes(ls.session_id, msg.fields())):
            copies.setdefault((msg.sender, msg.seq), set()).add(msg.msg_hash)

    for seat, msgs in ls.processed.items():
        for msg in msgs.values():
            copies.setdefault((seat, msg.seq), set()).add(msg.msg_hash)
            if msg.kind in ("abort", "audit"):
                evidence = msg.body.get("evidence")
                for wire in evidence if isinstance(evidence, list) else []:
                    add(wire)
    out: list[Fault] = []
    for (seat, seq), hashes in copies.items():
        if len(hashes) > 1:
            out.append(Fault(seat, f"equivocation: signed two different messages numbered {seq}", (0, seq)))
    proven = {f.culprit for f in out}
    for s in ls.suspicions:
        if s.seat not in proven and s.claimed not in copies.get((s.seat, s.seq), set()):
            out.append(Fault(s.claimer, f"claimed to have seen a message {s.seq} from seat {s.seat} "
                             "that nobody can produce", (0, s.seq)))
    return out


def _audit_shows(ls: Lockstep, secrets: dict[Seat, bytes]) -> list[Fault]:
    from p2php.session.lockstep import Fault

    out: list[Fault] = []
    for msg in ls.transcript:
        if msg.kind != "show" or msg.sender not in secrets:
            continue
        body = ls.audit_bodies[msg.sender]
        boxes = body.get("boxes")
        keys = {
            item[0]: item[1] for item in (boxes if isinstance(boxes, list) else [])
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], int) and isinstance(item[1], bytes)
        }
        key = keys.get(msg.seq)
        if key is None:
            out.append(Fault(msg.sender, f"did not release the key of its private message {msg.seq}", msg.at))
            continue
        try:
            shown = decode(channel.open_sealed(key, msg.body["box"], ls.session_id))
            for slot, raw in shown:
                d, index = ls.slot_deck[slot]
                rec = ls.decks[d]
                ds = ls.secrets_of(msg.sender, rec, secrets[msg.sender])
                if int.from_bytes(raw, "big") != ds.slot_keys[index]:
                    raise ValueError(f"wrong key for slot {slot}")
        except Exception as err:
            out.append(Fault(msg.sender, f"private message {msg.seq} was dishonest: {err}", msg.at))
    return out
