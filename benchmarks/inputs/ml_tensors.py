#!/usr/bin/env python3
"""Inputs and host reference answers of the `ml` suite (benchmarks/ml/*.env,
programs in benchmarks/kernels/ml/), cut from the tensor corpus of issue 51
(scripts/tensor-corpus.sh, benchmarks/tensors/README.md): real trained tensors,
none drawn at random.

    ml_tensors.py make PROGRAM [--rows R] [--heads H] [--tokens T] [--repeat N]
                       [--m M] [--n N] [--k K] [--params P] --out DIR
    ml_tensors.py check PROGRAM DIR OUTPUT_FILE

PROGRAM and its data (bf16 = round to nearest even from the corpus's fp32,
the corpus's own bf16 traces):
  llm_decode_gemv       W: the weight matrices of ddddocr-common (held out),
                        each viewed as [rows, inputs] = [prod(shape[:-1]),
                        shape[-1]]: the 8210 x 1024 output projection "135"
                        and the two bidirectional LSTM tensors "498", "499"
                        (2 x 2048 x 512 each, as 4096 x 512), the first R rows
                        of each (--rows, 0: all); x: the digits transformer's
                        residual stream, consecutive slices of each matrix's K.
  llm_attention_decode  K, V: the digits transformer's key and value caches,
                        each of its 8 (layer, head) pairs as one sequence of the
                        360 test images' 16 tokens one after another (5760
                        tokens), the first T tokens (--tokens) of the first H
                        pairs (--heads, cycling through the 8 when H > 8);
                        q: the key of the sequence's last token (the decode
                        token's own key is in the cache; its query is not in
                        the corpus, and a key has the same scale).
  rmsnorm               x: the residual stream (rows of d_model = 64), the
                        two layers' one after another, repeated N times
                        (--repeat), the first R rows (--rows, 0: all); gamma: layer 1's trained norm2 gain.
  gemm_tile             X: M rows of the post-ReLU MLP activations (K = 256:
                        the MLP's width; --k crops); W: the first N rows
                        of ddddocr-common's "135", cropped to K columns.
  train_step            w: ddddocr-common's first P fp32 weights; gradients:
                        the digits transformer's gradient tensors (bf16)
                        one after another, cycled; two Adam steps on the host
                        (gradient slices 0 and 1) make m and v dense, the
                        program runs step 3 (slice 2). lr 1e-3, betas 0.9 /
                        0.999, eps 1e-8 (the digits model's own Adam).

make writes the program's input files and reference.bin (the answer, in the
program's output layout) into DIR. The references repeat the kernels' fp32
operation order (see the .cu files), so check compares exactly, except
llm_attention_decode (expf on the GPU is within 2 ulp, not correctly rounded:
its reference is computed in float64 and each output must be within 1e-4 of
the head's largest |value|). Deterministic: same corpus, same bytes.

The corpus is found at $MEMZIP_CACHE/tensors (default ~/.cache/memzip); when
it is not built, make stops with one line naming scripts/tensor-corpus.sh.
Runs under the corpus's own Python (numpy, zstandard), started here if the
calling Python lacks them.
"""
import argparse
import json
import os
import sys
from pathlib import Path

