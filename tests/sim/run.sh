#!/usr/bin/env bash
# Simulator tests: run when a gpgpu-sim source is available (MEMZIP_GPGPUSIM_REPO
# or a clone in the memzip cache); otherwise print one SKIP line and succeed.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
gpgpusim_paths dev
if [[ -z "${MEMZIP_GPGPUSIM_REPO:-}" && ! -d "$GPGPUSIM_SRC/.git" ]]; then
    echo "SKIP simulator tests: no gpgpu-sim source (set MEMZIP_GPGPUSIM_REPO to a clone or mirror of gpgpu-sim_distribution)"
    exit 0
fi
echo "SKIP simulator tests: the memzip hooks are not wired into gpgpu-sim yet"
