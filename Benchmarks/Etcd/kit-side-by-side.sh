#!/bin/bash
# Builds of propd --etcd side by side with etcd's own put/watch, through the shared kit's harness,
# interleaved (the order reversed every other round): per round etcd (seq, conc, notify), then per
# build seq, conc and notify on one node (propd-on-etcd.sh) and notify with the subscriber on another
# node (cross-node-notify.py; its variant NAME-cross). floor=PATH adds the cluster floor
# (Benchmarks/Etcd/floor, built by floor.sh): seq and conc only, as it serves no Subscribe.
#   Benchmarks/Etcd/kit-side-by-side.sh 5 before=/tmp/propd-old after=.build/release/propd
#   Benchmarks/Etcd/kit-side-by-side.sh 5 propd=.build/release/propd floor=/tmp/cluster-floor
#   python3 Benchmarks/Etcd/side-by-side-report.py ../shared/bench/peers/results/side-by-side.jsonl
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${1:?usage: kit-side-by-side.sh ROUNDS NAME=PROPD ...}
shift
cd "$HERE/../../../shared/bench/peers"
mkdir -p results
OUT=results/side-by-side.jsonl
: > $OUT
T="--runs 1 --subs 1 --max-seconds 10"
for r in $(seq 1 "$ROUNDS"); do
  order="etcd $*"
  [ $((r % 2)) = 0 ] && order=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')
  for who in $order; do
    echo "$(date -u +%T) round $r ${who%%=*} load=$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$who" = etcd ]; then
      timeout 300 python3 harness/bench.py --out $OUT --target etcd $T --tests seq,conc,notify > /dev/null
    elif [ "${who%%=*}" = floor ]; then
      export CLUSTER_FLOOR_BIN=${who#*=}
      timeout 300 python3 harness/bench.py --out $OUT --target propd --variant floor \
        --server-cmd "bash $HERE/floor/floor-on-etcd.sh {sock} {dir}" $T --tests seq,conc > /dev/null
    else
      name=${who%%=*}
      export PROPD_ETCD_BIN=${who#*=}
      timeout 300 python3 harness/bench.py --out $OUT --target propd --variant "$name" \
        --server-cmd "bash $HERE/propd-on-etcd.sh {sock} {dir}" $T --tests seq,conc,notify > /dev/null
      timeout 300 python3 "$HERE/cross-node-notify.py" --out $OUT --target propd --variant "$name-cross" \
        --server-cmd "env PROPD_NODES=2 bash $HERE/propd-on-etcd.sh {sock} {dir}" $T --tests notify > /dev/null
    fi
    echo "   rc=$?"
  done
done
