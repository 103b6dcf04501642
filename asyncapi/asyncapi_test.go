package asyncapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const specURL = "http://asyncapi.com/definitions/3.0.0/asyncapi.json"

var (
	specOnce   sync.Once
	specSchema *jsonschema.Schema
	specErr    error
)

// spec compiles the AsyncAPI 3.0.0 document schema from
// testdata/spec (see SOURCE there); the draft-07 meta-schema it refers to
// is built into santhosh-tekuri/jsonschema, and nothing is fetched.
func spec(t *testing.T) *jsonschema.Schema {
	t.Helper()
	specOnce.Do(func() {
		f, err := os.Open("testdata/spec/asyncapi-3.0.0.json")
		if err != nil {
			specErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			specErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.UseLoader(noNetwork{})
		if err := c.AddResource(specURL, doc); err != nil {
			specErr = err
			return
		}
		specSchema, specErr = c.Compile(specURL)
	})
	if specErr != nil {
		t.Fatalf("compiling the AsyncAPI 3.0.0 schema: %v", specErr)
	}
	return specSchema
}

type noNetwork struct{}

func (noNetwork) Load(url string) (any, error) {
	return nil, fmt.Errorf("test loads nothing from outside testdata: %s", url)
}

func load(t *testing.T, dir string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	return cat
}

func build(t *testing.T, dir string) *Document {
	t.Helper()
	doc, err := Build(load(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var catalogs = []struct{ name, dir string }{
	{"orders", "../examples/orders"},
	{"refs", "testdata/refs"},
	{"formats", "testdata/formats"},
}

// The exported documents are valid AsyncAPI 3.0.0, in JSON and in YAML.
func TestValidAgainstAsyncAPISchema(t *testing.T) {
	sch := spec(t)
	for _, c := range catalogs {
		t.Run(c.name, func(t *testing.T) {
			doc := build(t, c.dir)
			js, err := doc.JSON()
			if err != nil {
				t.Fatal(err)
			}
			v := decode(t, js)
			if err := sch.Validate(v); err != nil {
				t.Fatalf("JSON output is not valid AsyncAPI 3.0.0:\n%v", err)
			}
			ys, err := doc.YAML()
			if err != nil {
				t.Fatal(err)
			}
			var fromYAML any
			if err := yaml.Unmarshal(ys, &fromYAML); err != nil {
				t.Fatal(err)
			}
			// Through JSON, so numbers compare alike.
			yj, err := json.Marshal(fromYAML)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(t, js), normalize(t, yj)); diff != "" {
				t.Errorf("YAML and JSON outputs differ (-json +yaml):\n%s", diff)
			}
			if err := sch.Validate(decode(t, yj)); err != nil {
				t.Fatalf("YAML output is not valid AsyncAPI 3.0.0:\n%v", err)
			}
		})
	}
}

func normalize(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A document that breaks the AsyncAPI schema is caught: the validation
// above is not vacuous.
func TestSpecRejectsBrokenDocument(t *testing.T) {
	sch := spec(t)
	js, err := build(t, "../examples/orders").JSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(m map[string]any){
		"no version": func(m map[string]any) { delete(m["info"].(map[string]any), "version") },
		"bad action": func(m map[string]any) {
			m["operations"].(map[string]any)["com.example.order.placed"].(map[string]any)["action"] = "publish"
		},
		"bad payload schema": func(m map[string]any) {
			m["components"].(map[string]any)["schemas"].(map[string]any)["common.money"].(map[string]any)["type"] = 42
		},
		"bad kafka binding": func(m map[string]any) {
			m["channels"].(map[string]any)["orders"].(map[string]any)["bindings"].(map[string]any)["kafka"].(map[string]any)["partitions"] = 0
		},
		"unknown message field": func(m map[string]any) {
			m["components"].(map[string]any)["messages"].(map[string]any)["com.example.order.placed.v2"].(map[string]any)["owner"] = "x"
		},
	} {
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		breakIt(m)
		b, _ := json.Marshal(m)
		if err := sch.Validate(decode(t, b)); err == nil {
			t.Errorf("%s: the broken document passed the AsyncAPI schema", name)
		}
	}
}

// Every $ref points inside the document, at something that exists.
func TestSelfContained(t *testing.T) {
	for _, c := range catalogs {
		t.Run(c.name, func(t *testing.T) {
			js, err := build(t, c.dir).JSON()
			if err != nil {
				t.Fatal(err)
			}
			root := normalize(t, js)
			n := 0
			var walk func(v any, at string)
			walk = func(v any, at string) {
				switch x := v.(type) {
				case map[string]any:
					if r, ok := x["$ref"].(string); ok {
						n++
						if !strings.HasPrefix(r, "#/") {
							t.Errorf("%s: $ref %q leaves the document", at, r)
						} else if _, err := pointer(root, r[1:]); err != nil {
							t.Errorf("%s: $ref %q: %v", at, r, err)
						}
					}
					for k, e := range x {
						walk(e, at+"/"+k)
					}
				case []any:
					for i, e := range x {
						walk(e, fmt.Sprintf("%s/%d", at, i))
					}
				}
			}
			walk(root, "")
			if n == 0 {
				t.Fatal("no $ref found")
			}
		})
	}
}

func pointer(v any, ptr string) (any, error) {
	if ptr == "" {
		return v, nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("%7E", "~", "%2F", "/", "%25", "%").Replace(tok)
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
			v = e
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no item %q", tok)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%q: not a container", tok)
		}
	}
	return v, nil
}

// The exported payload schemas, read as draft-07 the way AsyncAPI tools
// read them, accept and reject what the catalog's own schemas do.
func TestPayloadsKeepMeaning(t *testing.T) {
	cases := map[string][]string{ // message -> instances (valid or not)
		"com.example.order.placed.v2": {
			`{"orderId":"ord-10233","customerId":"cus-250061","orderVersion":1,"items":[{"sku":"HDP-0310","quantity":1,"unitPrice":{"amountMinor":14900,"currency":"USD"}}],"total":{"amountMinor":14900,"currency":"USD"},"placedAt":"2025-03-03T14:02:33-05:00","channel":"web"}`,
			`{"orderId":"ord-10233","customerId":"cus-250061","orderVersion":1,"items":[{"sku":"HDP-0310","quantity":1,"unitPrice":{"amountMinor":14900,"currency":"USD","rate":2}}],"total":{"amountMinor":14900,"currency":"USD"},"placedAt":"2025-03-03T14:02:33-05:00"}`,
			`{"orderId":"ord-10233","customerId":"cus-250061","orderVersion":1,"items":[],"total":{"amountMinor":1,"currency":"USD"},"placedAt":"2025-03-03T14:02:33-05:00"}`,
			`{"orderId":"ord-1","customerId":"cus-250061","orderVersion":1,"items":[{"sku":"HDP-0310","quantity":1,"unitPrice":{"amountMinor":1,"currency":"USD"}}],"total":{"amountMinor":1,"currency":"USD"},"placedAt":"x","channel":"fax"}`,
		},
		"com.acme.doc.saved.v1": {
			`{"id":"doc-0001"}`, `{"id":"abc-0001"}`, `{"id":"doc-1"}`, `{"id":"doc-0001","author":{"name":"A","x":1}}`,
		},
		"com.acme.doc.saved.v2": {
			`{"id":"doc-0002","author":{"name":"Ada","email":"a@b.c"},"position":[3,12.5],"checksum":"ab","algorithm":"sha256"}`,
			`{"id":"doc-0002","author":{"name":"Ada"}}`,
			`{"id":"doc-0002","position":[3,12.5,1]}`,
			`{"id":"doc-0002","position":[-1]}`,
			`{"id":"doc-0002","position":[1,-180]}`,
			`{"id":"doc-0002","checksum":"ab"}`,
			`{"id":"doc-0002","algorithm":"blake3"}`,
			`{"id":"doc-0002","a/b~c":"yes"}`,
		},
		"com.acme.tree.grown.v1": {
			`{"label":"a","children":[{"label":"b","children":[{"label":"c"}]}]}`,
			`{"label":"a","children":[{"label":""}]}`,
			`{"children":[]}`,
		},
		"com.acme.legacy.pinged.v1": {
			`{"host":"h","latencyMs":0.5}`, `{"host":"h","latencyMs":0}`, `{"host":"h","latencyMs":60001}`,
		},
		"com.acme.legacy.pinged.v2": {
			`{"host":"h","latencyMs":1,"via":"relay"}`, `{"host":"h","latencyMs":1,"via":"R1"}`, `{"host":"h","latencyMs":0}`,
		},
	}
	for _, c := range catalogs {
		cat := load(t, c.dir)
		comp, _ := compileExport(t, cat)
		for _, typ := range cat.Types {
			for _, v := range typ.Versions {
				key := messageKey(typ, v)
				instances, ok := cases[key]
				if !ok {
					continue
				}
				exported, err := comp.Compile(docURL + "#/components/schemas/" + key)
				if err != nil {
					t.Fatalf("%s: compiling the exported payload: %v", key, err)
				}
				for _, in := range instances {
					inst := decode(t, []byte(in))
					want := v.Compiled.(format.ValueValidator).ValidateValue(inst) == nil
					got := exported.Validate(inst) == nil
					if got != want {
						t.Errorf("%s: %s: catalog says valid=%v, exported says valid=%v", key, in, want, got)
					}
				}
				for _, e := range v.Examples {
					if err := exported.Validate(decode(t, e.Text)); err != nil {
						t.Errorf("%s: example %s rejected by the exported payload: %v", key, e.File, err)
					}
				}
				delete(cases, key)
			}
		}
	}
	for key := range cases {
		t.Errorf("no message %s exported", key)
	}
}

// Keywords without a draft-07 spelling are reported, naming the place.
func TestWarnings(t *testing.T) {
	doc := build(t, "testdata/refs")
	var got []string
	for _, w := range doc.Warnings {
		got = append(got, w.String())
	}
	want := []string{filepath.FromSlash("testdata/refs/schemas/com.acme.tree.grown/v1.json") +
		": /unevaluatedProperties: unevaluatedProperties has no draft-07 equivalent: kept as written, and AsyncAPI tools reading draft-07 ignore it (they accept more than the catalog does)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if w := build(t, "../examples/orders").Warnings; len(w) != 0 {
		t.Errorf("orders: unexpected warnings %v", w)
	}
}

// Golden outputs: go test ./asyncapi -update rewrites them.
func TestGolden(t *testing.T) {
	for _, g := range []struct {
		dir, golden string
		json        bool
	}{
		{"../examples/orders", "testdata/orders.golden.yaml", false},
		{"testdata/refs", "testdata/refs.golden.json", true},
		{"testdata/formats", "testdata/formats.golden.yaml", false},
	} {
		doc := build(t, g.dir)
		var got []byte
		var err error
		if g.json {
			got, err = doc.JSON()
		} else {
			got, err = doc.YAML()
		}
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(g.golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(g.golden)
		if err != nil {
			t.Fatalf("%v (run go test ./asyncapi -update)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s differs (-want +got); if intended, run go test ./asyncapi -update:\n%s", g.golden, diff)
		}
	}
}

// The same catalog gives the same bytes, run after run.
func TestDeterministic(t *testing.T) {
	for _, c := range catalogs {
		var first []byte
		for i := 0; i < 3; i++ {
			doc := build(t, c.dir)
			y, err := doc.YAML()
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = y
			} else if !bytes.Equal(first, y) {
				t.Fatalf("%s: run %d differs from run 0", c.name, i)
			}
		}
	}
}

func TestOrderedRoundTrip(t *testing.T) {
	in := `{"b":1,"a":[true,null,"x<y>&"],"c":{"z":1.5e3,"y":{}},"d":[]}`
	v, err := decodeOrdered([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := encodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		t.Fatal(err)
	}
	if compact.String() != in {
		t.Errorf("round trip: got %s, want %s", compact.String(), in)
	}
	if _, err := decodeOrdered([]byte(`{"a":1} x`)); err == nil {
		t.Error("trailing data accepted")
	}
}

// docURL is where compileExport puts the exported document.
const docURL = "file:///asyncapi.json"

// compileExport exports cat and adds the document to a draft-7 compiler
// (the AsyncAPI schema dialect) at docURL; it returns the compiler and the
// decoded document.
func compileExport(t *testing.T, cat *catalog.Catalog) (*jsonschema.Compiler, any) {
	t.Helper()
	doc, err := Build(cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := doc.JSON()
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft7)
	comp.UseLoader(noNetwork{})
	parsed := decode(t, js)
	if err := comp.AddResource(docURL, parsed); err != nil {
		t.Fatal(err)
	}
	return comp, parsed
}

// AsyncAPI 3.0: an example's headers must validate against its message's
// headers schema, as its payload against the payload.
func TestExampleHeadersValidate(t *testing.T) {
	for _, c := range catalogs {
		comp, parsed := compileExport(t, load(t, c.dir))
		messages := parsed.(map[string]any)["components"].(map[string]any)["messages"].(map[string]any)
		n := 0
		for key, m := range messages {
			examples, _ := m.(map[string]any)["examples"].([]any)
			if len(examples) == 0 {
				continue
			}
			headers, err := comp.Compile(docURL + "#/components/messages/" + key + "/headers")
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			for _, e := range examples {
				e := e.(map[string]any)
				if err := headers.Validate(e["headers"]); err != nil {
					t.Errorf("%s: example %v: headers rejected: %v", key, e["name"], err)
				}
				n++
			}
		}
		if n == 0 && c.name != "formats" { // Avro and Protobuf messages carry no examples
			t.Errorf("%s: no example checked", c.dir)
		}
	}
}

// A type without a topic and a topic named like that type stay two
// channels: the topic keeps its address, the type its unknown one.
func TestTopicNamedLikeTopiclessType(t *testing.T) {
	dir := t.TempDir()
	src := "../examples/orders"
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if !strings.HasPrefix(filepath.ToSlash(rel), "schemas/") && rel != "evtool.yaml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch filepath.ToSlash(rel) {
		case "schemas/com.example.order.paid/event.yaml":
			data = bytes.Replace(data, []byte("topic: orders\n"), nil, 1)
		case "schemas/com.example.order.shipped/event.yaml":
			data = bytes.Replace(data, []byte("topic: orders\n"), []byte("topic: com.example.order.paid\n"), 1)
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Build(load(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := doc.JSON()
	channels := decode(t, js).(map[string]any)["channels"].(map[string]any)
	topic, _ := channels["com.example.order.paid"].(map[string]any)
	typ, _ := channels["com.example.order.paid.no-topic"].(map[string]any)
	if topic == nil || typ == nil || topic["address"] != "com.example.order.paid" || typ["address"] != nil {
		t.Fatalf("channels: %s", js)
	}
	if msgs := topic["messages"].(map[string]any); len(msgs) != 1 || msgs["com.example.order.shipped.v1"] == nil {
		t.Fatalf("topic channel messages %v", msgs)
	}
	if msgs := typ["messages"].(map[string]any); len(msgs) != 1 || msgs["com.example.order.paid.v1"] == nil {
		t.Fatalf("type channel messages %v", msgs)
	}
}

// Avro and Protobuf payloads are Multi Format Schema Objects with the
// specification's schemaFormat strings: the Avro schema as a JSON object,
// the .proto text as a string; the content type is the binary encoding's.
func TestFormatPayloads(t *testing.T) {
	js, err := build(t, "testdata/formats").JSON()
	if err != nil {
		t.Fatal(err)
	}
	messages := normalize(t, js).(map[string]any)["components"].(map[string]any)["messages"].(map[string]any)
	for _, c := range []struct {
		key, format, contentType string
		object                   bool
	}{
		{"com.example.payment.made.v2", "application/vnd.apache.avro+json;version=1.9.0", "application/avro", true},
		{"com.example.stock.moved.v1", "application/vnd.google.protobuf;version=3", "application/protobuf", false},
	} {
		m := messages[c.key].(map[string]any)
		p := m["payload"].(map[string]any)
		if p["schemaFormat"] != c.format || m["contentType"] != c.contentType {
			t.Errorf("%s: schemaFormat %v, contentType %v", c.key, p["schemaFormat"], m["contentType"])
		}
		switch s := p["schema"].(type) {
		case map[string]any:
			if !c.object || s["type"] != "record" {
				t.Errorf("%s: schema %v", c.key, s)
			}
		case string:
			if c.object || !strings.Contains(s, "message StockMoved") {
				t.Errorf("%s: schema %q", c.key, s)
			}
		default:
			t.Errorf("%s: schema is %T", c.key, s)
		}
		ct := m["headers"].(map[string]any)["properties"].(map[string]any)["content-type"].(map[string]any)["const"]
		if ct != c.contentType {
			t.Errorf("%s: content-type header const %v", c.key, ct)
		}
	}
}

// A proto2 file is schemaFormat version=2: the AsyncAPI specification
// names the two syntaxes apart.
func TestProto2SchemaFormat(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"evtool.yaml":                            "version: 1\nschemas: schemas\n",
		"schemas/com.example.old.moved/v1.proto": "syntax = \"proto2\";\nmessage Moved { optional string sku = 1; }\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	js, err := build(t, dir).JSON()
	if err != nil {
		t.Fatal(err)
	}
	m := normalize(t, js).(map[string]any)["components"].(map[string]any)["messages"].(map[string]any)["com.example.old.moved.v1"].(map[string]any)
	if got := m["payload"].(map[string]any)["schemaFormat"]; got != "application/vnd.google.protobuf;version=2" {
		t.Errorf("schemaFormat %v", got)
	}
}
