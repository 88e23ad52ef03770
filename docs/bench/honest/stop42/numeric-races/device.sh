#!/usr/bin/env bash
# Stop 42: main's build (2bc9d63's kernels, the fold) f64 numeric race, both suites
# (its gpu_spgemm tests ran in the fold call, 47/47; f32 there too).
cd gpu-bundle; export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 200 ./spmx $A --type f64 --json $OUT/numeric-f64.json > $OUT/numeric-f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
