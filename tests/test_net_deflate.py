"""The ``deflate`` link feature (protocol.md §3.2): runs of frames and their limits."""

from __future__ import annotations

import os
import random
import zlib

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.net import Frame, FrameDecoder, FrameError, Mesh, encode_frame, listen, listener_port, open_mesh
from p2php.net.deflate import MAX_RUN_FRAMES, DeflateError, Deflater, Inflater, run_limit, wire_slack
from p2php.net.linkauth import LinkMac, seal_frame
from p2php.net.mesh import DEFLATE

KEY = bytes(range(32))


def _run(frames: list[bytes], deflater: Deflater | None = None) -> bytes:
    return (deflater or Deflater()).pack(frames)


def _raw(data: bytes, final: bool = False) -> bytes:
    """``data`` as a raw DEFLATE run the way a hostile peer might make it (tail off, or a final block)."""
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    if final:
        return z.compress(data) + z.flush(zlib.Z_FINISH)
    return (z.compress(data) + z.flush(zlib.Z_SYNC_FLUSH))[:-4]


def _sealed(run: bytes, mac: LinkMac) -> bytes:
    return seal_frame(len(run).to_bytes(4, "big") + run, mac)


def test_runs_carry_frames_in_order_and_the_stream_remembers_earlier_runs() -> None:
    deflater, inflater = Deflater(), Inflater(4096)
    frames = [encode_frame({"kind": "keys", "seq": i, "body": {"keys": [os.urandom(32)]}}) for i in range(5)]
    first = deflater.pack(frames[:2])
    assert inflater.unpack(first) == [f[4:] for f in frames[:2]]
    again = encode_frame({"pad": bytes(range(200))})
    one, two = deflater.pack([again]), deflater.pack([again])
    assert len(two) < len(one) // 4  # the second copy is a back-reference into the first
    assert inflater.unpack(one) == inflater.unpack(two) == [again[4:]]
    assert inflater.unpack(deflater.pack(frames[2:])) == [f[4:] for f in frames[2:]]


def test_random_bytes_grow_by_no_more_than_the_slack() -> None:
    limit = 64 * 1024
    body = encode_frame({"pad": os.urandom(limit - 16)}, limit)
    run = _run([body])
    assert len(run) <= limit + wire_slack(limit)
    assert Inflater(limit).unpack(run) == [body[4:]]


@pytest.mark.parametrize("case", ["bomb", "garbage", "final", "partial-prefix", "partial-frame", "zero-length",
                                  "too-long", "empty"])
def test_a_hostile_run_is_refused_with_a_reason(case: str) -> None:
    limit = 1024
    frame = encode_frame({"a": 1})
    run = {
        "bomb": _raw(bytes(run_limit(limit) + 1)),  # tiny on the wire, one byte past the limit inflated
        "garbage": b"\xff" * 40,
        "final": _raw(frame, final=True),
        "partial-prefix": _raw(frame + b"\x00\x00"),
        "partial-frame": _raw(frame[:-1]),
        "zero-length": _raw(bytes(4)),
        "too-long": _raw((limit + 1).to_bytes(4, "big") + bytes(limit + 1)),
        "empty": _raw(b""),
    }[case]
    why = {
        "bomb": "inflates past the 1028-byte limit", "garbage": "not a valid deflate run",
        "final": "ends the link's deflate stream", "partial-prefix": "ends inside a frame's length prefix",
        "partial-frame": "ends inside a frame$", "zero-length": r"declares 0 bytes \(1\.\.1024",
        "too-long": "inflates past the 1028-byte limit", "empty": "an empty run",
    }[case]
    with pytest.raises(DeflateError, match=why):
        Inflater(limit).unpack(run)


def test_the_decoder_inflates_authenticated_runs_split_anywhere() -> None:
    send, receive = LinkMac(KEY), LinkMac(KEY)
    deflater = Deflater()
    frames = [encode_frame({"n": i, "pad": bytes(i)}) for i in range(MAX_RUN_FRAMES)]
    wire = _sealed(deflater.pack(frames[:3]), send) + _sealed(deflater.pack(frames[3:]), send)
    decoder = FrameDecoder(4096)
    decoder.authenticate(receive, deflate=True)
    got = []
    for i in range(len(wire)):  # one byte at a time
        got += decoder.feed(wire[i : i + 1])
    assert [f["n"] for f in got] == list(range(MAX_RUN_FRAMES))
    assert decoder.pending == 0


def test_a_bad_frame_inside_a_run_is_a_framing_error_and_the_decoder_stays_failed() -> None:
    send, receive = LinkMac(KEY), LinkMac(KEY)
    inner = encode_frame({"ok": 1}) + (3).to_bytes(4, "big") + b"\xc1\xc1\xc1"  # 0xc1 is never valid msgpack
    decoder = FrameDecoder(4096)
    decoder.authenticate(receive, deflate=True)
    with pytest.raises(FrameError):
        decoder.feed(_sealed(_raw(inner), send))
    with pytest.raises(FrameError, match="unusable"):
        decoder.feed(b"")


