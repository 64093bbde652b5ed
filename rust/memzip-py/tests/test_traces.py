"""Traces from Python: the records equal what was written and the CLI's
counts, chunks cover the trace exactly, corrupt traces raise TraceError
with the CLI's message."""

import numpy as np
import pytest

import memzip
from conftest import BLOCK_BYTES, block_mix, cli_error


def test_read_trace_returns_what_was_written(tmp_path):
    data = block_mix(300, 64)
    kind = (np.arange(300) % 3).astype(np.uint8)
    controller = np.full(300, 2**32 - 1, np.uint32)
    cycle = np.array([(2**64 - 1) if i % 5 == 0 else i for i in range(300)], np.uint64)
    address = (np.arange(300, dtype=np.uint64)[::-1] * np.uint64(64))
    path = tmp_path / "t.mzt"
    assert memzip.write_trace(path, data, kind=kind, controller=controller, cycle=cycle, address=address) == 300
    trace = memzip.read_trace(path)
    assert len(trace) == 300 and trace.block_bytes == 64 and trace.first_record == 0
    assert trace.data.shape == (300, 64) and trace.data.dtype == np.uint8
    np.testing.assert_array_equal(trace.data, data)
    np.testing.assert_array_equal(trace.kind, kind)
    np.testing.assert_array_equal(trace.controller, controller)
    np.testing.assert_array_equal(trace.cycle, cycle)
    np.testing.assert_array_equal(trace.address, address)


def test_default_columns_and_empty_trace(tmp_path):
    path = tmp_path / "d.mzt"
    memzip.write_trace(path, block_mix(4, 32))
    trace = memzip.read_trace(path)
    assert trace.kind.tolist() == [memzip.KIND_WRITE] * 4
    assert trace.cycle.tolist() == [0, 1, 2, 3] and trace.address.tolist() == [0, 32, 64, 96]
    empty = tmp_path / "e.mzt"
    memzip.write_trace(empty, np.zeros((0, 128), np.uint8))
    assert len(memzip.read_trace(empty)) == 0
    assert memzip.read_trace(empty).data.shape == (0, 128)
    assert list(memzip.iter_trace(empty)) == []


def test_trace_counts_equal_the_cli(trace_path, cli_analysis):
    trace = memzip.read_trace(trace_path)
    counts = {name: int((trace.kind == value).sum()) for value, name in enumerate(memzip.KIND_NAMES)}
    cli_trace = cli_analysis["traces"][0]
    assert counts == cli_trace["records"]
    assert counts["write"] + counts["memcpy"] == cli_trace["blocks"]
    assert trace.block_bytes == cli_trace["block_bytes"] == BLOCK_BYTES


@pytest.mark.parametrize("chunk_records", [1, 7, 512, 1500, 100000])
def test_chunks_cover_the_trace(trace_path, chunk_records):
    whole = memzip.read_trace(trace_path)
    chunks = list(memzip.iter_trace(trace_path, chunk_records=chunk_records))
    assert all(len(c) <= chunk_records for c in chunks)
    assert [c.first_record for c in chunks] == list(np.cumsum([0] + [len(c) for c in chunks[:-1]]))
    for column in ["kind", "controller", "cycle", "address", "data"]:
        np.testing.assert_array_equal(np.concatenate([getattr(c, column) for c in chunks]), getattr(whole, column))


def test_missing_trace_is_an_os_error_with_the_cli_message(cli, tmp_path):
    missing = tmp_path / "missing.mzt"
    expected = cli_error(cli("analyze", missing, "--no-shannon"))
    for call in [memzip.read_trace, memzip.iter_trace, memzip.analyze]:
        with pytest.raises(FileNotFoundError) as raised:
            call(missing)
        assert str(raised.value) == expected
    # A directory opens but cannot be read: an OSError, not a TraceError.
    expected = cli_error(cli("analyze", tmp_path, "--no-shannon"))
    for call in [memzip.read_trace, memzip.iter_trace, memzip.analyze]:
        with pytest.raises(IsADirectoryError) as raised:
            call(tmp_path)
        assert str(raised.value) == expected


def corrupt_traces(trace_path, tmp_path):
    whole = trace_path.read_bytes()
    cases = {
        "truncated": whole[: len(whole) // 2],
        "not_zstd": b"MZTRACE\0 plain bytes, no zstd frame",
        "empty": b"",
        "flipped": whole[:100] + bytes([whole[100] ^ 0x10]) + whole[101:],
    }
    for name, content in cases.items():
        path = tmp_path / f"{name}.mzt"
        path.write_bytes(content)
        yield path


def test_corrupt_traces_raise_trace_error_with_the_cli_message(cli, trace_path, tmp_path):
    for path in corrupt_traces(trace_path, tmp_path):
        expected = cli_error(cli("analyze", path, "--codecs", "bdi", "--no-shannon"))
        with pytest.raises(memzip.TraceError) as raised:
            memzip.read_trace(path)
        assert str(raised.value) == expected, path.name
        with pytest.raises(memzip.TraceError) as raised:
            memzip.analyze(path, codecs="bdi")
        assert str(raised.value) == expected, path.name
        with pytest.raises(memzip.TraceError) as raised:
            for _ in memzip.iter_trace(path, chunk_records=100):
                pass
        assert str(raised.value) == expected, path.name
    assert issubclass(memzip.TraceError, ValueError)


def test_write_trace_rejects_bad_columns(tmp_path):
    data = np.zeros((3, 32), np.uint8)
    with pytest.raises(ValueError, match="kind has 2 entries, data has 3 blocks"):
        memzip.write_trace(tmp_path / "x.mzt", data, kind=np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="invalid kind '7'"):
        memzip.write_trace(tmp_path / "x.mzt", data, kind=np.full(3, 7, np.uint8))
    with pytest.raises(ValueError, match="invalid chunk_records '0'"):
        memzip.iter_trace(tmp_path / "x.mzt", chunk_records=0)
    with pytest.raises(FileNotFoundError, match="cannot create trace"):
        memzip.write_trace(tmp_path / "no" / "dir.mzt", data)
