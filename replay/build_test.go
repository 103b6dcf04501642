package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsumerBuild: consumer.build runs once per replay, before the
// first run, with EVTOOL_BUILD, which consumer.run then names; progress
// goes to BuildLog. A failing build stops the replay with its output.
func TestConsumerBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many runs through kfake and child consumers (seconds to minutes on a loaded machine); TestReplayCorrectPasses stands for replay in the short tier")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // buildOutputDir's cache
	count := filepath.Join(t.TempDir(), "builds")
	events := testEvents(t, 30)
	text := `catalog: ` + examplesDir + `
events: {file: ` + events + `}
kafka: {partitions: 3}
consumer:
  build: [sh, -c, 'cp "$$0" "$$EVTOOL_BUILD/consumer" && echo built >> "$$1"', ` + self(t) + `, ` + count + `]
  run: ["${EVTOOL_BUILD}/consumer", -test.run=^$]
  env: {REPLAY_TEST_CONSUMER: correct}
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: ` + settleHangBound + `
  quiet: 150ms
chaos: {seed: 3, duplicate: {rate: 0.2}}
`
	var log bytes.Buffer
	rep, err := replayText(t, text, Options{BuildLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Pass {
		var b bytes.Buffer
		_ = WriteText(&b, rep)
		t.Fatalf("verdict %s:\n%s", rep.Verdict, b.String())
	}
	if len(rep.Runs) < 3 {
		t.Fatalf("%d runs", len(rep.Runs))
	}
	b, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "built\n"); got != 1 {
		t.Errorf("built %d times for %d runs, want once", got, len(rep.Runs))
	}
	for _, want := range []string{"evtool replay: building the consumer (consumer.build, once per replay, outside the settle clock): sh -c ", "evtool replay: consumer built in "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("build log lacks %q:\n%s", want, log.String())
		}
	}

	failing := strings.Replace(text, `build: [sh, -c, 'cp "$$0" "$$EVTOOL_BUILD/consumer" && echo built >> "$$1"', `+self(t)+`, `+count+`]`,
		`build: [sh, -c, 'echo "cannot compile: x.go:3: undefined" >&2; exit 3']`, 1)
	if failing == text {
		t.Fatal("no build line replaced")
	}
	_, err = replayText(t, failing, Options{})
	if err == nil || !strings.Contains(err.Error(), "consumer.build (sh -c ") || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "cannot compile: x.go:3: undefined") {
		t.Fatalf("err = %v", err)
	}
}
