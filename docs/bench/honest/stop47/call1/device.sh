#!/usr/bin/env bash
# Stop 47 call 1: the build under test (staging as kernels of their own, the run-on loop's
# prefetch, launches by one lookup): gpu_spgemm tests; f32 of the whole race; f32 of the
# staging-kernels build alone and of main (dbea20a's kernels), ours only, same call; f64.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-stage.xz /tmp/spmx-stage
py ../xb/spmx-main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s47a.tgz o; }
timeout 180 bash run.sh tests > /tmp/o/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 150 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 100 /tmp/spmx-stage $A --no-cusparse --type f32 --json /tmp/o/stage-f32.json > /tmp/o/stage-f32.log 2>&1; echo "stage f32 rc=$? $SECONDS s"
timeout 100 /tmp/spmx-main $A --no-cusparse --type f32 --json /tmp/o/main-f32.json > /tmp/o/main-f32.log 2>&1; echo "main f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/f32.json /tmp/o/stage-f32.json /tmp/o/main-f32.json > /tmp/o/f32-ab.txt; grep "==" /tmp/o/f32-ab.txt
pack
timeout $((580 - SECONDS)) ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop45/tools/numeric_md.py /tmp/o/f32.json /tmp/o/f64.json > /tmp/o/numeric.md; grep -E "^- |^## " /tmp/o/numeric.md
pack