def test_a_run_of_more_frames_or_values_than_a_writer_sends_is_refused() -> None:
    """A 4 KiB run inflated to 4 MiB of tiny frames, or of frames each under the value bound, cost seconds of
    CPU in the event loop: a run holds at most MAX_RUN_FRAMES frames and MAX_VALUES values together."""
    from p2php.net.framing import MAX_FRAME, MAX_VALUES

    tiny = encode_frame({"x": 1})
    under = encode_frame({"x": [{}] * (MAX_VALUES // 2)})  # each frame alone is fine
    for frames, why in (([tiny] * (MAX_RUN_FRAMES + 1), f"a run of {MAX_RUN_FRAMES + 1} frames"),
                        ([under, under, under], f"a run of frames holding more than {MAX_VALUES} values")):
        send, receive = LinkMac(KEY), LinkMac(KEY)
        decoder = FrameDecoder(MAX_FRAME)
        decoder.authenticate(receive, deflate=True)
        with pytest.raises(FrameError, match=why):
            decoder.feed(_sealed(Deflater().pack(frames), send))
    send, receive = LinkMac(KEY), LinkMac(KEY)
    decoder = FrameDecoder(MAX_FRAME)
    decoder.authenticate(receive, deflate=True)
    assert len(decoder.feed(_sealed(Deflater().pack([tiny] * MAX_RUN_FRAMES), send))) == MAX_RUN_FRAMES


def test_a_compressed_length_past_limit_and_slack_is_refused_before_its_body_arrives() -> None:
    decoder = FrameDecoder(1024)
    decoder.authenticate(LinkMac(KEY), deflate=True)
    with pytest.raises(FrameError, match="over the 1024-byte limit"):
        decoder.feed((1024 + wire_slack(1024) + 16 + 1).to_bytes(4, "big"))


Offers = tuple[tuple[str, ...], tuple[str, ...]]


async def _pair(features: Offers) -> tuple[dict[int, Mesh], list[trio.SocketListener]]:
    listeners = [await listen() for _ in range(2)]
    peers = {s: ("127.0.0.1", listener_port(listeners[s])) for s in range(2)}
    meshes: dict[int, Mesh] = {}

    async def one(seat: int) -> None:
        meshes[seat] = await open_mesh(seat, peers, listeners[seat], {"seat": seat}, lambda s, h: None,
                                       connect_timeout=5.0, features=features[seat])

    async with trio.open_nursery() as nursery:
        for seat in range(2):
            nursery.start_soon(one, seat)
    return meshes, listeners


@pytest.mark.parametrize("offers", [(("deflate",), ("deflate",)), (("deflate",), ()), ((), ("deflate",))])
async def test_a_link_compresses_only_if_both_ends_offer_deflate(offers: Offers) -> None:
    meshes, listeners = await _pair(offers)
    both = all(DEFLATE in o for o in offers)
    frame = {"kind": "action", "body": {"text": "accio " * 200}}
    async with meshes[0], meshes[1]:
        before = meshes[0].bytes_sent[1]
        for _ in range(3):
            await meshes[0].broadcast(frame)
        got = []
        with trio.fail_after(5):
            async for event in meshes[1]:
                if isinstance(event, Frame):
                    got.append(event.frame)
                    if len(got) == 3:
                        break
        assert got == [frame] * 3
        sent = meshes[0].bytes_sent[1] - before
        assert (sent < len(encode_frame(frame))) == both  # three copies in less than one plain frame
    for listener in listeners:
        await listener.aclose()


def test_a_run_is_taken_up_to_its_limit_exactly_and_refused_one_byte_past() -> None:
    """A frame of the largest allowed size fills a run to its limit and passes; whole, well-formed frames one byte
    past the limit are refused however they would parse."""
    limit = 1024
    largest = limit.to_bytes(4, "big") + bytes(range(256)) * 4
    assert len(largest) == run_limit(limit)
    assert Inflater(limit).unpack(_raw(largest)) == [largest[4:]]
    assert Inflater(limit).unpack(Deflater().pack([largest])) == [largest[4:]]
    past = (limit - 4).to_bytes(4, "big") + b"a" * (limit - 4) + (1).to_bytes(4, "big") + b"b"
    assert len(past) == run_limit(limit) + 1
    with pytest.raises(DeflateError, match="limit"):
        Inflater(limit).unpack(_raw(past))


def test_a_match_reaches_back_the_whole_32_kib_window() -> None:
    """The inflater keeps DEFLATE's full window: a compressor primed with the last 32 KiB finds a frame sent
    ~20 KiB of random bytes ago, and the receiver must follow that far back."""
    deflater, inflater = Deflater(), Inflater(1 << 16)
    text = encode_frame({"kind": "chat", "body": {"text": "nox " * 300}})
    noise = encode_frame({"kind": "pass", "body": {"cards": os.urandom(20_000)}})
    runs = [deflater.pack([text]), deflater.pack([noise]), deflater.pack([text])]
    assert len(runs[2]) < 40  # one back-reference, 20 kB back
    assert [inflater.unpack(r) for r in runs] == [[text[4:]], [noise[4:]], [text[4:]]]


def test_a_long_random_frame_is_stored_and_the_stream_still_finds_what_came_before() -> None:
    """A pass-sized random frame is copied as stored blocks (no compressor time spent on it), yet a frame sent
    after it still compresses against one sent before it: the new compressor is primed with the receiver's window."""
    deflater, inflater = Deflater(), Inflater(1 << 20)
    small = encode_frame({"kind": "action", "body": {"text": os.urandom(200).hex()}})  # random, but short
    big = encode_frame({"kind": "pass", "body": {"cards": os.urandom(8_000)}})
    first, stored, after = deflater.pack([small]), deflater.pack([big]), deflater.pack([small])
    assert len(first) > 200  # 400 hex digits: 200 random bytes
    assert len(stored) == len(big) + 5 + 1  # one block's header, LEN and NLEN, and the last empty block's header
    assert stored[:5 + 100] == b"\x00" + (len(big)).to_bytes(2, "little") + (len(big) ^ 0xFFFF).to_bytes(
        2, "little") + big[:100]
    assert len(after) < 40  # a back-reference past the stored frame to the first copy
    huge = encode_frame({"kind": "pass", "body": {"cards": os.urandom(150_000)}}, 1 << 20)
    three = deflater.pack([small, huge, small])
    # three stored blocks; the first short frame a back-reference, the second out of reach behind 150 kB
    assert len(huge) + 5 * 3 < len(three) < len(huge) + 5 * 3 + 60 + len(first)
    text = encode_frame({"kind": "chat", "body": {"text": "lumos " * 400}})  # long but not random: compressed
    lumos = deflater.pack([text])
    assert len(lumos) < len(text) // 4
    assert [inflater.unpack(r) for r in (first, stored, after, three, lumos)] == [
        [small[4:]], [big[4:]], [small[4:]], [small[4:], huge[4:], small[4:]], [text[4:]]]


def _body_value() -> st.SearchStrategy[object]:
    """Envelope-like values, and now and then a long one: random bytes (stored, up to three blocks) or text."""
    long_random = st.builds(lambda n, seed: random.Random(seed).randbytes(n), st.integers(900, 140_000),
                            st.integers(0, 2**32))
    long_text = st.builds(lambda n: "accio " * n, st.integers(150, 3000))
    return st.one_of(st.integers(-2**63, 2**64 - 1), st.binary(max_size=300), st.text(max_size=40),
                     long_random, long_text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=8), _body_value(), max_size=6),
                min_size=1, max_size=40),
       st.randoms(use_true_random=False))
