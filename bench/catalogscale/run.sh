#!/usr/bin/env bash
# Catalog scale: `compat check` (FULL_TRANSITIVE) and `lint` on generated
# catalogs of N types x VERSIONS versions, before (evtool built from BASE)
# and after (this tree), side by side in one run. Prints one line per run:
# binary, command, catalog, wall s, user+sys CPU s, peak RSS MiB.
# Usage: bench/catalogscale/run.sh BASE "TYPES..." "SHAPES..." [ROUNDS]
#   e.g. bench/catalogscale/run.sh main "100 1000" "simple heavy" 1
# BASE "none" measures this tree only. VERSIONS (default 10) sets the
# versions per type; VERSIONS_<N> (e.g. VERSIONS_10000=3) overrides it
# for the catalogs of N types, for runs that cannot fit at 10.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?base revision}; sizes=${2:-"10 100 1000"}; shapes=${3:-"simple heavy"}; rounds=${4:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bins=after
if [ "$base" != none ]; then
  bins="before after"
  git worktree add -q --detach "$tmp/base" "$base"
  (cd "$tmp/base" && go build -o "$tmp/evtool-before" ./cmd/evtool)
  git worktree remove --force "$tmp/base"
fi
go build -o "$tmp/evtool-after" ./cmd/evtool
go build -o "$tmp/gen" ./bench/catalogscale
for n in $sizes; do
  for shape in $shapes; do
    vvar="VERSIONS_$n"; versions=${!vvar:-${VERSIONS:-10}}
    "$tmp/gen" -out "$tmp/c-$n-$shape" -types "$n" -versions "$versions" -shape "$shape" -mix mixed
    for r in $(seq "$rounds"); do
      for bin in $bins; do
        for cmd in "compat check" lint; do
          /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$tmp/evtool-$bin" $cmd --dir "$tmp/c-$n-$shape" >/dev/null || true
          read -r wall user sys rss < "$tmp/time"
          printf '%s\t%s\t%d-%s x%s\twall %s\tcpu %.2f\trss_mib %.0f\tload %s\n' "$bin" "$cmd" "$n" "$shape" "$versions" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
        done
      done
    done
    rm -rf "$tmp/c-$n-$shape"
  done
done
