package registryserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/schemaregistry"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// TestServeFormats: serve answers Avro and Protobuf types with their
// schemaType and references, serves the shared files as subjects,
// registers a compatible version with references (once), and refuses an
// incompatible one with evtool's rule ids.
func TestServeFormats(t *testing.T) {
	cases := []struct {
		name, subject, ext, schemaType string
		shared                         string // a shared subject, and its file
		sharedFile                     string
		refs                           []sr.SchemaReference
		compatible, incompatible       string
		rule                           string
	}{
		{
			name: "avro", subject: "com.example.payment.made", ext: ".avsc", schemaType: "AVRO",
			shared: "com.example.common.Fee", sharedFile: "common/fee.avsc",
			refs: []sr.SchemaReference{{Name: "com.example.common.Money", Subject: "com.example.common.Money", Version: 1},
				{Name: "com.example.common.Fee", Subject: "com.example.common.Fee", Version: 1}},
			compatible: compatibleAvroV3,
			incompatible: `{"type":"record","name":"PaymentMade","namespace":"com.example.payment","fields":[
  {"name":"id","type":"int"},{"name":"amount","type":"com.example.common.Money"},
  {"name":"fee","type":["null","com.example.common.Fee"],"default":null},{"name":"note","type":"string","default":""}]}`,
			rule: "avro-",
		},
		{
			name: "proto", subject: "com.example.stock.moved", ext: ".proto", schemaType: "PROTOBUF",
			shared: "common/place.proto", sharedFile: "common/place.proto",
			refs:       []sr.SchemaReference{{Name: "common/place.proto", Subject: "common/place.proto", Version: 1}},
			compatible: compatibleProtoV3,
			incompatible: `syntax = "proto3";
package stock;
import "common/place.proto";
import "google/protobuf/timestamp.proto";
message StockMoved {
  int64 sku = 1;
  common.Place from = 2;
  google.protobuf.Timestamp at = 3;
  common.Place to = 4;
}
`,
			rule: "proto-",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := formatCatalog(t, tc.name)
			s, srURL := startServer(t, ServerOptions{Dir: dir})
			if got := doHandler(t, s, "GET", "/schemas/types", ""); strings.TrimSpace(got.body) != `["JSON","PROTOBUF","AVRO"]` {
				t.Fatalf("/schemas/types = %s", got.body)
			}
			cl := srtest.SRClient(t, srURL)
			subjects, err := cl.Subjects(ctx)
			if err != nil || !strings.Contains(strings.Join(subjects, " "), tc.shared) {
				t.Fatalf("subjects %v (%v) lack the shared %s", subjects, err, tc.shared)
			}
			v2, err := cl.SchemaByVersion(ctx, tc.subject, 2)
			if err != nil {
				t.Fatal(err)
			}
			if v2.Type.String() != tc.schemaType || len(v2.References) == 0 {
				t.Fatalf("v2: type %s, references %v", v2.Type, v2.References)
			}
			file, _ := os.ReadFile(filepath.Join(dir, "schemas", tc.subject, "v2"+tc.ext))
			if v2.Schema.Schema != string(file) {
				t.Errorf("v2 is served as %q, the file is %q", v2.Schema.Schema, file)
			}
			sh, err := cl.SchemaByVersion(ctx, tc.shared, -1)
			sharedText, _ := os.ReadFile(filepath.Join(dir, "schemas", filepath.FromSlash(tc.sharedFile)))
			if err != nil || sh.Version != 1 || sh.Schema.Schema != string(sharedText) {
				t.Fatalf("shared subject %s: %+v %v", tc.shared, sh, err)
			}
			if by := doHandler(t, s, "GET", "/subjects/"+url.PathEscape(tc.shared)+"/versions/1/referencedby", ""); !strings.Contains(by.body, fmt.Sprint(v2.ID)) {
				t.Errorf("%s is referenced by %s, want v2's id %d among them", tc.shared, by.body, v2.ID)
			}
			byID, err := cl.SchemaByID(ctx, v2.ID)
			if err != nil || len(byID.References) != len(v2.References) || byID.Type != v2.Type {
				t.Fatalf("schema %d by id: %+v %v", v2.ID, byID, err)
			}

			schema := sr.Schema{Schema: tc.compatible, Type: v2.Type, References: tc.refs}
			ss, err := cl.CreateSchema(ctx, tc.subject, schema)
			if err != nil || ss.Version != 3 {
				t.Fatalf("register: %+v %v", ss, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "schemas", tc.subject, "v3"+tc.ext)); err != nil {
				t.Fatalf("v3 not written: %v", err)
			}
			again, err := cl.CreateSchema(ctx, tc.subject, schema)
			if err != nil || again.ID != ss.ID || again.Version != 3 {
				t.Fatalf("registering it again: %+v %v", again, err)
			}
			found, err := cl.LookupSchema(ctx, tc.subject, schema)
			if err != nil || found.Version != 3 {
				t.Fatalf("lookup: %+v %v", found, err)
			}

			bad := sr.Schema{Schema: tc.incompatible, Type: v2.Type, References: tc.refs}
			_, err = cl.RegisterSchema(ctx, tc.subject, bad, -1, -1)
			if srtest.SRCode(err) != codeIncompatible || !strings.Contains(err.Error(), tc.rule) {
				t.Fatalf("incompatible registration: %v", err)
			}
			if strings.Contains(err.Error(), "profile )") {
				t.Errorf("the refusal names an empty profile: %v", err)
			}
			res, err := cl.CheckCompatibility(ctx, tc.subject, -1, bad)
			if err != nil || res.Is {
				t.Fatalf("compatibility: %+v %v", res, err)
			}
			body, _ := json.Marshal(map[string]any{"schema": bad.Schema, "schemaType": tc.schemaType, "references": bad.References})
			verbose := doHandler(t, s, "POST", "/compatibility/subjects/"+url.PathEscape(tc.subject)+"/versions/latest?verbose=true", string(body))
			if verbose.status != 200 || !strings.Contains(verbose.body, `"is_compatible":false`) || !strings.Contains(verbose.body, tc.rule) {
				t.Fatalf("verbose compatibility: %d %s", verbose.status, verbose.body)
			}
			if _, err := os.Stat(filepath.Join(dir, "schemas", tc.subject, "v4"+tc.ext)); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("an incompatible schema was written: %v", err)
			}

			// Refused: no reference to a shared schema it uses, a
			// reference outside the shared subjects, another format.
			for _, r := range []struct {
				schema sr.Schema
				want   string
			}{
				{sr.Schema{Schema: tc.compatible, Type: v2.Type}, "without a schema reference"},
				{sr.Schema{Schema: tc.compatible, Type: v2.Type, References: append([]sr.SchemaReference{{Name: "../../etc/passwd", Subject: "../../etc/passwd", Version: 1}}, tc.refs...)}, "not a shared schema"},
				{sr.Schema{Schema: `{"type":"object"}`, Type: sr.TypeJSON}, "not schemaType JSON"},
			} {
				_, err := cl.RegisterSchema(ctx, tc.subject, r.schema, -1, -1)
				if srtest.SRCode(err) != codeInvalidSchema || !strings.Contains(err.Error(), r.want) {
					t.Errorf("want 42201 %q, got %v", r.want, err)
				}
			}
			// A shared file changes in git, not through a registration.
			_, err = cl.RegisterSchema(ctx, tc.shared, sr.Schema{Schema: strings.Replace(string(sharedText), "warehouse", "store", 1), Type: v2.Type,
				References: []sr.SchemaReference{{Name: "common/money.proto", Subject: "common/money.proto", Version: 1}}}, -1, -1)
			if tc.name == "avro" {
				_, err = cl.RegisterSchema(ctx, tc.shared, sr.Schema{Schema: strings.Replace(string(sharedText), `"reason"`, `"why"`, 1), Type: v2.Type, References: tc.refs[:1]}, -1, -1)
			}
			if srtest.SRCode(err) != codeNotPermitted {
				t.Errorf("changing a shared subject: %v", err)
			}
		})
	}
}

