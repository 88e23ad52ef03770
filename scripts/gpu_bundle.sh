#!/usr/bin/env bash
# Builds what a GPU machine without Rust needs to test and benchmark spmx,
# and collects it in one folder (default: gpu-bundle/, ignored by git):
#
#   spmx          the release binary (feature gpu), stripped
#   tests/        the GPU test executables (release, stripped, gzipped:
#                 run.sh unpacks them): the library's unit tests and
#                 tests/gpu_*.rs
#   real/         the real matrices (../shared/bench-data/real), if present
#   cusparse_reference.py   cuSPARSE through CuPy, warm pool (from
#                 ../shared/tools), and race_vs_reference.py, which runs a
#                 race and the reference on the same matrices and tables both
#   run.sh        runs every test executable, then `spmx bench` with the
#                 arguments it is given (none: the SpMV gpu-default suite)
#
# SPMX_BUNDLE_TESTS (a regular expression over test names; default: the
# library's unit tests and every gpu_* test) picks the test executables, to
# keep what travels small (`gpu_pool|gpu_bench`) or add others (`apsp`).
#
# Copy the folder to the GPU machine and run `bash gpu-bundle/run.sh`; or
# `bash gpu-bundle/run.sh tests` for the tests alone. SPMX_CUDA_ARCH
# (default sm_80) sets the PTX target as in a normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-bundle}
target=${CARGO_TARGET_DIR:-target}

echo "== building the spmx binary and the GPU test executables (release, feature gpu)"
cargo build --release --features gpu --bin spmx
tests=$(cargo test --release --features gpu --no-run --lib --tests --message-format=json |
    python3 -c '
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    exe = msg.get("executable")
    if msg.get("reason") != "compiler-artifact" or not exe or not msg["profile"]["test"]:
        continue
    name = msg["target"]["name"]
    kind = msg["target"]["kind"]
    # The library unit tests hold the PTX checks; gpu_* are the GPU tests;
    # SPMX_BUNDLE_TESTS may name others (tests/apsp.rs runs on the GPU too).
    picked = os.environ.get("SPMX_BUNDLE_TESTS")
    if picked:
        import re
        wanted = re.search(picked, name) is not None
    else:
        wanted = (kind == ["lib"] and name == "spmx") or name.startswith("gpu_")
    if wanted:
        print(exe)
')

rm -rf "$out"
mkdir -p "$out/tests"
cp "$target/release/spmx" "$out/spmx"
for exe in $tests; do
    name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
    cp "$exe" "$out/tests/$name"
done
strip "$out/spmx" "$out"/tests/* 2>/dev/null || strip "$out/spmx"
# Test executables shrink about fivefold compressed, and what travels to
# the GPU machine is capped (64 MiB); run.sh unpacks them there.
find "$out/tests" -type f -exec gzip -9 {} +
cp scripts/race_vs_reference.py "$out/"
reference=../shared/tools/cusparse_reference.py
if [[ -f $reference ]]; then
    cp "$reference" "$out/"
else
    echo "note: no $reference; race_vs_reference.py needs it beside it"
fi
real=${SPMX_REAL_DATA:-../shared/bench-data/real}
if [[ -f "$real/MANIFEST.tsv" ]]; then
    cp -r "$real" "$out/real"
else
    echo "note: no real matrices at $real; the real-matrix tests will skip"
fi

cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs spmx's GPU tests, then `spmx bench` (arguments: what to bench; none:
# `spmv --suite gpu-default`; `tests`: the tests alone). Exit status: non-zero
# if any test or the bench failed.
#   run.sh race DIR NAME BENCH-ARGS...   no tests: the race and
#       cusparse_reference.py on the same matrices (race_vs_reference.py),
#       results in DIR/NAME.{json,md} and DIR/NAME-ref.jsonl
cd "$(dirname "$0")"
export SPMX_REAL_DATA=$PWD/real
# cuSPARSE: the CUDA toolkit's, else the one pip installed beside PyTorch.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cusparse", "lib") for p in nvidia.__path__))' 2>/dev/null); do
    [[ -d $d ]] && LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
done
export LD_LIBRARY_PATH
if [[ "${1:-}" == race ]]; then
    shift
    dir=$1 name=$2
    shift 2
    exec python3 race_vs_reference.py --out "$dir" --name "$name" --spmx ./spmx \
        --reference cusparse_reference.py --inputs "/tmp/spmx-inputs-$name" -- "$@"
fi
for z in tests/*.gz; do
    if [[ -e $z ]]; then gunzip -f "$z"; fi
done
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
log=$(mktemp)
for t in tests/*; do
    [[ -x $t ]] || continue
    echo "== $t"
    "$t" --nocapture >"$log" 2>&1
    rc=$?
    # Passing tests print one line each; a failure prints everything.
    if [[ $rc -eq 0 ]]; then
        grep -E '^(skipping|test result)' "$log"
    else
        cat "$log"
        status=1
    fi
done
if [[ "${1:-}" != tests ]]; then
    args=("$@")
    [[ ${#args[@]} -gt 0 ]] || args=(spmv --suite gpu-default)
    echo "== spmx bench ${args[*]}"
    ./spmx bench "${args[@]}" || status=1
fi
echo "== bundle run status: $status"
exit $status
EOF
chmod +x "$out/run.sh"
du -sh "$out"
