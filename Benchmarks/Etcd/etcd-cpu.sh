#!/bin/bash
# etcd's CPU per request, one client for every shape (propd-etcd-bench): a put over gRPC, the
# least transaction a propd write is ("guarded": compares on the row and on `bindings`, the
# row's put) over gRPC, and the same over etcd's JSON gateway, interleaved on one fresh
# member (started as propd-on-etcd.sh starts it, stopped by PID). etcd's CPU is read from
# /proc/PID/stat (all threads) around each run of N sequential writes and N_CONC writes
# over 16 connections.
#   swift build -c release --scratch-path .build-release --product propd-etcd-bench
#   ROUNDS=3 Benchmarks/Etcd/etcd-cpu.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=${BENCH:-$HERE/../../.build-release/release/propd-etcd-bench}
N=${N:-1500}; N_CONC=${N_CONC:-12000}
D=$(mktemp -d /tmp/etcd-cpu-XXXXXX)
. "$HERE/etcd-member.sh"
start_etcd "$D"
C=$ETCD_PORT; E=$ETCD_PID
trap 'kill $E 2>/dev/null; wait $E 2>/dev/null; rm -rf "$D"' EXIT
HZ=$(getconf CLK_TCK)
for r in $(seq 1 "${ROUNDS:-3}"); do
  for variant in "put grpc" "guarded grpc" "guarded gateway"; do
    set -- $variant
    before=$(cpu_ticks $E)
    out=$("$BENCH" --endpoints http://127.0.0.1:$C --shape $1 --route $2 --n-seq $N --n-conc $N_CONC --conns 16 --max-seconds 20)
    after=$(cpu_ticks $E)
    # Each run also makes 50 warm-up writes and one per connection.
    writes=$((N + N_CONC + 50 + 16))
    echo "round $r $1 $2 $out etcd_cpu_us_per_write=$(( (after - before) * 1000000 / HZ / writes ))"
  done
done
