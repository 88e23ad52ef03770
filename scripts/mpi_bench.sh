#!/usr/bin/env bash
# The mpi engine's figures in BENCHMARKS.md, on this machine: SpGEMM A·A on
# 1 and 2 ranks (one core a rank: --rank-engine cpu --threads 1), beside the
# serial and cpu engines; then the bytes one SpMV on 2D Poisson exchanges,
# on 2 and 4 ranks. Usage: bash scripts/mpi_bench.sh [runs] (default 5);
# needs `cargo build --release --features mpi` first. Matrices go to $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
spmx=${CARGO_TARGET_DIR:-target}/release/spmx
dir=${TMPDIR:-/tmp}/spmx-mpi-bench
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
mkdir -p "$dir"
multiply() { grep -E '^  multiply' | awk '{print $2}'; }

echo "== SpGEMM A·A: multiply time in seconds, $runs runs each (median last)"
"$spmx" gen uniform --rows 250000 --min-per-row 10 --max-per-row 14 -o "$dir/uniform.mtx" >/dev/null
"$spmx" gen rmat --scale 16 -o "$dir/rmat16.mtx" >/dev/null
for m in uniform rmat16; do
    "$spmx" spgemm "$dir/$m.mtx" --engine serial | grep -E '^  (A|C|work) '
    for how in serial cpu mpi1 mpi2; do
        times=()
        for _ in $(seq "$runs"); do
            case $how in
            serial | cpu) t=$("$spmx" spgemm "$dir/$m.mtx" --engine "$how" | multiply) ;;
            mpi*) t=$("${mpirun[@]}" -np "${how#mpi}" "$spmx" spgemm "$dir/$m.mtx" \
                --engine mpi --rank-engine cpu --threads 1 | multiply) ;;
            esac
            times+=("$t")
        done
        median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        echo "  $m $how: ${times[*]}  median $median"
    done
done

echo "== SpMV on 2D Poisson: bytes each rank sends and receives in one product"
for n in 500 1000 2000; do
    "$spmx" gen poisson2d --n "$n" -o "$dir/poisson2d-$n.mtx" >/dev/null
    for np in 2 4; do
        echo "-- poisson2d $n² ($((n * n)) rows), $np ranks"
        "${mpirun[@]}" -np "$np" "$spmx" spmv "$dir/poisson2d-$n.mtx" --engine mpi \
            --rank-engine cpu --threads 1 | grep -E '^  (plan|multiply|rank) |^  [0-9]'
    done
done
