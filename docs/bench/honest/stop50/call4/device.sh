#!/usr/bin/env bash
# Stop 50 call 4 (the device time left): main's build (xb/base.xz, f3e72a4) in the f32 race once
# more, a second process of it this stop beside call 1's.
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py xb/base.xz /tmp/spmx-base
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 150 /tmp/spmx-base $A --type f32 --json /tmp/o/base-f32.json > /tmp/o/base-f32.log 2>&1; echo "base f32 rc=$? $SECONDS s"
tar -C /tmp -czf $OUT/s50c4.tgz o
