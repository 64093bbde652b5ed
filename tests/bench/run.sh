#!/usr/bin/env bash
# Benchmark tests.
#  1. Our input generators are deterministic and each output checker rejects
#     a wrong answer (no simulator or benchmark source needed).
#  2. With a gpgpu-sim source: `memzip bench list` names every manifest, and a
#     representative subset runs at the tiny preset with -memzip_verify 1
#     through `memzip bench run` (build, our input, simulator, output check),
#     per suite whose source is available (MEMZIP_<SUITE>_REPO, or the clone a
#     previous run left in the memzip cache); one SKIP line per
#     missing source. A corrupted reference must fail its run. Parboil spmv
#     (and Rodinia hotspot) also run on the QV100 and the RTX3070 (--gpu); the
#     QV100 none run passes the exact commands = bursts check.
# MEMZIP_KEEP_RUNS=1 keeps the run directories. Ends with "N passed, N failed".
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

source "$(dirname "$0")/../sim/helpers.sh"  # start_suite, verdict
start_suite benchtest

# Our generators and checkers, no simulator needed: deterministic output, and
# each checker rejects a wrong answer.
gen="$MEMZIP_ROOT/benchmarks/inputs"
quiet() { "$@" >/dev/null 2>&1; }
fails() { ! "$@" >/dev/null 2>&1; }
same_twice() {  # same_twice CMD-WITH-@OUT@: the command's output file is the same on two runs
    local a="$work/gen.a" b="$work/gen.b"
    eval "${1//@OUT@/$a}" && eval "${1//@OUT@/$b}" && cmp -s "$a" "$b"
}
verdict gen-bfs-deterministic "rodinia_graph.py" same_twice "python3 $gen/rodinia_graph.py --nodes 500 --seed 3 --out @OUT@ --reference $work/ref"
verdict gen-lud-deterministic "lud_matrix.py" same_twice "python3 $gen/lud_matrix.py --size 32 --seed 3 --out @OUT@"
verdict gen-gaussian-deterministic "gaussian_system.py" same_twice "python3 $gen/gaussian_system.py make --size 16 --seed 3 --out @OUT@ --reference $work/x"
verdict gen-hotspot-deterministic "hotspot_grid.py" same_twice "python3 $gen/hotspot_grid.py make --size 16 --seed 3 --temp @OUT@ --power $work/power"
verdict gen-galois-deterministic "galois_graph.py" same_twice "python3 $gen/galois_graph.py --rows 8 --cols 8 --seed 3 --out @OUT@ --sssp-reference $work/sssp.ref"
printf '0: 0\n1: 5\n' >"$work/g.out"; printf '0: 0\n1: 5\n' >"$work/g.ref"
verdict check-galois-right "equal distances accepted" quiet python3 "$gen/galois_graph.py" compare "$work/g.out" "$work/g.ref"
printf '0: 0\n1: 6\n' >"$work/g.out"
verdict check-galois-wrong "a wrong distance rejected" fails python3 "$gen/galois_graph.py" compare "$work/g.out" "$work/g.ref"
# hotspot: the host reference printed in the program's "index<TAB>value"
# format passes; the same with one cell 0.01 K off fails.
python3 "$gen/hotspot_grid.py" make --size 8 --seed 3 --temp "$work/hs.temp" --power "$work/hs.power"
python3 - "$gen" "$work" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import hotspot_grid as h
w = sys.argv[2]
ref = h.reference(8, 2, h.read_floats(f"{w}/hs.temp"), h.read_floats(f"{w}/hs.power"))
open(f"{w}/hs.good", "w").write("".join(f"{i}\t{v:g}\n" for i, v in enumerate(ref)))
ref[17] += 0.01
open(f"{w}/hs.bad", "w").write("".join(f"{i}\t{v:g}\n" for i, v in enumerate(ref)))
PY
hotspot_check() { python3 "$gen/hotspot_grid.py" check --size 8 --iterations 2 --temp "$work/hs.temp" --power "$work/hs.power" "$1"; }
verdict check-hotspot-right "host stencil accepted" quiet hotspot_check "$work/hs.good"
verdict check-hotspot-wrong "one cell 0.01 K off rejected" fails hotspot_check "$work/hs.bad"
printf 'The final solution is: \n%s\n' "$(cat "$work/x")" >"$work/x.log"
verdict check-gaussian-right "known x accepted" quiet python3 "$gen/gaussian_system.py" check "$work/x" "$work/x.log"
printf 'The final solution is: \n99.00%s\n' "$(cut -d' ' -f2- <"$work/x" | sed 's/^/ /')" >"$work/x.log"
verdict check-gaussian-wrong "a wrong x rejected" fails python3 "$gen/gaussian_system.py" check "$work/x" "$work/x.log"
printf '1 2 3 \n4 0 6 \n1 2 3 \n5 1 8 \n' >"$work/pf.log"
verdict check-pathfinder-right "host DP accepted" quiet python3 "$gen/pathfinder_check.py" --cols 3 --rows 2 "$work/pf.log"
printf '1 2 3 \n4 0 6 \n1 2 3 \n5 1 7 \n' >"$work/pf.log"
verdict check-pathfinder-wrong "a wrong column rejected" fails python3 "$gen/pathfinder_check.py" --cols 3 --rows 2 "$work/pf.log"
printf 'memzip-check a 1.0 2\n' >"$work/c.run"
printf 'noise\nmemzip-check a 1.00001 2\n' >"$work/c.ref"
verdict check-compare-right "within 1e-4 accepted" quiet python3 "$gen/compare_checks.py" "$work/c.run" "$work/c.ref"
printf 'memzip-check a 1.001 2\n' >"$work/c.ref"
verdict check-compare-wrong "off by 1e-3 rejected" fails python3 "$gen/compare_checks.py" "$work/c.run" "$work/c.ref"
# ISPASS-2009 LIB: the host reference is deterministic, and a run whose
# smallest path value is 1e-3 off is rejected.
verdict gen-libor-deterministic "libor_reference.py" same_twice "python3 $gen/libor_reference.py >@OUT@"
python3 "$gen/libor_reference.py" >"$work/lib.ref"
cp "$work/lib.ref" "$work/lib.good"
awk '/^memzip-check v / && !done { $4 = $4 * 1.001; done = 1 } { print }' "$work/lib.ref" >"$work/lib.bad"
verdict check-libor-right "host values accepted" quiet python3 "$gen/compare_checks.py" "$work/lib.good" "$work/lib.ref"
verdict check-libor-wrong "one path value 1e-3 off rejected" fails python3 "$gen/compare_checks.py" "$work/lib.bad" "$work/lib.ref"
# Parboil spmv: deterministic matrix; the reference is A x for A read back
# from the .mtx as Parboil's reader does (mirroring the lower triangle); the
# check accepts it as the program's output file and rejects one row off.
verdict gen-spmv-deterministic "sparse_matrix.py" same_twice "python3 $gen/sparse_matrix.py make --side 8 --seed 3 --matrix @OUT@ --vector $work/sp.x --reference $work/sp.y"
python3 "$gen/sparse_matrix.py" make --side 8 --seed 3 --matrix "$work/sp.mtx" --vector "$work/sp.x" --reference "$work/sp.y"
python3 - "$work" <<'PY'
import struct, sys
from array import array
w = sys.argv[1]
lines = [l for l in open(f"{w}/sp.mtx") if not l.startswith("%")]
n = int(lines[0].split()[0])
x = array("f"); x.frombytes(open(f"{w}/sp.x", "rb").read())
ref = array("d"); ref.frombytes(open(f"{w}/sp.y", "rb").read())
y = [0.0] * n
for line in lines[1:]:
    i, j, v = int(line.split()[0]) - 1, int(line.split()[1]) - 1, struct.unpack("<f", struct.pack("<f", float(line.split()[2])))[0]
    y[i] += v * x[j]
    if i != j:
        y[j] += v * x[i]
