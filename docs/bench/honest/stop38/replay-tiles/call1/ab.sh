cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
for z in tests/*.gz; do gunzip -f $z; done
gunzip -c ../xb/spmx-main.gz > spmx-main; chmod +x spmx-main; cp spmx spmx-new
timeout 200 tests/gpu_spgemm plan --nocapture > $OUT/plan-tests.log 2>&1; echo "plan tests rc=$? $SECONDS s"
tail -5 $OUT/plan-tests.log
B="bench spgemm --suite spgemm,validate --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
for run in "f32 new" "f32 main" "f64 new" "f64 main"; do
  set -- $run
  timeout 100 ./spmx-$2 $B --type $1 --json $OUT/$2-$1.json > $OUT/$2-$1.log 2>&1; echo "$2 $1 rc=$? $SECONDS s"
done
