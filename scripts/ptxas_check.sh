#!/usr/bin/env bash
# Builds spmx's PTX (feature gpu) and assembles it with ptxas for
# each architecture in $PTXAS_ARCHS (default: sm_80 sm_90), as the driver's
# JIT would on those GPUs. Fails when ptxas reports an error; prints the
# registers, spills and stack of every kernel, and ptxas's warnings.
#
# ptxas comes from $PTXAS, else the PATH, else the nvidia-cuda-nvcc wheel
# in the current Python (pip install nvidia-cuda-nvcc==13.0.88). No GPU needed.
# SPMX_CUDA_ARCH=sm_90 builds the PTX itself for sm_90 (default sm_80).
set -euo pipefail
# Any command that fails says so, with its line (set -e alone exits silently).
trap 'echo "ptxas_check.sh: line $LINENO: \`$BASH_COMMAND\` failed" >&2' ERR
cd "$(dirname "$0")/.."
archs=${PTXAS_ARCHS:-"sm_80 sm_90"}

find_ptxas() {
    if [[ -n "${PTXAS:-}" ]]; then echo "$PTXAS"; return; fi
    if command -v ptxas >/dev/null; then command -v ptxas; return; fi
    local py=${PYTHON:-python3}
    "$py" - <<'EOF' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
for root in roots:
    for path in sorted(glob.glob(os.path.join(root, "nvidia", "*", "bin", "ptxas"))):
        print(path); sys.exit(0)
sys.exit(1)
EOF
}
ptxas=$(find_ptxas) || {
    echo "ptxas not found: set PTXAS, put it on the PATH, or pip install nvidia-cuda-nvcc==13.0.88" >&2
    exit 1
}
echo "== $("$ptxas" --version | tail -1)"

# `cargo check` runs build.rs (which builds the PTX in a profile of its own,
# the same whatever the outer one) without compiling spmx itself.
echo "== cargo check --lib --features gpu (SPMX_CUDA_ARCH=${SPMX_CUDA_ARCH:-sm_80})"
json=$(cargo check --lib --features gpu --message-format=json) || {
    echo "ptxas_check.sh: cargo check --lib --features gpu failed (its errors are above)" >&2
    exit 1
}
# spmx's build script output folder, <target>/<profile>/build/spmx-<hash>/out:
# named after the package whatever the checkout's folder is called (the
# package id is `path+file:///…/spmx#0.1.0` in a folder named spmx, but
# `…/other#spmx@0.1.0` elsewhere).
out_dir=$(grep '"reason":"build-script-executed"' <<<"$json" |
    sed -n 's/.*"out_dir":"\([^"]*\/build\/spmx-[0-9a-f]*\/out\)".*/\1/p' | tail -1) || true
if [[ -z "$out_dir" ]]; then
    echo "ptxas_check.sh: cargo reported no build-script output folder for spmx" >&2
    exit 1
fi
ptx="$out_dir/kernels.ptx"
if [[ ! -f "$ptx" ]]; then
    echo "ptxas_check.sh: no kernels.ptx in spmx's build output ($out_dir)" >&2
    exit 1
fi
if [[ ! -s "$ptx" ]]; then
    echo "ptxas_check.sh: $ptx is empty: spmx was built without GPU kernels (the build's warning above says why)" >&2
    exit 1
fi
echo "== $ptx: $(wc -c <"$ptx") bytes, $(grep -c '^\.visible \.entry' "$ptx") kernels, $(grep -m1 '^\.target' "$ptx")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for arch in $archs; do
    if ! "$ptxas" -arch="$arch" -v "$ptx" -o "$tmp/$arch.cubin" >"$tmp/$arch.log" 2>&1; then
        echo "== ptxas -arch=$arch FAILED" >&2
        cat "$tmp/$arch.log" >&2
        status=1
        continue
    fi
    grep -i 'warning' "$tmp/$arch.log" | sed "s/^/== ptxas $arch: /" || true
    # "Compiling entry function 'K' …", then "N bytes stack frame, N bytes spill
    # stores, N bytes spill loads", then "Used N registers".
    awk -v arch="$arch" '
        /Compiling entry function/ { split($0, q, "'\''"); name = q[2] }
        /bytes stack frame/ { stack = $1; st = $5; ld = $9 }
        /Used [0-9]+ registers/ {
            for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
            printf "%s %s %s %s %s %s\n", name, arch, regs, st, ld, stack
        }' "$tmp/$arch.log" >>"$tmp/table"
done

if [[ -s "$tmp/table" ]]; then
    printf '\n%-36s %-6s %5s %9s %9s %6s\n' kernel arch regs spill-st spill-ld stack
    sort -k1,1 -k2,2 "$tmp/table" | awk '{ printf "%-36s %-6s %5s %9s %9s %6s\n", $1, $2, $3, $4, $5, $6 }'
    awk '{ if ($4 + $5 > 0) n++ } END { printf "\n== %d kernel builds, %d with spills\n", NR, n }' "$tmp/table"
fi
exit $status