ok = all(abs(y[i] - ref[2 * i]) <= 1e-12 * ref[2 * i + 1] for i in range(n))
open(f"{w}/sp.mtxok", "w").write("yes" if ok and n == 64 else "no")
for name, delta in (("good", 0.0), ("bad", 1e-3)):
    out = [ref[2 * i] for i in range(n)]
    out[5] += delta * ref[11]
    open(f"{w}/sp.{name}", "wb").write(struct.pack("<I", n) + array("f", out).tobytes())
PY
verdict gen-spmv-reference "reference = A x for the .mtx as Parboil reads it" grep -qx yes "$work/sp.mtxok"
verdict check-spmv-right "host product accepted" quiet python3 "$gen/sparse_matrix.py" check --reference "$work/sp.y" "$work/sp.good"
verdict check-spmv-wrong "one row 1e-3 x bound off rejected" fails python3 "$gen/sparse_matrix.py" check --reference "$work/sp.y" "$work/sp.bad"
# Parboil lbm: deterministic obstacle file of the size lbm checks; the check
# accepts a field equal to the reference and rejects one component moved.
verdict gen-lbm-deterministic "lbm_grid.py" same_twice "python3 $gen/lbm_grid.py make --size 16 12 14 --seed 3 --out @OUT@"
python3 "$gen/lbm_grid.py" make --size 16 12 14 --seed 3 --out "$work/lbm.of"
verdict gen-lbm-size "X*Y*Z + (Y+1)*Z bytes, some obstacles" \
    eval '(( $(stat -c %s "$work/lbm.of") == 16 * 12 * 14 + 13 * 14 )) && grep -q "#" "$work/lbm.of"'
