package consumers

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/fuzzcost"
)

const billing = `# consumers/billing.yaml
owner: team-billing
reads:
  com.example.order.placed:
    versions: [2, 3]
    fields: [/orderId, /total/amount, /total/currency]
  com.example.order.cancelled:
    versions:
      - 1
scenario: ../examples/billing/replay.yaml
`

func TestParse(t *testing.T) {
	c, err := Parse("cat/consumers/billing.yaml", []byte(billing))
	if err != nil {
		t.Fatal(err)
	}
	want := &Contract{
		Name: "billing", File: "cat/consumers/billing.yaml", Owner: "team-billing",
		Scenario: "../examples/billing/replay.yaml", OwnerLine: 2, ScenarioLine: 10,
		Reads: map[string]Read{
			"com.example.order.placed": {Versions: []int{2, 3}, Fields: []string{"/orderId", "/total/amount", "/total/currency"},
				Line: 4, VersionLines: []int{5, 5}, FieldLines: []int{6, 6, 6}},
			"com.example.order.cancelled": {Versions: []int{1}, Line: 7, VersionLines: []int{9}},
		},
	}
	if d := cmp.Diff(want, c); d != "" {
		t.Errorf("contract (-want +got):\n%s", d)
	}
	if got := c.Types(); !cmp.Equal(got, []string{"com.example.order.cancelled", "com.example.order.placed"}) {
		t.Errorf("Types() = %v", got)
	}
	if got := c.Reads["com.example.order.cancelled"].Pointers(); !cmp.Equal(got, []string{""}) {
		t.Errorf("a read without fields reads %q, want the whole data", got)
	}
	if !c.Reads["com.example.order.placed"].ReadsVersion(3) || c.Reads["com.example.order.placed"].ReadsVersion(1) {
		t.Error("ReadsVersion wrong")
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		name, file, data string
		want             []string // "line: message part" of each finding
	}{
		{"unknown top key", "billing.yaml", "owner: x\nreads:\n  com.a:\n    versions: [1]\nowners: y\n", []string{`5: unknown key "owners"`}},
		{"unknown read key", "billing.yaml", "reads:\n  com.a.b:\n    versions: [1]\n    fieldz: [/a]\n", []string{`4: unknown key "fieldz"`}},
		{"not a pointer", "billing.yaml", "reads:\n  com.a.b:\n    versions: [1]\n    fields: [a]\n", []string{"4: not a JSON pointer"}},
		{"bad escape", "billing.yaml", "reads:\n  com.a.b:\n    versions: [1]\n    fields: [/a~2]\n", []string{"4: not a JSON pointer"}},
		{"bad type name", "billing.yaml", "reads:\n  com.a:\n    versions: [1]\n  'bad name':\n    versions: [1]\n", []string{`4: "bad name" is not an event type name`}},
		{"no versions", "billing.yaml", "reads:\n  com.a:\n    fields: [/a]\n", []string{"2: missing property 'versions'"}},
		{"empty versions", "billing.yaml", "reads:\n  com.a:\n    versions: []\n", []string{"3: minItems"}},
		{"repeated version", "billing.yaml", "reads:\n  com.a:\n    versions: [1, 1]\n", []string{"3: items at 0 and 1 are equal"}},
		{"version zero", "billing.yaml", "reads:\n  com.a:\n    versions: [0]\n", []string{"3: minimum"}},
		{"fractional version", "billing.yaml", "reads:\n  com.a:\n    versions: [1.5]\n", []string{"3: got number, want integer"}},
		{"huge version", "billing.yaml", "reads:\n  com.a:\n    versions: [99999999999999999999999]\n", []string{"3: maximum"}},
		{"repeated field", "billing.yaml", "reads:\n  com.a:\n    versions: [1]\n    fields: [/a, /a]\n", []string{"4: items at 0 and 1 are equal"}},
		{"no reads", "billing.yaml", "owner: x\n", []string{"1: missing property 'reads'"}},
		{"empty reads", "billing.yaml", "reads: {}\n", []string{"1: minProperties"}},
		{"not a mapping", "billing.yaml", "- a\n", []string{"1: got array, want object"}},
		{"empty", "billing.yaml", "", []string{"1: malformed YAML: empty document"}},
		{"syntax", "billing.yaml", "reads:\n  com.a: [\n", []string{"2: malformed YAML"}},
		{"duplicate key", "billing.yaml", "reads:\n  com.a:\n    versions: [1]\n  com.a:\n    versions: [2]\n", []string{`4: malformed YAML: key "com.a" appears twice`}},
		{"owner empty", "billing.yaml", "owner: ''\nreads:\n  com.a:\n    versions: [1]\n", []string{"1: minLength"}},
		{"bad file name", "bill ing.yaml", "reads:\n  com.a:\n    versions: [1]\n", []string{`0: "bill ing.yaml" is not a contract name`}},
		{"too many tokens", "billing.yaml", "reads:\n  com.a:\n    versions: [1]\n    fields:\n" + manyPaths(60, 2000), []string{"55: the contract's fields hold more than 100000 pointer tokens"}},
		{"not yaml", "billing.yml", "reads:\n  com.a:\n    versions: [1]\n", []string{`0: "billing.yml" is not a contract name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("cat/consumers/"+tc.file, []byte(tc.data))
			var le *catalog.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Parse = %+v, %v; want a *catalog.LoadError", c, err)
			}
			if len(le.Findings) != len(tc.want) {
				t.Fatalf("findings %v, want %d", le.Findings, len(tc.want))
			}
			for i, f := range le.Findings {
				got := strconv.Itoa(f.Line) + ": " + f.Message
				if !strings.HasPrefix(got, tc.want[i]) {
					t.Errorf("finding %q, want %q", got, tc.want[i])
				}
				if f.File != "cat/consumers/"+tc.file || f.Rule != RuleContract {
					t.Errorf("finding names %s (%s)", f.File, f.Rule)
				}
			}
		})
	}
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"evtool.yaml":             {Data: []byte("version: 1\n")},
		"consumers/billing.yaml":  {Data: []byte(billing)},
		"consumers/audit.yaml":    {Data: []byte("reads:\n  com.a:\n    versions: [1]\n")},
		"consumers/README.md":     {Data: []byte("notes")},
		"consumers/.hidden.yaml":  {Data: []byte("nonsense: [")},
		"consumers/old/x.yaml":    {Data: []byte("nonsense: [")},
		"consumers/shipping.yml":  {Data: []byte("reads:\n  com.a:\n    versions: [1]\n")},
		"consumers/broken.yaml":   {Data: []byte("reads:\n  com.a:\n    versions: [1]\n    extra: 1\n")},
		"consumers/Shouting.YAML": {Data: []byte("reads:\n  com.a:\n    versions: [1]\n")},
	}
	cs, err := LoadFS(fsys, "REF:")
	var le *catalog.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("LoadFS error %v, want a *catalog.LoadError", err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	if !cmp.Equal(names, []string{"audit", "billing"}) {
		t.Errorf("loaded %v, want audit and billing", names)
	}
	var got []string
	for _, f := range le.Findings {
		got = append(got, f.Location())
	}
	want := []string{"REF:consumers/Shouting.YAML", "REF:consumers/broken.yaml:4:5", "REF:consumers/shipping.yml"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", d, le.Findings)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if cs, err := Load(dir); err != nil || cs != nil {
		t.Fatalf("a catalog without consumers/: %v, %v", cs, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Dir, "billing.yaml"), []byte(billing), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := Load(dir)
	if err != nil || len(cs) != 1 || cs[0].File != filepath.Join(dir, "consumers", "billing.yaml") {
		t.Fatalf("Load = %v, %v", cs, err)
	}
	// A symlink out of the catalog is refused, not read.
	outside := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(outside, []byte(billing), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, Dir, "escape.yaml")); err != nil {
		t.Skip(err)
	}
	_, err = Load(dir)
	var le *catalog.LoadError
	if !errors.As(err, &le) || len(le.Findings) != 1 || !strings.Contains(le.Findings[0].File, "escape.yaml") {
		t.Fatalf("a symlink out of the catalog: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(billing))
	f.Add([]byte("reads:\n  com.a:\n    versions: [1]\n    fields: ['', /a~0b/~1c]\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("reads: &r {com.a: {versions: [1]}}\nowner: *r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			c, err := Parse("consumers/fuzz.yaml", data)
			var le *catalog.LoadError
			switch {
			case err == nil && c == nil:
				t.Fatal("no contract and no error")
			case err != nil && !errors.As(err, &le):
				t.Fatalf("not a LoadError: %v", err)
			case le != nil:
				for _, f := range le.Findings {
					if f.File != "consumers/fuzz.yaml" || f.Message == "" {
						t.Fatalf("finding without file or message: %+v", f)
					}
				}
			case err == nil:
				for typ, r := range c.Reads {
					if !catalog.ValidTypeName(typ) || len(r.Versions) == 0 || len(r.VersionLines) != len(r.Versions) || len(r.FieldLines) != len(r.Fields) {
						t.Fatalf("accepted a malformed read %q: %+v", typ, r)
					}
				}
			}
		})
	})
}

// TestParseVersionSpellings: YAML may spell an integer version 1e6 or
// 2.0; the contract reads the number (the text "1e+06" once read as 0).
func TestParseVersionSpellings(t *testing.T) {
	c, err := Parse("c.yaml", []byte("owner: o\nreads:\n  com.example.a:\n    versions: [1e6, 2.0, 3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Reads["com.example.a"].Versions; !cmp.Equal(got, []int{1000000, 2, 3}) {
		t.Fatalf("versions = %v, want [1000000 2 3]", got)
	}
}

func TestValidPointer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{{"", true}, {"/", true}, {"/a/b", true}, {"/a~0b~1c", true}, {"/a~2", false}, {"/a~", false}, {"a", false}, {"/~01", true}} {
		if got := ValidPointer(tc.in); got != tc.want {
			t.Errorf("ValidPointer(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// manyPaths is n distinct YAML list items of pointers depth tokens deep.
func manyPaths(n, depth int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "      - /x%d%s\n", i, strings.Repeat("/a", depth-1))
	}
	return b.String()
}
