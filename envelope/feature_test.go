package envelope

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The CloudEvents conformance scenarios for the Kafka binding, read from
// testdata/cloudevents/kafka-protocol-binding.feature (a copy, see SOURCE
// there) and run as table cases. The Gherkin reader below knows just the
// constructs the file uses; a step it does not know fails the test, so a
// scenario cannot be skipped silently.

type gherkinStep struct {
	text  string
	doc   string
	table [][]string
}

type gherkinScenario struct {
	name     string
	steps    []gherkinStep
	examples [][]string // header row first; outlines only
}

func readFeature(t *testing.T, path string) []gherkinScenario {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out        []gherkinScenario
		cur        *gherkinScenario
		inDoc      bool
		docIndent  int
		doc        []string
		inExamples bool
	)
	lastStep := func() *gherkinStep {
		if cur == nil || len(cur.steps) == 0 {
			t.Fatalf("%s: doc string or table outside a step", path)
		}
		return &cur.steps[len(cur.steps)-1]
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if inDoc {
			if trimmed == `"""` {
				lastStep().doc = strings.Join(doc, "\n")
				inDoc, doc = false, nil
				continue
			}
			// Gherkin removes the indentation of the opening quotes.
			cut := 0
			for cut < docIndent && cut < len(line) && line[cut] == ' ' {
				cut++
			}
			doc = append(doc, line[cut:])
			continue
		}
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case trimmed == `"""`:
			inDoc, docIndent = true, strings.Index(line, `"""`)
		case strings.HasPrefix(trimmed, "|"):
			cells := strings.Split(strings.Trim(trimmed, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			if inExamples {
				cur.examples = append(cur.examples, cells)
			} else {
				s := lastStep()
				s.table = append(s.table, cells)
			}
		case strings.HasPrefix(trimmed, "Feature:"), strings.HasPrefix(trimmed, "Background:"):
			cur, inExamples = nil, false
		case strings.HasPrefix(trimmed, "Scenario:"), strings.HasPrefix(trimmed, "Scenario Outline:"):
			_, name, _ := strings.Cut(trimmed, ":")
			out = append(out, gherkinScenario{name: strings.TrimSpace(name)})
			cur, inExamples = &out[len(out)-1], false
		case strings.HasPrefix(trimmed, "Examples:"):
			inExamples = true
		case startsWithKeyword(trimmed):
			if cur != nil {
				_, text, _ := strings.Cut(trimmed, " ")
				cur.steps = append(cur.steps, gherkinStep{text: text})
			} else if trimmed != "Given Kafka Protocol Binding is supported" {
				t.Fatalf("%s: unknown background step %q", path, trimmed)
			}
		default:
			if cur == nil {
				continue // feature description text
			}
			t.Fatalf("%s: cannot read line %q", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Expand outlines.
	var expanded []gherkinScenario
	for _, s := range out {
		if len(s.examples) == 0 {
			expanded = append(expanded, s)
			continue
		}
		head := s.examples[0]
		for _, row := range s.examples[1:] {
			sub := func(x string) string {
				for i, h := range head {
					x = strings.ReplaceAll(x, "<"+h+">", row[i])
				}
				return x
			}
			e := gherkinScenario{name: sub(s.name)}
			for _, st := range s.steps {
				ns := gherkinStep{text: sub(st.text), doc: sub(st.doc)}
				for _, r := range st.table {
					nr := make([]string, len(r))
					for i := range r {
						nr[i] = sub(r[i])
					}
					ns.table = append(ns.table, nr)
				}
				e.steps = append(e.steps, ns)
			}
			expanded = append(expanded, e)
		}
	}
	return expanded
}

func startsWithKeyword(s string) bool {
	for _, k := range []string{"Given ", "When ", "Then ", "And ", "But "} {
		if strings.HasPrefix(s, k) {
			return true
		}
	}
	return false
}

// keyValues turns a two-column table with a "key | value" header into
// pairs, in order.
func keyValues(t *testing.T, table [][]string) [][2]string {
	t.Helper()
	if len(table) == 0 || len(table[0]) != 2 || table[0][0] != "key" || table[0][1] != "value" {
		t.Fatalf("want a key | value table, got %v", table)
	}
	var out [][2]string
	for _, r := range table[1:] {
		out = append(out, [2]string{r[0], r[1]})
	}
	return out
}

func TestKafkaProtocolBindingFeature(t *testing.T) {
	scenarios := readFeature(t, "testdata/cloudevents/kafka-protocol-binding.feature")
	// One binary scenario and a structured outline with two examples.
	if len(scenarios) != 3 {
		t.Fatalf("read %d scenarios from the feature file, want 3", len(scenarios))
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := &kgo.Record{}
			var wantAttrs map[string]string
			var wantData any
			parsed := false
			for _, st := range sc.steps {
				switch st.text {
				case "a Kafka message with payload:":
					r.Value = []byte(st.doc)
				case "Kafka headers:":
					for _, kv := range keyValues(t, st.table) {
						r.Headers = append(r.Headers, kgo.RecordHeader{Key: kv[0], Value: []byte(kv[1])})
					}
				case "parsed as Kafka message":
					parsed = true
				case "the attributes are:":
					wantAttrs = map[string]string{}
					for _, kv := range keyValues(t, st.table) {
						wantAttrs[kv[0]] = kv[1]
					}
				case "the data is equal to the following JSON:":
					if err := json.Unmarshal([]byte(st.doc), &wantData); err != nil {
						t.Fatalf("expected data: %v", err)
					}
				default:
					t.Fatalf("unknown step %q", st.text)
				}
			}
			if !parsed || wantAttrs == nil || wantData == nil {
				t.Fatalf("scenario lacks a When or Then step")
			}

			d, fs, err := FromRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 0 {
				t.Errorf("findings: %v", fs)
			}
			if diff := cmp.Diff(wantAttrs, attributeStrings(d)); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
			var gotData any
			if err := json.Unmarshal(d.RawData, &gotData); err != nil {
				t.Fatalf("data %q: %v", d.RawData, err)
			}
			if diff := cmp.Diff(wantData, gotData); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			// The decoded data (json.Number numbers) says the same.
			reenc, _ := json.Marshal(d.Data)
			var fromData any
			_ = json.Unmarshal(reenc, &fromData)
			if diff := cmp.Diff(wantData, fromData); diff != "" {
				t.Errorf("Data (-want +got):\n%s", diff)
			}
		})
	}
}

// attributeStrings lists the attributes and extensions a decoded event has,
// as strings.
func attributeStrings(d *Decoded) map[string]string {
	e := d.Event
	out := map[string]string{"id": e.ID(), "specversion": e.SpecVersion(), "type": e.Type(), "source": e.Source()}
	if v := e.DataContentType(); v != "" {
		out["datacontenttype"] = v
	}
	if v := e.DataSchema(); v != "" {
		out["dataschema"] = v
	}
	if v := e.Subject(); v != "" {
		out["subject"] = v
	}
	if v := e.Time(); !v.IsZero() {
		out["time"] = v.Format(time.RFC3339Nano)
	}
	for k, v := range e.Extensions() {
		s, _ := headerValue(v)
		out[k] = s
	}
	return out
}
