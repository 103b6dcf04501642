package replay

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/golden"
)

var updateJUnit = flag.Bool("update", false, "rewrite the golden files in testdata/junit")

// TestJUnitGolden: the JUnit report of scenarios of every verdict, one
// test case each, with times, the failure's type and the text report.
func TestJUnitGolden(t *testing.T) {
	reps := []*Report{
		{Scenario: "ok.yaml", Verdict: Pass, Summary: "PASS: 3 events, same outputs", Brokers: "embedded", Partitions: 3, Mode: "at-least-once", Chaos: "none", Faults: "all", Duration: Duration(1500 * time.Millisecond)},
		{Scenario: "dup.yaml", Verdict: Fail, Summary: "FAIL: outputs differ <&> \"quoted\"", Brokers: "embedded", Partitions: 1, Mode: "at-least-once", Chaos: "duplicate", Faults: "all", Seed: 7,
			Reproduce: "evtool replay dup.yaml --seed 7", Duration: Duration(2250 * time.Millisecond)},
		{Scenario: "flaky.yaml", Verdict: Nondeterministic, Summary: "NONDETERMINISTIC: the clean runs differ", Brokers: "embedded", Mode: "at-least-once", Faults: "all", Duration: Duration(time.Second)},
		{Scenario: "broken.yaml", Verdict: Error, Summary: "ERROR: the consumer did not start", Error: "the consumer did not start\nexit status 1", Brokers: "localhost:9092", Mode: "at-least-once", Faults: "all"},
		{Scenario: "later.yaml", Verdict: Skipped, Summary: "skipped: --fail-fast", Faults: "all"},
	}
	for _, tc := range []struct {
		name string
		reps []*Report
	}{
		{"one", reps[1:2]},
		{"all", reps},
		{"pass", reps[:1]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteAll(&buf, FormatJUnit, tc.reps); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "junit", tc.name+".xml"), buf.Bytes(), *updateJUnit)
		})
	}
}

// junitSuites decodes a JUnit report as a CI tool reads it.
type junitSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Text string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}
