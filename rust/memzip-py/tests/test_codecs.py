"""Codecs from Python: round trips of every codec, sizes equal to the Rust
analysis (the `memzip analyze` CLI) on the same blocks, bad input."""

import json

import numpy as np
import pytest

import memzip
from conftest import BLOCK_BYTES, REPO, SAMPLE_BLOCKS, block_mix, cli_error

GEOMETRIES = [(32, 16), (64, 32), (128, 32), (128, 64)]


def test_codec_names_are_the_registry():
    names = memzip.codec_names()
    assert names[0] == "none"
    for name in ["bdi", "mag_bdi", "fpc", "cpack", "cpack_z", "e2mc4", "e2mc8", "e2mc16", "e2mc32", "adaptive"]:
        assert name in names


@pytest.mark.parametrize("name", memzip.codec_names())
@pytest.mark.parametrize("block_bytes,mag_bytes", GEOMETRIES)
def test_every_codec_round_trips(name, block_bytes, mag_bytes):
    codec = memzip.Codec(name, block_bytes=block_bytes, mag_bytes=mag_bytes)
    assert codec.name == name and codec.block_bytes == block_bytes and codec.mag_bytes == mag_bytes
    blocks = block_mix(120, block_bytes)
    compressed_any = False
    for phase in range(2):
        for row in blocks:
            block = row.tobytes()
            c = codec.compress(block)
            assert codec.decompress(c) == block
            assert c.mag_bytes == c.burst_count * mag_bytes
            assert c.compressed_bits <= block_bytes * 8
            assert c.latency == (c.compress_cycles, c.decompress_cycles)
            assert 0 <= c.encoding < len(codec.encoding_names)
            compressed_any |= c.is_compressed
        # E2MC samples online first: end it and code the same blocks again.
        codec.end_sampling()
    assert compressed_any or name == "none"


def test_compress_takes_any_buffer():
    codec = memzip.Codec("bdi")
    row = block_mix(3)[1]
    expected = codec.compress(row.tobytes())
    assert codec.compress(bytearray(row.tobytes())) == expected
    assert codec.compress(memoryview(row.tobytes())) == expected
    assert codec.compress(row) == expected


def test_compressed_rebuilt_from_its_fields_decodes():
    codec = memzip.Codec("fpc")
    block = block_mix(2)[1].tobytes()
    c = codec.compress(block)
    stored = memzip.Compressed(c.encoding, c.payload, c.compressed_bits)
    assert codec.decompress(stored) == block


def test_sizes_match_single_compress_calls():
    blocks = block_mix(200)
    vector = memzip.Codec("mag_bdi:bases=8+4+2").sizes(blocks)
    single = memzip.Codec("mag_bdi:bases=8+4+2")
    one_by_one = [single.compress(row.tobytes()) for row in blocks]
    assert len(vector) == 200
    assert vector.compressed_bits.dtype == np.uint32 and vector.encoding.dtype == np.uint8
    assert vector.compressed_bits.tolist() == [c.compressed_bits for c in one_by_one]
    assert vector.mag_bytes.tolist() == [c.mag_bytes for c in one_by_one]
    assert vector.burst_count.tolist() == [c.burst_count for c in one_by_one]
    assert vector.encoding.tolist() == [c.encoding for c in one_by_one]
    # Non-contiguous rows (a strided view) give the same sizes.
    strided = np.zeros((200, 256), np.uint8)
    strided[:, ::2] = blocks
    assert memzip.sizes("mag_bdi:bases=8+4+2", strided[:, ::2]).compressed_bits.tolist() == vector.compressed_bits.tolist()


def python_tally(codec, blocks, sample_blocks=SAMPLE_BLOCKS):
    """Sums over the analysed blocks, as `memzip analyze` reports them:
    online sampling ends before block `sample_blocks` if there is one."""
    sizes = codec.sizes(blocks[:sample_blocks])
    if len(blocks) > sample_blocks:
        codec.end_sampling()
        rest = codec.sizes(blocks[sample_blocks:])
    else:
        rest = codec.sizes(blocks[:0])
    bits = np.concatenate([sizes.compressed_bits, rest.compressed_bits]).astype(np.int64)
    mag = np.concatenate([sizes.mag_bytes, rest.mag_bytes]).astype(np.int64)
    enc = np.concatenate([sizes.encoding, rest.encoding])
    names = codec.encoding_names
    encodings = {names[e]: int(n) for e, n in zip(*np.unique(enc, return_counts=True))}
    return {
        "blocks": len(blocks),
        "compressed_blocks": int((enc != 0).sum()),
        "compressed_bits": int(bits.sum()),
        "mag_bytes": int(mag.sum()),
        "encodings": encodings,
    }


