#!/usr/bin/env bash
# Stop 42 call: gpu_spgemm tests of this build (long lists on a side stream), then numeric
# races: f32 this build, f32 stop 41's (xb/spmx-s41.xz), f64 this build.
cd gpu-bundle
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-s41.xz'),open('/tmp/spmx-s41','wb'))"; chmod +x /tmp/spmx-s41
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 140 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 130 ./spmx $A --type f32 --json $OUT/numeric-f32.json > $OUT/numeric-f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
timeout 130 /tmp/spmx-s41 $A --type f32 --json $OUT/s41-f32.json > $OUT/s41-f32.log 2>&1; echo "s41 f32 rc=$? $SECONDS s"
timeout $((590 - SECONDS)) ./spmx $A --type f64 --json $OUT/numeric-f64.json > $OUT/numeric-f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
