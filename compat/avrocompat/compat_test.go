package avrocompat

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
)

func mustParse(t testing.TB, name, text string) *avro.Schema {
	t.Helper()
	s, err := avro.Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func rec(fields string) string {
	return `{"type": "record", "name": "com.x.R", "fields": [` + fields + `]}`
}

// ruleTests: old, new, and the rules expected reading old data with new
// (BACKWARD) and new data with old (FORWARD).
var ruleTests = []struct {
	name, old, new    string
	backward, forward []string
	backwardWitness   string // part of a backward counterexample summary
}{
	{"field added with default", rec(`{"name": "a", "type": "int"}`), rec(`{"name": "a", "type": "int"}, {"name": "b", "type": "string", "default": ""}`),
		nil, nil, ""},
	// Avro 1.12: a union default may be a value of any branch; the reader
	// fills in the first branch it matches (TestBruteForce checks the
	// library fills the same).
	{"field added with a default of a later union branch", rec(`{"name": "a", "type": "int"}`), rec(`{"name": "a", "type": "int"}, {"name": "b", "type": ["null", "string"], "default": "x"}`),
		nil, nil, ""},
	{"field added without default", rec(`{"name": "a", "type": "int"}`), rec(`{"name": "a", "type": "int"}, {"name": "b", "type": "string"}`),
		[]string{"avro-field-added-without-default"}, nil, `reader fails: field "b" is missing`},
	{"int promoted to long", rec(`{"name": "a", "type": "int"}`), rec(`{"name": "a", "type": "long"}`),
		nil, []string{"avro-type-changed"}, ""},
	{"string to int", rec(`{"name": "a", "type": "string"}`), rec(`{"name": "a", "type": "int"}`),
		[]string{"avro-type-changed"}, []string{"avro-type-changed"}, "cannot be read as int"},
	{"enum symbol removed", `{"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}`, `{"type": "enum", "name": "E", "symbols": ["A"]}`,
		[]string{"avro-enum-symbol-removed", "avro-enum-symbol-removed"}, nil, `"B" = 0x02; reader fails: symbol B`},
	{"enum symbol removed with reader default", `{"type": "enum", "name": "E", "symbols": ["A", "B"]}`, `{"type": "enum", "name": "E", "symbols": ["A"], "default": "A"}`,
		[]string{"avro-enum-symbol-defaulted"}, nil, ""},
	{"union branch removed", rec(`{"name": "a", "type": ["null", "int", "string"]}`), rec(`{"name": "a", "type": ["null", "int"]}`),
		[]string{"avro-union-branch-unmatched"}, nil, `{"a":{"string":`},
	{"union to non-union", `["int", "string"]`, `"long"`, []string{"avro-union-branch-unmatched"}, []string{"avro-union-branch-unmatched"}, ""},
	{"fixed size changed", `{"type": "fixed", "name": "F", "size": 4}`, `{"type": "fixed", "name": "F", "size": 8}`,
		[]string{"avro-fixed-size-changed"}, []string{"avro-fixed-size-changed"}, "fixed of 4 bytes read as fixed of 8"},
	{"record renamed", `{"type": "record", "name": "a.R", "fields": []}`, `{"type": "record", "name": "a.S", "fields": []}`,
		[]string{"avro-name-mismatch"}, []string{"avro-name-mismatch"}, ""},
	{"record renamed with alias", `{"type": "record", "name": "a.R", "fields": []}`, `{"type": "record", "name": "a.S", "aliases": ["R"], "fields": []}`,
		nil, []string{"avro-name-mismatch"}, ""},
	{"array items narrowed", `{"type": "array", "items": "long"}`, `{"type": "array", "items": "int"}`,
		[]string{"avro-array-items-changed"}, nil, "[2147483648] = 0x02808080801000; reader fails: writer long cannot be read as int; 2147483648 is outside an int's range"},
	{"long narrowed to int", rec(`{"name": "a", "type": "long"}`), rec(`{"name": "a", "type": "int"}`),
		[]string{"avro-type-changed"}, nil, `{"a":2147483648} = 0x8080808010; reader fails: writer long cannot be read as int; 2147483648 is outside an int's range`},
	{"double narrowed to float", rec(`{"name": "a", "type": "double"}`), rec(`{"name": "a", "type": "float"}`),
		[]string{"avro-type-changed"}, nil, `{"a":3.141592653589793} = 0x182d4454fb210940; reader fails: writer double cannot be read as float; as a float 3.141592653589793 would be 3.1415927`},
	{"optional long read as int", rec(`{"name": "a", "type": ["null", "long"]}`), rec(`{"name": "a", "type": "int"}`),
		[]string{"avro-union-branch-unmatched", "avro-union-branch-unmatched"}, nil, `{"a":{"long":2147483648}} = 0x028080808010; reader fails: writer branch long cannot be read as int; 2147483648 is outside`},
	{"map values changed", `{"type": "map", "values": "string"}`, `{"type": "map", "values": "boolean"}`,
		[]string{"avro-map-values-changed"}, []string{"avro-map-values-changed"}, ""},
	{"decimal scale changed", `{"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}`, `{"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 3}`,
		[]string{"avro-decimal-scale-changed"}, []string{"avro-decimal-scale-changed"}, "written 12.34, read as 1.234"},
	{"decimal scale changed at precision 2", `{"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 1}`, `{"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 2}`,
		[]string{"avro-decimal-scale-changed"}, []string{"avro-decimal-scale-changed"}, "written 9.9, read as 0.99"},
	{"decimal precision widened", `{"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}`, `{"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}`,
		nil, []string{"avro-decimal-precision-widened"}, ""},
	{"decimal scale changed by more than int64 holds", `{"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 0}`, `{"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 20}`,
		[]string{"avro-decimal-scale-changed"}, []string{"avro-decimal-scale-changed"}, "written 1234, read as 0.00000000000000001234"},
	{"timestamp millis to micros", `{"type": "long", "logicalType": "timestamp-millis"}`, `{"type": "long", "logicalType": "timestamp-micros"}`,
		[]string{"avro-timestamp-unit-changed"}, []string{"avro-timestamp-unit-changed"}, "written 2023-11-14T22:13:20.123Z (timestamp-millis), read as 1970-01-20"},
	{"local timestamp to timestamp", `{"type": "long", "logicalType": "local-timestamp-millis"}`, `{"type": "long", "logicalType": "timestamp-millis"}`,
		[]string{"avro-timestamp-local-changed"}, []string{"avro-timestamp-local-changed"}, "local time, no zone"},
	{"time millis to micros", `{"type": "int", "logicalType": "time-millis"}`, `{"type": "long", "logicalType": "time-micros"}`,
		[]string{"avro-time-unit-changed"}, []string{"avro-type-changed"}, "12h34m56.789s after midnight (time-millis), read as 45.296789s"},
	{"date to timestamp", `{"type": "int", "logicalType": "date"}`, `{"type": "long", "logicalType": "timestamp-millis"}`,
		[]string{"avro-logical-type-changed"}, []string{"avro-type-changed"}, "2023-12-09 (date)"},
	{"logical dropped is a warning", `{"type": "long", "logicalType": "timestamp-millis"}`, `"long"`,
		[]string{"avro-logical-type-dropped"}, []string{"avro-logical-type-added"}, ""},
	// A logical type added by the reader is a break when some writer value
	// is outside its domain; the counterexample is that value. What hamba/avro
	// (v2, codec_native.go) does on decode: a uuid string decodes into a
	// string unchecked, into uuid.UUID it fails; a bytes decimal decodes
	// into *big.Rat without a precision check, and encoding it back fails
	// (checkDecimalPrecision); time-millis and time-micros decode into a
	// time.Duration of any length, date into time.Unix(days*86400) of any
	// int; it knows no big-decimal (read as plain bytes). Java's
	// conversions: UUID.fromString and LocalTime.ofNanoOfDay throw,
	// BigDecimalConversion reads a length and a scale from the bytes.
	{"string read as uuid", rec(`{"name": "id", "type": "string"}`), rec(`{"name": "id", "type": {"type": "string", "logicalType": "uuid"}}`),
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, `{"id":"abc"} = 0x06616263; reader fails: "abc" is no RFC-4122 UUID`},
	{"bytes read as uuid", `"bytes"`, `{"type": "string", "logicalType": "uuid"}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, `"abc" = 0x06616263; reader fails`},
	{"fixed(16) read as uuid", `{"type": "fixed", "name": "U", "size": 16}`, `{"type": "fixed", "name": "U", "size": 16, "logicalType": "uuid"}`,
		[]string{"avro-logical-type-added"}, []string{"avro-logical-type-dropped"}, ""},
	{"bytes read as decimal", `"bytes"`, `{"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, `= 0x0c00e8d4a51000; reader fails: 10000000000.00 has more digits than the reader's precision of 12`},
	{"string read as decimal", `"string"`, `{"type": "bytes", "logicalType": "decimal", "precision": 3, "scale": 0}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, `"999" = 0x06393939; reader fails: 3750201 has more digits than the reader's precision of 3`},
	{"fixed read as decimal", `{"type": "fixed", "name": "M", "size": 2}`, `{"type": "fixed", "name": "M", "size": 2, "logicalType": "decimal", "precision": 4, "scale": 2}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, `= 0x2710; reader fails`},
	{"bytes read as big-decimal", `"bytes"`, `{"type": "bytes", "logicalType": "big-decimal"}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, `"" = 0x00; reader fails: 0 bytes are no unscaled value and scale`},
	{"int read as time-millis", `"int"`, `{"type": "int", "logicalType": "time-millis"}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, "86400000 = 0x80f0b252; reader fails: 86400000 is no time of day"},
	{"int read as time-micros", `"int"`, `{"type": "long", "logicalType": "time-micros"}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-type-changed"}, "-1 = 0x01; reader fails: -1 is no time of day"},
	{"long read as time-micros", `"long"`, `{"type": "long", "logicalType": "time-micros"}`,
		[]string{"avro-logical-type-added-out-of-domain"}, []string{"avro-logical-type-dropped"}, "86400000000 = 0x8080bbdd8305; reader fails"},
	{"int read as date", `"int"`, `{"type": "int", "logicalType": "date"}`,
		[]string{"avro-logical-type-added"}, []string{"avro-logical-type-dropped"}, ""},
	{"int read as timestamp-micros", `"int"`, `{"type": "long", "logicalType": "timestamp-micros"}`,
		[]string{"avro-logical-type-added"}, []string{"avro-type-changed"}, ""},
	// The reader union's branch of the writer's full name wins over an
	// earlier one of the same unqualified name, as in the library.
	{"union picks the full-name branch", `{"type": "record", "name": "b.X", "fields": [{"name": "f", "type": "string"}]}`,
		`[{"type": "record", "name": "a.X", "fields": [{"name": "f", "type": "string"}]}, {"type": "record", "name": "b.X", "fields": [{"name": "f", "type": "int"}]}]`,
		[]string{"avro-type-changed"}, []string{"avro-type-changed"}, "cannot be read as int"},
	{"union picks the fixed of the right size", `{"type": "fixed", "name": "b.F", "size": 8}`,
		`[{"type": "fixed", "name": "a.F", "size": 4}, {"type": "fixed", "name": "b.F", "size": 8}]`,
		nil, []string{"avro-fixed-size-changed"}, ""},
	{"reader alias claims a second writer field", rec(`{"name": "a", "type": "int"}, {"name": "b", "type": "int"}`),
		rec(`{"name": "b", "aliases": ["a"], "type": "int"}`),
		[]string{"avro-field-alias-ambiguous"}, []string{"avro-field-removed-without-default"}, `reader fails: the library refuses the pair: writer fields "a" and "b" both map to reader field "b"`},
	{"recursive list, every break", `{"type": "record", "name": "a.Node", "fields": [
		{"name": "v", "type": "int"}, {"name": "k", "type": {"type": "enum", "name": "K", "symbols": ["X", "Y"]}},
		{"name": "next", "type": ["null", "Node"]}]}`,
		`{"type": "record", "name": "a.Node", "fields": [
		{"name": "v", "type": "string"}, {"name": "k", "type": {"type": "enum", "name": "K", "symbols": ["X"]}},
		{"name": "next", "type": ["null", "Node"]}, {"name": "w", "type": "int"}]}`,
		[]string{"avro-type-changed", "avro-enum-symbol-removed", "avro-field-added-without-default"}, []string{"avro-type-changed"}, ""},
}

func TestRules(t *testing.T) {
	for _, tt := range ruleTests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := mustParse(t, "v1.avsc", tt.old), mustParse(t, "v2.avsc", tt.new)
			for _, d := range []struct {
				dir  engine.Direction
				want []string
			}{{engine.Backward, tt.backward}, {engine.Forward, tt.forward}} {
				fs := Compare(old, new, d.dir, engine.Options{})
				var got []string
				for _, f := range fs {
					got = append(got, f.Rule)
					if f.Severity == "error" && f.Counterexample == nil {
						t.Errorf("%s %s: no counterexample: %s", d.dir, f.Rule, f.Message)
					}
				}
				if !slices.Equal(got, d.want) {
					t.Errorf("%s rules = %v, want %v", d.dir, got, d.want)
					for _, f := range fs {
						t.Logf("  %s %s", f.Rule, f.Message)
					}
				}
				if d.dir == engine.Backward && tt.backwardWitness != "" {
					var all []string
					for _, f := range fs {
						if f.Counterexample != nil {
							all = append(all, f.Counterexample.Summary())
						}
					}
					if !strings.Contains(strings.Join(all, "\n"), tt.backwardWitness) {
						t.Errorf("no counterexample contains %q:\n%s", tt.backwardWitness, strings.Join(all, "\n"))
					}
				}
			}
		})
	}
}

func TestContextStopsWitnessSearch(t *testing.T) {
	old := mustParse(t, "v1.avsc", `{"type": "enum", "name": "E", "symbols": ["A", "B"]}`)
	new := mustParse(t, "v2.avsc", `{"type": "enum", "name": "E", "symbols": ["A"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fs := Compare(old, new, engine.Backward, engine.Options{Context: ctx})
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Rule)
	}
	if want := []string{"avro-enum-symbol-removed", "avro-incomplete"}; !slices.Equal(rules, want) {
		t.Errorf("rules = %v, want %v", rules, want)
	}
	if Compatible(fs) {
		t.Error("a stopped comparison with a break passed")
	}
}

// TestLargeEnumStaysFast: an enum of 50,000 symbols compared with itself
// took 39 s (a quadratic symbol scan and one safety-net sample per
// symbol); now well under a second. The bound is loose for a loaded
// machine.
func TestLargeEnumStaysFast(t *testing.T) {
	symbols := make([]string, 50_000)
	for i := range symbols {
		symbols[i] = fmt.Sprintf(`"S%d"`, i)
	}
	s := mustParse(t, "v1.avsc", rec(`{"name": "e", "type": {"type": "enum", "name": "E", "symbols": [`+strings.Join(symbols, ",")+`]}}, {"name": "s", "type": "string"}`))
	start := time.Now()
	if fs := Compare(s, s, engine.Backward, engine.Options{}); len(fs) != 0 {
		t.Errorf("a schema against itself: %v", fs)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("compare took %v", d)
	}
}

// TestDomainGap: which values a reader's logical type has a meaning for
// (Avro 1.12, "Logical Types").
func TestDomainGap(t *testing.T) {
	uuidStr := &avro.Node{Kind: "string", Logical: "uuid"}
	dec := &avro.Node{Kind: "bytes", Logical: "decimal", Precision: 3, Scale: 1}
	big := &avro.Node{Kind: "bytes", Logical: "big-decimal"}
	millis := &avro.Node{Kind: "int", Logical: "time-millis"}
	micros := &avro.Node{Kind: "long", Logical: "time-micros"}
	tests := []struct {
		r       *avro.Node
		v       any
		outside bool
	}{
		{uuidStr, "123e4567-e89b-12d3-a456-426614174000", false},
		{uuidStr, "abc", true},
		{uuidStr, "urn:uuid:123e4567-e89b-12d3-a456-426614174000", true},
		{uuidStr, "123e4567e89b12d3a456426614174000", true},
		{dec, []byte{0x03, 0xe7}, false},       // 99.9
		{dec, []byte{0xfc, 0x19}, false},       // -99.9
		{dec, []byte{0x03, 0xe8}, true},        // 100.0
		{big, []byte{0x02, 0x07, 0x04}, false}, // unscaled 7, scale 2
		{big, []byte{}, true},
		{big, []byte{0x04, 0x07}, true}, // the length says 2 bytes, 1 follows
		{millis, int32(0), false},
		{millis, int32(86_399_999), false},
		{millis, int32(86_400_000), true},
		{millis, int32(-1), true},
		{micros, int64(86_399_999_999), false},
		{micros, int64(86_400_000_000), true},
	}
	for _, tt := range tests {
		if got := domainGap(tt.r, tt.v) != ""; got != tt.outside {
			t.Errorf("%s %v: outside = %v, want %v (%s)", tt.r.Describe(), tt.v, got, tt.outside, domainGap(tt.r, tt.v))
		}
	}
}

// TestWideDecimalAddedStaysFast: 60 bytes fields read as decimal(65536)
// make witnesses of 10^65536 (27 KB each); the comparison stays well
// under the loose bound of a loaded machine.
func TestWideDecimalAddedStaysFast(t *testing.T) {
	var plain, wide []string
	for i := range 60 {
		plain = append(plain, fmt.Sprintf(`{"name": "f%d", "type": "bytes"}`, i))
		wide = append(wide, fmt.Sprintf(`{"name": "f%d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 65536}}`, i))
	}
	old, new := mustParse(t, "v1.avsc", rec(strings.Join(plain, ","))), mustParse(t, "v2.avsc", rec(strings.Join(wide, ",")))
	start := time.Now()
	fs := Compare(old, new, engine.Backward, engine.Options{})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("compare took %v", d)
	}
	if len(fs) != 60 {
		t.Fatalf("%d findings, want 60", len(fs))
	}
	// Each counterexample holds 10^65536, 27 KB: the comparison's witness
	// budget (maxWitnessBytes) shows the first ones; the findings past it
	// stay errors without a datum.
	shown := 0
	for _, f := range fs {
		if f.Rule != "avro-logical-type-added-out-of-domain" {
			t.Errorf("%s: %s", f.Reader.Pointer, f.Rule)
		}
		if f.Counterexample != nil {
			shown++
		}
	}
	if want := maxWitnessBytes / (27300 * 2); shown < want {
		t.Errorf("%d findings have a counterexample, want at least %d", shown, want)
	}
}
