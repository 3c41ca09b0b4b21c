#!/usr/bin/env bash
# Set→event with 100 subscribers under propd-bench: the C floor server
# and builds of propd, each started fresh in turn, round after round. The
# floor gets every Set as an event on each Subscribe connection, propd on
# each subscription of the key; the writer waits for the 100 events of a
# Set before the next.
#
#   Benchmarks/Floor/set-to-event.sh BIN_DIR ROUNDS [LABEL=PROPD...]
#
# BIN_DIR holds release builds of propd and propd-bench; the floor is
# built into a temporary directory. Each LABEL=PROPD adds a build of
# propd (default: propd=BIN_DIR/propd); a LABEL ending in "floor" marks
# a server taking the C floor's arguments instead, such as the NIO floor
# (nio-floor=Benchmarks/NIOFloor/.build/release/nio-floor-server). One
# line per run: ROUND LABEL p50-µs p99-µs and the server's CPU per
# delivery in µs (all threads, from /proc/PID/stat around the run, over
# 2,050 Sets × 100 events).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(cd "$1" && pwd)"; rounds="$2"; shift 2
[ $# -gt 0 ] || set -- "propd=$bin/propd"
work="$(mktemp -d /tmp/propd-set-to-event.XXXXXX)"
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall "$here/durable_set_server.c" -lsqlite3 -o "$work/floor"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for ((round = 1; round <= rounds; round++)); do
    for server in "floor=$work/floor" "$@"; do
        label="${server%%=*}"; dir="$work/run"; rm -rf "$dir"; mkdir -p "$dir/b"
        if [[ "$label" == *floor ]]; then
            "${server#*=}" "$dir/s.sock" "$dir/db" NORMAL >/dev/null 2>&1 &
        else
            "${server#*=}" --socket "$dir/s.sock" --database "$dir/db" --bindings "$dir/b" \
                --durability normal >/dev/null 2>&1 &
        fi
        pid=$!
        for _ in $(seq 200); do [ -S "$dir/s.sock" ] && break; sleep 0.05; done
        before=$(ticks $pid)
        out=$("$bin/propd-bench" latency --socket "$dir/s.sock" --subscribers 100 --runs 1 2>&1)
        after=$(ticks $pid)
        kill $pid; wait $pid 2>/dev/null || true
        python3 - "$round" "$label" "$before" "$after" "$(getconf CLK_TCK)" "$out" <<'PY'
import re, sys
round_, label, before, after, hz, out = sys.argv[1:]
p = dict(re.findall(r"Set→event, 100 subs (p50|p99)=(\d+)", out))
cpu = (float(after) - float(before)) / float(hz) * 1e6 / (2050 * 100)
print(round_, label, p["p50"], p["p99"], round(cpu, 2))
PY
    done
done
