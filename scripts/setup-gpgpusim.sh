#!/usr/bin/env bash
# Get, patch and build gpgpu-sim; print the path of the built libcudart.so
# (the only line on stdout; progress goes to stderr).
#
#   scripts/setup-gpgpusim.sh [--version dev] [--clean]
#
#   --version V   simulator version: `dev` = commit 6b244a5 (2021-10-17),
#                 `v3.2.1` = commit 63ced79 (the papers' version; built against
#                 CUDA 11.8 headers, runs programs built by CUDA 13), or either
#                 with `-baseline` (below)
#   --clean       delete the simulator's build products first (full rebuild)
#
# Baseline (--version dev-baseline): the same simulator with only our
# compatibility patches (gpgpu-sim-patch/<tag>/*.patch not named *memzip*) and
# none of our code (MEMZIP_FFI_LIB, MEMZIP_EXTRA_* are ignored), in its own
# cache dir <tag>-baseline. It is cloned from dev's clone in the cache when
# there is one (a local clone: hard links, no fetch). tests/sim/run.sh uses it
# to check that -memzip_codec none changes no simulator statistic; run
# programs on it with `memzip run --version dev-baseline` (or
# run-in-sim.sh --version dev-baseline).
#
# Environment:
#   MEMZIP_GPGPUSIM_REPO  where to clone from: a local clone or bare mirror
#                         (default: the public upstream repository)
#   MEMZIP_MAKE_JOBS      parallel make jobs (default 2)
#   XDG_CACHE_HOME        the cache root; everything lands in .../memzip
#
# Steps, each idempotent (rerun after a failure resumes):
#   toolkit  scripts/setup-toolkit.sh (no-op once installed)
#   fetch    clone into $MEMZIP_CACHE/gpgpu-sim/<tag>/src once; later runs never
#            refetch (only when the pinned commit is missing from that clone)
#   patch    gpgpu-sim-patch/<tag>/*.patch in name order with `git apply`; the
#            hash of the patch set is kept in <tag>/patch.stamp. When it changes
#            the tree is reset to the pinned commit (tracked files, untracked
#            files; ignored build products are kept) and every patch reapplied.
#   build    make inside a shell that sourced setup_environment (incremental).
#            Skipped when <tag>/build.stamp shows nothing changed since the last
#            successful make: same patch set, toolkit and make variables, and no
#            file of the source tree (cpp_shim's links followed) nor
#            MEMZIP_FFI_LIB newer than the stamp. gpgpu-sim's make relinks
#            libcudart.so on every call, and a program starting while it is
#            being relinked fails ("file too short"): repeated setups must not
#            relink a simulator that others may be running.
#
# HOOK for memzip (the memzip-hooks step of the simulator chain): two env vars,
# both empty by default, feed the simulator build without editing this script:
#   MEMZIP_FFI_LIB        a static library (e.g. the memzip-ffi staticlib built
#                         by cargo) linked into libcudart.so after all of the
#                         simulator's objects, with -lpthread -ldl. Passed to
#                         make as SIM_EXTRA_LDLIBS (the 0001 patch adds that
#                         variable to the top Makefile's link line).
#   MEMZIP_EXTRA_SRC_DIR  a directory of our C++ (e.g. cpp_shim/): its *.cc and
#                         *.h are symlinked into src/gpgpu-sim/, whose Makefile
#                         compiles every *.cc there with the simulator's own
#                         flags; the directory is also put on the include path.
#   MEMZIP_EXTRA_CXXFLAGS more flags for src/gpgpu-sim/ (e.g. -I for the cxx
#                         generated headers). Passed to make as
#                         SIM_EXTRA_CXXFLAGS (added by the 0001 patch).
# memzip_prebuild_hook below is where a cargo build can go.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

version=dev
clean=0
while (($#)); do
    case $1 in
        --version) version=${2:?--version needs a value}; shift 2 ;;
        --version=*) version=${1#*=}; shift ;;
        --clean) clean=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (usage: setup-gpgpusim.sh [--version dev] [--clean])" ;;
    esac
done

step "arguments"
gpgpusim_paths "$version"
# memzip's hooks call cpp_shim/ and the memzip-ffi staticlib: without them the
# library would load but fail on its first memzip symbol. build-sim.sh passes both.
((GPGPUSIM_BASELINE)) || [[ -n "${MEMZIP_FFI_LIB:-}" && -n "${MEMZIP_EXTRA_SRC_DIR:-}" ]] ||
    die "--version $version has memzip's hooks: build it with scripts/build-sim.sh --version $version (this script alone builds the -baseline versions)"
