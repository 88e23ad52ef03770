#!/usr/bin/env bash
# Stop 48 call 2: the no-spill lead (10aedca's kernels and host): all gpu_spgemm tests; f32 of
# the race for it, for main, and for it again, all racing cuSPARSE, same call.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s48c2.tgz o; }
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 150 ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f32"
timeout 140 ./spmx $A --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 140 /tmp/spmx-main $A --json /tmp/o/main-f32.json > /tmp/o/main-f32.log 2>&1; echo "main f32 rc=$? $SECONDS s"
pack
timeout $((585 - SECONDS)) ./spmx $A --json /tmp/o/f32-again.json > /tmp/o/f32-again.log 2>&1; echo "f32 again rc=$? $SECONDS s"
cd ..; T=docs/bench/honest/stop47/tools/ab.py
python3 $T /tmp/o/f32.json /tmp/o/main-f32.json /tmp/o/f32-again.json > /tmp/o/f32-ab.txt; grep "==" /tmp/o/f32-ab.txt
python3 $T /tmp/o/f32-again.json /tmp/o/main-f32.json > /tmp/o/f32-again-ab.txt; grep "==" /tmp/o/f32-again-ab.txt
python3 $T /tmp/o/main-f32.json > /tmp/o/main-f32-ab.txt; grep "==" /tmp/o/main-f32-ab.txt
pack
