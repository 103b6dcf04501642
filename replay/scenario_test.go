package replay

import (
	"encoding/json"
	"errors"
	"github.com/evtool/evtool/internal/fuzzcost"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
)

const fullScenario = `# every key
catalog: cat
events:
  file: data/events.jsonl
kafka:
  brokers: [kafka-1:9092, kafka-2:9092]
  topic: orders
  partitions: 6
  mode: structured
  compression: zstd
consumer:
  run: [go, run, ./consumer, -v]
  dir: svc
  env: {LOG_LEVEL: debug, DSN: "file:${EVTOOL_WORKDIR}/db"}
  state: {http: "http://${EVTOOL_ADDR}/state"}
  ignore: [/updatedAt, /orders/*/seen]
  settle_timeout: 45s
  quiet: 250ms
chaos:
  seed: 42
  duplicate: {rate: 0.2, max: 3, spread: 8}
  reorder: {window: 16, scope: partition, rate: 0.25}
  crash: {count: 3, at: random}
  poison: {rate: 0.05, kinds: [undecodable, future-version]}
  skew: {rate: 0.5}
expect:
  dlq: {topic: "${EVTOOL_TOPIC}-dead", count: poison}
  state:
    - {pointer: /orders, count: 50}
    - {pointer: /total, equals: 12.50}
    - {pointer: /deleted, exists: false}
    - {pointer: /nothing, equals: null}
`

func TestParseScenario(t *testing.T) {
	sc, err := ParseScenario("dir/scenario.yaml", []byte(fullScenario))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Catalog != filepath.Join("dir", "cat") || sc.Events.File != filepath.Join("dir", "data/events.jsonl") || sc.Consumer.Dir != filepath.Join("dir", "svc") {
		t.Errorf("paths not relative to the scenario: %q %q %q", sc.Catalog, sc.Events.File, sc.Consumer.Dir)
	}
	if k := sc.Kafka; strings.Join(k.Brokers, ",") != "kafka-1:9092,kafka-2:9092" || k.Topic != "orders" || k.Partitions != 6 || k.Mode != envelope.ModeStructured || k.Compression != "zstd" {
		t.Errorf("kafka: %+v", k)
	}
	c := sc.Consumer
	if strings.Join(c.Run, " ") != "go run ./consumer -v" || c.State.HTTP != "http://${EVTOOL_ADDR}/state" || c.SettleTimeout != 45*time.Second || c.Quiet != 250*time.Millisecond {
		t.Errorf("consumer: %+v", c)
	}
	if len(c.Env) != 2 || c.Env[0].Name != "DSN" || c.Env[1] != (EnvVar{"LOG_LEVEL", "debug"}) {
		t.Errorf("env not sorted: %+v", c.Env)
	}
	if sc.Seed == nil || *sc.Seed != 42 {
		t.Errorf("seed %v", sc.Seed)
	}
	if d := sc.Chaos.Duplicate; d == nil || d.Rate != 0.2 || d.Max != 3 || d.Spread != 8 {
		t.Errorf("duplicate %+v", d)
	}
	if r := sc.Chaos.Reorder; r == nil || r.Window != 16 || r.Scope != chaos.ScopePartition || r.Rate != 0.25 {
		t.Errorf("reorder %+v", r)
	}
	if k := sc.Chaos.Crash; k == nil || k.Count != 3 || k.At != chaos.CrashRandom {
		t.Errorf("crash %+v", k)
	}
	if p := sc.Chaos.Poison; p == nil || p.Rate != 0.05 || len(p.Kinds) != 2 || p.Kinds[1] != chaos.FutureVersion {
		t.Errorf("poison %+v", p)
	}
	if k := sc.Chaos.Skew; k == nil || k.Rate != 0.5 {
		t.Errorf("skew %+v", k)
	}
	if d := sc.DLQ; d == nil || d.Topic != "${EVTOOL_TOPIC}-dead" || d.Count != CountPoison || d.Line != 27 {
		t.Errorf("dlq %+v", d)
	}
	if len(sc.Expect) != 4 || *sc.Expect[0].Count != 50 || sc.Expect[1].Equals != json.Number("12.5") || !sc.Expect[3].HasEquals || sc.Expect[3].Equals != nil || *sc.Expect[2].Exists {
		t.Errorf("expect %+v", sc.Expect)
	}
	if sc.Expect[1].Line != 30 {
		t.Errorf("expect line %d", sc.Expect[1].Line)
	}
}

