#!/usr/bin/env bash
# Catalog scale: `compat check` (FULL_TRANSITIVE) and `lint` on generated
# catalogs of N types x 10 versions, before (evtool built from BASE) and
# after (this tree), side by side in one run. Prints one line per run:
# binary, command, catalog, wall s, user+sys CPU s, peak RSS MiB.
# Usage: bench/catalogscale/run.sh BASE "TYPES..." "SHAPES..." [ROUNDS]
#   e.g. bench/catalogscale/run.sh main "100 1000" "simple heavy" 1
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?base revision}; sizes=${2:-"10 100 1000"}; shapes=${3:-"simple heavy"}; rounds=${4:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
(cd "$tmp/base" && go build -o "$tmp/evtool-before" ./cmd/evtool)
git worktree remove --force "$tmp/base"
go build -o "$tmp/evtool-after" ./cmd/evtool
go build -o "$tmp/gen" ./bench/catalogscale
for n in $sizes; do
  for shape in $shapes; do
    "$tmp/gen" -out "$tmp/c-$n-$shape" -types "$n" -shape "$shape" -mix mixed
    for r in $(seq "$rounds"); do
      for bin in before after; do
        for cmd in "compat check" lint; do
          /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$tmp/evtool-$bin" $cmd --dir "$tmp/c-$n-$shape" >/dev/null || true
          read -r wall user sys rss < "$tmp/time"
          printf '%s\t%s\t%d-%s\twall %s\tcpu %.2f\trss_mib %.0f\n' "$bin" "$cmd" "$n" "$shape" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc)"
        done
      done
    done
    rm -rf "$tmp/c-$n-$shape"
  done
done