def test_sizes_equal_the_cli_analysis(trace_path, cli_analysis):
    trace = memzip.read_trace(trace_path)
    analysed = trace.data[trace.kind != memzip.KIND_READ]
    results = {r["codec"]: r for r in cli_analysis["traces"][0]["codecs"]}
    assert sorted(results) == sorted(memzip.codec_names())
    for name in memzip.codec_names():
        mine = python_tally(memzip.Codec(name), analysed)
        theirs = {key: results[name][key] for key in mine}
        assert mine == theirs, name
    # E2MC really coded blocks after its sampling phase.
    assert results["e2mc16"]["compressed_blocks"] > 0


def test_offline_e2mc_table_from_the_profiler(cli, trace_path, tmp_path):
    table = tmp_path / "e2mc16.json"
    code, _, err = cli("e2mc-profile", trace_path, "-o", table, "--symbol-bits", 16)
    assert code == 0, err
    codec = memzip.Codec("e2mc16", e2mc_table=table)
    blocks = memzip.read_trace(trace_path).data
    sizes = codec.sizes(blocks)
    assert (sizes.encoding != 0).any(), "an offline table codes from the first block"
    for row in blocks[:50]:
        assert codec.decompress(codec.compress(row)) == row.tobytes()
    # analyze with the table equals `memzip analyze --e2mc-table`.
    code, out, err = cli("analyze", trace_path, "--codecs", "e2mc16,bdi", "--e2mc-table", table, "--json", "-", "--no-shannon")
    assert code == 0, err
    expected = json.loads(out)["traces"][0]["codecs"]
    rows = memzip.analyze(trace_path, codecs=["e2mc16", "bdi"], e2mc_table=table, as_frame=False)
    assert [{k: r[k] for k in expected[0]} for r in rows] == expected
    assert rows[0]["offline_table"] and rows[0]["compressed_blocks"] > 0
    with pytest.raises(ValueError, match="no e2mc16 codec is analysed"):
        memzip.analyze(trace_path, codecs="bdi", e2mc_table=table)
    with pytest.raises(ValueError, match="16-bit symbols"):
        memzip.Codec("e2mc8", e2mc_table=table)
    with pytest.raises(FileNotFoundError, match="cannot read E2MC table"):
        memzip.Codec("e2mc16", e2mc_table=tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="bad.json"):
        memzip.Codec("e2mc16", e2mc_table=tmp_path / "bad.json")


def test_bad_specs_raise_value_error_with_the_cli_message(cli, trace_path):
    for spec in ["zip", "none:pdw=4", "e2mc16:pdw=four", "bdi:oops", "adaptive:candidates=fpc+adaptive"]:
        with pytest.raises(ValueError) as raised:
            memzip.Codec(spec)
        assert str(raised.value) == cli_error(cli("analyze", trace_path, "--codecs", spec, "--no-shannon"))


def test_bad_geometry_and_block_size_raise_value_error():
    with pytest.raises(ValueError, match="invalid block_bytes '100'"):
        memzip.Codec("bdi", block_bytes=100)
    with pytest.raises(ValueError, match="invalid granule_bytes '64'"):
        memzip.Codec("bdi", block_bytes=32, mag_bytes=64)
    codec = memzip.Codec("bdi")
    with pytest.raises(ValueError, match="block has 64 bytes, codec is configured for 128-byte blocks"):
        codec.compress(bytes(64))
    with pytest.raises(ValueError, match="failed on block 0: block has 64 bytes"):
        codec.sizes(np.zeros((3, 64), np.uint8))
    with pytest.raises(TypeError):
        codec.compress(12)


