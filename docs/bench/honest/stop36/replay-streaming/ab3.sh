cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
for v in s1 s2; do gunzip -c ../xb/spmx-$v.gz > spmx-$v; chmod +x spmx-$v; done
cp spmx spmx-base
for t in f32 f64; do
B="bench spgemm --suite spgemm,validate --type $t --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
runs="s1 base s2 s1r"; [[ $t == f64 ]] && runs="base s1 s2"
for v in $runs; do
  bin=./spmx-${v%r}
  timeout 150 $bin $B --json $OUT/$v-$t.json > $OUT/$v-$t.log 2>&1; echo "$v $t rc=$?"
done
done
