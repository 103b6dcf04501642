package envelope

import (
	"fmt"
	"testing"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/evtool/evtool/catalog"
)

// TestSetFormatData: the JSON form of Avro and Protobuf data, which
// partition keys and sequences point into, is read from the datum as the
// type's framing says, a frame taken off once. The Avro datum
// {counter: 0, steps: [1, 1, 1, 1]} (00 08 02 02 02 02 00) starts like a
// frame whose rest is a datum too ({counter: 1, steps: []}).
func TestSetFormatData(t *testing.T) {
	framed, err := catalog.Load("testdata/framed")
	if err != nil {
		t.Fatal(err)
	}
	formats, _ := formatsCatalog(t, false, "")
	counter := func(name string) *catalog.Version { return framed.Lookup(name).Version(1) }
	stock := formats.Lookup(protoType).Version(1)
	stockBinary, err := stock.Compiled.EncodeValue(map[string]any{"sku": "S-1", "delta": "3"}, stock.Compiled.DefaultContentType())
	if err != nil {
		t.Fatal(err)
	}
	datum := []byte{0x00, 0x08, 0x02, 0x02, 0x02, 0x02, 0x00}
	for _, tc := range []struct {
		name    string
		ver     *catalog.Version
		framing catalog.Framing
		ct      string
		data    []byte
		want    string // fmt of Data; "" for unset
		wantErr bool
	}{
		{"avro framed", counter("com.example.counter.moved"), catalog.FramingConfluent, "application/avro", append([]byte{0, 0, 0, 0, 1}, datum...), "map[counter:0 steps:[1 1 1 1]]", false},
		{"avro unframed under framing none", counter("com.example.counter.reset"), catalog.FramingNone, "application/avro", datum, "map[counter:0 steps:[1 1 1 1]]", false},
		{"avro plain datum", counter("com.example.counter.moved"), catalog.FramingConfluent, "application/avro", []byte{0x04, 0x02, 0x06, 0x00}, "map[counter:2 steps:[3]]", false},
		{"avro JSON encoding", counter("com.example.counter.moved"), catalog.FramingConfluent, "", []byte(`{"counter": 5, "steps": []}`), "map[counter:5 steps:[]]", false},
		{"avro truncated", counter("com.example.counter.moved"), catalog.FramingConfluent, "application/avro", datum[:3], "", true},
		{"avro content type no encoding", counter("com.example.counter.moved"), catalog.FramingConfluent, "text/plain", datum, "", true},
		{"protobuf binary", stock, catalog.FramingConfluent, "application/protobuf", stockBinary, "map[delta:3 sku:S-1]", false},
		{"protobuf framed", stock, catalog.FramingConfluent, "application/protobuf", FrameData(stock.Compiled, 7, stockBinary), "map[delta:3 sku:S-1]", false},
		{"protobuf JSON mapping", stock, catalog.FramingConfluent, "application/json", []byte(`{"sku": "S-2"}`), "map[delta:0 sku:S-2]", false}, // delta left out at its default
		{"no version", nil, catalog.FramingConfluent, "application/avro", datum, "", false},
	} {
		e := event.New()
		if tc.ct != "" {
			e.SetDataContentType(tc.ct)
		}
		d := &Decoded{Event: e, HasData: true, RawData: tc.data}
		err := d.SetFormatData(tc.ver, tc.framing)
		got := ""
		if d.Data != nil {
			got = fmt.Sprint(d.Data)
		}
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%s: Data %s, error %v; want %s (error %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