repo=${MEMZIP_GPGPUSIM_REPO:-$MEMZIP_GPGPUSIM_UPSTREAM}
if ((GPGPUSIM_BASELINE)); then
    # The baseline clones from the patched version's clone when there is one:
    # no second fetch.
    main_src="$MEMZIP_CACHE/gpgpu-sim/${GPGPUSIM_TAG%-baseline}/src"
    [[ -d "$main_src/.git" ]] && repo="$main_src"
fi
jobs=${MEMZIP_MAKE_JOBS:-2}
logdir="$GPGPUSIM_DIR/logs"
mkdir -p "$logdir"

# One setup per simulator version at a time.
exec 9>"$GPGPUSIM_DIR/.lock"
flock -w 3600 9 || die "another setup-gpgpusim.sh holds $GPGPUSIM_DIR/.lock"

step "toolkit"
toolkit_args=()
[[ "$GPGPUSIM_CUDA_HOME" != "$MEMZIP_CUDA11_HOME" ]] || toolkit_args=(--with-cuda11)
bash "$MEMZIP_ROOT/scripts/setup-toolkit.sh" "${toolkit_args[@]}" || die "scripts/setup-toolkit.sh failed"

have_commit() {
    git -C "$GPGPUSIM_SRC" cat-file -e "$GPGPUSIM_COMMIT^{commit}" 2>/dev/null
}

step "fetch gpgpu-sim $GPGPUSIM_TAG"
if [[ -d "$GPGPUSIM_SRC/.git" ]] && have_commit; then
    log "source present in $GPGPUSIM_SRC (no fetch)"
elif [[ -d "$GPGPUSIM_SRC/.git" ]]; then
    log "pinned commit missing: fetching it from $repo"
    run_logged "$logdir/fetch.log" git -C "$GPGPUSIM_SRC" fetch --quiet "$repo" \
        "+refs/heads/*:refs/remotes/origin/*" ||
        die "git fetch from $repo failed (log: $logdir/fetch.log)"
    have_commit || die "commit $GPGPUSIM_COMMIT not found in $repo"
else
    log "cloning $repo"
    rm -rf "$GPGPUSIM_SRC.tmp"
    run_logged "$logdir/fetch.log" git clone --quiet --no-checkout "$repo" "$GPGPUSIM_SRC.tmp" ||
        die "git clone $repo failed (set MEMZIP_GPGPUSIM_REPO to a local clone or mirror; log: $logdir/fetch.log)"
    git -C "$GPGPUSIM_SRC.tmp" cat-file -e "$GPGPUSIM_COMMIT^{commit}" 2>/dev/null ||
        die "commit $GPGPUSIM_COMMIT not found in $repo"
    git -C "$GPGPUSIM_SRC.tmp" checkout --quiet --detach "$GPGPUSIM_COMMIT" ||
        die "git checkout $GPGPUSIM_COMMIT failed"
    rm -f "$GPGPUSIM_DIR/patch.stamp"
    mv "$GPGPUSIM_SRC.tmp" "$GPGPUSIM_SRC"
fi

