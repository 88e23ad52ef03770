#!/bin/bash
# usage: run.sh LOG LABEL BIN SPAN ENGINE REPEAT FILE...
log=$1 label=$2 bin=$3 span=$4 engine=$5 rep=$6; shift 6
for f in "$@"; do
  out=$(SPMX_SPAN=$span $bin spgemm $f --engine $engine --repeat $rep 2>&1)
  best=$(echo "$out" | awk '/^  multiply/{print $2}')
  runs=$(echo "$out" | awk '/^  runs/{$1="";print}')
  echo "$(date +%T) $label $engine $(basename $f .mtx) best=$best runs=$runs load=$(cat /proc/loadavg | cut -d' ' -f1)" | tee -a $log
done