// TestServeRegistersSharedSchemaFirst: what Confluent's clients do with
// references (register the referenced schema under its own subject, then
// the schema that references it) creates a shared file and a type.
func TestServeRegistersSharedSchemaFirst(t *testing.T) {
	dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\n", "schemas/.keep": ""})
	_, url := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, url)
	money := `{"type":"record","name":"Money","namespace":"com.example.common","fields":[{"name":"units","type":"long"}]}`
	if _, err := cl.RegisterSchema(ctx, "com.example.common.Money", sr.Schema{Schema: money}, -1, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "common", "com.example.common.Money.avsc")); err != nil {
		t.Fatalf("the shared schema is not a shared file: %v", err)
	}
	paid := `{"type":"record","name":"Paid","namespace":"com.example","fields":[{"name":"amount","type":"com.example.common.Money"}]}`
	ss, err := cl.CreateSchema(ctx, "com.example.order.paid", sr.Schema{Schema: paid,
		References: []sr.SchemaReference{{Name: "com.example.common.Money", Subject: "com.example.common.Money", Version: 1}}})
	if err != nil || ss.Version != 1 || len(ss.References) != 1 {
		t.Fatalf("register: %+v %v", ss, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "com.example.order.paid", "v1.avsc")); err != nil {
		t.Fatal(err)
	}
	srtest.LoadCat(t, dir)
	// A hostile subject for a shared schema stays out of the file system.
	for _, subj := range []string{"../evil.proto", "common/../../evil.proto", ".registry/x.proto"} {
		_, err := cl.RegisterSchema(ctx, subj, sr.Schema{Schema: `syntax = "proto3"; message X {}`, Type: sr.TypeProtobuf}, -1, -1)
		if err == nil {
			t.Errorf("subject %q was registered", subj)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.proto")); err == nil {
		t.Fatal("a file was written outside the catalog")
	}
}

