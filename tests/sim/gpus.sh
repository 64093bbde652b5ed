# Sourced by tests/sim/run.sh: the modern GPU configs (--gpu qv100, rtx3070:
# gpgpu-sim's SM7_QV100 and SM86_RTX3070, sectored L2s with 32-byte sectors).
#  - under none every DRAM request meets memzip: column commands (+ those
#    still owed at the end) == bursts,
#    the sector reads are counted as partial reads, the output is right;
#  - sectors.cu (first sector of each line read and written) under mag_bdi
#    with -memzip_verify 1 on QV100: sector reads of compressed lines fetch
#    the whole stored line (over-fetch counted), write-backs of one dirty
#    sector read the line back (read-modify-write bursts counted and on the
#    DRAM bus: commands + owed == bursts), 0 verify failures, output right;
#    -memzip_partial_writes raw instead stores those lines raw (fallbacks);
#  - patterns ints under mag_bdi with -memzip_partial_reads fill: the sector
#    reads a warp sends at once for a compressed line ride on the line's one
#    whole fetch (merged reads), so DRAM reads fewer bursts than under the
#    default (sector), where each of them fetches the line; verify, output
#    and commands == bursts as in every run;
#  - sectors.cu with `reread` (a second kernel reads each line's second
#    sector), cold L2: under sector each of those reads fetches its line
#    again (refetches == lines: also no two blocks share a controller key),
#    under fill the first fetch filled the other three sectors
#    (filled_sectors == 3 x lines, no refetch).
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$work/sectors" "$MEMZIP_ROOT/benchmarks/kernels/sectors.cu"
gpu_words=1048576  # 4 MiB per buffer: two exceed the 6 MB L2 a host copy fills (QV100: ~100 CPU-s a run)
sector_lines=65536 # 8 MiB per buffer: beyond QV100's 6 MB L2, so write-backs reach DRAM

gpu_sim() {  # gpu_sim RUN GPU CODEC PROGRAM ARGS... (memzip run, verify on)
    local name=$1 gpu=$2 codec=$3
    shift 3
    "$memzip" run --gpu "$gpu" --codec "$codec" --out "$work/$name" --set "-memzip_verify 1" \
        --expect '^PASS' "${gpu_sets[@]}" -- "$@" 2>"$work/$name.err"
}
gpu_sets=()
spawn qv100-ints-none gpu_sim qv100-ints-none qv100 none "$work/patterns" ints "$gpu_words"
spawn rtx3070-ints-none gpu_sim rtx3070-ints-none rtx3070 none "$work/patterns" ints "$gpu_words"
spawn qv100-ints-mag_bdi gpu_sim qv100-ints-mag_bdi qv100 mag_bdi "$work/patterns" ints "$gpu_words"
spawn qv100-sectors-none gpu_sim qv100-sectors-none qv100 none "$work/sectors" ints "$sector_lines"
spawn qv100-sectors-rmw gpu_sim qv100-sectors-rmw qv100 mag_bdi "$work/sectors" ints "$sector_lines"
gpu_sets=(--set "-memzip_partial_writes raw")
spawn qv100-sectors-raw gpu_sim qv100-sectors-raw qv100 mag_bdi "$work/sectors" ints "$sector_lines"
gpu_sets=(--set "-memzip_partial_reads fill")
spawn qv100-ints-fill gpu_sim qv100-ints-fill qv100 mag_bdi "$work/patterns" ints "$gpu_words"
reread_lines=16384 # 2 MiB per buffer: both stay in the 6 MB L2 between the two kernels
gpu_sets=(--set "-gpgpu_perf_sim_memcpy 0")
spawn qv100-reread-sector gpu_sim qv100-reread-sector qv100 mag_bdi "$work/sectors" ints "$reread_lines" reread
gpu_sets=(--set "-gpgpu_perf_sim_memcpy 0" --set "-memzip_partial_reads fill")
spawn qv100-reread-fill gpu_sim qv100-reread-fill qv100 mag_bdi "$work/sectors" ints "$reread_lines" reread
gpu_sets=()

for name in qv100-ints-none rtx3070-ints-none qv100-ints-mag_bdi qv100-sectors-none qv100-sectors-rmw qv100-sectors-raw \
    qv100-ints-fill qv100-reread-sector qv100-reread-fill; do
    if joined "$name"; then
        verdict "$name" "output PASS, verify failures $(total "$name" 't["verify"]["failures"]'), partial reads $(total "$name" 't["partial"]["reads"]'), partial writes $(total "$name" 't["partial"]["writes"]')" \
            test "$(total "$name" 't["verify"]["failures"]')" -eq 0 -a "$(total "$name" 't["partial"]["reads"]')" -gt 0
        bursts_verdict "$name-bursts" "$name"
    else
        verdict "$name" "program or simulator failed: $(tail -n 2 "$work/$name.err" | tr '\n' ' ')" false
    fi
