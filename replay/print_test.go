package replay

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
)

// TestShrunkCrashSaysWhatHappened: a shrunk after-effect crash is
// described as it struck. On the embedded broker the commit is dropped;
// against --brokers the harness can only poll, so the kill comes once the
// commit is stored, as the kill line says, and the fault must not claim
// otherwise.
func TestShrunkCrashSaysWhatHappened(t *testing.T) {
	crash := chaos.Fault{Index: 0, Kind: chaos.Crash, Crash: 1, At: chaos.CrashAfterEffect, Progress: 0.4}
	for _, tc := range []struct {
		brokers     string
		want, never string
	}{
		{"embedded", "before that commit is stored (embedded broker)", "cannot be intercepted"},
		{"127.0.0.1:9092", "once its group's committed records pass 40% of the events and that commit is stored (a real cluster's commits cannot be intercepted)", "before that commit is stored"},
	} {
		rep := &Report{Scenario: "s.yaml", Brokers: tc.brokers, Verdict: Fail, Summary: "the chaos state differs",
			Reproduce: "evtool replay s.yaml --seed 1", NearFaults: []chaos.Fault{crash},
			Comparison: &Comparison{Equal: false}}
		var near bytes.Buffer
		if err := WriteText(&near, rep); err != nil {
			t.Fatal(err)
		}
		rep.Shrink = &ShrinkReport{Budget: 30, Runs: 2, From: 3, Minimal: true, Faults: []chaos.Fault{crash}, Reproduce: "evtool replay s.yaml --seed 1 --faults 0"}
		var shrunk bytes.Buffer
		if err := WriteText(&shrunk, rep); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"near faults": near.String(), "shrunk faults": shrunk.String()} {
			if !strings.Contains(out, tc.want) || strings.Contains(out, tc.never) {
				t.Errorf("brokers %s, %s: want %q, never %q:\n%s", tc.brokers, name, tc.want, tc.never, out)
			}
		}
	}
}

// TestReproduceKeepsTheClientFlags: a reproduce line replays against the
// same cluster with the same client settings (a kafkajs consumer that
// cannot read --compression snappy fails only with it), never with the
// SASL password.
func TestReproduceKeepsTheClientFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"embedded", Options{}, "evtool replay s.yaml --seed 7 --faults 1,2"},
		{"compression", Options{Client: kafka.ClientConfig{Compression: "snappy"}}, "evtool replay s.yaml --seed 7 --faults 1,2 --compression snappy"},
		{"cluster", Options{Brokers: []string{"k1:9092", "k2:9092"}, Client: kafka.ClientConfig{
			TLS: true, TLSCAFile: "ca dir/ca.pem", TLSCertFile: "c.pem", TLSKeyFile: "k.pem", TLSServerName: "kafka", TLSInsecure: true,
			SASLMechanism: "SCRAM-SHA-256", SASLUser: "evtool", SASLPassword: "secret"}},
			"evtool replay s.yaml --seed 7 --faults 1,2 --brokers k1:9092,k2:9092 --tls --tls-ca 'ca dir/ca.pem' --tls-cert c.pem --tls-key k.pem --tls-server-name kafka --tls-insecure --sasl-mechanism SCRAM-SHA-256 --sasl-user evtool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Command = "evtool replay s.yaml"
			h := &Harness{opts: tc.opts}
			if got := h.reproduce(7, chaos.Only(1, 2)); got != tc.want {
				t.Errorf("reproduce =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestNearFaultsAllReplayed: the "only the faults near the differences"
// line replays every applied fault of the keys near the differences, not
// the first maxNearFaults shown: the fault that breaks the key may come
// after them, and a line without it replays and passes.
func TestNearFaultsAllReplayed(t *testing.T) {
	ch := &RunResult{}
	ch.Faults = append(ch.Faults, chaos.Fault{Index: 0, Kind: chaos.Crash, Crash: 1})
	for i := 1; i <= maxNearFaults+10; i++ {
		ch.Faults = append(ch.Faults, chaos.Fault{Index: i, Kind: chaos.Duplicate, Event: chaos.Event{Key: "k1", ID: fmt.Sprint("e", i)}})
		ch.Faults = append(ch.Faults, chaos.Fault{Index: 100 + i, Kind: chaos.Duplicate, Event: chaos.Event{Key: "other", ID: fmt.Sprint("o", i)}})
	}
	near, idx, err := (&Harness{}).nearFaults(context.Background(), ch, []string{"k1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(near) != maxNearFaults {
		t.Errorf("%d faults shown, want %d", len(near), maxNearFaults)
	}
	want := []int{0}
	for i := 1; i <= maxNearFaults+10; i++ {
		want = append(want, i)
	}
	if !slices.Equal(idx, want) {
		t.Errorf("replayed %v\nwant %v", idx, want)
	}
}
