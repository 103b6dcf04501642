package catalog

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const framingAvsc = `{"type":"record","name":"R","fields":[{"name":"id","type":"string"}]}`

// TestFraming: kafka.framing comes from event.yaml, else evtool.yaml, else
// confluent; the meta-schemas reject other values.
func TestFraming(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"evtool.yaml":                "version: 1\nkafka: {framing: none}\n",
		"schemas/com.x.a/v1.avsc":    framingAvsc,
		"schemas/com.x.b/event.yaml": "kafka: {framing: confluent}\n",
		"schemas/com.x.b/v1.avsc":    framingAvsc,
	})
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := cat.Framing(cat.Lookup("com.x.a")); got != FramingNone {
		t.Errorf("com.x.a: %q", got)
	}
	if got := cat.Framing(cat.Lookup("com.x.b")); got != FramingConfluent {
		t.Errorf("com.x.b: %q", got)
	}
	cat.Config.Kafka.Framing = ""
	if got := cat.Framing(cat.Lookup("com.x.a")); got != FramingConfluent {
		t.Errorf("default: %q", got)
	}
	bad := writeFiles(t, map[string]string{
		"evtool.yaml":             "version: 1\nkafka: {framing: magic}\n",
		"schemas/com.x.a/v1.avsc": framingAvsc,
	})
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "framing") {
		t.Errorf("framing: magic loaded: %v", err)
	}
}

// TestLoadSchemaIDs: ids are matched to versions by digest; ids of
// schemas no longer in the catalog are known but name no version; a
// missing file means no ids; a broken one is an error naming it.
func TestLoadSchemaIDs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"evtool.yaml":             "version: 1\n",
		"schemas/com.x.a/v1.avsc": framingAvsc,
	})
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := LoadSchemaIDs(cat)
	if err != nil || !ids.Empty() {
		t.Fatalf("no file: %v %v", ids, err)
	}
	v := cat.Lookup("com.x.a").Version(1)
	p := filepath.Join(dir, "schemas", ".registry", "ids.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"format":1,"next_id":9,"ids":{"`+v.Digest+`":7,"sha256:gone":3}}`), 0o644)
	// The ids file is read with the catalog: load it again.
	if cat, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	v = cat.Lookup("com.x.a").Version(1)
	if ids, err = LoadSchemaIDs(cat); err != nil {
		t.Fatal(err)
	}
	if id, ok := ids.Of(v); !ok || id != 7 || ids.Version(7) != v {
		t.Errorf("Of = %d %v", id, ok)
	}
	if !ids.Known(3) || ids.Version(3) != nil || ids.Known(4) || ids.Known(ids.Unknown()) {
		t.Errorf("known ids wrong: %v", ids.List())
	}
	os.WriteFile(p, []byte(`{"ids":{"x":-1}}`), 0o644)
	if cat, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSchemaIDs(cat); err == nil || !strings.Contains(err.Error(), "ids.json") {
		t.Errorf("bad id: %v", err)
	}
}

// TestParseSchemaIDsErrorsNameWhere: a broken ids file's error names the
// file and the line of the fault, and a digest given two ids is an error
// rather than whichever encoding/json keeps.
func TestParseSchemaIDsErrorsNameWhere(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"syntax", "{\"ids\": {\n  \"a\": 1,\n}}", "ids.json: not a schema ids file: line 3"},
		{"duplicate digest", "{\"ids\": {\n  \"a\": 1,\n  \"a\": 2}}", "ids.json: not a schema ids file: line 3"},
		{"id not a number", "{\"ids\": {\n  \"a\": \"7\"}}", "ids.json: not a schema ids file: line 2"},
		{"id out of range", `{"ids":{"a":0}}`, "ids.json: id 0 of a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSchemaIDs(&Catalog{}, "ids.json", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzParseSchemaIDs: the ids file is outside input; any text gives ids
// or an error naming the file, never a panic.
func FuzzParseSchemaIDs(f *testing.F) {
	f.Add([]byte(`{"format":1,"ids":{"sha256:x":7}}`))
	f.Add([]byte(`{"ids":{"a":0}}`))
	f.Add([]byte(`[1]`))
	cat := &Catalog{}
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := parseSchemaIDs(cat, "ids.json", data)
		if err != nil {
			if !strings.Contains(err.Error(), "ids.json") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, id := range ids.List() {
			if id == 0 || !ids.Known(id) || ids.Known(ids.Unknown()) {
				t.Fatalf("ids %v", ids.List())
			}
		}
	})
}

