#!/usr/bin/env bash
# Stop 43 call 1: gpu_spgemm tests of the sorted-tiles build; numeric races f32 (it, then stop 42's main), f64 (it).
cd gpu-bundle
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-s42.xz'),open('/tmp/spmx-s42','wb'))"; chmod +x /tmp/spmx-s42
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; rc=$?; echo "tests rc=$rc $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
[ $rc -ne 0 ] && exit 1
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 130 ./spmx $A --type f32 --json $OUT/numeric-f32.json > $OUT/numeric-f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
timeout 125 /tmp/spmx-s42 $A --type f32 --json $OUT/s42-f32.json > $OUT/s42-f32.log 2>&1; echo "s42 f32 rc=$? $SECONDS s"
timeout $((570 - SECONDS)) ./spmx $A --type f64 --json $OUT/numeric-f64.json > $OUT/numeric-f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
