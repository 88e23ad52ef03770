#!/usr/bin/env bash
# Stop 47 call 3: the build to land (staging kernels, a staging warp's entry count asked for
# before its stores, launches by one lookup): the plan's GPU tests (every semiring, grid and
# way of storing); f32 and f64 of the whole race; f64 and f32 of call 2's build (61d31ab,
# the count asked for after the stores), all racing cuSPARSE, same call.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-b1.xz /tmp/spmx-b1
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s47c.tgz o; }
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 150 ./tests/gpu_spgemm plan --nocapture > /tmp/o/gpu-tests-plan.log 2>&1; echo "plan tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests-plan.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 140 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 150 ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop45/tools/numeric_md.py /tmp/o/f32.json /tmp/o/f64.json > /tmp/o/numeric.md; grep -E "^- |^## " /tmp/o/numeric.md
pack
timeout 150 /tmp/spmx-b1 $A --type f64 --json /tmp/o/b1-f64.json > /tmp/o/b1-f64.log 2>&1; echo "b1 f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/f64.json /tmp/o/b1-f64.json > /tmp/o/f64-ab.txt; grep "==" /tmp/o/f64-ab.txt
pack
timeout $((540 - SECONDS)) /tmp/spmx-b1 $A --type f32 --json /tmp/o/b1-f32.json > /tmp/o/b1-f32.log 2>&1; echo "b1 f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/f32.json /tmp/o/b1-f32.json > /tmp/o/f32-ab.txt; grep "==" /tmp/o/f32-ab.txt
pack