done
if [[ -f "$work/qv100-sectors-rmw/stats.json" && -f "$work/qv100-sectors-raw/stats.json" ]]; then
    verdict "qv100-sector-reads-overfetch" "sector reads of compressed lines: $(total qv100-sectors-rmw 't["partial"]["compressed_reads"]'), over-fetched bursts $(total qv100-sectors-rmw 't["partial"]["overfetch_bursts"]')" \
        test "$(total qv100-sectors-rmw 't["partial"]["compressed_reads"]')" -gt 0
    verdict "qv100-partial-writes-rmw" "read-modify-writes $(total qv100-sectors-rmw 't["partial"]["rmw_reads"]') reading $(total qv100-sectors-rmw 't["partial"]["rmw_read_bursts"]') bursts; write column commands $(total qv100-sectors-rmw 't["dram_device"]["write_commands"]') >= write bursts + those" \
        test "$(total qv100-sectors-rmw 't["partial"]["rmw_read_bursts"]')" -gt 0 -a \
        "$(total qv100-sectors-rmw 't["dram_device"]["write_commands"]')" -ge "$(total qv100-sectors-rmw 't["dram_writes"]["bursts"] + t["partial"]["rmw_read_bursts"]')"
    verdict "qv100-partial-writes-raw" "raw fallbacks $(total qv100-sectors-raw 't["partial"]["raw_fallbacks"]') (rmw: $(total qv100-sectors-rmw 't["partial"]["raw_fallbacks"]')), lines recompressed by partial writes $(total qv100-sectors-raw 't["writes"]["blocks"]')" \
        test "$(total qv100-sectors-raw 't["partial"]["raw_fallbacks"]')" -gt 0
fi
if [[ -f "$work/qv100-ints-mag_bdi/stats.json" && -f "$work/qv100-ints-fill/stats.json" ]]; then
    verdict "qv100-partial-reads-fill" "sector reads matched to a fetch in flight $(total qv100-ints-fill 't["partial"]["merged_reads"]'); DRAM read bursts $(total qv100-ints-fill 't["dram_reads"]["bursts"]') under fill < $(total qv100-ints-mag_bdi 't["dram_reads"]["bursts"]') under sector" \
        test "$(total qv100-ints-fill 't["partial"]["merged_reads"]')" -gt 0 -a \
        "$(total qv100-ints-fill 't["dram_reads"]["bursts"]')" -lt "$(total qv100-ints-mag_bdi 't["dram_reads"]["bursts"]')"
fi
if [[ -f "$work/qv100-reread-sector/stats.json" && -f "$work/qv100-reread-fill/stats.json" ]]; then
    verdict "qv100-reread-sector" "second-sector reads fetched whole again: $(total qv100-reread-sector 't["partial"]["refetches"]') of $reread_lines lines" \
        test "$(total qv100-reread-sector 't["partial"]["refetches"]')" -eq "$reread_lines"
    verdict "qv100-reread-fill" "sectors filled $(total qv100-reread-fill 't["partial"]["filled_sectors"]') (3 x $reread_lines lines), refetches $(total qv100-reread-fill 't["partial"]["refetches"]'); DRAM read bursts $(total qv100-reread-fill 't["dram_reads"]["bursts"]') against $(total qv100-reread-sector 't["dram_reads"]["bursts"]') under sector" \
        test "$(total qv100-reread-fill 't["partial"]["filled_sectors"]')" -eq $((3 * reread_lines)) -a \
        "$(total qv100-reread-fill 't["partial"]["refetches"]')" -eq 0 -a \
        "$(total qv100-reread-fill 't["dram_reads"]["bursts"]')" -lt "$(total qv100-reread-sector 't["dram_reads"]["bursts"]')"
fi
verdict "v321-refuses-qv100" "$("$memzip" run --version v3.2.1 --gpu qv100 --codec none --out "$work/v321-qv100" -- "$work/patterns" ints 1024 2>&1 | tail -n 1)" \
    eval '! "$memzip" run --version v3.2.1 --gpu qv100 --codec none --out "$work/v321-qv100" -- "$work/patterns" ints 1024 >/dev/null 2>&1'
