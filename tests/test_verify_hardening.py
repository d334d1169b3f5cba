"""``p2php verify`` cannot be fooled: every fault named on its message, every bad message refused,
hostile files refused with one clear line (issue 7)."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio

from p2php import cli
from p2php.bots import RandomBot
from p2php.engine.registry import get_game
from p2php.session import transcript
from p2php.session.handshake import Table
from p2php.session.local_net import run_local_table
from p2php.session.memory import seeded_secrets
from p2php.session.messages import parse_message, signing_bytes
from p2php.session.modes import parse_table_options
from p2php.session.runner import bot_decider
from p2php.session.transcript import TranscriptError

SEED = 3


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real two-seat toy game over loopback; seat 0's transcript as data."""
    out = tmp_path_factory.mktemp("honest")
    trio.run(lambda: run_local_table("toy", 2, [bot_decider(RandomBot(s)) for s in range(2)], seed=SEED,
                                     transcripts=out))
    data = msgpack.unpackb((out / "seat0.p2php").read_bytes(), raw=False)
    assert isinstance(data, dict)
    return data


def _write(data: dict[str, Any], path: Path) -> Path:
    path.write_bytes(msgpack.packb(data, use_bin_type=True))
    return path


def _first(data: dict[str, Any], kind: str) -> int:
    return next(i for i, m in enumerate(data["messages"]) if m["kind"] == kind)


def _label(data: dict[str, Any], i: int) -> str:
    m = data["messages"][i]
    return f"message {i} (seat {m['from']}, {m['kind']} at {m['at'][0]}.{m['at'][1]})"


