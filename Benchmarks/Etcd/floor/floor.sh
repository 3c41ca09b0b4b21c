#!/bin/bash
# Builds cluster-floor with Debian's Go and etcd's client from Debian's packages (GOPATH mode:
# golang-etcd-server-dev ships go.etcd.io/etcd/clientv3 and its dependencies under /usr/share/gocode),
# installing them first when they are missing.
#   Benchmarks/Etcd/floor/floor.sh /tmp/cluster-floor
set -eu
OUT=$(realpath -m "${1:?usage: floor.sh OUTPUT}")
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v go > /dev/null || [ ! -d /usr/share/gocode/src/go.etcd.io/etcd/clientv3 ]; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go golang-etcd-server-dev
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$HERE/cluster_floor.go" "$WORK/"
cd "$WORK"
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$WORK/cache" go build -o "$OUT" cluster_floor.go
