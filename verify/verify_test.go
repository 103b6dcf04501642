package verify

import (
	"errors"
	"github.com/evtool/evtool/internal/fuzzcost"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/records"
	"github.com/evtool/evtool/report"
)

func rec(part int32, off int64, id, typ, key string, seq float64, extra ...string) *records.Record {
	r := &records.Record{At: report.RecordLocation{Topic: "t", Partition: part, Offset: off}, ID: id, Type: typ, Key: key, Seq: seq, HasSeq: true}
	for _, e := range extra {
		switch e {
		case "repeat":
			r.Repeat = true
		default:
			r.Findings = append(r.Findings, report.Finding{Rule: e, Severity: report.SeverityError})
		}
	}
	return r
}

// norec is a record of a type without a sequence.
func norec(part int32, off int64, id, typ, key string) *records.Record {
	r := rec(part, off, id, typ, key, 0)
	r.HasSeq = false
	return r
}

func seq(n float64) *float64 { return &n }

// TestJudge: each verdict class, and same-id duplicates counted only.
func TestJudge(t *testing.T) {
	facts := []Fact{
		{ID: "a", Type: "T", Key: "k1", Seq: seq(1)},
		{ID: "b", Type: "T", Key: "k1", Seq: seq(2)},
		{ID: "c", Type: "T", Key: "k2", Seq: seq(1)},
	}
	for _, tc := range []struct {
		name  string
		facts []Fact
		recs  []*records.Record
		want  map[string]int
		dups  int
	}{
		{"all there", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(0, 1, "b", "T", "k1", 2), rec(1, 0, "c", "T", "k2", 1)}, nil, 0},
		{"same-id duplicate allowed", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(0, 1, "b", "T", "k1", 2), rec(0, 2, "a", "T", "k1", 1, "repeat"), rec(1, 0, "c", "T", "k2", 1)}, nil, 1},
		{"lost", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(1, 0, "c", "T", "k2", 1)}, map[string]int{ClassLost: 1}, 0},
		{"phantom", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(0, 1, "b", "T", "k1", 2), rec(1, 0, "c", "T", "k2", 1), rec(1, 1, "z", "T", "k2", 9)}, map[string]int{ClassPhantom: 1}, 0},
		{"duplicate new id", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(0, 1, "x", "T", "k1", 2), rec(0, 2, "b", "T", "k1", 2), rec(1, 0, "c", "T", "k2", 1)}, map[string]int{ClassDuplicateNewID: 1}, 0},
		{"only under a new id", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(0, 1, "x", "T", "k1", 2), rec(1, 0, "c", "T", "k2", 1)}, map[string]int{ClassDuplicateNewID: 1}, 0},
		{"id reused for another event", facts, []*records.Record{rec(0, 0, "a", "T", "k1", 1), rec(0, 1, "b", "T", "k1", 2), rec(1, 0, "c", "T", "k2", 1), rec(1, 1, "a", "T", "k2", 7, "repeat", records.RuleIDReused)}, map[string]int{ClassInvalid: 1}, 0},
		// Facts of a type without a sequence share (type, key): a record
		// published under one fact's own id must not stand in for another.
		{"lost beside its twin", []Fact{{ID: "a", Type: "T", Key: "k1"}, {ID: "b", Type: "T", Key: "k1"}},
			[]*records.Record{norec(0, 0, "a", "T", "k1")}, map[string]int{ClassLost: 1}, 0},
		// One record under a new id stands for one fact, not for two.
		{"one new id for two facts", []Fact{{ID: "a", Type: "T", Key: "k1"}, {ID: "b", Type: "T", Key: "k1"}},
			[]*records.Record{norec(0, 0, "x", "T", "k1")}, map[string]int{ClassLost: 1, ClassDuplicateNewID: 1}, 0},
		// A fact without seq (it is optional) is matched on (type, key)
		// whatever sequence its record carries.
		{"new id, fact without seq", []Fact{{ID: "a", Type: "T", Key: "k1"}},
			[]*records.Record{rec(0, 0, "x", "T", "k1", 1)}, map[string]int{ClassDuplicateNewID: 1}, 0},
		{"out of order, wrong key, invalid", facts, []*records.Record{rec(0, 0, "b", "T", "k1", 2), rec(0, 1, "a", "T", "k1", 1, records.RuleSequenceBackwards), rec(1, 0, "c", "T", "k2", 1, records.RulePartitionKey, "data-invalid")},
			map[string]int{ClassOutOfOrder: 1, ClassWrongKey: 1, ClassInvalid: 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(tc.facts, tc.recs)
			for _, c := range v.Classes {
				if c.Count != tc.want[c.Name] || len(c.Members) != c.Count {
					t.Errorf("%s: %d (%d members), want %d: %+v", c.Name, c.Count, len(c.Members), tc.want[c.Name], c.Members)
				}
			}
			if v.Duplicates != tc.dups {
				t.Errorf("duplicates %d, want %d", v.Duplicates, tc.dups)
			}
			if v.Failed() != (len(tc.want) > 0) {
				t.Errorf("failed %v", v.Failed())
			}
		})
	}
}

