#!/bin/sh
# Peak RSS and wall time of `evtool compat check` and `evtool lint` on a
# generated catalog with consumer contracts (1,000 types x 2 versions x 20
# consumers by default), ROUNDS runs each; the median is what
# BENCHMARKS.md records. Give BASE=/path/to/evtool to measure another
# build in the same run (a baseline). Needs GNU time (/usr/bin/time).
#   bench/consumers/rss.sh [-types N] [-versions N] [-consumers N]
set -e
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./bench/consumers -types 1000 -versions 2 -consumers 20 "$@" -write "$work/cat"
go build -o "$work/evtool" ./cmd/evtool
for bin in ${BASE:+"$BASE"} "$work/evtool"; do
	for cmd in "compat check" "lint"; do
		for i in $(seq "$ROUNDS"); do
			# compat check exits 1 on the planted breaks; lint exits 0.
			/usr/bin/time -f "$bin $cmd: %M KB peak RSS, %e s wall" "$bin" $cmd --dir "$work/cat" >/dev/null 2>"$work/err" || true
			tail -n 1 "$work/err"
		done
	done
done
