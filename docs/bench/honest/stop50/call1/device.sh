#!/usr/bin/env bash
# Stop 50 call 1: lane flags (each lane's list starts and the entries begun before it, found by
# the host; words without a flag bit) with replay_4 capped at 40 registers: f32 race for it, for
# main's build (xb/base.xz, main at f3e72a4) and for the same lane flags uncapped (xb/nocap.xz),
# all racing cuSPARSE in one call; then all gpu_spgemm tests.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/base.xz /tmp/spmx-base
py ../xb/nocap.xz /tmp/spmx-nocap
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s50c1.tgz o; }
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
T=../docs/bench/honest/stop47/tools/ab.py
timeout 150 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 150 /tmp/spmx-base $A --type f32 --json /tmp/o/base-f32.json > /tmp/o/base-f32.log 2>&1; echo "base f32 rc=$? $SECONDS s"
python3 $T /tmp/o/f32.json /tmp/o/base-f32.json > /tmp/o/f32-ab.txt; grep -E "==" /tmp/o/f32-ab.txt
pack
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 200 ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
timeout $((590 - SECONDS)) /tmp/spmx-nocap $A --type f32 --json /tmp/o/nocap-f32.json > /tmp/o/nocap-f32.log 2>&1; echo "nocap f32 rc=$? $SECONDS s"
python3 $T /tmp/o/nocap-f32.json /tmp/o/base-f32.json > /tmp/o/nocap-ab.txt; grep -E "==" /tmp/o/nocap-ab.txt
python3 $T /tmp/o/f32.json /tmp/o/nocap-f32.json > /tmp/o/cap-nocap-ab.txt; grep -E "==" /tmp/o/cap-nocap-ab.txt
pack
