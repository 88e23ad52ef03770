cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
gunzip -c ../xb/spmx-tile.gz > spmx-tile && gunzip -c ../xb/gpu_spgemm.gz > gs && chmod +x spmx-tile gs
timeout 200 ./gs --nocapture plan > $OUT/tests-plan.log 2>&1; echo "tests rc=$?"; grep "test result" $OUT/tests-plan.log
B="bench spgemm --suite spgemm,validate --type f32 --reps 5 --warmup 2 --max-products 2000000000 --no-cusparse --numeric"
for v in base tile; do
  bin=./spmx; [[ $v == tile ]] && bin=./spmx-tile
  /usr/bin/time -f "%e s" timeout 200 $bin $B --json $OUT/$v-f32.json > $OUT/$v-f32.log 2>&1; echo "$v rc=$?"; tail -1 $OUT/$v-f32.log
done
for v in tile base; do
  bin=./spmx; [[ $v == tile ]] && bin=./spmx-tile
  timeout 200 $bin $B --json $OUT/$v-f32b.json > $OUT/$v-f32b.log 2>&1; echo "$v rc=$?"
done
