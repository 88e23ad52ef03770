#!/usr/bin/env bash
# Stop 44 call 2: the replay ablated (what bounds it), and Nsight Compute on main's replay.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/ablate.xz /tmp/ablate; py ../xb/spmx-s43.xz /tmp/spmx-s43
R=real
SPMX_MAXNREG=none timeout 240 /tmp/ablate $R/Groebner_id2003_aug.mtx.gz $R/ego-Facebook.mtx.gz $R/as-caida_G_010.mtx.gz $R/MIT8.mtx.gz $R/bcsstk16.mtx.gz $R/rajat01.mtx.gz $R/delaunay_n16.mtx.gz $R/wiki-Vote.mtx.gz gen:all > $OUT/ablate.log 2>&1; echo "ablate rc=$? $SECONDS s"; cat $OUT/ablate.log
B="/tmp/spmx-s43 bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric --no-cusparse"
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,launch__grid_size,launch__registers_per_thread,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__warps_active.avg.per_cycle_active"
for m in rmat16 poisson3d-160; do
  timeout 120 ncu --metrics $M -k regex:spgemm_replay -c 2 $B --only $m > $OUT/prof-$m.txt 2>&1; echo "$m rc=$? $SECONDS s"
done
