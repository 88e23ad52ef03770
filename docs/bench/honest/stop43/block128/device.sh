#!/usr/bin/env bash
# Stop 43 call 3: gpu_spgemm tests of the C build (fold guard + replay in blocks of 128);
# f32 races C and B (fold guard alone, blocks of 256); f64 race of the faster in f32.
cd gpu-bundle
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/spmx-b.xz'),open('/tmp/spmx-b','wb'))"; chmod +x /tmp/spmx-b
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; rc=$?; echo "tests rc=$rc $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 130 ./spmx $A --type f32 --json $OUT/c-f32.json > $OUT/c-f32.log 2>&1; echo "c f32 rc=$? $SECONDS s"
timeout 130 /tmp/spmx-b $A --type f32 --json $OUT/b-f32.json > $OUT/b-f32.log 2>&1; echo "b f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py $OUT/c-f32.json $OUT/b-f32.json > $OUT/c-vs-b-f32.txt; grep "==" $OUT/c-vs-b-f32.txt
win=$(python3 -c "
import re,math
g=[float(x) for x in re.findall(r'old/new geomean ([0-9.]+)', open('$OUT/c-vs-b-f32.txt').read())]
print('c' if len(g)==2 and g[0]*g[1] > 1.0 else 'b')")
bin=./spmx; [ $win = b ] && bin=/tmp/spmx-b
echo "f64 of $win"
timeout $((585 - SECONDS)) $bin $A --type f64 --json $OUT/$win-f64.json > $OUT/$win-f64.log 2>&1; echo "$win f64 rc=$? $SECONDS s"
