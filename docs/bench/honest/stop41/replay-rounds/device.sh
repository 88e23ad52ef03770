#!/usr/bin/env bash
# Same call: the gpu_spgemm tests of this build; its numeric phase against
# the per-tile packing build (xb/spmx-pack.xz), f32, both suites; this
# build's f64; instruction counts of the replay on rmat16, both builds.
cd gpu-bundle; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open(\"../xb/spmx-pack.xz\"),open(\"/tmp/spmx-pack\",\"wb\"))"; chmod +x /tmp/spmx-pack
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 160 ./spmx $A --type f32 --json $OUT/new-f32.json > $OUT/new-f32.log 2>&1; echo "new rc=$? $SECONDS s"
timeout 160 /tmp/spmx-pack $A --type f32 --json $OUT/pack-f32.json > $OUT/pack-f32.log 2>&1; echo "pack rc=$? $SECONDS s"
timeout 180 ./spmx $A --type f64 --json $OUT/new-f64.json > $OUT/new-f64.log 2>&1; echo "new f64 rc=$? $SECONDS s"
M="--metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active"
for b in ./spmx /tmp/spmx-pack; do
timeout 60 ncu $M -k regex:spgemm_replay -c 1 $b bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric --only rmat16 > $OUT/ncu-$(basename $b)-rmat16.txt 2>&1; echo "ncu $b rc=$? $SECONDS s"
done