def _forge(honest: dict[str, Any], index: int, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """The transcript as if the seat of message ``index`` had really signed ``change``d contents.

    From ``index`` on every message is numbered, chained and signed again (``seq``, ``prev`` and
    the ``seen`` heads follow the new messages), so each message verifies on its own and only the
    replay can tell.  ``change`` runs after the re-chaining, so it may break the chain on purpose.
    """
    data = copy.deepcopy(honest)
    game = get_game(data["game"])
    table = Table(game.name, parse_table_options(game, data["options"]), tuple(data["hellos"]))
    secrets = [seeded_secrets(SEED, s) for s in range(table.players)]
    msgs = data["messages"]
    olds = [parse_message(m).msg_hash for m in msgs]
    assert len(set(olds)) == len(olds)
    renamed: dict[bytes, tuple[int, bytes]] = {}
    next_seq: dict[int, int] = {}
    last: dict[int, bytes] = {}
    for i, m in enumerate(msgs):
        s = m["from"]
        if i >= index:
            m["seq"] = next_seq.get(s, 0)
            m["prev"] = last.get(s, table.session_id)
            m["seen"] = [[o, *renamed.get(h, (q, h))] for o, q, h in m["seen"]]
            if i == index:
                change(m)
            fields = {k: v for k, v in m.items() if k != "sig"}
            m["sig"] = secrets[s].identity.sign(signing_bytes(table.session_id, fields))
        new = parse_message(m).msg_hash
        renamed[olds[i]] = (m["seq"], new)
        next_seq[s], last[s] = m["seq"] + 1, new
    return data


def _fault_lines(check: transcript.Verification, prefix: str) -> list[str]:
    return [line for line in check.lines if line.startswith(prefix + ": ")]


def test_an_honest_transcript_verifies(honest: dict[str, Any], tmp_path: Path) -> None:
    check = transcript.verify(_write(honest, tmp_path / "t.p2php"))
    assert check.ok, check.lines
    assert check.lines[-1] == "audit: clean"
    # What the people at that table saw, so a record of another table cannot pass for theirs.
    table = Table(honest["game"], parse_table_options(get_game(honest["game"]), honest["options"]),
                  tuple(honest["hellos"]))
    assert f"safety code {table.safety_code}" in check.lines[1] and check.lines[1].startswith("table: seats 0 ")


def test_a_bad_signature_is_named_on_its_message(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    i = _first(data, "action")
    data["messages"][i]["body"]["action"]["n"] = 2 if data["messages"][i]["body"]["action"].get("n") != 2 else 1
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    lines = _fault_lines(check, _label(data, i))
    assert lines and "signature does not verify" in lines[0], check.lines


def test_a_broken_chain_is_named_on_its_message(honest: dict[str, Any], tmp_path: Path) -> None:
    i = _first(honest, "beacon")
    data = _forge(honest, i, lambda m: m.update(prev=b"\x07" * 32))
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    lines = _fault_lines(check, _label(data, i))
    assert lines and "broken chain" in lines[0], check.lines


def test_a_missing_message_puts_the_next_one_out_of_place(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    i = _first(data, "beacon")
    sender = data["messages"][i]["from"]
    del data["messages"][i]
    j = next(k for k in range(i, len(data["messages"])) if data["messages"][k]["from"] == sender)
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    lines = _fault_lines(check, _label(data, j))
    assert lines and "out of place" in lines[0], check.lines
    # refused by the check of each message on its own, before any replay (mutation run T)
    assert check.spectator is None and check.lines[-1] == f"refused: 1 of {len(data['messages'])} messages do not " \
        "verify on their own", check.lines


def test_an_illegal_action_is_named_with_its_seat(honest: dict[str, Any], tmp_path: Path) -> None:
    i = _first(honest, "action")  # the bid: only 0, 1 or 2 is legal
    data = _forge(honest, i, lambda m: m["body"]["action"].update(n=7))
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    lines = _fault_lines(check, _label(data, i))
    assert lines and "illegal action" in lines[0], check.lines
    seat = data["messages"][i]["from"]
    assert check.spectator is not None and check.spectator.verdict is not None
    fault = check.spectator.fault
    assert fault is not None and lines[0] == f"{_label(data, i)}: {fault.reason}"  # its own message: the bare reason
    assert check.spectator.verdict.culprit == seat
    assert any("recorded verdict (clean) differs" in line for line in check.lines), check.lines


def test_a_desync_is_named_with_its_seat(honest: dict[str, Any], tmp_path: Path) -> None:
    i = _first(honest, "beacon")
    data = _forge(honest, i, lambda m: m.update(state=b"\x00" * 32))
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    lines = _fault_lines(check, _label(data, i))
    assert lines and "desync" in lines[0], check.lines


def test_a_signed_message_where_none_was_due_is_named(honest: dict[str, Any], tmp_path: Path) -> None:
    """A seat signs a second bid for a step that has closed: the replay names it on that message."""
    i = _first(honest, "action")
    sender = honest["messages"][i]["from"]
    later = next(k for k in range(i + 1, len(honest["messages"])) if honest["messages"][k]["from"] == sender)
    data = copy.deepcopy(honest)
    extra = copy.deepcopy(data["messages"][i])
    extra["body"]["action"]["n"] = (extra["body"]["action"]["n"] + 1) % 3
    data["messages"].insert(later, extra)
    data = _forge(data, later, lambda m: None)
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    lines = _fault_lines(check, _label(data, later))
    assert any("none was due" in line or "after that step closed" in line for line in lines), check.lines


@pytest.mark.parametrize("how", ["unsigned", "badly signed", "unknown seat", "malformed"])
def test_a_bad_message_appended_after_the_audit_is_refused(honest: dict[str, Any], tmp_path: Path,
                                                           how: str) -> None:
    data = copy.deepcopy(honest)
    last = copy.deepcopy(data["messages"][-1])
    last["seq"] += 1
    last["prev"] = parse_message(data["messages"][-1]).msg_hash
    if how == "unsigned":
        del last["sig"]
    elif how == "badly signed":
        last["sig"] = b"\x01" * 64
    elif how == "unknown seat":
        last["from"] = 5
    else:
        last["at"] = "late"
    data["messages"].append(last)
    n = len(data["messages"]) - 1
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok, check.lines
    assert any(line.startswith(f"message {n} (") for line in check.lines), check.lines
    assert check.lines[-1].startswith("refused: 1 of")


def test_a_signed_message_after_the_audit_is_replayed_not_ignored(honest: dict[str, Any], tmp_path: Path) -> None:
    """A validly signed abort after the last audit: the replay takes it in (the peer's last sweep of its
    audit round would have), so the file no longer verifies as clean."""
    data = copy.deepcopy(honest)
    last = data["messages"][-1]
    data["messages"].append({**copy.deepcopy(last), "kind": "abort",
                             "body": {"culprit": 1 - last["from"], "reason": "cheated", "at": last["at"],
                                      "evidence": [], "claims": []}})
    data = _forge(data, len(data["messages"]) - 1, lambda m: None)
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok, check.lines
    assert not any("never processed" in line for line in check.lines), check.lines
    assert any(line.startswith(_label(data, len(data["messages"]) - 1) + ": ") for line in check.lines), check.lines
    assert check.spectator is not None and check.spectator.verdict is not None
    fault = check.spectator.fault  # shown on the abort, whose signer is not the one it names: in the table's words
    assert fault is not None and fault.culprit != data["messages"][-1]["from"]
    assert f"{_label(data, len(data['messages']) - 1)}: {fault.describe(check.spectator.table)}" in check.lines
    assert not check.spectator.verdict.clean


def test_a_recorded_verdict_that_the_replay_does_not_reach_is_refused(honest: dict[str, Any],
                                                                       tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["verdict"] = {**data["verdict"], "clean": False, "culprit": 1, "reason": "cheated"}
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    assert any("recorded verdict (seat 1: cheated) differs" in line for line in check.lines), check.lines
    data["verdict"] = None
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    assert "the transcript records no verdict" in check.lines


def test_a_record_cut_of_a_seats_audit_names_nobody(honest: dict[str, Any], tmp_path: Path) -> None:
    """Anyone holding a clean transcript could delete one seat's last message (its audit) and write a verdict
    naming it: verify convicted that honest seat of withholding its audit. A record has no clock (§9.3): a
    missing audit names nobody, and a recorded conviction for time alone is reported as unprovable."""
    data = copy.deepcopy(honest)
    last = max(i for i, m in enumerate(data["messages"]) if m["from"] == 1)
    assert data["messages"][last]["kind"] == "audit"
    del data["messages"][last]
    data["verdict"] = {**data["verdict"], "clean": False, "culprit": 1, "code": "refused_audit",
                       "reason": "did not release its secrets for the audit"}
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    assert not any("seat 1 (" in line and "did not release" in line for line in check.lines), check.lines
    assert any("holds no audit from seat 1" in line for line in check.lines), check.lines
    assert any("is a judgement of time, which no record can prove" in line for line in check.lines), check.lines


MARK = b"\xc4\x0cDEEP-MARKER!"  # bin 8 of the 12 bytes b"DEEP-MARKER!"


def _with_raw(honest: dict[str, Any], place: Callable[[dict[str, Any]], None], raw: bytes, path: Path) -> Path:
    """Write the transcript with the bytes ``raw`` where ``place`` put the marker."""
    data = copy.deepcopy(honest)
    place(data)
    packed = msgpack.packb(data, use_bin_type=True)
    assert packed.count(MARK) == 1
    path.write_bytes(packed.replace(MARK, raw))
    return path


def _junk(data: dict[str, Any]) -> None:
    data["messages"][_first(data, "action")]["body"]["junk"] = b"DEEP-MARKER!"


def _one_line_error(path: Path) -> str:
    with pytest.raises(TranscriptError) as info:
        transcript.verify(path)
    text = str(info.value)
    assert "\n" not in text and len(text) < 500, text
    return text


@pytest.mark.parametrize("depth", [40, 900, 100_000])
def test_deep_nesting_in_a_message_is_a_clear_error(honest: dict[str, Any], tmp_path: Path, depth: int) -> None:
    path = _with_raw(honest, _junk, b"\x91" * depth + b"\x01", tmp_path / "deep.p2php")
    text = _one_line_error(path)
    assert "nest" in text and f"message {_first(honest, 'action')}" in text, text


def test_deep_nesting_elsewhere_is_a_clear_error(honest: dict[str, Any], tmp_path: Path) -> None:
    def place(data: dict[str, Any]) -> None:
        data["verdict"]["reason"] = b"DEEP-MARKER!"

    text = _one_line_error(_with_raw(honest, place, b"\x91" * 900 + b"\x01", tmp_path / "deep.p2php"))
    assert "verdict" in text and "nest" in text, text

    def hello(data: dict[str, Any]) -> None:
        data["hellos"][1]["extra"] = b"DEEP-MARKER!"

    text = _one_line_error(_with_raw(honest, hello, b"\x81\xa1k" * 500 + b"\x01", tmp_path / "deep2.p2php"))
    assert "hello 1" in text and "nest" in text, text


def test_an_integer_map_key_in_a_message_is_a_clear_error(honest: dict[str, Any], tmp_path: Path) -> None:
    text = _one_line_error(_with_raw(honest, _junk, b"\x81\x05\x01", tmp_path / "intkey.p2php"))
    assert "str" in text, text


def test_a_message_over_the_frame_limit_is_a_clear_error(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    _junk(data)
    data["messages"][_first(data, "action")]["body"]["junk"] = "x" * (4 * 1024 * 1024 + 1)
    text = _one_line_error(_write(data, tmp_path / "huge.p2php"))
    assert "frame limit" in text, text


def test_a_file_of_millions_of_tiny_values_is_refused_before_they_are_built(honest: dict[str, Any],
                                                                            tmp_path: Path) -> None:
    """An 8 MB file of 8 million empty maps as ``messages`` took 22 s of CPU and 600 MB to refuse (71 bytes of
    memory per byte of file, and the size limit is 256 MiB). A list of more entries than the file can hold as
    signed messages, an entry too short to be one, and a file of more values than a record of its size holds are
    refused at once."""
    import time

    count = 2_000_000
    bomb = {**honest, "messages": []}
    packed = msgpack.packb(bomb, use_bin_type=True)
    head, tail = packed.split(b"\xa8messages\x90", 1)
    raw = head + b"\xa8messages\xdd" + count.to_bytes(4, "big") + b"\x80" * count + tail
    short = {**honest, "messages": [{"x": 1}, *honest["messages"]]}
    values = {**honest, **{f"junk{i}": [0] * 30_000 for i in range(40)}}  # each under the bound of one frame
    for path, why in ((tmp_path / "bomb.p2php", "messages declares 2000000 entries, more than the file can hold"),
                      (_write(short, tmp_path / "short.p2php"), "too short to be a signed message"),
                      (_write(values, tmp_path / "values.p2php"), "more values than a record of its size can")):
        if path.name == "bomb.p2php":
            path.write_bytes(raw)
        started = time.process_time()
        text = _one_line_error(path)
        assert why in text and time.process_time() - started < 2, (text, time.process_time() - started)


def _dense_entry(k: int) -> bytes:
    """A map of ``k + 4`` values in exactly ``4 (k + 4)`` bytes, the reader's density limit: ``k`` empty maps
    (a byte each, 64 bytes of memory each once built) and a blob that pays for them."""
    pad = 3 * k + 1
    return (b"\x82\xa1p\xc6" + pad.to_bytes(4, "big") + b"\0" * pad
            + b"\xa1e\xdd" + k.to_bytes(4, "big") + b"\x80" * k)


def _peak_memory(read: Callable[[], Any]) -> tuple[Any, int]:
    import tracemalloc

    tracemalloc.start()
    try:
        return read(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reading_a_file_at_the_density_limit_costs_a_few_times_its_size(honest: dict[str, Any],
                                                                         tmp_path: Path) -> None:
    """Every hello and message was kept decoded: 18 bytes of objects for each byte of a file of one value per 4
    bytes (a 32 MiB file took 666 MiB to refuse, one of 256 MiB would take 5.3 GB), and every read reserved 256 MiB
    for the bytes (red-team rt7-reader). They are kept as the file's bytes, each decoded when it is read."""
    entry = _dense_entry(1000)
    count = (256 * 1024) // len(entry)
    packed = msgpack.packb({**honest, "messages": []}, use_bin_type=True)
    head, tail = packed.split(b"\xa8messages\x90", 1)
    raw = head + b"\xa8messages\xdd" + count.to_bytes(4, "big") + entry * count + tail
    path = tmp_path / "dense.p2php"
    path.write_bytes(raw)
    data, peak = _peak_memory(lambda: transcript.load(path))
    assert len(data["messages"]) == count and data["messages"][0]["e"] == [{}] * 1000
    assert peak < 4 * len(raw), (peak, len(raw))  # (before: 260 MiB for this 256 kB file, 4.6 MiB of it kept)
    check = transcript.verify(path)
    assert not check.ok and check.lines[-1] == f"refused: {count} of {count} messages do not verify on their own"


def test_messages_read_back_as_the_file_holds_them(honest: dict[str, Any], tmp_path: Path) -> None:
    data = transcript.load(_write(honest, tmp_path / "t.p2php"))
    frames = data["messages"]
    assert frames == honest["messages"] and list(frames) == honest["messages"] and data["hellos"] == honest["hellos"]
    assert frames[-1] == honest["messages"][-1] and frames[1:3] == honest["messages"][1:3]
    with pytest.raises(IndexError):
        frames[len(frames)]
    extra = {**honest, "unknown": [1, 2], "format": transcript.FORMAT}
    assert "unknown" not in transcript.load(_write(extra, tmp_path / "x.p2php"))  # read by the rules, then dropped


def test_each_entry_is_walked_by_the_rules_once(honest: dict[str, Any], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry is decoded afresh each time it is read (rt7-reader), and verify reads every message five times or
    more (the check, two replays, the unprocessed ones, the fault's line): each read walked the rules again in
    Python, tripling the CPU of a record of dense signed messages (review rv7-reader: 0.31 s
    -> 0.90 s for 4 MB). The bytes were accepted by the rules once, at load; a read only decodes them."""
    from p2php.net import framing

    walked = 0
    check_structure = framing._check_structure

    def counted(body: bytes, budget: int = framing.MAX_VALUES) -> int:
        nonlocal walked
        walked += 1
        return check_structure(body, budget)

    monkeypatch.setattr(framing, "_check_structure", counted)
    path = _write(honest, tmp_path / "t.p2php")
    data = transcript.load(path)
    at_load = walked
    assert at_load >= len(honest["messages"]) + len(honest["hellos"])
    assert list(data["messages"]) == honest["messages"] and list(data["hellos"]) == honest["hellos"]
    assert transcript.verify(path).ok
    assert walked - at_load <= 2 * at_load, (at_load, walked - at_load)  # the load again, and what the seats' checks
    # walk themselves; not once more for every read of every entry


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.p2php"
    with open(path, "wb") as f:
        f.truncate(transcript.MAX_FILE + 1)  # sparse: nothing is really written
    text = _one_line_error(path)
    assert "256 MiB" in text, text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a named pipe")
def test_a_transcript_from_a_pipe_is_read_for_its_size(honest: dict[str, Any], tmp_path: Path) -> None:
    """A pipe (``cat t.p2php | p2php verify /dev/stdin``) has no size: the rest of it was read with one
    ``read(MAX_FILE + 1 - 1)``, which reserves 256 MiB for a 10 kB file (under ``ulimit -v 300000`` a traceback
    ending in MemoryError, where the same file on disk verifies; rv7-reader). It is read a chunk at a time."""
    import threading

    raw = msgpack.packb(honest, use_bin_type=True)
    fifo = tmp_path / "pipe.p2php"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(raw)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        data, peak = _peak_memory(lambda: transcript.load(fifo))
    finally:
        writer.join()
    assert len(data["messages"]) == len(honest["messages"])
    assert peak < 8 * 1024 * 1024, peak  # (before: 268 435 456 and more)


@pytest.mark.parametrize("raw", [b"", b"\x05", b"\x82\xa6format", b"\xdd\xff\xff\xff\xff", b"\x81\x01\x02",
                                 b"\xc1", b"\x80trailing"])
def test_garbage_files_are_a_clear_error(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "g.p2php"
    path.write_bytes(raw)
    _one_line_error(path)


def test_cli_verify_of_a_hostile_file_prints_one_line(honest: dict[str, Any], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _with_raw(honest, _junk, b"\x91" * 900 + b"\x01", tmp_path / "deep.p2php")
    code = cli.main(["verify", str(path)])
    err = capsys.readouterr().err
    assert code != 0
    assert len(err.strip().splitlines()) == 1 and err.startswith("p2php: "), err
    assert "Traceback" not in err


def test_control_characters_in_reported_text_are_escaped(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["verdict"] = {**data["verdict"], "clean": False, "culprit": 0, "reason": "\x1b[2K\raudit: clean"}
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    assert all(ch.isprintable() for line in check.lines for ch in line), check.lines


# ----------------------------------------------------------------------------- what the report says (mutation run T)


def test_bytes_after_a_whole_transcript_refuse_the_file(honest: dict[str, Any], tmp_path: Path) -> None:
    path = _write(honest, tmp_path / "t.p2php")
    path.write_bytes(path.read_bytes() + b"\x01\x02")
    assert "2 stray byte(s) after the transcript" in _one_line_error(path)


@pytest.mark.parametrize(("change", "says"), [
    (lambda d: d.update(format="p2php-resume"), "not a p2php transcript"),
    (lambda d: d.pop("format"), "not a p2php transcript"),
    (lambda d: d.update(version=2), "transcript version 2 is not supported"),
    (lambda d: d.pop("hellos"), "field 'hellos' missing or malformed"),
    (lambda d: d.update(messages={"0": 1}), "field 'messages' missing or malformed"),
    (lambda d: d.update(game=7), "field 'game' missing or malformed"),
    (lambda d: d.update(options=[]), "field 'options' missing or malformed"),
    (lambda d: d.update(hellos=""), "field 'hellos' missing or malformed"),
])
def test_a_file_that_is_not_a_transcript_of_this_version_says_which(honest: dict[str, Any], tmp_path: Path,
                                                                    change: Callable[[dict[str, Any]], Any],
                                                                    says: str) -> None:
    data = copy.deepcopy(honest)
    change(data)
    assert says in _one_line_error(_write(data, tmp_path / "t.p2php"))


def test_many_bad_messages_are_listed_up_to_a_bound_then_counted(honest: dict[str, Any], tmp_path: Path) -> None:
    """Remote text is never echoed unbounded: the first 20 faulty messages are named, in file order, the rest
    counted, and the total said last."""
    data = copy.deepcopy(honest)
    n = len(data["messages"])
    data["messages"] += [{**copy.deepcopy(data["messages"][-1]), "sig": bytes(64)} for _ in range(25)]
    bad = list(range(n, n + 25))
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok and check.spectator is None
    named = [line for line in check.lines if "signature does not verify" in line]
    assert named == [f"{_label(data, i)}: signature does not verify (not signed by seat "
                     f"{data['messages'][i]['from']}, or altered)" for i in bad[:transcript.MAX_REPORTED]]
    assert transcript.MAX_REPORTED == 20
    assert check.lines[-2:] == ["… and 5 more", f"refused: 25 of {len(data['messages'])} messages do not verify "
                                "on their own"]
    del data["messages"][-1]  # 24: still more than the bound
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert check.lines[-2] == "… and 4 more"
    del data["messages"][-4:]  # 20: every one named, nothing counted
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert sum("signature does not verify" in line for line in check.lines) == 20
    assert not any(line.startswith("… and") for line in check.lines), check.lines[-3:]


def test_a_message_from_a_seat_not_at_the_table_is_named_and_the_others_still_checked(
        honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["messages"][1]["from"] = 2  # the first seat number past the table's two
    data["messages"][3]["sig"] = bytes(64)
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    problems = [line for line in check.lines if line.startswith("message ")]
    assert problems == [f"{_label(data, 1)}: from seat 2, which is not at this table",
                        f"{_label(data, 3)}: signature does not verify (not signed by seat "
                        f"{data['messages'][3]['from']}, or altered)"]


def test_a_recorded_state_hash_other_than_the_replays_is_refused(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["verdict"] = {**data["verdict"], "state_hash": b"\x01" * 32}
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    assert "the peer's recorded state hash differs from the replay" in check.lines
    assert check.lines[-1] == "audit: clean"  # the replay's own verdict, still said
    data["verdict"] = {**data["verdict"], "state_hash": None}  # a peer that recorded none: nothing to compare
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert check.ok, check.lines


def test_a_recorded_verdict_naming_seat_0_is_quoted_as_naming_seat_0(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["verdict"] = {**data["verdict"], "clean": False, "culprit": 0, "reason": "cheated"}
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert "the peer's recorded verdict (seat 0: cheated) differs from the replay's" in check.lines, check.lines
    data["verdict"] = {**data["verdict"], "culprit": -1}
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert "the peer's recorded verdict (unattributed: cheated) differs from the replay's" in check.lines


def test_a_transcript_cut_mid_game_says_it_ends_before_the_game(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["messages"] = data["messages"][: len(data["messages"]) // 2]
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok
    assert check.lines[-1] == "the transcript ends before the game does", check.lines


@pytest.mark.parametrize("limit", [1, 2, 40, 400])
def test_one_line_is_at_most_its_limit_and_says_it_was_cut(limit: int) -> None:
    for text in ("x" * (limit + 1), "\x1b" * (limit + 1), "é" * (10 * limit), "a\nb" * limit):
        out = transcript.one_line(text, limit)
        assert len(out) == limit and out.endswith("…") and out.isprintable(), (text[:20], out)
    assert transcript.one_line("x" * limit, limit) == "x" * limit  # at the limit: whole
    assert transcript.one_line("\x1b[2K") == "\\x1b[2K"


def test_a_badly_signed_hello_refuses_the_transcript(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    data["hellos"][1]["name"] = "mallory"
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok and check.spectator is None
    assert len(check.lines) == 1 and check.lines[0].startswith("handshake: "), check.lines


def test_a_label_says_what_of_a_message_can_be_read() -> None:
    assert transcript.label(3, "not a map") == "message 3"
    assert transcript.label(4, {"from": 1, "kind": "action", "at": [2, 0]}) == "message 4 (seat 1, action at 2.0)"
    assert transcript.label(5, {"from": True, "kind": 7, "at": [True, 0]}) == "message 5 (seat ?, ? at ?)"
    long = transcript.label(6, {"from": 0, "kind": "x" * 40, "at": [1, 2, 3]})
    assert long == f"message 6 (seat 0, {'x' * 15}… at ?)"


def test_a_fault_seen_on_another_seats_message_is_shown_on_the_culprits_message_not_its_abort(
        honest: dict[str, Any], tmp_path: Path) -> None:
    """Seat 0's illegal bid is found only when seat 1's bid closes the step; seat 0 then signs an abort at the same
    point. The report shows the fault on seat 0's bid -- the message that is the fault -- not on seat 1's bid, nor
    on seat 0's abort at that point (mutation run T)."""
    i = _first(honest, "action")
    data = _forge(honest, i, lambda m: m["body"]["action"].update(n=7))
    at = data["messages"][i]["at"]
    j = next(k for k in range(i + 1, len(data["messages"])) if data["messages"][k]["at"] == at)
    assert data["messages"][j]["from"] != data["messages"][i]["from"]
    abort = copy.deepcopy(data["messages"][i])
    abort.update(kind="abort", body={"culprit": 1 - abort["from"], "reason": "cheated", "at": at, "evidence": [],
                                     "claims": []})
    data["messages"].insert(j + 1, abort)
    data = _forge(data, j + 1, lambda m: None)
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    shown = [line for line in check.lines if line.startswith("message ")]
    assert shown == [f"{_label(data, i)}: illegal action {{'n': 7, 'type': 'bid'}}: bid 0, 1 or 2"], check.lines


def test_a_message_that_cannot_be_hashed_is_named_malformed(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    i = _first(data, "action")
    data["messages"][i]["body"]["x"] = 1.5  # a float: no canonical encoding, so no signing digest or hash
    check = transcript.verify(_write(data, tmp_path / "t.p2php"))
    assert not check.ok and check.spectator is None
    named = [line for line in check.lines if line.startswith(_label(data, i))]
    assert len(named) == 1 and named[0].startswith(f"{_label(data, i)}: malformed: "), check.lines


def test_a_replay_that_fails_is_reported_never_passed(honest: dict[str, Any], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php.session.lockstep import Lockstep

    def broken(self: Lockstep) -> list[Any]:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(Lockstep, "poll", broken)
    check = transcript.verify(_write(honest, tmp_path / "t.p2php"))
    assert not check.ok and check.spectator is None
    assert check.lines[-1] == "the replay failed: RuntimeError: engine bug"


def test_a_message_of_exactly_the_frame_limit_is_read(honest: dict[str, Any], tmp_path: Path) -> None:
    """The frame limit is ``MAX_FRAME`` bytes: a message of exactly that many is read (it then fails its
    signature, having been padded), one byte more is refused as a whole (mutation run T)."""
    from p2php.net.framing import MAX_FRAME

    for size, refused in ((MAX_FRAME, False), (MAX_FRAME + 1, True)):
        data = copy.deepcopy(honest)
        i = _first(data, "action")
        data["messages"][i]["body"]["junk"] = "x" * 70_000
        over = len(msgpack.packb(data["messages"][i], use_bin_type=True)) - size
        data["messages"][i]["body"]["junk"] = "x" * (70_000 - over)
        assert len(msgpack.packb(data["messages"][i], use_bin_type=True)) == size
        path = _write(data, tmp_path / "t.p2php")
        if refused:
            assert "frame limit" in _one_line_error(path)
        else:
            check = transcript.verify(path)
            assert any(line.startswith(f"{_label(data, i)}: signature does not verify") for line in check.lines)


def test_a_fault_whose_culprit_sent_only_its_audit_at_that_point_is_shown_on_that_audit(
        honest: dict[str, Any], tmp_path: Path) -> None:
    """The placement rule alone (``_fault_line``): a fault of seat 0 at the audit point, found on seat 1's audit,
    is shown on seat 0's own message there -- its audit, when it sent nothing else at that point -- with the bare
    reason, not on seat 1's message (mutation run T)."""
    from p2php.session.records import Fault, FaultCode

    check = transcript.verify(_write(honest, tmp_path / "t.p2php"))
    assert check.spectator is not None and check.spectator.fault_from is None
    frames = honest["messages"]
    end = frames[-1]["at"]
    mine = next(i for i, f in enumerate(frames) if f["from"] == 0 and f["kind"] == "audit")
    theirs = next(i for i, f in enumerate(frames) if f["from"] == 1 and f["kind"] == "audit")
    assert frames[mine]["at"] == frames[theirs]["at"] == end
    fault = Fault(0, "its audit does not open its deal", (end[0], end[1]), FaultCode.BAD_KEY)
    line = transcript._fault_line(check.spectator, frames, fault, theirs)
    assert line == f"{_label(honest, mine)}: its audit does not open its deal"


def test_a_message_the_replay_never_processed_fails_the_file_even_with_a_clean_verdict(
        honest: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule alone: whatever the verdict, a message of the file the replay did not process is named and the file
    does not pass (a replay that forgets one, here made to, must never yield ``ok``) (mutation run T)."""
    real = transcript._replay

    def forgetting(*args: Any, **kwargs: Any) -> Any:
        spectator, fault_at, finished_at = real(*args, **kwargs)
        del spectator.transcript[2]
        return spectator, fault_at, finished_at

    monkeypatch.setattr(transcript, "_replay", forgetting)
    check = transcript.verify(_write(honest, tmp_path / "t.p2php"))
    assert check.spectator is not None and check.spectator.verdict is not None and check.spectator.verdict.clean
    assert not check.ok
    assert f"{_label(honest, 2)}: the replay never processed it (it is out of place, or comes after the end of the " \
        "audit)" in check.lines


@pytest.mark.parametrize(("raw", "says"), [
    (b"\x81\x01\x02", "a top-level key is not a string"),
    (b"\x81\xa6format\xc1", "field 'format': not valid msgpack at byte 8: FormatError"),
    *((msgpack.packb({"format": "p2php-transcript", "version": 1, "hellos": {str(i): i for i in range(n)}}),
       "field 'hellos' missing or malformed") for n in (14, 15, 16)),  # a map where the list goes, fixmap or not
])
def test_a_garbage_file_is_refused_for_its_own_reason(tmp_path: Path, raw: bytes, says: str) -> None:
    """Not only one line (test_garbage_files_are_a_clear_error) but the right one (mutation run V)."""
    path = tmp_path / "g.p2php"
    path.write_bytes(raw)
    assert _one_line_error(path).endswith(says)


def test_a_recorded_verdicts_reason_is_quoted_up_to_120_characters(honest: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(honest)
    for reason, quoted in (("r" * 120, "r" * 120), ("r" * 121, "r" * 119 + "…")):
        data["verdict"] = {**data["verdict"], "clean": False, "culprit": 1, "reason": reason}
        check = transcript.verify(_write(data, tmp_path / "t.p2php"))
        assert f"the peer's recorded verdict (seat 1: {quoted}) differs from the replay's" in check.lines, check.lines
