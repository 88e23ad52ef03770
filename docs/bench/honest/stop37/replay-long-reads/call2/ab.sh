cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
for v in base itc itd; do gunzip -c ../xb/spmx-$v.gz > spmx-$v; chmod +x spmx-$v; done

B="bench spgemm --suite spgemm,validate --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
for run in "f64 base" "f64 itd" "f64 itc" "f32 base" "f32 itd"; do
  set -- $run
  timeout 100 ./spmx-$2 $B --type $1 --json $OUT/$2-$1.json > /tmp/$2-$1.log 2>&1; echo "$2 $1 rc=$? $SECONDS s"
done
