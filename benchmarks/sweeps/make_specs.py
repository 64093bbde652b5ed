#!/usr/bin/env python3
"""Writes the study's sweep specs (benchmarks/sweeps/*.json) from the lists below.

    python3 benchmarks/sweeps/make_specs.py     # rewrites the specs next to this file

The specs are committed; edit a list here and rerun rather than editing the JSON by hand, so the
specs stay consistent (the same benchmarks, the same option lines). What each spec reproduces,
the DRAM-atom arithmetic of the MAG sweep and the commands: README.md next to this file.

Run ids are `<name>-<preset>-<codec>` (rust/memzip-study/src/sweep/grid.rs), where `<codec>` is the codec
string with `:`, `=`, `,`, `+` turned into `_`. Variants that only a codec knob can tell apart
(E2MC sampling, PDW, MFV, MAG-aware BDI's bases) are written as codec knobs
(`e2mc16:sampling=offline,pdw=2`): their run ids differ and `memzip report`, which keys its series
by run.json's codec, draws them as separate series. The simulator flags override the same knobs
(rust/memzip-ffi/src/options.rs), so `-memzip_e2mc_sampling offline:auto` still decides where the
table comes from. Variants that change controller or DRAM options (metadata cache, latencies)
get an entry `name` of `<benchmark>.<variant>`, so their ids say what they vary.
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFESTS = HERE.parent  # benchmarks/<suite>/<name>.env
PRESET = "study"
VERIFY = "-memzip_verify 1"

# Every benchmark of the study: the papers' (the E2MC paper Table VII, the MAG-aware paper Table V) that memzip
# has, plus the other Rodinia programs memzip runs. MARS PVC/PVR have no public source; heartwall
# runs at reduced template and search sizes (its manifest). Listed cheapest `none` run first: the
# study's none runs go first (they measure each `study` preset: cycles, DRAM utilisation, time).
STUDY = [
    "rodinia/gaussian", "rodinia/hotspot", "cuda-samples/fastWalshTransform", "rodinia/srad_v2",
    "cuda-samples/transpose", "rodinia/nw", "cuda-samples/scan", "cuda-samples/convolutionSeparable",
    "parboil/spmv", "shoc/spmv", "rodinia/kmeans", "parboil/lbm", "ispass-2009/MUM",
    "ispass-2009/LIB", "lonestar/sssp", "rodinia/bfs", "lonestar/bfs", "rodinia/backprop",
    "rodinia/lud", "rodinia/pathfinder", "lonestar/mst", "rodinia/mummergpu", "rodinia/heartwall",
]

# The grid after the none runs: E2MC (online and offline) on the graph benchmarks first (the
# benchmark issue's check that both compress at `study`), then every benchmark's codecs, the
# memory-bound ones (their manifests' BOUND) first.
E2MC_FIRST = ["rodinia/bfs", "lonestar/bfs", "lonestar/sssp"]

# The memory-bound set of the sensitivity sweeps, from the study's `none` runs: every benchmark
# whose manifest says BOUND=memory (DRAM bandwidth utilisation >= 0.4, measured at `study`) and
# whose blocks compress. scan (0.80) and srad_v2 (0.58) are memory-bound but store random input:
# every codec's effective CR on their traces is 1.00-1.003 (`memzip analyze` of their none runs,
# benchmarks/results/study/report), so no knob of a sweep can change their runs.
INCOMPRESSIBLE = ["cuda-samples/scan", "rodinia/srad_v2"]


def memory_bound():
    return [b for b in STUDY if bound(b) == "memory" and b not in INCOMPRESSIBLE]


# The one benchmark of the latency sweep (the E2MC paper Fig. 5): the most bus-bound (0.81), with blocks
# that compress under both codecs of the sweep (effective CR 3.84 mag_bdi, 3.56 E2MC16 offline),
# and DRAM traffic that does not depend on timing (blocks read within 0.5% across the study's
# codecs). transpose, the first choice, reads and writes back up to 10% more blocks when only the
# latencies change (L2 evictions follow the warps' timing), which swamps the latency's own effect.
LATENCY_BENCHMARK = "parboil/lbm"

# E2MC's online window: each controller samples its first N stored blocks (write-backs and
# host-to-device copies), stored uncompressed meanwhile. The E2MC paper samples the first 20M
# instructions GPU-wide (§III-B2b, Fig. 4b) and gives no share of the traffic, so the window
# cannot be translated; 2048 blocks = 256 KB per controller, 1.5 MB over the 6 controllers
# (2x the 768 KB L2). README.md discusses the choice.
ONLINE = "-memzip_e2mc_sampling online:blocks=2048"
OFFLINE = "-memzip_e2mc_sampling offline:auto"

E2MC16_ONLINE = "e2mc16:sampling=online"
E2MC16_OFFLINE = "e2mc16:sampling=offline"

# Default latencies (DRAM-controller cycles at 1002 MHz; sources in rust/memzip/src/codec/*.rs):
# E2MC16 compresses in 46 and decompresses in ceil(82 / PDW) = 21 at the default PDW 4;
# MAG-aware BDI 1 / 1.
LATENCY_DEFAULTS = {E2MC16_OFFLINE: (46, 21), "mag_bdi": (1, 1)}

# DRAM atom = MAG (benchmarks/sweeps/README.md "MAG sweep: the DRAM atom"). 32 B is the GTX580-MAG32 config as is.
DRAM_FOR_MAG = {
    16: [
        "-gpgpu_n_mem_per_ctrlr 1",
        "-gpgpu_dram_buswidth 2",
        "-gpgpu_dram_burst_length 8",
        "-dram_data_command_freq_ratio 4",
        "-gpgpu_clock_domains 822.0:822.0:822.0:4008.0",
        "-gpgpu_dram_timing_opt nbk=16:CCD=2:RRD=24:RCD=48:RAS=112:RP=48:RC=160:CL=48:WL=16:CDLR=20:WR=48:nbkgrp=4:CCDL=3:RTPL=2",
        "-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCCCSSSS",
    ],
    32: [],
    64: [
        "-gpgpu_n_mem_per_ctrlr 2",
        "-gpgpu_dram_buswidth 4",
        "-gpgpu_dram_burst_length 8",
        "-dram_data_command_freq_ratio 4",
        "-gpgpu_clock_domains 822.0:822.0:822.0:1002.0",
        "-gpgpu_dram_timing_opt nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2",
        "-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS",
    ],
}


def entry(benchmark, codecs, options, name=None, preset=PRESET):
    e = {"benchmark": benchmark, "presets": [preset], "codecs": codecs, "option_sets": [options]}
    if name:
        e["name"] = name
    return e


def id_prefix(benchmark):
    return benchmark.replace("/", "-")


def manifest_words(benchmark, key):
    """The words of the manifest's `key=` line (unquoted), or [] without one."""
    for line in (MANIFESTS / f"{benchmark}.env").read_text().splitlines():
        if line.startswith(f"{key}="):
            return line.partition("=")[2].strip("\"'").split()
    return []


