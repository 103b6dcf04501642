package records

import (
	"github.com/evtool/evtool/internal/fuzzcost"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
)

// FuzzCheck: a record read from Kafka is outside input; any key, value
// and CloudEvents headers give findings that each name the record's
// topic/partition@offset, never a panic, whatever the catalog's formats.
func FuzzCheck(f *testing.F) {
	f.Add("com.example.order.placed", "https://schemas.example.com/com.example.order.placed/v1.json", "application/json", []byte("ord-1"), []byte(`{"orderId":"ord-1"}`))
	f.Add("com.example.counter.moved", "https://schemas.example.com/com.example.counter.moved/v1.avsc", "application/avro", []byte("0"), []byte{0, 0, 0, 0, 1, 0, 8, 2, 2, 2, 2, 0})
	f.Add("com.example.counter.reset", "https://schemas.example.com/com.example.counter.reset/v1.avsc", "application/avro", []byte("0"), []byte{0, 8, 2})
	f.Add("", "", "application/cloudevents+json", []byte(nil), []byte(`{"specversion":"1.0","id":"x","source":"/s","type":"com.example.order.placed","data":{}}`))
	var cats []*catalog.Catalog
	for _, dir := range []string{"../examples/orders", "testdata/framed", "testdata/proto"} {
		cat, err := catalog.Load(dir)
		if err != nil {
			f.Fatal(err)
		}
		cats = append(cats, cat)
	}
	f.Fuzz(func(t *testing.T, typ, dataschema, contentType string, key, value []byte) {
		fuzzcost.Default().Check(t, len(typ)+len(dataschema)+len(contentType)+len(key)+len(value), func() {
			h := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
			for _, cat := range cats {
				c := NewChecker(cat)
				for offset := int64(0); offset < 2; offset++ { // twice: the cross-record checks too
					r := c.Check(&kgo.Record{Topic: "t", Partition: 3, Offset: offset, Key: key, Value: value, Headers: []kgo.RecordHeader{
						h("ce_specversion", "1.0"), h("ce_id", "x"), h("ce_source", "/s"), h("ce_type", typ),
						h("ce_dataschema", dataschema), h("content-type", contentType),
					}})
					for _, fd := range r.Findings {
						if fd.Record == nil || fd.Record.Topic != "t" || fd.Record.Partition != 3 || fd.Record.Offset != offset {
							t.Fatalf("finding without its record: %+v", fd)
						}
					}
				}
				c.Finish()
			}
		})
	})
}