const goodScenario = `producer:
  run: [./producer]
  state: {http: "http://${EVTOOL_ADDR}/facts"}
workload: {requests: requests.jsonl}
chaos:
  seed: 7
  crash: {count: 3}
  produce_errors: {rate: 0.5}
  rollback: {rate: 0.3}
`

func testScenario(t *testing.T) *Scenario {
	sc, err := ParseScenario("dir/verify.yaml", []byte(goodScenario))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		sc.Workload.Requests = append(sc.Workload.Requests, Request{Line: i + 1, Method: "POST", Path: "/x"})
	}
	return sc
}

// TestPlan: a seed draws the same plan; crashes alternate from
// before-append; indexes follow the steps.
func TestPlan(t *testing.T) {
	sc := testScenario(t)
	a, b := Plan(sc, 1), Plan(sc, 1)
	if !slices.Equal(a, b) {
		t.Fatal("one seed, two plans")
	}
	var phases []string
	for i, f := range a {
		if f.Index != i || (i > 0 && f.Step < a[i-1].Step) || f.Line != f.Step+1 {
			t.Errorf("fault %d out of order: %+v", i, f)
		}
		if f.Kind == KindCrash {
			phases = append(phases, f.Phase)
		}
	}
	if !slices.Equal(phases, []string{BeforeAppend, AfterAppend, BeforeAppend}) {
		t.Errorf("crash phases %v", phases)
	}
	if slices.Equal(Plan(sc, 2), a) {
		t.Error("two seeds, one plan")
	}
}