def bound(benchmark, key="BOUND"):
    """The manifest's BOUND class (memory, latency, compute, pending); `key` BOUND_QV100 for
    the QV100's."""
    return (manifest_words(benchmark, key) or ["pending"])[0]


def on_gpu(gpu, runs):
    """The runs with the spec's `gpus` axis set to `gpu` (None: the GTX580, no axis)."""
    for r in runs:
        if gpu:
            r["gpus"] = [gpu]
    return runs


# A none run with the block trace: every codec's CR offline (`memzip analyze`) and the offline
# E2MC tables of later runs of the same input come from it.
TRACE = "-memzip_trace trace.zst"


def none_traced(benchmark, preset=PRESET, extra=()):
    return entry(benchmark, ["none"], [VERIFY, *extra, TRACE], preset=preset)


# The most expensive none runs of programs expected not to be bandwidth-bound (lud, pathfinder,
# mst: 5-10 CPU-minutes each; measured since: latency 0.02, compute 0.39, latency 0.06) wait until
# the memory-bound benchmarks' grid is done: a session's simulation time goes to the figures that
# matter first. (mummergpu was one of them until its none run measured it memory-bound, 0.53.)
LATE_NONE = ["rodinia/lud", "rodinia/pathfinder", "lonestar/mst"]


def study():
    # The none runs also write the block trace for `memzip analyze` (every codec's CR) and
    # seed the offline E2MC tables (`memzip bench run`).
    def none(b):
        return none_traced(b)

    def e2mc(b):
        return [entry(b, [E2MC16_ONLINE], [VERIFY, ONLINE]), entry(b, [E2MC16_OFFLINE], [VERIFY, OFFLINE])]

    def codecs(b):
        runs = [entry(b, ["bdi", "mag_bdi", "fpc", "cpack_z", "adaptive"], [VERIFY])]
        return runs + ([] if b in E2MC_FIRST else e2mc(b))

    runs = [none(b) for b in STUDY if b not in LATE_NONE]
    for b in E2MC_FIRST:
        runs += e2mc(b)
    # Memory-bound first, those whose blocks compress before the two that store random input
    # (their codec runs can only confirm that nothing changes).
    memory = [b for b in STUDY if bound(b) == "memory" and b not in INCOMPRESSIBLE]
    memory += [b for b in STUDY if bound(b) == "memory" and b in INCOMPRESSIBLE]
    for b in memory:
        runs += codecs(b)
    runs += [none(b) for b in LATE_NONE]
    for b in STUDY:
        if b not in memory:
            runs += codecs(b)
    return runs