def test_any_grouping_into_runs_and_any_split_gives_the_frames_back(frames: list[dict[str, object]],
                                                                  rnd: random.Random) -> None:
    mac_out, mac_in, deflater = LinkMac(KEY), LinkMac(KEY), Deflater()
    encoded = [encode_frame(f) for f in frames]
    wire, i = b"", 0
    while i < len(encoded):  # runs of random length, as a writer finds frames waiting
        j = min(len(encoded), i + rnd.randint(1, MAX_RUN_FRAMES))
        wire += _sealed(deflater.pack(encoded[i:j]), mac_out)
        i = j
    decoder, got, pos = FrameDecoder(), [], 0
    decoder.authenticate(mac_in, deflate=True)
    while pos < len(wire):  # delivered in pieces of random size
        step = rnd.randint(1, 700)
        got += decoder.feed(wire[pos : pos + step])
        pos += step
    assert got == frames and decoder.pending == 0


def test_a_writer_keeps_only_the_window_it_may_prime_with_however_long_the_game() -> None:
    """The frames a new compressor is primed with are the stream's last 32 KiB: a link that carried a whole game
    must not hold (or join, at each new compressor) every frame it ever sent."""
    from p2php.net.deflate import WINDOW

    deflater = Deflater()
    text = encode_frame({"kind": "action", "body": {"text": "a move " * 100}})
    noise = encode_frame({"kind": "pass", "cards": os.urandom(4000)})  # stored: the next frame needs a new compressor
    for n in range(400):
        deflater.pack([text, noise] if n % 3 == 0 else [text])
    kept = sum(map(len, deflater._recent))
    assert kept == deflater._recent_size
    assert WINDOW <= kept < WINDOW + len(noise)  # the last 32 KiB, and less than one frame more
