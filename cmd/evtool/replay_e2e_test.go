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
// the example consumer (correct, then naive), then stops the broker with
// SIGTERM.
func TestReplayEndToEnd(t *testing.T) {
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
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Verdict != "pass" || rep.Brokers != addr || len(rep.Runs) != 2 || rep.Runs[1].Records <= 300 || rep.Runs[1].Applied["reorder"] == 0 {
		t.Fatalf("report: %s", out.String())
	}
	if b, err := os.ReadFile(junit); err != nil || !bytes.Contains(b, []byte(`<testcase name="`)) || bytes.Contains(b, []byte("<failure")) {
		t.Fatalf("junit report: %v\n%s", err, b)
	}

	// The naive consumer fails: exit 1 with the diff and the reproduce line.
	cmd = exec.Command(evtool, "replay", scenario("naive.yaml", "-naive"), "--brokers", addr)
	out.Reset()
	errOut.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("naive: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	for _, s := range []string{"FAIL", "diff (-baseline +chaos)", "/orders/ord-", "reproduce: evtool replay " + filepath.Join(dir, "naive.yaml") + " --seed 11 --brokers " + addr} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("naive report lacks %q:\n%s", s, out.String())
		}
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
