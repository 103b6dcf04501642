package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/downstream"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/yamldoc"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/metaschema"
)

// MaxScenarioSize bounds a scenario file.
const MaxScenarioSize = 1 << 20

// Defaults of the optional scenario settings.
const (
	DefaultPartitions    = 3
	DefaultSettleTimeout = 60 * time.Second
	DefaultQuiet         = time.Second
	DefaultGenerateKeys  = 10
	DefaultGenerateSeed  = 1
)

// Scenario is a loaded scenario file, its paths resolved against the
// file's directory.
type Scenario struct {
	// File is the scenario's path as given; Dir its directory.
	File string
	Dir  string
	// Catalog is the directory holding evtool.yaml.
	Catalog  string
	Events   EventsSpec
	Kafka    KafkaSpec
	Consumer ConsumerSpec
	// Chaos is normalized (defaults filled in).
	Chaos chaos.Config
	// Seed is chaos.seed, nil when the scenario sets none.
	Seed   *uint64
	Expect []Expectation
	// DLQ is expect.dlq, nil when the scenario sets none.
	DLQ *DLQSpec
	// Baseline is expect.baseline.
	Baseline BaselineSpec
	// Downstream holds the downstream stand-ins, sorted by name.
	Downstream []DownstreamSpec

	doc *yamldoc.Doc
}

// DownstreamSpec is one downstream.<name> with what expect says of it.
type DownstreamSpec struct {
	Config downstream.Config
	Expect downstream.Expect
	// Env is the variable the consumer finds its URL in.
	Env string
}

// DownstreamEnv names the variable holding a stand-in's URL:
// EVTOOL_DOWNSTREAM_ and the name upper-cased, - and . as _.
func DownstreamEnv(name string) string {
	return "EVTOOL_DOWNSTREAM_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToUpper(name))
}

// EventsSpec says where events come from: File, or Generate.
type EventsSpec struct {
	File     string
	Generate *GenerateSpec
}

// GenerateSpec is events.generate.
type GenerateSpec struct {
	Count int64
	Keys  int
	// Types are type names, optionally pinned to a version ("type@v2").
	Types []string
	Seed  uint64
	// FormatEdges lets format values take every form their format allows
	// (a lower-case t in a date-time, UTC offsets, tagged e-mail
	// addresses); by default they are canonical (sample.Options.Canonical).
	FormatEdges bool
}

// KafkaSpec is the kafka section.
type KafkaSpec struct {
	Brokers    []string
	Topic      string
	Partitions int
	Mode       envelope.Mode
	// Compression is the codec of the batches the harness produces (a
	// kafka.Compressions name; default kafka.CompressionNone).
	Compression string
}

// ConsumerSpec is the consumer section.
type ConsumerSpec struct {
	// Build is run once per replay before the first run, outside the
	// settle clock (see Harness.build); nil: nothing to build.
	Build []string
	Run   []string
	Dir   string
	// Env holds extra variables, sorted by name.
	Env           []EnvVar
	State         StateSpec
	Ignore        []string
	SettleTimeout time.Duration
	Quiet         time.Duration
	// StateTimeout is consumer.state_timeout, the limit on reading the
	// state once the group has settled; 0: scaled with the run's records
	// (see Harness.stateTimeout).
	StateTimeout time.Duration
	// Instances is the number of processes of Run in the group (default
	// 1).
	Instances int
	// Contract is consumer.contract, resolved against the scenario's
	// directory ("": no contract run); ContractLine is its line.
	Contract     string
	ContractLine int
}

// EnvVar is one consumer.env entry.
type EnvVar struct{ Name, Value string }

// StateSpec says how to read the consumer's state: HTTP or Command.
type StateSpec struct {
	HTTP    string
	Command []string
}

// Source describes the state source for messages.
func (s StateSpec) Source() string {
	if s.HTTP != "" {
		return "GET " + s.HTTP
	}
	return "state.command " + strings.Join(s.Command, " ")
}

