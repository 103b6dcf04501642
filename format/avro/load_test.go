package avro

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadResolvesSharedAndSiblingTypes(t *testing.T) {
	fsys := fstest.MapFS{
		"types/com.x.order/v1.avsc": {Data: []byte(`{"type": "record", "name": "Order", "namespace": "com.x",
  "fields": [
    {"name": "amount", "type": "com.x.common.Money"},
    {"name": "next", "type": ["null", "Order"], "default": null}
  ]}`)},
		"common/money.avsc": {Data: []byte(`{"type": "record", "name": "Money", "namespace": "com.x.common",
  "fields": [{"name": "units", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
             {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD"]}}]}`)},
	}
	s, err := Load(fsys, "types/com.x.order/v1.avsc", "common")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(s.Files, ","), "types/com.x.order/v1.avsc,common/money.avsc"; got != want {
		t.Errorf("files = %s, want %s", got, want)
	}
	want := `{"name":"com.x.Order","type":"record","fields":[{"name":"amount","type":{"name":"com.x.common.Money","type":"record","fields":[{"name":"units","type":"bytes"},{"name":"currency","type":{"name":"com.x.common.Currency","type":"enum","symbols":["EUR","USD"]}}]}},{"name":"next","type":["null","com.x.Order"]}]}`
	if got := string(s.Canonical()); got != want {
		t.Errorf("canonical:\n got %s\nwant %s", got, want)
	}
	refs := fmt.Sprint(s.References())
	if want := "[{com.x.common.Currency common/money.avsc} {com.x.common.Money common/money.avsc}]"; refs != want {
		t.Errorf("references = %s, want %s", refs, want)
	}
	if s.Root.Field("amount").Type.Field("units").Type.Logical != "decimal" {
		t.Error("logical type lost")
	}
}

