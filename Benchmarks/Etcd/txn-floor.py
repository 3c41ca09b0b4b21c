#!/usr/bin/env python3
"""etcd's own cost of the transaction every propd write is, against a plain put:
one fresh etcd member (started as Benchmarks/Etcd/propd-on-etcd.sh starts it, stopped
by PID), one HTTP/1.1 keep-alive client of its JSON gateway (the kit's etcd target
speaks the same), interleaved rounds of N sequential requests each:

  put  /v3/kv/put  one key, 100-byte value
  txn  /v3/kv/txn  propd's shape: compare on the property row and on `bindings`,
                   put the property row and `head`, read `head` when a compare fails

Run beside Benchmarks/Etcd/kit-interleaved.sh, in the same minutes:
  python3 Benchmarks/Etcd/txn-floor.py --rounds 5 --n 2000
"""
import argparse, base64, http.client, json, os, signal, socket, statistics, subprocess, tempfile, time


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


def b64(text):
    return base64.b64encode(text.encode()).decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=2000)
    a = ap.parse_args()
    directory = tempfile.mkdtemp(prefix="txn-floor-")
    client, peer, metrics = free_port(), free_port(), free_port()
    etcd = subprocess.Popen([
        "etcd", "--name", "floor", "--data-dir", f"{directory}/data",
        "--listen-client-urls", f"http://127.0.0.1:{client}", "--advertise-client-urls", f"http://127.0.0.1:{client}",
        "--listen-peer-urls", f"http://127.0.0.1:{peer}", "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
        "--initial-cluster", f"floor=http://127.0.0.1:{peer}", "--initial-cluster-state", "new",
        "--logger", "zap", "--log-outputs", f"{directory}/etcd.log", "--log-level", "warn",
        "--listen-metrics-urls", f"http://127.0.0.1:{metrics}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        connection = None
        deadline = time.time() + 20
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", client)
                connection.request("GET", "/health"); connection.getresponse().read(); break
            except OSError:
                if time.time() > deadline: raise
                time.sleep(0.1)  # start-up polling, bounded by the deadline

        def post(path, body):
            connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
            reply = connection.getresponse(); reply.read()
            assert reply.status == 200, reply.status

        value = b64("x" * 100)
        shapes = {
            "put": lambda i: ("/v3/kv/put", {"key": b64(f"/bench/p/k{i % 100}"), "value": value}),
            "txn": lambda i: ("/v3/kv/txn", {
                "compare": [
                    {"key": b64(f"/bench/p/k{i % 100}"), "result": "NOT_EQUAL", "target": "MOD", "mod_revision": "1"},
                    {"key": b64("/bench/bindings"), "result": "EQUAL", "target": "MOD", "mod_revision": "0"}],
                "success": [{"request_put": {"key": b64(f"/bench/p/k{i % 100}"), "value": value}},
                            {"request_put": {"key": b64("/bench/head"), "value": b64(f"node-{i}")}}],
                "failure": [{"request_range": {"key": b64("/bench/head")}}]}),
        }
        p50 = {name: [] for name in shapes}
        for round in range(a.rounds):
            for name, shape in shapes.items():
                times = []
                for i in range(a.n):
                    start = time.perf_counter(); post(*shape(i)); times.append((time.perf_counter() - start) * 1e6)
                times.sort()
                p50[name].append(times[len(times) // 2])
                print(f"round {round + 1} {name}: p50 {times[len(times) // 2]:.0f} us, p99 {times[int(len(times) * .99)]:.0f} us")
        put, txn = statistics.median(p50["put"]), statistics.median(p50["txn"])
        print(f"median p50: put {put:.0f} us, propd's txn {txn:.0f} us, txn / put {txn / put:.2f}x")
    finally:
        etcd.send_signal(signal.SIGTERM); etcd.wait()


if __name__ == "__main__":
    main()
