package asyncapi

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
)

// bundleCatalogs are the catalogs whose Avro and Protobuf payloads the
// bundling tests check: the examples and the test catalogs.
var bundleCatalogs = []string{"../examples/orders", "../examples/payments", "../examples/inventory", "testdata/formats", "testdata/bundles"}

// eachVersion calls fn with every version of the bundle catalogs.
func eachVersion(t *testing.T, fn func(ty *catalog.EventType, v *catalog.Version)) {
	t.Helper()
	for _, dir := range bundleCatalogs {
		cat, err := catalog.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, ty := range cat.Types {
			for _, v := range ty.Versions {
				fn(ty, v)
			}
		}
	}
}

// TestAvroPayloadInlined: the Avro schema a payload embeds is the
// version's schema (same Parsing Canonical Form, compiled on its own),
// with simple names only, and keeps the docs of its own file and of the
// shared files it inlines.
func TestAvroPayloadInlined(t *testing.T) {
	wantDocs := map[string][]string{
		"com.example.pay.done": {"A payment was done.", "The payment.", "What the payment cost.", "An amount in minor units and its currency.", "ISO 4217.", "Fee included."},
	}
	n := 0
	eachVersion(t, func(ty *catalog.EventType, v *catalog.Version) {
		s, ok := v.Compiled.(*avro.Schema)
		if !ok {
			return
		}
		n++
		doc, err := avroPayloadSchema(s)
		if err != nil {
			t.Fatalf("%s: %v", v.File, err)
		}
		text, err := encodeJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := avro.Parse("payload.avsc", text)
		if err != nil {
			t.Errorf("%s: the payload's schema does not compile on its own: %v\n%s", v.File, err, text)
			return
		}
		if got, want := string(alone.Canonical()), string(s.Canonical()); got != want {
			t.Errorf("%s: the payload's schema is another schema:\n got %s\nwant %s", v.File, got, want)
		}
		var plain any
		_ = json.Unmarshal(text, &plain)
		for _, name := range namedTypeNames(plain) {
			if strings.Contains(name, ".") {
				t.Errorf("%s: named type %q: the AsyncAPI Avro parser wants a simple name and a namespace", v.File, name)
			}
		}
		for _, d := range wantDocs[ty.Name] {
			if !strings.Contains(string(text), fmt.Sprintf("%q", d)) {
				t.Errorf("%s: doc %q dropped:\n%s", v.File, d, text)
			}
		}
	})
	if n < 5 {
		t.Fatalf("%d Avro versions checked", n)
	}
}

// namedTypeNames lists the "name" of every record, enum and fixed of an
// Avro schema document.
func namedTypeNames(v any) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		switch t["type"] {
		case "record", "error", "enum", "fixed":
			if s, ok := t["name"].(string); ok {
				out = append(out, s)
			}
		}
		for _, c := range t {
			out = append(out, namedTypeNames(c)...)
		}
	case []any:
		for _, c := range t {
			out = append(out, namedTypeNames(c)...)
		}
	}
	return out
}

// TestProtoPayloadBundled: the .proto text a payload embeds imports no
// catalog file, compiles on its own (the well-known files aside), and its
// event message has the version's fields, down to the messages they use;
// a version without imports is embedded as written.
func TestProtoPayloadBundled(t *testing.T) {
	n, bundles := 0, 0
	eachVersion(t, func(_ *catalog.EventType, v *catalog.Version) {
		s, ok := v.Compiled.(*protobuf.Schema)
		if !ok {
			return
		}
		n++
		text, err := protoPayloadSchema(v.Text, s)
		if err != nil {
			t.Fatalf("%s: %v", v.File, err)
		}
		if len(s.Files) == 1 { // no catalog file imported
			if text != string(v.Text) {
				t.Errorf("%s: a file without imports changed", v.File)
			}
			return
		}
		bundles++
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "import ") && !strings.Contains(line, `"google/protobuf/`) {
				t.Errorf("%s: the bundle still imports: %s", v.File, line)
			}
		}
		if !strings.Contains(text, "// @RootNode\nmessage "+string(s.Message.Name())+" {") {
			t.Errorf("%s: the event message is not marked @RootNode:\n%s", v.File, text)
		}
		alone, err := protobuf.Load(fstest.MapFS{"bundle.proto": {Data: []byte(text)}}, "bundle.proto", string(s.Message.FullName()))
		if err != nil {
			t.Errorf("%s: the bundle does not compile on its own: %v\n%s", v.File, err, text)
			return
		}
		if got, want := shape(alone.Message, 4), shape(s.Message, 4); got != want {
			t.Errorf("%s: the bundle's event message differs:\n got %s\nwant %s", v.File, got, want)
		}
	})
	if n < 4 || bundles < 2 {
		t.Fatalf("%d Protobuf versions checked, %d bundled", n, bundles)
	}
}

