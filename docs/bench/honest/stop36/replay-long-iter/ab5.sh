cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
gunzip -c ../xb/spmx-it.gz > spmx-it; chmod +x spmx-it; cp spmx spmx-base
B="bench spgemm --suite spgemm,validate --type f32 --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
for v in it base itr; do
  bin=./spmx-${v%r}
  timeout 150 $bin $B --json $OUT/$v-f32.json > /tmp/$v.log 2>&1; echo "$v rc=$?"
done
