# mypy: disable-error-code="import-untyped"
"""Wire framing: round trips, any split of the stream, and every refusal a hostile peer can trigger."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.net.framing import (
    MAX_DEPTH,
    MAX_FRAME,
    MAX_VALUES,
    FrameDecoder,
    FrameError,
    decode_frame_body,
    encode_frame,
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=40)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)
frames = st.dictionaries(st.text(max_size=8), values, max_size=6)


def frame_bytes(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def nested(depth: int) -> dict[str, Any]:
    """A frame whose containers nest ``depth`` deep (the top-level map counts as 1)."""
    value: Any = []
    for _ in range(depth - 2):
        value = [value]
    return {"x": value}


@given(frames)
def test_round_trip(frame: dict[str, Any]) -> None:
    data = encode_frame(frame)
    assert decode_frame_body(data[4:]) == frame
    assert FrameDecoder().feed(data) == [frame]


@settings(max_examples=150)
@given(st.lists(frames, min_size=1, max_size=5), st.data())
def test_any_split_of_the_stream(sent: list[dict[str, Any]], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(f) for f in sent)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(stream)), max_size=12)))
    decoder = FrameDecoder()
    received: list[dict[str, Any]] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        received += decoder.feed(stream[start:end])
    assert received == sent
    assert decoder.pending == 0


def test_partial_frame_stays_pending() -> None:
    data = encode_frame({"a": b"x" * 100})
    decoder = FrameDecoder()
    assert decoder.feed(data[:2]) == []
    assert decoder.pending == 2
    assert decoder.feed(data[2:-1]) == []
    assert decoder.pending == len(data) - 1
    assert decoder.feed(data[-1:]) == [{"a": b"x" * 100}]
    assert decoder.pending == 0


def test_next_frame_keeps_frames_before_a_bad_one() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame({"ok": 1}) + frame_bytes(b"\xc1"))
    assert decoder.next_frame() == {"ok": 1}
    with pytest.raises(FrameError):
        decoder.next_frame()


def test_oversized_length_refused_before_the_body() -> None:
    decoder = FrameDecoder(max_size=1000)
    with pytest.raises(FrameError, match="declares 1001 bytes, over the 1000-byte limit"):
        decoder.feed(struct.pack(">I", 1001))  # only the header: the body is never awaited
    assert decoder.pending == 0


def test_default_limit_and_huge_declared_length() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(struct.pack(">I", MAX_FRAME)[:3]) == []
    with pytest.raises(FrameError, match="over the 4194304-byte limit"):
        decoder.feed(b"\xff" + b"\x00" * 10)  # declared 0xffffff.. stays unbuffered


def test_decoder_unusable_after_error() -> None:
    decoder = FrameDecoder()
    with pytest.raises(FrameError, match="zero-length frame"):
        decoder.feed(struct.pack(">I", 0))
    with pytest.raises(FrameError, match="unusable after an earlier error: zero-length frame"):
        decoder.feed(encode_frame({"fine": True}))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"\xc1", "not valid msgpack: byte 0xc1"),
        (b"\x81\xa1a\xa1\xff", "not valid msgpack: 'utf-8' codec"),  # str that is not UTF-8
        (b"\x82\xa1a\xa5hello\xa1b", "truncated msgpack: 1 item"),  # map of 2 entries, 1.5 present
        (b"\x82\xa1a\x01", "declares 2 items, more than the 3 bytes left"),
        (b"\x81\xa1a\xc4\x10ab", "truncated inside a bin"),
        (msgpack.packb([1, 2]), "top-level value is array, a frame must be a map"),
        (msgpack.packb("hi"), "top-level value is str"),
        (msgpack.packb({1: "x"}), "map key at byte 1 is int, frame map keys must all be str"),
        (msgpack.packb({"a": {b"k": 1}}, use_bin_type=True), "map key at byte 4 is bin"),
        (msgpack.packb({"a": {None: 1}}), "map key at byte 4 is nil"),
        (msgpack.packb({"a": 1}) + b"\x00", "1 trailing byte"),
        (msgpack.packb({"a": 1}) * 2, "4 trailing byte"),
        (msgpack.packb({"a": msgpack.ExtType(5, b"data")}), "ext type .* is not allowed"),
        (msgpack.packb({"a": [msgpack.ExtType(1, b"x" * 300)]}), "ext type .* is not allowed"),
        (b"\x81\xa1a\xdd\xff\xff\xff\xff", "declares 4294967295 items"),  # would preallocate 32 GiB
    ],
)
def test_bad_bodies(body: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        decode_frame_body(body)
    with pytest.raises(FrameError, match=message):
        FrameDecoder().feed(frame_bytes(body))


def test_empty_body() -> None:
    with pytest.raises(FrameError, match="frame body is empty"):
        decode_frame_body(b"")


def test_zero_length_frame() -> None:
    with pytest.raises(FrameError, match="zero-length frame"):
        FrameDecoder().feed(b"\x00\x00\x00\x00")


def test_nesting_limit() -> None:
    assert decode_frame_body(msgpack.packb(nested(MAX_DEPTH))) == nested(MAX_DEPTH)
    with pytest.raises(FrameError, match=f"nesting deeper than {MAX_DEPTH}"):
        decode_frame_body(msgpack.packb(nested(MAX_DEPTH + 1)))
    deep_maps = b"\x81\xa1k" * 500 + b"\xc0"  # far past msgpack's own stack limit
    with pytest.raises(FrameError, match="nesting deeper"):
        decode_frame_body(deep_maps)


def test_nested_preallocation_bomb_is_refused_cheaply() -> None:
    # Each level claims 2**20 items; msgpack alone would allocate 8 MiB per level.
    bomb = b"\x81\xa1a" + b"\xdd\x00\x10\x00\x00" * 30
    with pytest.raises(FrameError, match="declares 1048576 items"):
        decode_frame_body(bomb)


@given(st.binary(max_size=64))
def test_garbage_never_escapes_as_anything_but_frame_error(garbage: bytes) -> None:
    try:
        frame = decode_frame_body(garbage)
    except FrameError:
        return
    assert isinstance(frame, dict)
    assert all(isinstance(k, str) for k in frame)


@pytest.mark.parametrize(
    ("frame", "error", "message"),
    [
        ({1: "x"}, FrameError, "keys must all be str"),
        ({"a": {2: "x"}}, FrameError, "keys must all be str"),
        (nested(MAX_DEPTH + 1), FrameError, "nesting deeper"),
        ({"big": b"x" * 100}, FrameError, "over the 50-byte limit"),
        (["not", "a", "dict"], TypeError, "must be a dict"),
    ],
)
def test_encode_refuses_what_a_peer_would_reject(frame: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        encode_frame(frame, max_size=50)


# ----------------------------------------------------------------------------- the fast walk agrees with the exact one


def _exact_ok(body: bytes, budget: int = MAX_VALUES) -> bool:
    from p2php.net.framing import _walk_structure

    try:
        _walk_structure(body, budget)
    except FrameError:
        return False
    return True


def _fast_ok(body: bytes, budget: int = MAX_VALUES) -> bool:
    from p2php.net.framing import _structure_ok

    return _structure_ok(body, budget) >= 0


def _assert_walks_agree_on_mutations(body: bytes, data: st.DataObject) -> None:
    """``body`` is valid to both walks, and they agree on it cut, extended and with one byte changed."""
    assert _fast_ok(body) and _exact_ok(body)
    cut = data.draw(st.integers(0, len(body)))
    for mutated in (
        body[:cut],
        body + data.draw(st.binary(min_size=1, max_size=3)),
        body[:cut] + bytes([data.draw(st.integers(0, 255))]) + body[cut + 1 :],
    ):
        assert _fast_ok(mutated) == _exact_ok(mutated), mutated.hex()


@settings(max_examples=60)
@given(frames, st.data())
def test_fast_walk_agrees_on_valid_and_mutated_bodies(frame: dict[str, Any], data: st.DataObject) -> None:
    _assert_walks_agree_on_mutations(msgpack.packb(frame, use_bin_type=True), data)


@settings(max_examples=300)
@given(st.binary(max_size=64))
def test_fast_walk_agrees_on_garbage(garbage: bytes) -> None:
    body = b"\x81\xa1k" + garbage
    assert _fast_ok(garbage) == _exact_ok(garbage)
    assert _fast_ok(body) == _exact_ok(body)


def test_fast_walk_agrees_on_the_hostile_shapes() -> None:
    deep = b"\x81\xa1k" + b"\x91" * (MAX_DEPTH - 1) + b"\xc0"
    too_deep = b"\x81\xa1k" + b"\x91" * MAX_DEPTH + b"\xc0"
    bomb = b"\x81\xa1k" + b"\xdd\xff\xff\xff\xff" * 4
    int_key = b"\x81\x01\xc0"
    ext = b"\x81\xa1k\xd4\x01\x00"
    top_list = b"\x91\xc0"
    for body, ok in ((deep, True), (too_deep, False), (bomb, False), (int_key, False), (ext, False),
                     (top_list, False), (b"\x80", True), (b"\xde\x00\x00", True), (b"\x81\xa1k\x90", True)):
        assert _fast_ok(body) == _exact_ok(body) == ok, body.hex()


def _values(frame: Any) -> int:
    if isinstance(frame, dict):
        return 2 * len(frame) + sum(_values(v) for v in frame.values())
    if isinstance(frame, list):
        return len(frame) + sum(_values(v) for v in frame)
    return 0


@settings(max_examples=60)
@given(frames, st.data())
def test_both_walks_count_every_value_and_refuse_one_over_the_budget(frame: dict[str, Any],
                                                                     data: st.DataObject) -> None:
    from p2php.net.framing import decode_counted

    body = msgpack.packb(frame, use_bin_type=True)
    values = _values(frame)
    assert decode_counted(body) == (frame, values)
    budget = data.draw(st.integers(0, values + 2))
    assert _fast_ok(body, budget) == _exact_ok(body, budget) == (values <= budget)


def test_a_frame_of_empty_maps_is_refused_before_msgpack_builds_them() -> None:
    """4 MiB of one-byte empty maps: 2.7 s of CPU and 330 MiB in the event loop, from anyone's first frame."""
    import time

    for body in (b"\x81\xa1x\xdd" + (4 * 1024 * 1024).to_bytes(4, "big") + b"\x80" * (4 * 1024 * 1024),
                 msgpack.packb({"x": [{}] * (MAX_VALUES - 1)})):
        started = time.process_time()
        with pytest.raises(FrameError, match=f"more than {MAX_VALUES} values"):
            decode_frame_body(body)
        assert time.process_time() - started < 0.5
    assert len(decode_frame_body(msgpack.packb({"x": [{}] * (MAX_VALUES - 2)}))["x"]) == MAX_VALUES - 2