// shape describes a message by its fields (name, number, cardinality,
// kind) and, to depth, the shapes of the messages and the values of the
// enums they use: what does not depend on where a type is declared.
func shape(m protoreflect.MessageDescriptor, depth int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range m.Fields().Len() {
		f := m.Fields().Get(i)
		fmt.Fprintf(&b, "%s=%d %s %s", f.Name(), f.Number(), f.Cardinality(), f.Kind())
		switch {
		case f.Message() != nil && depth > 0:
			b.WriteString(shape(f.Message(), depth-1))
		case f.Enum() != nil:
			for j := range f.Enum().Values().Len() {
				fmt.Fprintf(&b, " %s", f.Enum().Values().Get(j).Name())
			}
		}
		b.WriteString("; ")
	}
	b.WriteString("}")
	return b.String()
}

// TestAsyncAPIParsersAccept: the AsyncAPI documents of the example
// catalogs and the test catalogs pass @asyncapi/parser with the Avro and
// Protobuf schema parsers, as `asyncapi validate` (@asyncapi/cli) runs
// them. It runs when node and the packages are installed (NODE_PATH
// naming a node_modules holding them), and never installs anything:
//
//	npm install --prefix DIR @asyncapi/parser @asyncapi/avro-schema-parser @asyncapi/protobuf-schema-parser
//	NODE_PATH=DIR/node_modules go test ./asyncapi -run TestAsyncAPIParsersAccept
func TestAsyncAPIParsersAccept(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "parser", "validate.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@asyncapi/parser", "@asyncapi/avro-schema-parser", "@asyncapi/protobuf-schema-parser"} {
		probe := exec.Command(node, "-e", fmt.Sprintf("require.resolve(%q)", pkg))
		probe.Dir = filepath.Dir(script)
		if err := probe.Run(); err != nil {
			t.Skipf("npm package %s not installed (set NODE_PATH to a node_modules holding @asyncapi/parser, @asyncapi/avro-schema-parser and @asyncapi/protobuf-schema-parser)", pkg)
		}
	}
	tmp := t.TempDir()
	var files []string
	for i, dir := range bundleCatalogs {
		cat, err := catalog.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Build(cat, Options{})
		if err != nil {
			t.Fatal(err)
		}
		data, err := doc.JSON()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, fmt.Sprintf("%d-%s.json", i, filepath.Base(dir)))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	cmd := exec.Command(node, append([]string{script}, files...)...)
	cmd.Dir = filepath.Dir(script)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node validate.js: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var res struct {
			File   string
			Errors []struct{ Path, Message string }
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("validate.js printed %q: %v", line, err)
		}
		seen++
		for i, e := range res.Errors {
			if i == 5 {
				t.Errorf("%s: and %d more", res.File, len(res.Errors)-5)
				break
			}
			t.Errorf("%s: %s: %s", filepath.Base(res.File), e.Path, e.Message)
		}
	}
	if seen != len(files) {
		t.Fatalf("validate.js answered for %d of %d documents:\n%s", seen, len(files), out)
	}
}