python3 - "$work" <<'PY'
import sys
from array import array
w = sys.argv[1]
n = 3 * 16 * 12 * 14
field = array("f", [((i * 37) % 101 - 50) * 1e-4 for i in range(n)])
open(f"{w}/lbm.ref", "wb").write(field.tobytes())
field[100] += 1e-4
open(f"{w}/lbm.bad", "wb").write(field.tobytes())
PY
verdict check-lbm-right "the reference field accepted" quiet python3 "$gen/lbm_grid.py" check --size 16 12 14 "$work/lbm.ref" "$work/lbm.ref"
verdict check-lbm-wrong "one component 1e-4 off rejected" fails python3 "$gen/lbm_grid.py" check --size 16 12 14 "$work/lbm.bad" "$work/lbm.ref"
verdict values-lbm "every component, one per line, as float32 holds it" \
    eval 'python3 "$gen/lbm_grid.py" values --size 16 12 14 "$work/lbm.bad" >"$work/lbm.values" &&
          (( $(wc -l <"$work/lbm.values") == 3 * 16 * 12 * 14 )) &&
          python3 -c "import sys; from array import array; a = array(\"f\"); a.frombytes(open(sys.argv[1], \"rb\").read()); sys.exit(0 if [float(l) for l in open(sys.argv[2])] == list(a) else 1)" "$work/lbm.bad" "$work/lbm.values"'
# CUDA SDK scan's compaction input: deterministic, N words of 0/1 (about half
# ones), and the checker rejects a word that is not a flag.
verdict gen-flags-deterministic "compaction_flags.py" same_twice "python3 $gen/compaction_flags.py make --count 1003 --seed 3 --out @OUT@"
python3 "$gen/compaction_flags.py" make --count 4096 --seed 3 --out "$work/flags.u32"
verdict gen-flags-bernoulli "4096 words of 0/1, 1800-2300 ones" \
    eval '(( $(stat -c %s "$work/flags.u32") == 4 * 4096 )) && python3 "$gen/compaction_flags.py" stats "$work/flags.u32" | awk "{ exit !(\$1 == 4096 && \$3 >= 1800 && \$3 <= 2300) }"'
printf '\002\000\000\000' >>"$work/flags.u32"
verdict check-flags-wrong "a word 2 rejected" fails python3 "$gen/compaction_flags.py" stats "$work/flags.u32"
# CUDA SDK fastWalshTransform's walsh input: deterministic, and its spectrum
# has exactly 4 non-zero components, each a_j * 2^L with a_j in [0, 1).
verdict gen-walsh-deterministic "walsh_signal.py" same_twice "python3 $gen/walsh_signal.py make --log2n 9 --seed 3 --out @OUT@"
python3 "$gen/walsh_signal.py" make --log2n 10 --seed 3 --out "$work/walsh.f32"
verdict gen-walsh-spectrum "4 non-zero Walsh components in (0, 1024)" \
    eval 'python3 "$gen/walsh_signal.py" spectrum --log2n 10 "$work/walsh.f32" | awk "\$2 > 0 && \$2 < 1024 { n++ } END { exit !(NR == 4 && n == 4) }"'
verdict check-walsh-size "a file of the wrong length rejected" fails python3 "$gen/walsh_signal.py" spectrum --log2n 11 "$work/walsh.f32"
# ISPASS-2009 MUM: deterministic genome and reads; the comparison ignores
# other log lines and rejects a changed match position.
verdict gen-mum-deterministic "mum_reads.py" same_twice "python3 $gen/mum_reads.py make --genome-length 3000 --reads 50 --seed 3 --reference @OUT@ --queries $work/reads.fna"
printf '> rid1\n     120         1        25\n> rid2\n' >"$work/mum.ref"
printf 'GPGPU-Sim: cycles 42\n> rid1\n     120         1        25\nsim done\n> rid2\n' >"$work/mum.good"
printf '> rid1\n     121         1        25\n> rid2\n' >"$work/mum.bad"
verdict check-mum-right "equal alignments accepted" quiet python3 "$gen/mum_reads.py" compare "$work/mum.good" "$work/mum.ref"
verdict check-mum-wrong "a wrong position rejected" fails python3 "$gen/mum_reads.py" compare "$work/mum.bad" "$work/mum.ref"

# kmeans: our host k-means puts the first K points (one per blob) in clusters
# 0..K-1 and converges; a wrong membership or centre is rejected.
verdict gen-kmeans-deterministic "kmeans_points.py" same_twice "python3 $gen/kmeans_points.py --points 300 --clusters 4 --features 6 --seed 3 --out @OUT@ --reference $work/km.ref --membership $work/km.mem"
verdict gen-kmeans-lloyd "first 4 points in clusters 0..3, 2 Lloyd steps" \
    eval '[[ "$(head -n 4 "$work/km.mem" | tr "\n" " ")" == "0 1 2 3 " ]] && grep -qx "memzip-check iterations 2" "$work/km.ref"'