def sens_mag(mag):
    options = [VERIFY] + DRAM_FOR_MAG[mag] + ([f"-memzip_mag_bytes {mag}"] if mag != 32 else [])
    return [entry(b, ["none", "bdi", "mag_bdi"], options) for b in memory_bound()]


# Each sensitivity sweep's default point is written exactly as the study's run of that
# configuration (codec string and option lines), named `<benchmark>.<variant>`: `memzip sweep
# --reuse benchmarks/results/study` then copies the study's run instead of simulating it again, and
# `memzip report` labels it `<codec> [<variant>]` (the variant from the run's sweep.json).
DEFAULT_PDW = 4  # rust/memzip/src/codec/e2mc/mod.rs DEFAULT_PDW
DEFAULT_MDC_KB = 16  # rust/memzip/src/mc/metadata_cache.rs: 16 KB, 4-way


def sens_pdw():
    runs = []
    for b in memory_bound():
        runs.append(entry(b, ["none"], [VERIFY]))
        # The E2MC paper Fig. 10 (CR) and Fig. 12b/c (speedup): PDW 1..8, offline and online tables.
        for codec, line in ((E2MC16_OFFLINE, OFFLINE), (E2MC16_ONLINE, ONLINE)):
            runs.append(entry(b, [f"{codec},pdw=1", f"{codec},pdw=2"], [VERIFY, line]))
            runs.append(entry(b, [codec], [VERIFY, line], name=f"{id_prefix(b)}.pdw{DEFAULT_PDW}"))
            runs.append(entry(b, [f"{codec},pdw=8"], [VERIFY, line]))
    # No timing runs of the MFV table sizes: the E2MC paper measures them for the CR only (Fig. 4a),
    # which the `e2mc16-mfv` analysis (analyses/sensitivity.json) gives from every none run's trace, and their CRs
    # differ by less than 1% (geomean at MAG, 512 to 4K MFVs), below the timing noise floor of
    # noise.json (up to 2.5%): a simulation could not tell them apart.
    return runs


def sens_mdc():
    runs = []
    for b in memory_bound():
        runs.append(entry(b, ["none"], [VERIFY]))
        for kb in (4, 8, 16, 32):
            size = [] if kb == DEFAULT_MDC_KB else [f"-memzip_mdc_bytes {kb * 1024}"]
            runs.append(entry(b, ["mag_bdi"], [VERIFY] + size, name=f"{id_prefix(b)}.mdc{kb}k"))
    return runs


def sens_latency():
    b = LATENCY_BENCHMARK
    runs = [entry(b, ["none"], [VERIFY])]
    for codec, (comp, decomp) in LATENCY_DEFAULTS.items():
        extra = [OFFLINE] if "e2mc" in codec else []
        variants = {
            "lat1x": [],
            "comp0x": ["-memzip_comp_latency 0"],
            "comp2x": [f"-memzip_comp_latency {2 * comp}"],
            "decomp0x": ["-memzip_decomp_latency 0"],
            "decomp2x": [f"-memzip_decomp_latency {2 * decomp}"],
            "lat0x": ["-memzip_comp_latency 0", "-memzip_decomp_latency 0"],
            "lat2x": [f"-memzip_comp_latency {2 * comp}", f"-memzip_decomp_latency {2 * decomp}"],
        }
        for variant, lines in variants.items():
            runs.append(entry(b, [codec], [VERIFY] + extra + lines, name=f"{id_prefix(b)}.{variant}"))
    return runs


