#!/usr/bin/env bash
# Per-instruction SASS counts of main's replay kernel (rmat16, f32).
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
ncu --version | tail -1
B="./spmx bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric --no-cusparse"
timeout 150 ncu --section SourceCounters --section WarpStateStats -k regex:spgemm_replay -c 1 --page source --print-source sass --csv $B --only rmat16 > $OUT/sass-rmat16.csv 2> $OUT/sass-rmat16.err; echo "rc=$? $SECONDS s"
timeout 150 ncu --section SourceCounters --section WarpStateStats -k regex:spgemm_replay -c 1 --page source --print-source sass --csv $B --only Groebner_id2003_aug > $OUT/sass-groebner.csv 2> $OUT/sass-groebner.err; echo "rc=$? $SECONDS s"
ls -la $OUT; head -c 600 $OUT/sass-rmat16.csv
