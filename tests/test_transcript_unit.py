"""Transcripts one piece at a time, no network (mutation run X: what the streaming reader, ``save_async`` and
``wait_for_saves``, and the step a refused message is named at had no test for). About a second."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from p2php.bots import RandomBot
from p2php.session import transcript
from p2php.session.lockstep import Lockstep
from p2php.session.memory import make_peers, run_in_memory


@pytest.fixture(scope="module")
def ended() -> Lockstep:
    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    assert peers[0].verdict is not None
    return peers[0]


@pytest.fixture(scope="module")
def saved(ended: Lockstep, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return transcript.save(ended, tmp_path_factory.mktemp("saved") / "seat0.p2php")


# ----------------------------------------------------------------------------- read_bounded: a file at the limit


def _refused(text: str) -> Exception:
    return transcript.TranscriptError(text)


LIMIT = 197  # a small MAX_FILE for these tests


def test_a_file_of_exactly_the_limit_is_read_whole_and_one_byte_more_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcript, "MAX_FILE", LIMIT)
    path = tmp_path / "f"
    path.write_bytes(bytes(range(LIMIT)))
    assert transcript.read_bounded(path, _refused, "transcript") == bytes(range(LIMIT))
    path.write_bytes(bytes(LIMIT + 1))
    with pytest.raises(transcript.TranscriptError, match="too big for a transcript"):
        transcript.read_bounded(path, _refused, "transcript")


def _pipe(tmp_path: Path, data: bytes) -> Path:
    """A named pipe (no size) that ``data`` is written into, then closed."""
    path = tmp_path / "pipe"
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "wb") as out:
            out.write(data)

    threading.Thread(target=feed, daemon=True).start()
    return path


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")


@needs_fifo
@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_a_pipe_of_exactly_the_limit_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   chunk: int) -> None:
    """Read a chunk at a time (``p2php verify /dev/stdin``): every byte of it, not its first chunk only."""
    monkeypatch.setattr(transcript, "MAX_FILE", LIMIT)
    monkeypatch.setattr(transcript, "_CHUNK", chunk)
    data = bytes(i % 251 for i in range(LIMIT))
    assert transcript.read_bounded(_pipe(tmp_path, data), _refused, "transcript") == data


@needs_fifo
@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_a_pipe_one_byte_over_the_limit_is_refused_not_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           chunk: int) -> None:
    """A pipe longer than the limit is refused whole, never read as its first MAX_FILE bytes (a record cut short
    would be verified, or refused for another reason)."""
    monkeypatch.setattr(transcript, "MAX_FILE", LIMIT)
    monkeypatch.setattr(transcript, "_CHUNK", chunk)
    with pytest.raises(transcript.TranscriptError, match="too big for a resume log"):
        transcript.read_bounded(_pipe(tmp_path, bytes(LIMIT + 1)), _refused, "resume log")


@needs_fifo
@pytest.mark.parametrize("chunk", [None, 64])
def test_a_saved_transcript_through_a_pipe_verifies(saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    chunk: int | None) -> None:
    """``p2php verify /dev/stdin`` (the default chunk, and a small one)."""
    if chunk is not None:
        monkeypatch.setattr(transcript, "_CHUNK", chunk)
    result = transcript.verify(_pipe(tmp_path, saved.read_bytes()))
    assert result.ok, result.lines


# ----------------------------------------------------------------------------- Frames: what load() returns


def test_the_loaded_messages_read_as_a_list_does(saved: Path) -> None:
    """``load``'s hellos and messages are decoded a read at a time, and behave as the lists they stand for."""
    data = transcript.load(saved)
    messages = data["messages"]
    listed = list(messages)
    n = len(listed)
    assert n > 2 and len(messages) == n
    assert messages[0] == listed[0] and messages[-1] == listed[-1]
    assert messages[-n] == listed[0]  # the first, counted from the end
    assert messages[n - 1] == listed[n - 1]
    for bad in (n, -n - 1):
        with pytest.raises(IndexError):
            messages[bad]
    assert messages[1:3] == listed[1:3] and messages[::-1] == listed[::-1]
    assert messages == listed and messages == tuple(listed) and messages != listed[:-1]
    assert messages != listed[:-1] + [listed[0]] and messages != "not a list"
    again = transcript.load(saved)["messages"]
    assert messages == again  # two reads of one file
    assert messages != data["hellos"]
    assert repr(messages).startswith(f"<{n} entries of ")


