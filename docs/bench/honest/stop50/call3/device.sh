#!/usr/bin/env bash
# Stop 50 call 3: call 2's build (lane flags, capped; long tiles' blocks of 512): all gpu_spgemm
# tests (call 2 cut them at its limit), the f32 race a third time, and f64 on the two bands of
# the validate suite that call 2 cut.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s50c3.tgz o; }
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 150 ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
A="bench spgemm --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 135 ./spmx $A --suite spgemm,validate --course --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout $((375 - SECONDS)) ./spmx $A --suite validate --only banded-1M-33 --only banded-500K-51 --type f64 --json /tmp/o/f64-validate.json > /tmp/o/f64-validate.log 2>&1; echo "f64 validate rc=$? $SECONDS s"
pack