# The small tuples the fast walk matches in C (seen heads, keys, shares), and shapes next to them that it must not.
_ints = st.integers(-(2**63), 2**64 - 1)
_entries = st.one_of(
    st.tuples(_ints, st.binary(min_size=32, max_size=33)).map(list),
    st.tuples(_ints, _ints, st.binary(min_size=32, max_size=33)).map(list),
    st.tuples(st.integers(0, 300), st.binary(max_size=40)).map(list),  # other sizes: the loop walks them
    st.tuples(st.booleans(), st.binary(min_size=32, max_size=32)).map(list),  # not an int first: the loop too
)


@settings(max_examples=120)
@given(st.lists(_entries, max_size=12), st.lists(_entries, max_size=3), st.data())
def test_fast_walk_agrees_on_lists_of_small_tuples(entries: list[Any], siblings: list[Any],
                                                   data: st.DataObject) -> None:
    frame = {"seen": entries, "body": {"keys": entries, "rest": siblings}, "nested": [entries, *siblings]}
    _assert_walks_agree_on_mutations(msgpack.packb(frame, use_bin_type=True), data)


def test_fast_walk_stops_a_tuple_run_at_its_array_s_count_and_depth() -> None:
    pair = b"\x92\x01\xc4\x20" + bytes(32)
    # an array of two pairs, then a sibling pair of the parent: the run must not take the sibling as a third item
    two_then_sibling = b"\x81\xa1k\x92\x92" + pair + pair + pair
    assert _fast_ok(two_then_sibling) == _exact_ok(two_then_sibling) is True
    one_declared = b"\x81\xa1k\x91" + pair + pair  # the second pair is a trailing value
    assert _fast_ok(one_declared) == _exact_ok(one_declared) is False
    # {"k": [pair, pair], pair: "v"}: the third pair is a map key (refused); a run that took it as a third item would
    # read "v" as the key and accept the body
    key_after_run = b"\x82\xa1k\x92" + pair + pair + pair + b"\xa1v"
    assert _fast_ok(key_after_run) == _exact_ok(key_after_run) is False
    verdicts = []
    for depth in range(MAX_DEPTH - 3, MAX_DEPTH + 1):  # the tuple itself is one level below its array
        body = b"\x81\xa1k" + b"\x91" * depth + pair
        assert _fast_ok(body) == _exact_ok(body), depth
        verdicts.append(_exact_ok(body))
    assert verdicts[0] and not verdicts[-1]  # the depth limit falls inside the range tried


def test_both_walks_count_the_items_of_small_tuples_too() -> None:
    """The fast walk matched each ``[int, bin32]`` entry in one step and counted it as one value: 30 000 of them
    passed as 30 002 values, where the exact walk (and §3.1) counts 90 002."""
    body = msgpack.packb({"k": [[1, bytes(32)]] * 30_000}, use_bin_type=True)
    assert not _fast_ok(body) and not _exact_ok(body)
    small = msgpack.packb({"k": [[1, bytes(32)]] * 100}, use_bin_type=True)
    assert _fast_ok(small, 302) and not _fast_ok(small, 301) and _exact_ok(small, 302) and not _exact_ok(small, 301)