// DLQSpec is expect.dlq: where the consumer dead-letters events and how
// many distinct events must arrive there.
type DLQSpec struct {
	// Topic is expanded with the run's environment (default
	// DefaultDLQTopic).
	Topic string
	// Count is the number of distinct events expected, or CountPoison.
	Count int
	Line  int
}

// BaselineSpec is expect.baseline: what a clean run may do that otherwise
// fails the replay, because a consumer that applies nothing passes every
// chaos run.
type BaselineSpec struct {
	// EmptyOK accepts a baseline state that is empty ({}, [], null) or
	// equals the state before the first event.
	EmptyOK bool
	// DLQ is the number of distinct clean events the baseline run
	// dead-letters (default 0).
	DLQ int
	// Line is expect.baseline's line (0: not set).
	Line int
}

// CountPoison as DLQSpec.Count: every poison event of the run.
const CountPoison = -1

// DefaultDLQTopic is expect.dlq.topic's default: a fresh topic per run.
const DefaultDLQTopic = "${EVTOOL_TOPIC}.dlq"

// Expectation is one expect.state entry: an assertion on the state at
// Pointer. Exactly the set fields are checked.
type Expectation struct {
	Pointer string
	// Equals is the expected value (JSON-compatible, numbers as
	// json.Number); HasEquals tells an expected null from no assertion.
	Equals    any
	HasEquals bool
	Count     *int
	Exists    *bool
	// Line is the entry's line in the scenario.
	Line int
}

// The YAML shape of a scenario; the meta-schema has checked it already.
type scenarioYAML struct {
	Catalog  string       `yaml:"catalog"`
	Events   eventsYAML   `yaml:"events"`
	Kafka    kafkaYAML    `yaml:"kafka"`
	Consumer consumerYAML `yaml:"consumer"`
	Chaos    chaosYAML    `yaml:"chaos"`
	Expect   expectYAML   `yaml:"expect"`
	// Downstream is read in parseDownstream.
	Downstream map[string]downstreamYAML `yaml:"downstream"`
}

type selectorYAML struct {
	Key    string `yaml:"key"`
	Header string `yaml:"header"`
}

type downstreamYAML struct {
	Effect      selectorYAML  `yaml:"effect"`
	Idempotency *selectorYAML `yaml:"idempotency"`
	Answer      struct {
		Status  int               `yaml:"status"`
		Headers map[string]string `yaml:"headers"`
		// body is read from the document's JSON value.
		Body any `yaml:"body"`
	} `yaml:"answer"`
	Terminal *struct {
		When struct {
			Pointer string `yaml:"pointer"`
			Matches string `yaml:"matches"`
		} `yaml:"when"`
		Status int `yaml:"status"`
	} `yaml:"terminal"`
	Limits struct {
		Rate        int `yaml:"rate"`
		Concurrency int `yaml:"concurrency"`
	} `yaml:"limits"`
	Upstream string `yaml:"upstream"`
}

type eventsYAML struct {
	File     string `yaml:"file"`
	Generate *struct {
		Count int64    `yaml:"count"`
		Keys  int      `yaml:"keys"`
		Types []string `yaml:"types"`
		Seed  *uint64  `yaml:"seed"`
		// FormatEdges is GenerateSpec.FormatEdges.
		FormatEdges bool `yaml:"format_edges"`
	} `yaml:"generate"`
}

type kafkaYAML struct {
	Brokers     []string `yaml:"brokers"`
	Topic       string   `yaml:"topic"`
	Partitions  int      `yaml:"partitions"`
	Mode        string   `yaml:"mode"`
	Compression string   `yaml:"compression"`
}

