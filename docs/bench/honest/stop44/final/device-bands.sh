#!/usr/bin/env bash
# Stop 44 call 5: the two f64 bands call 4's f64 race of main's build ran out of time before.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
A="bench spgemm --suite validate --reps 5 --warmup 2 --max-products 2000000000 --numeric --only banded-1M-33 --only banded-500K-51"
timeout 150 ./spmx $A --type f64 --json $OUT/f-f64-bands.json > $OUT/f-f64-bands.log 2>&1; echo "bands f64 rc=$? $SECONDS s"; grep -E "spgemm-numeric|reuse" $OUT/f-f64-bands.log
