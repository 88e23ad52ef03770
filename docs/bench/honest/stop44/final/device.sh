#!/usr/bin/env bash
# Stop 44 call 4: the lean replay with replay_4 f64 capped at 40 registers (main's build):
# gpu_spgemm tests; f32 and f64; f64 of the lean replay without the cap, same call.
cd gpu-bundle
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-lean.xz'),open('/tmp/spmx-lean','wb'))"; chmod +x /tmp/spmx-lean
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; rc=$?; echo "tests rc=$rc $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 130 ./spmx $A --type f64 --json $OUT/f-f64.json > $OUT/f-f64.log 2>&1; echo "final f64 rc=$? $SECONDS s"
timeout 150 /tmp/spmx-lean $A --type f64 --json $OUT/l-f64.json > $OUT/l-f64.log 2>&1; echo "lean f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py $OUT/f-f64.json $OUT/l-f64.json > $OUT/f-vs-l-f64.txt; grep "==" $OUT/f-vs-l-f64.txt
timeout $((585 - SECONDS)) ./spmx $A --type f32 --json $OUT/f-f32.json > $OUT/f-f32.log 2>&1; echo "final f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py $OUT/f-f32.json ../docs/bench/honest/stop44/lean-replay/n-f32.json > $OUT/f-vs-n-f32.txt; grep "==" $OUT/f-vs-n-f32.txt
