#!/usr/bin/env bash
# Stop 51 call 3 (call 2's machine, still warm): the whole product in f64 with the reference,
# as call 2 did f32; then the plan's f32 numeric phase for main's build in a third process.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
rm -rf /tmp/o; mkdir -p /tmp/o
pack() { tar -C /tmp -czf $OUT/s51c3.tgz o; }
B="--suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000"
timeout 230 python3 race_vs_reference.py --out /tmp/o --name spgemm-f64 --spmx /tmp/spmx-main \
  --reference cusparse_reference.py -- spgemm $B --type f64 > /tmp/o/spgemm-f64-race.log 2>&1
echo "f64 rc=$? $SECONDS s"; grep -E "^- " /tmp/o/spgemm-f64-race.log | head -8
pack
timeout $((370 - SECONDS)) /tmp/spmx-main bench spgemm $B --numeric --type f32 --json /tmp/o/main-f32-3.json > /tmp/o/main-f32-3.log 2>&1
echo "numeric f32 rc=$? $SECONDS s"; grep -E "geomean" /tmp/o/main-f32-3.log
pack