step "patch gpgpu-sim $GPGPUSIM_TAG"
mapfile -t patches < <(gpgpusim_patches)  # a baseline: compatibility fixes only
((${#patches[@]})) || die "no patches in gpgpu-sim-patch/$GPGPUSIM_TAG/"
patch_hash=$({
    echo "$GPGPUSIM_COMMIT"
    for p in "${patches[@]}"; do echo "== $(basename "$p")"; cat "$p"; done
} | sha256sum | cut -d' ' -f1)
head_commit=$(git -C "$GPGPUSIM_SRC" rev-parse HEAD)
if [[ "$head_commit" == "$GPGPUSIM_COMMIT" && -f "$GPGPUSIM_DIR/patch.stamp" &&
      "$(cat "$GPGPUSIM_DIR/patch.stamp")" == "$patch_hash" ]]; then
    log "patch set unchanged (${#patches[@]} patches)"
else
    rm -f "$GPGPUSIM_DIR/patch.stamp"
    # Keep a copy (with mtime) of every file the old patch set touched, so that
    # a file the new set patches identically keeps its mtime and is not
    # recompiled: changing one patch rebuilds only what it changes.
    saved="$GPGPUSIM_DIR/patched-before"
    rm -rf "$saved"
    mkdir -p "$saved"
    (cd "$GPGPUSIM_SRC" &&
        { git diff --name-only HEAD; git ls-files --others --exclude-standard; } |
        while IFS= read -r f; do
            [[ -f "$f" && ! -L "$f" ]] || continue
            mkdir -p "$saved/$(dirname "$f")" && cp -p "$f" "$saved/$f"
        done) || die "saving the patched files failed"
    git -C "$GPGPUSIM_SRC" checkout --quiet --force --detach "$GPGPUSIM_COMMIT" ||
        die "git checkout $GPGPUSIM_COMMIT failed"
    git -C "$GPGPUSIM_SRC" reset --quiet --hard "$GPGPUSIM_COMMIT"
    git -C "$GPGPUSIM_SRC" clean --quiet -fd   # keeps ignored build/ and lib/
    for p in "${patches[@]}"; do
        log "apply $(basename "$p")"
        git -C "$GPGPUSIM_SRC" apply --whitespace=nowarn "$p" 2>"$logdir/patch.log" || {
            cat "$logdir/patch.log" >&2
            die "git apply $(basename "$p") failed"
        }
    done
    (cd "$saved" && find . -type f) | while IFS= read -r f; do
        if cmp -s "$saved/$f" "$GPGPUSIM_SRC/$f"; then
            touch -m -r "$saved/$f" "$GPGPUSIM_SRC/$f"
        fi
    done
    rm -rf "$saved"
    echo "$patch_hash" >"$GPGPUSIM_DIR/patch.stamp"
fi

build_stamp="$GPGPUSIM_DIR/build.stamp"
if ((clean)); then
    step "clean build products"
    rm -f "$build_stamp"
    rm -rf "${GPGPUSIM_SRC:?}/build" "${GPGPUSIM_SRC:?}/lib"
fi
if ((GPGPUSIM_BASELINE)); then  # the unpatched simulator: none of our code
    unset MEMZIP_FFI_LIB MEMZIP_EXTRA_SRC_DIR MEMZIP_EXTRA_CXXFLAGS
fi

# Runs in the patched tree, after setup_environment, before make. Default: link
# MEMZIP_EXTRA_SRC_DIR's sources into src/gpgpu-sim/ (links of files no longer
# wanted are removed with their objects, so a stale object is never linked).
# The memzip step may add e.g. `cargo build --release -p memzip-ffi` here and
# set MEMZIP_FFI_LIB.
memzip_prebuild_hook() {
    local d=${MEMZIP_EXTRA_SRC_DIR:-} f name
    local simdir="$GPGPUSIM_SRC/src/gpgpu-sim"
    local objdir="$GPGPUSIM_SRC/build/$GPGPUSIM_CONFIG/gpgpu-sim"
    if [[ -n "$d" ]]; then
        [[ -d "$d" ]] || die "MEMZIP_EXTRA_SRC_DIR=$d is not a directory"
        d=$(cd "$d" && pwd)
    fi
    for f in "$simdir"/*; do
        [[ -L "$f" ]] || continue
        name=$(basename "$f")
        [[ -n "$d" && "$(readlink "$f")" == "$d/$name" && -e "$d/$name" ]] && continue
        rm -f "$f" "$objdir/${name%.cc}.o"
    done
    [[ -n "$d" ]] || return 0
    for f in "$d"/*.cc "$d"/*.h; do
        [[ -e "$f" ]] || continue
        name=$(basename "$f")
        [[ -L "$simdir/$name" ]] && continue
        [[ ! -e "$simdir/$name" ]] ||
            die "$name from MEMZIP_EXTRA_SRC_DIR clashes with a gpgpu-sim file"
        ln -s "$f" "$simdir/$name"
    done
    MEMZIP_EXTRA_CXXFLAGS="-I$d ${MEMZIP_EXTRA_CXXFLAGS:-}"
}

step "setup_environment"
gpgpusim_env

step "prebuild hook"
memzip_prebuild_hook

make_vars=()
if [[ -n "${MEMZIP_FFI_LIB:-}" ]]; then
    [[ -f "$MEMZIP_FFI_LIB" ]] || die "MEMZIP_FFI_LIB=$MEMZIP_FFI_LIB does not exist"
    make_vars+=("SIM_EXTRA_LDLIBS=$(realpath "$MEMZIP_FFI_LIB") -lpthread -ldl")
fi
[[ -z "${MEMZIP_EXTRA_CXXFLAGS:-}" ]] || make_vars+=("SIM_EXTRA_CXXFLAGS=$MEMZIP_EXTRA_CXXFLAGS")

# What the last successful make was built from (see "build" in the header).
build_key=$({
    echo "$patch_hash $MEMZIP_CUDA_PIN $GPGPUSIM_CUDA_HOME $GPGPUSIM_CONFIG"
    printf '%s\n' "${make_vars[@]}"
    find "$GPGPUSIM_SRC/src" -type l -printf '%P -> %l\n' | sort   # linked MEMZIP_EXTRA_SRC_DIR files
} | sha256sum | cut -d' ' -f1)
build_is_current() {
    [[ -f "$build_stamp" && "$(cat "$build_stamp")" == "$build_key" &&
        -f "$GPGPUSIM_LIBDIR/libcudart.so" ]] || return 1
    [[ -z "${MEMZIP_FFI_LIB:-}" || ! "$MEMZIP_FFI_LIB" -nt "$build_stamp" ]] || return 1
    [[ -z "$(find -L "$GPGPUSIM_SRC" \( -path "$GPGPUSIM_SRC/.git" -o -path "$GPGPUSIM_SRC/build" \
        -o -path "$GPGPUSIM_SRC/lib" \) -prune -o -newer "$build_stamp" -print -quit)" ]]
}

step "build gpgpu-sim $GPGPUSIM_TAG (make -j$jobs, log: $logdir/build.log)"
if build_is_current; then
    log "up to date (build.stamp): make skipped"
else
    rm -f "$build_stamp"
    t0=$(date +%s)
    if ! (cd "$GPGPUSIM_SRC" && make -j"$jobs" "${make_vars[@]}") >"$logdir/build.log" 2>&1; then
        echo "---- first errors in $logdir/build.log ----" >&2
        grep -n -m 15 -E 'error|Error [0-9]' "$logdir/build.log" >&2 || tail -n 30 "$logdir/build.log" >&2
        die "make failed (log: $logdir/build.log)"
    fi
    log "make took $(($(date +%s) - t0)) s"
    echo "$build_key" >"$build_stamp"
fi

step "check libcudart.so"
libdir="$GPGPUSIM_LIBDIR"
lib="$libdir/libcudart.so"
[[ -f "$lib" ]] || die "$lib was not built"
[[ -e "$libdir/libcudart.so.13" ]] || die "$libdir/libcudart.so.13 missing"
syms=$(nm -D --defined-only "$lib") || die "nm -D $lib failed"
grep -q ' __cudaLaunchKernel$' <<<"$syms" ||
    die "$lib lacks __cudaLaunchKernel (is the 0001 patch applied?)"
echo "$libdir" >"$GPGPUSIM_DIR/libdir"

# Checkouts sharing this cache (the main checkout, a CI clone, a worktree)
# each link their own memzip into the same tree, and make relinks
# lib/.../libcudart.so in place: the last build would win for everyone. So
# every build also keeps a snapshot of its library folder named by content
# (libs/<hash>, made under a temporary name and renamed: complete or absent),
# and records it as this checkout's (checkouts/<hash of the checkout path>).
# run-in-sim.sh loads the checkout's snapshot: a run never loads another
# checkout's memzip, and a rebuild never changes a library a run has loaded.
step "snapshot the library for this checkout"
snapshot="$GPGPUSIM_DIR/libs/$(sha256sum "$lib" | cut -c1-16)"
if [[ ! -d "$snapshot" ]]; then
    mkdir -p "$GPGPUSIM_DIR/libs"
    tmp=$(mktemp -d "$GPGPUSIM_DIR/libs/.tmp.XXXXXX")
    cp -a "$libdir"/. "$tmp"/ || die "copying $libdir failed"
    mv -T "$tmp" "$snapshot" 2>/dev/null || rm -rf "$tmp"
fi
pointer=$(gpgpusim_checkout_pointer)
mkdir -p "$(dirname "$pointer")"
# Line 3: what it was built from; runs compare it (lib.sh, gpgpusim_run_libdir).
printf '%s\n%s\n%s\n' "$snapshot" "$MEMZIP_ROOT" "$(gpgpusim_sources_key)" >"$pointer.tmp" &&
    mv -f "$pointer.tmp" "$pointer"
# Forget checkouts that are gone (e.g. finished CI clones), then snapshots no
# checkout names that are over an hour old (a loaded library stays mapped
# after its file is removed, so even a running simulation is unaffected).
for f in "$GPGPUSIM_DIR"/checkouts/*; do
    [[ -f "$f" ]] || continue
    [[ -d "$(sed -n 2p "$f")" ]] || rm -f "$f"
done
for d in "$GPGPUSIM_DIR"/libs/*; do
    [[ -d "$d" ]] || continue
    grep -qxF "$d" "$GPGPUSIM_DIR"/checkouts/* 2>/dev/null && continue
    [[ -n "$(find "$d" -maxdepth 0 -mmin +60)" ]] && rm -rf "$d"
done
log "this checkout runs $snapshot"

step "gpgpu-sim $GPGPUSIM_TAG ready"
echo "$snapshot/libcudart.so"
