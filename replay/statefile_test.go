package replay

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/heapwatch"
	"github.com/evtool/evtool/internal/jsonstrict"
)

func storeText(t *testing.T, text string, ignore []string) (*storedState, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return storeState(p, ignore)
}

// A stored comparison agrees with Compare on the decoded states: equal
// or not, the same differences, the same unused ignore pointers.
func TestCompareStoredAgreesWithCompare(t *testing.T) {
	for _, tc := range []struct {
		name, base, other string
		ignore            []string
		equal             bool
	}{
		{"key order", `{"a": 1, "b": {"y": [1, 2], "x": "s"}}`, `{"b": {"x": "s", "y": [1, 2]}, "a": 1}`, nil, true},
		{"numbers by value", `{"n": 1.0, "m": 1e2}`, `{"n": 1, "m": 100}`, nil, true},
		{"big integers exactly", `{"n": 9007199254740993}`, `{"n": 9007199254740992}`, nil, false},
		{"minus zero is zero", `{"n": -0, "m": -0.0}`, `{"n": 0, "m": 0}`, nil, true},
		{"big integers however spelled", `{"n": 10000000000000000, "m": 9007199254740993}`, `{"n": 1e16, "m": 9007199254740993.0}`, nil, true},
		{"big integers differ by one", `{"n": 10000000000000001}`, `{"n": 1e16}`, nil, false},
		{"ignored member", `{"o": {"k1": {"v": 1, "t": "x"}}}`, `{"o": {"k1": {"v": 1, "t": "y"}}}`, []string{"/o/*/t"}, true},
		{"ignored elements", `{"l": [1, 2]}`, `{"l": [3]}`, []string{"/l/*"}, true},
		{"unused ignore", `{"a": 1}`, `{"a": 1}`, []string{"/nope"}, true},
		{"value differs", `{"o": {"k1": {"v": 1, "id": "ord-1"}}}`, `{"o": {"k1": {"v": 2, "id": "ord-1"}}}`, nil, false},
		{"member missing", `{"a": 1, "b": 2}`, `{"a": 1}`, nil, false},
		{"array longer", `[1, 2]`, `[1, 2, 3]`, nil, false},
		{"type differs", `{"a": [1]}`, `{"a": {"0": 1}}`, nil, false},
		{"escapes", `{"a\u00e9": "\u0041"}`, `{"aé": "A"}`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := storeText(t, tc.base, tc.ignore)
			if err != nil {
				t.Fatal(err)
			}
			o, err := storeText(t, tc.other, tc.ignore)
			if err != nil {
				t.Fatal(err)
			}
			got, err := compareStored(b, o, tc.ignore)
			if err != nil {
				t.Fatal(err)
			}
			bv, _ := jsonstrict.Decode([]byte(tc.base))
			ov, _ := jsonstrict.Decode([]byte(tc.other))
			want := Compare(bv, ov, tc.ignore)
			if got.Equal != tc.equal || want.Equal != tc.equal {
				t.Fatalf("equal: stored %v, Compare %v, want %v (%s)", got.Equal, want.Equal, tc.equal, got.Diff)
			}
			if !slices.Equal(got.UnusedIgnore, want.UnusedIgnore) {
				t.Errorf("unused ignore: stored %q, Compare %q", got.UnusedIgnore, want.UnusedIgnore)
			}
			if fmt.Sprint(got.Differences) != fmt.Sprint(want.Differences) {
				t.Errorf("differences: stored %v, Compare %v", got.Differences, want.Differences)
			}
			// The leaf-by-leaf comparison of large states finds a
			// difference exactly where Compare does.
			leaves, err := diffLeaves(b.canon, o.canon)
			if err != nil {
				t.Fatal(err)
			}
			if leaves.Equal != tc.equal {
				t.Errorf("leaf comparison: equal %v, want %v", leaves.Equal, tc.equal)
			}
		})
	}
}

