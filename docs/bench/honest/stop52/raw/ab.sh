#!/bin/bash
# usage: ab.sh LOG ROUNDS REPEAT ENGINE FILE... ; env A vs B via SPMX_NOPOP
log=$1 rounds=$2 rep=$3 engine=$4; shift 4
for r in $(seq $rounds); do for f in "$@"; do for v in pop nopop; do
  if [ $v = nopop ]; then export SPMX_NOPOP=1; else unset SPMX_NOPOP; fi
  out=$(/tmp/bin/spmx-pop spgemm $f --engine $engine --repeat $rep 2>&1)
  echo "$(date +%T) $v $engine $(basename $f .mtx) best=$(echo "$out" | awk '/^  multiply/{print $2}') runs=$(echo "$out" | awk '/^  runs/{$1="";print}')" >> $log
done; done; done
