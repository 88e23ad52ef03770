#!/bin/bash
# usage: ab2.sh LOG ROUNDS REPEAT ENGINE "BIN1 BIN2" FILE...
log=$1 rounds=$2 rep=$3 engine=$4 bins=$5; shift 5
for r in $(seq $rounds); do for f in "$@"; do for b in $bins; do
  out=$(/tmp/bin/spmx-$b spgemm $f --engine $engine --repeat $rep 2>&1)
  echo "$r $b $engine $(basename $f .mtx.gz) $(echo "$out" | awk '/^  runs/{$1="";print}' | tr -d 'ms')" >> $log
done; done; done
echo done >> $log.done
