package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/jsonstrict"
)

// storeAndCompare stores two states and compares them as a run does; it
// also decodes them as jsonstrict does and compares them with Compare.
// The two must agree: a state storeState takes jsonstrict takes too (and
// the reverse), and equal or not, the comparisons say the same.
func storeAndCompare(t *testing.T, base, other string, ignore []string) {
	t.Helper()
	dir := t.TempDir()
	store := func(name, text string) (*storedState, error) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return storeState(p, ignore)
	}
	bs, berr := store("base.json", base)
	os_, oerr := store("other.json", other)
	bv, bjerr := jsonstrict.Decode([]byte(base))
	ov, ojerr := jsonstrict.Decode([]byte(other))
	if (berr == nil) != (bjerr == nil) {
		t.Fatalf("%q: storeState err %v, jsonstrict err %v", base, berr, bjerr)
	}
	if (oerr == nil) != (ojerr == nil) {
		t.Fatalf("%q: storeState err %v, jsonstrict err %v", other, oerr, ojerr)
	}
	if berr != nil || oerr != nil {
		for _, err := range []error{berr, oerr} {
			if err != nil && !strings.HasPrefix(err.Error(), "not JSON (line ") {
				t.Fatalf("error without a line: %v", err)
			}
		}
		return
	}
	got, err := compareStored(bs, os_, ignore)
	if err != nil {
		t.Fatalf("%q vs %q: compareStored: %v", base, other, err)
	}
	want := Compare(bv, ov, ignore)
	if got.Equal != want.Equal {
		t.Fatalf("%q vs %q (ignore %q): stored equal %v, Compare equal %v\nstored: %v\nCompare: %v", base, other, ignore, got.Equal, want.Equal, got.Differences, want.Differences)
	}
	if !slices.Equal(got.UnusedIgnore, want.UnusedIgnore) {
		t.Fatalf("%q vs %q (ignore %q): unused ignore: stored %q, Compare %q", base, other, ignore, got.UnusedIgnore, want.UnusedIgnore)
	}
	if fmt.Sprint(got.Differences) != fmt.Sprint(want.Differences) {
		t.Fatalf("%q vs %q (ignore %q): differences: stored %v, Compare %v", base, other, ignore, got.Differences, want.Differences)
	}
	leaves, err := diffLeaves(bs.canon, os_.canon)
	if err != nil {
		t.Fatalf("%q vs %q: diffLeaves: %v", base, other, err)
	}
	if leaves.Equal != want.Equal {
		t.Fatalf("%q vs %q (ignore %q): leaf comparison equal %v, Compare %v", base, other, ignore, leaves.Equal, want.Equal)
	}
}

// Hostile states that once made the stored comparison and Compare (or
// jsonstrict) disagree.
func TestStoredStateAgreesOnHostileInput(t *testing.T) {
	for _, tc := range []struct {
		name, base, other string
		ignore            []string
	}{
		{"huge exponent", `{"n": 1e99999, "a": 1}`, `{"n": 1e99999, "a": 2}`, nil},
		{"huge exponent ignored", `{"n": 1e99999}`, `{"n": 1}`, []string{"/n"}},
		{"huge negative exponent", `[-0.5E-000012345]`, `[0]`, nil},
		{"exponent with leading zeros", `[1e00000001]`, `[10]`, nil},
		{"overflowing exponent", `[1e400]`, `[1E400]`, nil},
		{"two indices ignored", `{"l": [1, 2, 3]}`, `{"l": [9, 8, 3]}`, []string{"/l/0", "/l/1"}},
		{"every element, then one", `{"l": [1, 2]}`, `{"l": [3]}`, []string{"/l/*", "/l/0"}},
		{"a pointer inside another", `{"a": {"b": 1}, "c": 1}`, `{"a": {"b": 2}, "c": 1}`, []string{"/a/b", "/a"}},
		{"index spelled with a sign", `{"l": [1, 2]}`, `{"l": [1, 3]}`, []string{"/l/+1"}},
		{"index with a leading zero", `{"l": [1, 2]}`, `{"l": [1, 3]}`, []string{"/l/01"}},
		{"surrogates", `["\ud83d\ude00", "\ud800"]`, `["😀", "\ufffd"]`, nil},
		{"minus zero", `[-0, -0.0, 0e5]`, `[0, 0, 0]`, nil},
		{"duplicate key in an ignored member", `{"a": {"k": 1, "k": 2}, "b": 1}`, `{"a": {}, "b": 1}`, []string{"/a"}},
		{"duplicate key in an ignored element", `{"l": [{"k": 1, "k": 2}]}`, `{"l": []}`, []string{"/l/*"}},
		{"duplicate key nested in a large member", `{"a": {"x": "` + strings.Repeat("y", 100) + `", "m": {"k": 1, "k": 2}}}`, `{"a": {}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { storeAndCompare(t, tc.base, tc.other, tc.ignore) })
	}
}

func FuzzStoredStateAgreesWithCompare(f *testing.F) {
	f.Add(`{"a": [1, 2.0, {"b": "c"}], "d": null}`, `{"d": null, "a": [1, 2, {"b": "d"}]}`, "/a/*/b")
	f.Add(`{"l": [1, 2, 3]}`, `{"l": [9, 8, 3]}`, "/l/0\n/l/1")
	f.Add(`[1e400, -0, 9007199254740993]`, `[1E400, 0, 9007199254740993.0]`, "")
	f.Add(`{"a\u00e9": "\ud800"}`, `{"aé": "\ufffd"}`, "/x")
	f.Fuzz(func(t *testing.T, base, other, ignore string) {
		if len(base)+len(other) > 4096 {
			return
		}
		var ig []string
		for _, p := range strings.Split(ignore, "\n") {
			if strings.HasPrefix(p, "/") {
				ig = append(ig, p)
			}
		}
		storeAndCompare(t, base, other, ig)
	})
}