@pytest.mark.parametrize("name", memzip.codec_names())
def test_corrupt_payloads_raise_value_error_never_crash(name):
    codec = memzip.Codec(name)
    blocks = block_mix(60)
    stored = [codec.compress(row.tobytes()) for row in blocks]
    codec.end_sampling()
    stored += [codec.compress(row.tobytes()) for row in blocks]
    rng = np.random.default_rng(3)
    errors = 0
    for c in stored:
        payload = bytearray(c.payload)
        # Truncated: fewer bits than the encoding needs.
        short = memzip.Compressed(c.encoding, bytes(payload[: len(payload) // 2]), c.compressed_bits)
        with pytest.raises(ValueError):
            codec.decompress(short)
        errors += 1
        # Flipped bits and unknown encodings: an error or some block, never a crash.
        for _ in range(4):
            flipped = bytearray(payload)
            flipped[rng.integers(len(flipped))] ^= 1 << int(rng.integers(8))
            for encoding in (c.encoding, 255):
                try:
                    out = codec.decompress(memzip.Compressed(encoding, bytes(flipped), c.compressed_bits))
                    assert len(out) == BLOCK_BYTES
                except ValueError:
                    errors += 1
    assert errors > len(stored)


REAL_TRACES = sorted(
    p for p in (REPO / "benchmarks" / "traces").glob("*") if p.is_file() and p.suffix not in (".md", ".json", ".txt")
)


@pytest.mark.skipif(not REAL_TRACES, reason="SKIP: no simulator trace committed under benchmarks/traces/")
def test_sizes_and_counts_equal_the_cli_on_committed_traces(cli):
    codecs = ["bdi", "mag_bdi", "fpc", "cpack_z", "e2mc16", "adaptive"]
    for path in REAL_TRACES:
        code, out, err = cli("analyze", path, "--codecs", ",".join(codecs), "--json", "-", "--no-shannon")
        assert code == 0, err
        expected = json.loads(out)["traces"][0]
        trace = memzip.read_trace(path)
        counts = {name: int((trace.kind == value).sum()) for value, name in enumerate(memzip.KIND_NAMES)}
        assert counts == expected["records"], path
        analysed = trace.data[trace.kind != memzip.KIND_READ]
        for name, result in zip(codecs, expected["codecs"]):
            codec = memzip.Codec(name, block_bytes=trace.block_bytes)
            mine = python_tally(codec, analysed, memzip.DEFAULT_SAMPLE_BLOCKS)
            assert mine == {key: result[key] for key in mine}, (path, name)


def test_a_rust_panic_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="memzip internal error \\(Rust panic\\): boom"):
        memzip._memzip._panic_for_tests("boom")
    # The interpreter and the module still work.
    assert memzip.Codec("bdi").decompress(memzip.Codec("bdi").compress(bytes(128))) == bytes(128)


def test_sizes_releases_the_gil():
    """Python code runs in another thread while `sizes` loops in Rust."""
    import threading
    import time

    blocks = np.tile(block_mix(14), (20000, 1))
    codec = memzip.Codec("cpack_z")
    span = {}

    def work():
        span["start"] = time.perf_counter()
        codec.sizes(blocks)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    start, end = span["start"], span["end"]
    middle = [t for t in ticks if start + 0.1 * (end - start) < t < end - 0.1 * (end - start)]
    assert len(middle) >= 10, f"{len(middle)} Python steps during {end - start:.3f} s of sizes()"


def test_link_codecs_round_to_bytes_with_the_papers_costs():
    """A link codec (memzip-mgpu's payloads): 64-byte blocks, 1-byte granule, Table III costs."""
    block = bytes(range(16)) * 4
    link = memzip.Codec("fpc", block_bytes=64, mag_bytes=1, costs="paper004")
    dram = memzip.Codec("fpc", block_bytes=64, mag_bytes=16)
    assert "variant=paper004" in link.spec or link.spec == "fpc"
    small = link.compress(block)
    assert small.mag_bytes == (small.compressed_bits + 7) // 8
    assert dram.compress(block).mag_bytes % 16 == 0
    assert link.decompress(small) == block
    with pytest.raises(ValueError, match="costs 'cheap'"):
        memzip.Codec("fpc", block_bytes=64, mag_bytes=1, costs="cheap")
    with pytest.raises(ValueError, match="granule_bytes '3'"):
        memzip.Codec("fpc", block_bytes=64, mag_bytes=3)
