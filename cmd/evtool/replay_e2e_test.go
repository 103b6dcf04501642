package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func goBuild(t *testing.T, dir, pkg, out string) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	exe := filepath.Join(dir, out)
	cmd := exec.Command(goTool, "build", "-o", exe, pkg)
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return exe
}

// TestReplayEndToEnd runs everything as separate processes, as a user
// would: `evtool broker`, then `evtool replay --brokers` against it with
// the example consumer (correct, under every fault kind: killed and
// restarted, poison events dead-lettered, skewed versions; then naive,
// failing and shrunk; then both with --fail-fast), then stops the broker
// with SIGTERM.
func TestReplayEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if runtime.GOOS == "windows" {
		t.Skip("SIGTERM")
	}
	dir := t.TempDir()
	evtool := goBuild(t, dir, "./cmd/evtool", "evtool")
	consumer := goBuild(t, dir, "./examples/orders/consumer", "orders-consumer")

	broker := exec.Command(evtool, "broker", "--addr", "127.0.0.1:0", "--partitions", "3")
	stdout, err := broker.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var brokerErr bytes.Buffer
	broker.Stderr = &brokerErr
	if err := broker.Start(); err != nil {
		t.Fatal(err)
	}
	defer broker.Process.Kill() //nolint:errcheck // after a clean stop it is gone
	lines := bufio.NewScanner(stdout)
	addrCh := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if a, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
				addrCh <- a
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrCh:
	case <-time.After(30 * time.Second):
		t.Fatalf("evtool broker printed no address; stderr: %s", brokerErr.String())
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("address %q", addr)
	}

	// 300 example events.
	data, err := os.ReadFile("../../examples/orders/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(events, []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:300], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	catalog, _ := filepath.Abs("../../examples/orders")
	scenario := func(name string, args ...string) string {
		run, _ := json.Marshal(append([]string{consumer}, args...))
		p := filepath.Join(dir, name)
		text := `catalog: ` + catalog + `
events: {file: events.jsonl}
kafka: {partitions: 3, mode: structured}
consumer:
  run: ` + string(run) + `
  state: {http: "http://${EVTOOL_ADDR}/state"}
  ignore: [/orders/*/updatedAt]
  settle_timeout: 30s
  quiet: 200ms
chaos:
  seed: 11
  duplicate: {rate: 0.1, spread: 10}
  reorder: {window: 40, scope: key, rate: 0.3}
`
		if len(args) == 0 {
			text += `  skew: {rate: 1}
  poison: {rate: 0.02}
  crash: {count: 2}
expect:
  dlq: {count: poison}
`
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// The correct consumer passes: exit 0, JSON report, JUnit file.
	junit := filepath.Join(dir, "replay.xml")
	cmd := exec.Command(evtool, "replay", scenario("ok.yaml"), "--brokers", addr, "--format", "json", "--report", junit)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("evtool replay: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	var rep struct {
		Verdict string `json:"verdict"`
		Brokers string `json:"brokers"`
		Runs    []struct {
			Name    string         `json:"name"`
			Records int64          `json:"records"`
			Applied map[string]int `json:"applied"`
			Kills   []struct {
				Committed []struct {
					Partition int32 `json:"partition"`
					Committed int64 `json:"committed"`
				} `json:"committed"`
				RestartPid int `json:"restartPid"`
			} `json:"kills"`
			DLQ []struct {
				Poison string `json:"poison"`
				Error  string `json:"error"`
			} `json:"dlq"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Verdict != "pass" || rep.Brokers != addr || len(rep.Runs) != 3 || rep.Runs[2].Records <= 300 {
		t.Fatalf("report: %s", out.String())
	}
	ch := rep.Runs[2]
	for _, k := range []string{"duplicate", "reorder", "skew", "poison", "crash"} {
		if ch.Applied[k] == 0 {
			t.Errorf("no %s fault applied: %v", k, ch.Applied)
		}
	}
	if len(ch.Kills) != 2 || len(ch.Kills[0].Committed) != 3 || ch.Kills[1].RestartPid == 0 || len(ch.DLQ) < ch.Applied["poison"] {
		t.Fatalf("chaos run: %+v", ch)
	}
	for _, d := range ch.DLQ {
		if d.Poison == "" || !strings.HasPrefix(d.Error, "dlq.error: ") {
			t.Fatalf("DLQ record %+v", d)
		}
	}
	if b, err := os.ReadFile(junit); err != nil || !bytes.Contains(b, []byte(`<testcase name="`)) || bytes.Contains(b, []byte("<failure")) {
		t.Fatalf("junit report: %v\n%s", err, b)
	}

	// The naive consumer fails: exit 1 with the diff, the minimal faults
	// and the reproduce lines.
	cmd = exec.Command(evtool, "replay", scenario("naive.yaml", "-naive"), "--brokers", addr, "--shrink-budget", "10")
	out.Reset()
	errOut.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("naive: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	for _, s := range []string{"FAIL", "diff (-baseline +chaos)", "/orders/ord-", "reproduce: evtool replay " + filepath.Join(dir, "naive.yaml") + " --seed 11 --brokers " + addr,
		"shrunk from ", "state diff of the minimal run", "reproduce the minimal failure: evtool replay " + filepath.Join(dir, "naive.yaml") + " --seed 11 --faults "} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("naive report lacks %q:\n%s", s, out.String())
		}
	}

	// Several scenarios, --fail-fast: the first fails, the second is
	// skipped; JUnit has a test case for each.
	cmd = exec.Command(evtool, "replay", filepath.Join(dir, "naive.yaml"), filepath.Join(dir, "ok.yaml"), "--brokers", addr, "--fail-fast", "--shrink-budget", "0", "--format", "junit")
	out.Reset()
	errOut.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("fail-fast: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	if n := strings.Count(out.String(), "<testcase "); n != 2 || !strings.Contains(out.String(), `<skipped message="skipped: --fail-fast after `) || !strings.Contains(out.String(), `<failure message="the chaos state differs`) {
		t.Errorf("fail-fast junit:\n%s", out.String())
	}

	// A consumer of the bug catalogue as its own process: (e) dies on the
	// first poison event; the failure shrinks to one poison fault.
	bugConsumer := goBuild(t, dir, "./internal/bugs/bugconsumer", "bugconsumer")
	bugScenario := filepath.Join(dir, "poison-crash.yaml")
	if err := os.WriteFile(bugScenario, []byte(`catalog: `+catalog+`
events: {file: events.jsonl}
consumer:
  run: [`+bugConsumer+`, -bug, e]
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: 20s
  quiet: 200ms
chaos: {seed: 3, duplicate: {rate: 0.05}, poison: {rate: 0.01}}
expect: {dlq: {count: poison}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(evtool, "replay", bugScenario, "--brokers", addr, "--shrink-budget", "10", "--format", "json")
	out.Reset()
	errOut.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("poison-crash: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	var bugRep struct {
		Verdict   string `json:"verdict"`
		Confirmed bool   `json:"confirmed"`
		Shrink    struct {
			Faults []struct {
				Kind string `json:"kind"`
			} `json:"faults"`
		} `json:"shrink"`
	}
	if err := json.Unmarshal(out.Bytes(), &bugRep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if f := bugRep.Shrink.Faults; bugRep.Verdict != "fail" || !bugRep.Confirmed || len(f) == 0 || len(f) > 3 || !slices.ContainsFunc(f, func(x struct {
		Kind string `json:"kind"`
	}) bool {
		return x.Kind == "poison"
	}) {
		t.Fatalf("poison-crash report: %s", out.String())
	}

	// SIGTERM stops the broker cleanly.
	if err := broker.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- broker.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("broker exit: %v; stderr: %s", err, brokerErr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("broker did not stop on SIGTERM")
	}
	if !strings.Contains(brokerErr.String(), "evtool broker: stopped") {
		t.Errorf("broker stderr: %s", brokerErr.String())
	}
}
