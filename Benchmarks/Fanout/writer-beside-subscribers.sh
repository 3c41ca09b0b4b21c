#!/usr/bin/env bash
# A writer's Set round trip while 100 subscribers watch its key, for
# builds of propd started fresh in turn, round after round.
#
#   Benchmarks/Fanout/writer-beside-subscribers.sh ROUNDS [--paced] LABEL=PROPD...
#
# One line per run: ROUND LABEL and what writer_beside_subscribers.py
# prints (the writer's Sets/s back to back, or with --paced each Set on
# an idle daemon; its round trip's p50 and p99). DURABILITY (default
# normal) is passed to propd.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds="$1"; shift
paced=""
if [ "${1:-}" = "--paced" ]; then paced="--paced"; shift; fi
work="$(mktemp -d /tmp/propd-writer-beside.XXXXXX)"
trap 'rm -rf "$work"' EXIT
for ((round = 1; round <= rounds; round++)); do
    for server in "$@"; do
        label="${server%%=*}"; dir="$work/run"; rm -rf "$dir"; mkdir -p "$dir/b"
        "${server#*=}" --socket "$dir/s.sock" --database "$dir/db" --bindings "$dir/b" \
            --durability "${DURABILITY:-normal}" >/dev/null 2>&1 &
        pid=$!
        for _ in $(seq 200); do [ -S "$dir/s.sock" ] && break; sleep 0.05; done
        echo "$round $label $(python3 "$here/writer_beside_subscribers.py" "$dir/s.sock" 100 3000 $paced)"
        kill "$pid"; wait "$pid" 2>/dev/null || true
    done
done
