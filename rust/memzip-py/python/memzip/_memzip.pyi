"""Type hints of the Rust extension module (``memzip._memzip``)."""

import os
from typing import Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, "os.PathLike[str]"]
_Buffer = Union[bytes, bytearray, memoryview, npt.NDArray[np.uint8]]

__version__: str
DEFAULT_SAMPLE_BLOCKS: int
KIND_READ: int
KIND_WRITE: int
KIND_MEMCPY: int

class TraceError(ValueError):
    """A memzip trace that is corrupt, truncated or not a trace at all."""

def codec_names() -> List[str]:
    """The codec names the registry knows, in ``memzip analyze`` order."""

class Compressed:
    """One block as stored in DRAM."""

    encoding: int
    compressed_bits: int
    mag_bytes: int
    burst_count: int
    compress_cycles: int
    decompress_cycles: int
    def __init__(
        self,
        encoding: int,
        payload: bytes,
        compressed_bits: int,
        mag_bytes: int = 0,
        burst_count: int = 0,
        compress_cycles: int = 0,
        decompress_cycles: int = 0,
    ) -> None: ...
    @property
    def payload(self) -> bytes: ...
    @property
    def latency(self) -> Tuple[int, int]:
        """``(compress_cycles, decompress_cycles)``."""
    @property
    def is_compressed(self) -> bool: ...

class Sizes:
    """Per-block results of ``Codec.sizes``."""

    compressed_bits: npt.NDArray[np.uint32]
    mag_bytes: npt.NDArray[np.uint32]
    burst_count: npt.NDArray[np.uint32]
    encoding: npt.NDArray[np.uint8]
    def __len__(self) -> int: ...

class Codec:
    """A memzip codec built from a ``-memzip_codec`` spec string.

    ``mag_bytes`` is the unit sizes round to: the MAG for DRAM (16, 32, 64), any power of two down
    to 1 for a link. ``costs="paper004"`` gives latencies the spec leaves unset the multi-GPU
    paper's Table III figures (and FPC its prefix table), as memzip-mgpu does."""

    def __init__(
        self,
        spec: str,
        block_bytes: int = 128,
        mag_bytes: int = 32,
        e2mc_table: Optional[_Path] = None,
        costs: str = "memzip",
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def block_bytes(self) -> int: ...
    @property
    def mag_bytes(self) -> int: ...
    @property
    def encoding_names(self) -> List[str]: ...
    @property
    def metadata_bits(self) -> int: ...
    @property
    def latency(self) -> Tuple[int, int]: ...
    def compress(self, block: _Buffer) -> Compressed:
        """Compresses one block of ``block_bytes`` bytes."""
    def decompress(self, compressed: Compressed) -> bytes:
        """Decodes a stored block; ``ValueError`` when it is corrupt."""
    def end_sampling(self) -> None:
        """Ends E2MC's online sampling phase (builds its code table)."""
    def sizes(self, blocks: npt.NDArray[np.uint8]) -> Sizes:
        """Compresses every row of ``(N, block_bytes)`` ``uint8`` blocks, in order."""

class TraceChunk:
    """Consecutive records of a trace as numpy arrays."""

    kind: npt.NDArray[np.uint8]
    controller: npt.NDArray[np.uint32]
    cycle: npt.NDArray[np.uint64]
    address: npt.NDArray[np.uint64]
    data: npt.NDArray[np.uint8]
    first_record: int
    block_bytes: int
    def __len__(self) -> int: ...

class TraceIter(Iterator[TraceChunk]):
    block_bytes: int
    def __iter__(self) -> "TraceIter": ...
    def __next__(self) -> TraceChunk: ...

def read_trace(path: _Path) -> TraceChunk:
    """A whole ``-memzip_trace`` file as numpy arrays."""

def iter_trace(path: _Path, chunk_records: int = 65536) -> TraceIter:
    """A trace in chunks of at most ``chunk_records`` records."""

def write_trace(
    path: _Path,
    data: npt.NDArray[np.uint8],
    kind: Optional[npt.NDArray[np.uint8]] = None,
    controller: Optional[npt.NDArray[np.uint32]] = None,
    cycle: Optional[npt.NDArray[np.uint64]] = None,
    address: Optional[npt.NDArray[np.uint64]] = None,
    level: int = 3,
) -> int:
    """Writes a trace in the simulator's format; returns the records written."""

def analyze_json(
    paths: Sequence[str],
    codecs: Optional[Sequence[str]] = None,
    mag_bytes: int = 32,
    include_reads: bool = False,
    sample_blocks: int = ...,
    e2mc_table: Optional[str] = None,
    verify: bool = False,
    shannon_bits: Sequence[int] = ...,
    shannon_max_distinct: int = ...,
    chunk_blocks: int = ...,
    e2mc_offline: bool = False,
    costs: str = "memzip",
) -> str: ...
def load_run_rows(paths: Sequence[str]) -> List[dict]: ...
