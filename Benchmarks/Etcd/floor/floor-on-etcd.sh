#!/bin/bash
# cluster-floor on a one-member etcd started like the kit's own, for the kit's propd target:
# --server-cmd "bash Benchmarks/Etcd/floor/floor-on-etcd.sh {sock} {dir}" (absolute path), with
# CLUSTER_FLOOR_BIN set to the binary floor.sh built. SIGTERM stops both, by PID.
SOCK=$1; DIR=$2; FLOOR=${CLUSTER_FLOOR_BIN:?set CLUSTER_FLOOR_BIN to a cluster-floor binary}
. "$(dirname "$0")/../etcd-member.sh"
start_etcd "$DIR"
E=$ETCD_PID
"$FLOOR" "$SOCK" http://127.0.0.1:$ETCD_PORT /bench > "$DIR/floor.out" 2>&1 &
F=$!
trap 'kill $F 2>/dev/null; wait $F 2>/dev/null; kill $E 2>/dev/null; wait $E 2>/dev/null; exit 0' TERM INT
wait $F
kill $E 2>/dev/null