CACHE = Path(os.environ.get("MEMZIP_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memzip")
CORPUS = CACHE / "tensors"
VENV_PYTHON = CACHE / "tensors-venv" / "bin" / "python"
PROGRAMS = ["llm_decode_gemv", "llm_attention_decode", "rmsnorm", "gemm_tile", "train_step"]


def fail(message):
    print(f"ml_tensors.py: {message}", file=sys.stderr)
    sys.exit(1)


def need_corpus():
    if not (CORPUS / "corpus.json").is_file():
        fail(f"the tensor corpus is not built ({CORPUS}/corpus.json missing): run bash scripts/tensor-corpus.sh")


try:
    import numpy as np
    import zstandard
except ImportError:
    # The corpus's venv has both; system Pythons often have neither.
    if VENV_PYTHON.is_file() and not os.environ.get("ML_TENSORS_IN_VENV"):
        os.environ["ML_TENSORS_IN_VENV"] = "1"  # once: a venv without them must not loop
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
    need_corpus()
    fail(f"numpy and zstandard are needed: run bash scripts/tensor-corpus.sh (it makes {VENV_PYTHON})")

F32 = np.float32
TRACE_HEADER = 14  # "MZTRACE\0", version u16, block bytes u32
RECORD_HEAD = 5


class Corpus:
    def __init__(self):
        need_corpus()
        self.manifest = json.loads((CORPUS / "corpus.json").read_text())
        self.blocks = {}

    def _trace_blocks(self, trace):
        if trace not in self.blocks:
            raw = zstandard.ZstdDecompressor().stream_reader(open(CORPUS / trace, "rb")).read()
            block = self.manifest["block_bytes"]
            records = np.frombuffer(raw, dtype=np.uint8, offset=TRACE_HEADER).reshape(-1, RECORD_HEAD + block)
            self.blocks[trace] = records[:, RECORD_HEAD:]
        return self.blocks[trace]

    def tensors(self, source, kind, fmt):
        """(name, shape, array) in corpus order; bf16 as uint16 bits."""
        dtype = {"bf16": np.uint16, "fp32": np.float32}[fmt]
        found = []
        for entry in self.manifest["tensors"]:
            if (entry["source"], entry["kind"], entry["format"]) != (source, kind, fmt):
                continue
            blocks = self._trace_blocks(entry["trace"])[entry["first_block"]:entry["first_block"] + entry["blocks"]]
            values = np.frombuffer(blocks.tobytes(), dtype=dtype)[: entry["elements"]]
            found.append((entry["tensor"], entry["shape"], values.reshape(entry["shape"])))
        if not found:
            fail(f"corpus.json has no {source} {kind} tensors in {fmt}")
        return found

    def stream(self, source, kind, fmt, names=lambda name: True):
        return np.concatenate([a.ravel() for name, _, a in self.tensors(source, kind, fmt) if names(name)])


def to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(F32)


def to_bf16(values):
    """Round to nearest even, as the kernels' float_to_bf16 (finite values)."""
    u = np.ascontiguousarray(values, dtype=F32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def cycled(values, count, start=0):
    index = (start + np.arange(count)) % len(values)
    return values[index]


def write(out, files, dims=None):
    out.mkdir(parents=True, exist_ok=True)
    for name, array in files.items():
        (out / name).write_bytes(np.ascontiguousarray(array).tobytes())
    if dims:
        (out / "dims.txt").write_text("".join(f"{k} {v}\n" for k, v in dims.items()))


def butterfly(lanes):
    """The warp's xor-shuffle sum (offsets 16..1) of per-lane fp32 sums [.., 32]."""
    for offset in (16, 8, 4, 2, 1):
        lanes = lanes + lanes[..., np.arange(32) ^ offset]
    return lanes[..., 0]


# ---- llm_decode_gemv
def gemv_matrices(corpus, rows):
    mats = []
    for name, shape, bits in corpus.tensors("ddddocr-common", "weights", "bf16"):
        # Linear and LSTM weights (2-D, 3-D) whose input width suits 16-byte
        # loads; biases (fewer than 64 rows) are not matrices.
        view = bits.reshape(-1, shape[-1])
        if len(shape) in (2, 3) and shape[-1] % 8 == 0 and view.shape[0] >= 64:
            mats.append((name, view[:rows] if rows else view))
    return mats


def gemv_reference(w_bits, x_bits):
    w, x = to_f32(w_bits), to_f32(x_bits)
    n, k = w.shape
    chunks = k // 8
    lanes = np.zeros((n, 32), dtype=F32)
    for step in range((chunks + 31) // 32):
        for lane in range(32):
            chunk = lane + 32 * step
            if chunk >= chunks:
                break
            for j in range(8):
                col = chunk * 8 + j
                lanes[:, lane] = lanes[:, lane] + w[:, col] * x[col]
    return to_bf16(butterfly(lanes))


def make_gemv(corpus, args, out):
    residual = corpus.stream("digits-transformer", "activations", "bf16", lambda n: "residual" in n)
    dims, weights, xs, reference = {}, [], [], []
    at = 0
    mats = gemv_matrices(corpus, args.rows)
    dims["layers"] = len(mats)
    for i, (name, w) in enumerate(mats):
        x = cycled(residual, w.shape[1], at)
        at += w.shape[1]
        dims[f"rows{i}"], dims[f"cols{i}"] = w.shape
        weights.append(w.ravel())
        xs.append(x)
        reference.append(gemv_reference(w, x))
        print(f"  layer {i}: ddddocr-common '{name}' {w.shape[0]} x {w.shape[1]}", file=sys.stderr)
    write(out, {"weights.bin": np.concatenate(weights), "x.bin": np.concatenate(xs),
                "reference.bin": np.concatenate(reference)}, dims)


# ---- llm_attention_decode
def make_attention(corpus, args, out):
    caches = {}
    for kind in ("key_cache", "value_cache"):
        per_layer = [a for name, _, a in corpus.tensors("digits-transformer", "kv_cache", "bf16") if kind in name]
        # [images, heads, tokens, dim] -> one sequence per (layer, head)
        seqs = [a.transpose(1, 0, 2, 3).reshape(a.shape[1], -1, a.shape[3]) for a in per_layer]
        caches[kind] = np.concatenate(seqs)  # [layers * heads, 5760, 16]
    pairs, total_tokens, dim = caches["key_cache"].shape
    if not 1 <= args.tokens <= total_tokens:
        fail(f"--tokens {args.tokens}: the corpus's sequences hold 1..{total_tokens} tokens")
    pick = np.arange(args.heads) % pairs
    k = caches["key_cache"][pick, : args.tokens]
    v = caches["value_cache"][pick, : args.tokens]
    q = k[:, -1, :]
    qf, kf, vf = (to_f32(a).astype(np.float64) for a in (q, k, v))
    scores = np.einsum("hd,htd->ht", qf, kf) * 0.25
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    reference = np.einsum("ht,htd->hd", p, vf) / p.sum(axis=1, keepdims=True)
    scale = np.abs(vf).max(axis=(1, 2))
    write(out, {"q.bin": q, "k.bin": k, "v.bin": v, "reference.bin": reference.astype(np.float64),
                "tolerance.bin": (1e-4 * scale).astype(np.float64)},
          {"heads": args.heads, "tokens": args.tokens, "dim": dim})


# ---- rmsnorm
def rmsnorm_reference(x_bits, gamma_bits):
    x, g = to_f32(x_bits), to_f32(gamma_bits)
    rows, width = x.shape
    lanes = np.zeros((rows, 32), dtype=F32)
    for p in range(width // 2):
        lane = p % 32
        a, b = x[:, 2 * p], x[:, 2 * p + 1]
        lanes[:, lane] = lanes[:, lane] + a * a
        lanes[:, lane] = lanes[:, lane] + b * b
    squares = butterfly(lanes)
    inv_rms = F32(1.0) / np.sqrt(squares / F32(width) + F32(1e-6))
    return to_bf16((x * inv_rms[:, None]) * g[None, :])


def make_rmsnorm(corpus, args, out):
    residual = [a for name, _, a in corpus.tensors("digits-transformer", "activations", "bf16") if "residual" in name]
    width = residual[0].shape[-1]
    x = np.concatenate([a.reshape(-1, width) for a in residual] * args.repeat)
    x = x[: args.rows] if args.rows else x
    gammas = {name: a for name, _, a in corpus.tensors("digits-transformer", "weights", "bf16")}
    gamma = gammas["layer1.norm2"]
    write(out, {"x.bin": x, "gamma.bin": gamma, "reference.bin": rmsnorm_reference(x, gamma)},
          {"rows": x.shape[0], "width": width})


# ---- gemm_tile
def make_gemm(corpus, args, out):
    hidden = corpus.stream("digits-transformer", "activations", "bf16", lambda n: "mlp_hidden" in n)
    width = 256
    x = hidden.reshape(-1, width)[: args.m, : args.k]
    if x.shape[0] < args.m:
        fail(f"--m {args.m}: the corpus has {hidden.size // width} activation rows")
    w = dict((n, a) for n, _, a in corpus.tensors("ddddocr-common", "weights", "bf16"))["135"][: args.n, : args.k]
    xf, wf = to_f32(x), to_f32(w)
    acc = np.zeros((args.m, args.n), dtype=F32)
    for kk in range(args.k):
        acc = acc + xf[:, kk, None] * wf[None, :, kk]
    write(out, {"x.bin": x, "w.bin": w, "reference.bin": to_bf16(acc)}, {"m": args.m, "n": args.n, "k": args.k})


# ---- train_step
def adam(h, w, m, v, g):
    m = h["beta1"] * m + h["one_minus_beta1"] * g
    v = h["beta2"] * v + h["one_minus_beta2"] * (g * g)
    step = h["lr"] * (m * h["correct1"]) / (np.sqrt(v * h["correct2"]) + h["eps"])
    return w - step, m, v


def hyper(t):
    b1, b2 = 0.9, 0.999
    return {"lr": F32(1e-3), "beta1": F32(b1), "one_minus_beta1": F32(1 - b1), "beta2": F32(b2),
            "one_minus_beta2": F32(1 - b2), "eps": F32(1e-8), "correct1": F32(1 / (1 - b1**t)),
            "correct2": F32(1 / (1 - b2**t))}


def make_train(corpus, args, out):
    p = args.params
    weights = corpus.stream("ddddocr-common", "weights", "fp32")
    if p > weights.size:
        fail(f"--params {p}: ddddocr-common has {weights.size} weights")
    grad_bits = corpus.stream("digits-transformer", "gradients", "bf16")
    grads = to_f32(grad_bits)
    w, m, v = weights[:p].astype(F32), np.zeros(p, F32), np.zeros(p, F32)
    for t in (1, 2):
        w, m, v = adam(hyper(t), w, m, v, cycled(grads, p, (t - 1) * p))
    g_bits = cycled(grad_bits, p, 2 * p)
    h = hyper(3)
    w3, m3, v3 = adam(h, w, m, v, to_f32(g_bits))
    reference = np.concatenate([w3, m3, v3]).tobytes() + to_bf16(w3).tobytes()
    write(out, {"w.bin": w, "m.bin": m, "v.bin": v, "g.bin": g_bits,
                "hyper.bin": np.array(list(h.values()), dtype=F32)}, {"params": p})
    (out / "reference.bin").write_bytes(reference)


MAKERS = {"llm_decode_gemv": make_gemv, "llm_attention_decode": make_attention, "rmsnorm": make_rmsnorm,
          "gemm_tile": make_gemm, "train_step": make_train}


def check(program, data, output):
    reference = (data / "reference.bin").read_bytes()
    got = output.read_bytes() if output.is_file() else b""
    if program == "llm_attention_decode":
        check_attention(data, np.frombuffer(reference, np.float64), got)
        return
    if len(got) != len(reference):
        fail(f"{output}: {len(got)} bytes, the reference has {len(reference)}")
    differ = np.count_nonzero(np.frombuffer(got, np.uint8) != np.frombuffer(reference, np.uint8))
    if differ:
        fail(f"{program}: {differ} of {len(got)} output bytes differ from the host reference")
    print(f"{program}: all {len(got)} output bytes equal the host reference")


def check_attention(data, ref, got):
    if len(got) != 4 * len(ref):
        fail(f"llm_attention_decode: {len(got) // 4} outputs, the reference has {len(ref)}")
    out = np.frombuffer(got, np.float32).astype(np.float64)
    tol = np.repeat(np.fromfile(data / "tolerance.bin", np.float64), 16)
    err = np.abs(out - ref)
    bad = np.count_nonzero(~(err <= tol))
    if bad:
        fail(f"llm_attention_decode: {bad} of {len(ref)} outputs off the float64 reference by more than "
             "1e-4 of the head's largest |v|")
    print(f"llm_attention_decode: all {len(ref)} outputs of {len(ref) // 16} heads within 1e-4 of the head's "
          f"largest |v| of the float64 reference (largest error {err.max():.2e}, "
          f"{float((err / tol).max()):.3f} of the tolerance)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make")
    make.add_argument("program", choices=PROGRAMS)
    make.add_argument("--out", type=Path, required=True)
    for flag, default in (("--rows", 0), ("--heads", 8), ("--tokens", 5760), ("--repeat", 1), ("--m", 64),
                          ("--n", 64), ("--k", 256), ("--params", 1 << 20)):
        make.add_argument(flag, type=int, default=default)
    chk = sub.add_parser("check")
    chk.add_argument("program", choices=PROGRAMS)
    chk.add_argument("data", type=Path)
    chk.add_argument("output", type=Path)
    args = parser.parse_args()
    if args.command == "make":
        MAKERS[args.program](Corpus(), args, args.out)
    else:
        check(args.program, args.data, args.output)


if __name__ == "__main__":
    main()
