#!/usr/bin/env bash
# Same call: the gpu_spgemm tests of this build, then its numeric phase
# against main's build (xb/spmx-main.xz), f32, both suites.
cd gpu-bundle; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open(\"../xb/spmx-main.xz\"),open(\"/tmp/spmx-main\",\"wb\"))"; chmod +x /tmp/spmx-main
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
A="bench spgemm --suite spgemm,validate --course --type f32 --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 160 ./spmx $A --json $OUT/new-f32.json > $OUT/new-f32.log 2>&1; echo "new rc=$? $SECONDS s"
timeout 160 /tmp/spmx-main $A --json $OUT/main-f32.json > $OUT/main-f32.log 2>&1; echo "main rc=$? $SECONDS s"
