#!/usr/bin/env bash
# Stop 46 call 1: main (7fbc6ac) gpu_spgemm tests (the review's mend, host only); f32 of main
# and of the replay_8 relay in the same call; Nsight Compute on the replay (bound, L2, DRAM).
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-relay.xz /tmp/spmx-relay
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s46a.tgz o; }
timeout 150 bash run.sh tests > /tmp/o/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 140 /tmp/spmx-relay $A --type f32 --json /tmp/o/relay-f32.json > /tmp/o/relay-f32.log 2>&1; echo "relay f32 rc=$? $SECONDS s"
timeout 140 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py /tmp/o/relay-f32.json /tmp/o/f32.json > /tmp/o/relay-vs-main-f32.txt; grep "==" /tmp/o/relay-vs-main-f32.txt
pack
B="./spmx bench spgemm --suite spgemm,validate --reps 1 --warmup 0 --numeric --no-cusparse"
M="gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active"
for c in "adder_dcop_05 f64" "adder_dcop_05 f32" "uniform-1500K-short f64" "uniform-1500K-short f32" "rmat16 f32" "rmat16 f64" "powerlaw-1M-e2.0 f64"; do set -- $c
  [ $SECONDS -gt 540 ] && break
  timeout $((565 - SECONDS)) ncu --clock-control none --metrics $M -k regex:spgemm_replay --launch-skip 13 -c 1 $B --type $2 --only $1 > /tmp/o/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2 rc=$? $SECONDS s"; pack
done
pack
