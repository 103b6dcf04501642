package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayDownstreamReproduces: a consumer that mints a fresh
// idempotency key per attempt (bug k) fails under downstream faults with
// exit 1, the report names the finding, and the command it prints for
// the minimal failure (one timeout fault) fails the same way.
func TestReplayDownstreamReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	dir := t.TempDir()
	consumer := goBuild(t, dir, "./internal/bugs/bugconsumer", "bugconsumer")
	data, err := os.ReadFile("../../examples/orders/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:100], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	catalog, _ := filepath.Abs("../../examples/orders")
	scenario := filepath.Join(dir, "fresh-key.yaml")
	if err := os.WriteFile(scenario, []byte(`catalog: `+catalog+`
events: {file: events.jsonl}
consumer:
  run: [`+consumer+`, -bug, k]
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: 30s
  quiet: 100ms
downstream:
  email: {effect: {key: /receiptId}, idempotency: {header: Idempotency-Key}, answer: {status: 202}}
chaos:
  seed: 5
  downstream:
    email: {rate: 0.2, kinds: [timeout, 503]}
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
	code, out := replay("replay", scenario, "--shrink-budget", "10")
	if code != 1 || !strings.Contains(out, "duplicate-effect (fresh-idempotency-key-per-attempt)") {
		t.Fatalf("exit %d, want 1 with a fresh-key duplicate:\n%s", code, out)
	}
	m := printedCommand.FindAllStringSubmatch(out, -1)
	var minimal string
	for _, x := range m {
		if x[1] == "reproduce the minimal failure" {
			minimal = x[2]
		}
	}
	if minimal == "" || !strings.Contains(out, "shrunk from ") || !strings.Contains(out, "downstream email timeout: attempt ") {
		t.Fatalf("no minimal failure with a timeout fault:\n%s", out)
	}
	args := append(strings.Fields(minimal), "--shrink-budget", "0")
	if code, again := replay(args...); code != 1 || !strings.Contains(again, "fresh-idempotency-key-per-attempt") {
		t.Errorf("evtool %s: exit %d, want 1 with the same finding:\n%s", minimal, code, again)
	}
}
