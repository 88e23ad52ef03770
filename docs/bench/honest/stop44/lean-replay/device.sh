#!/usr/bin/env bash
# Stop 44 call 3: the lean replay (global/vector loads, branch-free lane fold, u32 offsets):
# gpu_spgemm tests; f32 against main (stop 43's build) in the same call; f64.
cd gpu-bundle
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-s43.xz'),open('/tmp/spmx-s43','wb'))"; chmod +x /tmp/spmx-s43
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; rc=$?; echo "tests rc=$rc $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 130 ./spmx $A --type f32 --json $OUT/n-f32.json > $OUT/n-f32.log 2>&1; echo "new f32 rc=$? $SECONDS s"
timeout 130 /tmp/spmx-s43 $A --type f32 --json $OUT/m-f32.json > $OUT/m-f32.log 2>&1; echo "main f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py $OUT/n-f32.json $OUT/m-f32.json > $OUT/n-vs-m-f32.txt; grep "==" $OUT/n-vs-m-f32.txt
timeout $((585 - SECONDS)) ./spmx $A --type f64 --json $OUT/n-f64.json > $OUT/n-f64.log 2>&1; echo "new f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py $OUT/n-f64.json ../docs/bench/honest/stop43/block128/c-f64.json > $OUT/n-vs-s43-f64.txt; grep "==" $OUT/n-vs-s43-f64.txt
