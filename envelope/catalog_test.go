package envelope

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/report"
)

func testCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	fsys := fstest.MapFS{
		"evtool.yaml":                {Data: []byte("version: 1\ndataschema: https://s.example/{type}/v{version}.json\n")},
		"schemas/com.x.a/event.yaml": {Data: []byte("source: /svc/a(/.*)?\ndeprecated: [1]\n")},
		"schemas/com.x.a/v1.json":    {Data: []byte(`{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}`)},
		"schemas/com.x.a/v2.json":    {Data: []byte(`{"type":"object","required":["id","n"],"properties":{"id":{"type":"string"},"n":{"type":"integer","maximum":9}}}`)},
		"schemas/com.x.b/v1.json":    {Data: []byte(`{"type":"object"}`)},
	}
	cat, err := catalog.LoadFS(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// summarize renders findings as "severity rule pointer".
func summarize(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.Rule, f.Pointer))
	}
	return out
}

func TestValidatorCatalogRules(t *testing.T) {
	v := &Validator{Catalog: testCatalog(t)}
	event := func(extra string) []byte {
		return []byte(`{"specversion":"1.0","id":"1","source":"/svc/a","type":"com.x.a"` + extra + `}`)
	}
	tests := []struct {
		name    string
		raw     []byte
		version int
		want    []string // "severity rule pointer"
	}{
		{"valid v2", event(`,"dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":1}`), 2, nil},
		{"data invalid", event(`,"dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":10}`), 2,
			[]string{"error data-invalid /data/n"}},
		{"missing required", event(`,"dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x"}`), 2,
			[]string{"error data-invalid /data"}},
		{"no data", event(`,"dataschema":"https://s.example/com.x.a/v2.json"`), 2,
			[]string{"error data-invalid /data"}},
		{"deprecated version", event(`,"dataschema":"https://s.example/com.x.a/v1.json","data":{"id":"x"}`), 1,
			[]string{"warning deprecated-version /dataschema"}},
		{"no dataschema: latest, warned", event(`,"data":{"id":"x","n":1}`), 2,
			[]string{"warning dataschema-missing /dataschema"}},
		{"unknown version", event(`,"dataschema":"https://s.example/com.x.a/v3.json","data":{}`), 0,
			[]string{"error unknown-version /dataschema"}},
		{"dataschema names another type", event(`,"dataschema":"https://s.example/com.x.b/v1.json","data":{}`), 0,
			[]string{"error dataschema-type-mismatch /dataschema"}},
		{"dataschema off template", event(`,"dataschema":"https://elsewhere/x.json","data":{}`), 0,
			[]string{"error dataschema-unknown /dataschema"}},
		{"unknown type", []byte(`{"specversion":"1.0","id":"1","source":"/svc/a","type":"com.x.zzz","data":{}}`), 0,
			[]string{"error unknown-type /type"}},
		{"source mismatch", []byte(`{"specversion":"1.0","id":"1","source":"/other","type":"com.x.a","dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":1}}`), 2,
			[]string{"error source-mismatch /source"}},
		{"non-JSON data", event(`,"dataschema":"https://s.example/com.x.a/v2.json","datacontenttype":"text/plain","data":"hi"`), 2,
			[]string{"error data-not-json /datacontenttype"}},
		{"invalid dataschema: not read as missing", event(`,"dataschema":"/com.x.a/v1.json","data":{"id":"x","n":1}`), 0,
			[]string{"error ce-dataschema /dataschema"}},
		{"empty dataschema: not read as missing", event(`,"dataschema":"","data":{"id":"x","n":1}`), 0,
			[]string{"error ce-dataschema /dataschema"}},
		{"invalid datacontenttype: no false data finding", event(`,"dataschema":"https://s.example/com.x.a/v2.json","datacontenttype":"json","data":{"id":"x","n":1}`), 2,
			[]string{"error ce-datacontenttype /datacontenttype"}},
		{"data and data_base64: no misleading no-data finding", event(`,"dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":1},"data_base64":"AA=="`), 2,
			[]string{"error ce-data-exclusive /data_base64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ver, fs := v.Validate(tt.raw)
			got := summarize(fs)
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("findings = %q, want %q\n%v", got, tt.want, fs)
			}
			n := 0
			if ver != nil {
				n = ver.Number
			}
			if n != tt.version {
				t.Errorf("version = %d, want %d", n, tt.version)
			}
		})
	}
}

