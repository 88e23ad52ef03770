#!/usr/bin/env bash
# Stop 48 call 3: the build to land (f32 replay kernels as main's, f64 as the no-spill lead's,
# main's host with b91ab8a's review mend): all gpu_spgemm tests; f32 of the race, racing
# cuSPARSE (its f64 kernels are call 1's, byte for byte).
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s48c3.tgz o; }
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 150 ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 150 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
cd ..; T=docs/bench/honest/stop47/tools/ab.py
python3 $T /tmp/o/f32.json > /tmp/o/f32-vs.txt; grep "==" /tmp/o/f32-vs.txt
python3 $T /tmp/o/f32.json docs/bench/honest/stop48/call2/main-f32.json > /tmp/o/f32-vs-call2-main.txt; grep "==" /tmp/o/f32-vs-call2-main.txt
pack
