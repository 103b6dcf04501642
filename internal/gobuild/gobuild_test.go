package gobuild

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The executable runs, and asking again gives the same file without
// linking it again (the second answer is go run's cache).
func TestExecutable(t *testing.T) {
	first, err := Executable(".", "./testdata/hello")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(first).CombinedOutput()
	if err != nil || string(out) != "hello from gobuild's test\n" {
		t.Fatalf("%s: %v, output %q", first, err, out)
	}
	st1, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Executable(".", "./testdata/hello")
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Errorf("second build at %s, first at %s: the cache was not used", second, first)
	}
	st2, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if !st2.ModTime().Equal(st1.ModTime()) {
		t.Errorf("%s rewritten (modified %v, then %v)", second, st1.ModTime(), st2.ModTime())
	}
}

// A package that does not compile is an error naming it, not a path.
func TestExecutableBuildError(t *testing.T) {
	_, err := Executable(".", "./testdata/nosuchpkg")
	if err == nil || !strings.Contains(err.Error(), "nosuchpkg") {
		t.Fatalf("error %v, want one naming ./testdata/nosuchpkg", err)
	}
}
