#!/usr/bin/env bash
# Stop 45 call 3: main's build at 17504e3 (f64 long lists 4 products a step): gpu_spgemm tests;
# f64 of it and of call 2's build (8100dfa) in the same call; f32 of it.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-rg.xz /tmp/spmx-rg
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 150 bash run.sh tests > /tmp/o/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 165 ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
timeout 165 /tmp/spmx-rg $A --type f64 --json /tmp/o/rg-f64.json > /tmp/o/rg-f64.log 2>&1; echo "rg f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py /tmp/o/f64.json /tmp/o/rg-f64.json > /tmp/o/f64-vs-rg.txt; grep "==" /tmp/o/f64-vs-rg.txt
tar -C /tmp -czf $OUT/s45c.tgz o
timeout $((570 - SECONDS)) ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop45/tools/numeric_md.py /tmp/o/f32.json /tmp/o/f64.json > /tmp/o/numeric.md; grep -E "^- |^## " /tmp/o/numeric.md
tar -C /tmp -czf $OUT/s45c.tgz o
