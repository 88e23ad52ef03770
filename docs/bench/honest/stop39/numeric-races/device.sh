cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 280 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
grep -E "^test result|^== |FAIL|panicked" $OUT/gpu-tests.log | head -40
timeout 290 ./spmx bench spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/numeric-f32.json > $OUT/numeric-f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
# second call:
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 290 ./spmx bench spgemm --suite spgemm,validate --course --type f64 --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/numeric-f64.json > $OUT/numeric-f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
