#!/usr/bin/env bash
# Profile main's replay (stop 41 build) on adder_dcop_05, Groebner, ego-Facebook, rmat16 (f32),
# plus the f64 banded-500K-51 case stop 41 missed.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
B="./spmx bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric --no-cusparse"
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,smsp__warps_launched.sum,launch__grid_size,launch__registers_per_thread,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__warps_active.avg.per_cycle_active"
for m in adder_dcop_05 Groebner_id2003_aug ego-Facebook rmat16; do
  timeout 100 ncu --metrics $M -k regex:spgemm_replay -c 2 $B --only $m > $OUT/prof-$m.txt 2>&1; echo "$m rc=$? $SECONDS s"
done
A="bench spgemm --suite validate --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f64 --only banded-500K-51"
timeout 120 ./spmx $A --json $OUT/banded500k-f64.json > $OUT/banded500k-f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
