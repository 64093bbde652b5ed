#!/usr/bin/env bash
# Install what building gpgpu-sim and CUDA programs needs:
#   1. Debian build deps (apt; skipped when all are installed),
#   2. the CUDA 13.2 toolkit from PyPI wheels into $MEMZIP_CACHE/cuda-13.2/pip,
#      laid out so that $MEMZIP_CACHE/cuda-13.2/pip/nvidia/cu13 works as
#      CUDA_INSTALL_PATH (bin/nvcc, include/, lib/, lib64 -> lib).
#   3. with --with-cuda11: the CUDA 11.8 headers (PyPI nvidia-cuda-runtime-cu11
#      and nvidia-cuda-nvcc-cu11 wheels) that gpgpu-sim v3.2.1 builds against,
#      as $MEMZIP_CACHE/cuda-11.8/home: include/ of both wheels, lib64/ of
#      the runtime wheel, and bin/ with CUDA 13's cuobjdump and ptxas (the
#      programs are CUDA 13's) plus an nvcc that only answers --version
#      (v3.2.1's build and setup_environment read the CUDA release from it).
# Idempotent: $MEMZIP_CACHE/cuda-13.2/.stamp (and cuda-11.8/.stamp) mark
# finished installs and a rerun is then a no-op.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

with_cuda11=0
case ${1:-} in
    --with-cuda11) with_cuda11=1 ;;
    "") ;;
    *) die "unknown argument '$1' (usage: setup-toolkit.sh [--with-cuda11])" ;;
esac

# python3-pip and python3-venv: `python3 -m pip` (below) and the Python tests' venv;
# Debian ships them apart from python3.
APT_DEPS=(build-essential xutils-dev bison flex zlib1g-dev libglu1-mesa-dev python3-pip python3-venv)
# One pip call installs all of them: a second `pip install --target` into the
# same dir silently skips the shared nvidia/ namespace dir.
CUDA_WHEELS=(nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime
             nvidia-cuda-cccl nvidia-cuda-cuobjdump nvidia-cuda-profiler-api)

step "apt build deps"
missing=()
for p in "${APT_DEPS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    log "installing: ${missing[*]}"
    SUDO=()
    [[ $(id -u) == 0 ]] || SUDO=(sudo)
    run_logged "$MEMZIP_CACHE/logs/apt.log" "${SUDO[@]}" apt-get update ||
        die "apt-get update failed"
    run_logged "$MEMZIP_CACHE/logs/apt.log" env DEBIAN_FRONTEND=noninteractive \
        "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}" ||
        die "apt-get install ${missing[*]} failed"
else
    log "all present"
fi

PY=$(command -v python3 || command -v python) || die "python3 not found"

# cuda11_headers: step 3 (see the header).
cuda11_headers() {
    local stamp="$MEMZIP_CUDA11_DIR/.stamp" pip="$MEMZIP_CUDA11_DIR/pip" home="$MEMZIP_CUDA11_HOME"
    step "CUDA $MEMZIP_CUDA11_PIN headers (gpgpu-sim v3.2.1)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$MEMZIP_CUDA11_PIN" ]]; then
        log "already in $home"
        return
    fi
    rm -rf "$pip" "$home" "$stamp"
    mkdir -p "$MEMZIP_CUDA11_DIR"
    run_logged "$MEMZIP_CACHE/logs/pip-cuda11.log" "$PY" -m pip install --disable-pip-version-check \
        --no-input --target "$pip" "nvidia-cuda-runtime-cu11==$MEMZIP_CUDA11_PIN" \
        "nvidia-cuda-nvcc-cu11==$MEMZIP_CUDA11_PIN" ||
        die "pip install of the CUDA 11.8 wheels failed (log: $MEMZIP_CACHE/logs/pip-cuda11.log)"
    local runtime="$pip/nvidia/cuda_runtime" nvcc="$pip/nvidia/cuda_nvcc"
    [[ -f "$runtime/include/cuda_runtime.h" && -d "$nvcc/include/crt" ]] ||
        die "the CUDA 11.8 wheels lack include/cuda_runtime.h or include/crt"
    mkdir -p "$home/include" "$home/bin"
    cp -rs "$runtime/include/." "$home/include/"
    cp -rs "$nvcc/include/crt" "$home/include/crt"
    ln -s "$runtime/lib" "$home/lib64"
    ln -s "$MEMZIP_CUDA_HOME/bin/cuobjdump" "$home/bin/cuobjdump"
    ln -s "$MEMZIP_CUDA_HOME/bin/ptxas" "$home/bin/ptxas"
    cat >"$home/bin/nvcc" <<EOF2
#!/bin/sh
# Not a compiler: gpgpu-sim v3.2.1's build asks nvcc only for the CUDA release
# of the headers it compiles against. Programs are built by CUDA 13's nvcc.
echo "Cuda compilation tools, release 11.8, V$MEMZIP_CUDA11_PIN"
EOF2
    chmod +x "$home/bin/nvcc"
    echo "$MEMZIP_CUDA11_PIN" >"$stamp"
    log "CUDA_INSTALL_PATH for v3.2.1: $home"
}

stamp="$MEMZIP_CUDA_DIR/.stamp"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$MEMZIP_CUDA_PIN" ]]; then
    step "CUDA $MEMZIP_CUDA_PIN toolkit"
    log "already installed in $MEMZIP_CUDA_HOME"
    ((with_cuda11 == 0)) || cuda11_headers
    exit 0
fi

step "pip install CUDA $MEMZIP_CUDA_PIN wheels"
rm -rf "$MEMZIP_CUDA_DIR/pip" "$stamp"
mkdir -p "$MEMZIP_CUDA_DIR"
specs=()
for w in "${CUDA_WHEELS[@]}"; do specs+=("$w==$MEMZIP_CUDA_PIN"); done
run_logged "$MEMZIP_CACHE/logs/pip-cuda.log" "$PY" -m pip install --disable-pip-version-check \
    --no-input --target "$MEMZIP_CUDA_DIR/pip" "${specs[@]}" ||
    die "pip install of the CUDA wheels failed (log: $MEMZIP_CACHE/logs/pip-cuda.log)"

step "lay out CUDA_INSTALL_PATH"
cd "$MEMZIP_CUDA_HOME" 2>/dev/null || die "wheels did not create $MEMZIP_CUDA_HOME"
[[ -x bin/nvcc ]] || die "bin/nvcc missing in $MEMZIP_CUDA_HOME"
[[ -e lib64 ]] || ln -s lib lib64
[[ -e lib/libcudart.so.13 ]] || die "lib/libcudart.so.13 missing in $MEMZIP_CUDA_HOME"
[[ -e lib/libcudart.so ]] || ln -s libcudart.so.13 lib/libcudart.so
[[ -f include/cudaProfiler.h ]] || die "include/cudaProfiler.h missing (nvidia-cuda-profiler-api)"

step "check nvcc"
ver=$(bin/nvcc --version) || die "bin/nvcc --version failed"
grep -q "release $MEMZIP_CUDA_VERSION" <<<"$ver" || die "unexpected nvcc version: $ver"
log "$(grep release <<<"$ver")"

echo "$MEMZIP_CUDA_PIN" >"$stamp"
step "CUDA toolkit ready: CUDA_INSTALL_PATH=$MEMZIP_CUDA_HOME"
((with_cuda11 == 0)) || cuda11_headers
