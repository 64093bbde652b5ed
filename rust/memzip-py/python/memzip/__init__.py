"""memzip from Python: the same Rust codecs, traces and analyses as the CLI.

>>> import memzip, numpy as np
>>> codec = memzip.Codec("mag_bdi")
>>> c = codec.compress(bytes(128))
>>> codec.decompress(c) == bytes(128)
True

- ``Codec(spec, block_bytes=128, mag_bytes=32)``: a codec from the registry
  (``codec_names()``), ``compress``/``decompress`` one block, ``sizes`` of many.
- ``read_trace``/``iter_trace``/``write_trace``: ``-memzip_trace`` files as numpy.
- ``analyze``: ``memzip analyze`` as a pandas DataFrame.
- ``load_runs``: simulator run directories (``memzip table``) as a DataFrame.

Errors: ``ValueError`` for a bad spec or option, ``OSError`` for a file that
cannot be opened, ``TraceError`` (a ``ValueError``) for a corrupt trace, with
the CLI's messages; a Rust panic is a ``RuntimeError``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Optional, Sequence, Union

from ._memzip import (
    DEFAULT_SAMPLE_BLOCKS,
    KIND_MEMCPY,
    KIND_READ,
    KIND_WRITE,
    Codec,
    Compressed,
    Sizes,
    TraceChunk,
    TraceError,
    TraceIter,
    __version__,
    codec_names,
    iter_trace,
    read_trace,
    write_trace,
)
from . import _memzip

__all__ = [
    "Codec",
    "Compressed",
    "DEFAULT_SAMPLE_BLOCKS",
    "KIND_MEMCPY",
    "KIND_NAMES",
    "KIND_READ",
    "KIND_WRITE",
    "Sizes",
    "TraceChunk",
    "TraceError",
    "TraceIter",
    "__version__",
    "analyze",
    "analyze_report",
    "codec_names",
    "iter_trace",
    "load_runs",
    "read_trace",
    "sizes",
    "write_trace",
]

#: Names of the access kinds in a trace's ``kind`` column, by value.
KIND_NAMES = ("read", "write", "memcpy")

PathLike = Union[str, "os.PathLike[str]"]


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> list:
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _frame(rows: list, as_frame: bool) -> Any:
    """A pandas DataFrame of ``rows`` when pandas is installed and wanted."""
    if not as_frame:
        return rows
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def sizes(spec: str, blocks: Any, mag_bytes: int = 32, e2mc_table: Optional[PathLike] = None) -> Sizes:
    """Sizes of the rows of a ``uint8`` array ``(N, block_bytes)`` under a
    fresh codec ``spec`` (block size taken from the array)."""
    codec = Codec(spec, block_bytes=blocks.shape[1], mag_bytes=mag_bytes, e2mc_table=e2mc_table)
    return codec.sizes(blocks)


def analyze_report(
    paths: Union[PathLike, Iterable[PathLike]],
    codecs: Union[None, str, Sequence[str]] = None,
    mag_bytes: int = 32,
    *,
    include_reads: bool = False,
    sample_blocks: int = DEFAULT_SAMPLE_BLOCKS,
    e2mc_table: Optional[PathLike] = None,
    verify: bool = False,
    shannon_bits: Sequence[int] = (),
    chunk_blocks: int = 4096,
    e2mc_offline: bool = False,
    costs: str = "memzip",
    element_format: Optional[str] = None,
) -> dict:
    """``memzip analyze --json`` as a dict: the options and, under
    ``"traces"``, one entry per trace (records by kind, per-codec results,
    Shannon bounds). The arguments are those of :func:`analyze`;
    ``element_format`` (``fp32, bf16, fp16, e4m3, e5m2, int8``) adds each
    trace's tensor bounds under ``"float_bounds"``, as ``--element-format``."""
    if isinstance(codecs, str):
        codecs = [codecs]
    text = _memzip.analyze_json(
        _paths(paths),
        None if codecs is None else list(codecs),
        mag_bytes,
        include_reads,
        sample_blocks,
        None if e2mc_table is None else os.fspath(e2mc_table),
        verify,
        list(shannon_bits),
        chunk_blocks=chunk_blocks,
        e2mc_offline=e2mc_offline,
        costs=costs,
        element_format=element_format,
    )
    return json.loads(text)


