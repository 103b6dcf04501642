#!/usr/bin/env bash
# Benchmarks `evtool validate --topic` against `evtool validate FILE` on the
# same generated events of examples/orders, in the same run.
# Usage: bench/validatetopic/run.sh [EVENTS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-200000}
rounds=${2:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/evtool" ./cmd/evtool
go build -o "$out/genevents" ./bench/genevents
go build -o "$out/bench" ./bench/validatetopic
"$out/genevents" -n "$n" -orders 50 -seed 1 -out "$out/events.jsonl"
echo "machine: $(nproc) cores, $(go version)"
"$out/bench" -evtool "$out/evtool" -dir examples/orders -events "$out/events.jsonl" -rounds "$rounds"
