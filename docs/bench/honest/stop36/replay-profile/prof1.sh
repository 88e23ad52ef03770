set -x
cd gpu-bundle
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
B="./spmx bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric"
# 1: every kernel's launch and speed of light, rmat16
timeout 200 ncu --csv --section LaunchStats --section SpeedOfLight --section Occupancy -c 400 $B --only rmat16 > $OUT/all-rmat16.csv 2> $OUT/all-rmat16.err
# 2: our replay in detail
timeout 120 ncu --set full -k regex:spgemm_replay -c 1 $B --only rmat16 > $OUT/replay-rmat16.txt 2>&1
# 3: cuSPARSE's kernels in detail
timeout 150 ncu --set full -k 'regex:^(?!spgemm_|scan_|spmx).*' -c 25 $B --only rmat16 > $OUT/cusp-rmat16.txt 2>&1
timeout 100 ncu --set full -k regex:spgemm_replay -c 1 $B --only poisson3d-160 > $OUT/replay-p3d.txt 2>&1
ls -la $OUT
