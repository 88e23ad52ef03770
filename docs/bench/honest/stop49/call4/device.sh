#!/usr/bin/env bash
# Stop 49 call 4: Nsight Compute sections for Groebner's and ego-Facebook's f32 replay (the grid the
# plan keeps: a warp 2 tiles, entries by lane) and for cuSPARSE's numeric kernel on them.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s49c4.tgz o; }
N="bench spgemm --suite spgemm --numeric --reps 1 --warmup 0 --type f32"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
for m in Groebner ego-Facebook; do
  timeout 60 ncu --clock-control none -k regex:spgemm_replay_8_plus --launch-skip 6 --launch-count 1 $S ./spmx $N --only $m > /tmp/o/ncu-$m-replay.txt 2>&1; echo "ncu $m replay rc=$? $SECONDS s"
  timeout 60 ncu --clock-control none -k regex:load_balancing --launch-skip 3 --launch-count 1 $S ./spmx $N --only $m > /tmp/o/ncu-$m-cusparse.txt 2>&1; echo "ncu $m cusparse rc=$? $SECONDS s"
  pack
done