def analyze(
    paths: Union[PathLike, Iterable[PathLike]],
    codecs: Union[None, str, Sequence[str]] = None,
    mag_bytes: int = 32,
    *,
    include_reads: bool = False,
    sample_blocks: int = DEFAULT_SAMPLE_BLOCKS,
    e2mc_table: Optional[PathLike] = None,
    verify: bool = False,
    e2mc_offline: bool = False,
    costs: str = "memzip",
    as_frame: bool = True,
) -> Any:
    """Every codec evaluated offline on the blocks of traces: ``memzip
    analyze`` (the same Rust code), one row per (trace, codec).

    ``codecs``: specs (a list, or one comma-separated string as
    ``--codecs``); default every registered codec. Write-backs and copies are
    analysed (``include_reads`` adds reads); online E2MC sampling ends after
    ``sample_blocks`` blocks unless ``e2mc_table`` (a ``memzip e2mc-profile``
    table) is given or ``e2mc_offline`` (each E2MC codec starts from a table
    profiled from the trace itself, the E2MC paper Fig. 9a); ``verify``
    decompresses every block. ``mag_bytes`` may be any power of two down to 1
    (a link: memzip-mgpu's payload traces, with ``include_reads``);
    ``costs="paper004"`` applies the multi-GPU paper's Table III, as
    ``--costs``.

    Columns: ``trace, block_bytes, mag, records_read, records_write,
    records_memcpy`` then the CLI's per-codec fields (``codec, blocks,
    compressed_blocks, compressed_fraction, uncompressed_bits,
    compressed_bits, mag_bytes`` (sum of MAG-rounded sizes),
    ``raw_compression_ratio, effective_compression_ratio,
    mag_size_histogram, encodings, sampling_ended_after_blocks,
    offline_table, verified_blocks``). A pandas DataFrame, or a list of dicts
    when pandas is not installed or ``as_frame`` is false.
    """
    report = analyze_report(
        paths,
        codecs,
        mag_bytes,
        include_reads=include_reads,
        sample_blocks=sample_blocks,
        e2mc_table=e2mc_table,
        verify=verify,
        e2mc_offline=e2mc_offline,
        costs=costs,
    )
    rows = []
    for trace in report["traces"]:
        head = {
            "trace": trace["trace"],
            "block_bytes": trace["block_bytes"],
            "mag": trace["mag_bytes"],
            "records_read": trace["records"]["read"],
            "records_write": trace["records"]["write"],
            "records_memcpy": trace["records"]["memcpy"],
        }
        for result in trace["codecs"]:
            rows.append({**head, **result})
    return _frame(rows, as_frame)


def load_runs(paths: Union[PathLike, Iterable[PathLike]], *, as_frame: bool = True) -> Any:
    """Simulator run directories as one table, as ``memzip table`` shows them.

    Each path is a run directory (with ``stats.json``, ``sim.log`` and
    optionally ``run.json``) or a directory of them (a ``memzip sweep``
    result). Columns: ``program, run, dir, stats_codec, cycles, speedup,
    bus_estimate, activation_bound, estimate, gain_share`` (what the DRAM
    model lets the speedup gain: the bus estimate from the data-bus cycles
    the run saved if nothing else changed, which runs exceed; the activation
    bound from its row activations x tRRD, which holds; the smaller of the
    two, and ``(speedup - 1) / (estimate - 1)``), ``kernel_launches,
    kernel_launches_differ`` (True when the run launched another number of
    kernels than its ``none`` run: other work), ``fetch_latency_cycles,
    dram_full_stalls, reply_latency_cycles, reply_stalls`` (gpgpu-sim's
    whole-run mean memory fetch latency in core cycles, its DRAM-full stalls,
    the mean latency of a reply back to the cores through the interconnect
    and the cycles replies waited to enter it; None when the run did not
    record them), ``saturated_share`` (the share
    of DRAM cycles in kernels that saturate the bus), ``memory_bound`` (the
    program memory-bound on the run's GPU as ``memzip report`` classes it:
    its benchmark manifest's ``BOUND`` or ``BOUND_<GPU>`` in the checkout the
    results are in, else ``MEMZIP_ROOT``'s; a program without one by its own
    ``none`` run; None when neither says), ``dram_bytes,
    dram_percent_of_none, raw_cr, effective_cr, mdc_hit_rate,
    dram_utilization, verify_checked, verify_failures, output_ok, wall_seconds,
    timing_model, simulator, simulator_sources`` (the hash of the sources the run's
    simulator was built from; None before run.json recorded it), ``model_change``
    (what a sweep's run made before a change to memzip's model missed of it,
    the change named as ``memzip report`` lists it; None when it is current or
    has no sweep record), ``gpu`` (the
    GPU simulated: ``gtx580``, the papers' and every run's before the choice,
    ``qv100`` or ``rtx3070``), ``partial_reads, partial_compressed_reads,
    overfetch_bursts, partial_writes, rmw_reads, rmw_read_bursts,
    rmw_read_bytes, raw_fallbacks, refetches, refetch_bursts, merged_reads,
    filled_sectors`` (what a sectored L2's partial requests cost the codec,
    and under ``-memzip_partial_reads fill`` what the L2 took whole:
    ``total.partial`` of stats.json; None in stats without them), then energy
    columns, then ``stored_sizes``: a dict of
    blocks per stored size in bytes at the MAG (write-backs and copies; paper
    002 Fig. 12). Speedup and DRAM traffic are relative to the ``none`` run of
    the same program on the same GPU. A pandas DataFrame, or a list of dicts without pandas
    or ``as_frame``.
    """
    return _frame(_memzip.load_run_rows(_paths(paths)), as_frame)