// TestLoadSchemaIDsStaysInRoot: an ids file that is a symlink leaving the
// catalog root is not read.
func TestLoadSchemaIDsStaysInRoot(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"evtool.yaml":             "version: 1\n",
		"schemas/com.x.a/v1.avsc": framingAvsc,
	})
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "ids.json")
	if err := os.WriteFile(outside, []byte(`{"ids":{"sha256:x":7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "schemas", ".registry", "ids.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Skip(err)
	}
	if cat, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	ids, err := LoadSchemaIDs(cat)
	if err == nil {
		t.Fatalf("read the ids file outside the root: %v", ids.List())
	}
	if !strings.Contains(err.Error(), "ids.json") {
		t.Errorf("error without the file: %v", err)
	}
}

// TestLoadSchemaIDsFromFS: a catalog loaded from files that are no
// directory (embedded in a consumer, a git tree) has its ids too.
func TestLoadSchemaIDsFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"evtool.yaml":             {Data: []byte("version: 1\n")},
		"schemas/com.x.a/v1.avsc": {Data: []byte(framingAvsc)},
	}
	cat, err := LoadFS(fsys, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	v := cat.Lookup("com.x.a").Version(1)
	fsys["schemas/.registry/ids.json"] = &fstest.MapFile{Data: []byte(`{"ids":{"` + v.Digest + `":5}}`)}
	if cat, err = LoadFS(fsys, "embedded"); err != nil {
		t.Fatal(err)
	}
	ids, err := LoadSchemaIDs(cat)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := ids.Of(cat.Lookup("com.x.a").Version(1)); !ok || id != 5 {
		t.Errorf("Of = %d %v, want 5", id, ok)
	}
}

// TestLoadSchemaIDsKeys: the ids file is keyed by SchemaIDDigest, which
// serve writes (Avro keeps defaults, so two versions that differ only in
// one have two ids; Protobuf leaves the file name out); a file keyed by the
// catalog's Digest, as written before, still gives its ids; where both
// keys are present the registry one wins. A catalog key shared by versions
// one of which has a registry key is not another version's: v2 without a
// registry entry has no id, not v1's (a Confluent registry gives the two
// different ids, so framing v2 under v1's would be wrong).
func TestLoadSchemaIDsKeys(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"evtool.yaml":              "version: 1\n",
		"schemas/com.x.a/v1.avsc":  `{"type":"record","name":"R","fields":[{"name":"n","type":"string","default":"a"}]}`,
		"schemas/com.x.a/v2.avsc":  `{"type":"record","name":"R","fields":[{"name":"n","type":"string","default":"b"}]}`,
		"schemas/com.x.p/v1.proto": "syntax = \"proto3\";\npackage x;\nmessage P { string n = 1; }\n",
	})
	cat, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	a1, a2 := cat.Lookup("com.x.a").Version(1), cat.Lookup("com.x.a").Version(2)
	p1 := cat.Lookup("com.x.p").Version(1)
	if a1.Digest != a2.Digest || SchemaIDDigest(a1.Compiled) == SchemaIDDigest(a2.Compiled) {
		t.Fatalf("avro: catalog digests %s %s, registry digests %s %s", a1.Digest, a2.Digest, SchemaIDDigest(a1.Compiled), SchemaIDDigest(a2.Compiled))
	}
	reg := func(v *Version) string { return SchemaIDDigest(v.Compiled) }
	cat1 := func(v *Version) string { return v.Digest }
	cases := []struct {
		name string
		keys map[uint32]string // id -> key
		want map[*Version]uint32
	}{
		{"registry keys", map[uint32]string{1: reg(a1), 2: reg(a2), 3: reg(p1)}, map[*Version]uint32{a1: 1, a2: 2, p1: 3}},
		{"catalog keys", map[uint32]string{4: cat1(a1), 5: cat1(p1)}, map[*Version]uint32{a1: 4, a2: 4, p1: 5}},
		{"both", map[uint32]string{1: reg(a1), 2: reg(a2), 3: reg(p1), 4: cat1(a1), 5: cat1(p1)}, map[*Version]uint32{a1: 1, a2: 2, p1: 3}},
		{"v1 served, v2 not", map[uint32]string{1: reg(a1), 4: cat1(a1), 3: reg(p1)}, map[*Version]uint32{a1: 1, a2: 0, p1: 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var kv []string
			for id, k := range tc.keys {
				kv = append(kv, `"`+k+`":`+strconv.Itoa(int(id)))
			}
			ids, err := parseSchemaIDs(cat, "ids.json", []byte(`{"ids":{`+strings.Join(kv, ",")+`}}`))
			if err != nil {
				t.Fatal(err)
			}
			for v, want := range tc.want {
				if got, ok := ids.Of(v); ok != (want != 0) || got != want {
					t.Errorf("%s: id %d (%v), want %d", v.File, got, ok, want)
				}
			}
		})
	}
}
