#!/bin/sh
# CPU seconds (user+sys, median of RUNS) of `evtool compat diff` (FULL,
# lenient, 24 samples) on pairs of N patternProperties:
#   prefixed: "^f<i>_[a-z]+$" (each anchored to its own literal), a string
#             of maxLength 10 in v1, 5 in v2 (one break per pattern);
#   shared:   "^[a-z]+_<i>$" (one shared class prefix), every other one an
#             integer, the others a string of maxLength 5 in v1, 10 in v2;
#   free:     "[a-z]_<i>_" (not anchored), as shared.
# SHAPES picks the shapes (default: prefixed shared).
# Both with "id" declared and additionalProperties {"type":"integer"}.
# usage: run.sh RUNS EVTOOL [N...]   (default N: 5 10 20 60)
set -eu
runs=$1 bin=$2
shift 2
ns=${*:-5 10 20 60}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gen() { # shape n maxlen
	printf '{"type":"object","properties":{"id":{"type":"string"}},"additionalProperties":{"type":"integer"},"patternProperties":{'
	i=0
	while [ "$i" -lt "$2" ]; do
		[ "$i" -gt 0 ] && printf ','
		if [ "$1" = prefixed ]; then
			printf '"^f%d_[a-z]+$":{"type":"string","maxLength":%d}' "$i" "$3"
		else
			p='^[a-z]+_%d$'
			[ "$1" = free ] && p='[a-z]_%d_'
			if [ $((i % 2)) -eq 0 ]; then
				printf "\"$p\":{\"type\":\"integer\"}" "$i"
			else
				printf "\"$p\":{\"type\":\"string\",\"maxLength\":%d}" "$i" "$3"
			fi
		fi
		i=$((i + 1))
	done
	printf '}}\n'
}
for shape in ${SHAPES:-prefixed shared}; do
	for n in $ns; do
		if [ "$shape" = prefixed ]; then a=10 b=5; else a=5 b=10; fi
		gen "$shape" "$n" "$a" >"$dir/v1.json"
		gen "$shape" "$n" "$b" >"$dir/v2.json"
		times=""
		r=0
		while [ "$r" -lt "$runs" ]; do
			/usr/bin/time -o "$dir/time" -f '%U %S' "$bin" compat diff "$dir/v1.json" "$dir/v2.json" >"$dir/out" 2>/dev/null || true
			t=$(tail -1 "$dir/time" | awk '{printf "%.2f", $1 + $2}')
			times="$times $t"
			r=$((r + 1))
		done
		med=$(echo "$times" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		echo "$shape n=$n cpu=${med}s runs:$times | $(tail -1 "$dir/out")"
	done
done
