cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 330 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$?"
grep -E "^== |test result" $OUT/gpu-tests.log
timeout 230 bash run.sh race $OUT spgemm-f32 spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 > $OUT/spgemm-f32-race.log 2>&1; echo "race rc=$?"
tail -6 $OUT/spgemm-f32.md
