cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
gunzip -c ../xb/spmx-pf.gz > spmx-pf; gunzip -c ../xb/gs-pf.gz > gs-pf; chmod +x spmx-pf gs-pf; cp spmx spmx-main
B="bench spgemm --suite spgemm --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
for run in "f32 main" "f32 pf"; do
  set -- $run
  timeout 80 ./spmx-$2 $B --type $1 --json $OUT/$2-$1.json > $OUT/$2-$1.log 2>&1; echo "$2 $1 rc=$? $SECONDS s"
done
timeout 90 ./gs-pf plan --nocapture > $OUT/plan-tests-pf.log 2>&1; echo "plan tests pf rc=$? $SECONDS s"; grep "test result" $OUT/plan-tests-pf.log
