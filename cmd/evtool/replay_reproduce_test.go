package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// printedCommand matches the reproduce lines of a replay report.
var printedCommand = regexp.MustCompile(`(?m)^(reproduce|only the faults near the differences|reproduce the minimal failure): evtool (replay .*)$`)

// TestReplayReproduceLinesReproduce runs every command a failing replay
// prints and wants each to fail again (exit 1). The consumer keeps its
// dedupe in memory (bug c), so it fails only when a crash redelivers what
// it applied: the crash has no key near the differences, and a line that
// left it out would replay and pass.
func TestReplayReproduceLinesReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	dir := t.TempDir()
	consumer := goBuild(t, dir, "./internal/bugs/bugconsumer", "bugconsumer")
	data, err := os.ReadFile("../../examples/orders/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:300], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	catalog, _ := filepath.Abs("../../examples/orders")
	scenario := filepath.Join(dir, "memory-dedupe.yaml")
	if err := os.WriteFile(scenario, []byte(`catalog: `+catalog+`
events: {file: events.jsonl}
consumer:
  run: [`+consumer+`, -bug, c]
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: 30s
  quiet: 100ms
chaos:
  seed: 3
  duplicate: {rate: 0.05, spread: 10}
  crash: {count: 2, at: after-effect}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	replay := func(args ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var out, errOut bytes.Buffer
		code := run(ctx, args, strings.NewReader(""), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	for _, tc := range []struct {
		budget string
		want   []string // the lines that must be printed
	}{
		{"0", []string{"reproduce", "only the faults near the differences"}},
		{"10", []string{"reproduce", "reproduce the minimal failure"}},
	} {
		code, out := replay("replay", scenario, "--shrink-budget", tc.budget)
		if code != 1 {
			t.Fatalf("--shrink-budget %s: exit %d, want 1:\n%s", tc.budget, code, out)
		}
		printed := map[string]string{}
		for _, m := range printedCommand.FindAllStringSubmatch(out, -1) {
			printed[m[1]] = m[2]
		}
		for _, w := range tc.want {
			if printed[w] == "" {
				t.Fatalf("--shrink-budget %s: no %q line:\n%s", tc.budget, w, out)
			}
		}
		for what, cmd := range printed {
			// The printed command, as is (no word needs quoting in this
			// directory); without shrinking its failure, which does not
			// change whether it fails.
			args := append(strings.Fields(cmd), "--shrink-budget", "0")
			if code, again := replay(args...); code != 1 {
				t.Errorf("%s: evtool %s: exit %d, want 1 (the failure is not reproduced):\n%s\nthe report that printed it:\n%s", what, cmd, code, again, out)
			}
		}
	}
}
