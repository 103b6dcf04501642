package avrocompat

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format/avro"
)

// A break inside a shared named type points into the shared file, with
// the line of the change, from both versions.
func TestSharedTypePointers(t *testing.T) {
	fsys := fstest.MapFS{
		"types/order/v1.avsc": {Data: []byte(`{"type": "record", "name": "x.Order", "fields": [
  {"name": "total", "type": "x.common.Money"}]}`)},
		"types/order/v2.avsc": {Data: []byte(`{"type": "record", "name": "x.Order2", "aliases": ["x.Order"], "fields": [
  {"name": "total", "type": "x.common.Money2"}]}`)},
		"common/money.avsc": {Data: []byte(`{"type": "record", "name": "x.common.Money", "fields": [
  {"name": "units", "type": "long"},
  {"name": "currency", "type": "string"}]}`)},
		"common/money2.avsc": {Data: []byte(`{"type": "record", "name": "x.common.Money2", "aliases": ["x.common.Money"], "fields": [
  {"name": "units", "type": "long"},
  {"name": "currency",
   "type": "int"}]}`)},
	}
	v1, err := avro.Load(fsys, "types/order/v1.avsc", "common")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := avro.Load(fsys, "types/order/v2.avsc", "common")
	if err != nil {
		t.Fatal(err)
	}
	fs := Compare(v1, v2, engine.Backward, engine.Options{})
	if len(fs) != 1 {
		t.Fatalf("findings = %v", fs)
	}
	r := fs[0].ToReport(engine.Pair{Type: "x.order", OldVersion: 1, NewVersion: 2, OldFile: "types/order/v1.avsc", NewFile: "types/order/v2.avsc"}, v1, v2)
	got := strings.Join([]string{r.Rule, r.File, r.Pointer, r.OldPointer, r.NewPointer}, " ")
	want := "avro-type-changed common/money2.avsc /fields/1/type common/money.avsc#/fields/1/type common/money2.avsc#/fields/1/type"
	if got != want || r.Line != 4 {
		t.Errorf("got %s line %d\nwant %s line 4", got, r.Line, want)
	}
}
