#!/usr/bin/env bash
# Stop 48 call 1: the no-spill lead (the replay's grid stride read where used; f64 caps no
# longer spill): the plan's GPU tests; f64 of the race for it and for main, both racing
# cuSPARSE; Nsight Compute on the f32 replay (kernel times of adder_dcop_05 and EVA against
# cuSPARSE's, where rmat14's replay stalls).
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/main.xz /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
pack() { tar -C /tmp -czf $OUT/s48c1.tgz o; }
gunzip -f tests/gpu_spgemm.gz; chmod +x tests/gpu_spgemm
timeout 150 ./tests/gpu_spgemm plan --nocapture > /tmp/o/gpu-tests-plan.log 2>&1; echo "plan tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests-plan.log | head -8
pack
N="bench spgemm --suite spgemm --numeric --reps 1 --warmup 0 --type f32"
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv ./spmx $N --only adder_dcop --only EVA > /tmp/o/ncu-times.csv 2> /tmp/o/ncu-times.err; echo "ncu times rc=$? $SECONDS s"
timeout 60 ncu --clock-control none -k regex:spgemm_replay --launch-skip 12 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy ./spmx $N --only rmat14 > /tmp/o/ncu-rmat14.txt 2>&1; echo "ncu rmat14 rc=$? $SECONDS s"
pack
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 150 ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
pack
timeout $((570 - SECONDS)) /tmp/spmx-main $A --type f64 --json /tmp/o/main-f64.json > /tmp/o/main-f64.log 2>&1; echo "main f64 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop47/tools/ab.py /tmp/o/f64.json /tmp/o/main-f64.json > /tmp/o/f64-ab.txt; grep "==" /tmp/o/f64-ab.txt
pack
