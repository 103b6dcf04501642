package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.yaml.in/yaml/v3"
)

// conformanceEvent is one document of testdata/cloudevents/conformance-v1.yaml
// (cloudevents/conformance, see SOURCE).
type conformanceEvent struct {
	Mode              string `yaml:"Mode"`
	ContextAttributes struct {
		SpecVersion     string            `yaml:"specversion"`
		Type            string            `yaml:"type"`
		Time            string            `yaml:"time"`
		ID              string            `yaml:"id"`
		Source          string            `yaml:"source"`
		Subject         string            `yaml:"subject"`
		DataSchema      string            `yaml:"dataschema"`
		DataContentType string            `yaml:"datacontenttype"`
		Extensions      map[string]string `yaml:"Extensions"`
	} `yaml:"ContextAttributes"`
	TransportExtensions map[string]string `yaml:"TransportExtensions"`
	Data                string            `yaml:"Data"`
}

func readConformance(t testing.TB) []conformanceEvent {
	t.Helper()
	b, err := os.ReadFile("testdata/cloudevents/conformance-v1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var out []conformanceEvent
	for {
		var c conformanceEvent
		if err := dec.Decode(&c); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if len(out) != 2 {
		t.Fatalf("read %d conformance events, want 2", len(out))
	}
	return out
}

// conformanceJSON renders a conformance event in the JSON format, the way a
// producer would write it, so that it goes through DecodeJSON.
func conformanceJSON(t testing.TB, c conformanceEvent) []byte {
	t.Helper()
	m := map[string]any{}
	a := c.ContextAttributes
	for k, v := range map[string]string{"specversion": a.SpecVersion, "type": a.Type, "time": a.Time, "id": a.ID,
		"source": a.Source, "subject": a.Subject, "dataschema": a.DataSchema, "datacontenttype": a.DataContentType} {
		if v != "" {
			m[k] = v
		}
	}
	for k, v := range a.Extensions {
		m[k] = v
	}
	m["data"] = json.RawMessage(c.Data)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConformanceEvents sends the conformance examples through the binding
// in their mode. Their comexampleextension2 is a YAML block scalar, so its
// value ends in a newline: a control character CloudEvents 1.0.2 excludes
// from strings. evtool reports exactly that and nothing else; sdk-go's
// Validate accepts it.
func TestConformanceEvents(t *testing.T) {
	for _, c := range readConformance(t) {
		t.Run(c.Mode, func(t *testing.T) {
			mode, err := ParseMode(c.Mode)
			if err != nil {
				t.Fatal(err)
			}
			d, fs := DecodeJSON(conformanceJSON(t, c))
			if got := ruleHits(fs); !cmp.Equal(got, []string{"error ce-control-character /comexampleextension2"}) {
				t.Fatalf("DecodeJSON findings: %v", got)
			}
			// Put the value back to see the rest of the event survive the
			// binding unchanged.
			d.Event.SetExtension("comexampleextension2", c.ContextAttributes.Extensions["comexampleextension2"])
			if err := d.Event.Validate(); err != nil {
				t.Fatalf("sdk-go: %v", err)
			}
			r, err := ToRecord(context.Background(), &d.Event, mode)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.TransportExtensions {
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
			}
			got, fs, err := FromRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			if hits := ruleHits(fs); !cmp.Equal(hits, []string{"error ce-control-character /comexampleextension2"}) {
				t.Errorf("FromRecord findings: %v", hits)
			}
			want := map[string]string{
				"specversion": "1.0", "type": "com.example.someevent", "time": "2018-04-05T03:56:24Z",
				"id": "4321-4321-4321", "source": "/mycontext/subcontext", "comexampleextension1": "value",
			}
			if diff := cmp.Diff(want, attributeStrings(got)); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
			var wantData, gotData any
			_ = json.Unmarshal([]byte(c.Data), &wantData)
			if err := json.Unmarshal(got.RawData, &gotData); err != nil || !cmp.Equal(wantData, gotData) {
				t.Errorf("data = %s, want %s (%v)", got.RawData, c.Data, err)
			}
		})
	}
}

// TestConformanceEventsClean: with the trailing newline removed, the
// examples are valid and round-trip exactly.
func TestConformanceEventsClean(t *testing.T) {
	for _, c := range readConformance(t) {
		c.ContextAttributes.Extensions["comexampleextension2"] = `{"othervalue": 5}`
		mode, _ := ParseMode(c.Mode)
		d, fs := DecodeJSON(conformanceJSON(t, c))
		if len(fs) != 0 {
			t.Fatalf("%s: %v", c.Mode, fs)
		}
		r, err := ToRecord(context.Background(), &d.Event, mode)
		if err != nil {
			t.Fatal(err)
		}
		got, fs, err := FromRecord(r)
		if err != nil || len(fs) != 0 {
			t.Fatal(err, fs)
		}
		if diff := cmp.Diff(d.Event, got.Event, eventCmp...); diff != "" {
			t.Errorf("%s: event (-want +got):\n%s", c.Mode, diff)
		}
	}
}
