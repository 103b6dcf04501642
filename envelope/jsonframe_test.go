package envelope

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

const jsonFramedType = "com.example.order.placed"

// jsonCatalog writes a catalog of one JSON Schema type with two versions,
// the given evtool.yaml kafka section, and registry ids 7 (v1) and 8 (v2).
func jsonCatalog(t *testing.T, kafkaYAML string) (*catalog.Catalog, *catalog.SchemaIDs) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"evtool.yaml": "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.json\n" + kafkaYAML,
		"schemas/" + jsonFramedType + "/event.yaml": "description: an order\ntopic: orders\npartitionkey: /orderId\n",
		"schemas/" + jsonFramedType + "/v1.json":    `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["orderId"],"properties":{"orderId":{"type":"string"}}}`,
		"schemas/" + jsonFramedType + "/v2.json":    `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["orderId"],"properties":{"orderId":{"type":"string"},"note":{"type":"string"}}}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
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
	ty := cat.Lookup(jsonFramedType)
	return cat, catalogtest.WriteSchemaIDs(t, cat, map[*catalog.Version]uint32{ty.Version(1): 7, ty.Version(2): 8})
}

// TestJSONFramedRecord: JSON data in the Confluent wire format (what
// Confluent's JSON Schema serializers write) is read as JSON, its id
// checked against the version the event names; evtool writes it so only
// when kafka.framing: confluent is set, and only in binary mode.
func TestJSONFramedRecord(t *testing.T) {
	ev := []byte(`{"specversion":"1.0","id":"o-1","source":"/shop","type":"` + jsonFramedType + `","datacontenttype":"application/json","dataschema":"https://schemas.example.com/` + jsonFramedType + `/v1.json","data":{"orderId":"A-1"}}`)
	d, fs := DecodeJSON(ev)
	if d == nil {
		t.Fatal(fs)
	}
	tests := []struct {
		name      string
		kafkaYAML string
		mode      Mode
		wantFrame bool
	}{
		{"default framing", "", ModeBinary, false},
		{"framing none", "kafka: {framing: none}\n", ModeBinary, false},
		{"framing confluent", "kafka: {framing: confluent}\n", ModeBinary, true},
		{"framing confluent, structured", "kafka: {framing: confluent}\n", ModeStructured, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat, ids := jsonCatalog(t, tc.kafkaYAML)
			ver := cat.Lookup(jsonFramedType).Version(1)
			id := WireID(cat, ids, ver)
			rec, err := ToWireRecord(context.Background(), &d.Event, ver, cat.Framing(cat.Lookup(ver.Type)), id, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			framed := len(rec.Value) > 5 && rec.Value[0] == 0
			if framed != tc.wantFrame {
				t.Fatalf("framed %v, want %v: % x", framed, tc.wantFrame, rec.Value)
			}
			if framed {
				if got, _, _ := format.Unframe(rec.Value); got != 7 {
					t.Errorf("framed under %d, want 7", got)
				}
			}
			v := &Validator{Catalog: cat, IDs: ids}
			got, _, fs, err := v.CheckRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Severity == report.SeverityError {
					t.Errorf("finding %v", f)
				}
			}
			if got.JSONFramed != framed || string(got.Event.Data()) != `{"orderId":"A-1"}` {
				t.Errorf("framed %v, data %q", got.JSONFramed, got.Event.Data())
			}
		})
	}
}

// TestJSONFramedRecordIDs: a framed JSON record under another version's
// id or an unknown id is a finding, as for Avro and Protobuf; an empty
// or cut frame is data that is not JSON.
func TestJSONFramedRecordIDs(t *testing.T) {
	cat, ids := jsonCatalog(t, "")
	v := &Validator{Catalog: cat, IDs: ids}
	ev := []byte(`{"specversion":"1.0","id":"o-1","source":"/shop","type":"` + jsonFramedType + `","datacontenttype":"application/json","dataschema":"https://schemas.example.com/` + jsonFramedType + `/v1.json","data":{"orderId":"A-1"}}`)
	d, _ := DecodeJSON(ev)
	tests := []struct {
		name  string
		value func(json []byte) []byte
		want  []string
	}{
		{"own id", func(b []byte) []byte { return format.Frame(7, b) }, nil},
		{"other version's id", func(b []byte) []byte { return format.Frame(8, b) }, []string{RuleSchemaIDMismatch}},
		{"unknown id", func(b []byte) []byte { return format.Frame(99, b) }, []string{RuleSchemaIDUnknown}},
		{"frame only", func([]byte) []byte { return format.Frame(7, nil) }, []string{"json-syntax", RuleDataInvalid}},
		{"cut frame", func([]byte) []byte { return []byte{0, 0, 7} }, []string{"json-syntax", RuleDataInvalid}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := ToRecord(context.Background(), &d.Event, ModeBinary)
			if err != nil {
				t.Fatal(err)
			}
			rec.Value = tc.value(rec.Value)
			_, _, fs, err := v.CheckRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range fs {
				if f.Severity == report.SeverityError {
					rules = append(rules, f.Rule)
				}
			}
			if diff := cmp.Diff(tc.want, rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s\n%v", diff, fs)
			}
		})
	}
}
