package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/internal/jsonpos"
)

// exampleRaws reads the first n events of an example catalog.
func exampleRaws(t *testing.T, example string, n int) (*catalog.Catalog, []rawEvent) {
	t.Helper()
	dir := filepath.Join("..", "examples", example)
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []rawEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(out) < n {
		out = append(out, rawEvent{Raw: append([]byte(nil), sc.Bytes()...)})
	}
	return cat, out
}

// Every field of every event is mutated (removed or replaced) into data
// its version still accepts, the same way twice, in the three formats.
func TestFieldMutationKeepsDataValid(t *testing.T) {
	for _, tt := range []struct {
		example string
		// minMutated is the share of the fields' values that must change.
		minMutated float64
	}{
		{"orders", 0.95},
		{"payments", 0.9},
		{"inventory", 0.9},
	} {
		t.Run(tt.example, func(t *testing.T) {
			cat, raws := exampleRaws(t, tt.example, 40)
			m := NewMutator(cat)
			seen := map[Field]bool{}
			for _, r := range raws {
				ed, ok := m.decodeEventData(r.Raw)
				if !ok {
					t.Fatalf("cannot read %s", r.Raw)
				}
				leaves(ed.value, "", func(p string) { seen[Field{ed.ver.Type, p}] = true })
			}
			var fields []Field
			for f := range seen {
				fields = append(fields, f)
			}
			if len(fields) < 5 {
				t.Fatalf("only %d fields: %v", len(fields), fields)
			}
			fm := newFieldMutation(m, 7, fields)
			again := newFieldMutation(m, 7, fields)
			changed := 0
			for _, r := range raws {
				out := fm.apply(r)
				if string(out.Raw) != string(again.apply(r).Raw) {
					t.Fatalf("two mutations of one event differ:\n%s", r.Raw)
				}
				before, _ := m.decodeEventData(r.Raw)
				after, ok := m.decodeEventData(out.Raw)
				if !ok {
					t.Fatalf("mutated event unreadable:\n%s", out.Raw)
				}
				if !fm.valid(after, fm.versionSamples(after.ver)) {
					t.Fatalf("mutated data invalid:\n%s", out.Raw)
				}
				leaves(before.value, "", func(p string) {
					a, okA := lookup(after.value, p)
					b, _ := lookup(before.value, p)
					if !okA || canonicalJSON(a) != canonicalJSON(b) {
						changed++
					}
				})
			}
			total := fm.mutated.Load() + fm.kept.Load()
			if share := float64(fm.mutated.Load()) / float64(total); share < tt.minMutated || changed == 0 {
				t.Fatalf("%d of %d values mutated (%d changed), want at least %.0f%%", fm.mutated.Load(), total, changed, tt.minMutated*100)
			}
			t.Logf("%d fields, %d of %d values mutated", len(fields), fm.mutated.Load(), total)
		})
	}
}

// A field outside the set is never touched; the others always are where
// a valid other value exists.
func TestFieldMutationOnlyTheSet(t *testing.T) {
	cat, raws := exampleRaws(t, "orders", 30)
	m := NewMutator(cat)
	set := []Field{{"com.example.order.placed", "/customerId"}, {"com.example.order.paid", "/method"}}
	fm := newFieldMutation(m, 1, set)
	hit := 0
	for _, r := range raws {
		before, _ := m.decodeEventData(r.Raw)
		after, _ := m.decodeEventData(fm.apply(r).Raw)
		leaves(before.value, "", func(p string) {
			expandItems(before.value, jsonpos.Split(p), "", func(c string) {
				a, okA := lookup(after.value, c)
				b, _ := lookup(before.value, c)
				same := okA && canonicalJSON(a) == canonicalJSON(b)
				in := slices.Contains(set, Field{before.ver.Type, p})
				if in && !same {
					hit++
				}
				if !in && !same {
					t.Fatalf("%s of %s changed, not in the set", c, before.ver.Type)
				}
			})
		})
	}
	if hit == 0 {
		t.Fatal("no field of the set was mutated")
	}
}

