package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records failures instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	ft := &fakeT{TB: t}
	Check(ft, path, []byte("one\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" || ft.failed {
		t.Fatalf("update wrote %q, %v (failed %v)", b, err, ft.failed)
	}
	for _, tc := range []struct {
		got  string
		fail bool
	}{{"one\n", false}, {"one", true}, {"two\n", true}} {
		ft := &fakeT{TB: t}
		Check(ft, path, []byte(tc.got), false)
		if ft.failed != tc.fail {
			t.Errorf("Check(%q) failed = %v, want %v", tc.got, ft.failed, tc.fail)
		}
	}
}
