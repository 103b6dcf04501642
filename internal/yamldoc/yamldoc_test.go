package yamldoc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     any
		wantErr  string
	}{
		{"scalars", "a: 1\nb: 2.5\nc: true\nd: null\ne: x\nf: 0x10\n", map[string]any{
			"a": json.Number("1"), "b": json.Number("2.5"), "c": true, "d": nil, "e": "x", "f": json.Number("16")}, ""},
		{"nested", "a:\n  - {b: [1]}\n", map[string]any{"a": []any{map[string]any{"b": []any{json.Number("1")}}}}, ""},
		{"alias", "x: &a {k: v}\ny: *a\n", map[string]any{"x": map[string]any{"k": "v"}, "y": map[string]any{"k": "v"}}, ""},
		{"recursive alias", "a: &x [*x]\n", nil, "recursive alias: *x"},
		{"empty", "", nil, "line 1: empty document"},
		{"comment only", "# nothing\n", nil, "empty document"},
		{"duplicate", "a: 1\na: 2\n", nil, "line 2"},
		{"syntax", "a: [1,\n", nil, "line"},
		{"merge", "x: &a {k: v}\ny:\n  <<: *a\n", nil, "merge keys"},
		{"non-string key", "? [a]\n: 1\n", nil, "mapping keys must be strings"},
		{"inf", "a: .inf\n", nil, "not a finite JSON number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, prob := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if prob == nil || !strings.Contains(prob.Error(), tt.wantErr) {
					t.Fatalf("problem = %v, want %q", prob, tt.wantErr)
				}
				return
			}
			if prob != nil {
				t.Fatal(prob)
			}
			if diff := cmp.Diff(tt.want, d.Value()); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestBillionLaughs(t *testing.T) {
	in := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 8; i++ {
		name := string(rune('b' + i))
		in += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	if _, prob := Parse([]byte(in)); prob == nil || !strings.Contains(prob.Message, "too large") {
		t.Fatalf("problem = %v", prob)
	}
}

func TestCheckLines(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", map[string]any{
		"type": "object", "additionalProperties": false,
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "object", "properties": map[string]any{"c": map[string]any{"enum": []any{"x"}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	d, prob := Parse([]byte("a: 1\nb:\n  c: y\nzz: 3\n"))
	if prob != nil {
		t.Fatal(prob)
	}
	probs := d.Check(sch)
	got := map[string]int{}
	for _, p := range probs {
		got[p.Pointer] = p.Line
	}
	if diff := cmp.Diff(map[string]int{"/b/c": 3, "/zz": 4}, got); diff != "" {
		t.Errorf("problem lines: %s\n%v", diff, probs)
	}
	var out struct {
		A int `yaml:"a"`
	}
	d2, _ := Parse([]byte("a: 7\n"))
	if prob := d2.Decode(&out); prob != nil || out.A != 7 {
		t.Fatalf("decode: %v %v", prob, out)
	}
}

// TestExpansionBoundedBySize: a small document cannot buy a million nodes
// of work with aliases; the budget grows with its size, so a large plain
// document with a few reused anchors still parses.
func TestExpansionBoundedBySize(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 8; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	var d Doc
	d.limit = min(maxNodes, minNodes+nodesPerByte*len(bomb))
	if d.limit >= maxNodes/10 {
		t.Fatalf("a %d-byte document may expand to %d nodes", len(bomb), d.limit)
	}
	if _, prob := Parse([]byte(bomb)); prob == nil || !strings.Contains(prob.Message, "too large") {
		t.Fatalf("bomb: problem = %v", prob)
	}

	// 200 uses of a 20-node anchor in a document of some 3 KB: 4,000 nodes
	// of reuse, well inside the budget.
	var b strings.Builder
	b.WriteString("base: &base {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10}\nuses:\n")
	for i := 0; i < 200; i++ {
		b.WriteString("  - *base\n")
	}
	doc, prob := Parse([]byte(b.String()))
	if prob != nil {
		t.Fatalf("reuse: %v", prob)
	}
	if got := len(doc.Value().(map[string]any)["uses"].([]any)); got != 200 {
		t.Fatalf("uses = %d", got)
	}
	// A problem inside an expanded alias is placed at the alias.
	if line := doc.Line("/uses/3/c"); line != 6 {
		t.Fatalf("line of /uses/3/c = %d, want 6 (the alias)", line)
	}
}
