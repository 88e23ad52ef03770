cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
gunzip -c tests/gpu_spgemm.gz > /tmp/gpu_spgemm && chmod +x /tmp/gpu_spgemm
timeout 150 /tmp/gpu_spgemm plan > $OUT/plan-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
grep -E "^test |^test result" $OUT/plan-tests.log | head -30
grep -A2 "panicked" $OUT/plan-tests.log | grep -v "^--" | sort | uniq -c | head
timeout 200 ./spmx bench spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/scatter-f32.json > $OUT/scatter-f32.log 2>&1; echo "scatter rc=$? $SECONDS s"
SPMX_REPLAY=lists timeout 180 ./spmx bench spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 --numeric --no-cusparse --json $OUT/lists-f32.json > $OUT/lists-f32.log 2>&1; echo "lists rc=$? $SECONDS s"
# second call (after removing the round's arrays from local memory):
timeout 200 ./spmx bench spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/scatter2-f32.json > $OUT/scatter2-f32.log 2>&1; echo "scatter rc=$? $SECONDS s"