verdict check-kmeans-right "host centres accepted" quiet python3 "$gen/compare_checks.py" "$work/km.ref" "$work/km.ref"
sed '2s/ \([0-9]\)\.\([0-9]\)/ 9\1.\2/' "$work/km.ref" >"$work/km.bad"
verdict check-kmeans-wrong "a wrong centre rejected" fails python3 "$gen/compare_checks.py" "$work/km.bad" "$work/km.ref"
# mummergpu: the host's maximal matches of a read copied from the genome with
# one substitution are the two pieces around it; the checker rejects a
# wrong match.
python3 - "$gen" "$work" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[1])
import dna_reads as d
rng = random.Random(5)
genome = "".join(rng.choice("ACGT") for _ in range(400))
read = list(genome[100:160]); read[30] = "A" if read[30] != "A" else "C"
got = d.maximal_matches(genome, ["".join(read), genome[200:250]])
open(f"{sys.argv[2]}/mm.ok", "w").write(str(got == {0: [(101, 1, 30), (132, 32, 29)], 1: [(201, 1, 50)]}))
d.write_matches(f"{sys.argv[2]}/mm.ref", ["r0", "r1"], got)
PY
verdict dna-maximal-matches "a read with one substitution: two maximal matches" grep -qx True "$work/mm.ok"
verdict check-dna-right "same matches accepted" quiet python3 "$gen/dna_reads.py" compare "$work/mm.ref" "$work/mm.ref"
sed 's/^132\t32\t29$/132\t32\t28/' "$work/mm.ref" >"$work/mm.bad"
verdict check-dna-wrong "a wrong match length rejected" fails python3 "$gen/dna_reads.py" compare "$work/mm.bad" "$work/mm.ref"
verdict gen-dna-deterministic "dna_reads.py" same_twice "python3 $gen/dna_reads.py --genome-length 2000 --reads 20 --seed 3 --reference $work/g.fa --queries @OUT@ --matches $work/m.txt"
# mst: host Kruskal's line in the program's format is accepted, another
# weight rejected.
python3 "$gen/galois_graph.py" --rows 6 --cols 6 --seed 3 --out "$work/mst.gr" --mst-reference "$work/mst.ref"
printf '\tx.gr result: %s\n' "$(cat "$work/mst.ref")" >"$work/mst.log"
verdict check-mst-right "host Kruskal accepted ($(cat "$work/mst.ref"))" quiet python3 "$gen/galois_graph.py" compare-mst "$work/mst.log" "$work/mst.ref"
sed -i 's/weight: \([0-9]*\)/weight: 1\1/' "$work/mst.log"
verdict check-mst-wrong "a wrong weight rejected" fails python3 "$gen/galois_graph.py" compare-mst "$work/mst.log" "$work/mst.ref"
verdict gen-mst-tree "a 6 x 6 grid: one component, 35 edges" grep -q 'components: 1, edges: 35$' "$work/mst.ref"
# heartwall: a result.txt whose points follow the image's walk is accepted,
# one point a pixel off is rejected.
verdict gen-heartwall-deterministic "heartwall_video.py" same_twice "python3 $gen/heartwall_video.py make --frames 3 --seed 3 --out @OUT@ --shifts $work/hw.shifts"
python3 - "$work/hw.shifts" "$work/hw.good" <<'PY'
import sys
walk = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
out = f"Total AVI Frames: {len(walk)}\nFrames Processed: {len(walk)}\nendoPoints: 2\nepiPoints: 1"
for k, (dy, dx) in enumerate(walk):
    out += f"\n---Frame {k}---\n--endo--\n{300 + dy}\t{310 + dy}\t\n{200 + dx}\t{210 + dx}\t\n--epi--\n{400 + dy}\t\n{150 + dx}\t"
