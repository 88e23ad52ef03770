#!/usr/bin/env bash
# Stop 51 call 1: the plan choosing its numeric phase's way by a median of up to 25 runs (at least
# 3, until 1 ms) instead of the least of 3: f32 race for it (gpu-bundle/spmx) and for main's build
# (xb/main.xz, main's kernels and host at ecc2e98) in four processes, alternating; then all
# gpu_spgemm tests for the new build.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s51c1.tgz o; }
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
T=../docs/bench/honest/stop47/tools/ab.py
timeout 135 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 135 /tmp/spmx-main $A --type f32 --json /tmp/o/main-f32.json > /tmp/o/main-f32.log 2>&1; echo "main f32 rc=$? $SECONDS s"
python3 $T /tmp/o/f32.json /tmp/o/main-f32.json > /tmp/o/f32-ab.txt; grep -E "==" /tmp/o/f32-ab.txt
pack
timeout 135 ./spmx $A --type f32 --json /tmp/o/f32-2.json > /tmp/o/f32-2.log 2>&1; echo "f32 (2) rc=$? $SECONDS s"
pack
timeout 135 /tmp/spmx-main $A --type f32 --json /tmp/o/main-f32-2.json > /tmp/o/main-f32-2.log 2>&1; echo "main f32 (2) rc=$? $SECONDS s"
python3 $T /tmp/o/f32-2.json /tmp/o/main-f32-2.json > /tmp/o/f32-2-ab.txt; grep -E "==" /tmp/o/f32-2-ab.txt
pack
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout $((595 - SECONDS)) ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
