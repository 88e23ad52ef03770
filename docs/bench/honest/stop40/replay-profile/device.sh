#!/usr/bin/env bash
# Same call: main's numeric phase against the staged build's, f32; then Nsight
# Compute on main's replay kernels.
cd gpu-bundle; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open(\"../xb/spmx-staged.xz\"),open(\"/tmp/spmx-staged\",\"wb\"))"; chmod +x /tmp/spmx-staged
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
A="bench spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 150 ./spmx $A --json $OUT/main-f32.json > $OUT/main-f32.log 2>&1; echo "main rc=$? $SECONDS s"
timeout 170 /tmp/spmx-staged $A --json $OUT/staged-f32.json > $OUT/staged-f32.log 2>&1; echo "staged rc=$? $SECONDS s"
B="./spmx bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric"
for m in rmat16 poisson2d-2000; do
timeout 80 ncu --set full -k regex:spgemm_replay -c 1 $B --only $m > $OUT/replay-$m.txt 2>&1; echo "ncu $m rc=$? $SECONDS s"
done
timeout 60 ncu --set full -k regex:spgemm_replay -c 1 ./spmx bench spgemm --suite spgemm --type f32 --reps 1 --warmup 0 --numeric --only Groebner_id2003_aug > $OUT/replay-groebner.txt 2>&1; echo "ncu groebner rc=$? $SECONDS s"
