#!/usr/bin/env bash
# Stop 43 call 2: gpu_spgemm tests of the read-ahead build (AB: fold guard + next tile's words read ahead);
# numeric races f32: AB, B (fold guard alone), stop 42's main.
cd gpu-bundle
for b in s42 b; do python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-$b.xz'),open('/tmp/spmx-$b','wb'))"; chmod +x /tmp/spmx-$b; done
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; rc=$?; echo "tests rc=$rc $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f32"
timeout 140 ./spmx $A --json $OUT/ab-f32.json > $OUT/ab-f32.log 2>&1; echo "ab f32 rc=$? $SECONDS s"
timeout 140 /tmp/spmx-b $A --json $OUT/b-f32.json > $OUT/b-f32.log 2>&1; echo "b f32 rc=$? $SECONDS s"
timeout $((590 - SECONDS)) /tmp/spmx-s42 $A --json $OUT/s42-f32.json > $OUT/s42-f32.log 2>&1; echo "s42 f32 rc=$? $SECONDS s"
