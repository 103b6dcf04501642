package asyncapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format/avro"
)

// TestAvroPayloadWrappedReference: a shared named type referenced as
// {"type": "<name>"} (a field's type, a union branch) is written out into
// the payload as a bare reference is: the payload compiles on its own and
// is the version's schema.
func TestAvroPayloadWrappedReference(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"evtool.yaml", "schemas/common/money.avsc", "schemas/common/fee.avsc", "schemas/com.example.pay.done/event.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "bundles", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v1 := `{"type":"record","name":"com.example.pay.Done","fields":[
  {"name":"maybe","type":["null",{"type":"com.example.common.Money"}]},
  {"name":"total","type":{"type":"com.example.common.Money"}},
  {"name":"fee","type":{"type":"com.example.common.Fee"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "schemas", "com.example.pay.done", "v1.avsc"), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ty := range cat.Types {
		for _, v := range ty.Versions {
			s, ok := v.Compiled.(*avro.Schema)
			if !ok {
				t.Fatalf("%s did not compile: %v", v.File, cat.Warnings)
			}
			n++
			doc, err := avroPayloadSchema(s)
			if err != nil {
				t.Fatal(err)
			}
			text, err := encodeJSON(doc)
			if err != nil {
				t.Fatal(err)
			}
			alone, err := avro.Parse("payload.avsc", text)
			if err != nil {
				t.Fatalf("the payload's schema does not compile on its own: %v\n%s", err, text)
			}
			if got, want := string(alone.Canonical()), string(s.Canonical()); got != want {
				t.Errorf("the payload's schema is another schema:\n got %s\nwant %s", got, want)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d versions checked", n)
	}
}
