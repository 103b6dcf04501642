package avrocompat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/internal/fuzzcost"
	"github.com/evtool/evtool/report"
)

// costCases are schemas of a few hundred bytes whose comparison cost
// seconds and gigabytes before the witness search was bounded.
var costCases = []struct {
	name, old, new string
	// breaks is how many error findings the pair has, both directions.
	breaks int
}{
	{
		// 3.3 s and 579 MB with four fields (now a lint error); one field
		// beside an array of it made a megabyte per sample.
		name:   "fixed fan-out",
		old:    rec(`{"name": "f0", "type": {"type": "fixed", "name": "F", "size": 1048570}}, {"name": "i", "type": "int"}, {"name": "a", "type": {"type": "array", "items": "F"}}`),
		new:    rec(`{"name": "f0", "type": {"type": "fixed", "name": "F", "size": 1048570}}, {"name": "i", "type": "string"}, {"name": "a", "type": {"type": "array", "items": "F"}}`),
		breaks: 2,
	},
	{
		// Still running at 120 s: the safety net wrote out 2.5 million
		// digit decimals.
		name:   "decimal on a 1 MiB fixed",
		old:    rec(`{"name": "d", "type": {"type": "fixed", "name": "F", "size": 1048576, "logicalType": "decimal", "precision": 65536, "scale": 3}}`),
		new:    rec(`{"name": "d", "type": {"type": "fixed", "name": "F", "size": 1048576, "logicalType": "decimal", "precision": 65536, "scale": 4}}`),
		breaks: 2,
	},
	{
		name:   "60 decimals of precision 65536",
		old:    rec(decimals(60, 3)),
		new:    rec(decimals(60, 4)),
		breaks: 120,
	},
	{
		// 1.4 s and 136 MB: every sample held ten thousand records.
		name:   "record with nine self-references",
		old:    selfRefs,
		new:    selfRefs,
		breaks: 0,
	},
}

func decimals(n, scale int) string {
	var fields []string
	for i := range n {
		fields = append(fields, fmt.Sprintf(`{"name": "d%d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 65536, "scale": %d}}`, i, scale))
	}
	return strings.Join(fields, ", ")
}

const selfRefs = `{"type": "record", "name": "T", "fields": [
  {"name": "u0", "type": ["null", "T"]}, {"name": "u1", "type": ["null", "T"]}, {"name": "u2", "type": ["null", "T"]},
  {"name": "a0", "type": {"type": "array", "items": "T"}}, {"name": "a1", "type": {"type": "array", "items": "T"}}, {"name": "a2", "type": {"type": "array", "items": "T"}},
  {"name": "m0", "type": {"type": "map", "values": "T"}}, {"name": "m1", "type": {"type": "map", "values": "T"}}, {"name": "m2", "type": {"type": "map", "values": "T"}}]}`

// TestCompareCostBounded: each pair compares both ways within the fuzz
// bound for its size (64 MiB + 16 KiB per byte), with the same verdict.
func TestCompareCostBounded(t *testing.T) {
	for _, tt := range costCases {
		t.Run(tt.name, func(t *testing.T) {
			old, new := mustParse(t, "v1.avsc", tt.old), mustParse(t, "v2.avsc", tt.new)
			breaks := 0
			fuzzcost.Default().Check(t, len(tt.old)+len(tt.new), func() {
				for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
					for _, f := range Compare(old, new, dir, engine.Options{}) {
						if f.Severity == report.SeverityError {
							breaks++
						}
					}
				}
			})
			if breaks != tt.breaks {
				t.Errorf("%d breaks, want %d", breaks, tt.breaks)
			}
		})
	}
}

// BenchmarkCostCases compares each pair of costCases both ways, beside
// the ordinary order pair of BenchmarkCompare as the baseline.
func BenchmarkCostCases(b *testing.B) {
	cases := []struct{ name, old, new string }{{"baseline order v1-v3", benchOrderV1, benchOrderV3}}
	for _, tt := range costCases {
		cases = append(cases, struct{ name, old, new string }{tt.name, tt.old, tt.new})
	}
	for _, tt := range cases {
		old, new := mustParse(b, "v1.avsc", tt.old), mustParse(b, "v2.avsc", tt.new)
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
					Compare(old, new, dir, engine.Options{})
				}
			}
		})
	}
}