// Large differing states are compared leaf by leaf: each differing leaf
// is listed with both values, and the strings around it (the members of
// its objects) are near it, as Compare's are.
func TestDiffLeaves(t *testing.T) {
	base := `{"inbox": [{"eventId": "e1", "orderId": "ord-1"}, {"eventId": "e2", "orderId": "ord-2"}], "orders": {"ord-1": {"paid": 5, "status": "paid"}, "ord-2": {"paid": 1}}, "x": []}`
	other := `{"inbox": [{"eventId": "e1", "orderId": "ord-1"}], "orders": {"ord-1": {"paid": 6, "status": "paid"}, "ord-2": {"paid": 1}}, "x": [1]}`
	b, err := storeText(t, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := storeText(t, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := diffLeaves(b.canon, o.canon)
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{
		{Pointer: "/inbox/1/eventId", Baseline: `"e2"`},
		{Pointer: "/inbox/1/orderId", Baseline: `"ord-2"`},
		{Pointer: "/orders/ord-1/paid", Baseline: "5", Chaos: "6"},
		{Pointer: "/x", Baseline: "[]"},
		{Pointer: "/x/0", Chaos: "1"},
	}
	if fmt.Sprint(c.Differences) != fmt.Sprint(want) {
		t.Errorf("differences\n got %v\nwant %v", c.Differences, want)
	}
	for _, s := range []string{"e2", "ord-2", "ord-1", "paid", "orders"} {
		if !slices.Contains(c.Near, s) {
			t.Errorf("near %q lacks %q", c.Near, s)
		}
	}
	if !strings.Contains(c.Diff, "- /orders/ord-1/paid: 5\n+ /orders/ord-1/paid: 6") {
		t.Errorf("diff:\n%s", c.Diff)
	}
}

// A state that is not one JSON value is refused with its line and column,
// as jsonstrict refuses it.
func TestStoreStateRejects(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "  \n", "empty: expected a JSON value"},
		{"truncated", "{\"a\": [1, 2", "unexpected end of JSON input"},
		{"duplicate key", "{\"a\": {\"k\": 1, \"k\": 2}}", `(at /a): duplicate key "k"`},
		{"trailing data", "{} {}", "unexpected data after the JSON value"},
		{"invalid UTF-8", "{\"a\":\n \"\xff\"}", "line 2, column 3: invalid UTF-8"},
		{"too deep", strings.Repeat("[", jsonstrict.MaxDepth+1), "nested more than 1000 levels deep"},
		{"bad token", "{\"a\": tru}", "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := storeText(t, tc.text, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "not JSON (") {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// Expectations read from the stored state what Evaluate reads from the
// decoded one.
func TestEvaluateStoredAgreesWithEvaluate(t *testing.T) {
	text := `{"orders": {"a": {"n": 1.0}, "b": {}}, "list": [1, "x", {"k": [true]}], "s": "t", "e\/sc~": 2}`
	st, err := storeText(t, text, []string{"/orders"}) // ignore does not hide anything from expectations
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	n := func(i int) *int { return &i }
	exps := []Expectation{
		{Pointer: "/orders", Count: n(2)},
		{Pointer: "/orders", Count: n(3)},
		{Pointer: "/list", Count: n(3)},
		{Pointer: "/s", Count: n(1)},
		{Pointer: "/list/2/k/0", HasEquals: true, Equals: true},
		{Pointer: "/orders/a/n", HasEquals: true, Equals: 1},
		{Pointer: "/orders/a", HasEquals: true, Equals: map[string]any{"n": 2}},
		{Pointer: "/list/3", Exists: &yes},
		{Pointer: "/list/01", Exists: &yes},
		{Pointer: "/e~1sc~0", Exists: &yes},
		{Pointer: "/orders/b", Exists: &no},
		{Pointer: "/missing/x", Count: n(0)},
	}
	got, err := evaluateStored("r", st, exps)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := jsonstrict.Decode([]byte(text))
	want := Evaluate("r", v, exps)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored\n%v\ndecoded\n%v", got, want)
	}
}

// writeLargeState writes a state like the example consumer's after n
// events: 5000 orders and an inbox entry per event. diff changes one
// entry.
func writeLargeState(t *testing.T, path string, n int, diff bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, `{"inbox": [`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		typ := "com.example.order.paid"
		if diff && i == n/2 {
			typ = "com.example.order.shipped"
		}
		fmt.Fprintf(w, `{"eventId": "evt-%08d", "orderId": "ord-%05d", "type": %q}`, i, i%5000, typ)
	}
	fmt.Fprint(w, `], "orders": {`)
	for i := range 5000 {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `"ord-%05d": {"status": "paid", "paidMinor": %d, "updatedAt": "2025-03-03T08:00:%02dZ"}`, i, i*100, i%60)
	}
	fmt.Fprint(w, "}}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStoredStateMemoryBounded guards the design: storing, comparing and
// evaluating a state of 300,000 inbox entries (about 25 MB of JSON; about
// 10 times that decoded) keeps the live heap to the keys and offsets of
// its largest object. Decoding either state, or holding its bytes, would
// pass the bound.
func TestStoredStateMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 100 MB")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeLargeState(t, a, 300000, false)
	writeLargeState(t, b, 300000, true)
	if fi, err := os.Stat(a); err != nil || fi.Size() < 20<<20 {
		t.Fatalf("state %v, %v: too small to tell", fi.Size(), err)
	}

	ignore := []string{"/orders/*/updatedAt"}
	var sa *storedState
	var c Comparison
	var res []ExpectResult
	grew := heapwatch.PeakGrowth(func() {
		var err error
		sa, err = storeState(a, ignore)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := storeState(b, ignore)
		if err != nil {
			t.Fatal(err)
		}
		c, err = compareStored(sa, sb, ignore)
		if err != nil {
			t.Fatal(err)
		}
		n := 300000
		res, err = evaluateStored("chaos", sb, []Expectation{{Pointer: "/inbox", Count: &n}})
		if err != nil {
			t.Fatal(err)
		}
	})
	if c.Equal || len(c.Differences) != 1 || c.Differences[0].Pointer != "/inbox/150000/type" || !slices.Contains(c.Near, "evt-00150000") {
		t.Errorf("comparison %+v", c)
	}
	if len(res) != 1 || !res[0].OK {
		t.Errorf("expectation %v", res)
	}
	const bound = 16 << 20
	if grew > bound {
		t.Errorf("the live heap grew by %.1f MiB storing and comparing two %.0f MiB states; the bound is %d MiB", float64(grew)/(1<<20), float64(sa.size)/(1<<20), bound>>20)
	}
}

// TestCanonicalCostLinearInDepth: canonicalizing reads each byte of a
// state about once however deep it is nested. Without remembering where
// members end, a state 900 levels deep (each level an object of two
// members, the deep one last) was read once per level.
func TestCanonicalCostLinearInDepth(t *testing.T) {
	const depth = 900
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(`{"z": 1, "a": `)
	}
	b.WriteString(`"` + strings.Repeat("x", 200<<10) + `"`)
	for i := 0; i < depth; i++ {
		b.WriteString(`, "b": [1, {"k": "v"}]}`)
	}
	st, err := storeText(t, b.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if size := int64(b.Len()); st.read > 4*size {
		t.Fatalf("canonicalizing a %d-byte state %d levels deep read %d bytes (%.0f× its size)", size, depth, st.read, float64(st.read)/float64(size))
	}
	canon, err := os.ReadFile(st.canon)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"a":`; !strings.HasPrefix(string(canon), want) || !strings.HasSuffix(string(canon), `,"b":[1,{"k":"v"}],"z":1}`) {
		t.Fatalf("canonical form starts %.40q, ends %q", canon, canon[len(canon)-40:])
	}
}
