// Package verify is evtool verify: replay's mirror for producers. It starts
// the producer under test, drives its workload (HTTP requests retried with
// their Idempotency-Key, or the producer's own command), injects faults
// around its produce requests on the embedded broker (crashes before and
// after the append, produce errors, rollbacks, parallel relays), and judges
// what reached the topic against the facts the producer says it committed.
// Plans are seeded, listed and shrunk with the chaos package; processes and
// state probes are replay's.
package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/evtool/evtool/internal/yamldoc"
	"github.com/evtool/evtool/metaschema"
	"github.com/evtool/evtool/replay"
)

// MaxScenarioSize bounds a scenario file.
const MaxScenarioSize = 1 << 20

// Scenario is a parsed verify scenario.
type Scenario struct {
	// File is the scenario's path as given; Dir its directory.
	File, Dir string
	// Catalog is the directory holding evtool.yaml.
	Catalog    string
	Brokers    []string
	Partitions int
	Producer   ProducerSpec
	Workload   WorkloadSpec
	Chaos      ChaosSpec
	Expect     ExpectSpec
}

// ProducerSpec is the producer section.
type ProducerSpec struct {
	Run []string
	Dir string
	// Env holds extra variables, sorted by name.
	Env           []replay.EnvVar
	State         replay.StateSpec
	ReadyTimeout  time.Duration
	SettleTimeout time.Duration
	Quiet         time.Duration
}

// WorkloadSpec is the workload section: Requests (a JSONL file, read) or
// Command.
type WorkloadSpec struct {
	RequestsFile string
	Requests     []Request
	Command      []string
	// Steps is how many produce requests a command workload's plan spreads
	// its faults over.
	Steps   int
	Timeout time.Duration
}

// ChaosSpec is the chaos section.
type ChaosSpec struct {
	Seed          *uint64
	Crashes       int
	CrashAt       string // before-append, after-append, random, or "" (alternate)
	ProduceErrors float64
	ErrorKinds    []string
	Relays        int
	Rollback      float64
}

// ExpectSpec is the expect section.
type ExpectSpec struct {
	Facts         *int
	DuplicatesMax *int
}

// The crash phases and produce error kinds.
const (
	BeforeAppend = "before-append"
	AfterAppend  = "after-append"
	Random       = "random"

	ErrRetriable  = "retriable"
	ErrDisconnect = "disconnect"
	ErrLostAck    = "lost-ack"
)

// ErrorKinds lists every produce error kind, the default.
var ErrorKinds = []string{ErrRetriable, ErrDisconnect, ErrLostAck}

type scenarioYAML struct {
	Catalog string `yaml:"catalog"`
	Kafka   struct {
		Brokers    []string `yaml:"brokers"`
		Partitions int      `yaml:"partitions"`
	} `yaml:"kafka"`
	Producer struct {
		Run   []string          `yaml:"run"`
		Dir   string            `yaml:"dir"`
		Env   map[string]string `yaml:"env"`
		State struct {
			HTTP    string   `yaml:"http"`
			Command []string `yaml:"command"`
		} `yaml:"state"`
		ReadyTimeout  string `yaml:"ready_timeout"`
		SettleTimeout string `yaml:"settle_timeout"`
		Quiet         string `yaml:"quiet"`
	} `yaml:"producer"`
	Workload struct {
		Requests string   `yaml:"requests"`
		Command  []string `yaml:"command"`
		Steps    int      `yaml:"steps"`
		Timeout  string   `yaml:"timeout"`
	} `yaml:"workload"`
	Chaos struct {
		Seed  *uint64 `yaml:"seed"`
		Crash *struct {
			Count int    `yaml:"count"`
			At    string `yaml:"at"`
		} `yaml:"crash"`
		ProduceErrors *struct {
			Rate  float64  `yaml:"rate"`
			Kinds []string `yaml:"kinds"`
		} `yaml:"produce_errors"`
		Relays   int `yaml:"relays"`
		Rollback *struct {
			Rate float64 `yaml:"rate"`
		} `yaml:"rollback"`
	} `yaml:"chaos"`
	Expect struct {
		Facts         *int `yaml:"facts"`
		DuplicatesMax *int `yaml:"duplicates_max"`
	} `yaml:"expect"`
}

// ScenarioError lists the problems of a scenario file, each with its line.
type ScenarioError = replay.ScenarioError