# The timing noise floor: each memory-bound benchmark's none run with one more cycle of DRAM
# latency (gpgpu-sim's -dram_latency, 100 in GTX580-MAG32). No codec is involved, so the change in
# cycles and in blocks read is how far a benchmark moves when only its timing moves; a codec's
# speedup within that band is not the codec's.
NOISE_DRAM_LATENCY = 101


def noise_entry(b):
    return entry(b, ["none"], [VERIFY, f"-dram_latency {NOISE_DRAM_LATENCY}"],
                 name=f"{id_prefix(b)}.dramlat{NOISE_DRAM_LATENCY}")


# The programs that are not memory-bound but that codecs move by 1-3% (reproduction.md §V-D): nw
# runs faster under every codec, SHOC spmv and LIB slower with the decompression latency. Their
# own noise runs tell whether that is the codecs' doing.
NOISE_NOT_MEMORY_BOUND = ["rodinia/nw", "shoc/spmv", "ispass-2009/LIB"]


def noise():
    return [noise_entry(b) for b in memory_bound() + NOISE_NOT_MEMORY_BOUND]


# The write-delay check: on the memory-bound benchmarks whose blocks do not compress, every codec
# still ran faster than none (0.4-1.2%). Each one's none run with one more DRAM cycle (their noise)
# and bdi with no compression or decompression latency (bdi's 1-cycle compression of every write
# is then all that is left of the codec's timing, with the 1-cycle metadata lookup of every read)
# tell whether that is noise or the delay memzip gives to writes.
def write_delay():
    runs = []
    for b in INCOMPRESSIBLE:
        runs.append(noise_entry(b))
        runs.append(entry(b, ["bdi"], [VERIFY, "-memzip_comp_latency 0", "-memzip_decomp_latency 0"],
                          name=f"{id_prefix(b)}.lat0x"))
    return runs


def sens_bases():
    return [entry(b, ["none", "mag_bdi", "mag_bdi:bases=8+4+2"], [VERIFY]) for b in memory_bound()]


# The E2MC paper Fig. 13 (whole-GPU energy and EDP, GPUWattch on v3.2.1) and the adaptive-compression paper Fig. 7
# (energy with the adaptive selector): memory-bound benchmarks on the papers' simulator with its
# power model (run with MEMZIP_GPGPUSIM_VERSION=v3.2.1). The first four were the cheapest,
# chosen before the study measured that scan and srad_v2 store random input; the other memory-bound
# ones whose blocks compress and that ran on v3.2.1 then (not MUM, mummergpu: V321_UNSUPPORTED)
# follow, cheapest first (session 10).
ENERGY_BENCHMARKS = [
    "cuda-samples/fastWalshTransform", "cuda-samples/scan", "rodinia/srad_v2", "cuda-samples/transpose",
    "parboil/spmv", "rodinia/kmeans", "rodinia/backprop", "parboil/lbm",
]
POWER = "-power_simulation_enabled 1"


def energy_v321():
    runs = []
    for b in ENERGY_BENCHMARKS:
        runs.append(none_traced(b, extra=[POWER]))
        runs.append(entry(b, [E2MC16_OFFLINE], [VERIFY, POWER, OFFLINE]))
        runs.append(entry(b, [E2MC16_ONLINE], [VERIFY, POWER, ONLINE]))
        runs.append(entry(b, ["mag_bdi", "adaptive"], [VERIFY, POWER]))
    return runs


