#!/usr/bin/env bash
# Stop 47 call 2: the staging kernels without call 1's prefetch, launches by one lookup
# (61d31ab): gpu_spgemm tests; f64 of the whole race for it, for the same build with
# replay_4's f64 caps dropped (no spills, 42 and 44 registers), and for main (dbea20a's
# kernels), all racing cuSPARSE, same call.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-nocap.xz /tmp/spmx-nocap
py ../xb/spmx-main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s47b.tgz o; }
timeout 180 bash run.sh tests > /tmp/o/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f64"
timeout 150 ./spmx $A --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
pack
timeout 150 /tmp/spmx-main $A --json /tmp/o/main-f64.json > /tmp/o/main-f64.log 2>&1; echo "main f64 rc=$? $SECONDS s"
pack
timeout $((585 - SECONDS)) /tmp/spmx-nocap $A --json /tmp/o/nocap-f64.json > /tmp/o/nocap-f64.log 2>&1; echo "nocap f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/f64.json /tmp/o/main-f64.json /tmp/o/nocap-f64.json > /tmp/o/f64-ab.txt; grep "==" /tmp/o/f64-ab.txt
for f in main-f64 nocap-f64; do python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/$f.json | grep "=="; done
pack
