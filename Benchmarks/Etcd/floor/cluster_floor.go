// cluster_floor: the least a propd node on etcd can do for a Set, written
// with etcd's own Go client (clientv3 over gRPC), as a floor for
// `propd --etcd` in the shared kit's harness.
//
// It serves io.propd.Set on a Unix socket (one JSON object + NUL per
// message, one key per call, the kit's propd target) and, per Set, sends
// the least transaction a propd write is: the key's put, guarded by a
// compare of the key's mod revision with the one this node last saw and of
// `bindings` with 0 (no binding declared); a lost race reads the key and
// tries again. Like every propd node it keeps one watch of the whole prefix
// open, reading every event into its table of mod revisions. It answers
// {"parameters":{"revision":N}} once etcd has acknowledged the transaction.
// No JSON parser beyond finding the key and value, no bindings, no history,
// no subscriptions, no `head` key, no limits.
//
//	go build -o cluster-floor cluster_floor.go   (GOPATH mode: see floor.sh)
//	cluster-floor SOCKET http://127.0.0.1:2379 /bench
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/clientv3"
)

type node struct {
	client   *clientv3.Client
	prefix   string
	bindings string
	mu       sync.Mutex
	seen     map[string]int64 // key -> mod revision, from replies and the watch
}

func (n *node) known(key string) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seen[key]
}

func (n *node) saw(key string, revision int64) {
	n.mu.Lock()
	if revision > n.seen[key] {
		n.seen[key] = revision
	}
	n.mu.Unlock()
}

func (n *node) set(ctx context.Context, key string, value []byte) (int64, error) {
	row := n.prefix + "/p/" + key
	for attempt := 0; attempt < 100; attempt++ {
		known := n.known(row)
		reply, err := n.client.Txn(ctx).If(
			clientv3.Compare(clientv3.ModRevision(row), "=", known),
			clientv3.Compare(clientv3.ModRevision(n.bindings), "=", 0),
		).Then(clientv3.OpPut(row, string(value))).Commit()
		if err != nil {
			return 0, err
		}
		if reply.Succeeded {
			n.saw(row, reply.Header.Revision)
			return reply.Header.Revision, nil
		}
		current, err := n.client.Get(ctx, row)
		if err != nil {
			return 0, err
		}
		for _, kv := range current.Kvs {
			n.saw(row, kv.ModRevision)
		}
	}
	return 0, fmt.Errorf("%s: too many lost races", key)
}

func (n *node) watch(ctx context.Context) {
	for update := range n.client.Watch(ctx, n.prefix+"/", clientv3.WithPrefix()) {
		for _, event := range update.Events {
			n.saw(string(event.Kv.Key), event.Kv.ModRevision)
		}
	}
}

// parseSet finds the one key and its JSON value in
// {"method":"io.propd.Set","parameters":{"values":{"KEY":VALUE}}}.
func parseSet(frame []byte) (string, []byte, bool) {
	marker := []byte(`"values":{"`)
	start := bytes.Index(frame, marker)
	if start < 0 {
		return "", nil, false
	}
	rest := frame[start+len(marker):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || end+2 > len(rest) || rest[end+1] != ':' {
		return "", nil, false
	}
	value := bytes.TrimSuffix(rest[end+2:], []byte("}}}"))
	return string(rest[:end]), value, true
}

func (n *node) serve(conn net.Conn) {
	defer conn.Close()
	reader := bufio.NewReaderSize(conn, 65536)
	ctx := context.Background()
	for {
		frame, err := reader.ReadSlice(0)
		if err != nil {
			return
		}
		var reply []byte
		if key, value, ok := parseSet(frame[:len(frame)-1]); ok {
			revision, err := n.set(ctx, key, value)
			if err == nil {
				reply = append(append([]byte(`{"parameters":{"revision":`), strconv.FormatInt(revision, 10)...), "}}\x00"...)
			} else {
				reply = []byte(`{"error":"io.propd.Unavailable","parameters":{}}` + "\x00")
			}
		} else {
			reply = []byte(`{"error":"org.varlink.service.MethodNotImplemented","parameters":{}}` + "\x00")
		}
		if _, err := conn.Write(reply); err != nil {
			return
		}
	}
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: cluster-floor SOCKET ENDPOINT PREFIX")
		os.Exit(2)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{os.Args[2]}, DialTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n := &node{client: client, prefix: os.Args[3], bindings: os.Args[3] + "/bindings", seen: map[string]int64{}}
	go n.watch(context.Background())
	listener, err := net.Listen("unix", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		conn, err := listener.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go n.serve(conn)
	}
}