func TestLintErrors(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string // "line: pointer: message part"
	}{
		{"union default must match some branch", `{"type": "record", "name": "R", "fields": [
  {"name": "x", "type": ["null", "int"], "default": "3"}]}`,
			[]string{"2: /fields/0/default: default \"3\" is a value of no branch of the union [null, int]"}},
		{"null as a string", `{"type": "record", "name": "R", "fields": [
  {"name": "x", "type": ["null", "string"], "default": "null"},
  {"name": "y", "type": ["null", "int"], "default": "null"},
  {"name": "z", "type": "null", "default": "null"}]}`,
			[]string{`2: /fields/0/default: default "null" is the string "null", not null: use "default": null (JSON null, not the string "null")`,
				`3: /fields/1/default: default "null" is the string "null", not null: use "default": null`,
				`4: /fields/2/default: default "null" is not a valid null: `}},
		{"enum defaults show the symbols", `{"type": "record", "name": "R", "fields": [
  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"], "default": "C"}},
  {"name": "f", "type": ["null", {"type": "enum", "name": "E2", "symbols": ["A", "B"]}], "default": "C"}]}`,
			[]string{`2: /fields/0/type/default: enum default C is not one of the symbols; use one of "A", "B"`,
				`3: /fields/1/default: default "C" is a value of no branch of the union [null, enum E2]; use one of the symbols of E2: "A", "B"`}},
		{"default of wrong type", `{"type": "record", "name": "R", "fields": [
  {"name": "x", "type": "int",
   "default": "s"}]}`,
			[]string{"3: /fields/0/default: default \"s\" is not a valid int"}},
		{"int default out of range", `{"type": "record", "name": "R", "fields": [
  {"name": "x", "type": "int", "default": 2147483648}]}`,
			[]string{"2: /fields/0/default:"}},
		{"record, enum and bytes defaults", `{"type": "record", "name": "R", "fields": [
  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}, "default": "Z"},
  {"name": "b", "type": "bytes", "default": "\u0100"},
  {"name": "r", "type": {"type": "record", "name": "S", "fields": [{"name": "x", "type": "int"}]}, "default": {}},
  {"name": "ok", "type": "S", "default": {"x": 1}}]}`,
			[]string{`2: /fields/0/default: default "Z" is not a valid enum E: avro json: unknown enum symbol "Z"; use one of the symbols of E: "A"`, "3: /fields/1/default:", "4: /fields/2/default: default {} is not a valid record S"}},
		{"duplicate names", `{"type": "record", "name": "a.R", "fields": [
  {"name": "x", "type": {"type": "enum", "name": "E", "symbols": ["A", "A"]}},
  {"name": "x", "type": {"type": "fixed", "name": "E", "size": 2}}]}`,
			[]string{"2: /fields/0/type/symbols/1: duplicate enum symbol", "3: /fields/1/name: duplicate field name", "3: /fields/1/type/name: duplicate name \"a.E\": already defined at v1.avsc:2"}},
		{"invalid names", `{"type": "record", "name": "9R", "namespace": "com.-x", "fields": [
  {"name": "a-b", "type": "int"}]}`,
			[]string{"1: /namespace: invalid namespace", "1: /name: invalid name \"9R\"", "2: /fields/0/name: invalid field name \"a-b\""}},
		{"logical type on wrong base", `{"type": "record", "name": "R", "fields": [
  {"name": "d", "type": {"type": "string", "logicalType": "date"}},
  {"name": "m", "type": {"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 3}},
  {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2, "logicalType": "decimal", "precision": 9}}]}`,
			[]string{"2: /fields/0/type/logicalType: logical type date applies to int, not string", "3: /fields/1/type/scale:", "4: /fields/2/type/precision: decimal precision 9 does not fit fixed size 2"}},
		{"huge fixed", `{"type": "record", "name": "R", "fields": [
  {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2000000000}},
  {"name": "g", "type": {"type": "fixed", "name": "G", "size": -1}}]}`,
			[]string{"2: /fields/0/type/size: fixed size 2000000000 is over evtool's limit of 1048576 bytes", "3: /fields/1/type/size: fixed needs a"}},
		{"what the library refuses, with a place", `{"type": "record", "name": "R", "fields": [
  {"name": "a", "type": {"type": "enum", "name": "E", "symbols": []}},
  {"name": "b", "aliases": ["c", "a"], "type": {"type": "bytes", "logicalType": "decimal", "precision": 100000}},
  {"name": "c", "type": "int"}]}`,
			[]string{"2: /fields/0/type: enum needs a \"symbols\" array with at least one symbol",
				"3: /fields/1/aliases/0: field alias \"c\" is already the name",
				"3: /fields/1/aliases/1: field alias \"a\" is already the name",
				"3: /fields/1/type/precision: decimal needs a \"precision\" that is an integer from 1 to 65536"}},
		{"default of an empty union", `{"type": "record", "name": "R", "fields": [
  {"name": "x", "type": [], "default": null}]}`,
			[]string{"1:1: record R has no finite datum", "2: /fields/0/default: a union without branches has no value to default to"}},
		{"unknown reference", `{"type": "record", "name": "R", "fields": [
  {"name": "m", "type": "com.x.Missing"}]}`,
			[]string{"2: /fields/0/type: unknown type \"com.x.Missing\""}},
		{"unknown type beside null is no second null", `{"type": "record", "name": "R", "fields": [
  {"name": "m", "type": ["null", "com.x.Missing"]}]}`,
			[]string{"2: /fields/0/type/1: unknown type \"com.x.Missing\""}},
		{"unions in unions, one error each", `["null", [[["int"]]], [["string"]]]`,
			[]string{"1: /1: a union may not directly contain another union", "1: /2: a union may not directly contain another union"}},
		{"union duplicates", `["int", "string", "int", ["null"]]`,
			[]string{"1: /2: union has two branches of type int", "1: /3: a union may not directly contain another union"}},
		{"broken json", "{\"type\": \"record\",\n \"name\": }", []string{"2: /name: invalid character"}},
		{"duplicate key", "{\"type\": \"record\",\n \"type\": \"enum\"}", []string{"2:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("v1.avsc", []byte(tt.schema))
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error = %v (%T), want Errors", err, err)
			}
			if len(errs) != len(tt.want) {
				t.Errorf("got %d errors, want %d:\n%v", len(errs), len(tt.want), errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs.Error(), "v1.avsc:"+w) {
					t.Errorf("missing %q in\n%v", w, errs)
				}
			}
		})
	}
}

