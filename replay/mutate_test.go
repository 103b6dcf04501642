package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
)

// versionCatalog writes a catalog with one type, t, of three versions:
// v1 {n: integer}, v2 adds optional s, v3 requires s.
func versionCatalog(t *testing.T, mode string) *catalog.Catalog {
	t.Helper()
	return loadTree(t, map[string]string{
		"evtool.yaml":       "version: 1\nschemas: schemas\ncompat: {mode: " + mode + "}\n",
		"schemas/t/v1.json": `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		"schemas/t/v2.json": `{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["n"]}`,
		"schemas/t/v3.json": `{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["n","s"]}`,
	})
}

// loadTree writes files (by slash path) in a temporary directory and
// loads it as a catalog.
func loadTree(t *testing.T, files map[string]string) *catalog.Catalog {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// The compatibility mode says which versions a consumer must accept;
// skew re-emits an event only as one its data is valid under.
func TestSkewTargetsFollowModes(t *testing.T) {
	for _, tt := range []struct {
		mode string
		// candidates of v1, v2, v3
		want [3]string
	}{
		// The consumer is at v3: it reads v3, v2 under BACKWARD and FULL,
		// v1 and v2 under the _TRANSITIVE ones.
		{"NONE", [3]string{"[]", "[]", "[]"}},
		{"BACKWARD", [3]string{"[2 3]", "[3]", "[2]"}},
		{"BACKWARD_TRANSITIVE", [3]string{"[2 3]", "[1 3]", "[1 2]"}},
		{"FORWARD", [3]string{"[3]", "[3]", "[]"}},
		{"FORWARD_TRANSITIVE", [3]string{"[3]", "[3]", "[]"}},
		{"FULL", [3]string{"[2 3]", "[3]", "[2]"}},
		{"FULL_TRANSITIVE", [3]string{"[2 3]", "[1 3]", "[1 2]"}},
	} {
		m := NewMutator(versionCatalog(t, tt.mode))
		for v := 1; v <= 3; v++ {
			if got := fmt.Sprint(m.Candidates("t", v).List()); got != tt.want[v-1] {
				t.Errorf("%s: candidates of v%d = %s, want %s", tt.mode, v, got, tt.want[v-1])
			}
		}
	}
	m := NewMutator(versionCatalog(t, "FULL_TRANSITIVE"))
	ds := func(v int) string { return m.cat.DataSchema("t", v) }
	// {n} is not valid under v3 (s required); {n, s} is valid under all.
	if v, s := m.SkewTargets("t", ds(1), []byte(`{"n":1}`)); v != 1 || fmt.Sprint(s.List()) != "[2]" {
		t.Errorf("v1 {n}: %d %v", v, s.List())
	}
	if v, s := m.SkewTargets("t", ds(3), []byte(`{"n":1,"s":"x"}`)); v != 3 || fmt.Sprint(s.List()) != "[1 2]" {
		t.Errorf("v3 {n,s}: %d %v", v, s.List())
	}
	// No dataschema: the latest version.
	if v, _ := m.SkewTargets("t", "", []byte(`{"n":1,"s":"x"}`)); v != 3 {
		t.Errorf("no dataschema: v%d", v)
	}
	// Data the format's decoder refuses (a duplicate key, invalid UTF-8,
	// an exponent beyond jsonstrict's bound) is valid under no version:
	// it is not re-emitted as another.
	for _, data := range []string{`{"n":1,"s":"x","s":1}`, "{\"n\":1,\"s\":\"\xff\"}", `{"n":1e99999,"s":"x"}`, `{"n":1,"s":"x"} {}`} {
		if v, s := m.SkewTargets("t", ds(3), []byte(data)); v != 3 || s != 0 {
			t.Errorf("%q: %d %v, want v3 and no targets", data, v, s.List())
		}
	}
	if v, s := m.SkewTargets("nope", "", []byte(`{}`)); v != 0 || s != 0 {
		t.Errorf("unknown type: %d %v", v, s)
	}
	var nilm *Mutator
	if nilm.Candidates("t", 1) != 0 {
		t.Error("a nil Mutator has candidates")
	}
}

func sourceEvent(t *testing.T, m *Mutator) event.Event {
	e := event.New()
	e.SetID("e-1")
	e.SetSource("/src")
	e.SetType("t")
	e.SetSubject("k")
	e.SetDataSchema(m.cat.DataSchema("t", 2))
	if err := e.SetData(event.ApplicationJSON, json.RawMessage(`{"n":1,"s":"x"}`)); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPoisonEvents(t *testing.T) {
	cat := versionCatalog(t, "FULL_TRANSITIVE")
	m := NewMutator(cat)
	v := &envelope.Validator{Catalog: cat}
	src := sourceEvent(t, m)
	for _, tt := range []struct {
		kind chaos.PoisonKind
		rule string
	}{
		{chaos.InvalidData, "data-invalid"},
		{chaos.Undecodable, "json-syntax"},
		{chaos.UnknownType, "unknown-type"},
		{chaos.FutureVersion, "unknown-version"},
	} {
		f := chaos.Fault{Kind: chaos.Poison, Poison: tt.kind, PoisonID: "p-" + string(tt.kind)}
		p := m.PoisonEvent(f, src)
		if p.ID() != f.PoisonID || src.ID() != "e-1" {
			t.Fatalf("%s: id %q (source %q)", tt.kind, p.ID(), src.ID())
		}
		raw, err := json.Marshal(p)
		if tt.kind == chaos.Undecodable {
			// Not even encodable as a JSON event: its data is not JSON.
			if err == nil && json.Valid(raw) {
				if _, _, fs := v.Validate(raw); len(fs) == 0 {
					t.Errorf("undecodable poison is valid: %s", raw)
				}
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _, fs := v.Validate(raw)
		found := false
		for _, f := range fs {
			found = found || strings.Contains(f.Rule, tt.rule)
		}
		if !found {
			t.Errorf("%s poison: findings %v, want %s\n%s", tt.kind, fs, tt.rule, raw)
		}
	}
	// Invalid data drops a required property of the source's data.
	p := m.PoisonEvent(chaos.Fault{Poison: chaos.InvalidData, PoisonID: "x"}, src)
	if string(p.Data()) != `{"s":"x"}` {
		t.Errorf("invalid data %s", p.Data())
	}
	// Skew rewrites only the dataschema.
	s := m.SkewEvent(src, 1)
	if s.DataSchema() != cat.DataSchema("t", 1) || s.ID() != src.ID() || string(s.Data()) != string(src.Data()) || src.DataSchema() != cat.DataSchema("t", 2) {
		t.Errorf("skewed %v", s)
	}
	// Without a catalog.
	var nilm *Mutator
	if got := nilm.SkewEvent(src, 7).DataSchema(); !strings.HasSuffix(got, "v7") {
		t.Errorf("no catalog: skew dataschema %q", got)
	}
	if got := nilm.PoisonEvent(chaos.Fault{Poison: chaos.FutureVersion, PoisonID: "x"}, src).DataSchema(); !strings.HasSuffix(got, "v999") {
		t.Errorf("no catalog: future dataschema %q", got)
	}
}

// The records of skew and poison faults, in both content modes, read
// back as what they should be.
func TestMutateRecord(t *testing.T) {
	cat := versionCatalog(t, "FULL_TRANSITIVE")
	for _, mode := range []envelope.Mode{envelope.ModeBinary, envelope.ModeStructured} {
		h := &Harness{sc: &Scenario{Kafka: KafkaSpec{Mode: mode}}, cat: cat, mut: NewMutator(cat)}
		src := sourceEvent(t, h.mut)
		rec, err := envelope.ToRecord(context.Background(), &src, mode)
		if err != nil {
			t.Fatal(err)
		}
		rec.Topic, rec.Partition, rec.Key = "topic", 2, []byte("k")
		skew, err := h.mutateRecord(context.Background(), chaos.Fault{Kind: chaos.Skew, From: 2, To: 1}, rec)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := envelope.FromRecord(skew)
		if err != nil || d.Event.DataSchema() != cat.DataSchema("t", 1) || d.Event.ID() != "e-1" || skew.Partition != 2 || string(skew.Key) != "k" || skew.Topic != "topic" {
			t.Fatalf("%s skew: %v %v %+v", mode, err, d, skew)
		}
		for _, k := range chaos.PoisonKinds {
			p, err := h.mutateRecord(context.Background(), chaos.Fault{Kind: chaos.Poison, Poison: k, PoisonID: "evtool-poison-1-9"}, rec)
			if err != nil {
				t.Fatalf("%s %s: %v", mode, k, err)
			}
			if p.Partition != 2 || string(p.Key) != "k" || p.Topic != "topic" {
				t.Fatalf("%s %s: %+v", mode, k, p)
			}
			d, fs, err := envelope.FromRecord(p)
			if k == chaos.Undecodable {
				if err == nil && d != nil && len(fs) == 0 {
					t.Fatalf("%s undecodable poison decodes: %v", mode, d.Event)
				}
				all := string(p.Value)
				for _, h := range p.Headers {
					all += string(h.Value)
				}
				if !strings.Contains(all, "evtool-poison-1-9") {
					t.Fatalf("%s undecodable poison lost its id", mode)
				}
				continue
			}
			if err != nil || d == nil || d.Event.ID() != "evtool-poison-1-9" {
				t.Fatalf("%s %s: %v %v", mode, k, err, d)
			}
		}
	}
}

// TestInvalidDataNearTheEvent: invalid-data poison is the event's own data
// without a property its version requires (asked of the compiled schema,
// format.RequiredDropper), not a stock value, while one can be dropped.
func TestInvalidDataNearTheEvent(t *testing.T) {
	m := NewMutator(versionCatalog(t, "FULL_TRANSITIVE"))
	src := sourceEvent(t, m) // v2 {"n":1,"s":"x"}; v2 requires n
	p := m.PoisonEvent(chaos.Fault{Kind: chaos.Poison, Poison: chaos.InvalidData, PoisonID: "p"}, src)
	if got := string(p.Data()); got != `{"s":"x"}` {
		t.Errorf("invalid data %s, want the event without n", got)
	}
}
