#!/usr/bin/env bash
# Stop 42 call: gpu_spgemm tests of this build (fold pipelined), then f32 numeric
# races: this build, stop 41's (xb/spmx-s41.xz), this build + L2 prefetch (xb/spmx-v2.xz, tune only).
cd gpu-bundle
for b in s41 v2; do python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-$b.xz'),open('/tmp/spmx-$b','wb'))"; chmod +x /tmp/spmx-$b; done
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 140 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
A="bench spgemm --course --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f32"
timeout 140 ./spmx $A --suite spgemm,validate --json $OUT/fold-f32.json > $OUT/fold-f32.log 2>&1; echo "fold rc=$? $SECONDS s"
timeout 140 /tmp/spmx-s41 $A --suite spgemm,validate --json $OUT/s41-f32.json > $OUT/s41-f32.log 2>&1; echo "s41 rc=$? $SECONDS s"
timeout $((585 - SECONDS)) /tmp/spmx-v2 $A --suite spgemm --json $OUT/prefetch-f32.json > $OUT/prefetch-f32.log 2>&1; echo "prefetch rc=$? $SECONDS s"