// TestRecordDefaultUsesNestedDefaults: {} is a valid default for a record
// whose fields all have defaults (Java and the library's resolution fill
// them); a record whose field defaults to itself still ends.
func TestRecordDefaultUsesNestedDefaults(t *testing.T) {
	s, err := Parse("v1.avsc", []byte(`{"type": "record", "name": "R", "fields": [
  {"name": "a", "type": {"type": "record", "name": "S", "fields": [
    {"name": "x", "type": "int", "default": 1},
    {"name": "u", "type": ["null", "S"], "default": null}]}, "default": {}},
  {"name": "b", "type": {"type": "array", "items": "S"}, "default": [{"x": 2}, {}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := DefaultDatum(s.Root.Field("a"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(d), "map[u:<nil> x:1]"; got != want {
		t.Errorf("default of a = %s, want %s", got, want)
	}
	_, err = Parse("v1.avsc", []byte(`{"type": "record", "name": "L", "fields": [
  {"name": "self", "type": ["null", "L"], "default": null},
  {"name": "r", "type": {"type": "record", "name": "M", "fields": [{"name": "m", "type": "M", "default": {}}]}, "default": {}}]}`))
	if err == nil || !strings.Contains(err.Error(), "/fields/1/default") {
		t.Errorf("a self-defaulting record: error = %v, want one at /fields/1/default", err)
	}
}

func TestLoadStaysInsideFS(t *testing.T) {
	fsys := fstest.MapFS{"a/v1.avsc": {Data: []byte(`"com.x.Elsewhere"`)}}
	if _, err := Load(fsys, "a/v1.avsc", "../outside"); err == nil {
		t.Fatal("a shared directory outside the file system was read")
	}
}

func TestLoadAmbiguousDefinition(t *testing.T) {
	fsys := fstest.MapFS{
		"t/v3.avsc":     {Data: []byte(`{"type": "record", "name": "x.R", "fields": [{"name": "m", "type": "x.Money"}]}`)},
		"t/v1.avsc":     {Data: []byte(`{"type": "fixed", "name": "x.Money", "size": 8}`)},
		"common/m.avsc": {Data: []byte(`{"type": "fixed", "name": "x.Money", "size": 16}`)},
	}
	_, err := Load(fsys, "t/v3.avsc", "common")
	if err == nil || !strings.Contains(err.Error(), `t/v3.avsc:1: /fields/0/type: type "x.Money" is defined in more than one file: t/v1.avsc and common/m.avsc`) {
		t.Fatalf("error = %v", err)
	}
}

func TestLoadRootRefusesSymlinkOut(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.avsc"), []byte(`{"type": "fixed", "name": "x.S", "size": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t", "v1.avsc"), []byte(`"x.S"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.avsc"), filepath.Join(dir, "t", "link.avsc")); err != nil {
		t.Skip("no symlinks:", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := Load(root.FS(), "t/v1.avsc"); err == nil || !strings.Contains(err.Error(), `unknown type "x.S"`) {
		t.Fatalf("a type was read through a symlink out of the root: %v", err)
	}
}

// TestLintReportsStructuralAndDefaultErrorsTogether: one run shows the
// structural errors and the bad defaults of the parts that parsed, each at
// its line, column and pointer, so a user does not fix a file in rounds. A
// default of a type that did not parse is not judged against the
// placeholder put in its place.
func TestLintReportsStructuralAndDefaultErrorsTogether(t *testing.T) {
	type place struct {
		file      string
		line, col int
		pointer   string
		message   string // a part of the message
	}
	tests := []struct {
		name  string
		files map[string]string
		want  []place
	}{
		{
			name: "both kinds in one file",
			files: map[string]string{"t/v1.avsc": `{"type": "record", "name": "R", "fields": [
  {"name": "a-b", "type": "int", "default": "x"},
  {"name": "m", "type": "com.x.Missing", "default": 1},
  {"name": "n", "type": ["null", "int"], "default": "5"},
  {"name": "s", "type": {"type": "record", "name": "S", "fields": [
    {"name": "bad", "type": {"type": "array"}},
    {"name": "ok", "type": "long", "default": 1.5}]}, "default": {}},
  {"name": "u", "type": ["null", "S"], "default": null},
  {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "A"]}, "default": "B"},
  {"name": "l", "type": {"type": "string", "logicalType": "date"}, "default": 3}]}`,
				"common/unused.avsc": `"int"`},
			want: []place{
				{"t/v1.avsc", 2, 12, "/fields/0/name", `invalid field name "a-b"`},
				{"t/v1.avsc", 3, 25, "/fields/1/type", `unknown type "com.x.Missing"`},
				{"t/v1.avsc", 6, 29, "/fields/3/type/fields/0/type", `array has no "items"`},
				{"t/v1.avsc", 9, 72, "/fields/5/type/symbols/1", `duplicate enum symbol "A"`},
				{"t/v1.avsc", 10, 59, "/fields/6/type/logicalType", "logical type date applies to int, not string"},
				{"t/v1.avsc", 2, 45, "/fields/0/default", `default "x" is not a valid int`},
				{"t/v1.avsc", 4, 53, "/fields/2/default", `default "5" is a value of no branch of the union [null, int]`},
				// The type is string whatever its annotation says.
				{"t/v1.avsc", 10, 79, "/fields/6/default", "default 3 is not a valid string"},
				{"t/v1.avsc", 7, 47, "/fields/3/type/fields/1/default", "default 1.5 is not a valid long"},
			},
		},
		{
			name: "a broken shared type and a bad default beside it",
			files: map[string]string{
				"t/v1.avsc": `{"type": "record", "name": "x.R", "fields": [
  {"name": "money", "type": "x.Money", "default": {"units": 1}},
  {"name": "count", "type": "int", "default": null}]}`,
				"common/money.avsc": `{"type": "record", "name": "x.Money", "fields": [
  {"name": "units", "type": "lng"}]}`,
			},
			want: []place{
				{"common/money.avsc", 2, 29, "/fields/0/type", `unknown type "lng"`},
				{"t/v1.avsc", 3, 47, "/fields/1/default", "default null is not a valid int"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, text := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(text)}
			}
			_, err := Load(fsys, "t/v1.avsc", "common")
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error = %v (%T), want Errors", err, err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, fmt.Sprintf("%s:%d:%d %s: %s", e.File, e.Line, e.Column, e.Pointer, e.Message))
			}
			if len(errs) != len(tt.want) {
				t.Errorf("got %d errors, want %d:\n%s", len(errs), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if i >= len(errs) {
					break
				}
				e := errs[i]
				if e.File != w.file || e.Line != w.line || e.Column != w.col || e.Pointer != w.pointer || !strings.Contains(e.Message, w.message) {
					t.Errorf("error %d = %s, want %s:%d:%d %s: …%s…", i, got[i], w.file, w.line, w.col, w.pointer, w.message)
				}
			}
		})
	}
}

// TestMaxFixedPrecision: the digit bound of a fixed, computed from its
// size, is the number of digits of 2^(8*size-1) - 1 less one, checked
// against the number itself for every size up to 300 bytes and a spread
// of sizes up to the one whose bound passes the precision limit.
func TestMaxFixedPrecision(t *testing.T) {
	sizes := []int{}
	for n := 1; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	for n := 301; n <= 27300; n += 997 {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		max := new(big.Int).Lsh(big.NewInt(1), uint(8*n-1))
		max.Sub(max, big.NewInt(1))
		if got, want := maxFixedPrecision(n), int64(len(max.String())-1); got != want {
			t.Fatalf("maxFixedPrecision(%d) = %d, want %d", n, got, want)
		}
	}
	if got := maxFixedPrecision(MaxFixedSize); got < maxDecimalPrecision {
		t.Errorf("maxFixedPrecision(1 MiB) = %d", got)
	}
}

// nestedOptional is a record holding an optional record holding ... levels
// deep, the shape of a tree written out.
func nestedOptional(levels int) string {
	var b strings.Builder
	for i := range levels {
		fmt.Fprintf(&b, `{"type": "record", "name": "R%d", "fields": [{"name": "f", "type": ["null", `, i)
	}
	b.WriteString(`"string"`)
	b.WriteString(strings.Repeat("]}]}", levels))
	return b.String()
}

// TestLintDeepOptionalRecords: a record nested 120 deep through
// ["null", record] unions loads (it was refused as "deeper than 200
// levels" with a spurious "union has two branches of type null" from the
// placeholder of the level cut off); past the limit only the depth is
// reported.
func TestLintDeepOptionalRecords(t *testing.T) {
	if _, err := Parse("v1.avsc", []byte(nestedOptional(120))); err != nil {
		t.Fatalf("120 levels: %v", err)
	}
	_, err := Parse("v1.avsc", []byte(nestedOptional(maxNesting+5)))
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error = %v, want Errors", err)
	}
	for _, e := range errs {
		if !strings.Contains(e.Message, "nested deeper than") {
			t.Errorf("unexpected error: %v", e)
		}
	}
}

// TestUnionDefaultAnyBranch: Avro 1.12 (AVRO-3649) takes a union field's
// default from the first branch it matches; such schemas were refused.
// The default a reader fills in is that branch's value.
func TestUnionDefaultAnyBranch(t *testing.T) {
	s, err := Parse("v1.avsc", []byte(`{"type": "record", "name": "R", "fields": [
  {"name": "a", "type": ["null", "string"], "default": "x"},
  {"name": "b", "type": ["null", "int", "string"], "default": 3},
  {"name": "c", "type": ["null", {"type": "record", "name": "S", "fields": [{"name": "v", "type": "int", "default": 7}]}], "default": {}},
  {"name": "d", "type": ["null", {"type": "enum", "name": "E", "symbols": ["A", "B"]}], "default": "B"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": `map[string:x]`, "b": `map[int:3]`, "c": `map[S:map[v:7]]`, "d": `map[E:B]`}
	for _, f := range s.Root.Fields {
		d, err := DefaultDatum(f)
		if got := fmt.Sprint(d); err != nil || got != want[f.Name] {
			t.Errorf("%s: default %s, %v; want %s", f.Name, got, err, want[f.Name])
		}
	}
	// The library's resolution fills the same values in for a writer
	// without the fields.
	w, err := Parse("w.avsc", []byte(`{"type": "record", "name": "R", "fields": []}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.DecodeFrom(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := fmt.Sprint(got); g != "map[a:map[string:x] b:map[int:3] c:map[S:map[v:7]] d:map[E:B]]" {
		t.Errorf("resolved = %s", g)
	}
}

// Record types of two fields defaulting to {} of the type before double
// the filled-in default at each level: a 3 KB schema took minutes and
// gigabytes to lint. The filled default is bounded and the error names
// the file and the default's pointer.
func TestLoadDefaultExpansionBounded(t *testing.T) {
	var b strings.Builder
	const levels = 24
	for k := levels; k > 0; k-- {
		fmt.Fprintf(&b, `{"type":"record","name":"T%d","fields":[{"name":"a","default":{},"type":`, k)
	}
	b.WriteString(`{"type":"record","name":"T0","fields":[{"name":"x","type":"null","default":null}]}`)
	for k := 1; k <= levels; k++ {
		fmt.Fprintf(&b, `},{"name":"b","type":"T%d","default":{}}]}`, k-1)
	}
	fsys := fstest.MapFS{"t/v1.avsc": {Data: []byte(b.String())}}
	_, err := Load(fsys, "t/v1.avsc")
	if err == nil {
		t.Fatal("Load accepted a default that fills in to gigabytes")
	}
	if !strings.Contains(err.Error(), "t/v1.avsc:1: /fields/0/") || !strings.Contains(err.Error(), "the default is over 1048576 bytes of JSON") {
		t.Fatalf("error does not name the default and the limit: %.400s", err)
	}
}