open(sys.argv[2], "w").write(out)
PY
verdict check-heartwall-right "points moved with the image accepted" quiet python3 "$gen/heartwall_video.py" check "$work/hw.shifts" "$work/hw.good"
python3 -c 'import sys; t = open(sys.argv[1]).read(); i = t.rindex("--epi--\n") + 8; open(sys.argv[2], "w").write(t[:i] + str(int(t[i:i + 3]) + 1) + t[i + 3:])' "$work/hw.good" "$work/hw.bad"
verdict check-heartwall-wrong "one point a pixel off rejected" fails python3 "$gen/heartwall_video.py" check "$work/hw.shifts" "$work/hw.bad"
verdict values-heartwall "every frame's coordinates, one per line" \
    eval '[[ "$(python3 "$gen/heartwall_video.py" values "$work/hw.good" | head -n 6 | paste -sd " ")" == "$((300 + $(head -n1 "$work/hw.shifts" | cut -d" " -f1))) $((310 + $(head -n1 "$work/hw.shifts" | cut -d" " -f1))) $((200 + $(head -n1 "$work/hw.shifts" | cut -d" " -f2))) $((210 + $(head -n1 "$work/hw.shifts" | cut -d" " -f2))) $((400 + $(head -n1 "$work/hw.shifts" | cut -d" " -f1))) $((150 + $(head -n1 "$work/hw.shifts" | cut -d" " -f2)))" ]]'
# Sizes whose exact-match moves (+-(search - template)) cannot hold the
# move mask around the walk are refused; the tiny preset's are not.
verdict gen-heartwall-sizes-refused "search 10 around a 5 template refused" fails python3 "$gen/heartwall_video.py" make --frames 3 --seed 1 --template 5 --search 10 --out "$work/hw.avi" --shifts "$work/hw.s"
verdict gen-heartwall-sizes-tiny "tiny's 4 / 10 / 4 accepted, sizes written" eval 'python3 "$gen/heartwall_video.py" make --frames 2 --seed 1 --template 4 --search 10 --max-move 4 --out "$work/hw.avi" --shifts "$work/hw.s" --sizes "$work/hw.sizes" && [[ "$(cat "$work/hw.sizes")" == "4 10 4" ]]'
# A benchmark run's PASS/FAIL line quotes its output check's last line
# whole (helpers.sh, check_summary), past any fixed width.
mkdir -p "$work/summary"
long="hotspot_grid: 65536 temperatures equal the host reference within 0.001 K (largest error 5.37e-04 K; 65436 cells changed by more than that)"
printf 'noise\n%s\n' "$long" >"$work/summary/check.log"
verdict check-summary-whole-line "the last line of check.log, ${#long} characters" \
    eval '[[ "$(check_summary "$work/summary")" == "$long" ]] && [[ -z "$(check_summary "$work/no-such-run")" ]]'

# collect-runs.sh: finished runs' small files are copied (no sim.log, no
# trace), unfinished and failed runs are not, a collected run keeps its
# files and gains only the ones it lacks (a rerun's power report, named by
# its time, is not a second report).
mkdir -p "$work/from/a-none" "$work/from/b-bdi.failed" "$work/from/.tmp-c-none" "$work/to"
for f in run.json stats.json analyze.json analyze-mag16.json sim.log trace.zst; do echo "new $f" >"$work/from/a-none/$f"; done
echo '{"codec": "none", "cycles": 7}' >"$work/from/a-none/run.json"
echo '{}' >"$work/from/b-bdi.failed/run.json"; echo '{}' >"$work/from/.tmp-c-none/run.json"
collect() { bash "$MEMZIP_ROOT/scripts/collect-runs.sh" "$work/from" "$work/to" 2>/dev/null; }
collect_first() {
    collect && [[ -f "$work/to/a-none/analyze-mag16.json" && -f "$work/to/a-none/stats.json" ]] &&
        [[ ! -e "$work/to/a-none/sim.log" && ! -e "$work/to/a-none/trace.zst" ]] &&
        [[ "$(ls "$work/to")" == a-none ]]
}
verdict collect-runs-small-files "finished runs' small files only" collect_first
echo "committed" >"$work/to/a-none/stats.json"; rm "$work/to/a-none/analyze-mag16.json"
echo "new" >"$work/from/a-none/analyze-bases.json"
echo "committed" >"$work/to/a-none/gpgpusim_power_report__Mon-Nov-23-13-04-40-2026.log"
echo "rerun" >"$work/from/a-none/gpgpusim_power_report__Tue-Nov-24-13-14-11-2026.log"
collect_again() {
    collect && [[ "$(cat "$work/to/a-none/stats.json")" == committed ]] &&
        [[ -f "$work/to/a-none/analyze-mag16.json" && -f "$work/to/a-none/analyze-bases.json" ]] &&
        [[ "$(cat "$work/to/a-none/"gpgpusim_power_report__*.log)" == committed ]]
}
verdict collect-runs-adds-missing "a collected run keeps its files (its power report too), gains missing ones" collect_again
# The kernels of a run's sim.log go into the collected run.json as
# memzip-study's sim_log.rs reads them (its test has the same log): 2
# kernels, [DRAM cycles, commands] per kernel as steps of the channels' sums,
# tRRD from the timing option (not v3.2.1's swapped DRAM line).
mkdir -p "$work/from/k-none"
echo '{"codec": "none", "cycles": 250}' >"$work/from/k-none/run.json"
python3 - "$work/from/k-none/sim.log" <<'PY'
import sys
channel = lambda cmd, rd, wb: f"n_cmd={cmd} n_nop=1 n_act=3 n_pre=1 n_ref_event=0 n_req=9 n_rd={rd} n_rd_L2_A=1 n_write=0 n_wr_bk={wb} bw_util=0.6554\n"
kernel = lambda uid, tot, channels: f"kernel_name = k\nkernel_launch_uid = {uid} \ngpu_tot_sim_cycle = {tot}\ngpu_stall_dramfull = {40 * uid}\ngpu_stall_icnt2sh    = {5 * uid}\nDRAM[0]: 16 bks, tRRD=2 tCCD=12\n{channels}averagemflatency = {300 + uid} \nmax_icnt2sh_latency = 90 \navg_icnt2sh_latency = {10 + uid} \n"
open(sys.argv[1], "w").write("-gpgpu_dram_timing_opt nbk=16:CCD=2:RRD=12:RCD=24:RAS=56:RP=24:RC=80: CL=24:WL=8 # DRAM timing\n"
    + kernel(1, 100, channel(1000, 300, 99) + channel(1000, 200, 99))
    + kernel(2, 250, channel(2500, 500, 199) + channel(2500, 1000, 199)))
