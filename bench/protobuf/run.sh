#!/usr/bin/env bash
# Times `buf breaking` on the pair evtool's BenchmarkCompare uses
# (compat/protocompat/testdata/bench), beside `go test -bench` in the same run.
# buf comes from $BUF, from PATH, or from an npm install of @bufbuild/buf in
# $BUF_DIR (its package ships the binary); without any of them the buf half
# is skipped. buf is a separate process: its time includes start-up, so the
# script also times `buf --version` and reports the difference.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-7}
BUF=${BUF:-$(command -v buf || true)}
if [[ -z "$BUF" && -n "${BUF_DIR:-}" ]]; then
  # The platform package's binary, not the node wrapper in .bin (whose
  # node start-up would dominate the figures).
  for b in "$BUF_DIR"/node_modules/@bufbuild/buf-*/bin/buf "$BUF_DIR/node_modules/.bin/buf"; do
    if [[ -x "$b" ]]; then BUF=$b; break; fi
  done
fi

echo "== evtool (go test -bench, median of 5)"
go test ./compat/protocompat -run '^$' -bench 'Benchmark(Compare|LoadAndCompare)' -count 5 -benchtime 50x | grep '^Benchmark' |
  sort -k1,1 -k3,3n | awk '{n[$1]++; v[$1,n[$1]]=$3} END {for (k in n) printf "%-50s %10d ns/op\n", k, v[k,int((n[k]+1)/2)]}' | sort
if [[ -z "$BUF" ]]; then
  echo "== buf: not found (set BUF, put buf on PATH, or BUF_DIR with npm's @bufbuild/buf); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in old new; do
  mkdir -p "$work/$side"
  cp compat/protocompat/testdata/bench/$side/order.proto "$work/$side/"
  printf 'version: v2\nbreaking:\n  use:\n    - WIRE_JSON\n' > "$work/$side/buf.yaml"
done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
time_ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
startup=$(for i in $(seq "$ROUNDS"); do time_ms "$BUF" --version; done | median)
backward=$(for i in $(seq "$ROUNDS"); do time_ms "$BUF" breaking "$work/new" --against "$work/old"; done | median)
forward=$(for i in $(seq "$ROUNDS"); do time_ms "$BUF" breaking "$work/old" --against "$work/new"; done | median)
echo "== buf $("$BUF" --version) (median of $ROUNDS, wall time per process)"
echo "buf --version (start-up)            ${startup} ms"
echo "buf breaking new --against old      ${backward} ms (minus start-up: $((backward - startup)) ms)"
echo "buf breaking old --against new      ${forward} ms (minus start-up: $((forward - startup)) ms)"
echo "== buf's findings (WIRE_JSON), new against old:"
"$BUF" breaking "$work/new" --against "$work/old" 2>&1 | sed "s#$work/##" || true
