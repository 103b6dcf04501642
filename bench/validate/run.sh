#!/usr/bin/env bash
# Benchmarks `evtool validate` on 1M generated events of examples/orders
# against bare santhosh-tekuri/jsonschema v6 decode+validate of the same data
# payloads, in the same run. Usage: bench/validate/run.sh [EVENTS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1000000}
rounds=${2:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/evtool" ./cmd/evtool
go build -o "$out/genevents" ./bench/genevents
go build -o "$out/bench" ./bench/validate
"$out/genevents" -n "$n" -orders 50 -seed 1 -out "$out/events.jsonl"
"$out/genevents" -n $((n / 10)) -orders 50 -seed 2 -out "$out/small.jsonl"
echo "machine: $(nproc) cores, $(go version)"
"$out/bench" -evtool "$out/evtool" -dir examples/orders -events "$out/events.jsonl" -small "$out/small.jsonl" -rounds "$rounds"
