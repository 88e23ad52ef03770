#!/usr/bin/env bash
# Stop 44 call 1: register caps raced through SPMX_MAXNREG (experiment build);
# gpu_spgemm tests under caps B; the launch floor of small plans.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('../xb/launch_floor.xz'),open('/tmp/lf','wb'))"; chmod +x /tmp/lf
R=real; /tmp/lf $R/EVA.mtx.gz $R/G61.mtx.gz $R/bcspwr10.mtx.gz $R/commanche_dual.mtx.gz $R/4elt.mtx.gz $R/luxembourg_osm.mtx.gz $R/bayer10.mtx.gz $R/wing.mtx.gz $R/PGPgiantcompo.mtx.gz $R/delaunay_n16.mtx.gz > $OUT/floor.log 2>&1; echo "floor rc=$? $SECONDS s"; cat $OUT/floor.log
B4=spgemm_replay_4_plus_times_f32; B8=spgemm_replay_8_plus_times_f32
CB="$B4=32,$B8=48"; CC="$B4=32,$B8=40"
SPMX_MAXNREG=$CB timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; rc=$?; echo "tests rc=$rc $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f32"
SPMX_MAXNREG=none timeout 130 ./spmx $A --json $OUT/a-f32.json > $OUT/a-f32.log 2>&1; echo "a rc=$? $SECONDS s"
SPMX_MAXNREG=$CB timeout 130 ./spmx $A --json $OUT/b-f32.json > $OUT/b-f32.log 2>&1; echo "b rc=$? $SECONDS s"
SPMX_MAXNREG=$CC timeout $((585 - SECONDS)) ./spmx $A --json $OUT/c-f32.json > $OUT/c-f32.log 2>&1; echo "c rc=$? $SECONDS s"
for x in b c; do python3 ../docs/bench/honest/stop42/ab.py $OUT/$x-f32.json $OUT/a-f32.json > $OUT/$x-vs-a.txt; echo "$x vs a"; grep "==" $OUT/$x-vs-a.txt; done
