#!/usr/bin/env bash
# Ships the GPU kernels' PTX: builds it from the kernel sources (build.rs
# with SPMX_BUILD_PTX=1: the pinned nightly of gpu-kernels/ptx-toolchain.toml,
# for sm_80) and writes ptx/kernels-sm_80.ptx.gz and the fingerprint of its
# sources, which every normal build unpacks instead of building the kernels.
# Run it after changing gpu-kernels/ or tools/ptx-linker/, and commit ptx/;
# CI fails while the shipped PTX is not the sources' (SPMX_BUILD_PTX=verify).
set -euo pipefail
trap 'echo "ship_ptx.sh: line $LINENO: \`$BASH_COMMAND\` failed" >&2' ERR
cd "$(dirname "$0")/.."
json=$(env -u SPMX_CUDA_ARCH -u SPMX_NO_GPU_KERNELS SPMX_BUILD_PTX=1 \
    cargo check --lib --features gpu --message-format=json)
# spmx's build script output folder (see scripts/ptxas_check.sh).
out_dir=$(grep '"reason":"build-script-executed"' <<<"$json" |
    sed -n 's/.*"out_dir":"\([^"]*\/build\/spmx-[0-9a-f]*\/out\)".*/\1/p' | tail -1) || true
if [[ -z "$out_dir" || ! -s "$out_dir/kernels.ptx" || ! -f "$out_dir/kernels.fingerprint" ]]; then
    echo "ship_ptx.sh: the build made no PTX (its warnings above say why)" >&2
    exit 1
fi
mkdir -p ptx
# -n: no name or time in the header, so the same PTX gives the same file.
gzip -9n <"$out_dir/kernels.ptx" >ptx/kernels-sm_80.ptx.gz
cp "$out_dir/kernels.fingerprint" ptx/kernels-sm_80.fingerprint
echo "ship_ptx.sh: ptx/kernels-sm_80.ptx.gz ($(wc -c <ptx/kernels-sm_80.ptx.gz) bytes," \
    "$(grep -c '^\.visible \.entry' "$out_dir/kernels.ptx") kernels): $(cat ptx/kernels-sm_80.fingerprint)"
