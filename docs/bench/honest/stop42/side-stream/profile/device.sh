#!/usr/bin/env bash
# Profile the side-stream build's replay kernels on adder_dcop_05 and rajat01 (f32).
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
B="./spmx bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric --no-cusparse"
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,launch__grid_size,launch__registers_per_thread,smsp__warps_launched.sum"
for m in adder_dcop_05 rajat01; do
  timeout 100 ncu --metrics $M -k regex:spgemm_replay -c 4 $B --only $m > $OUT/prof-$m.txt 2>&1; echo "$m rc=$? $SECONDS s"
done
