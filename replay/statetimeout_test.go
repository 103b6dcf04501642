package replay

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The limit on a run's final state read scales with the records produced
// unless consumer.state_timeout sets it.
func TestStateTimeout(t *testing.T) {
	hs := StateSpec{HTTP: "http://x/state"}
	cmd := StateSpec{Command: []string{"./state.sh"}}
	tests := []struct {
		name    string
		c       ConsumerSpec
		records int64
		want    time.Duration
	}{
		{"http, nothing produced", ConsumerSpec{State: hs}, 0, 30 * time.Second},
		{"http, 10k", ConsumerSpec{State: hs}, 10_000, 40 * time.Second},
		{"http, 1M", ConsumerSpec{State: hs}, 1_000_000, 1030 * time.Second},
		{"command, 100k", ConsumerSpec{State: cmd}, 100_000, 160 * time.Second},
		{"capped", ConsumerSpec{State: hs}, 1 << 62, maxStateTimeout},
		{"set", ConsumerSpec{State: hs, StateTimeout: 5 * time.Second}, 1_000_000, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.stateTimeout(tt.records); got != tt.want {
				t.Errorf("stateTimeout(%d) = %s, want %s", tt.records, got, tt.want)
			}
		})
	}
}

func TestScenarioStateTimeout(t *testing.T) {
	base := "events: {file: e.jsonl}\nconsumer:\n  run: [c]\n  state: {http: \"http://x/state\"}\n"
	sc, err := ParseScenario("s.yaml", []byte(base+"  state_timeout: 10m\n"))
	if err != nil || sc.Consumer.StateTimeout != 10*time.Minute {
		t.Fatalf("%v %v", err, sc)
	}
	sc, err = ParseScenario("s.yaml", []byte(base))
	if err != nil || sc.Consumer.StateTimeout != 0 {
		t.Fatalf("default: %v %v", err, sc)
	}
	for _, tt := range []struct{ text, want string }{
		{"  state_timeout: soon\n", "s.yaml:5: consumer.state_timeout"},
		{"  state_timeout: 0s\n", "s.yaml:5: consumer.state_timeout: must be positive"},
		{"  state_timeout: 30\n", "s.yaml:5: consumer.state_timeout"},
	} {
		_, err := ParseScenario("s.yaml", []byte(base+tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.text, err, tt.want)
		}
	}
}

// readStateFile honours the limit it is given: a state served after the
// default 30 s would fail, one within the given limit is read.
func TestReadStateFileTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
			io.WriteString(w, `{"n": 1}`)
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	spec := StateSpec{HTTP: srv.URL}
	id := func(s string) string { return s }
	_, _, err := readStateFile(context.Background(), nil, spec, t.TempDir(), nil, id, t.TempDir()+"/s.json", nil, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "no complete answer within 100ms") {
		t.Fatalf("err = %v", err)
	}
	close(release)
	st, _, err := readStateFile(context.Background(), nil, spec, t.TempDir(), nil, id, t.TempDir()+"/s.json", nil, time.Minute)
	if err != nil || st == nil {
		t.Fatalf("%v %v", st, err)
	}
}
