#!/usr/bin/env bash
# A/B: staged replay vs plain lists, numeric phase, f32.
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
T=${T:-f32}
if [[ ${TESTS:-1} == 1 ]]; then timeout 200 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$?" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log; fi
for t in $T; do
timeout 170 ./spmx bench spgemm --suite spgemm,validate --course --type $t --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/staged-$t.json > $OUT/staged-$t.log 2>&1; echo "staged $t rc=$?"
SPMX_REPLAY_STAGED=0 timeout 170 ./spmx bench spgemm --suite spgemm,validate --course --type $t --reps 5 --warmup 2 --max-products 2000000000 --numeric --json $OUT/plain-$t.json > $OUT/plain-$t.log 2>&1; echo "plain $t rc=$?"
done
