package formats

import (
	"testing"

	"github.com/evtool/evtool/format"
)

// TestCompareAnswers: what jobs used to learn by comparing a kind with a
// format constant, each provider answers for its own format.
func TestCompareAnswers(t *testing.T) {
	for _, tc := range []struct {
		kind                    format.Kind
		binary, refs, ruler     bool
		jsonForm, rel           string
		recordShared, describes bool
	}{
		{format.JSONSchema, false, false, false, "", "", false, false},
		{format.Avro, true, true, true, "Avro's JSON encoding", "common/shop.Money.avsc", true, false},
		{format.Protobuf, true, true, true, "the Protobuf JSON mapping", "shop.Money", false, true},
	} {
		p, _ := ForKind(tc.kind)
		if got := format.HasBinaryData(p); got != tc.binary {
			t.Errorf("%s: HasBinaryData = %v", tc.kind, got)
		}
		if b, ok := p.(format.BinaryDataer); ok && b.JSONFormName() != tc.jsonForm {
			t.Errorf("%s: JSONFormName = %q, want %q", tc.kind, b.JSONFormName(), tc.jsonForm)
		}
		if got := format.HasRegistryRefs(p); got != tc.refs {
			t.Errorf("%s: HasRegistryRefs = %v", tc.kind, got)
		}
		r, ok := p.(format.RegistryRuler)
		if ok != tc.ruler {
			t.Errorf("%s: RegistryRuler %v", tc.kind, ok)
		}
		if !ok {
			continue
		}
		if got := r.SharedRel("shop.Money"); got != tc.rel {
			t.Errorf("%s: SharedRel = %q, want %q", tc.kind, got, tc.rel)
		}
		if r.RecordSubjectShared() != tc.recordShared || r.Descriptors() != tc.describes {
			t.Errorf("%s: RecordSubjectShared %v, Descriptors %v", tc.kind, r.RecordSubjectShared(), r.Descriptors())
		}
		if r.RegistryIdentity() == "" {
			t.Errorf("%s: no registry identity", tc.kind)
		}
	}
	if format.HasBinaryData(nil) || format.HasRegistryRefs(nil) {
		t.Error("no provider answers yes")
	}
}
