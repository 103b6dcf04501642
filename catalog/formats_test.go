package catalog

import (
	"github.com/evtool/evtool/internal/fuzzcost"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/formats"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/format/protobuf"
)

func TestLoadFormats(t *testing.T) {
	tests := []struct {
		fixture, typ string
		kind         format.Kind
		versions     int
		// datum is a valid value in the JSON form of the latest version.
		datum string
		check func(t *testing.T, v *Version)
	}{
		{fixture: "ok-basic", typ: "com.example.a", kind: format.JSONSchema, versions: 2, datum: `{"id": "x"}`,
			check: func(t *testing.T, v *Version) {
				js, ok := v.Compiled.(*jsonformat.Schema)
				if !ok || js.JSONSchema() == nil {
					t.Errorf("Compiled = %T, want the JSON Schema adapter around the compiled schema", v.Compiled)
				}
				if DigestOf(v.Compiled) != Digest(v.Doc) {
					t.Errorf("digest of the seam %s != catalog digest %s", DigestOf(v.Compiled), Digest(v.Doc))
				}
			}},
		{fixture: "ok-avro", typ: "com.example.payment", kind: format.Avro, versions: 2,
			datum: `{"id": "p", "amount": {"units": 1, "currency": "EUR"}, "status": "NEW", "note": null}`,
			check: func(t *testing.T, v *Version) {
				s, ok := v.Compiled.(*avro.Schema)
				if !ok {
					t.Fatalf("Compiled = %T, want *avro.Schema", v.Compiled)
				}
				var refs []string
				for _, r := range s.References() {
					refs = append(refs, r.Name+"@"+r.File)
				}
				if got := strings.Join(refs, ","); got != "com.example.Status@schemas/com.example.payment/status.avsc,com.example.shared.Money@schemas/common/money.avsc" {
					t.Errorf("references = %s", got)
				}
			}},
		{fixture: "ok-proto", typ: "com.example.shipment", kind: format.Protobuf, versions: 1,
			datum: `{"id": "s", "cost": {"units": "5"}, "parcels": []}`,
			check: func(t *testing.T, v *Version) {
				s, ok := v.Compiled.(*protobuf.Schema)
				if !ok {
					t.Fatalf("Compiled = %T, want *protobuf.Schema", v.Compiled)
				}
				if s.Message.FullName() != "example.shipment.Shipped" {
					t.Errorf("message = %s, want event.yaml's example.shipment.Shipped", s.Message.FullName())
				}
			}},
		{fixture: "ok-proto", typ: "com.example.order", kind: format.Protobuf, versions: 1, datum: `{"id": "o"}`,
			check: func(t *testing.T, v *Version) {
				if m := v.Compiled.(*protobuf.Schema).Message.FullName(); m != "example.order.Placed" {
					t.Errorf("message = %s, want the file's first", m)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.typ, func(t *testing.T) {
			cat, err, _ := loadArchive(t, "testdata/load/"+tt.fixture+".txtar")
			if err != nil {
				t.Fatal(err)
			}
			if probs := cat.CheckExamples(); len(probs) != 0 {
				t.Fatalf("examples: %s", dump(probs))
			}
			typ := cat.Lookup(tt.typ)
			if typ == nil || typ.Format != tt.kind || len(typ.Versions) != tt.versions {
				t.Fatalf("type = %+v, want %d %s versions", typ, tt.versions, tt.kind)
			}
			for _, v := range typ.Versions {
				if v.Format != tt.kind || v.Compiled == nil || v.Compiled.Kind() != tt.kind {
					t.Fatalf("v%d: format %s, compiled %v", v.Number, v.Format, v.Compiled)
				}
				if v.Digest != DigestOf(v.Compiled) || !strings.HasPrefix(v.Digest, "sha256:") {
					t.Errorf("v%d digest %q", v.Number, v.Digest)
				}
				if len(v.Text) == 0 {
					t.Errorf("v%d has no text", v.Number)
				}
			}
			v := typ.Latest()
			tt.check(t, v)
			// The seam round-trips the datum through every content type.
			s := v.Compiled
			val, err := s.DecodeValue([]byte(tt.datum), format.ContentTypeJSON)
			if err != nil {
				t.Fatalf("decode %s: %v", tt.datum, err)
			}
			for _, ct := range s.ContentTypes() {
				b, err := s.EncodeValue(val, ct)
				if err != nil {
					t.Fatalf("encode %s: %v", ct, err)
				}
				if err := s.Validate(b, ct); err != nil {
					t.Errorf("validate own %s encoding: %v", ct, err)
				}
			}
			framed, err := s.FrameValue(42, val)
			if err != nil {
				t.Fatal(err)
			}
			if _, id, err := s.UnframeValue(framed); err != nil || id != 42 {
				t.Errorf("unframe: id %d, %v", id, err)
			}
			if s.ContentTypes()[0] != s.DefaultContentType() {
				t.Errorf("default %s is not first of %v", s.DefaultContentType(), s.ContentTypes())
			}
			for seed := uint64(0); seed < 5; seed++ {
				sv, err := s.SampleValue(seed)
				if err != nil {
					t.Fatalf("sample %d: %v", seed, err)
				}
				if _, err := s.EncodeValue(sv, s.DefaultContentType()); err != nil {
					t.Errorf("sample %d (%v) does not encode: %v", seed, sv, err)
				}
			}
		})
	}
}

// TestLoadFormatPositions: load errors of .avsc and .proto versions carry
// file, line, column and (Avro) a JSON pointer.
func TestLoadFormatPositions(t *testing.T) {
	tests := []struct {
		fixture, file string
		line, column  int
		pointer       string
	}{
		{"avro-lint", "schemas/x.y/v1.avsc", 4, 53, "/fields/1/default"},
		{"avro-lint", "schemas/c.d/v1.avsc", 2, 22, "/fields/0/name"},
		{"avro-lint", "schemas/a.b/v1.avsc", 1, 94, "/fields/0/type"},
		{"proto-errors", "schemas/x.y/v1.proto", 4, 15, ""},
		{"proto-errors", "schemas/a.b/v1.proto", 3, 8, ""},
		{"proto-errors", "schemas/c.d/v1.proto", 4, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.file, func(t *testing.T) {
			_, err, _ := loadArchive(t, "testdata/load/"+tt.fixture+".txtar")
			le, ok := err.(*LoadError)
			if !ok {
				t.Fatalf("err = %v", err)
			}
			for _, f := range le.Findings {
				if f.File == tt.file {
					if f.Line != tt.line || f.Column != tt.column || f.Pointer != tt.pointer {
						t.Errorf("at %d:%d %q, want %d:%d %q (%s)", f.Line, f.Column, f.Pointer, tt.line, tt.column, tt.pointer, f.Message)
					}
					return
				}
			}
			t.Errorf("no finding for %s among:\n%s", tt.file, dump(le.Findings))
		})
	}
}

// TestFormatExampleInvalid: examples of Avro and Protobuf versions are
// validated in their JSON form.
func TestFormatExampleInvalid(t *testing.T) {
	for _, tt := range []struct{ fixture, file, substr string }{
		{"ok-example-avro-invalid", "schemas/x.y/examples/v1/bad.json", "Avro's JSON encoding"},
		{"ok-example-proto-invalid", "schemas/x.y/examples/v1/bad.json", "the JSON mapping"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			cat, err, _ := loadArchive(t, "testdata/load/"+tt.fixture+".txtar")
			if err != nil {
				t.Fatal(err)
			}
			probs := cat.CheckExamples()
			if len(probs) != 1 || probs[0].Rule != RuleExampleInvalid || probs[0].File != tt.file || !strings.Contains(probs[0].Message, tt.substr) {
				t.Fatalf("findings:\n%s", dump(probs))
			}
		})
	}
}

// FuzzLoadFormats feeds arbitrary contents to the files of an Avro and a
// Protobuf type (versions, a shared file, event.yaml, an example): the
// loader never panics, and every problem is a finding with rule, file and
// message.
func FuzzLoadFormats(f *testing.F) {
	f.Add([]byte(`{"type": "record", "name": "R", "fields": [{"name": "m", "type": "x.Money"}]}`), []byte(`{"type": "fixed", "name": "x.Money", "size": 8}`),
		[]byte("syntax = \"proto3\";\nimport \"common/m.proto\";\nmessage M { x.Money m = 1; }\n"), []byte("syntax = \"proto3\";\npackage x;\nmessage Money { int64 u = 1; }\n"),
		[]byte("message: M\n"), []byte(`{"m": "AAAAAAAAAAA="}`))
	f.Add([]byte(`"string"`), []byte(`[`), []byte(`syntax = "proto2"; message M { required int32 n = 1; }`), []byte("\xff"), []byte("compat: {profile: wire}\n"), []byte(`{}`))
	f.Fuzz(func(t *testing.T, avsc, sharedAvsc, proto, sharedProto, meta, example []byte) {
		fuzzcost.Default().Check(t, len(avsc)+len(sharedAvsc)+len(proto)+len(sharedProto)+len(meta)+len(example), func() {
			fsys := fstest.MapFS{
				"evtool.yaml":                    {Data: []byte("version: 1\n")},
				"schemas/a.b/v1.avsc":            {Data: avsc},
				"schemas/a.b/examples/v1/e.json": {Data: example},
				"schemas/common/m.avsc":          {Data: sharedAvsc},
				"schemas/c.d/event.yaml":         {Data: meta},
				"schemas/c.d/v1.proto":           {Data: proto},
				"schemas/c.d/examples/v1/e.json": {Data: example},
				"schemas/common/m.proto":         {Data: sharedProto},
			}
			checkFuzzLoad(t, fsys)
		})
	})
}

// TestCompatProfilePerFormat: a configured profile applies to the formats
// it fits; the others get their format's default.
func TestCompatProfilePerFormat(t *testing.T) {
	tests := []struct {
		global, override string
		kind             format.Kind
		want             Profile
	}{
		{"", "", format.JSONSchema, "lenient"},
		{"", "", format.Protobuf, "wire-json"},
		{"", "", format.Avro, ""},
		{"strict", "", format.JSONSchema, "strict"},
		{"strict", "", format.Protobuf, "wire-json"},
		{"wire", "", format.Protobuf, "wire"},
		{"wire", "", format.JSONSchema, "lenient"},
		{"wire", "wire-json", format.Protobuf, "wire-json"},
		{"lenient", "strict", format.JSONSchema, "strict"},
		{"strict", "wire", format.Avro, ""},
	}
	for _, tt := range tests {
		cat := &Catalog{Config: Config{Compat: CompatConfig{Profile: Profile(tt.global)}}}
		typ := &EventType{Format: tt.kind, Meta: EventMeta{Compat: CompatOverride{Profile: Profile(tt.override)}}}
		if _, got := cat.Compat(typ); got != tt.want {
			t.Errorf("global %q, override %q, %s: profile %q, want %q", tt.global, tt.override, tt.kind, got, tt.want)
		}
	}
	for _, s := range []string{"wire", "WIRE-JSON", "lenient", "strict"} {
		if _, err := ParseProfile(s); err != nil {
			t.Errorf("ParseProfile(%q): %v", s, err)
		}
	}
	_, err := ParseProfile("json")
	if want := `unknown compatibility profile "json": use lenient or strict (JSON Schema), wire or wire-json (Protobuf)`; err == nil || err.Error() != want {
		t.Errorf("ParseProfile(json): %v, want %s", err, want)
	}
	if got := DefaultProfileOf(formats.DefaultKind); got != DefaultProfile {
		t.Errorf("DefaultProfile %q, but the default format's provider declares %q", DefaultProfile, got)
	}
}

// TestSharedFormatProblemOnce: a broken shared .avsc two versions use is
// one finding, not one per version.
func TestSharedFormatProblemOnce(t *testing.T) {
	_, err, _ := loadArchive(t, "testdata/load/shared-formats-broken.txtar")
	le, ok := err.(*LoadError)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	n := 0
	for _, f := range le.Findings {
		if f.File == "schemas/common/used.avsc" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d findings for schemas/common/used.avsc, want 1:\n%s", n, dump(le.Findings))
	}
}
