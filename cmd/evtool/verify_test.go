package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/replay"
)

// TestVerifyCLI: evtool verify exits 0 for the example producer under
// faults and 1 for its commit-then-publish bug, printing the lost event,
// the seed and the command that reproduces the minimal failure.
func TestVerifyCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if testing.Short() {
		t.Skip("builds and runs the example producer")
	}
	dir, bin, catalog := exampleProducer(t)
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

// TestVerifyBrokers: evtool verify --brokers runs against a cluster it did
// not start (here an embedded broker the test starts, with SCRAM on, as an
// outside cluster): the SASL flags reach the harness and the producer, the
// TLS flags the harness, crashes strike between requests and say so, a
// wrong password is exit 2, and produce errors, which only the embedded
// broker can inject, are refused with exit 2 instead of a silent pass.
func TestVerifyBrokers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if testing.Short() {
		t.Skip("builds and runs the example producer")
	}
	b, err := kafka.StartBroker(kafka.BrokerConfig{SASLUsers: []kafka.SASLUser{{Mechanism: "SCRAM-SHA-256", User: "qa", Password: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir, bin, catalog := exampleProducer(t)
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sasl := []string{"--brokers", strings.Join(b.Addrs(), ","), "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-user", "qa"}
	for _, tc := range []struct {
		name, chaos, password string
		extra                 []string
		code                  int
		stdout, stderr        []string
	}{
		{"crash", "{seed: 3, crash: {count: 2}, rollback: {rate: 0.2}}", "s3cret", nil, exitOK,
			[]string{"PASS", "chaos run (", "against a cluster a crash strikes once the request that armed it was answered"}, nil},
		{"wrong password", "{seed: 3, crash: {count: 1}}", "wrong", nil, exitError,
			nil, []string{"evtool: cannot reach Kafka at 127.0.0.1:", "check the address and the TLS and SASL settings"}},
		{"produce errors refused", "{seed: 3, crash: {count: 1}, produce_errors: {rate: 0.5}}", "s3cret", nil, exitError,
			nil, []string{"chaos.produce_errors (fault #", "needs the embedded broker", "--faults"}},
		// The broker speaks no TLS; a CA file that holds no certificate
		// shows the TLS flags reach the harness's client.
		{"tls flags", "{seed: 3, crash: {count: 1}}", "s3cret", []string{"--tls-ca", notPEM}, exitError,
			nil, []string{"TLS CA file " + notPEM + ": no PEM certificates found"}},
		{"produce errors left out", "{seed: 3, produce_errors: {rate: 0.5}, rollback: {rate: 0.3}}", "s3cret", []string{"--faults", ""}, exitOK,
			[]string{"PASS"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			text := "catalog: " + catalog + "\nproducer:\n  run: [" + bin + "]\n  state: {http: \"http://${EVTOOL_ADDR}/facts\"}\n  quiet: 1s\nworkload: {requests: requests.jsonl}\nchaos: " + tc.chaos + "\n"
			if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"verify", sc, "--sasl-password", tc.password, "--shrink-budget", "0"}, sasl...), tc.extra...)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout.String(), stderr.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("no %q in stdout\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("no %q in stderr\n%s", w, stderr.String())
				}
			}
		})
	}
}

// exampleProducer builds examples/orders/producer into a temporary
// directory holding the example's requests.jsonl, for scenarios written
// there; catalog is the example's catalog.
func exampleProducer(t *testing.T) (dir, bin, catalog string) {
	t.Helper()
	dir = t.TempDir()
	bin = filepath.Join(dir, "producer")
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
	catalog, _ = filepath.Abs("../../examples/orders")
	return dir, bin, catalog
}