# The study benchmarks that do not run on v3.2.1, the papers' simulator, and why (found by running
# each one's `tiny` input there, session 10). Each is the 2013 simulator, not memzip: dev runs them.
# (rodinia/mummergpu was one until session 15: v3.2.1's libcudart had no cudaMemGetInfo, which our
# 0001 patch now adds. lonestar/mst was one until session 17: its global-barrier kernel never
# ended, first with a grid of 0 blocks (v3.2.1 told CUDA 13 programs multiProcessorCount 0; 0001
# patch, session 15), then because v3.2.1's rem.u32 took in a register's bits above 31: the
# kernel's grid-stride bound came out 20480 instead of 18432 at `tiny`, so blocks 0-5 ran a second
# round of barriers the other 42 had left; our 0005 patch computes rem by type, as dev does.)
V321_UNSUPPORTED = (
    # The CUDA 13 PTX of the csr-vector kernel reads warpSize as the WARP_SZ constant; v3.2.1's
    # PTX model aborts: "feature 'WARP_SZ' not supported".
    "shoc/spmv",
    # v3.2.1 reports a deadlock (no core commits an instruction for 25,000 cycles) in the first
    # kernel, at about cycle 95,000, under none as under mag_bdi. The unpatched v3.2.1
    # (`--version v3.2.1-baseline`) deadlocks at the same cycle (94,430), so memzip's hook is not
    # the cause; the functional simulation (PTX_SIM_MODE_FUNC=1) completes, and without the L1
    # data cache the timing model deadlocks too (memory partitions busy). With v3.2.1's own GTX480
    # config (64-byte DRAM atom) it deadlocks as well, at cycle 123,715 (session 16), so neither is
    # our GTX580-MAG32 config the cause. Not diagnosed further.
    "ispass-2009/MUM",
)


# The study's none runs on gpgpu-sim dev's QV100 (issue 50): each benchmark at its `study` preset,
# with the trace (every codec's CR offline, the offline E2MC tables) and verify, before any codec
# run on that GPU. They measure what the rule for the QV100's memory-bound set needs (DRAM
# utilisation, cycles) and the CPU time the QV100 codec grid would take. A QV100 cycle costs several
# GTX580 cycles of CPU (gaussian: 701 CPU-s for 755,896 cycles against 17 for 139,808), so all 23
# take more than a session: the GTX580's memory-bound programs go first (the likeliest members of
# the QV100's set), then its compute-bound ones (the QV100 has 2.4x less bandwidth per lane-cycle,
# so they may turn memory-bound), then the latency-bound ones; in each class study.json's order
# (cheapest GTX580 none run first), the three late ones last.
# srad_v2 deadlocks on the QV100 at `study` in the unpatched gpgpu-sim dev too (cycle 42,391 of its
# first kernel; benchmarks/results/study-qv100/README.md): out until that simulator bug is found.
QV100_UNSUPPORTED = ["rodinia/srad_v2"]


def study_qv100_none():
    order = [b for b in STUDY if b not in LATE_NONE + QV100_UNSUPPORTED] + LATE_NONE
    rank = {"memory": 0, "compute": 1}
    order.sort(key=lambda b: rank.get(bound(b), 2))  # stable: cost order within a class
    return on_gpu("qv100", [none_traced(b) for b in order])


# The QV100 rules' `modern` inputs (benchmarks/README.md, "The study on the QV100", rule 3): the
# GTX580-memory-bound programs whose `study` input stays in the QV100's 6 MB L2 or cannot fill its
# 80 SMs (results/study-qv100), under none with the trace and verify; each run decides its
# program's QV100 class by rule 2 before any codec run there. Cheapest first.
QV100_MODERN = ["cuda-samples/fastWalshTransform", "cuda-samples/transpose", "cuda-samples/scan"]


def study_qv100_modern():
    return on_gpu("qv100", [none_traced(b, preset="modern") for b in QV100_MODERN])


