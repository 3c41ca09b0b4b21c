#!/bin/bash
# What one watch of the whole key space costs etcd, which the kit's put/watch baseline does not
# pay and every propd node keeps (its mirror's): propd-etcd-bench's `guarded` writes over gRPC
# (a propd write's compares and put) on one fresh member, alternately with no watcher and with
# `etcdctl watch --prefix ""` reading every event. etcd's and the watcher's CPU per write are
# read from /proc/PID/stat (all threads); the watcher is started before and stopped after each run.
#   swift build -c release --product propd-etcd-bench
#   ROUNDS=4 Benchmarks/Etcd/watch-cost.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=${BENCH:-$HERE/../../.build/release/propd-etcd-bench}
N=${N:-500}; N_CONC=${N_CONC:-12000}
D=$(mktemp -d /tmp/watch-cost-XXXXXX)
. "$HERE/etcd-member.sh"
start_etcd "$D"
C=$ETCD_PORT; E=$ETCD_PID
W=
trap 'kill $W $E 2>/dev/null; wait $W $E 2>/dev/null; rm -rf "$D"' EXIT
HZ=$(getconf CLK_TCK)
# Each run also makes 50 warm-up writes and one per connection.
writes=$((N + N_CONC + 50 + 16))
for r in $(seq 1 "${ROUNDS:-4}"); do
  for watcher in none prefix; do
    W=
    if [ $watcher = prefix ]; then
      ETCDCTL_API=3 etcdctl --endpoints "http://127.0.0.1:$C" watch --prefix "" > /dev/null 2>&1 &
      W=$!
      # etcdctl opens its watch asynchronously: wait for its connection to the member.
      for _ in $(seq 1 100); do
        ss -tnp 2>/dev/null | grep -q "pid=$W," && break
        sleep 0.05  # bounded: 5 s
      done
    fi
    before=$(cpu_ticks $E)
    out=$("$BENCH" --endpoints "http://127.0.0.1:$C" --shape guarded --route grpc \
      --n-seq "$N" --n-conc "$N_CONC" --conns 16 --max-seconds 20)
    after=$(cpu_ticks $E)
    watcher_us=0
    if [ -n "$W" ]; then
      watcher_us=$(( $(cpu_ticks $W) * 1000000 / HZ / writes ))
      kill $W; wait $W 2>/dev/null; W=
    fi
    echo "round $r watcher=$watcher $out etcd_cpu_us_per_write=$(( (after - before) * 1000000 / HZ / writes )) watcher_cpu_us_per_write=$watcher_us"
  done
done