func TestValidatorLinesInPrettyEvents(t *testing.T) {
	v := &Validator{Catalog: testCatalog(t)}
	raw := []byte("{\n \"specversion\": \"1.0\",\n \"id\": \"1\",\n \"source\": \"/svc/a\",\n \"type\": \"com.x.a\",\n \"data\": {\n  \"id\": 7\n },\n \"time\": \"yesterday\"\n}")
	_, _, fs := v.Validate(raw)
	lines := map[string]int{}
	for _, f := range fs {
		lines[f.Rule+" "+f.Pointer] = f.Line
	}
	// A catalog finding and an envelope finding, each on its own line.
	if lines["data-invalid /data/id"] != 7 || lines["ce-time /time"] != 9 {
		t.Fatalf("lines %v: %v", lines, fs)
	}
}

// The validator is shared by all workers of `evtool validate`.
func TestValidatorConcurrent(t *testing.T) {
	v := &Validator{Catalog: testCatalog(t)}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				raw := fmt.Appendf(nil, `{"specversion":"1.0","id":"%d","source":"/svc/a/%d","type":"com.x.a","dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":%d}}`, i, i%7, i%12)
				_, _, fs := v.Validate(raw)
				bad := i%12 > 9
				failed := false
				for _, f := range fs {
					failed = failed || f.Severity == report.SeverityError
				}
				if failed != bad {
					t.Errorf("event %d: failed=%v, want %v: %v", i, failed, bad, fs)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func BenchmarkValidatorValidate(b *testing.B) {
	v := &Validator{Catalog: testCatalog(b)}
	raw := []byte(`{"specversion":"1.0","id":"1","source":"/svc/a","type":"com.x.a","datacontenttype":"application/json","dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":1}}`)
	b.ReportAllocs()
	for b.Loop() {
		v.Validate(raw)
	}
}

// santhosh v6 panics on numbers math/big cannot hold; the parser refuses
// them first.
func TestHugeExponentRejected(t *testing.T) {
	v := &Validator{Catalog: testCatalog(t)}
	raw := []byte(`{"specversion":"1.0","id":"1","source":"/svc/a","type":"com.x.a","dataschema":"https://s.example/com.x.a/v2.json","data":{"id":"x","n":1e9999999}}`)
	d, _, fs := v.Validate(raw)
	if d != nil || len(fs) != 1 || fs[0].Rule != RuleJSONSyntax {
		t.Fatalf("decoded = %v, findings = %v", d != nil, fs)
	}
}

// The template is matched against the dataschema as the event spells it,
// not its normalised URL: an upper-case scheme in the template matches
// its own output, and an empty fragment is not dropped.
func TestDataSchemaMatchedAsSpelled(t *testing.T) {
	cat, err := catalog.LoadFS(fstest.MapFS{
		"evtool.yaml":             {Data: []byte("version: 1\ndataschema: HTTPS://Schemas.Example.com/{type}/v{version}.json\n")},
		"schemas/com.x.a/v1.json": {Data: []byte(`{"type":"object"}`)},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	v := &Validator{Catalog: cat}
	ev := func(ds string) []byte {
		return []byte(`{"specversion":"1.0","id":"1","source":"/s","type":"com.x.a","dataschema":"` + ds + `","data":{}}`)
	}
	if _, ver, fs := v.Validate(ev("HTTPS://Schemas.Example.com/com.x.a/v1.json")); ver == nil || ver.Number != 1 || len(fs) != 0 {
		t.Fatalf("the template's own output: %v", fs)
	}
	if _, _, fs := v.Validate(ev("HTTPS://Schemas.Example.com/com.x.a/v1.json#")); len(fs) != 1 || fs[0].Rule != RuleDataSchemaTemplate {
		t.Fatalf("with an empty fragment: %v", fs)
	}
}