# The QV100 study grid (issue 50; benchmarks/README.md, "The study on the QV100", rule 4): the
# programs whose manifests say BOUND_QV100=memory (rule 2, from the none runs above), at `modern`
# where they have one (rule 3), else at `study`, under the codecs of the rule; the none runs are
# those of study-qv100-none.json and study-qv100-modern.json (the same ids, so a sweep into the
# results directory that holds them skips them).
# Rule 5 (over budget): with six memory-bound programs rule 4's estimate is 26.3 CPU-hours, over 25,
# so bdi leaves (MAG-aware BDI is its form at a 32-byte MAG). The codecs rule 5 always keeps run
# first, on every program, cheapest `none` run first (a sweep stopped at a session's end leaves
# whole programs done); cpack_z and fpc, which rule 5 removes next if the last none runs add
# programs, come after all of them, so the decision is made before a sweep reaches them.
QV100_KEPT_CODECS = ["mag_bdi", "bpc", "adaptive"]
# Rule 5 removes cpack_z before fpc, so fpc runs first: a cut then drops the runs made last.
QV100_BUDGET_CODECS = ["fpc", "cpack_z"]
# Rule 6: the codecs rule 5 keeps also run with the L2 taking compressed lines whole, named
# `<program>.fill` (a variant: the report shows `codec [fill]` beside the same none run).
FILL = "-memzip_partial_reads fill"
QV100_RESULTS = HERE.parent / "results" / "study-qv100"


def fill_name(benchmark):
    return id_prefix(benchmark) + ".fill"


def qv100_none_cpu_seconds(benchmark, preset):
    """The committed QV100 none run's CPU seconds (its cost order), or infinity before it lands."""
    run = QV100_RESULTS / f"{id_prefix(benchmark)}-{preset}-qv100-none" / "run.json"
    return json.loads(run.read_text())["cpu_seconds"] if run.is_file() else float("inf")


def study_qv100():
    programs = []
    for b in STUDY + [m for m in QV100_MODERN if m not in STUDY]:
        if bound(b, "BOUND_QV100") == "memory":
            programs.append((b, "modern" if "modern" in manifest_words(b, "PRESETS") else PRESET))
    programs.sort(key=lambda bp: qv100_none_cpu_seconds(*bp))
    runs = []
    for b, preset in programs:
        runs.append(none_traced(b, preset=preset))
        runs.append(entry(b, QV100_KEPT_CODECS, [VERIFY], preset=preset))
        runs.append(entry(b, [E2MC16_OFFLINE], [VERIFY, OFFLINE], preset=preset))
        runs.append(entry(b, QV100_KEPT_CODECS, [VERIFY, FILL], name=fill_name(b), preset=preset))
        runs.append(entry(b, [E2MC16_OFFLINE], [VERIFY, OFFLINE, FILL], name=fill_name(b), preset=preset))
    for b, preset in programs:
        runs.append(entry(b, QV100_BUDGET_CODECS, [VERIFY], preset=preset))
    return on_gpu("qv100", runs)


# The RTX3070 (gpgpu-sim dev's SM86_RTX3070: Ampere, 46 SMs, GDDR6; issue 50): every study
# benchmark's `tiny` input under none and MAG-aware BDI, with verify, so a run that finishes has
# checked its output and every decoded block on that GPU too. Its study grid is optional.
def rtx3070_tiny():
    return on_gpu("rtx3070", [entry(b, ["none", "mag_bdi"], [VERIFY], preset="tiny") for b in STUDY])


# Which study benchmarks run on v3.2.1 (run with MEMZIP_GPGPUSIM_VERSION=v3.2.1): each one's
# `tiny` input under none and MAG-aware BDI, with verify, so a run that finishes has also checked
# its output and every decoded block. Cheap (tiny); the study-size runs on v3.2.1 are
# study-v321.json's. The unsupported ones are left out: they fail or never end.
def v321_tiny():
    return [entry(b, ["none", "mag_bdi"], [VERIFY], preset="tiny") for b in STUDY if b not in V321_UNSUPPORTED]


# The study grid on v3.2.1, the simulator of the E2MC paper (run with MEMZIP_GPGPUSIM_VERSION=v3.2.1):
# study.json's runs, in its order, for the benchmarks that run there. Its own spec rather than
# study.json with a --timeout: MUM would hold a core until the timeout.
def study_v321():
    return [r for r in study() if r["benchmark"] not in V321_UNSUPPORTED]


def memory_bound_v321():
    """The memory-bound programs that run on v3.2.1, incompressible ones too."""
    return [b for b in STUDY if bound(b) == "memory" and b not in V321_UNSUPPORTED]