PY
collect_kernels() {
    collect && python3 -c 'import json, sys
run = json.load(open(sys.argv[1]))
sys.exit(not (run["kernel_launches"] == 2 and run["kernel_dram"] == [[2000, 700], [3000, 1200]] and run["dram_rrd"] == 12
              and run["fetch_latency_cycles"] == 302 and run["dram_full_stalls"] == 80
              and run["reply_latency_cycles"] == 12 and run["reply_stalls"] == 10))' \
        "$work/to/k-none/run.json"
}
verdict collect-runs-kernels "kernel launches, per-kernel DRAM work, tRRD, the memory-wait and reply-network counters from sim.log" collect_kernels
# A run collected before a field was recorded gains it from its log when
# collected again; a rerun's log (other cycles) adds nothing.
collect_fills() {
    echo '{"codec": "none", "cycles": 250}' >"$work/to/k-none/run.json"
    echo '{"codec": "none", "cycles": 999}' >"$work/to/a-none/run.json"
    cp "$work/from/k-none/sim.log" "$work/from/a-none/sim.log"
    collect && python3 -c 'import json, sys
filled, rerun = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(not (filled["fetch_latency_cycles"] == 302 and filled["kernel_launches"] == 2 and rerun == {"codec": "none", "cycles": 999}))' \
        "$work/to/k-none/run.json" "$work/to/a-none/run.json"
}
verdict collect-runs-fills-collected "a collected run's run.json gains its log's fields; a rerun's log is not its" collect_fills
# Output values: compressed beside the run when small, else only their digest.
collect_values_check() {
    mkdir -p "$work/from/v-none" "$work/from/w-none" "$work/from/v-slc"
    echo '{"codec": "none", "cycles": 5}' >"$work/from/v-none/run.json"
    echo '{"codec": "none", "cycles": 5}' >"$work/from/w-none/run.json"
    echo '{"codec": "slc:variant=opt", "cycles": 5}' >"$work/from/v-slc/run.json"
    seq 1 2000 >"$work/from/v-none/values.txt"
    seq 1 2000 >"$work/from/v-slc/values.txt"
    python3 -c 'import random; random.seed(1); print("\n".join(str(random.random()) for _ in range(5000)))' >"$work/from/w-none/values.txt"
    MEMZIP_COLLECT_VALUES_BYTES=20000 bash "$MEMZIP_ROOT/scripts/collect-runs.sh" "$work/from" "$work/to" 2>/dev/null &&
        zstd -dc "$work/to/v-none/values.txt.zst" | cmp -s - "$work/from/v-none/values.txt" &&
        [[ ! -e "$work/to/w-none/values.txt.zst" && ! -e "$work/to/v-slc/values.txt.zst" ]] &&
        grep -q "^$(sha256sum <"$work/from/w-none/values.txt" | cut -d' ' -f1)  values.txt$" "$work/to/w-none/values.sha256" &&
        grep -qx '5000 lines' "$work/to/w-none/values.sha256" && grep -qx '2000 lines' "$work/to/v-slc/values.sha256"
}
verdict collect-runs-values "an exact run's values.txt compressed when under the limit (2000 lines); over it, and a lossy run's, only its sha256 and line count" collect_values_check

gpgpusim_paths dev
if [[ -z "${MEMZIP_GPGPUSIM_REPO:-}" && ! -d "$GPGPUSIM_SRC/.git" ]]; then
    echo "SKIP benchmark runs: no gpgpu-sim source (set MEMZIP_GPGPUSIM_REPO to a clone or mirror of gpgpu-sim_distribution)"
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit
fi
bash "$MEMZIP_ROOT/scripts/build-sim.sh" >/dev/null
memzip=$(memzip_cli)

