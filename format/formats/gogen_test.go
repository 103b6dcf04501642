package formats

import (
	"testing"

	"github.com/evtool/evtool/format"
)

// TestGoGenerators: which formats get Go code from evtool gen go is the
// providers' answer (format.GoGenerator), not a list in codegen; Protobuf's
// messages are protoc-gen-go's job.
func TestGoGenerators(t *testing.T) {
	want := map[format.Kind]bool{format.JSONSchema: true, format.Avro: true, format.Protobuf: false}
	for _, p := range All() {
		_, got := p.(format.GoGenerator)
		if w, ok := want[p.Kind()]; !ok || got != w {
			t.Errorf("%s: GoGenerator %v, want %v", p.Kind(), got, w)
		}
	}
}
