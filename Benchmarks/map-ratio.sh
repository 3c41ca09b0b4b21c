#!/bin/sh
# The simple `map` evaluation figure of BENCHMARKS.md ("Simple map evaluation
# (propagate one change)") for two revisions, run interleaved in the same
# minutes: base, change, base, change, … and the medians and their ratio.
#
#   Benchmarks/map-ratio.sh BASE [CHANGE] [PAIRS]
#
# BASE and CHANGE are git revisions (CHANGE defaults to the working tree).
# Each side is a scratch release package of PropdJSON, PropdCore and
# PropdBindings with Benchmarks/MapRatio/main.swift, so nothing else is built.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: map-ratio.sh BASE [CHANGE] [PAIRS]}
change=${2:-}
pairs=${3:-6}
work=$(mktemp -d "${TMPDIR:-/tmp}/map-ratio.XXXXXX")

tree() {  # tree NAME REV: the sources of REV (or the working tree) under $work/NAME/src
    mkdir -p "$work/$1/src"
    if [ -n "$2" ]; then
        git -C "$repo" archive "$2" Sources | tar -x -C "$work/$1/src"
    else
        cp -R "$repo/Sources" "$work/$1/src/"
    fi
    mkdir -p "$work/$1/Sources/MapBench"
    for t in PropdJSON PropdCore PropdBindings; do ln -s "$work/$1/src/Sources/$t" "$work/$1/Sources/$t"; done
    cp "$repo/Benchmarks/MapRatio/main.swift" "$work/$1/Sources/MapBench/main.swift"
    cat > "$work/$1/Package.swift" <<'PKG'
// swift-tools-version: 6.1
import PackageDescription
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let package = Package(
    name: "map-ratio",
    targets: [
        .target(name: "PropdJSON", swiftSettings: strict),
        .target(name: "PropdCore", dependencies: ["PropdJSON"], swiftSettings: strict),
        .target(name: "PropdBindings", dependencies: ["PropdCore"], swiftSettings: strict),
        .executableTarget(name: "MapBench", dependencies: ["PropdBindings", "PropdCore"], swiftSettings: strict),
    ]
)
PKG
    swift build -c release --package-path "$work/$1" >"$work/$1.build.log" 2>&1
}

tree base "$base"
tree change "$change"
i=0
while [ "$i" -lt "$pairs" ]; do
    printf 'base   '; "$work/base/.build/release/MapBench" 5 1000000
    printf 'change '; "$work/change/.build/release/MapBench" 5 1000000
    i=$((i + 1))
done | tee "$work/runs.txt"
median() { grep "^$1 " "$work/runs.txt" | awk '{ print $3 }' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
b=$(median base)
c=$(median change)
awk -v b="$b" -v c="$c" 'BEGIN {
    printf "base   median %.1f ns/call (%d evaluations/s)\n", b, 1e9 / b
    printf "change median %.1f ns/call (%d evaluations/s)\n", c, 1e9 / c
    printf "ratio change/base (evaluations/s): %.3f\n", b / c }'
echo "(scratch packages in $work)"