# The list names every manifest, each with a status.
manifests=$(find "$MEMZIP_ROOT/benchmarks" -mindepth 2 -maxdepth 2 -name '*.env' | wc -l)
if list=$("$memzip" bench list 2>&1); then
    listed=$(tail -n +2 <<<"$list" | wc -l)
    verdict bench-list "$listed of $manifests manifests listed; rodinia bfs runs" \
        eval '((listed == manifests)) && grep -Eq "^rodinia +bfs +.*runs$" <<<"$list"'
else
    verdict bench-list "memzip bench list: $list" false
fi

# have_suite SUITE ENV_VAR: the suite's source is available (helpers.sh,
# suite_source); else one SKIP line.
have_suite() {
    suite_source "$1" "$2" && return 0
    echo "SKIP $1 benchmarks: no source (set $2 to a clone or mirror)"
    return 1
}
# bench_run NAME CODEC: starts the benchmark at the tiny preset with verify
# on (helpers.sh, tiny_run: two runs at a time); bench_checks waits for every
# started run, in order: each must pass its output check with 0 verify failures.
started_runs=()  # "VERDICT RUN" pairs
bench_run() {
    local run="${1//\//-}-$2"
    started_runs+=("$1-tiny-$2 $run")
    tiny_run "$run" "$1" "$2" --set "-memzip_verify 1"
}
# bench_run_gpu NAME CODEC GPU: the same on another GPU config (--gpu), with a
# cold L2 (no host copy through it): a tiny input fits the QV100's 6 MB L2, so
# with the copy there DRAM would see almost nothing (parboil spmv: 1 burst).
bench_run_gpu() {
    local run="${1//\//-}-$2-$3"
    started_runs+=("$1-tiny-$3-$2 $run")
    tiny_run "$run" "$1" "$2" --gpu "$3" --set "-memzip_verify 1" --set "-gpgpu_perf_sim_memcpy 0"
}
bench_checks() {
    local entry name run
    for entry in "${started_runs[@]}"; do
        read -r name run <<<"$entry"
        tiny_verdict "$name" "$run"
    done
    started_runs=()
}

# A representative subset (every benchmark's tiny runs are in the issue note):
# a graph, a stencil and a float image, two suites. The ports (kmeans.sed,
# spmv.sed) run under mag_bdi: its output check covers the port as a none run's would.
rodinia=0
if have_suite rodinia MEMZIP_RODINIA_REPO; then
    bench_run rodinia/bfs none
    bench_run rodinia/bfs mag_bdi
    bench_run rodinia/hotspot mag_bdi
    bench_run rodinia/srad_v2 mag_bdi
    # kmeans: our texture-to-load port (kmeans.sed) and the host k-means.
    bench_run rodinia/kmeans mag_bdi
    bench_run_gpu rodinia/hotspot mag_bdi rtx3070
    rodinia=1
fi
if have_suite lonestar MEMZIP_LONESTAR_REPO; then
    bench_run lonestar/sssp mag_bdi
fi
# SHOC spmv from gpu-app-collection: our texture-to-load port (spmv.sed).
if have_suite shoc MEMZIP_APP_COLLECTION_REPO; then
    bench_run shoc/spmv mag_bdi
fi
# accel-sim/gpu-app-collection: the cheap ones (LIB and lbm take minutes at
# tiny; their tiny runs are in benchmarks/README.md).
parboil=0
if have_suite parboil MEMZIP_APP_COLLECTION_REPO; then
    parboil=1
    bench_run parboil/spmv none
    bench_run parboil/spmv mag_bdi
    # The modern GPUs (issue 50; ~15-40 CPU-s each): a benchmark's tiny preset on the
    # QV100 and the RTX3070, output and blocks checked; the QV100's none run meets
    # every DRAM request (its bursts verdict below).
    bench_run_gpu parboil/spmv none qv100
    bench_run_gpu parboil/spmv mag_bdi qv100
    bench_run_gpu parboil/spmv mag_bdi rtx3070
fi
if have_suite ispass-2009 MEMZIP_APP_COLLECTION_REPO; then
    bench_run ispass-2009/MUM mag_bdi
fi
if have_suite cuda-samples MEMZIP_CUDA_SAMPLES_REPO; then
    bench_run cuda-samples/transpose mag_bdi
fi
# Then what reads or changes a suite's cached tables and inputs, one at a time.
bench_checks
if ((parboil)) && [[ -f "$work/parboil-spmv-none-qv100/stats.json" ]]; then
    bursts_verdict parboil-spmv-tiny-qv100-none-bursts parboil-spmv-none-qv100
