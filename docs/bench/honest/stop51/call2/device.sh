#!/usr/bin/env bash
# Stop 51 call 2: the whole product (C = A·A, symbolic and numeric) raced again on main's build
# (xb/main.xz, ecc2e98), f32, with cusparse_reference.py (cuSPARSE through CuPy, warm pool) on
# the same files in the same call (race_vs_reference.py), to check issue 21's whole-product
# targets on the submitted build (the standing rows were stop 36's); then the plan's numeric
# phase in f64 for main's build.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s51c2.tgz o; }
B="--suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000"
timeout 330 python3 race_vs_reference.py --out /tmp/o --name spgemm-f32 --spmx /tmp/spmx-main \
  --reference cusparse_reference.py -- spgemm $B --type f32 > /tmp/o/spgemm-f32-race.log 2>&1
echo "f32 rc=$? $SECONDS s"; grep -E "^- " /tmp/o/spgemm-f32-race.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout $((510 - SECONDS)) /tmp/spmx-main $A --type f64 --json /tmp/o/main-f64.json > /tmp/o/main-f64.log 2>&1
echo "numeric f64 rc=$? $SECONDS s"; tail -4 /tmp/o/main-f64.log
pack