# ----------------------------------------------------------------------------- save_async and wait_for_saves


def _slow_disk(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    real = transcript.replace_durably

    def slow(path: Path, data: bytes) -> None:
        time.sleep(seconds)
        real(path, data)

    monkeypatch.setattr(transcript, "replace_durably", slow)


def test_a_save_cancelled_before_it_began_returns_at_once_and_writes_nothing(ended: Lockstep,
                                                                            tmp_path: Path) -> None:
    """A cancel already pending: no thread is started, so there is nothing to wait for (CANCEL_SAVE_WAIT, 5 s)."""
    async def cancelled() -> None:
        with trio.CancelScope() as scope:
            scope.cancel()
            await transcript.save_async(ended, tmp_path / "t.p2php")

    began = time.monotonic()
    trio.run(cancelled)
    assert time.monotonic() - began < 2.0
    transcript.wait_for_saves()
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("where", ["a-file/t.p2php", "a-dir"])
def test_a_save_the_disk_refuses_is_an_oserror(ended: Lockstep, tmp_path: Path, where: str) -> None:
    """A folder that is a file, a path that is a folder: ``save_async`` raises the OSError (every caller says it in
    one line), never "saved"; nothing is left running or on the disk."""
    (tmp_path / "a-file").write_bytes(b"x")
    (tmp_path / "a-dir").mkdir()

    async def game() -> None:
        with pytest.raises(OSError):
            await transcript.save_async(ended, tmp_path / where)

    trio.run(game)
    began = time.monotonic()
    transcript.wait_for_saves()
    assert time.monotonic() - began < 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-dir", "a-file"]
    assert not list((tmp_path / "a-dir").iterdir())


def test_a_process_ends_only_once_a_save_that_ran_on_is_on_the_disk_and_waits_idle(
        ended: Lockstep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``wait_for_saves`` (``p2php``'s ``main`` at its end) waits for a save past its wait, sleeping, not spinning a
    core; then the whole transcript is in place."""
    _slow_disk(monkeypatch, 0.6)
    path = tmp_path / "t.p2php"

    async def game() -> None:
        with pytest.raises(TimeoutError, match="runs on"):
            await transcript.save_async(ended, path, within=0.05)

    trio.run(game)
    assert not path.exists()  # (still being written)
    cpu, began = time.thread_time(), time.monotonic()
    transcript.wait_for_saves()
    assert time.monotonic() - began > 0.3
    assert time.thread_time() - cpu < 0.15  # asleep while the disk works
    assert transcript.verify(path).ok
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.p2php"]
    began = time.monotonic()
    transcript.wait_for_saves()  # nothing running: returns at once
    assert time.monotonic() - began < 0.5


# ----------------------------------------------------------------------------- the step a refused message is named at


def _frame(sender: int, kind: str, at: list[int], body: dict[str, Any]) -> dict[str, Any]:
    return {"from": sender, "seq": 0, "prev": bytes(32), "at": at, "state": bytes(32), "seen": [], "kind": kind,
            "body": body, "sig": bytes(64)}


TABLE: Any = SimpleNamespace(players=3)


@pytest.mark.parametrize("step", [[0, 5], [3, 0], [0, 0], [4, 1]])
def test_a_refused_message_is_named_at_the_step_the_seats_abort_says(step: list[int]) -> None:
    """The recording seat stopped on seat 2's message refused by its shape: the verifier names seat 2 at the step the
    seat's abort carries (a step 0 or a phase 0 included), not where that abort itself was signed."""
    frames = [_frame(1, "action", [0, 0], {}),
              _frame(0, "abort", [6, 2], {"culprit": 2, "code": "bad_message", "at": step})]
    assert transcript._seat_step(TABLE, frames, 0, 2) == tuple(step)


@pytest.mark.parametrize("step", [[1], [1, 2, 3], [-1, 0], [0, -1], [True, 0], ["1", 0], None])
def test_an_abort_step_that_is_no_step_falls_back_to_where_the_abort_stands(step: Any) -> None:
    frames = [_frame(0, "abort", [6, 2], {"culprit": 2, "code": "bad_message", "at": step})]
    assert transcript._seat_step(TABLE, frames, 0, 2) == (6, 2)


def test_a_seat_that_stopped_for_another_reason_names_it_where_it_stopped() -> None:
    """Another culprit, or another code: the refused message was found where the seat stood (its abort, else its
    audit)."""
    for body in ({"culprit": 1, "code": "bad_message", "at": [1, 0]}, {"culprit": 2, "code": "silent", "at": [1, 0]}):
        frames = [_frame(0, "audit", [9, 0], {}), _frame(0, "abort", [7, 1], body)]
        assert transcript._seat_step(TABLE, frames, 0, 2) == (7, 1)
    frames = [_frame(1, "abort", [3, 0], {}), _frame(0, "audit", [9, 0], {}), _frame(0, "audit", [10, 0], {})]
    assert transcript._seat_step(TABLE, frames, 0, 2) == (9, 0)  # its first audit
    assert transcript._seat_step(TABLE, [_frame(1, "audit", [9, 0], {})], 0, 2) is None


def test_a_malformed_entry_of_the_seat_does_not_hide_its_abort_after_it() -> None:
    body = {"culprit": 2, "code": "bad_message", "at": [4, 1]}
    frames = [dict(_frame(0, "audit", [3, 0], {}), sig=b"short"), _frame(0, "abort", [6, 2], body)]
    assert transcript._seat_step(TABLE, frames, 0, 2) == (4, 1)


@pytest.mark.parametrize("seat", [True, False, -1, 3, "0", None, 1.0])
def test_a_record_whose_seat_is_no_seat_of_the_table_reads_no_step(seat: Any) -> None:
    """A spectator's record (seat -1), or a file's seat that is no seat (``True`` is no seat 1, ``False`` no seat
    0): no seat's abort sets the step (the message's own signed point does)."""
    frames = [_frame(s, "abort", [5, 0], {"culprit": 2, "code": "bad_message", "at": [2, 0]}) for s in (0, 1)]
    assert transcript._seat_step(TABLE, frames, seat, 2) is None


# ----------------------------------------------------------------------------- equivocations a record carries


def test_junk_before_an_equivocations_proof_does_not_hide_it(tmp_path: Path) -> None:
    """A record's ``equivocations`` whose first entries prove nothing (no message, a forged copy) and then the two
    signed versions: ``p2php verify`` names the equivocator as the seat did."""
    import msgpack
    from test_session_cheats import _equivocating_table

    peers = _equivocating_table()
    path = transcript.save(peers[0], tmp_path / "seat0.p2php")
    data = msgpack.unpackb(path.read_bytes(), raw=False)
    proofs = data["equivocations"]
    assert len(proofs) == 2
    forged = dict(proofs[0], body={**proofs[0]["body"], "action": {"type": "bid", "n": 98}})
    data["equivocations"] = [5, {"from": 1}, forged, *proofs]
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    result = transcript.verify(path)
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None and (v.culprit, v.code) == (1, "equivocation"), result.lines


# ----------------------------------------------------------------------------- more of the reader and the verifier


def test_a_record_larger_than_a_frame_loads(saved: Path, tmp_path: Path) -> None:
    """A long game's record is larger than one frame (4 MiB): its entries past the first 4 MiB are each a frame's
    size, and the record loads (here: two fields of 3 MiB no reader knows, written before the hellos)."""
    import msgpack

    from p2php.net.framing import MAX_FRAME

    data = msgpack.unpackb(saved.read_bytes(), raw=False)
    big = {"zz1": bytes(3 * MAX_FRAME // 4), "zz2": bytes(3 * MAX_FRAME // 4), **data}
    path = tmp_path / "big.p2php"
    path.write_bytes(msgpack.packb(big, use_bin_type=True))
    loaded = transcript.load(path)
    assert "zz1" not in loaded and list(loaded["messages"]) == data["messages"]


def test_a_cancel_while_the_disk_writes_waits_for_the_whole_file(ended: Lockstep, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Cancelled once its thread writes: the save waits for the disk (bounded), so the process that ends right after
    still has its whole transcript, and no stray ``.tmp``."""
    _slow_disk(monkeypatch, 0.3)
    path = tmp_path / "t.p2php"

    async def game() -> None:
        with trio.move_on_after(0.1) as scope:
            await transcript.save_async(ended, path)
        assert scope.cancelled_caught

    trio.run(game)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.p2php"]
    assert transcript.verify(path).ok


def test_a_message_label_quotes_what_it_can_read_and_bounds_it() -> None:
    """How a refused message is named: its kind cut to 16 characters, its point only when it is two numbers."""
    frame = {"from": 1, "kind": "k" * 16, "at": [3, 0]}
    assert transcript.label(7, frame) == f"message 7 (seat 1, {'k' * 16} at 3.0)"
    assert transcript.label(7, {**frame, "kind": "k" * 17}) == f"message 7 (seat 1, {'k' * 15}… at 3.0)"
    for at in ([3, 0, 1], [3], "30", [3, "0"], [True, 0], None):
        assert transcript.label(7, {**frame, "at": at}).endswith(" at ?)"), at
    assert transcript.label(7, {"from": True, "kind": 5}) == "message 7 (seat ?, ? at ?)"
    assert transcript.label(7, [1, 2]) == "message 7"


def test_every_seats_signed_message_proves_and_a_forged_one_does_not(ended: Lockstep) -> None:
    """What ``equivocations`` and ``refused`` may prove: a message its author signed, seat 0's too."""
    table = ended.table
    wires = [m.to_wire() for m in ended.transcript]
    assert {w["from"] for w in wires} == {0, 1}
    for wire in wires:
        msg = transcript._signed_message(table, wire)
        assert msg is not None and msg.sender == wire["from"]
        assert transcript._signed_message(table, dict(wire, seq=wire["seq"] + 1)) is None  # signature fails
        assert transcript._signed_message(table, dict(wire, **{"from": 2})) is None  # no seat of this table


def test_a_refused_message_in_a_record_names_its_author_and_nothing_else_does() -> None:
    """A record's ``refused`` (§9.4): its first entry (MAX_REFUSED_KEPT), a message its author signed and that is
    refused by its shape, names that author; an entry that proves nothing (no message, a forged copy, a message
    refused by nothing) names nobody, and the entries after the first are not read."""
    from adversarial.tampers import signed_by

    from p2php.session.lockstep import MAX_REFUSED_KEPT
    from p2php.session.messages import MAX_UNKNOWN_BODY

    assert MAX_REFUSED_KEPT == 1
    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    table = peers[0].table
    one = next(m.to_wire() for m in peers[0].transcript if m.sender == 1 and m.kind == "action")
    junk = signed_by(peers[1], {**one, "body": {**one["body"], "zz": bytes(MAX_UNKNOWN_BODY + 1)}})
    faults = transcript._refused_faults(table, [junk, "x"])
    assert [(f.culprit, f.code.value, f.at) for f in faults] == [(1, "bad_message", tuple(junk["at"]))], faults
    for refused in ([5, junk], [dict(junk, seq=junk["seq"] + 1)], [one], "not a list", None):
        assert transcript._refused_faults(table, refused) == [], refused


# ----------------------------------------------------------------------------- what p2php verify reports


def _rewrite(saved: Path, path: Path, **fields: Any) -> Path:
    import msgpack

    data = msgpack.unpackb(saved.read_bytes(), raw=False)
    path.write_bytes(msgpack.packb({**data, **fields}, use_bin_type=True))
    return path


@pytest.mark.parametrize("bad", [1, 20, 21, 30])
def test_a_report_of_many_faulty_messages_lists_20_and_counts_the_rest(saved: Path, tmp_path: Path,
                                                                        bad: int) -> None:
    import msgpack

    messages = msgpack.unpackb(saved.read_bytes(), raw=False)["messages"]
    altered = [dict(m, sig=bytes(64)) for m in (messages * 3)[:bad]]
    result = transcript.verify(_rewrite(saved, tmp_path / "t.p2php", messages=altered))
    assert not result.ok
    listed = [line for line in result.lines if "signature does not verify" in line]
    assert len(listed) == min(bad, 20), result.lines
    more = [line for line in result.lines if line.startswith("… and")]
    assert more == ([f"… and {bad - 20} more"] if bad > 20 else []), result.lines
    assert result.lines[-1] == f"refused: {bad} of {bad} messages do not verify on their own"



@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="/dev/zero")
def test_an_endless_file_of_no_size_is_refused_not_read_forever(monkeypatch: pytest.MonkeyPatch) -> None:
    """``p2php verify /dev/zero`` (a device, a pipe that never ends): read up to the limit, then refused."""
    monkeypatch.setattr(transcript, "MAX_FILE", 1 << 20)
    monkeypatch.setattr(transcript, "_CHUNK", 1 << 16)
    with pytest.raises(transcript.TranscriptError, match="too big for a transcript"):
        transcript.load("/dev/zero")


def test_a_records_refused_message_is_named_by_the_verifier(tmp_path: Path) -> None:
    """A record whose ``refused`` holds a message seat 1 signed that is refused by its shape: ``p2php verify`` names
    seat 1 (``bad_message``) as a seat that received it did."""
    from adversarial.tampers import signed_by

    from p2php.session.messages import MAX_UNKNOWN_BODY

    peers = make_peers("toy", 2, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(2)})
    saved = transcript.save(peers[0], tmp_path / "seat0.p2php")
    one = next(m.to_wire() for m in peers[0].transcript if m.sender == 1 and m.kind == "action")
    junk = signed_by(peers[1], {**one, "body": {**one["body"], "zz": bytes(MAX_UNKNOWN_BODY + 1)}})
    result = transcript.verify(_rewrite(saved, tmp_path / "t.p2php", refused=[junk]))
    v = result.spectator.verdict if result.spectator is not None else None
    assert v is not None and (v.culprit, v.code) == (1, "bad_message"), result.lines
    assert transcript.verify(_rewrite(saved, tmp_path / "u.p2php", refused=[one])).ok  # a message refused by nothing


def test_a_file_cut_short_says_it_is_truncated(saved: Path, tmp_path: Path) -> None:
    """A copy that stopped early (a full disk, a download cut): the reason says so, with where."""
    raw = saved.read_bytes()
    for cut in (1, 5, 40):
        path = tmp_path / "cut.p2php"
        path.write_bytes(raw[:-cut])
        with pytest.raises(transcript.TranscriptError, match=r"the file is truncated \(a value starting at byte \d+ "
                                                             r"is cut off\)"):
            transcript.load(path)


def test_a_clean_records_report_says_each_thing_checked(ended: Lockstep, saved: Path) -> None:
    """What ``p2php verify`` tells its person of an honest record, in order: the hellos, the table (its safety
    code), the messages and steps, the final state (the hash the seat recorded), the audit."""
    result = transcript.verify(saved)
    assert result.ok, result.lines
    assert ended.verdict is not None
    heads = ["handshake: 2 signed hellos for toy ", "table: seats 0 ", f"messages: {len(ended.transcript)} "
             "signatures and chains checked, ", f"final state hash: {ended.verdict.state_hash.hex()}", "audit: clean"]
    assert len(result.lines) == len(heads) and all(
        line.startswith(head) for line, head in zip(result.lines, heads, strict=True)), result.lines


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    peers = make_peers("toy", 4, seed=1)
    run_in_memory(peers, {s: RandomBot(s) for s in range(4)})
    return transcript.save(peers[0], tmp_path_factory.mktemp("four") / "seat0.p2php")


@pytest.mark.parametrize("forgotten", [20, 21, 25])
def test_messages_the_replay_never_processed_are_listed_20_at_most_then_counted(
        four: Path, monkeypatch: pytest.MonkeyPatch, forgotten: int) -> None:
    """(A replay made to forget messages, as in test_verify_hardening: the rule alone.)"""
    path = four
    real = transcript._replay

    def forgetting(*args: Any, **kwargs: Any) -> Any:
        spectator, fault_at, finished_at = real(*args, **kwargs)
        del spectator.transcript[:forgotten]
        return spectator, fault_at, finished_at

    monkeypatch.setattr(transcript, "_replay", forgetting)
    result = transcript.verify(path)
    assert not result.ok
    never = [line for line in result.lines if "the replay never processed it" in line]
    assert len(never) == 20, result.lines
    more = [line for line in result.lines if line.startswith("… and")]
    assert more == ([f"… and {forgotten - 20} more"] if forgotten > 20 else []), result.lines


@pytest.mark.parametrize("raw", [b"\xde\x00", b"\x81\xa6hellos\xdc\x00", b"\x81\xa8messages\xdd\x00\x00"])
def test_a_file_cut_inside_a_header_is_refused_in_one_line(tmp_path: Path, raw: bytes) -> None:
    """Never a traceback: a file cut inside the top map's header, or a list's."""
    path = tmp_path / "cut.p2php"
    path.write_bytes(raw)
    with pytest.raises(transcript.TranscriptError):
        transcript.load(path)


def test_every_message_that_cannot_be_hashed_is_named(saved: Path, tmp_path: Path) -> None:
    """Two messages carrying a float (no canonical encoding): both are named, and the one after them with a bad
    signature too -- the check goes on past a malformed message."""
    import msgpack

    messages = msgpack.unpackb(saved.read_bytes(), raw=False)["messages"]
    for i in (2, 5):
        messages[i]["body"]["x"] = 1.5
    messages[9]["sig"] = bytes(64)
    result = transcript.verify(_rewrite(saved, tmp_path / "t.p2php", messages=messages))
    assert not result.ok
    assert [line.split(" (")[0] for line in result.lines if ": malformed: " in line] == ["message 2", "message 5"]
    assert any(line.startswith("message 9 ") and "signature does not verify" in line for line in result.lines)


def test_a_list_declaring_more_entries_than_the_rest_of_the_file_holds_says_so(tmp_path: Path) -> None:
    """Counted against the bytes after the list's header (not the whole file): a list late in a file declaring 10
    entries where 200 bytes are left is refused for that, before any entry is read."""
    import msgpack

    body = msgpack.packb({"zz": bytes(4000)}, use_bin_type=True)[1:]  # a field no reader knows, first
    raw = b"\x82" + body + msgpack.packb("hellos") + b"\xdc\x00\x0a" + bytes(200)
    path = tmp_path / "t.p2php"
    path.write_bytes(raw)
    with pytest.raises(transcript.TranscriptError, match="hellos declares 10 entries, more than the file can hold"):
        transcript.load(path)


def test_an_entry_of_more_values_than_a_frame_may_hold_is_refused_in_one_line(saved: Path, tmp_path: Path) -> None:
    """A message of 70 000 values in a file large enough for them (its budget is MAX_VALUES a frame): refused for
    that, in one line, never a traceback."""
    import msgpack

    from p2php.net.framing import MAX_VALUES

    data = msgpack.unpackb(saved.read_bytes(), raw=False)
    dense = dict(data["messages"][0], body={"x": [1] * (MAX_VALUES + 5000)})
    big = {"zz": bytes(300_000), **data, "messages": [dense, *data["messages"][1:]]}
    path = tmp_path / "t.p2php"
    path.write_bytes(msgpack.packb(big, use_bin_type=True))
    with pytest.raises(transcript.TranscriptError, match="message 0: "):
        transcript.load(path)


@pytest.mark.parametrize(("copies", "kept"), [(255, 256), (256, 0)])
def test_a_record_keeps_an_equivocations_proof_whole_up_to_256_copies_or_none(copies: int, kept: int,
                                                                              tmp_path: Path) -> None:
    """A cheater that signs hundreds of versions of one message: the record keeps them all while they are at most
    MAX_EQUIVOCATIONS (256, the processed one included) -- a reader's bound -- else none of them, and it loads."""
    from adversarial.tampers import signed_by
    from test_session_cheats import _equivocating_table

    peers = _equivocating_table()
    zero = peers[0]
    [(key, wires)] = zero.equivocations.items()
    base = wires[0]
    zero.equivocations[key] = [signed_by(peers[1], dict(base, body={**base["body"], "x": i})) for i in range(copies)]
    proofs = transcript.to_data(zero)["equivocations"]
    assert len(proofs) == kept
    assert len(transcript.load(transcript.save(zero, tmp_path / "t.p2php"))["equivocations"]) == kept


def test_a_record_saved_before_any_message_loads_with_none(tmp_path: Path) -> None:
    """A save right after the handshake (the app's mid-game save): no message yet; it loads, and says it ends
    before the game does."""
    peers = make_peers("toy", 2, seed=1)
    path = transcript.save(peers[0], tmp_path / "t.p2php")
    data = transcript.load(path)
    assert len(data["messages"]) == 0 and len(data["hellos"]) == 2
    result = transcript.verify(path)
    assert not result.ok and result.lines[-1] == "the transcript ends before the game does", result.lines