// TestParseScenarioErrors: every mistake names the file, line and key.
func TestParseScenarioErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"producer: {run: [x], state: {http: u}}\n", "verify.yaml:1: "},
		{goodScenario + "  bogus: 1\n", "verify.yaml:"},
		{strings.Replace(goodScenario, "{count: 3}", "{count: 3, at: sometime}", 1), "verify.yaml:7"},
		{strings.Replace(goodScenario, "requests: requests.jsonl", "requests: r.jsonl, command: [x]", 1), "give requests or command, not both"},
		{goodScenario + "producer_x: 1\n", "verify.yaml:"},
		{strings.Replace(goodScenario, "seed: 7", "seed: -1", 1), "verify.yaml:6"},
		{"producer:\n  run: [x]\n  state: {http: u}\n  quiet: soon\nworkload: {requests: r}\n", "verify.yaml:4: producer.quiet"},
		{"{", "malformed YAML"},
	} {
		_, err := ParseScenario("verify.yaml", []byte(tc.text))
		var se *ScenarioError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestParseRequests: good lines, and errors naming file and line.
func TestParseRequests(t *testing.T) {
	reqs, err := ParseRequests("r.jsonl", strings.NewReader(`{"path": "/a", "headers": {"Idempotency-Key": "k1"}, "body": {"x": 1}}

{"method": "put", "path": "/b"}
`))
	if err != nil || len(reqs) != 2 || reqs[0].IdempotencyKey() != "k1" || reqs[0].Method != "POST" || reqs[1].Method != "PUT" || reqs[1].Line != 3 || reqs[1].Body != nil {
		t.Fatalf("%+v %v", reqs, err)
	}
	for _, tc := range []struct{ text, want string }{
		{`{"path": "a"}`, "r.jsonl:1: /path"},
		{"{\"path\": \"/a\"}\n{\"path\": \"/a\", \"extra\": 1}", "r.jsonl:2: not a request"},
		{`{"path": "/a", "method": "BREW"}`, "r.jsonl:1: /method"},
		{`{"path": "/a"} {}`, "r.jsonl:1: one request per line"},
		{`{"path": "/a", "headers": {"a b": "x"}}`, "r.jsonl:1: /headers"},
		// What net/http would refuse to send, so every retry would fail.
		{`{"path": "/a", "headers": {"a(b)": "x"}}`, "r.jsonl:1: /headers"},
		{`{"path": "/a", "headers": {"a\u0000": "x"}}`, "r.jsonl:1: /headers"},
		{`{"path": "/a", "headers": {"X-A": "x\u0000y"}}`, "r.jsonl:1: /headers"},
		{`{"path": "/a", "headers": {"X-A": "x\u007fy"}}`, "r.jsonl:1: /headers"},
		{`{"path": "/a\u0000"}`, "r.jsonl:1: /path"},
		{"", "r.jsonl: no request"},
	} {
		if _, err := ParseRequests("r.jsonl", strings.NewReader(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestParseFacts: facts, and errors with the JSON pointer.
func TestParseFacts(t *testing.T) {
	fs, err := ParseFacts("GET u", []byte(`[{"id": "a", "type": "T", "key": "k", "seq": 2}, {"id": "b", "type": "T"}]`))
	if err != nil || len(fs) != 2 || *fs[0].Seq != 2 || fs[1].Seq != nil {
		t.Fatalf("%+v %v", fs, err)
	}
	for _, tc := range []struct{ text, want string }{
		{`{}`, "want a JSON array"},
		{`[{"id": "a"}]`, "/0/type"},
		{`[{"id": "a", "type": "T"}, {"type": "T"}]`, "/1/id"},
		{`[{"id": "a", "type": "T", "seq": "x"}]`, "/0: not a fact"},
		{"[{\"id\": \"a\", \"type\": \"T\"},\n {\"id\": \"b\",]", "line 2, column"},
		{"[{\"id\": \"a\",\n  \"id\": \"b\", \"type\": \"T\"}]", "line 2, column 3 (at /0): duplicate key \"id\""},
	} {
		if _, err := ParseFacts("GET u", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "GET u") {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(goodScenario))
	f.Add([]byte("producer: {run: [x], state: {command: [y]}}\nworkload: {command: [z], steps: 3}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			sc, err := ParseScenario("verify.yaml", data)
			if err == nil && sc.Steps() < 0 {
				t.Fatal("negative steps")
			}
		})
	})
}

func FuzzParseRequests(f *testing.F) {
	f.Add([]byte(`{"path": "/a", "headers": {"Idempotency-Key": "k1"}, "body": {"x": 1}}`))
	f.Add([]byte("{\"method\": \"put\", \"path\": \"/b\"}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			reqs, err := ParseRequests("r.jsonl", strings.NewReader(string(data)))
			if err == nil && len(reqs) == 0 {
				t.Fatal("no error and no request")
			}
		})
	})
}

func FuzzParseFacts(f *testing.F) {
	f.Add([]byte(`[{"id": "a", "type": "T", "key": "k", "seq": 2}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcost.Default().Check(t, len(data), func() {
			fs, err := ParseFacts("s", data)
			for _, x := range fs {
				if err == nil && (x.ID == "" || x.Type == "") {
					t.Fatal("a fact without id or type")
				}
			}
		})
	})
}

// TestWrite: every format names each class with its count, the seed and
// the reproduce commands.
func TestWrite(t *testing.T) {
	v := Judge([]Fact{{ID: "a", Type: "T", Key: "k"}}, nil)
	rep := &Report{Scenario: "s", Seed: 9, Clean: &RunResult{Name: "clean"}, Chaos: &RunResult{Name: "chaos", Verdict: v, Applied: []int{0}},
		Plan:      []Fault{{Index: 0, Kind: KindCrash, Phase: BeforeAppend, Step: 0, Line: 1}},
		Reproduce: "evtool verify s.yaml --seed 9",
		Shrink:    &ShrinkReport{Faults: []Fault{{Index: 0, Kind: KindCrash, Phase: BeforeAppend, Line: 1}}, Minimal: true, Reproduce: "evtool verify s.yaml --seed 9 --faults 0"}}
	rep.Clean.Verdict = Judge(nil, nil)
	for f, want := range map[Format][]string{
		FormatText:  {"verify s (seed 9): FAIL", "lost 1, phantom 0", "lost: committed T a", "reproduce the minimal failure: evtool verify s.yaml --seed 9 --faults 0"},
		FormatJSON:  {`"name": "lost"`, `"count": 1`, `"seed": 9`, `"reproduce": "evtool verify s.yaml --seed 9 --faults 0"`},
		FormatJUnit: {`<testcase name="lost" classname="verify.s">`, `<failure message="1 lost in run chaos">`, `<testcase name="phantom"`},
	} {
		var b strings.Builder
		if err := Write(&b, f, rep); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", f, w, b.String())
			}
		}
	}
}

// TestStrikeNotInjected: a fault the broker could not inject (the records
// of a lost-ack or after-append crash did not land) becomes the run's
// error, naming the fault and the partition, instead of a verdict on a log
// the plan did not make; a fault that struck leaves no error.
func TestStrikeNotInjected(t *testing.T) {
	notAppended := &kafka.ProduceFaultError{Fault: kafka.ProduceLostAck, Partitions: []string{"orders/1"}, Err: kerr.UnknownTopicOrPartition}
	for _, tc := range []struct {
		name  string
		fault Fault
		got   error
		want  kafka.ProduceFault
		msg   string
	}{
		{"crash after-append", Fault{Index: 2, Kind: KindCrash, Phase: AfterAppend, Step: 4, Line: 5}, notAppended, kafka.ProduceLostAck,
			"the harness could not inject fault #2 crash after-append: SIGKILL at the first produce request from request 5 (line 5): lost-ack fault on orders/1: "},
		{"lost-ack", Fault{Index: 0, Kind: KindProduceError, Phase: ErrLostAck, Step: 0, Line: 1}, notAppended, kafka.ProduceLostAck,
			"the harness could not inject fault #0 produce error lost-ack at the first produce request from request 1 (line 1): lost-ack fault on orders/1: "},
		{"struck", Fault{Index: 1, Kind: KindCrash, Phase: AfterAppend, Step: 0, Line: 1}, nil, kafka.ProduceLostAck, ""},
		{"retriable", Fault{Index: 1, Kind: KindProduceError, Phase: ErrRetriable, Step: 0, Line: 1}, nil, kafka.ProduceRetriable, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &faults{byStep: map[int][]Fault{tc.fault.Step: {tc.fault}}, sel: chaos.All(), embedded: true}
			f.arm(tc.fault.Step)
			fault, then := f.strike(&group{}, false)
			if fault != tc.want || then == nil {
				t.Fatalf("strike: %v, then %v", fault, then != nil)
			}
			then(tc.got)
			err := f.err()
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("error %v for a fault that struck", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.msg) || !errors.Is(err, kerr.UnknownTopicOrPartition) {
				t.Fatalf("error %v\nwant the prefix %q", err, tc.msg)
			}
		})
	}
}