type consumerYAML struct {
	Build []string          `yaml:"build"`
	Run   []string          `yaml:"run"`
	Dir   string            `yaml:"dir"`
	Env   map[string]string `yaml:"env"`
	State struct {
		HTTP    string   `yaml:"http"`
		Command []string `yaml:"command"`
	} `yaml:"state"`
	Ignore        []string `yaml:"ignore"`
	SettleTimeout string   `yaml:"settle_timeout"`
	Quiet         string   `yaml:"quiet"`
	StateTimeout  string   `yaml:"state_timeout"`
	Instances     int      `yaml:"instances"`
	Contract      string   `yaml:"contract"`
}

type chaosYAML struct {
	Seed      *uint64 `yaml:"seed"`
	Duplicate *struct {
		Rate   float64 `yaml:"rate"`
		Max    int     `yaml:"max"`
		Spread int     `yaml:"spread"`
	} `yaml:"duplicate"`
	Reorder *struct {
		Window int     `yaml:"window"`
		Scope  string  `yaml:"scope"`
		Rate   float64 `yaml:"rate"`
	} `yaml:"reorder"`
	Crash *struct {
		Count int    `yaml:"count"`
		At    string `yaml:"at"`
	} `yaml:"crash"`
	Poison *struct {
		Rate  float64  `yaml:"rate"`
		Kinds []string `yaml:"kinds"`
	} `yaml:"poison"`
	Skew *struct {
		Rate float64 `yaml:"rate"`
	} `yaml:"skew"`
	Rebalance *struct {
		Count   int      `yaml:"count"`
		Kinds   []string `yaml:"kinds"`
		Eager   bool     `yaml:"eager"`
		Stall   string   `yaml:"stall"`
		Restart *bool    `yaml:"restart"`
		At      string   `yaml:"at"`
	} `yaml:"rebalance"`
	Downstream map[string]struct {
		Rate   float64  `yaml:"rate"`
		Kinds  []string `yaml:"kinds"`
		Outage *struct {
			Count    int    `yaml:"count"`
			Duration string `yaml:"duration"`
		} `yaml:"outage"`
	} `yaml:"downstream"`
}

type expectYAML struct {
	Baseline *struct {
		Empty string `yaml:"empty"`
		DLQ   int    `yaml:"dlq"`
	} `yaml:"baseline"`
	DLQ *struct {
		Topic string `yaml:"topic"`
		Count any    `yaml:"count"`
	} `yaml:"dlq"`
	State []struct {
		Pointer string `yaml:"pointer"`
		Count   *int   `yaml:"count"`
		Exists  *bool  `yaml:"exists"`
		// equals is read from the document's JSON value, not decoded here.
		Equals any `yaml:"equals"`
	} `yaml:"state"`
	Effects map[string]string `yaml:"effects"`
	Retries map[string]struct {
		MaxAttempts int `yaml:"max_attempts"`
	} `yaml:"retries"`
	EffectsOrder string `yaml:"effects_order"`
}

// ScenarioError reports what is wrong with a scenario file, each problem
// with its line.
type ScenarioError struct {
	File     string
	Problems []yamldoc.Problem
}