fi
if ((rodinia)); then
    # E2MC offline (the E2MC paper §III-B2) from a none run's trace: the none run
    # seeds the cached tables, so the offline run makes no profiling run of its
    # own, and its table compresses.
    tables="$MEMZIP_CACHE/benchmarks/e2mc/rodinia/bfs/tiny@dev"
    rm -rf "$tables"
    "$memzip" bench run rodinia/bfs --codec none --preset tiny --out "$work/bfs-traced" \
        --set "-memzip_trace trace.zst" 2>/dev/null || true
    if "$memzip" bench run rodinia/bfs --codec e2mc16 --preset tiny --e2mc offline \
        --out "$work/bfs-offline" --set "-memzip_verify 1" 2>"$work/bfs-offline.err"; then
        fails=$(total bfs-offline 't["verify"]["failures"]')
        cr=$(total bfs-offline 't["effective_compression_ratio"]')
        verdict rodinia-bfs-e2mc16-offline-from-none-trace \
            "tables: $(ls "$tables" | grep -c 'json$'); effective CR $cr; verify failures $fails" \
            eval '[[ -f "$tables/e2mc16.json" ]] && ! grep -q "profiling run" "$work/bfs-offline.err" &&
                python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 1.0)" "$cr" && ((fails == 0))'
    else
        verdict rodinia-bfs-e2mc16-offline-from-none-trace "$(tail -n 1 "$work/bfs-offline.err")" false
    fi
    # Not heartwall: its tiny takes ~4 CPU-minutes (benchmarks/README.md).
    # A wrong answer must fail the run: corrupt the reference, expect exit != 0.
    ref="$MEMZIP_CACHE/benchmarks/inputs/rodinia/bfs/tiny/reference.txt"
    if [[ -f "$ref" ]]; then
        cp "$ref" "$work/reference.good"
        sed -i '2s/cost:[0-9-]*/cost:999/' "$ref"
        if "$memzip" bench run rodinia/bfs --codec none --preset tiny --out "$work/bfs-wrong" 2>"$work/wrong.err"; then
            verdict rodinia-bfs-wrong-answer "a wrong reference was accepted" false
        else
            verdict rodinia-bfs-wrong-answer "mismatch detected: $(tail -n 1 "$work/wrong.err")" \
                grep -q '"output_ok": false' "$work/bfs-wrong/run.json"
        fi
        cp "$work/reference.good" "$ref"
    fi
fi
if ((parboil)); then
    # E2MC offline with its own profiling run, for a program that writes its
    # output under $OUT: the profiling run writes it in its own folder (the
    # real run's does not exist yet), and the table is stamped by the input's
    # contents, so regenerating the same input keeps it.
    spmv_tables="$MEMZIP_CACHE/benchmarks/e2mc/parboil/spmv/tiny@dev"
    rm -rf "$spmv_tables"
    if "$memzip" bench run parboil/spmv --codec e2mc16 --preset tiny --e2mc offline \
        --out "$work/spmv-offline" --set "-memzip_verify 1" 2>"$work/spmv-offline.err"; then
        rm -f "$MEMZIP_CACHE/benchmarks/inputs/parboil/spmv/tiny/.done"  # forces the same input again
        "$memzip" bench run parboil/spmv --codec e2mc16 --preset tiny --e2mc offline \
            --out "$work/spmv-offline2" --set "-memzip_verify 1" 2>"$work/spmv-offline2.err" || true
        # A log beside the input (lbm's and MUM's reference runs write their
        # timings) is no input: a new one keeps the table too.
        date +%N >"$MEMZIP_CACHE/benchmarks/inputs/parboil/spmv/tiny/reference-timing.log"
        "$memzip" bench run parboil/spmv --codec e2mc16 --preset tiny --e2mc offline \
            --out "$work/spmv-offline3" --set "-memzip_verify 1" 2>"$work/spmv-offline3.err" || true
        fails=$(total spmv-offline 't["verify"]["failures"]')
        verdict parboil-spmv-e2mc16-offline-profiling-run \
            "profiling run, then none for a regenerated identical input nor a new log beside it; verify failures $fails" \
            eval 'grep -q "profiling run" "$work/spmv-offline.err" && [[ -f "$spmv_tables/profile-run/result.bin" ]] &&
                ! grep -q "profiling run" "$work/spmv-offline2.err" && grep -q "output correct" "$work/spmv-offline2.err" &&
                ! grep -q "profiling run" "$work/spmv-offline3.err" && grep -q "output correct" "$work/spmv-offline3.err" &&
                ((fails == 0))'
    else
        verdict parboil-spmv-e2mc16-offline-profiling-run "$(tail -n 1 "$work/spmv-offline.err")" false
    fi
fi

echo "$passed passed, $failed failed"
((failed == 0))