func TestContractDeclares(t *testing.T) {
	c := &Contract{Name: "billing", Reads: map[string][]string{
		"t": {"/total", "/customer/email"},
		"u": {""},
		"w": {"/lines/-/sku"},
		"x": {"/lines/0/sku"},
		"y": {"/lines"},
	}}
	for _, tt := range []struct {
		f    Field
		want bool
	}{
		{Field{"t", "/total/amount"}, true},
		{Field{"t", "/total"}, true},
		{Field{"t", "/totalx"}, false},
		{Field{"t", "/customer"}, true}, // read as a whole
		{Field{"t", "/customer/name"}, false},
		{Field{"u", "/anything"}, true},
		{Field{"v", "/total"}, false},
		// Items: "-" is every item; an index in the contract lists it.
		{Field{"w", "/lines/-/sku"}, true},
		{Field{"w", "/lines/-/qty"}, false},
		{Field{"x", "/lines/-/sku"}, true},
		{Field{"x", "/lines/-/qty"}, false},
		{Field{"y", "/lines/-/qty"}, true},
	} {
		if got := c.Declares(tt.f); got != tt.want {
			t.Errorf("Declares(%v) = %t, want %t", tt.f, got, tt.want)
		}
	}
}

// Group testing finds exactly the positive items within
// k·(⌈log2 n⌉+1)+2 tests, within 2·k·log2(n) for n ≥ 8, k ≥ 1.
func TestSplitSearch(t *testing.T) {
	for _, tt := range []struct {
		n   int
		pos []int
	}{
		{1, nil}, {1, []int{0}}, {2, []int{1}}, {4, []int{0}}, {16, []int{5}}, {16, []int{0, 15}},
		{30, []int{3, 4, 5, 17}}, {64, []int{1, 2, 3, 4, 5, 6, 7, 8}}, {100, []int{99}}, {7, []int{0, 1, 2, 3, 4, 5, 6}},
		{28, []int{0, 1, 2, 3, 5, 6, 8, 9, 10, 12, 13, 15, 16, 18, 20, 21, 23, 25}}, {16, []int{3}}, {16, []int{15}}, {9, []int{8}},
	} {
		runs := 0
		found, unresolved, n, err := splitSearch(tt.n, 1000, func(sub []int) (bool, error) {
			runs++
			for _, i := range sub {
				if slices.Contains(tt.pos, i) {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil || unresolved != nil || n != runs {
			t.Fatalf("n=%d: err %v, unresolved %v, runs %d/%d", tt.n, err, unresolved, n, runs)
		}
		if !slices.Equal(found, tt.pos) && !(len(found) == 0 && len(tt.pos) == 0) {
			t.Errorf("n=%d: found %v, want %v", tt.n, found, tt.pos)
		}
		k := len(tt.pos)
		bound := k*(int(math.Ceil(math.Log2(float64(tt.n))))+1) + 2
		if runs > bound {
			t.Errorf("n=%d k=%d: %d runs, bound %d", tt.n, k, runs, bound)
		}
		t.Logf("n=%d k=%d: %d runs", tt.n, k, runs)
		if tt.n >= 8 && k >= 1 && float64(runs) > 2*float64(k)*math.Log2(float64(tt.n)) {
			t.Errorf("n=%d k=%d: %d runs > 2·k·log2(n)", tt.n, k, runs)
		}
	}
	// Not monotone (0 and 1 matter only together): the result still holds
	// every item whose mutation, with the rest, changes the outcome.
	pair, _, _, _ := splitSearch(8, 100, func(sub []int) (bool, error) {
		return slices.Contains(sub, 0) && slices.Contains(sub, 1), nil
	})
	if !slices.Contains(pair, 0) && !slices.Contains(pair, 1) {
		t.Errorf("interaction: found %v", pair)
	}
	// The budget: the set being narrowed comes back unresolved.
	found, unresolved, runs, _ := splitSearch(16, 3, func(sub []int) (bool, error) { return slices.Contains(sub, 9), nil })
	if len(found) != 0 || !slices.Contains(unresolved, 9) || runs != 3 || len(unresolved) > 4 {
		t.Errorf("budget 3: found %v, unresolved %v, runs %d", found, unresolved, runs)
	}
}

// An event of thousands of required fields costs a bounded number of
// validations, not their square: the fields beyond the budget are kept.
func TestFieldMutationWideEventBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 2000
	props := make([]string, n)
	names := make([]string, n)
	data := make([]string, n)
	for i := range props {
		names[i] = fmt.Sprintf(`"f%d"`, i)
		props[i] = fmt.Sprintf(`"f%d": {"type": "string", "maxLength": 3}`, i)
		data[i] = fmt.Sprintf(`"f%d": "abc"`, i)
	}
	schema := `{"type": "object", "required": [` + strings.Join(names, ",") + `], "properties": {` + strings.Join(props, ",") + `}}`
	for name, text := range map[string]string{
		"evtool.yaml":             "version: 1\nschemas: schemas\n",
		"schemas/com.x.t/v1.json": schema,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ev := rawEvent{Raw: []byte(`{"specversion":"1.0","id":"1","source":"/s","type":"com.x.t","data":{` + strings.Join(data, ",") + `}}`)}
	var fields []Field
	for i := range n {
		fields = append(fields, Field{"com.x.t", fmt.Sprintf("/f%d", i)})
	}
	fm := newFieldMutation(NewMutator(cat), 1, fields)
	fm.apply(ev)
	// Every mutation takes at least one validation of the whole data.
	if fm.kept.Load() == 0 || fm.mutated.Load() == 0 || fm.mutated.Load() > maxChecksPerEvent || fm.mutated.Load()+fm.kept.Load() != n {
		t.Fatalf("mutated %d, kept %d of %d", fm.mutated.Load(), fm.kept.Load(), n)
	}
}

// A contract lists, per type, the versions that carry every field read.
func TestContractVersions(t *testing.T) {
	a, b, c := Field{"t", "/a"}, Field{"t", "/channel"}, Field{"u", "/x"}
	seen := map[Field][]int{a: {1, 2}, b: {2}, c: {1, 3}}
	got := contractVersions([]Field{a, b, c}, seen, []Field{a, b})
	if !slices.Equal(got["t"], []int{2}) || !slices.Equal(got["u"], []int{1, 3}) {
		t.Fatalf("got %v", got)
	}
	// No version holds both: every version.
	seen[b] = []int{3}
	seen[a] = []int{1}
	if got := contractVersions([]Field{a, b}, seen, []Field{a, b}); !slices.Equal(got["t"], []int{1, 3}) {
		t.Fatalf("got %v", got)
	}
}

// The fields of an array of objects are its items' fields under "-" (a
// contract that lists /lines/-/sku does not list /lines/-/qty); other
// arrays are fields as a whole; a mutation of an item field reaches every
// item and nothing else.
func TestItemFields(t *testing.T) {
	v := map[string]any{
		"lines": []any{map[string]any{"sku": "a", "qty": json.Number("1")}, map[string]any{"sku": "b", "qty": json.Number("2"), "note": "n"}},
		"tags":  []any{"x"},
		"empty": []any{},
		"mixed": []any{map[string]any{"a": "1"}, "s"},
	}
	seen := map[string]bool{}
	leaves(v, "", func(p string) { seen[p] = true })
	var got []string
	for p := range seen {
		got = append(got, p)
	}
	slices.Sort(got)
	want := []string{"/empty", "/lines/-/note", "/lines/-/qty", "/lines/-/sku", "/mixed", "/tags"}
	if !slices.Equal(got, want) {
		t.Fatalf("fields = %v, want %v", got, want)
	}
	var concrete []string
	expandItems(v, jsonpos.Split("/lines/-/note"), "", func(c string) { concrete = append(concrete, c) })
	if !slices.Equal(concrete, []string{"/lines/1/note"}) {
		t.Fatalf("/lines/-/note expands to %v", concrete)
	}
	if got := firstItem("/lines/-/sku"); got != "/lines/0/sku" {
		t.Fatalf("firstItem = %q", got)
	}
}
