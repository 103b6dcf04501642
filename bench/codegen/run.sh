#!/usr/bin/env bash
# bench/codegen/run.sh: the Go code `evtool gen go` generates, against plain
# encoding/json, santhosh-tekuri/jsonschema v6 and the code
# github.com/atombender/go-jsonschema generates for the same schema, on the
# same ~1.5 KB payload, all five in the same `go test -bench` binary.
#
#   bench/codegen/run.sh               # 6 rounds of 1s per benchmark
#   ROUNDS=10 BENCHTIME=2s bench/codegen/run.sh
#
# Rounds run the whole set in turn (not one benchmark N times), so that
# noise from a busy machine hits every contender alike. Besides ns/op each
# benchmark reports cpu-ns/op, the process's CPU time per op (GC included),
# which other processes on a shared machine do not inflate; the summary gives
# medians and ratios of both (benchstat too, when it can be fetched).
# Needs the network once: go-jsonschema is installed into a temporary GOBIN.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS=${ROUNDS:-6}
BENCHTIME=${BENCHTIME:-1s}
GOJS_VERSION=v0.24.1
work=$(mktemp -d)
# a directory inside the module (so the generated code builds against this
# go.mod without touching it) that ./... ignores: leading underscore
gojs=bench/codegen/_gojs
trap 'rm -rf "$work" "$gojs"' EXIT

echo "== installing go-jsonschema $GOJS_VERSION into a temporary GOBIN" >&2
GOBIN="$work/bin" go install "github.com/atombender/go-jsonschema@$GOJS_VERSION"

echo "== generating" >&2
go run ./cmd/evtool gen go --check --dir bench/codegen/catalog --out bench/codegen/events >&2
rm -rf "$gojs" && mkdir -p "$gojs"
"$work/bin/go-jsonschema" -p gojs -t --tags json -o "$gojs/gojs.go" \
  bench/codegen/catalog/schemas/com.example.checkout.completed/v1.json
if go list -f '{{join .Imports "\n"}}' "./$gojs" | grep -q '\.'; then
  echo "go-jsonschema's output imports packages outside the standard library; cannot build it here" >&2
  exit 2
fi
cat > "$gojs/gojs_test.go" <<'GO'
package gojs

import (
	"bytes"
	"encoding/json"
	"testing"

	codegen "github.com/evtool/evtool/bench/codegen"
)

func BenchmarkDecode_Generated(b *testing.B)                 { codegen.Generated(b) }
func BenchmarkDecode_GeneratedViaJSONUnmarshal(b *testing.B) { codegen.GeneratedViaJSONUnmarshal(b) }
func BenchmarkDecode_EncodingJSON(b *testing.B)              { codegen.EncodingJSON(b) }
func BenchmarkDecode_SanthoshThenEncodingJSON(b *testing.B)  { codegen.SanthoshThenEncodingJSON(b) }

// go-jsonschema's generated UnmarshalJSON, through json.Unmarshal as it
// is meant to be called.
func BenchmarkDecode_GoJSONSchema(b *testing.B) {
	doc := codegen.Payload(b)
	codegen.Loop(b, doc, func() error {
		var v CheckoutCompleted
		return json.Unmarshal(doc, &v)
	})
}

// What go-jsonschema's code checks, on the same broken payloads the
// generated code rejects (printed in the report, not a failure).
func TestGoJSONSchemaChecks(t *testing.T) {
	doc := codegen.Payload(t)
	for _, c := range []struct{ what, from, to string }{
		{"pattern", `"TSH-0042"`, `"tsh-42"`},
		{"enum", `"gold"`, `"silver"`},
		{"format uuid", `"5d9f2b3e-8c1a`, `"xd9f2b3e-8c1a`},
		{"format email", `"lena.hoffmann@example.com"`, `"lena.hoffmann"`},
		{"format uri", `"https://shop.example.com/receipts/`, `"receipts/`},
		{"additionalProperties false", `"currency":"EUR"}`, `"currency":"EUR","rate":1}`},
		{"maximum", `"quantity":4`, `"quantity":4000`},
	} {
		bad := bytes.Replace(doc, []byte(c.from), []byte(c.to), 1)
		var v CheckoutCompleted
		err := json.Unmarshal(bad, &v)
		t.Logf("go-jsonschema, %-28s rejected=%v", c.what+":", err != nil)
	}
}
GO

go test -c -o "$work/bench.test" "./$gojs"
(cd "$gojs" && "$work/bench.test" -test.run TestGoJSONSchemaChecks -test.v | grep go-jsonschema) >&2 || true

echo "== $ROUNDS rounds, -benchtime $BENCHTIME ($(nproc) CPUs, $(go version))" >&2
for i in $(seq "$ROUNDS"); do
  (cd "$gojs" && "$work/bench.test" -test.run '^$' -test.bench . -test.benchtime "$BENCHTIME")
done | tee "$work/bench.txt"

echo
go run ./bench/codegen/summarize < "$work/bench.txt"
if go run golang.org/x/perf/cmd/benchstat@latest "$work/bench.txt" > "$work/benchstat.txt" 2>/dev/null; then
  echo; cat "$work/benchstat.txt"
fi
