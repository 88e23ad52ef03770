#!/usr/bin/env bash
# The gpu_spgemm tests of this build, then its numeric phase against
# cusparseSpGEMMreuse_compute, f32 then f64, both suites.
cd gpu-bundle; export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 130 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 120 ./spmx $A --type f32 --json $OUT/numeric-f32.json > $OUT/numeric-f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
timeout $((355 - SECONDS)) ./spmx $A --type f64 --json $OUT/numeric-f64.json > $OUT/numeric-f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