func TestScenarioDefaults(t *testing.T) {
	sc, err := ParseScenario("s.yaml", []byte(`events: {generate: {count: 10}}
consumer: {run: [./c], state: {command: [./c, state]}}
chaos: {reorder: {window: 4}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Catalog != "." || sc.Consumer.Dir != "." || sc.Kafka.Partitions != 3 || sc.Kafka.Mode != envelope.ModeBinary || sc.Kafka.Compression != "none" ||
		sc.Consumer.SettleTimeout != DefaultSettleTimeout || sc.Consumer.Quiet != DefaultQuiet || sc.Seed != nil {
		t.Errorf("defaults: %+v", sc)
	}
	if g := sc.Events.Generate; g == nil || g.Count != 10 || g.Keys != 10 || g.Seed != 1 {
		t.Errorf("generate %+v", g)
	}
	if r := sc.Chaos.Reorder; r.Scope != chaos.ScopeKey || r.Rate != chaos.DefaultReorderRate || sc.Chaos.Duplicate != nil {
		t.Errorf("chaos %+v", sc.Chaos)
	}
	if sc.DLQ != nil || sc.Chaos.Crash != nil {
		t.Errorf("dlq %+v, crash %+v", sc.DLQ, sc.Chaos.Crash)
	}
	sc, err = ParseScenario("s.yaml", []byte(`events: {generate: {count: 10}}
consumer: {run: [./c], state: {command: [./c, state]}}
chaos: {crash: {}, poison: {rate: 0.1}}
expect: {dlq: {}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if k, p, d := sc.Chaos.Crash, sc.Chaos.Poison, sc.DLQ; k.Count != 1 || k.At != chaos.CrashAfterEffect || len(p.Kinds) != 4 || d.Topic != DefaultDLQTopic || d.Count != CountPoison {
		t.Errorf("defaults: %+v %+v %+v", k, p, d)
	}
	sc, err = ParseScenario("s.yaml", []byte("events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nexpect: {dlq: {count: 0}}\n"))
	if err != nil || sc.DLQ.Count != 0 || sc.Baseline != (BaselineSpec{}) {
		t.Fatalf("%v %+v", err, sc)
	}
	sc, err = ParseScenario("s.yaml", []byte("events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nexpect:\n  baseline: {empty: ok, dlq: 3}\n"))
	if err != nil || sc.Baseline != (BaselineSpec{EmptyOK: true, DLQ: 3, Line: 4}) {
		t.Fatalf("%v %+v", err, sc.Baseline)
	}
}

func TestScenarioErrors(t *testing.T) {
	base := "events: {file: e.jsonl}\nconsumer: {run: [c], state: {http: \"http://x/state\"}}\n"
	tests := []struct{ name, text, want string }{
		{"unknown key", base + "chaos:\n  duplicate: {rate: 0.1}\n  crashes: 2\n", "s.yaml:5: chaos: unknown key \"crashes\""},
		{"unknown nested key", "events: {file: e.jsonl}\nconsumer:\n  run: [c]\n  state: {http: \"http://x\"}\n  retries: 3\n", "s.yaml:5: consumer: unknown key \"retries\""},
		{"bad rate", base + "chaos:\n  duplicate: {rate: 1.5}\n", "s.yaml:4: chaos.duplicate.rate"},
		{"bad duration", base[:len(base)-2] + ", settle_timeout: soon}\n", "consumer.settle_timeout"},
		{"zero duration", base[:len(base)-2] + ", quiet: 0s}\n", "consumer.quiet: must be positive"},
		{"quiet too long", base[:len(base)-2] + ", quiet: 2m, settle_timeout: 1m}\n", "quiet (2m0s) must be shorter than settle_timeout (1m0s)"},
		{"bad mode", "kafka: {mode: avro}\n" + base, "s.yaml:1: kafka.mode"},
		{"bad compression", "kafka:\n  compression: brotli\n" + base, "s.yaml:2: kafka.compression"},
		{"both sources", "events: {file: e.jsonl, generate: {count: 3}}\nconsumer: {run: [c], state: {http: \"http://x\"}}\n", "s.yaml:1: events"},
		{"no source", "events: {}\nconsumer: {run: [c], state: {http: \"http://x\"}}\n", "s.yaml:1: events"},
		{"two states", "events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\", command: [c]}}\n", "consumer.state"},
		{"empty run", "events: {file: e}\nconsumer: {run: [], state: {http: \"http://x\"}}\n", "consumer.run"},
		{"run as string", "events: {file: e}\nconsumer: {run: go run ., state: {http: \"http://x\"}}\n", "consumer.run"},
		{"reserved env", base[:len(base)-2] + ", env: {EVTOOL_TOPIC: x}}\n", "EVTOOL_* variables are set by the harness"},
		{"bad scope", base + "chaos: {reorder: {window: 3, scope: cluster}}\n", "chaos.reorder.scope"},
		{"bad crash at", base + "chaos:\n  crash: {at: never}\n", "s.yaml:4: chaos.crash.at"},
		{"too many crashes", base + "chaos: {crash: {count: 1000}}\n", "chaos.crash.count"},
		{"bad poison kind", base + "chaos: {poison: {rate: 0.1, kinds: [spicy]}}\n", "chaos.poison.kinds[0]"},
		{"poison without rate", base + "chaos: {poison: {kinds: [undecodable]}}\n", "chaos.poison: missing property 'rate'"},
		{"bad skew rate", base + "chaos: {skew: {rate: 2}}\n", "chaos.skew.rate"},
		{"bad rebalance kind", base + "chaos: {rebalance: {kinds: [shuffle]}}\n", "chaos.rebalance.kinds[0]"},
		{"bad rebalance at", base + "chaos: {rebalance: {at: after-commit}}\n", "chaos.rebalance.at"},
		{"bad rebalance stall", base + "chaos:\n  rebalance: {stall: soon}\n", "s.yaml:4: chaos.rebalance.stall"},
		{"long rebalance stall", base + "chaos:\n  seed: 1\n  rebalance: {stall: 11m}\n", "s.yaml:5: chaos.rebalance.stall: 11m0s: must be at most 10m"},
		{"zero instances", base[:len(base)-2] + ", instances: 0}\n", "consumer.instances"},
		{"too many instances", base[:len(base)-2] + ", instances: 99}\n", "consumer.instances"},
		{"bad baseline empty", base + "expect:\n  baseline: {empty: yes}\n", "s.yaml:4: expect.baseline.empty"},
		{"negative baseline dlq", base + "expect: {baseline: {dlq: -1}}\n", "expect.baseline.dlq"},
		{"unknown baseline key", base + "expect: {baseline: {state: ok}}\n", "expect.baseline: unknown key \"state\""},
		{"bad dlq count", base + "expect: {dlq: {count: some}}\n", "expect.dlq.count: want poison"},
		{"negative dlq count", base + "expect: {dlq: {count: -1}}\n", "expect.dlq.count: want poison"},
		{"unknown dlq key", base + "expect: {dlq: {topic: x, headers: [a]}}\n", "expect.dlq: unknown key \"headers\""},
		{"bad pointer", base + "consumer2: 1\n", "s.yaml:3: unknown key \"consumer2\""},
		{"missing consumer", "events: {file: e}\n", "consumer"},
		{"exists false with equals", base + "expect: {state: [{pointer: /a, exists: false, equals: 1}]}\n", "exists: false cannot be combined"},
		{"malformed", "events: [\n", "malformed YAML"},
		{"empty", "", "empty document"},
		{"duplicate key", base + "events: {file: f}\n", `key "events" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("s.yaml", []byte(tt.text))
			var se *ScenarioError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a ScenarioError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestScenarioCheck(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	sc, err := ParseScenario(p, []byte("catalog: nocat\nevents:\n  file: missing.jsonl\nconsumer: {run: [c], dir: nodir, state: {http: \"http://x\"}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = sc.Check()
	for _, want := range []string{
		p + ":3: events.file: events file " + filepath.Join(dir, "missing.jsonl") + ": no such file",
		p + ":1: catalog: catalog directory " + filepath.Join(dir, "nocat") + " does not exist",
		"consumer.dir: consumer directory",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	}
}

func TestLoadScenarioMissing(t *testing.T) {
	if _, err := LoadScenario(filepath.Join(t.TempDir(), "nope.yaml")); err == nil || !strings.Contains(err.Error(), "cannot read scenario") {
		t.Fatalf("err = %v", err)
	}
}

func TestExampleScenariosLoad(t *testing.T) {
	for _, name := range []string{"replay.yaml", "replay-naive.yaml", "replay-groups.yaml"} {
		sc, err := LoadScenario(filepath.Join(examplesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Check(); err != nil {
			t.Fatal(err)
		}
	}
}

// fuzzScenarioSeeds are small valid scenarios, one group of keys each:
// the fuzzer minimises every input that finds new coverage, and a seed of
// a kilobyte (fullScenario, the example) kept it minimising instead of
// fuzzing (8 executions in a minute).
var fuzzScenarioSeeds = []string{
	"events: {generate: {count: 10}}\nconsumer: {run: [./c], state: {command: [./c, state]}}\n",
	"catalog: c\nevents: {file: e}\nkafka: {brokers: [k:1], topic: t, partitions: 6, mode: structured}\nconsumer: {run: [c], state: {http: \"http://x\"}}\n",
	"events: {file: e}\nconsumer: {run: [c, -v], dir: d, env: {A: \"${EVTOOL_WORKDIR}\"}, state: {http: \"http://x\"}, ignore: [/a, /b/*/c], settle_timeout: 45s, quiet: 250ms}\n",
	"events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nchaos: {seed: 4, duplicate: {rate: 0.2, max: 3, spread: 8}, reorder: {window: 16, scope: partition, rate: 0.25}}\n",
	"events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nchaos: {crash: {count: 2, at: random}, poison: {rate: 0.1, kinds: [undecodable, unknown-type]}, skew: {rate: 1}}\nexpect: {dlq: {topic: d, count: 3}}\n",
	"events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nchaos: {crash: {}, poison: {rate: 0}, skew: {rate: 0}}\nexpect: {dlq: {count: poison}}\n",
	"events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}, instances: 3}\nchaos: {rebalance: {count: 2, kinds: [stall, join], eager: true, stall: 1s, restart: false, at: random}}\n",
	"events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nexpect: {state: [{pointer: /o, count: 5}, {pointer: /t, equals: 1.5}, {pointer: /d, exists: false}]}\n",
}

// TestFuzzScenarioSeedsParse keeps the seeds valid (and small) as the
// scenario format changes.
func TestFuzzScenarioSeedsParse(t *testing.T) {
	for i, s := range fuzzScenarioSeeds {
		if len(s) > 256 {
			t.Errorf("seed %d: %d bytes, keep seeds small", i, len(s))
		}
		if _, err := ParseScenario("seed.yaml", []byte(s)); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}

func FuzzParseScenario(f *testing.F) {
	for _, s := range fuzzScenarioSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("events: {file: e}\nconsumer: {run: [c], state: {http: \"http://x\"}}\nkafka: {compression: lz4}\nexpect: {baseline: {empty: ok, dlq: 2}}\n"))
	f.Add([]byte("chaos: {seed: 18446744073709551615}\n"))
	f.Add([]byte("consumer: {quiet: 1s, settle_timeout: 1s}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			sc, err := ParseScenario("fuzz.yaml", data)
			if err != nil {
				var se *ScenarioError
				if !errors.As(err, &se) || len(se.Problems) == 0 || se.Error() == "" {
					t.Fatalf("not a ScenarioError with problems: %v", err)
				}
				for _, p := range se.Problems {
					if p.Line < 1 {
						t.Fatalf("problem without a line: %+v", p)
					}
				}
				return
			}
			// A parsed scenario is complete and normalized.
			if len(sc.Consumer.Run) == 0 || (sc.Events.File == "") == (sc.Events.Generate == nil) ||
				(sc.Consumer.State.HTTP == "") == (sc.Consumer.State.Command == nil) || sc.Kafka.Partitions < 1 ||
				sc.Consumer.Quiet <= 0 || sc.Consumer.Quiet >= sc.Consumer.SettleTimeout {
				t.Fatalf("incomplete scenario from %q: %+v", data, sc)
			}
			norm, err := sc.Chaos.Normalize()
			if err != nil {
				t.Fatalf("chaos not normalized: %v", err)
			}
			if k := norm.Crash; k != nil && (k.Count < 1 || k.Count > 100 || (k.At != chaos.CrashAfterEffect && k.At != chaos.CrashRandom)) {
				t.Fatalf("crash %+v", k)
			}
			if p := norm.Poison; p != nil && (len(p.Kinds) == 0 || p.Rate < 0 || p.Rate > 1) {
				t.Fatalf("poison %+v", p)
			}
			if d := sc.DLQ; d != nil && (d.Topic == "" || d.Count < CountPoison || d.Line < 1) {
				t.Fatalf("dlq %+v", d)
			}
			// The crash plan of any parsed scenario is well formed.
			for i, f := range chaos.CrashPlan(norm, 1) {
				if f.Index != i || f.Progress <= 0 || f.Progress >= 1 {
					t.Fatalf("crash fault %+v", f)
				}
			}
		})
	})
}

func TestScenarioRebalance(t *testing.T) {
	text := "events: {file: e.jsonl}\nconsumer: {run: [c], state: {http: \"http://x/state\"}, instances: 3}\n" +
		"chaos:\n  rebalance: {count: 3, kinds: [kill, stall], eager: true, stall: 2s, restart: false}\n"
	s, err := ParseScenario("s.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if s.Consumer.Instances != 3 {
		t.Errorf("instances %d", s.Consumer.Instances)
	}
	r := s.Chaos.Rebalance
	if r == nil || r.Count != 3 || r.Stall != 2*time.Second || r.Restarts() || r.At != chaos.CrashAfterEffect ||
		strings.Join([]string{string(r.Kinds[0]), string(r.Kinds[1]), string(r.Kinds[2])}, ",") != "kill,stall,eager" {
		t.Fatalf("rebalance %+v", r)
	}
}