// LoadScenario reads and parses a scenario file and the requests file it
// names.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read scenario: %w", err)
	}
	sc, err := ParseScenario(path, data)
	if err != nil {
		return nil, err
	}
	if sc.Workload.RequestsFile != "" {
		f, err := os.Open(sc.Workload.RequestsFile)
		if err != nil {
			return nil, fmt.Errorf("%s: workload.requests: %w", path, err)
		}
		defer f.Close()
		if sc.Workload.Requests, err = ParseRequests(sc.Workload.RequestsFile, f); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// ParseScenario parses a scenario; path names it in messages and anchors
// its relative paths. It reads no other file.
func ParseScenario(path string, data []byte) (*Scenario, error) {
	fail := func(probs ...yamldoc.Problem) error { return &ScenarioError{File: path, Problems: probs} }
	if len(data) > MaxScenarioSize {
		return nil, fail(yamldoc.Problem{Line: 1, Message: fmt.Sprintf("file is larger than %d bytes", MaxScenarioSize)})
	}
	doc, prob := yamldoc.Parse(data)
	if prob != nil {
		prob.Message = "malformed YAML: " + prob.Message
		return nil, fail(*prob)
	}
	meta, err := metaschema.Compile(metaschema.Verify)
	if err != nil {
		return nil, err
	}
	if probs := doc.Check(meta); len(probs) > 0 {
		return nil, fail(probs...)
	}
	var y scenarioYAML
	if prob := doc.Decode(&y); prob != nil {
		return nil, fail(*prob)
	}
	problem := func(ptr, format string, args ...any) error {
		return fail(yamldoc.Problem{Line: doc.Line(ptr), Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	sc := &Scenario{File: path, Dir: dir, Catalog: rel(y.Catalog), Brokers: y.Kafka.Brokers, Partitions: y.Kafka.Partitions}
	if sc.Catalog == "" {
		sc.Catalog = dir
	}
	if sc.Partitions == 0 {
		sc.Partitions = 3
	}
	p := &sc.Producer
	p.Run, p.Dir = y.Producer.Run, rel(y.Producer.Dir)
	if p.Dir == "" {
		p.Dir = dir
	}
	for k, v := range y.Producer.Env {
		p.Env = append(p.Env, replay.EnvVar{Name: k, Value: v})
	}
	sort.Slice(p.Env, func(i, j int) bool { return p.Env[i].Name < p.Env[j].Name })
	p.State = replay.StateSpec{HTTP: y.Producer.State.HTTP, Command: y.Producer.State.Command}
	durations := []struct {
		ptr, text string
		def       time.Duration
		out       *time.Duration
	}{
		{"/producer/ready_timeout", y.Producer.ReadyTimeout, 60 * time.Second, &p.ReadyTimeout},
		{"/producer/settle_timeout", y.Producer.SettleTimeout, 30 * time.Second, &p.SettleTimeout},
		{"/producer/quiet", y.Producer.Quiet, time.Second, &p.Quiet},
		{"/workload/timeout", y.Workload.Timeout, 5 * time.Second, &sc.Workload.Timeout},
	}
	for _, d := range durations {
		*d.out = d.def
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return nil, problem(d.ptr, "%q is not a positive duration (e.g. 500ms, 30s)", d.text)
		}
		*d.out = v
	}
	w := &sc.Workload
	switch {
	case y.Workload.Requests != "" && len(y.Workload.Command) > 0:
		return nil, problem("/workload", "give requests or command, not both")
	case y.Workload.Requests != "":
		w.RequestsFile = rel(y.Workload.Requests)
		if y.Workload.Steps != 0 {
			return nil, problem("/workload/steps", "steps is for a command workload: a requests workload has one step per request")
		}
	case len(y.Workload.Command) > 0:
		w.Command = y.Workload.Command
		w.Steps = y.Workload.Steps
		if w.Steps == 0 {
			w.Steps = 20
		}
	default:
		return nil, problem("/workload", "give requests (a JSONL file) or command")
	}
	c := &sc.Chaos
	c.Seed, c.Relays = y.Chaos.Seed, y.Chaos.Relays
	if c.Relays == 0 {
		c.Relays = 1
	}
	if cr := y.Chaos.Crash; cr != nil {
		c.Crashes, c.CrashAt = cr.Count, cr.At
	}
	if pe := y.Chaos.ProduceErrors; pe != nil {
		c.ProduceErrors, c.ErrorKinds = pe.Rate, pe.Kinds
		if len(c.ErrorKinds) == 0 {
			c.ErrorKinds = ErrorKinds
		}
	}
	if rb := y.Chaos.Rollback; rb != nil {
		c.Rollback = rb.Rate
		if len(w.Command) > 0 && rb.Rate > 0 {
			return nil, problem("/chaos/rollback", "rollback marks workload requests: it needs workload.requests")
		}
	}
	sc.Expect = ExpectSpec{Facts: y.Expect.Facts, DuplicatesMax: y.Expect.DuplicatesMax}
	return sc, nil
}

// Steps is the number of workload steps the plan spreads faults over.
func (s *Scenario) Steps() int {
	if len(s.Workload.Command) > 0 {
		return s.Workload.Steps
	}
	return len(s.Workload.Requests)
}

// String names the scenario in reports: its path as given.
func (s *Scenario) String() string { return s.File }
