#!/usr/bin/env bash
# Benchmark tests: Rodinia bfs at the tiny preset under none and mag_bdi with
# -memzip_verify 1, through scripts/bench.sh (build, our input generator,
# simulator, output compared with our host BFS).
#
# Runs when a Rodinia source is available (MEMZIP_RODINIA_REPO, or the clone a
# previous bench.sh run left in the memzip cache); otherwise prints one SKIP
# line and succeeds. MEMZIP_KEEP_RUNS=1 keeps the run directories.
# Ends with "N passed, N failed".
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
if [[ -z "${MEMZIP_RODINIA_REPO:-}" && ! -d "$MEMZIP_CACHE/benchmarks/src/rodinia/.git" ]]; then
    echo "SKIP benchmark tests: no Rodinia source (set MEMZIP_RODINIA_REPO to a clone or mirror of yuhc/gpu-rodinia)"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memzip-benchtest.XXXXXX")
if [[ "${MEMZIP_KEEP_RUNS:-0}" == 1 ]]; then
    echo "run directories kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
passed=0
failed=0
verdict() {  # verdict NAME DETAIL CONDITION...
    local name=$1 detail=$2
    shift 2
    if "$@"; then
        passed=$((passed + 1))
        echo "PASS $name: $detail"
    else
        failed=$((failed + 1))
        echo "FAIL $name: $detail"
    fi
}
# verify_failures RUN: the run's total -memzip_verify failures (stats.json).
verify_failures() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["verify"]["failures"])' "$1/stats.json"
}

bash "$MEMZIP_ROOT/scripts/build-sim.sh" >/dev/null

# The list names every manifest with its status.
if list=$(bash "$MEMZIP_ROOT/scripts/bench.sh" list 2>&1) && grep -Eq '^rodinia +bfs +.*runs$' <<<"$list"; then
    verdict bench-list "bfs listed as runs" true
else
    verdict bench-list "bench.sh list: $list" false
fi

for codec in none mag_bdi; do
    run="$work/bfs-$codec"
    if bash "$MEMZIP_ROOT/scripts/bench.sh" run bfs --codec "$codec" --preset tiny --out "$run" \
        --set "-memzip_verify 1" 2>"$run.err"; then
        fails=$(verify_failures "$run")
        verdict "rodinia-bfs-tiny-$codec" "result.txt equals the host BFS; verify failures $fails" test "$fails" -eq 0
    else
        verdict "rodinia-bfs-tiny-$codec" "$(tail -n 1 "$run.err")" false
    fi
done

# A wrong answer must fail the run: corrupt the reference, expect exit != 0.
ref="$MEMZIP_CACHE/benchmarks/inputs/rodinia/bfs/tiny/reference.txt"
if [[ -f "$ref" ]]; then
    cp "$ref" "$work/reference.good"
    sed -i '2s/cost:[0-9-]*/cost:999/' "$ref"
    if bash "$MEMZIP_ROOT/scripts/bench.sh" run bfs --codec none --preset tiny --out "$work/bfs-wrong" 2>"$work/wrong.err"; then
        verdict rodinia-bfs-wrong-answer "a wrong reference was accepted" false
    else
        verdict rodinia-bfs-wrong-answer "mismatch detected: $(tail -n 1 "$work/wrong.err")" true
    fi
    cp "$work/reference.good" "$ref"
fi

echo "$passed passed, $failed failed"
((failed == 0))
