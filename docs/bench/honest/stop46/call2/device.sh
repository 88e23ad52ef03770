#!/usr/bin/env bash
# Stop 46 call 2: C's values staged in shared memory and copied out a sector at a time
# ("stage", on the relay) against the relay alone ("relay"): Nsight on uniform-1500K-short f64
# (L2 write sectors), then f64 and f32 of both in the same call.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-relay.xz /tmp/spmx-relay; py ../xb/spmx-stage.xz /tmp/spmx-stage
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s46b.tgz o; }
B="bench spgemm --suite spgemm,validate --reps 1 --warmup 0 --numeric --no-cusparse"
M="gpu__time_duration.sum,launch__grid_size,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum"
for b in relay stage; do
  timeout 40 ncu --clock-control none --metrics $M -k regex:spgemm_replay --launch-skip 13 -c 1 /tmp/spmx-$b $B --type f64 --only uniform-1500K-short > /tmp/o/ncu-$b.txt 2>&1
  echo "ncu $b rc=$? $SECONDS s"; grep -E "duration|lts__t_sectors|requests|dram__bytes" /tmp/o/ncu-$b.txt | sed 's/  */ /g'
done
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
for t in f64 f32; do for b in stage relay; do
  timeout $((575 - SECONDS)) /tmp/spmx-$b $A --type $t --json /tmp/o/$b-$t.json > /tmp/o/$b-$t.log 2>&1; echo "$b $t rc=$? $SECONDS s"
done
python3 ../docs/bench/honest/stop42/ab.py /tmp/o/stage-$t.json /tmp/o/relay-$t.json > /tmp/o/stage-vs-relay-$t.txt; grep "==" /tmp/o/stage-vs-relay-$t.txt
pack; done
