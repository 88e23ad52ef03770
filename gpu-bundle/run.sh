#!/usr/bin/env bash
# Runs spmx's GPU tests, then `spmx bench` (arguments: what to bench; none:
# `spmv --suite gpu-default`; `tests`: the tests alone). Exit status: non-zero
# if any test or the bench failed.
cd "$(dirname "$0")"
export SPMX_REAL_DATA=$PWD/real
# cuSPARSE: the CUDA toolkit's, else the one pip installed beside PyTorch.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cusparse", "lib") for p in nvidia.__path__))' 2>/dev/null); do
    [[ -d $d ]] && LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
done
export LD_LIBRARY_PATH
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
log=$(mktemp)
for t in tests/*; do
    echo "== $t"
    "$t" --nocapture >"$log" 2>&1
    rc=$?
    # Passing tests print one line each; a failure prints everything.
    if [[ $rc -eq 0 ]]; then
        grep -E '^(skipping|test result)' "$log"
    else
        cat "$log"
        status=1
    fi
done
if [[ "${1:-}" != tests ]]; then
    args=("$@")
    [[ ${#args[@]} -gt 0 ]] || args=(spmv --suite gpu-default)
    echo "== spmx bench ${args[*]}"
    ./spmx bench "${args[@]}" || status=1
fi
echo "== bundle run status: $status"
exit $status
