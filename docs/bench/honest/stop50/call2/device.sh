#!/usr/bin/env bash
# Stop 50 call 2: call 1's lane flags (capped) plus the long tiles' kernel in blocks of 512 (16
# tiles a round, warp 0 alone folding): f32 race for it and for call 1's build (xb/new1.xz), f64
# for it and for main's build (xb/base.xz), all racing cuSPARSE; then all gpu_spgemm tests.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/base.xz /tmp/spmx-base
py ../xb/new1.xz /tmp/spmx-new1
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s50c2.tgz o; }
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
T=../docs/bench/honest/stop47/tools/ab.py
timeout 140 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 140 /tmp/spmx-new1 $A --type f32 --json /tmp/o/new1-f32.json > /tmp/o/new1-f32.log 2>&1; echo "new1 f32 rc=$? $SECONDS s"
python3 $T /tmp/o/f32.json /tmp/o/new1-f32.json > /tmp/o/f32-ab.txt; grep -E "==|adder|rajat|caida" /tmp/o/f32-ab.txt
pack
timeout 140 ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
pack
timeout 140 /tmp/spmx-base $A --type f64 --json /tmp/o/base-f64.json > /tmp/o/base-f64.log 2>&1; echo "base f64 rc=$? $SECONDS s"
python3 $T /tmp/o/f64.json /tmp/o/base-f64.json > /tmp/o/f64-ab.txt; grep -E "==|adder|rajat|caida" /tmp/o/f64-ab.txt
pack
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout $((592 - SECONDS)) ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
