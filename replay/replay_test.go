package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
)

var examplesDir = func() string {
	d, err := filepath.Abs("../examples/orders")
	if err != nil {
		panic(err)
	}
	return d
}()

// testEvents writes the first n example events to a file.
func testEvents(t testing.TB, n int) string {
	t.Helper()
	f, err := os.Open(filepath.Join(examplesDir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; i < n && sc.Scan(); i++ {
		b.Write(sc.Bytes())
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func self(t testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// scenarioText is a scenario running the test binary as the consumer.
// scenarioText is a scenario of the test consumer in mode: one that must
// settle gets settleHangBound, never-commit (whose failure is not
// settling) 20s.
func scenarioText(t testing.TB, mode, events, chaosYAML string) string {
	settle := settleHangBound
	if mode == "never-commit" {
		settle = "20s"
	}
	return `catalog: ` + examplesDir + `
events: {file: ` + events + `}
kafka: {partitions: 3}
consumer:
  run: [` + self(t) + `, -test.run=^$]
  env: {REPLAY_TEST_CONSUMER: ` + mode + `}
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: ` + settle + `
  quiet: 150ms
` + chaosYAML
}

func writeScenario(t testing.TB, text string) *Scenario {
	t.Helper()
	p := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := LoadScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func replayText(t *testing.T, text string, opts Options) (*Report, error) {
	t.Helper()
	sc := writeScenario(t, text)
	ctx, opts := watchProgress(t, opts)
	return Replay(ctx, sc, opts)
}

const dupAndReorder = `chaos:
  seed: 3
  duplicate: {rate: 0.2, max: 2, spread: 10}
  reorder: {window: 40, scope: key, rate: 0.5}
`

func TestReplayCorrectPasses(t *testing.T) {
	t.Parallel()
	events := testEvents(t, 300)
	rep, err := replayText(t, scenarioText(t, "correct", events, dupAndReorder+`expect:
  state:
    - {pointer: /events, count: 300}
    - {pointer: /orders/ord-00023/version, exists: true}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Pass {
		var b bytes.Buffer
		_ = WriteText(&b, rep)
		t.Fatalf("verdict %s:\n%s", rep.Verdict, b.String())
	}
	ch := rep.Run("chaos")
	if ch.Applied[chaos.Duplicate] == 0 || ch.Applied[chaos.Reorder] == 0 {
		t.Fatalf("faults applied: %v", ch.Applied)
	}
	if ch.Records != ch.Events+int64(ch.Applied[chaos.Duplicate]) {
		t.Fatalf("records %d, events %d, duplicates %d", ch.Records, ch.Events, ch.Applied[chaos.Duplicate])
	}
	if len(ch.Expect) != 2 || !ch.Expect[0].OK {
		t.Fatalf("expect: %+v", ch.Expect)
	}
}

func naiveFails(t *testing.T, chaosYAML string, want string) *Report {
	t.Helper()
	rep, err := replayText(t, scenarioText(t, "naive", testEvents(t, 300), chaosYAML), Options{ShrinkBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_ = WriteText(&b, rep)
	if rep.Verdict != Fail {
		t.Fatalf("naive consumer passed:\n%s", b.String())
	}
	for _, s := range []string{"the chaos state differs", want, "reproduce: evtool replay", "--seed 5", "faults near the differences"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, b.String())
		}
	}
	return rep
}

func TestReplayNaiveFailsDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	rep := naiveFails(t, "chaos: {seed: 5, duplicate: {rate: 0.05}}\n", "/events/")
	for _, f := range rep.NearFaults {
		if f.Kind != chaos.Duplicate {
			t.Errorf("near fault %v is not a duplicate", f)
		}
	}
	// The near faults alone reproduce the failure.
	if !strings.Contains(rep.ReproduceNear, "--faults ") {
		t.Fatalf("ReproduceNear = %q", rep.ReproduceNear)
	}
}

func TestReplayNaiveFailsReorder(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	rep := naiveFails(t, "chaos: {seed: 5, reorder: {window: 60, scope: key, rate: 1}}\n", "/orders/")
	if rep.Run("chaos").Records != rep.Run("chaos").Events {
		t.Fatal("reorder produced copies")
	}
}

// The faults near the differences, replayed alone, still fail: --faults
// reproduces a subset exactly.
func TestReplayFaultSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	text := scenarioText(t, "naive", testEvents(t, 200), "chaos: {seed: 9, duplicate: {rate: 0.1}, reorder: {window: 40, rate: 0.3}}\n")
	full, err := replayText(t, text, Options{ShrinkBudget: -1})
	if err != nil || full.Verdict != Fail || len(full.NearFaults) < 2 {
		t.Fatalf("full run: %v %v %d", err, full.Verdict, len(full.NearFaults))
	}
	pick := []int{full.NearFaults[0].Index, full.NearFaults[1].Index}
	rep, err := replayText(t, text, Options{Faults: chaos.Only(pick...), ShrinkBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	ch := rep.Run("chaos")
	if len(ch.Faults) != 2 || ch.Faults[0] != full.NearFaults[0] || ch.Faults[1] != full.NearFaults[1] {
		t.Fatalf("applied %v, want the faults %v of the full plan", ch.Faults, pick)
	}
	if rep.Verdict != Fail {
		t.Fatal("the subset passed")
	}
	if !strings.Contains(rep.Reproduce, "--seed 9 --faults ") {
		t.Fatalf("Reproduce = %q", rep.Reproduce)
	}
}

func TestConsumerExitsEarly(t *testing.T) {
	t.Parallel()
	rep, err := replayText(t, scenarioText(t, "exit", testEvents(t, 20), ""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := rep.Run("baseline")
	if rep.Verdict != Fail || base == nil || base.Failure == nil || base.Failure.Reason != "exited" {
		t.Fatalf("report: %+v", rep)
	}
	var b bytes.Buffer
	_ = WriteText(&b, rep)
	for _, s := range []string{"exited early (exit status 3)", "partition 0: end", "fatal: cannot open database: permission denied", "consumer failed the baseline run"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, b.String())
		}
	}
	if rep.Run("chaos") != nil {
		t.Error("chaos run after a failed baseline")
	}
}

func TestConsumerNeverCommits(t *testing.T) {
	t.Parallel()
	text := strings.Replace(scenarioText(t, "never-commit", testEvents(t, 30), ""), "settle_timeout: 20s", "settle_timeout: 1500ms", 1)
	start := time.Now()
	rep, err := replayText(t, text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s", d)
	}
	f := rep.Run("baseline").Failure
	if rep.Verdict != Fail || f == nil || f.Reason != "not-settled" {
		t.Fatalf("report: %+v", rep)
	}
	if len(f.Lag) != 3 || totalLag(f.Lag) != 30 {
		t.Fatalf("lag %+v", f.Lag)
	}
	for _, l := range f.Lag {
		if l.Committed != -1 {
			t.Fatalf("lag %+v", l)
		}
	}
	var b bytes.Buffer
	_ = WriteText(&b, rep)
	if !strings.Contains(b.String(), "did not settle within 1.5s") || !strings.Contains(b.String(), "nothing committed") {
		t.Errorf("report:\n%s", b.String())
	}
}

func TestStateNotJSON(t *testing.T) {
	t.Parallel()
	_, err := replayText(t, scenarioText(t, "html", testEvents(t, 10), ""), Options{})
	var se *StateError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a StateError", err)
	}
	for _, s := range []string{"state from GET http://127.0.0.1:", "/state", "not JSON", "<!DOCTYPE html>", "text/html"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q: %v", s, err)
		}
	}
}

func TestStateCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	text := strings.Replace(scenarioText(t, "correct", testEvents(t, 50), "chaos: {seed: 1, duplicate: {rate: 0.3}}\n"),
		`state: {http: "http://${EVTOOL_ADDR}/state"}`, `state: {command: [curl, -sf, "http://${EVTOOL_ADDR}/state"]}`, 1)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	rep, err := replayText(t, text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Pass {
		t.Fatalf("verdict %s: %s", rep.Verdict, rep.Summary)
	}
}

func TestConsumerNotFound(t *testing.T) {
	t.Parallel()
	text := strings.Replace(scenarioText(t, "correct", testEvents(t, 5), ""), "run: ["+self(t), "run: [evtool-no-such-consumer", 1)
	_, err := replayText(t, text, Options{})
	if err == nil || !strings.Contains(err.Error(), `command "evtool-no-such-consumer" not found in $PATH`) || !strings.Contains(err.Error(), "scenario.yaml:5") {
		t.Fatalf("err = %v", err)
	}
	text = strings.Replace(scenarioText(t, "correct", testEvents(t, 5), ""), "run: ["+self(t), "run: [./bin/consumer", 1)
	_, err = replayText(t, text, Options{})
	if err == nil || !strings.Contains(err.Error(), "command ./bin/consumer not found") {
		t.Fatalf("err = %v", err)
	}
}

// TestBrokersNeverAnswer: a broker that accepts and never answers is
// reported as such (no "context deadline exceeded" from the ping the wait
// cut short), with the hint to check --brokers.
func TestBrokersNeverAnswer(t *testing.T) {
	t.Parallel()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	addr := silent.Addr().String()
	text := strings.Replace(scenarioText(t, "correct", testEvents(t, 5), ""), "settle_timeout: "+settleHangBound, "settle_timeout: 2s", 1)
	_, err = replayText(t, text, Options{Brokers: []string{addr}})
	if err == nil || !strings.Contains(err.Error(), "cannot reach Kafka at "+addr+" within 2s: no broker answered") ||
		strings.Contains(err.Error(), "deadline exceeded") || !strings.Contains(err.Error(), "--brokers") {
		t.Fatalf("err = %v", err)
	}
}

func TestBrokersUnreachable(t *testing.T) {
	t.Parallel()
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	text := strings.Replace(scenarioText(t, "correct", testEvents(t, 5), ""), "settle_timeout: "+settleHangBound, "settle_timeout: 2s", 1)
	start := time.Now()
	_, err = replayText(t, text, Options{Brokers: []string{addr}})
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("took %s with a 2s settle timeout", d)
	}
	if err == nil || !strings.Contains(err.Error(), "cannot reach Kafka at "+addr+" within 2s") || !strings.Contains(err.Error(), "--brokers") {
		t.Fatalf("err = %v", err)
	}
}

func TestInvalidEventStopsBeforeProducing(t *testing.T) {
	t.Parallel()
	events := testEvents(t, 5)
	data, _ := os.ReadFile(events)
	lines := strings.Split(string(data), "\n")
	lines[2] = strings.Replace(lines[2], `"orderVersion":`, `"orderVersion":"x","was":`, 1)
	if err := os.WriteFile(events, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := replayText(t, scenarioText(t, "correct", events, ""), Options{Brokers: []string{"127.0.0.1:1"}})
	var ie *InvalidEventsError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v", err)
	}
	if ie.Invalid != 1 || !strings.Contains(err.Error(), events+":3:") || !strings.Contains(err.Error(), "/data/orderVersion") || !strings.Contains(err.Error(), "nothing was produced") {
		t.Fatalf("err = %v", err)
	}
}

func TestSettleWaitsForSlowStart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	rep, err := replayText(t, scenarioText(t, "slow-start", testEvents(t, 40), "chaos: {seed: 2, duplicate: {rate: 0.5}}\n"), Options{})
	if err != nil || rep.Verdict != Pass {
		t.Fatalf("%v %+v", err, rep)
	}
}

func TestReportFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	rep, err := replayText(t, scenarioText(t, "naive", testEvents(t, 100), "chaos: {seed: 4, duplicate: {rate: 0.2}}\n"), Options{})
	if err != nil || rep.Verdict != Fail {
		t.Fatalf("%v %v", err, rep.Verdict)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["verdict"] != "fail" || back["seed"].(float64) != 4 || back["comparison"] == nil || back["nearFaults"] == nil || back["confirmed"] != true {
		t.Fatalf("json: %s", js.String())
	}
	// Every run, shrinking runs included, with its faults, timings, lag
	// and verdict; the minimal set with its events.
	runs := back["runs"].([]any)
	shrink := back["shrink"].(map[string]any)
	if len(runs) != 4+int(shrink["runs"].(float64)) || len(shrink["faults"].([]any)) != 1 || !strings.Contains(shrink["reproduce"].(string), "--seed 4 --faults ") {
		t.Fatalf("json: %s", js.String())
	}
	for _, r := range runs {
		r := r.(map[string]any)
		if r["verdict"] == nil || r["lag"] == nil || r["totalTime"] == nil || (r["name"] != "baseline" && r["faults"] == nil) {
			t.Fatalf("run: %v", r)
		}
	}
	if f := shrink["faults"].([]any)[0].(map[string]any); f["kind"] != "duplicate" || f["id"] == "" || f["key"] == "" || f["type"] == "" {
		t.Fatalf("minimal fault %v", f)
	}
	var ju bytes.Buffer
	if err := WriteJUnit(&ju, rep); err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 1 || suites.Failures != 1 || suites.Suites[0].Cases[0].Failure == nil ||
		!strings.Contains(suites.Suites[0].Cases[0].Failure.Text, "reproduce the minimal failure:") {
		t.Fatalf("junit:\n%s", ju.String())
	}
	// Several scenarios: one test case each.
	ju.Reset()
	pass := &Report{Scenario: "ok.yaml", Verdict: Pass, Summary: "fine"}
	skipped := &Report{Scenario: "later.yaml", Verdict: Skipped, Summary: "skipped: --fail-fast"}
	if err := WriteAll(&ju, FormatJUnit, []*Report{pass, rep, skipped}); err != nil {
		t.Fatal(err)
	}
	suites = junitSuites{}
	if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if c := suites.Suites[0].Cases; suites.Tests != 3 || suites.Failures != 1 || suites.Skipped != 1 || len(c) != 3 || c[2].Skipped == nil || c[0].Name != "ok.yaml" {
		t.Fatalf("junit:\n%s", ju.String())
	}
	js.Reset()
	if err := WriteAll(&js, FormatJSON, []*Report{pass, rep}); err != nil {
		t.Fatal(err)
	}
	var multi MultiReport
	if err := json.Unmarshal(js.Bytes(), &multi); err != nil || multi.Verdict != Fail || len(multi.Reports) != 2 {
		t.Fatalf("%v %s", err, js.String())
	}
}

// A cluster with SASL: the harness and the consumer (through
// EVTOOL_SASL_*) authenticate; a wrong password is a clear error that does
// not print the password.
func TestReplaySASL(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	b, err := kafka.StartBroker(kafka.BrokerConfig{SASLUsers: []kafka.SASLUser{{Mechanism: "SCRAM-SHA-256", User: "qa", Password: "s3cret-pw"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The passing replay keeps the usual settle bound (a loaded machine
	// took more than 3 s to settle); only the wrong password's replay has
	// a short one, which bounds its wait for Kafka to be reachable.
	text := scenarioText(t, "correct", testEvents(t, 60), "chaos: {seed: 1, duplicate: {rate: 0.3}}\n")
	cc := kafka.ClientConfig{SASLMechanism: "SCRAM-SHA-256", SASLUser: "qa", SASLPassword: "s3cret-pw"}
	rep, err := replayText(t, text, Options{Brokers: b.Addrs(), Client: cc})
	if err != nil || rep.Verdict != Pass {
		t.Fatalf("%v %+v", err, rep)
	}
	var out bytes.Buffer
	_ = WriteJSON(&out, rep)
	_ = WriteText(&out, rep)
	if strings.Contains(out.String(), "s3cret-pw") {
		t.Fatal("the report prints the password")
	}
	cc.SASLPassword = "wrong-pw"
	_, err = replayText(t, strings.Replace(text, "settle_timeout: "+settleHangBound, "settle_timeout: 3s", 1), Options{Brokers: b.Addrs(), Client: cc})
	if err == nil || !strings.Contains(err.Error(), "cannot reach Kafka") || strings.Contains(err.Error(), "wrong-pw") {
		t.Fatalf("err = %v", err)
	}
}

// TLS and SASL settings reach the consumer's environment.
func TestClientEnv(t *testing.T) {
	h := &Harness{opts: Options{Client: kafka.ClientConfig{TLSCAFile: "ca.pem", TLSServerName: "k", SASLMechanism: "PLAIN", SASLUser: "u", SASLPassword: "p"}}}
	got := strings.Join(h.clientEnv(), " ")
	if got != "EVTOOL_TLS=1 EVTOOL_TLS_CA=ca.pem EVTOOL_TLS_SERVER_NAME=k EVTOOL_SASL_MECHANISM=PLAIN EVTOOL_SASL_USER=u EVTOOL_SASL_PASSWORD=p" {
		t.Fatalf("env %q", got)
	}
}

// Skew on events whose types have a single version plans nothing: the
// report says so instead of passing silently.
func TestSkewNothingToPlanWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(examplesDir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Contains(line, []byte(`"type":"com.example.order.paid"`)) && b.Len() < 20000 {
			b.Write(line)
		}
	}
	events := filepath.Join(t.TempDir(), "paid.jsonl")
	if err := os.WriteFile(events, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := replayText(t, scenarioText(t, "correct", events, "chaos: {seed: 1, skew: {rate: 1}}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "no skew fault could be planned") }) {
		t.Fatalf("warnings %q", rep.Warnings)
	}
}
