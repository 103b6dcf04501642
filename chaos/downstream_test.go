package chaos

import (
	"strings"
	"testing"
	"time"
)

func TestDownstreamPlan(t *testing.T) {
	cfg := Config{
		Crash:      &CrashConfig{Count: 1},
		Duplicate:  &DuplicateConfig{Rate: 0.3},
		Downstream: map[string]*DownstreamConfig{"email": {Rate: 0.3, Outage: &OutageConfig{Count: 2, Duration: 3 * time.Second}}, "sms": {Rate: 0.1, Kinds: []DownstreamKind{Timeout}}},
	}
	var events []Event
	for i := range 200 {
		events = append(events, Event{ID: "e" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Type: "t"})
	}
	plan, err := Plan(cfg, 7, All(), events)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Plan(cfg, 7, All(), events)
	if len(plan) != len(again) {
		t.Fatalf("not deterministic: %d and %d faults", len(plan), len(again))
	}
	count := map[Kind]int{}
	perEvent := map[string][]Fault{}
	for i, f := range plan {
		if f.Index != i || f != again[i] {
			t.Fatalf("fault %d: %+v / %+v", i, f, again[i])
		}
		count[f.Kind]++
		if f.Kind == Downstream {
			perEvent[f.Downstream+"/"+f.ID] = append(perEvent[f.Downstream+"/"+f.ID], f)
			if f.Downstream == "sms" && f.Answer != Timeout {
				t.Errorf("sms fault of kind %s", f.Answer)
			}
		}
	}
	// Crash first, the two outages next, then the events' faults.
	if plan[0].Kind != Crash || plan[1].Kind != Outage || plan[2].Kind != Outage || plan[1].Downstream != "email" || plan[2].Outage != 2 {
		t.Errorf("plan starts %v %v %v", plan[0], plan[1], plan[2])
	}
	if count[Downstream] < 40 || count[Downstream] > 120 {
		t.Errorf("%d downstream faults over 200 events at rates 0.3 and 0.1", count[Downstream])
	}
	for k, fs := range perEvent {
		for i, f := range fs {
			if f.Attempt != i+1 || f.Attempt > MaxDownstreamAttempt {
				t.Errorf("%s: fault %d is for attempt %d", k, i, f.Attempt)
			}
		}
	}
	// Without the downstream section the other faults keep their indexes
	// but for the outages numbered before them.
	plain := cfg
	plain.Downstream = nil
	base, _ := Plan(plain, 7, All(), events)
	var rest []Fault
	for _, f := range plan {
		if f.Kind != Downstream && f.Kind != Outage {
			rest = append(rest, f)
		}
	}
	if len(rest) != len(base) {
		t.Fatalf("%d other faults, %d without downstream", len(rest), len(base))
	}
	for i := range base {
		if rest[i].Kind != base[i].Kind || rest[i].ID != base[i].ID || rest[i].After != base[i].After {
			t.Fatalf("fault %d changed: %v / %v", i, rest[i], base[i])
		}
	}
	last := plan[len(plan)-1]
	for _, f := range plan {
		if f.Kind == Downstream {
			last = f
		}
	}
	if s := last.String(); !strings.Contains(s, "downstream") || !strings.Contains(s, "attempt") {
		t.Errorf("description %q", s)
	}
	if s := plan[1].String(); !strings.Contains(s, "outage 1 of downstream email") {
		t.Errorf("description %q", s)
	}
	if got := cfg.Kinds(); len(got) != 4 || got[1] != Outage || got[3] != Downstream {
		t.Errorf("kinds %v", got)
	}
}

func TestDownstreamNormalize(t *testing.T) {
	for _, tc := range []struct {
		cfg  DownstreamConfig
		want string
	}{
		{DownstreamConfig{Rate: 0.2}, ""},
		{DownstreamConfig{Rate: 2}, "chaos.downstream.email.rate 2"},
		{DownstreamConfig{Rate: 0.2, Kinds: []DownstreamKind{"404"}}, `"404" is not a downstream fault kind`},
		{DownstreamConfig{Outage: &OutageConfig{Duration: 0}}, "outage.duration 0s"},
		{DownstreamConfig{Outage: &OutageConfig{Count: 101, Duration: time.Second}}, "outage.count 101"},
	} {
		n, err := Config{Downstream: map[string]*DownstreamConfig{"email": &tc.cfg}}.Normalize()
		if tc.want == "" {
			if err != nil || len(n.Downstream["email"].Kinds) != len(DownstreamKinds) {
				t.Errorf("%+v: %v", tc.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
