#!/usr/bin/env bash
# bench/codegen/avro/run.sh: generated Avro decoding against
# github.com/twmb/avro decoding into the same struct, ROUNDS rounds of the
# whole set (interleaved, so that noise on a shared machine hits every
# contender alike); prints the median cpu-ns/op and ns/op of each and the
# ratios against the generated code.
#
#   bench/codegen/avro/run.sh            # 6 rounds of 1s per benchmark
#   ROUNDS=10 BENCHTIME=2s bench/codegen/avro/run.sh
#   PKG=bench/codegen/avro/events bench/codegen/avro/run.sh   # event decoders vs the old generic path
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROUNDS=${ROUNDS:-6}
BENCHTIME=${BENCHTIME:-1s}
PKG=${PKG:-bench/codegen/avro}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/bench.test" "./$PKG"
(cd "$PKG" && for _ in $(seq "$ROUNDS"); do
  "$work/bench.test" -test.run '^$' -test.bench . -test.benchtime "$BENCHTIME"
done) | tee "$work/out.txt" >&2
awk '
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  for (i = 2; i < NF; i++) { if ($(i+1) == "ns/op") ns[name] = ns[name] " " $i; if ($(i+1) == "cpu-ns/op") cpu[name] = cpu[name] " " $i; if ($(i+1) == "allocs/op") al[name] = $i }
}
function median(s,   a, n, i, j, t) {
  n = split(s, a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
  for (k in cpu) { mc[k] = median(cpu[k]); mn[k] = median(ns[k]) }
  for (k in cpu) {
    g = k; sub(/_.*/, "_Generated", g)
    printf "%-40s %12.0f %12.0f %9s %7.2fx\n", k, mc[k], mn[k], al[k], mc[k] / mc[g]
  }
}' "$work/out.txt" | sort >"$work/summary.txt"
printf "%-40s %12s %12s %9s %8s\n" benchmark cpu-ns/op ns/op allocs "vs gen"
cat "$work/summary.txt"
