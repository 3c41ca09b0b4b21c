#!/bin/bash
# The shared kit's harness, interleaved: etcd's own put/watch (through its JSON gateway, the kit's
# etcd target) against propd --etcd on a one-member etcd started the same way (propd-on-etcd.sh).
#   swift build -c release --scratch-path .build-release --product propd
#   PROPD_ETCD_BIN=$PWD/.build-release/release/propd ROUNDS=5 Benchmarks/Etcd/kit-interleaved.sh
#   NOTIFY_ROUNDS=5 adds Set -> event with the subscriber on another node (below)
#   python3 ../shared/bench/peers/sbs_report.py ../shared/bench/peers/results/harness-etcd.jsonl
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PROPD_ETCD_BIN:?set PROPD_ETCD_BIN to a release propd}"
export PROPD_ETCD_BIN
cd "$HERE/../../../shared/bench/peers"
OUT=results/harness-etcd.jsonl
: > $OUT
T="--runs 1 --tests seq,conc,notify --subs 1 --max-seconds 10"
for r in $(seq 1 "${ROUNDS:-5}"); do
  order="etcd propd"; [ $((r % 2)) = 0 ] && order="propd etcd"
  for who in $order; do
    echo "$(date -u +%T) round $r $who load=$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$who" = etcd ]; then
      timeout 300 python3 harness/bench.py --out $OUT --target etcd $T > /dev/null
    else
      timeout 300 python3 harness/bench.py --out $OUT --target propd --variant normal \
        --server-cmd "bash $HERE/propd-on-etcd.sh {sock} {dir}" $T > /dev/null
    fi
    echo "   rc=$?"
  done
done
# Set -> event with the subscriber on another node (cross-node-notify.py), then etcd's own put -> watch,
# interleaved: NOTIFY_ROUNDS=5 Benchmarks/Etcd/kit-interleaved.sh with ROUNDS=0 runs these alone.
for r in $(seq 1 "${NOTIFY_ROUNDS:-0}"); do
  for who in cross etcd; do
    echo "$(date -u +%T) notify round $r $who load=$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$who" = etcd ]; then
      timeout 300 python3 harness/bench.py --out $OUT --target etcd --runs 1 --tests notify --subs 1 --max-seconds 10 > /dev/null
    else
      timeout 300 python3 "$HERE/cross-node-notify.py" --out $OUT --target propd --variant cross-node \
        --server-cmd "env PROPD_NODES=2 bash $HERE/propd-on-etcd.sh {sock} {dir}" --runs 1 --tests notify --subs 1 --max-seconds 10 > /dev/null
    fi
    echo "   rc=$?"
  done
done