# The v3.2.1 rerun's first runs (issue 52: every DRAM request now meets memzip, so the v3.2.1
# figures are measured again, those behind headline numbers first): the memory-bound programs that
# run on v3.2.1 under none (with the trace, as study.json) and MAG-aware BDI, the pair of the
# headline geomean, cheapest first. The same run ids as study-v321.json, into the same directory,
# which then skips them.
def study_v321_headline():
    runs = []
    for b in memory_bound_v321():
        runs += [none_traced(b), entry(b, ["mag_bdi"], [VERIFY])]
    return runs


# The timing noise floor on v3.2.1 (issue 52): noise.json's none runs with one more DRAM cycle for
# the memory-bound programs that run there (incompressible ones too), those whose rerun moved most
# first. A v3.2.1 rerun whose codec moves as many bytes as none yet runs 1-3% faster (Parboil
# spmv's E2MC16 online: 100.4% of none's DRAM bytes, 1.029x) asks how far timing alone moves it.
NOISE_V321_FIRST = ["parboil/spmv", "cuda-samples/transpose", "rodinia/mummergpu"]


def noise_v321():
    rest = [b for b in memory_bound_v321() if b not in NOISE_V321_FIRST]
    return [noise_entry(b) for b in NOISE_V321_FIRST + rest]


# The E2MC paper §IV-B's inputs for SCAN and FWT (issue 37): E2MC "modified the inputs of SCAN and FWT
# benchmarks as the original inputs were random ... We use SCAN for stream compaction ... and FWT to
# transform Walsh functions". Our inputs of that description (the manifests' `compaction` and
# `walsh` presets; benchmarks/inputs/compaction_flags.py and walsh_signal.py say why each was
# chosen), fixed before any codec run, at the `study` sizes; the random-input `study` rows stay as
# they are. The full codec grid of the study, none first (with the trace for `memzip analyze` and
# the offline E2MC tables). The same spec runs on v3.2.1 (MEMZIP_GPGPUSIM_VERSION=v3.2.1), into
# its own results directory.
PAPER_INPUTS = [("cuda-samples/fastWalshTransform", "walsh"), ("cuda-samples/scan", "compaction")]


def paper_grid(programs):
    """The study's codec grid for (benchmark, preset) pairs: every none run first."""
    runs = [none_traced(b, preset=p) for b, p in programs]
    for b, p in programs:
        runs.append(entry(b, ["bdi", "mag_bdi", "fpc", "cpack_z", "adaptive"], [VERIFY], preset=p))
        runs.append(entry(b, [E2MC16_ONLINE], [VERIFY, ONLINE], preset=p))
        runs.append(entry(b, [E2MC16_OFFLINE], [VERIFY, OFFLINE], preset=p))
    return runs


def paper_inputs():
    return paper_grid(PAPER_INPUTS)


# A footprint nearer the papers' (issue 37): lbm at the program's own 120 x 120 x 150 grid
# (`large`: 2 time steps as `study`; its lattices exceed what the metadata caches cover), the
# study's codec grid. The samples' default sizes of scan and fastWalshTransform are not affordable
# (benchmarks/reproduction.md, "Inputs nearer the papers'").
PAPER_FOOTPRINT = [("parboil/lbm", "large")]


def paper_footprint():
    # MAG-aware BDI right after none: a grid stopped part-way still holds the MAG-aware paper's
    # headline pair (none, mag_bdi) for every program run.
    runs = paper_grid(PAPER_FOOTPRINT)
    for r in runs:
        if r["codecs"][:2] == ["bdi", "mag_bdi"]:
            r["codecs"] = ["mag_bdi", "bdi"] + r["codecs"][2:]
    return runs


# SLC, the MAG-aware lossy codec (issue 39): the benchmarks of the MAG-aware lossless paper's
# Fig. 15 (the Table V programs with safe-to-approximate data; memzip has all but PVR), cheapest
# first. Each manifest's APPROX_ALLOCS marks the data; its none run (values kept as the exact
# output) goes first, then TSLC-OPT, -PRED, -SIMP with E2MC16's online table, as the study's
# E2MC16 online runs learn theirs (ONLINE): SLC builds on E2MC16 with online sampling (Sec. V-A).
SLC = [
    "cuda-samples/fastWalshTransform", "cuda-samples/transpose", "cuda-samples/scan",
    "rodinia/heartwall", "parboil/lbm", "rodinia/backprop",
]
SLC_VARIANTS = ["slc:variant=opt", "slc:variant=pred", "slc:variant=simp"]


