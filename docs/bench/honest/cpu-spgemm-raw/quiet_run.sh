#!/bin/bash
# quiet_run.sh OUTDIR REPS MAXPROD FILE...: the script on one file at a time, each only
# while no cargo/rustc runs, retried (up to 4 times) when one started during the run.
out=$1; reps=$2; maxp=$3; shift 3
busy() { pgrep -x cargo >/dev/null || pgrep -x rustc >/dev/null; }
for f in "$@"; do
  n=$(basename $f); n=${n%.gz}; n=${n%.mtx}
  for try in 1 2 3 4; do
    while busy; do sleep 10; done
    python3 /work/cpu-wt/scripts/graphblas_spgemm.py --spmx /tmp/spmx-final --reps $reps --max-products $maxp --json $out/$n.json $f > $out/$n.txt 2>&1
    rc=$?
    if busy; then echo "$n: a build started during try $try, again" >> $out/retries.log; rm -f $out/$n.json; sleep 5; else echo "$n: rc $rc, try $try, $(date -u +%T), $(uptime)" >> $out/retries.log; break; fi
  done
done
