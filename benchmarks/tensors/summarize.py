#!/usr/bin/env python3
"""Tables of the tensor corpus's analysis (benchmarks/tensors/analyze.sh):
every codec's raw and effective compression ratio per source, kind and
element format, next to the bounds `memzip analyze --element-format`
reports. Standard library only.

    python3 benchmarks/tensors/summarize.py CORPUS_DIR -o results.md
"""

import argparse
import json
import sys
from pathlib import Path

FORMATS = ["bf16", "fp16", "fp32", "e5m2", "e4m3", "int8"]
KINDS = ["weights", "activations", "kv_cache", "gradients"]
CODEC_ORDER = ["none", "bdi", "mag_bdi", "fpc", "cpack_z", "bpc", "e2mc8", "e2mc16", "adaptive", "fpexp"]


def fail(message):
    print(f"summarize.py: {message}", file=sys.stderr)
    sys.exit(1)


def load(corpus: Path):
    try:
        manifest = json.loads((corpus / "corpus.json").read_text())
    except (OSError, ValueError) as e:
        fail(f"{corpus / 'corpus.json'}: {e}")
    roles = {t["source"]: t.get("role", "") for t in manifest["tensors"]}
    rows = []
    for entry in manifest["traces"]:
        name = Path(entry["trace"]).stem
        path = corpus / "analysis" / f"{name}.json"
        if not path.exists():
            fail(f"{path} missing: run benchmarks/tensors/analyze.sh")
        trace = json.loads(path.read_text())["traces"][0]
        codecs = {c["codec"].split(":")[0]: c for c in trace["codecs"]}
        verify = corpus / "analysis" / f"{name}.verify.json"
        verified = None
        if verify.exists():
            verified = json.loads(verify.read_text())["traces"][0]["codecs"][0]["verified_blocks"]
        rows.append(dict(entry, role=roles.get(entry["source"], ""), codecs=codecs,
                         bounds=trace.get("float_bounds"), verified=verified))
    return manifest, rows


def ratio(c, key):
    value = c.get(key)
    return "-" if value is None else f"{value:.3f}"


def bound_cells(b):
    value = b["value"]["ideal_ratio"]
    cells = [f"{value:.3f}" + ("" if b["value"]["complete"] else "*")]
    e = b.get("exponent")
    if e is None:
        return cells + ["-", "-", "-", "-"]
    return cells + [f"{e['exponent_entropy_bits']:.2f}", f"{e['ideal_ratio']:.3f}", f"{e['ideal_effective_ratio']:.3f}",
                    f"{100 * e['zero_fraction']:.1f}%"]


def format_table(rows, fmt):
    rows = [r for r in rows if r["format"] == fmt]
    rows.sort(key=lambda r: (KINDS.index(r["kind"]), r["role"] != "design", r["source"]))
    codecs = [c for c in CODEC_ORDER if any(c in r["codecs"] for r in rows)]
    head = ["source", "kind", "blocks", "value bound", "H(e)", "exp. bound", "at MAG", "zeros"] + codecs
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + " |"]
    for r in rows:
        source = r["source"] + (" (design)" if r["role"] == "design" else "")
        cells = [source, r["kind"], f"{r['blocks']:,}"] + bound_cells(r["bounds"])
        for c in codecs:
            result = r["codecs"].get(c)
            cells.append("-" if result is None else
                         f"{ratio(result, 'raw_compression_ratio')} / {ratio(result, 'effective_compression_ratio')}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def goal_table(rows):
    """fpexp on bf16 weights against the exponent bound and E2MC8."""
    lines = ["| source | role | blocks | exp. bound | fpexp raw | % of bound | fpexp eff. | e2mc8 raw / eff. "
             "| verified blocks |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    totals = dict(bits=0, fp_bits=0, fp_mag=0)
    for r in sorted((r for r in rows if r["format"] == "bf16" and r["kind"] == "weights"),
                    key=lambda r: (r["role"] != "design", r["source"])):
        e, f, e8 = r["bounds"]["exponent"], r["codecs"]["fpexp"], r["codecs"]["e2mc8"]
        share = 100 * f["raw_compression_ratio"] / e["ideal_ratio"]
        lines.append(f"| {r['source']} | {r['role']} | {r['blocks']:,} | {e['ideal_ratio']:.3f} | "
                     f"{f['raw_compression_ratio']:.3f} | {share:.1f}% | {f['effective_compression_ratio']:.3f} | "
                     f"{ratio(e8, 'raw_compression_ratio')} / {ratio(e8, 'effective_compression_ratio')} | "
                     f"{r['verified'] if r['verified'] is not None else '-'} |")
        if r["role"] != "design":
            totals["bits"] += f["uncompressed_bits"]
            totals["fp_bits"] += f["compressed_bits"]
            totals["fp_mag"] += f["mag_bytes"]
    if totals["bits"]:
        lines.append(f"| all held-out models | held out | | | {totals['bits'] / totals['fp_bits']:.3f} | | "
                     f"{totals['bits'] / 8 / totals['fp_mag']:.3f} | | |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    manifest, rows = load(args.corpus)
    parts = ["# Tensor corpus: measured results",
             "",
             "Written by `benchmarks/tensors/summarize.py` from `benchmarks/tensors/analyze.sh`'s run of "
             "`memzip analyze` (128-byte blocks, 32-byte MAG, E2MC with tables profiled from the trace it codes) "
             "over the corpus `scripts/tensor-corpus.sh` builds; see README.md beside this file.",
             "",
             "## fpexp on bf16 weights",
             "",
             goal_table(rows)]
    for fmt in FORMATS:
        parts += ["", f"## {fmt}", "",
                  "Cells are raw CR / effective CR. value bound: w / H(whole value) (* first blocks only: "
                  "distinct-value cap); exp. bound: w / (H(e) + 1 + mantissa bits); at MAG: that block size "
                  "rounded up to whole bursts.",
                  "", format_table(rows, fmt)]
    args.output.write_text("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
