#!/usr/bin/env bash
# For the next stop (not run): Nsight Compute on the replay, f32 and f64, where our f64 costs
# more over f32 than cuSPARSE's (uniform-1500K-short, powerlaw-1M-e2.0) and where it does not
# (rmat16): L2 hit rate and DRAM bytes test the guess that B's values leave L2 in f64.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
B="./spmx bench spgemm --suite spgemm,validate --reps 1 --warmup 0 --numeric --no-cusparse"
M="gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active"
for t in f32 f64; do for m in uniform-1500K-short powerlaw-1M-e2.0 rmat16; do
  timeout 120 ncu --metrics $M -k regex:spgemm_replay -c 2 $B --type $t --only $m > $OUT/ncu-$m-$t.txt 2>&1
  echo "$m $t rc=$? $SECONDS s"
done; done