// TestPullHostileReferenceNames: reference names from a registry never
// name files outside the catalog root: pull skips the subject.
func TestPullHostileReferenceNames(t *testing.T) {
	for _, tc := range []struct {
		kind format.Kind
		name string
		text string
	}{
		{format.Protobuf, "../../evil.proto", `syntax = "proto3"; package e; message E {}`},
		{format.Protobuf, "/etc/evil.proto", `syntax = "proto3"; package e; message E {}`},
		{format.Protobuf, ".registry/ids.proto", `syntax = "proto3"; package e; message E {}`},
		{format.Protobuf, `common\..\..\evil.proto`, `syntax = "proto3"; package e; message E {}`},
		{format.Protobuf, "com.example.x/v1.proto", `syntax = "proto3"; package e; message E {}`},
		{format.Avro, "../../evil", `{"type":"record","name":"E","fields":[]}`},
		{format.Avro, "a/b", `{"type":"record","name":"E","fields":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := srfake.New()
			t.Cleanup(reg.Close)
			cl := srtest.SRClient(t, reg.URL())
			st := wire.SchemaType(tc.kind)
			if _, err := cl.RegisterSchema(ctx, "ref", sr.Schema{Schema: tc.text, Type: st}, -1, -1); err != nil {
				t.Fatal(err)
			}
			main := `syntax = "proto3"; package m; import "` + strings.ReplaceAll(tc.name, `\`, `\\`) + `"; message M { e.E e = 1; }`
			if tc.kind == format.Avro {
				main = `{"type":"record","name":"M","fields":[{"name":"e","type":"E"}]}`
			}
			if _, err := cl.RegisterSchema(ctx, "com.example.x", sr.Schema{Schema: main, Type: st,
				References: []sr.SchemaReference{{Name: tc.name, Subject: "ref", Version: 1}}}, -1, -1); err != nil {
				t.Fatal(err)
			}
			base := t.TempDir()
			out := filepath.Join(base, "a", "pulled")
			var warnings []string
			res, err := schemaregistry.Pull(ctx, newClient(t, schemaregistry.ClientOptions{URL: reg.URL()}), schemaregistry.PullOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType}, Out: out,
				Warn: func(m string) { warnings = append(warnings, m) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Types != 0 || !strings.Contains(strings.Join(warnings, "\n"), "skipped subject com.example.x") {
				t.Fatalf("pulled %d types; warnings %q", res.Types, warnings)
			}
			_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !strings.HasPrefix(p, out+string(filepath.Separator)) {
					t.Errorf("pull wrote %s, outside %s", p, out)
				}
				return nil
			})
		})
	}
}

// TestServeSchemaTypeDefaultsToAvro: a registration without schemaType is
// Avro, as Confluent's registry reads it, and becomes v1.avsc.
func TestServeSchemaTypeDefaultsToAvro(t *testing.T) {
	dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\n", "schemas/.keep": ""})
	s, _ := startServer(t, ServerOptions{Dir: dir})
	body := `{"schema":"{\"type\":\"record\",\"name\":\"Happened\",\"namespace\":\"com.example\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}"}`
	got := doHandler(t, s, "POST", "/subjects/com.example.thing.happened/versions", body)
	if got.status != 200 || !strings.Contains(got.body, `"version":1`) {
		t.Fatalf("register: %d %s", got.status, got.body)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "com.example.thing.happened", "v1.avsc")); err != nil {
		t.Fatal(err)
	}
	v1 := doHandler(t, s, "GET", "/subjects/com.example.thing.happened/versions/1", "")
	if !strings.Contains(v1.body, `"schemaType":"AVRO"`) {
		t.Fatalf("served as %s", v1.body)
	}
	// A JSON Schema is not a version of an Avro type.
	bad := doHandler(t, s, "POST", "/subjects/com.example.thing.happened/versions", `{"schemaType":"JSON","schema":"{}"}`)
	if bad.code != codeInvalidSchema || !strings.Contains(bad.body, "holds Avro versions") {
		t.Fatalf("JSON into an Avro subject: %d %s", bad.status, bad.body)
	}
}

// TestDiffFormatLayoutIsNotDrift: an Avro or Protobuf version written
// differently (compact, reordered keys, comments) is the same version.
func TestDiffFormatLayoutIsNotDrift(t *testing.T) {
	for _, tc := range []struct{ name, file, from, to string }{
		{"avro", "com.example.payment.made/v1.avsc", "\n  ", " "},
		{"proto", "com.example.stock.moved/v1.proto", "message StockMoved {", "// reformatted\nmessage   StockMoved\n{"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := srfake.New()
			t.Cleanup(reg.Close)
			dir := formatCatalog(t, tc.name)
			c := newClient(t, schemaregistry.ClientOptions{URL: reg.URL()})
			opts := schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType}
			if rep, err := schemaregistry.Push(ctx, c, srtest.LoadCat(t, dir), schemaregistry.PushOptions{SyncOptions: opts}); err != nil || rep.Failed() {
				t.Fatalf("push: %v %+v", err, rep)
			}
			p := filepath.Join(dir, "schemas", filepath.FromSlash(tc.file))
			data, _ := os.ReadFile(p)
			changed := strings.ReplaceAll(string(data), tc.from, tc.to)
			if changed == string(data) {
				t.Fatal("nothing reformatted")
			}
			if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
			diff, err := schemaregistry.Diff(ctx, c, srtest.LoadCat(t, dir), opts)
			if err != nil || diff.Failed() {
				t.Fatalf("diff: %v %+v", err, diff.Findings)
			}
		})
	}
}

// TestHostileRegistryReferences: a registry whose references loop, nest
// without end, or name a schema of another type is read to an end: pull
// skips the subject with a reason, and nothing hangs or panics.
func TestHostileRegistryReferences(t *testing.T) {
	avroText := `{"type":"record","name":"M","namespace":"com.example","fields":[]}`
	for _, tc := range []struct {
		name string
		ref  func(v int) (string, []sr.SchemaReference) // schema type and references of com.example.x version v
		want string
	}{
		{"loop", func(v int) (string, []sr.SchemaReference) {
			return "AVRO", []sr.SchemaReference{{Name: "com.example.M", Subject: "ref", Version: 1}}
		}, ""},
		{"endless", func(v int) (string, []sr.SchemaReference) {
			return "AVRO", []sr.SchemaReference{{Name: "com.example.M", Subject: "ref", Version: v + 1}}
		}, "nest more than 32 deep"},
		{"other type", func(v int) (string, []sr.SchemaReference) {
			if v > 1 {
				return "PROTOBUF", nil
			}
			return "AVRO", []sr.SchemaReference{{Name: "com.example.M", Subject: "ref", Version: 2}}
		}, "is PROTOBUF, not Avro"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /subjects", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`["com.example.x"]`)) })
			mux.HandleFunc("GET /subjects/{s}/versions", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`[1]`)) })
			mux.HandleFunc("GET /subjects/{s}/versions/{v}", func(w http.ResponseWriter, r *http.Request) {
				v, _ := strconv.Atoi(r.PathValue("v"))
				st, refs := tc.ref(v)
				if r.PathValue("s") == "com.example.x" {
					st, refs = "AVRO", []sr.SchemaReference{{Name: "com.example.M", Subject: "ref", Version: 1}}
				}
				b, _ := json.Marshal(map[string]any{"subject": r.PathValue("s"), "version": v, "id": v, "schemaType": st, "schema": avroText, "references": refs})
				_, _ = w.Write(b)
			})
			mux.HandleFunc("GET /config", func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(`{"compatibilityLevel":"BACKWARD"}`))
			})
			mux.HandleFunc("GET /config/{s}", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(404)
				_, _ = w.Write([]byte(`{"error_code":40408,"message":"none"}`))
			})
			hs := httptest.NewServer(mux)
			t.Cleanup(hs.Close)
			var warnings []string
			_, err := schemaregistry.Pull(ctx, newClient(t, schemaregistry.ClientOptions{URL: hs.URL}), schemaregistry.PullOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType},
				Out: filepath.Join(t.TempDir(), "out"), Warn: func(m string) { warnings = append(warnings, m) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(warnings, "\n"); tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestServeAvroDecimalScale: serve answers with evtool's Avro engine, not
// the library's checker (which, like Confluent's, ignores logical types):
// a decimal whose scale changes reads 12.34 as 1.234 and is refused, with
// the counterexample in the message.
func TestServeAvroDecimalScale(t *testing.T) {
	dec := func(scale int) string {
		return fmt.Sprintf(`{"type":"record","name":"Priced","namespace":"com.example","fields":[{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":%d}}]}`, scale)
	}
	dir := srtest.WriteCatalog(t, map[string]string{
		"evtool.yaml": "version: 1\ncompat:\n  mode: BACKWARD\n",
		"schemas/com.example.item.priced/v1.avsc": dec(2) + "\n",
	})
	_, srURL := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, srURL)
	_, err := cl.RegisterSchema(ctx, "com.example.item.priced", sr.Schema{Schema: dec(3)}, -1, -1)
	if srtest.SRCode(err) != codeIncompatible || !strings.Contains(err.Error(), "avro-decimal-scale-changed") {
		t.Fatalf("scale 2 -> 3: %v", err)
	}
	if _, err := cl.RegisterSchema(ctx, "com.example.item.priced", sr.Schema{Schema: dec(2)}, -1, -1); err != nil {
		t.Fatalf("the same schema again: %v", err)
	}
}

// TestServeProtobufNarrowing: int64 -> int32 is wire-compatible to
// Confluent's checker, yet truncates 2^40; evtool's Protobuf engine
// refuses it.
func TestServeProtobufNarrowing(t *testing.T) {
	msg := func(typ string) string {
		return "syntax = \"proto3\";\npackage shop;\nmessage Counted {\n  " + typ + " n = 1;\n}\n"
	}
	dir := srtest.WriteCatalog(t, map[string]string{
		"evtool.yaml": "version: 1\ncompat:\n  mode: BACKWARD\n",
		"schemas/com.example.item.counted/v1.proto": msg("int64"),
	})
	_, srURL := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, srURL)
	_, err := cl.RegisterSchema(ctx, "com.example.item.counted", sr.Schema{Schema: msg("int32"), Type: sr.TypeProtobuf}, -1, -1)
	if srtest.SRCode(err) != codeIncompatible || !strings.Contains(err.Error(), "proto-") {
		t.Fatalf("int64 -> int32: %v", err)
	}
}

// TestServeProtobufSelfReferencing: a second version of a message with
// six repeated fields of its own type answered 50002 after 30 s, the
// witness search sampling 18^4 messages; its budget bounds it now.
func TestServeProtobufSelfReferencing(t *testing.T) {
	msg := func(extra string) string {
		var b strings.Builder
		b.WriteString("syntax = \"proto3\";\npackage shop;\nmessage Tree {\n")
		for i := 0; i < 6; i++ {
			fmt.Fprintf(&b, "  repeated Tree f%d = %d;\n", i, i+1)
		}
		return b.String() + extra + "}\n"
	}
	dir := srtest.WriteCatalog(t, map[string]string{
		"evtool.yaml": "version: 1\ncompat:\n  mode: FULL\n",
		"schemas/com.example.tree.grown/v1.proto": msg(""),
	})
	_, srURL := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, srURL)
	start := time.Now()
	if _, err := cl.RegisterSchema(ctx, "com.example.tree.grown", sr.Schema{Schema: msg("  string note = 7;\n"), Type: sr.TypeProtobuf}, -1, -1); err != nil {
		t.Fatalf("a field added: %v", err)
	}
	// A generous bound against the blow-up (30 s before the budget).
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("registration took %v", d)
	}
}

