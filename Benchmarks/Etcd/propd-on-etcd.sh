#!/bin/bash
# propd --etcd on a one-member etcd started like the kit's own (lib/servers.py start_etcd),
# for the kit's propd target: --server-cmd "bash Benchmarks/Etcd/propd-on-etcd.sh {sock} {dir}" (absolute path).
# PROPD_NODES=2 starts a second node on SOCK.b first (cross-node-notify.py subscribes there).
# SIGTERM stops them all, by PID.
SOCK=$1; DIR=$2; PROPD=${PROPD_ETCD_BIN:?set PROPD_ETCD_BIN to a release propd}
. "$(dirname "$0")/etcd-member.sh"
start_etcd "$DIR"
C=$ETCD_PORT; E=$ETCD_PID
B=
if [ "${PROPD_NODES:-1}" = 2 ]; then
  mkdir -p "$DIR/node-b"
  "$PROPD" --socket "$SOCK.b" --bindings "$DIR/node-b" --etcd http://127.0.0.1:$C --etcd-prefix /bench \
    > "$DIR/propd-b.out" 2>&1 &
  B=$!
  # Ready before node A's socket appears (the harness waits for A's).
  for i in $(seq 1 100); do [ -S "$SOCK.b" ] && break; sleep 0.1; done
fi
mkdir -p "$DIR/b"
"$PROPD" --socket "$SOCK" --bindings "$DIR/b" --etcd http://127.0.0.1:$C --etcd-prefix /bench > "$DIR/propd.out" 2>&1 &
D=$!
trap 'kill $D $B 2>/dev/null; wait $D $B 2>/dev/null; kill $E 2>/dev/null; wait $E 2>/dev/null; exit 0' TERM INT
wait $D
kill $B $E 2>/dev/null
