#!/usr/bin/env bash
# Stop 45 call 1: tiles a warp + lighter fold (V1 = gpu-bundle/spmx): gpu_spgemm tests;
# f32 of V1 and of main in the same call; f32 of the pipelined run-on loop (uncapped, capped) on a subset.
cd gpu-bundle
py() { python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('$1'),open('$2','wb'))"; chmod +x $2; }
for b in main pipe pipec; do py ../xb/spmx-$b.xz /tmp/spmx-$b; done
export SPMX_REAL_DATA=$PWD/real LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 150 bash run.sh tests > $OUT/gpu-tests.log 2>&1; echo "tests rc=$? $SECONDS s"; grep -E "test result|FAILED|panicked" $OUT/gpu-tests.log | head -8
A="bench spgemm --suite spgemm,validate --course --reps 5 --warmup 2 --max-products 2000000000 --numeric"
timeout 140 ./spmx $A --type f32 --json $OUT/v1-f32.json > $OUT/v1-f32.log 2>&1; echo "v1 f32 rc=$? $SECONDS s"
timeout 140 /tmp/spmx-main $A --type f32 --json $OUT/m-f32.json > $OUT/m-f32.log 2>&1; echo "main f32 rc=$? $SECONDS s"
python3 ../docs/bench/honest/stop42/ab.py $OUT/v1-f32.json $OUT/m-f32.json > $OUT/v1-vs-m-f32.txt; grep "==" $OUT/v1-vs-m-f32.txt
S="--only rajat01 --only adder_dcop_05 --only as-caida_G_010 --only Groebner_id2003_aug --only ego-Facebook --only MIT8 --only PGPgiantcompo --only rmat16 --only powerlaw-1M-e2.0 --only poisson3d-160 --only bcsstk16"
for b in pipe pipec; do
  timeout 100 /tmp/spmx-$b $A $S --type f32 --json $OUT/$b-f32.json > $OUT/$b-f32.log 2>&1; echo "$b f32 rc=$? $SECONDS s"
  python3 ../docs/bench/honest/stop42/ab.py $OUT/$b-f32.json $OUT/v1-f32.json > $OUT/$b-vs-v1-f32.txt; cat $OUT/$b-vs-v1-f32.txt
done
