# Sourced: start_etcd DIR starts one etcd member as the shared kit starts its own
# (lib/servers.py start_etcd), data and logs under DIR, on free loopback ports, and
# waits until it is healthy. Sets ETCD_PID and ETCD_PORT (its client port).
# cpu_ticks PID: the process's CPU time so far (user + system, all threads), in clock ticks.
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_etcd() {
  local dir=$1 peer metrics
  ETCD_PORT=$(free_port); peer=$(free_port); metrics=$(free_port)
  etcd --name bench --data-dir "$dir/etcd-data" \
    --listen-client-urls http://127.0.0.1:$ETCD_PORT --advertise-client-urls http://127.0.0.1:$ETCD_PORT \
    --listen-peer-urls http://127.0.0.1:$peer --initial-advertise-peer-urls http://127.0.0.1:$peer \
    --initial-cluster bench=http://127.0.0.1:$peer --initial-cluster-state new \
    --logger zap --log-outputs "$dir/etcd.log" --log-level warn \
    --listen-metrics-urls http://127.0.0.1:$metrics > "$dir/etcd.out" 2>&1 &
  ETCD_PID=$!
  for _ in $(seq 1 100); do
    curl -s http://127.0.0.1:$ETCD_PORT/health 2>/dev/null | grep -q '"health":"true"' && return 0
    sleep 0.1  # start-up polling, bounded: 10 s
  done
  return 1
}
