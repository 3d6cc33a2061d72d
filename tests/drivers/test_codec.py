"""Frame codec: CRC variant, round trips, and a decoder that survives any byte stream."""

from __future__ import annotations

import binascii
import hmac
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import codec

frames_st = st.builds(
    lambda flags, seq, ack, mtype, payload, tag: (flags, seq, ack, mtype, payload, tag),
    st.sampled_from([0, codec.FLAG_SEQUENCED, codec.FLAG_FROM_DEVICE, 3]),
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 255),
    st.binary(max_size=codec.MAX_PAYLOAD),
    st.binary(min_size=codec.MAC_LEN, max_size=codec.MAC_LEN),
)


def build(spec: tuple[int, int, int, int, bytes, bytes]) -> bytes:
    flags, seq, ack, mtype, payload, tag = spec
    return codec.assemble(codec.signed_part(flags, seq, ack, mtype, payload), tag)


def decode_all(stream: bytes, chunk: int | None = None) -> list[codec.Frame]:
    dec = codec.Decoder()
    out: list[codec.Frame] = []
    step = chunk or max(1, len(stream))
    for i in range(0, len(stream), step):
        out += dec.feed(stream[i : i + step])[0]
    while dec.pending:  # what a stalled link does after stale_after
        out += dec.discard_stale()[0]
    return out


def test_crc_is_ccitt_false_check_value() -> None:
    assert codec.crc16(b"123456789") == 0x29B1


def test_frame_layout_matches_the_documented_bytes() -> None:
    # Built by hand from docs/protocol.md, independently of codec.assemble.
    payload = b"\x01\x02"
    tag = bytes(range(8))
    length = 7 + len(payload) + 8 + 2
    body = bytes((length, length ^ 0xFF, 0x03, 5, 9, 0x20)) + payload + tag
    expected = b"\xa5" + body + binascii.crc_hqx(body, 0xFFFF).to_bytes(2, "big")
    assert codec.assemble(codec.signed_part(0x03, 5, 9, 0x20, payload), tag) == expected
    assert len(expected) == codec.MIN_FRAME + 2


def test_payload_over_the_maximum_is_refused() -> None:
    try:
        codec.signed_part(0, 0, 0, 1, bytes(codec.MAX_PAYLOAD + 1))
    except ValueError as exc:
        assert "exceeds" in str(exc)
    else:
        raise AssertionError("oversized payload accepted")
    assert codec.MAX_FRAME == 255


@given(frames_st)
def test_round_trip(spec: tuple[int, int, int, int, bytes, bytes]) -> None:
    flags, seq, ack, mtype, payload, tag = spec
    [frame] = decode_all(build(spec))
    assert (frame.flags, frame.seq, frame.ack, frame.type) == (flags, seq, ack, mtype)
    assert frame.payload == payload and frame.mac == tag
    assert frame.signed == codec.signed_part(flags, seq, ack, mtype, payload)


@given(st.lists(frames_st, min_size=1, max_size=6), st.integers(1, 40))
def test_any_chunking_yields_the_same_frames(
    specs: list[tuple[int, int, int, int, bytes, bytes]], chunk: int
) -> None:
    stream = b"".join(build(s) for s in specs)
    assert [f.payload for f in decode_all(stream, chunk)] == [s[4] for s in specs]


@settings(max_examples=300)
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(noise: bytes) -> None:
    dec = codec.Decoder()
    for i in range(0, len(noise), 37):
        frames, _ = dec.feed(noise[i : i + 37])
        for f in frames:  # anything accepted is a frame that really stands in the noise
            assert codec.assemble(f.signed, f.mac) in noise
    while dec.pending:
        dec.discard_stale()


@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.binary(max_size=60), frames_st), min_size=1, max_size=8),
    st.integers(1, 64),
)
def test_every_valid_frame_after_noise_is_recovered(
    parts: list[tuple[bytes, tuple[int, int, int, int, bytes, bytes]]], chunk: int
) -> None:
    stream = b"".join(noise + build(spec) for noise, spec in parts)
    got = [f.signed + f.mac for f in decode_all(stream, chunk)]
    wanted = [build(spec)[1:-2] for _, spec in parts]
    # Noise may by chance hold a valid frame of its own; ours must all come out, in order.
    it = iter(got)
    assert all(any(w == g for g in it) for w in wanted)


@settings(max_examples=200)
@given(st.lists(frames_st, min_size=2, max_size=6), st.integers(0, 2**32 - 1))
def test_mutated_streams_never_raise_and_untouched_frames_survive(
    specs: list[tuple[int, int, int, int, bytes, bytes]], seed: int
) -> None:
    rng = random.Random(seed)
    victim = rng.randrange(len(specs))
    encoded = [bytearray(build(s)) for s in specs]
    pos = rng.randrange(len(encoded[victim]))
    encoded[victim][pos] ^= 1 << rng.randrange(8)
    frames = decode_all(b"".join(bytes(e) for e in encoded), rng.randint(1, 50))
    got = [f.signed + f.mac for f in frames]
    for i, spec in enumerate(specs):
        if i != victim:
            assert build(spec)[1:-2] in got
    # A single flipped bit is always caught by the CRC (or the header check).
    assert build(specs[victim])[1:-2] not in got or specs.count(specs[victim]) > 1


def test_false_sync_in_noise_does_not_stall_later_frames_for_ever() -> None:
    real = build((0, 1, 2, 3, b"card", bytes(8)))
    fake_header = bytes((codec.SYNC, 200, 200 ^ 0xFF))  # promises 200 bytes that never come
    dec = codec.Decoder()
    frames, skipped = dec.feed(fake_header + real)
    assert frames == [] and not skipped and dec.pending == len(fake_header + real)
    recovered, skipped = dec.discard_stale()
    assert skipped and [f.payload for f in recovered] == [b"card"]


def test_bad_header_fields_are_garbage() -> None:
    good = bytearray(build((0, 0, 0, 1, b"", bytes(8))))
    for index, value in ((1, 3), (2, 0), (3, 0x80)):  # LEN < MIN, NLEN wrong, unknown flag
        bad = bytearray(good)
        bad[index] = value
        if index == 3:  # keep the CRC right so only the flag check can refuse it
            crc = codec.crc16(bytes(bad[1:-2]))
            bad[-2:] = crc.to_bytes(2, "big")
        frames, skipped = codec.Decoder().feed(bytes(bad))
        assert frames == [] and skipped, index


def test_mac_helper_is_truncated_hmac_sha256() -> None:
    from drivers.link import mac

    key, msg = b"k" * 32, b"message"
    assert mac(key, msg) == hmac.new(key, msg, "sha256").digest()[:8]
