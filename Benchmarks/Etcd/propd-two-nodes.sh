#!/bin/bash
# Two propd --etcd nodes on one etcd member started like the kit's own: node A serves SOCK (the kit's
# propd target connects there), node B serves SOCK.b (Benchmarks/Etcd/cross-node-notify.py subscribes
# there). SIGTERM stops all three, by PID.
SOCK=$1; DIR=$2; PROPD=${PROPD_ETCD_BIN:?set PROPD_ETCD_BIN to a release propd}
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
C=$(port); P=$(port); M=$(port)
etcd --name bench --data-dir "$DIR/etcd-data" \
  --listen-client-urls http://127.0.0.1:$C --advertise-client-urls http://127.0.0.1:$C \
  --listen-peer-urls http://127.0.0.1:$P --initial-advertise-peer-urls http://127.0.0.1:$P \
  --initial-cluster bench=http://127.0.0.1:$P --initial-cluster-state new \
  --logger zap --log-outputs "$DIR/etcd.log" --log-level warn \
  --listen-metrics-urls http://127.0.0.1:$M > "$DIR/etcd.out" 2>&1 &
E=$!
for i in $(seq 1 100); do
  curl -s http://127.0.0.1:$C/health 2>/dev/null | grep -q '"health":"true"' && break
  sleep 0.1
done
mkdir -p "$DIR/a" "$DIR/b"
"$PROPD" --socket "$SOCK.b" --bindings "$DIR/b" --etcd http://127.0.0.1:$C --etcd-prefix /bench > "$DIR/propd-b.out" 2>&1 &
B=$!
# Node B first, and ready before A's socket appears (the harness waits for A's).
for i in $(seq 1 100); do [ -S "$SOCK.b" ] && break; sleep 0.1; done
"$PROPD" --socket "$SOCK" --bindings "$DIR/a" --etcd http://127.0.0.1:$C --etcd-prefix /bench > "$DIR/propd-a.out" 2>&1 &
A=$!
trap 'kill $A $B 2>/dev/null; wait $A $B 2>/dev/null; kill $E 2>/dev/null; wait $E 2>/dev/null; exit 0' TERM INT
wait $A
kill $B $E 2>/dev/null
