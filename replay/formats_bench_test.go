package replay

import (
	"context"
	"testing"

	"github.com/evtool/evtool/catalog"
)

// BenchmarkConvertFormats is the producer's conversion of Avro and
// Protobuf events (data_base64 and JSON form) into framed records.
func BenchmarkConvertFormats(b *testing.B) {
	dir := formatsDir(b, true)
	cat, err := catalog.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	h := formatsHarness(b, dir, "{file: "+formatsFileTB(b, cat)+"}", "")
	raws := validatedEvents(b, h)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if c := h.convert(context.Background(), raws[i%len(raws)], "t"); c.err != nil {
			b.Fatal(c.err)
		}
	}
}
