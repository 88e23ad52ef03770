#!/usr/bin/env bash
# Same call: the gpu_spgemm tests of this build (a warp a tile); its f32
# numeric phase a warp a tile, then on a resident grid (SPMX_X_RESIDENT),
# then the per-tile packing build's (xb/spmx-pack.xz).
cd gpu-bundle; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open(\"../xb/spmx-pack.xz\"),open(\"/tmp/spmx-pack\",\"wb\"))"; chmod +x /tmp/spmx-pack
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric --type f32"
timeout 150 ./spmx $A --json $OUT/tile-f32.json > $OUT/tile-f32.log 2>&1; echo "tile rc=$? $SECONDS s"
SPMX_X_RESIDENT=1 timeout 150 ./spmx $A --json $OUT/resident-f32.json > $OUT/resident-f32.log 2>&1; echo "resident rc=$? $SECONDS s"
timeout 150 /tmp/spmx-pack $A --json $OUT/pack-f32.json > $OUT/pack-f32.log 2>&1; echo "pack rc=$? $SECONDS s"
