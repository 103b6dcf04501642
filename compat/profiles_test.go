package compat

import (
	"slices"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/compat/protocompat"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// The profiles an engine gives meaning to are the ones its format's
// provider declares to the catalog (which accepts only those), with the
// same default.
func TestEngineProfilesAreDeclared(t *testing.T) {
	for _, tc := range []struct {
		kind  format.Kind
		names []catalog.Profile
		def   catalog.Profile
	}{
		{format.JSONSchema, []catalog.Profile{jsoncompat.ProfileLenient, jsoncompat.ProfileStrict}, jsoncompat.ProfileLenient},
		{format.Protobuf, []catalog.Profile{protocompat.ProfileWire, protocompat.ProfileWireJSON}, protocompat.ProfileWireJSON},
		{format.Avro, nil, ""},
	} {
		p, ok := formats.ForKind(tc.kind)
		if !ok {
			t.Fatalf("no provider for %s", tc.kind)
		}
		declared := p.CompatProfiles()
		var names []catalog.Profile
		for _, n := range declared.Names {
			names = append(names, catalog.Profile(n))
		}
		if !slices.Equal(names, tc.names) || catalog.Profile(declared.Default) != tc.def {
			t.Errorf("%s: the provider declares %v (default %q), the engine knows %v (default %q)", tc.kind, names, declared.Default, tc.names, tc.def)
		}
		for _, n := range tc.names {
			if got, err := catalog.ParseProfile(string(n)); err != nil || got != n {
				t.Errorf("ParseProfile(%q) = %q, %v", n, got, err)
			}
		}
	}
}
