cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
for v in t8 t4 new1; do gunzip -c ../xb/spmx-$v.gz > spmx-$v; chmod +x spmx-$v; done
for v in t8 t4; do gunzip -c ../xb/gs-$v.gz > gs-$v; chmod +x gs-$v; done
B="bench spgemm --suite spgemm,validate --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
for run in "f32 t8" "f32 t4" "f32 new1"; do
  set -- $run
  timeout 120 ./spmx-$2 $B --type $1 --json $OUT/$2-$1.json > $OUT/$2-$1.log 2>&1; echo "$2 $1 rc=$? $SECONDS s"
done
for v in t8 t4; do
  timeout 100 ./gs-$v plan --nocapture > $OUT/plan-tests-$v.log 2>&1; echo "plan tests $v rc=$? $SECONDS s"; grep "test result" $OUT/plan-tests-$v.log
done
