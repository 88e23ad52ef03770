#!/usr/bin/env bash
# Stop 49 call 1: long lists beside the replay with the bool alignment fix (branch long-kernel
# rebased on main a4af0b8): all gpu_spgemm tests; f32 and f64 of the race for it and for the
# landed build (main's kernels and host at 1ad0216), all racing cuSPARSE, same call.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/landed.xz /tmp/spmx-landed
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s49c1.tgz o; }
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 120 ./tests/gpu_spgemm --nocapture > /tmp/o/gpu-tests.log 2>&1; echo "gpu_spgemm rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
T=../docs/bench/honest/stop47/tools/ab.py
timeout 130 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
pack
timeout 130 /tmp/spmx-landed $A --type f32 --json /tmp/o/landed-f32.json > /tmp/o/landed-f32.log 2>&1; echo "landed f32 rc=$? $SECONDS s"
python3 $T /tmp/o/f32.json /tmp/o/landed-f32.json > /tmp/o/f32-ab.txt; grep -E "==|adder|beside" /tmp/o/f32-ab.txt
grep -c "long lists beside" /tmp/o/f32.log
pack
timeout 135 ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
pack
timeout $((585 - SECONDS)) /tmp/spmx-landed $A --type f64 --json /tmp/o/landed-f64.json > /tmp/o/landed-f64.log 2>&1; echo "landed f64 rc=$? $SECONDS s"
python3 $T /tmp/o/f64.json /tmp/o/landed-f64.json > /tmp/o/f64-ab.txt; grep -E "==|adder|rajat" /tmp/o/f64-ab.txt
grep -c "long lists beside" /tmp/o/f64.log
pack
