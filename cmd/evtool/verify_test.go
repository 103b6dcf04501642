package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyCLI: evtool verify exits 0 for the example producer under
// faults and 1 for its commit-then-publish bug, printing the lost event,
// the seed and the command that reproduces the minimal failure.
func TestVerifyCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example producer")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "producer")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/orders/producer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	reqs, err := os.ReadFile("../../examples/orders/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "requests.jsonl"), reqs, 0o644); err != nil {
		t.Fatal(err)
	}
	catalog, _ := filepath.Abs("../../examples/orders")
	for _, tc := range []struct {
		bug  string
		code int
		want []string
	}{
		{"", 0, []string{"PASS", "chaos run (2 faults planned, 2 struck: 0,1): pass"}},
		{"no-outbox", exitFindings, []string{"FAIL", "lost 1", "lost: committed com.example.order", "reproduce the minimal failure: evtool verify "}},
	} {
		argv := "[" + bin + "]"
		if tc.bug != "" {
			argv = "[" + bin + ", -bug, " + tc.bug + "]"
		}
		sc := filepath.Join(dir, "v"+tc.bug+".yaml")
		text := "catalog: " + catalog + "\nproducer:\n  run: " + argv + "\n  state: {http: \"http://${EVTOOL_ADDR}/facts\"}\n  quiet: 500ms\nworkload: {requests: requests.jsonl}\nchaos: {seed: 3, crash: {count: 2, at: before-append}}\n"
		if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"verify", sc}, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code {
			t.Fatalf("bug %q: exit %d, want %d\n%s%s", tc.bug, code, tc.code, stdout.String(), stderr.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("bug %q: no %q in\n%s", tc.bug, w, stdout.String())
			}
		}
	}
}
