cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
grep -E "^test result|Running|skip" $OUT/gpu-tests.log | head -40
for t in f32 f64; do
  timeout 170 ./spmx bench spgemm --suite spgemm,validate --course --type $t --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/numeric-$t.json > $OUT/numeric-$t.log 2>&1; echo "$t rc=$? $SECONDS s"
done
