#!/bin/bash
# Hostile compat pairs (issue 18: doubling $refs, a 5,000-$ref chain, a
# 100,000-value enum, long counted patterns, 2,000 required properties)
# through `evtool compat check` and `compat diff`, for one or more evtool
# binaries (e.g. one built from the base commit and one from HEAD), each
# case under a 4 GB address-space limit and a wall-clock limit.
#
#   bench/compathostile/run.sh [ROUNDS] BINARY...
#
# Prints per binary, case and command: exit code, wall seconds, peak RSS
# (polled VmHWM) and output bytes, one line per round.
set -u
cd "$(dirname "$0")/../.."
rounds=${1:-3}; shift
limit=${LIMIT:-60}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test ./compat -run TestWriteHostile -hostile-out "$dir" -count=1 >/dev/null || exit 2

run1() { # run1 CMD...: one run, killed after $limit s
	local start end pid hwm=0 h killed=""
	start=$(date +%s.%N)
	prlimit --as=4000000000 "$@" >"$dir/out" 2>"$dir/err" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		h=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null)
		if [ -n "$h" ] && [ "$h" -gt "$hwm" ]; then hwm=$h; fi
		if (($(echo "$(date +%s.%N) - $start > $limit" | bc))); then kill -9 $pid; killed=" (killed after ${limit} s)"; fi
		sleep 0.05
	done
	wait $pid 2>/dev/null
	local rc=$?
	end=$(date +%s.%N)
	grep -q "out of memory" "$dir/err" && killed=" (out of memory)"
	printf "rc=%s wall=%.2fs peak=%dMB out=%dB%s\n" $rc "$(echo "$end - $start" | bc)" $((hwm / 1024)) "$(wc -c <"$dir/out")" "$killed"
}

for bin in "$@"; do
	for c in ${CASES:-doubling refchain enum pattern required}; do
		for i in $(seq "$rounds"); do
			echo "$bin $c check $(run1 "$bin" compat check --dir "$dir/$c")"
			echo "$bin $c diff  $(run1 "$bin" compat diff "$dir/$c/old.json" "$dir/$c/new.json")"
		done
	done
done