def slc():
    # Every none run first (their values are the exact outputs SLC's errors are measured
    # against), so that with -j 2 no SLC run waits on its program's none run.
    runs = [entry(b, ["none"], [VERIFY]) for b in SLC]
    return runs + [entry(b, SLC_VARIANTS, [VERIFY, ONLINE]) for b in SLC]


# The ML study (issue 51): the five `ml` programs at `study` (benchmarks/ml/README.md, "Study
# sizes", fixed from their none runs before any codec run) under none (with the trace: every codec's
# CR offline and E2MC16's offline table), then fpexp (the codec made for these blocks) and MAG-aware
# BDI first, so that a grid stopped part-way still holds the pair the study is about, then E2MC16
# offline, BDI, BPC and the adaptive selector. The decode GEMV first (the study's headline: LLM
# decoding reads every weight once per token), then the other memory-bound ones (train_step 0.91,
# attention 0.41 on the GTX580), then the compute-bound rmsnorm and GEMM tile. On the QV100 fpexp,
# E2MC16 offline and adaptive also run under -memzip_partial_reads fill (benchmarks/README.md, "The
# study on the QV100", rule 6: its sectored L2 fetches a compressed line once per sector otherwise).
ML = ["ml/llm_decode_gemv", "ml/train_step", "ml/llm_attention_decode", "ml/rmsnorm", "ml/gemm_tile"]
# On the QV100 rmsnorm (2.9 MB) and the GEMM tile (0.26 MB) never reach DRAM: their none runs read
# and write 0 bytes there (the host's copies leave the tensors in the 6 MB L2; results/ml-study-qv100),
# so a codec has nothing to change in them and their codec runs are left out (decided from the none
# runs, before any codec run there).
ML_QV100_NO_DRAM = ["ml/rmsnorm", "ml/gemm_tile"]


def ml_study(gpu=None):
    runs = []
    for b in ML:
        runs.append(none_traced(b))
        if gpu == "qv100" and b in ML_QV100_NO_DRAM:
            continue
        runs.append(entry(b, ["fpexp", "mag_bdi"], [VERIFY]))
        runs.append(entry(b, [E2MC16_OFFLINE], [VERIFY, OFFLINE]))
        runs.append(entry(b, ["bdi", "bpc", "adaptive"], [VERIFY]))
        if gpu == "qv100":  # its sectored L2: the codecs that compress tensors also under fill
            runs.append(entry(b, ["fpexp", "adaptive"], [VERIFY, FILL], name=fill_name(b)))
            runs.append(entry(b, [E2MC16_OFFLINE], [VERIFY, OFFLINE, FILL], name=fill_name(b)))
    return on_gpu(gpu, runs)


def write(name, runs):
    """Writes a spec next to this file."""
    # One entry per line, like readme-tiny.json: short diffs when a list changes.
    text = '{"runs": [\n' + ",\n".join("  " + json.dumps(r) for r in runs) + "\n]}\n"
    (HERE / name).write_text(text)


def main():
    write("study.json", study())
    write("energy-v321.json", energy_v321())
    write("v321-tiny.json", v321_tiny())
    write("study-v321.json", study_v321())
    write("study-v321-headline.json", study_v321_headline())
    write("study-qv100-none.json", study_qv100_none())
    write("study-qv100-modern.json", study_qv100_modern())
    write("study-qv100.json", study_qv100())
    write("rtx3070-tiny.json", rtx3070_tiny())
    for mag in (16, 32, 64):
        write(f"sens-mag{mag}.json", sens_mag(mag))
    write("sens-pdw.json", sens_pdw())
    write("sens-mdc.json", sens_mdc())
    write("sens-latency.json", sens_latency())
    write("sens-bases.json", sens_bases())
    write("noise.json", noise())
    write("noise-v321.json", noise_v321())
    write("write-delay.json", write_delay())
    write("paper-inputs.json", paper_inputs())
    write("paper-footprint.json", paper_footprint())
    write("slc.json", slc())
    write("ml-study.json", ml_study())
    write("ml-study-qv100.json", ml_study("qv100"))


if __name__ == "__main__":
    main()
