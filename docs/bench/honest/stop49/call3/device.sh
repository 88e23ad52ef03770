#!/usr/bin/env bash
# Stop 49 call 3: the same long-kernel build: Nsight Compute kernel times (ours and cuSPARSE's)
# on f32 tune's lowest after adder (Groebner, ego-Facebook, PGPgiantcompo, mbeacxc), then a
# third f32 race for it.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s49c3.tgz o; }
N="bench spgemm --suite spgemm --numeric --reps 1 --warmup 0 --type f32"
for m in Groebner ego-Facebook PGPgiantcompo mbeacxc; do
  timeout 70 ncu --clock-control none --metrics gpu__time_duration.sum --csv ./spmx $N --only $m > /tmp/o/ncu-$m.csv 2> /tmp/o/ncu-$m.err; echo "ncu $m rc=$? $SECONDS s"
  pack
done
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout $((400 - SECONDS)) ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/f32.json ../docs/bench/honest/stop49/call2/landed-f32.json > /tmp/o/f32-ab.txt; grep -E "==|adder" /tmp/o/f32-ab.txt
pack
