#!/bin/sh
# bench/infer/run.sh [ROUNDS] — wall time and runs of
# `evtool consumers infer examples/orders/replay.yaml`, and in the same
# rounds, as the baseline, one `evtool replay` of the same scenario (two
# clean runs and the chaos run, no shrinking). Each round runs both; the
# consumer is built once first (consumer.build's cache), so neither pays
# for the build. Prints one line per command per round, then the medians
# and their ratio. Run from the repository root.
set -eu
rounds=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/evtool" ./cmd/evtool
"$out/evtool" replay examples/orders/replay.yaml --list-faults >/dev/null
# Warm the consumer build cache.
"$out/evtool" replay examples/orders/replay.yaml --shrink-budget 0 >/dev/null 2>&1 || true
i=1
while [ "$i" -le "$rounds" ]; do
	s=$(date +%s.%N)
	"$out/evtool" consumers infer examples/orders/replay.yaml >"$out/contract.yaml" 2>"$out/infer.err"
	e=$(date +%s.%N)
	echo "infer $(echo "$e - $s" | bc) s: $(grep '^infer ' "$out/infer.err")"
	echo "$e - $s" | bc >>"$out/infer.times"
	s=$(date +%s.%N)
	"$out/evtool" replay examples/orders/replay.yaml --shrink-budget 0 >/dev/null 2>&1 || true
	e=$(date +%s.%N)
	echo "replay $(echo "$e - $s" | bc) s"
	echo "$e - $s" | bc >>"$out/replay.times"
	i=$((i + 1))
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
mi=$(median "$out/infer.times")
mr=$(median "$out/replay.times")
echo "median infer ${mi} s, median replay ${mr} s, ratio $(echo "scale=1; $mi / $mr" | bc)"
cat "$out/contract.yaml"
