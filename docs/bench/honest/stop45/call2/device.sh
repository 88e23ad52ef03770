#!/usr/bin/env bash
# Stop 45 call 2: main's build at the ReplayGrid commit (kernels as call 1's V1): gpu_spgemm
# tests (every grid); f64 and f32 of the whole race; f32 of REPLAY_NARROW_BELOW=2 on a subset.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
py ../xb/spmx-nb2.xz /tmp/spmx-nb2
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 170 bash run.sh tests > /tmp/o/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" /tmp/o/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 165 ./spmx $A --type f64 --json /tmp/o/f64.json > /tmp/o/f64.log 2>&1; echo "f64 rc=$? $SECONDS s"
timeout 135 ./spmx $A --type f32 --json /tmp/o/f32.json > /tmp/o/f32.log 2>&1; echo "f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop45/tools/numeric_md.py /tmp/o/f32.json /tmp/o/f64.json > /tmp/o/numeric.md; grep -E "^- |^## " /tmp/o/numeric.md
S="--only rmat14 --only rmat15 --only rmat16 --only PGPgiantcompo --only wiki-Vote --only rmat16-s5 --only rmat17-s9 --only uniform-1500K-short --only powerlaw-1M-e2.0 --only delaunay_n16"
timeout $((580 - SECONDS)) /tmp/spmx-nb2 $A $S --type f32 --json /tmp/o/nb2-f32.json > /tmp/o/nb2-f32.log 2>&1; echo "nb2 f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py /tmp/o/nb2-f32.json /tmp/o/f32.json > /tmp/o/nb2-vs-main-f32.txt; cat /tmp/o/nb2-vs-main-f32.txt
tar -C /tmp -czf $OUT/s45b.tgz o
