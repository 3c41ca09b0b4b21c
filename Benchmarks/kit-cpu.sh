#!/usr/bin/env bash
# The shared kit's client alone against several builds of propd, each
# started fresh in turn, round after round: Sets/s and propd's CPU per Set
# (from /proc/PID/stat around the test, all threads), the figure that
# hardly depends on what else the machine runs.
#
#   Benchmarks/kit-cpu.sh PEERS_DIR ROUNDS TEST DURABILITY LABEL=PROPD...
#
# PEERS_DIR is a copy of ../shared/bench/peers with its ./install.sh run
# once; TEST one of the harness's (pipe, conc); CONNS (default 16) the
# connections of `conc`. Each LABEL=PROPD is started as kit-server.sh
# says: `floor=FLOOR` is the C floor, driven by the same client, for its
# CPU per Set in the same rounds. One line per run:
# ROUND LABEL Sets/s CPU-µs-per-Set.
set -euo pipefail
peers="$(cd "$1" && pwd)"; rounds="$2"; test="$3"; durability="$4"; shift 4
source "$(dirname "$0")/kit-server.sh"
work="$(mktemp -d /tmp/propd-kit-cpu.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# The client in its cheap mode, the servers without (see kit-builds.sh).
export MALLOC_MMAP_THRESHOLD_=1048576 MALLOC_TRIM_THRESHOLD_=67108864
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for ((round = 1; round <= rounds; round++)); do
    for build in "$@"; do
        dir="$work/run"; rm -rf "$dir"
        kit_server_start "$build" "$dir" "$durability"
        pid=$kit_server_pid
        before=$(ticks $pid)
        (cd "$peers" && python3 harness/bench.py --target propd --socket "$dir/s.sock" --tests "$test" \
            --conns "${CONNS:-16}" --runs 1 --max-seconds 8 --out "$dir/out.jsonl" >/dev/null 2>&1)
        after=$(ticks $pid)
        kill $pid; wait $pid 2>/dev/null || true
        python3 - "$dir/out.jsonl" "$round" "${build%%=*}" "$before" "$after" "$(getconf CLK_TCK)" <<'PY'
import json, sys
path, round_, label, before, after, hz = sys.argv[1:]
m = [json.loads(line)["m"] for line in open(path)][-1]
cpu = (float(after) - float(before)) / float(hz) * 1e6 / m["n"]
print(round_, label, round(m["sets_per_s"]), round(cpu, 2))
PY
    done
done