// TestVerifyReproduceLinesReproduce runs the commands a failing verify
// prints and wants each to fail again with the same loss.
func TestVerifyReproduceLinesReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child consumers or producers through kfake end to end (minutes on a loaded machine); TestScripts and TestDocSamples stand for the CLI in the short tier")
	}
	if testing.Short() {
		t.Skip("builds and runs the example producer")
	}
	dir, bin, catalog := exampleProducer(t)
	sc := filepath.Join(dir, "vbug.yaml")
	text := "catalog: " + catalog + "\nproducer:\n  run: [" + bin + ", -bug, no-outbox]\n  state: {http: \"http://${EVTOOL_ADDR}/facts\"}\n  quiet: 500ms\nworkload: {requests: requests.jsonl}\nchaos: {seed: 3, crash: {count: 2, at: before-append}}\n"
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	verify := func(args ...string) (int, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	code, out := verify("verify", sc)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d:\n%s", code, exitFindings, out)
	}
	printed := regexp.MustCompile(`(?m)^(reproduce|reproduce the minimal failure): evtool (verify .*)$`).FindAllStringSubmatch(out, -1)
	if len(printed) != 2 {
		t.Fatalf("want a reproduce and a minimal-failure line:\n%s", out)
	}
	for _, m := range printed {
		// The temporary directory holds no character shellWord quotes.
		code, again := verify(strings.Fields(m[2])...)
		if code != exitFindings || !strings.Contains(again, "lost 1") {
			t.Errorf("%s: %s: exit %d, want %d with lost 1:\n%s", m[1], m[2], code, exitFindings, again)
		}
	}
}

// TestVerifyStateReadFollowsSettleTimeout: a producer whose state command
// hangs ends the run when producer.settle_timeout ends (exit 2, naming
// the limit), not after the state command's own minute.
func TestVerifyStateReadFollowsSettleTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the example producer through kfake")
	}
	dir, bin, catalog := exampleProducer(t)
	sc := filepath.Join(dir, "hang.yaml")
	text := "catalog: " + catalog + "\nproducer:\n  run: [" + bin + "]\n  state: {command: [sleep, \"600\"]}\n  quiet: 200ms\n  settle_timeout: 2s\nworkload: {requests: requests.jsonl}\nchaos: {seed: 3, crash: {count: 1}}\n"
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"verify", sc, "--shrink-budget", "0"}, strings.NewReader(""), &stdout, &stderr)
	took := time.Since(start)
	want := "(the limit on a state command: what was left of producer.settle_timeout): killed"
	if code != exitError || !strings.Contains(stderr.String(), want) {
		t.Fatalf("exit %d, want 2 with %q\n%s%s", code, want, stdout.String(), stderr.String())
	}
	// The state command's own limit is a minute (replay.StateCommandTimeout):
	// the run, producer start-up and workload included, ends well before.
	if took >= replay.StateCommandTimeout/2 {
		t.Errorf("verify took %s: the state read did not follow settle_timeout (2s)", took)
	}
}

// TestVerifySlowStateAtDeadlineKeepsVerdict: a state read the settle
// deadline cuts short ends the wait with the last state that answered (a
// verdict and the "did not settle" note), not exit 2: only a producer whose
// state never answered has nothing to judge.
func TestVerifySlowStateAtDeadlineKeepsVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the example producer through kfake")
	}
	dir, bin, catalog := exampleProducer(t)
	// Every state read takes 400ms: the producer's own /facts through a
	// slow proxy on 127.0.0.1.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(400 * time.Millisecond)
		resp, err := http.Get("http://" + r.URL.Query().Get("addr") + "/facts")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	sc := filepath.Join(dir, "slow.yaml")
	text := "catalog: " + catalog + "\nproducer:\n  run: [" + bin + "]\n  state: {http: \"" + proxy.URL + "/?addr=${EVTOOL_ADDR}\"}\n  quiet: 5s\n  settle_timeout: 2s\nworkload: {requests: requests.jsonl}\nchaos: {seed: 3}\n"
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", sc, "--shrink-budget", "0"}, strings.NewReader(""), &stdout, &stderr)
	out := stdout.String() + stderr.String()
	if code != exitOK || !strings.Contains(out, "did not settle within 2s") && !strings.Contains(out, "the facts judged are those of the read before it") {
		t.Fatalf("exit %d, want 0 with a note that it did not settle or that the last read failed\n%s", code, out)
	}
	t.Logf("%s", out)
}
