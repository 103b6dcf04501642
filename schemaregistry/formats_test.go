package schemaregistry

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// TestDiffFormatDrift: a shared file edited after push changes every
// version that uses it, and diff says so.
func TestDiffFormatDrift(t *testing.T) {
	reg := srfake.New()
	t.Cleanup(reg.Close)
	dir := srtest.CopyCatalog(t, filepath.Join("testdata", "formats", "avro"))
	c := MustNewClient(t, ClientOptions{URL: reg.URL()})
	opts := SyncOptions{Strategy: StrategyType}
	if rep, err := Push(ctx, c, srtest.LoadCat(t, dir), PushOptions{SyncOptions: opts}); err != nil || rep.Failed() {
		t.Fatalf("push: %v %+v", err, rep)
	}
	money := filepath.Join(dir, "schemas", "common", "money.avsc")
	data, _ := os.ReadFile(money)
	if err := os.WriteFile(money, []byte(strings.Replace(string(data), `"USD"]`, `"USD", "GBP"]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	diff, err := Diff(ctx, c, srtest.LoadCat(t, dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := srtest.Count(diff, RuleVersionDiffers); n != 2 {
		t.Fatalf("diff found %d differing versions, want 2: %+v", n, diff.Findings)
	}
}

// TestPushFindsSharedSchemaVersion: a shared schema the registry already
// holds (here as version 2 of its subject) is found by lookup, not
// registered again, and the references name that version.
func TestPushFindsSharedSchemaVersion(t *testing.T) {
	reg := srfake.New()
	t.Cleanup(reg.Close)
	dir := srtest.CopyCatalog(t, filepath.Join("testdata", "formats", "proto"))
	money, err := os.ReadFile(filepath.Join(dir, "schemas", "common", "money.proto"))
	if err != nil {
		t.Fatal(err)
	}
	cl := srtest.SRClient(t, reg.URL())
	for _, text := range []string{"syntax = \"proto3\";\npackage common;\nmessage Money { string currency = 1; }\n", string(money)} {
		if _, err := cl.RegisterSchema(ctx, "common/money.proto", sr.Schema{Schema: text, Type: sr.TypeProtobuf}, -1, -1); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Push(ctx, MustNewClient(t, ClientOptions{URL: reg.URL()}), srtest.LoadCat(t, dir), PushOptions{SyncOptions: SyncOptions{Strategy: StrategyType}})
	if err != nil || rep.Failed() {
		t.Fatalf("push: %v %+v", err, rep)
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "common/money.proto as") {
			t.Errorf("money.proto was registered again: %s", f.Message)
		}
	}
	place, err := cl.SchemaByVersion(ctx, "common/place.proto", 1)
	if err != nil || len(place.References) != 1 || place.References[0].Version != 2 {
		t.Fatalf("place.proto: %+v %v (want a reference to common/money.proto version 2)", place.References, err)
	}
	if vs, _ := cl.SubjectVersions(ctx, "common/money.proto"); len(vs) != 2 {
		t.Fatalf("common/money.proto has versions %v", vs)
	}
}

// TestDiffAvroNumberSpelling: a default spelled 1, 1.0 or 1e0 is one
// value (Confluent's registry hands back Java's spelling, 1.0 for a
// double), so it is no drift; another value is.
func TestDiffAvroNumberSpelling(t *testing.T) {
	schema := func(def string) string {
		return `{"type":"record","name":"Rated","namespace":"com.example","fields":[{"name":"rate","type":"double","default":` + def + `},{"name":"n","type":"long","default":9007199254740993}]}` + "\n"
	}
	for _, tc := range []struct {
		local string
		drift bool
	}{
		{"1.0", false},
		{"1e0", false},
		{"10E-1", false},
		{"1.5", true},
	} {
		t.Run(tc.local, func(t *testing.T) {
			reg := srfake.New()
			t.Cleanup(reg.Close)
			dir := srtest.WriteCatalog(t, map[string]string{"evtool.yaml": "version: 1\n", "schemas/com.example.rated/v1.avsc": schema("1")})
			c := MustNewClient(t, ClientOptions{URL: reg.URL()})
			opts := SyncOptions{Strategy: StrategyType}
			if rep, err := Push(ctx, c, srtest.LoadCat(t, dir), PushOptions{SyncOptions: opts}); err != nil || rep.Failed() {
				t.Fatalf("push: %v %+v", err, rep)
			}
			if err := os.WriteFile(filepath.Join(dir, "schemas", "com.example.rated", "v1.avsc"), []byte(schema(tc.local)), 0o644); err != nil {
				t.Fatal(err)
			}
			diff, err := Diff(ctx, c, srtest.LoadCat(t, dir), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := srtest.Count(diff, RuleVersionDiffers) > 0; got != tc.drift {
				t.Fatalf("default 1 in the registry, %s in the catalog: drift %v, want %v (%+v)", tc.local, got, tc.drift, diff.Findings)
			}
		})
	}
}

// TestPullAndBaseWriteEachFormatsFile: pull writes a subject's versions as
// files of the subject's format (v1.json, v1.avsc, v1.proto), which the
// catalog reads back as that format, and the base catalog of `compat check
// --against registry:` holds them under the same names.
func TestPullAndBaseWriteEachFormatsFile(t *testing.T) {
	const typ = "com.example.thing.happened"
	for _, tc := range []struct {
		name       string
		schemaType sr.SchemaType
		text, file string
	}{
		{"json", sr.TypeJSON, `{"type": "object", "properties": {"id": {"type": "string"}}}`, "v1.json"},
		{"avro", sr.TypeAvro, `{"type": "record", "name": "Happened", "namespace": "com.example.thing", "fields": [{"name": "id", "type": "string"}]}`, "v1.avsc"},
		{"protobuf", sr.TypeProtobuf, "syntax = \"proto3\";\npackage com.example.thing;\nmessage Happened { string id = 1; }\n", "v1.proto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := srfake.New()
			t.Cleanup(reg.Close)
			if _, err := srtest.SRClient(t, reg.URL()).RegisterSchema(ctx, typ, sr.Schema{Schema: tc.text, Type: tc.schemaType}, -1, -1); err != nil {
				t.Fatal(err)
			}
			c := MustNewClient(t, ClientOptions{URL: reg.URL()})
			out := filepath.Join(t.TempDir(), "pulled")
			res, err := Pull(ctx, c, PullOptions{SyncOptions: SyncOptions{Strategy: StrategyType}, Out: out, Warn: func(m string) { t.Error(m) }})
			if err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(filepath.Join(out, "schemas", typ))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if strings.Join(names, " ") != tc.file {
				t.Fatalf("pull wrote %v, want %s", names, tc.file)
			}
			v := res.Catalog.Lookup(typ).Version(1)
			if got := v.Format.SchemaType(); got != tc.schemaType.String() {
				t.Fatalf("the pulled %s reads as %s", tc.file, got)
			}

			base, err := BaseFS(ctx, c, res.Catalog, StrategyType)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fs.Stat(base, "schemas/"+typ+"/"+tc.file); err != nil {
				t.Fatalf("base catalog: %v", err)
			}
		})
	}
}
