package codegen

import (
	"testing"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// TestNoGoCode: why a format's types get no Go code is the provider's
// to say, and a NoGoCodeError names the types and each format's reason.
func TestNoGoCode(t *testing.T) {
	for _, tc := range []struct {
		kind format.Kind
		want string
	}{
		{format.Protobuf, "Protobuf event types get no Go code from evtool; generate the messages with protoc-gen-go or buf generate (evtool's catalog files are ordinary .proto files)"},
		{format.Avro, "Avro event types get no Go code from evtool"},
	} {
		p, _ := formats.ForKind(tc.kind)
		if got := noGoCode(p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.kind, got, tc.want)
		}
	}
	err := &NoGoCodeError{Types: []string{"a.b", "c.d"}, Why: []string{"X has none", "Y has none"}}
	if got, want := err.Error(), "a.b, c.d: X has none; Y has none"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