func (e *ScenarioError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:%d: ", e.File, p.Line)
		if p.Pointer != "" {
			fmt.Fprintf(&b, "%s: ", pointerAsKeys(p.Pointer))
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// pointerAsKeys renders /consumer/state/http as consumer.state.http, the
// way the docs name scenario keys.
func pointerAsKeys(p string) string {
	toks := jsonpos.Split(p)
	var b strings.Builder
	for i, t := range toks {
		if _, err := strconv.Atoi(t); err == nil {
			fmt.Fprintf(&b, "[%s]", t)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// LoadScenario reads, checks and decodes a scenario file. Every problem is
// reported with its line, in a *ScenarioError; a file that cannot be read
// is a plain error.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read scenario: %w", err)
	}
	return ParseScenario(path, data)
}

// ParseScenario parses a scenario from data; path names it in messages and
// anchors its relative paths. It does not touch the files the scenario
// names (see Scenario.Check).
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
	meta, err := scenarioSchema()
	if err != nil {
		return nil, err
	}
	if probs := doc.Check(meta); len(probs) > 0 {
		var out []yamldoc.Problem
		for _, p := range probs {
			p.Message = friendlyMeta(p)
			if strings.HasPrefix(p.Message, "unknown key ") {
				// Name the mapping that has the key, not the key itself.
				p.Pointer = p.Pointer[:strings.LastIndexByte(p.Pointer, '/')]
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return nil, fail(out...)
	}
	var y scenarioYAML
	if prob := doc.Decode(&y); prob != nil {
		return nil, fail(*prob)
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	s := &Scenario{File: path, Dir: dir, doc: doc}
	var probs []yamldoc.Problem
	bad := func(ptr, format string, args ...any) {
		probs = append(probs, yamldoc.Problem{Line: doc.Line(ptr), Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}

	s.Catalog = rel(y.Catalog)
	if s.Catalog == "" {
		s.Catalog = dir
	}
	if y.Events.File != "" {
		s.Events.File = rel(y.Events.File)
	}
	if g := y.Events.Generate; g != nil {
		gs := &GenerateSpec{Count: g.Count, Keys: g.Keys, Types: g.Types, Seed: DefaultGenerateSeed, FormatEdges: g.FormatEdges}
		if gs.Keys == 0 {
			gs.Keys = DefaultGenerateKeys
		}
		if g.Seed != nil {
			gs.Seed = *g.Seed
		}
		s.Events.Generate = gs
	}

	s.Kafka = KafkaSpec{Brokers: y.Kafka.Brokers, Topic: y.Kafka.Topic, Partitions: y.Kafka.Partitions, Compression: y.Kafka.Compression}
	if s.Kafka.Compression == "" {
		s.Kafka.Compression = kafka.CompressionNone
	}
	if s.Kafka.Partitions == 0 {
		s.Kafka.Partitions = DefaultPartitions
	}
	if y.Kafka.Mode != "" {
		m, err := envelope.ParseMode(y.Kafka.Mode)
		if err != nil {
			bad("/kafka/mode", "%v", err)
		}
		s.Kafka.Mode = m
	}

	c := &s.Consumer
	c.Run = y.Consumer.Run
	c.Build = y.Consumer.Build
	if y.Consumer.Contract != "" {
		c.Contract, c.ContractLine = rel(y.Consumer.Contract), doc.Line("/consumer/contract")
	}
	c.Dir = rel(y.Consumer.Dir)
	if c.Dir == "" {
		c.Dir = dir
	}
	names := make([]string, 0, len(y.Consumer.Env))
	for k := range y.Consumer.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if strings.HasPrefix(k, "EVTOOL_") {
			bad("/consumer/env/"+k, "EVTOOL_* variables are set by the harness for each run; choose another name")
		}
		c.Env = append(c.Env, EnvVar{Name: k, Value: y.Consumer.Env[k]})
	}
	c.State = StateSpec{HTTP: y.Consumer.State.HTTP, Command: y.Consumer.State.Command}
	c.Ignore = y.Consumer.Ignore
	c.SettleTimeout = DefaultSettleTimeout
	c.Quiet = DefaultQuiet
	c.Instances = max(y.Consumer.Instances, 1)
	for _, d := range []struct {
		ptr, text string
		into      *time.Duration
	}{
		{"/consumer/settle_timeout", y.Consumer.SettleTimeout, &c.SettleTimeout},
		{"/consumer/quiet", y.Consumer.Quiet, &c.Quiet},
		{"/consumer/state_timeout", y.Consumer.StateTimeout, &c.StateTimeout},
	} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		switch {
		case err != nil:
			bad(d.ptr, "%q is not a duration (e.g. 500ms, 30s, 2m)", d.text)
		case v <= 0:
			bad(d.ptr, "must be positive")
		default:
			*d.into = v
		}
	}
	if c.Quiet >= c.SettleTimeout {
		bad("/consumer/quiet", "quiet (%s) must be shorter than settle_timeout (%s)", c.Quiet, c.SettleTimeout)
	}

	s.Seed = y.Chaos.Seed
	if d := y.Chaos.Duplicate; d != nil {
		s.Chaos.Duplicate = &chaos.DuplicateConfig{Rate: d.Rate, Max: d.Max, Spread: d.Spread}
	}
	if r := y.Chaos.Reorder; r != nil {
		s.Chaos.Reorder = &chaos.ReorderConfig{Window: r.Window, Scope: chaos.Scope(r.Scope), Rate: r.Rate}
	}
	if k := y.Chaos.Crash; k != nil {
		s.Chaos.Crash = &chaos.CrashConfig{Count: k.Count, At: chaos.CrashAt(k.At)}
	}
	if p := y.Chaos.Poison; p != nil {
		pc := &chaos.PoisonConfig{Rate: p.Rate}
		for _, k := range p.Kinds {
			pc.Kinds = append(pc.Kinds, chaos.PoisonKind(k))
		}
		s.Chaos.Poison = pc
	}
	if k := y.Chaos.Skew; k != nil {
		s.Chaos.Skew = &chaos.SkewConfig{Rate: k.Rate}
	}
	if r := y.Chaos.Rebalance; r != nil {
		rc := &chaos.RebalanceConfig{Count: r.Count, Eager: r.Eager, Restart: r.Restart, At: chaos.CrashAt(r.At)}
		for _, k := range r.Kinds {
			rc.Kinds = append(rc.Kinds, chaos.RebalanceKind(k))
		}
		if r.Stall != "" {
			if v, err := time.ParseDuration(r.Stall); err != nil || v <= 0 {
				bad("/chaos/rebalance/stall", "%q is not a positive duration (e.g. 500ms, 10s)", r.Stall)
			} else if v > 10*time.Minute {
				bad("/chaos/rebalance/stall", "%s: must be at most 10m", v)
			} else {
				rc.Stall = v
			}
		}
		s.Chaos.Rebalance = rc
	}
	s.parseDownstream(&y, bad)
	norm, err := s.Chaos.Normalize()
	if err != nil {
		bad("/chaos", "%v", err)
	}
	s.Chaos = norm

	if d := y.Expect.DLQ; d != nil {
		s.DLQ = &DLQSpec{Topic: d.Topic, Count: CountPoison, Line: doc.Line("/expect/dlq")}
		if s.DLQ.Topic == "" {
			s.DLQ.Topic = DefaultDLQTopic
		}
		if v, ok := lookup(doc.Value(), "/expect/dlq/count"); ok {
			if n, ok := v.(json.Number); ok {
				c, err := n.Int64()
				if err != nil || c > 1<<31 {
					bad("/expect/dlq/count", "%s is too large", n)
				}
				s.DLQ.Count = int(c)
			}
		}
	}
	if b := y.Expect.Baseline; b != nil {
		s.Baseline = BaselineSpec{EmptyOK: b.Empty == "ok", DLQ: b.DLQ, Line: doc.Line("/expect/baseline")}
	}
	for i, e := range y.Expect.State {
		ptr := "/expect/state/" + strconv.Itoa(i)
		x := Expectation{Pointer: e.Pointer, Count: e.Count, Exists: e.Exists, Line: doc.Line(ptr)}
		if v, ok := lookup(doc.Value(), ptr+"/equals"); ok {
			x.Equals, x.HasEquals = v, true
		}
		if x.Exists != nil && !*x.Exists && (x.HasEquals || x.Count != nil) {
			bad(ptr, "exists: false cannot be combined with equals or count")
		}
		s.Expect = append(s.Expect, x)
	}
	if len(probs) > 0 {
		return nil, fail(probs...)
	}
	return s, nil
}

var downstreamName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) }) // and at most 64 bytes, checked apart: a bounded repetition costs start-up time

// parseDownstream reads the downstream section, chaos.downstream and the
// expect keys about stand-ins.
func (s *Scenario) parseDownstream(y *scenarioYAML, bad func(ptr, format string, args ...any)) {
	names := make([]string, 0, len(y.Downstream))
	for n := range y.Downstream {
		names = append(names, n)
	}
	sort.Strings(names)
	envs := map[string]string{}
	for _, name := range names {
		d := y.Downstream[name]
		ptr := "/downstream/" + jsonpos.Escape(name)
		spec := DownstreamSpec{Env: DownstreamEnv(name), Config: downstream.Config{Name: name}}
		if other, ok := envs[spec.Env]; ok {
			bad(ptr, "downstream %s and %s both give the consumer %s: rename one", other, name, spec.Env)
		}
		envs[spec.Env] = name
		if len(name) > 64 || !downstreamName().MatchString(name) {
			bad(ptr, "stand-in name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
		}
		sel := func(p string, y selectorYAML) downstream.Selector {
			if y.Header != "" {
				return downstream.Selector{Header: y.Header}
			}
			if err := downstream.CheckPointer(y.Key); err != nil {
				bad(p+"/key", "%q: %v", y.Key, err)
			}
			return downstream.Selector{Pointer: y.Key}
		}
		c := &spec.Config
		c.Effect = sel(ptr+"/effect", d.Effect)
		if d.Idempotency != nil {
			is := sel(ptr+"/idempotency", *d.Idempotency)
			c.Idempotency = &is
		}
		c.Answer = downstream.Answer{Status: d.Answer.Status, Headers: d.Answer.Headers}
		if v, ok := lookup(s.doc.Value(), ptr+"/answer/body"); ok {
			b, err := json.Marshal(v)
			if err != nil {
				bad(ptr+"/answer/body", "not JSON: %v", err)
			}
			c.Answer.Body = b
		}
		if t := d.Terminal; t != nil {
			if err := downstream.CheckPointer(t.When.Pointer); err != nil {
				bad(ptr+"/terminal/when/pointer", "%q: %v", t.When.Pointer, err)
			}
			re, err := regexp.Compile(t.When.Matches)
			if err != nil {
				bad(ptr+"/terminal/when/matches", "not a regular expression: %v", err)
			}
			c.Terminal = &downstream.Terminal{Pointer: t.When.Pointer, When: re, Status: t.Status}
		}
		c.Limits = downstream.Limits{Rate: d.Limits.Rate, Concurrency: d.Limits.Concurrency}
		if d.Upstream != "" {
			u, err := url.Parse(d.Upstream)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad(ptr+"/upstream", "%q is not an http URL (e.g. http://127.0.0.1:8025)", d.Upstream)
			} else {
				c.Upstream = u
			}
		}
		spec.Expect.OrderPerKey = y.Expect.EffectsOrder == "per-key"
		s.Downstream = append(s.Downstream, spec)
	}
	find := func(ptr, name string) *DownstreamSpec {
		for i := range s.Downstream {
			if s.Downstream[i].Config.Name == name {
				return &s.Downstream[i]
			}
		}
		bad(ptr, "%q is not a stand-in of the downstream section", name)
		return nil
	}
	for name, g := range y.Expect.Effects {
		if d := find("/expect/effects/"+jsonpos.Escape(name), name); d != nil {
			d.Expect.Effects = downstream.Guarantee(g)
		}
	}
	for name, r := range y.Expect.Retries {
		if d := find("/expect/retries/"+jsonpos.Escape(name), name); d != nil {
			d.Expect.MaxAttempts = r.MaxAttempts
		}
	}
	if y.Expect.EffectsOrder != "" && len(s.Downstream) == 0 {
		bad("/expect/effects_order", "there is no downstream section whose effects it could order")
	}
	for name, cd := range y.Chaos.Downstream {
		ptr := "/chaos/downstream/" + jsonpos.Escape(name)
		if find(ptr, name) == nil {
			continue
		}
		dc := &chaos.DownstreamConfig{Rate: cd.Rate}
		for i, k := range cd.Kinds {
			if !slices.Contains(chaos.DownstreamKinds, chaos.DownstreamKind(k)) {
				bad(ptr+"/kinds/"+strconv.Itoa(i), "%q is not a downstream fault kind (use 429, 500, 503, timeout, reset, slow)", k)
				continue
			}
			dc.Kinds = append(dc.Kinds, chaos.DownstreamKind(k))
		}
		if o := cd.Outage; o != nil {
			if v, err := time.ParseDuration(o.Duration); err != nil || v <= 0 || v > 10*time.Minute {
				bad(ptr+"/outage/duration", "%q is not a positive duration of at most 10m (e.g. 3s)", o.Duration)
			} else {
				dc.Outage = &chaos.OutageConfig{Count: o.Count, Duration: v}
			}
		}
		if s.Chaos.Downstream == nil {
			s.Chaos.Downstream = map[string]*chaos.DownstreamConfig{}
		}
		s.Chaos.Downstream[name] = dc
	}
}

var scenarioSchema = sync.OnceValues(func() (*metaschema.Schema, error) { return metaschema.Compile(metaschema.Scenario) })

// Line returns the line of a key of the scenario (a JSON pointer such as
// /consumer/run), for messages about it.
func (s *Scenario) Line(pointer string) int {
	if s.doc == nil {
		return 0
	}
	return s.doc.Line(pointer)
}

// Where renders file:line for a key of the scenario.
func (s *Scenario) Where(pointer string) string {
	if l := s.Line(pointer); l > 0 {
		return fmt.Sprintf("%s:%d", s.File, l)
	}
	return s.File
}

// Check verifies what the scenario names on disk: the events file, the
// catalog and consumer directories. Problems carry the scenario line.
func (s *Scenario) Check() error {
	var probs []yamldoc.Problem
	bad := func(ptr, format string, args ...any) {
		probs = append(probs, yamldoc.Problem{Line: s.Line(ptr), Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	if s.Events.File != "" {
		if info, err := os.Stat(s.Events.File); err != nil {
			bad("/events/file", "events file %s: %v", s.Events.File, pathError(err))
		} else if info.IsDir() {
			bad("/events/file", "events file %s is a directory", s.Events.File)
		}
	}
	if info, err := os.Stat(s.Catalog); err != nil || !info.IsDir() {
		bad("/catalog", "catalog directory %s does not exist", s.Catalog)
	}
	if info, err := os.Stat(s.Consumer.Dir); err != nil || !info.IsDir() {
		bad("/consumer/dir", "consumer directory %s does not exist", s.Consumer.Dir)
	}
	if len(probs) > 0 {
		return &ScenarioError{File: s.File, Problems: probs}
	}
	return nil
}

func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if errors.Is(err, os.ErrNotExist) {
			return "no such file"
		}
		return pe.Err.Error()
	}
	return err.Error()
}

// friendlyMeta rewords the meta-schema's complaints about the keys that
// exclude each other.
func friendlyMeta(p yamldoc.Problem) string {
	switch {
	case p.Pointer == "/events" && (strings.Contains(p.Message, "maxProperties") || strings.Contains(p.Message, "minProperties")):
		return "give exactly one of file or generate"
	case p.Pointer == "/consumer/state" && (strings.Contains(p.Message, "maxProperties") || strings.Contains(p.Message, "minProperties")):
		return "give exactly one of http or command"
	case p.Pointer == "/expect/dlq/count":
		return "want poison (every poison event of the run) or a number of events"
	}
	if name, ok := strings.CutPrefix(p.Message, "property "); ok && strings.HasSuffix(name, " is not allowed (additionalProperties)") {
		return "unknown key " + strings.TrimSuffix(name, " is not allowed (additionalProperties)")
	}
	return p.Message
}

// lookup resolves a JSON pointer in a decoded JSON value.
func lookup(v any, pointer string) (any, bool) {
	for _, tok := range jsonpos.Split(pointer) {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