// refRegistry serves one Avro or Protobuf subject, com.example.x, whose
// version 1 references each of refs (subject = name, version 1); every
// referenced subject's version 1 is text(name).
func refRegistry(t *testing.T, schemaType, main string, refs []string, text func(name string) string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /subjects", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`["com.example.x"]`)) })
	mux.HandleFunc("GET /subjects/{s}/versions", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`[1]`)) })
	mux.HandleFunc("GET /subjects/{s}/versions/{v}", func(w http.ResponseWriter, r *http.Request) {
		s := r.PathValue("s")
		body := map[string]any{"subject": s, "version": 1, "id": len(s), "schemaType": schemaType, "schema": text(s)}
		if s == "com.example.x" {
			var rs []sr.SchemaReference
			for _, n := range refs {
				rs = append(rs, sr.SchemaReference{Name: n, Subject: n, Version: 1})
			}
			body["schema"], body["references"] = main, rs
		}
		b, _ := json.Marshal(body)
		_, _ = w.Write(b)
	})
	mux.HandleFunc("GET /config", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"compatibilityLevel":"BACKWARD"}`))
	})
	mux.HandleFunc("GET /config/{s}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		_, _ = w.Write([]byte(`{"error_code":40408,"message":"none"}`))
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestPullReferenceFileNames: a registry's reference names become file
// names only when they cannot pass for a version file (an Avro named type
// called v1 would be common/v1.avsc and turn common/ into a type; V1 is a
// near miss the loader refuses) and when no two of them differ in case
// only (one file on a case-insensitive file system). The subject is
// skipped with the reason, nothing of it is written, and the pulled
// catalog loads.
func TestPullReferenceFileNames(t *testing.T) {
	avroMain := func(names ...string) string {
		var fields []string
		for i, n := range names {
			fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":%q}`, i, n))
		}
		return `{"type":"record","name":"X","namespace":"com.example","fields":[` + strings.Join(fields, ",") + `]}`
	}
	avroFixed := func(name string) string { return fmt.Sprintf(`{"type":"fixed","name":%q,"size":4}`, name) }
	protoMain := func(imports ...string) string {
		out := "syntax = \"proto3\";\npackage x;\n"
		for _, i := range imports {
			out += fmt.Sprintf("import %q;\n", i)
		}
		return out + "message X { string a = 1; }\n"
	}
	protoFile := func(name string) string {
		pkg := strings.NewReplacer("/", "_", ".", "_").Replace(name)
		return "syntax = \"proto3\";\npackage " + pkg + ";\nmessage M { string a = 1; }\n"
	}
	for _, tc := range []struct {
		name, schemaType, main string
		refs                   []string
		text                   func(string) string
		want                   string
	}{
		{"avro named v1", "AVRO", avroMain("v1"), []string{"v1"}, avroFixed, "named like a version file"},
		{"avro named V2", "AVRO", avroMain("V2"), []string{"V2"}, avroFixed, "named like a version file"},
		{"avro case", "AVRO", avroMain("com.x.Money", "com.x.MONEY"), []string{"com.x.Money", "com.x.MONEY"}, avroFixed, "differ in case only"},
		{"proto near miss", "PROTOBUF", protoMain("common/V1.proto"), []string{"common/V1.proto"}, protoFile, "named like a version file"},
		{"proto case", "PROTOBUF", protoMain("common/a.proto", "Common/a.proto"), []string{"common/a.proto", "Common/a.proto"}, protoFile, "differ in case only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := refRegistry(t, tc.schemaType, tc.main, tc.refs, tc.text)
			out := filepath.Join(t.TempDir(), "out")
			var warnings []string
			res, err := schemaregistry.Pull(ctx, newClient(t, schemaregistry.ClientOptions{URL: url}), schemaregistry.PullOptions{SyncOptions: schemaregistry.SyncOptions{Strategy: schemaregistry.StrategyType},
				Out: out, Warn: func(m string) { warnings = append(warnings, m) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(warnings, "\n"); !strings.Contains(got, "skipped subject com.example.x") || !strings.Contains(got, tc.want) {
				t.Fatalf("warnings %q, want the subject skipped because %s", got, tc.want)
			}
			if res.Types != 0 {
				t.Fatalf("pulled %d types", res.Types)
			}
			entries, _ := os.ReadDir(filepath.Join(out, "schemas"))
			if len(entries) != 0 {
				t.Fatalf("pull wrote %v", entries)
			}
		})
	}
}

// TestServeChecksReferencesBeyondRegistration: the compatibility check and
// the lookup read a request's references as registration does: a schema
// without the references to the shared types it uses, or with one to a
// subject that is no shared schema, is invalid (42201), never "compatible"
// nor found, since Confluent's registry could not parse it either.
func TestServeChecksReferencesBeyondRegistration(t *testing.T) {
	dir := formatCatalog(t, "avro")
	s, _ := startServer(t, ServerOptions{Dir: dir})
	v2, err := os.ReadFile(filepath.Join(dir, "schemas", "com.example.payment.made", "v2.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	good := []sr.SchemaReference{{Name: "com.example.common.Money", Subject: "com.example.common.Money", Version: 1},
		{Name: "com.example.common.Fee", Subject: "com.example.common.Fee", Version: 1}}
	for _, tc := range []struct {
		name string
		refs []sr.SchemaReference
		want string // "" when valid
	}{
		{"with its references", good, ""},
		{"without references", nil, "without a schema reference"},
		{"a reference to no shared schema", append([]sr.SchemaReference{{Name: "x", Subject: "nope", Version: 1}}, good...), "not a shared schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"schema": string(v2), "references": tc.refs})
			for _, target := range []string{"/compatibility/subjects/com.example.payment.made/versions/latest", "/subjects/com.example.payment.made"} {
				got := doHandler(t, s, "POST", target, string(body))
				if tc.want == "" {
					if got.status != 200 {
						t.Errorf("%s: %d %s", target, got.status, got.body)
					}
					continue
				}
				if got.status != 422 || got.code != codeInvalidSchema || !strings.Contains(got.body, tc.want) {
					t.Errorf("%s: %d %s, want 422 %d naming %q", target, got.status, got.body, codeInvalidSchema, tc.want)
				}
			}
		})
	}
	// The lookup of a shared subject too: Fee uses Money.
	fee, err := os.ReadFile(filepath.Join(dir, "schemas", "common", "fee.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		refs   []sr.SchemaReference
		status int
	}{
		{[]sr.SchemaReference{{Name: "com.example.common.Money", Subject: "com.example.common.Money", Version: 1}}, 200},
		{nil, 422},
		{[]sr.SchemaReference{{Name: "x", Subject: "nope", Version: 1}}, 422},
	} {
		body, _ := json.Marshal(map[string]any{"schema": string(fee), "references": tc.refs})
		if got := doHandler(t, s, "POST", "/subjects/com.example.common.Fee", string(body)); got.status != tc.status {
			t.Errorf("lookup of the shared Fee with references %v: %d %s, want %d", tc.refs, got.status, got.body, tc.status)
		}
	}
}

// TestServeWritesNoFileThroughSymlink: a directory of the catalog that is
// a symlink (to outside the catalog) is not the catalog's: a registration
// that would write through it, a new shared Avro type under common/ or a
// new type's first version, is refused and nothing appears outside.
func TestServeWritesNoFileThroughSymlink(t *testing.T) {
	tax := `{"type":"record","name":"Tax","namespace":"com.example.common","fields":[{"name":"rate","type":"int"}]}`
	for _, tc := range []struct {
		name, link, subject, body string
	}{
		{"shared avro", "common", "com.example.common.Tax", tax},
		{"new type", "com.example.evil.done", "com.example.evil.done", `{"type":"record","name":"Done","namespace":"com.example","fields":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\n", "schemas/.keep": ""})
			outside := t.TempDir()
			if err := os.Symlink(outside, filepath.Join(dir, "schemas", tc.link)); err != nil {
				t.Skip(err)
			}
			s, _ := startServer(t, ServerOptions{Dir: dir})
			body, _ := json.Marshal(map[string]any{"schema": tc.body})
			got := doHandler(t, s, "POST", "/subjects/"+tc.subject+"/versions", string(body))
			entries, _ := os.ReadDir(outside)
			if len(entries) != 0 || got.status == 200 {
				t.Fatalf("register: %d %s; outside the catalog: %v", got.status, got.body, entries)
			}
			if !strings.Contains(got.body, "symlink") {
				t.Errorf("the refusal does not say why: %s", got.body)
			}
		})
	}
}

// TestServeSharedSchemaNotInTypeDirectory: a .proto registered under an
// import path inside a type's directory would add a file to that type's
// versions; it is refused and nothing is written.
func TestServeSharedSchemaNotInTypeDirectory(t *testing.T) {
	dir := formatCatalog(t, "proto")
	s, _ := startServer(t, ServerOptions{Dir: dir})
	body, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": "syntax = \"proto3\";\npackage zz;\nmessage Z { string a = 1; }\n"})
	got := doHandler(t, s, "POST", "/subjects/com.example.stock.moved%2Fz.proto/versions", string(body))
	if got.status != 422 || got.code != codeInvalidSubject || !strings.Contains(got.body, "directory of type com.example.stock.moved") {
		t.Fatalf("register: %d %s", got.status, got.body)
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "com.example.stock.moved", "z.proto")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("written into the type's directory: %v", err)
	}
	// Elsewhere the same schema is a new shared file.
	if got := doHandler(t, s, "POST", "/subjects/common%2Fz.proto/versions", string(body)); got.status != 200 {
		t.Fatalf("register common/z.proto: %d %s", got.status, got.body)
	}
}

// TestServeSharedSchemaCaseVariantRefused: a shared file whose path
// differs from the catalog's only in letter case, in its type directory
// (it would land among the type's versions on a case-insensitive
// checkout), its own directory or its name, or only in trailing dots, is
// refused (42208) and nothing is written; the same file spelled as the
// catalog spells it registers.
func TestServeSharedSchemaCaseVariantRefused(t *testing.T) {
	dir := formatCatalog(t, "proto")
	s, _ := startServer(t, ServerOptions{Dir: dir})
	body := func(pkg string) string {
		b, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": "syntax = \"proto3\";\npackage " + pkg + ";\nmessage Z { string a = 1; }\n"})
		return string(b)
	}
	if got := doHandler(t, s, "POST", "/subjects/sh%2Fa.proto/versions", body("sha")); got.status != 200 {
		t.Fatalf("register sh/a.proto: %d %s", got.status, got.body)
	}
	for _, tc := range []struct{ subject, written, clash string }{
		{"COM.EXAMPLE.STOCK.MOVED%2Fx.proto", "COM.EXAMPLE.STOCK.MOVED/x.proto", "schemas/com.example.stock.moved"},
		{"com.example.stock.MOVED%2Fsub%2Fx.proto", "com.example.stock.MOVED/sub/x.proto", "schemas/com.example.stock.moved"},
		{"sh%2FA.proto", "sh/A.proto", "schemas/sh/a.proto"},
		{"SH%2Fb.proto", "SH/b.proto", "schemas/sh"},
		// Windows drops a segment's trailing dots.
		{"com.example.stock.moved.%2Fx.proto", "com.example.stock.moved./x.proto", "schemas/com.example.stock.moved"},
		{"com.example.stock.MOVED..%2Fx.proto", "com.example.stock.MOVED../x.proto", "schemas/com.example.stock.moved"},
		{"sh.%2Fb.proto", "sh./b.proto", "schemas/sh"},
	} {
		got := doHandler(t, s, "POST", "/subjects/"+tc.subject+"/versions", body("x"))
		if got.status != 422 || got.code != codeInvalidSubject || !strings.Contains(got.body, "differs only in letter case or trailing dots from "+tc.clash) {
			t.Errorf("register %s: %d %s", tc.subject, got.status, got.body)
		}
		if _, err := os.Stat(filepath.Join(dir, "schemas", filepath.FromSlash(tc.written))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s written: %v", tc.written, err)
		}
	}
	if got := doHandler(t, s, "POST", "/subjects/sh%2Fb.proto/versions", body("shb")); got.status != 200 {
		t.Fatalf("register sh/b.proto: %d %s", got.status, got.body)
	}
}

// TestServeWellKnownTypes: a client that registers the well-known types
// as subjects (confluent-kafka-python 1.x's serializer does) gets an id,
// as from a Confluent registry, and the lookup that follows finds it;
// the id survives a restart, nothing is written into the catalog, a schema
// that is not the well-known file is refused, and a version that
// references one registers: the compiler has it.
func TestServeWellKnownTypes(t *testing.T) {
	dir := formatCatalog(t, "proto")
	s, _ := startServer(t, ServerOptions{Dir: dir})
	const subject = "/subjects/google%2Fprotobuf%2Ftimestamp.proto"
	body := func(schema string) string {
		b, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": schema})
		return string(b)
	}
	// As protoc writes it, and as a descriptor printed without options:
	// options differ between protobuf releases, the declarations do not.
	wkt := "syntax = \"proto3\";\npackage google.protobuf;\noption go_package = \"google.golang.org/protobuf/types/known/timestamppb\";\noption java_package = \"com.google.protobuf\";\nmessage Timestamp {\n  int64 seconds = 1;\n  int32 nanos = 2;\n}\n"
	bare := "syntax = \"proto3\";\npackage google.protobuf;\nmessage Timestamp {\n  int64 seconds = 1;\n  int32 nanos = 2;\n}\n"
	if got := doHandler(t, s, "POST", subject, body(wkt)); got.status != 404 || got.code != codeSubjectNotFound {
		t.Errorf("lookup before registration: %d %s", got.status, got.body)
	}
	got := doHandler(t, s, "POST", subject+"/versions", body(wkt))
	var reg struct{ ID int }
	if err := json.Unmarshal([]byte(got.body), &reg); got.status != 200 || err != nil || reg.ID < 1 {
		t.Fatalf("register the well-known timestamp.proto: %d %s", got.status, got.body)
	}
	id := strconv.Itoa(reg.ID)
	reads := []struct {
		method, target, body string
		status               int
		want                 string
	}{
		{"POST", subject + "/versions", body(bare), 200, `"id":` + id},
		{"POST", subject, body(bare), 200, `"version":1`},
		{"GET", subject + "/versions", "", 200, "[1]"},
		{"GET", "/subjects", "", 200, `"google/protobuf/timestamp.proto"`},
		{"GET", subject + "/versions/latest", "", 200, `"id":` + id},
		{"GET", subject + "/versions/2", "", 404, "version 1 only"},
		{"GET", "/schemas/ids/" + id, "", 200, "Timestamp"},
		{"POST", subject + "/versions", body("syntax = \"proto3\";\npackage google.protobuf;\nmessage Timestamp {\n  int64 seconds = 1;\n}\n"), 422, "lacks field google.protobuf.Timestamp.nanos"},
		{"POST", "/subjects/google%2Fprotobuf%2Fnot_there.proto/versions", body(bare), 422, "no well-known Protobuf file"},
	}
	for _, r := range reads {
		if got := doHandler(t, s, r.method, r.target, r.body); got.status != r.status || !strings.Contains(got.body, r.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", r.method, r.target, got.status, got.body, r.status, r.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "schemas", "google")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a well-known type was written into the catalog: %v", err)
	}
	s.Close()
	s2, _ := startServer(t, ServerOptions{Dir: dir})
	if got := doHandler(t, s2, "POST", subject+"/versions", body(wkt)); got.status != 200 || !strings.Contains(got.body, `"id":`+id+",") {
		t.Errorf("after a restart: %d %s, want id %s", got.status, got.body, id)
	}
	v2, err := os.ReadFile(filepath.Join(dir, "schemas", "com.example.stock.moved", "v2.proto"))
	if err != nil {
		t.Fatal(err)
	}
	v3 := strings.Replace(string(v2), "common.Place to = 4;", "common.Place to = 4;\n  string note = 5;", 1)
	b, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": v3, "references": []sr.SchemaReference{
		{Name: "common/money.proto", Subject: "common/money.proto", Version: 1},
		{Name: "common/place.proto", Subject: "common/place.proto", Version: 1},
		{Name: "google/protobuf/timestamp.proto", Subject: "google/protobuf/timestamp.proto", Version: 1}}})
	if got := doHandler(t, s2, "POST", "/subjects/com.example.stock.moved/versions", string(b)); got.status != 200 || !strings.Contains(got.body, `"version":3`) || strings.Contains(got.body, `"id":`+id+",") {
		t.Fatalf("register v3 referencing a well-known type: %d %s", got.status, got.body)
	}
}

// TestServeWellKnownOnlyServed: a file under google/protobuf/ that the
// binary links but that is no well-known type of package google.protobuf
// (go_features.proto, compiler/plugin.proto) is refused when registered:
// an id given to it would never be served (not by its subject, not by
// /schemas/ids), after the registration or a restart.
func TestServeWellKnownOnlyServed(t *testing.T) {
	dir := formatCatalog(t, "proto")
	s, _ := startServer(t, ServerOptions{Dir: dir})
	for _, path := range []string{"google/protobuf/go_features.proto", "google/protobuf/compiler/plugin.proto"} {
		t.Run(path, func(t *testing.T) {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			if err != nil {
				t.Skipf("%s is not linked: %v", path, err)
			}
			text, err := protobuf.PrintProto(fd)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": string(text)})
			subject := "/subjects/" + url.PathEscape(path)
			got := doHandler(t, s, "POST", subject+"/versions", string(b))
			if got.status == 422 && strings.Contains(got.body, "no well-known Protobuf file") {
				return
			}
			var reg struct{ ID int }
			if err := json.Unmarshal([]byte(got.body), &reg); got.status != 200 || err != nil {
				t.Fatalf("register: %d %s", got.status, got.body)
			}
			if got := doHandler(t, s, "GET", "/schemas/ids/"+strconv.Itoa(reg.ID), ""); got.status != 200 {
				t.Errorf("registered as id %d, which is not served: %d %s", reg.ID, got.status, got.body)
			}
			if got := doHandler(t, s, "POST", subject, string(b)); got.status != 200 {
				t.Errorf("registered, but the lookup finds nothing: %d %s", got.status, got.body)
			}
		})
	}
}

// The schemaTypes a refusal lists come from the providers, Confluent's
// default (AVRO for no schemaType) marked.
func TestServedSchemaTypes(t *testing.T) {
	if got, want := servedSchemaTypes(), "JSON, AVRO (the default) and PROTOBUF"; got != want {
		t.Errorf("servedSchemaTypes() = %q, want %q", got, want)
	}
}
