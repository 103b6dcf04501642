package codegen

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evtool/evtool/bench/codegen/events"
	"github.com/evtool/evtool/bench/codegen/plain"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// TestPayloadAgrees checks that the decoders agree on the payload and on
// a broken copy.
func TestPayloadAgrees(t *testing.T) {
	doc := Payload(t)
	var g events.CheckoutCompletedV1
	if err := g.UnmarshalJSON(doc); err != nil {
		t.Fatal(err)
	}
	var p plain.CheckoutCompletedV1
	if err := json.Unmarshal(doc, &p); err != nil {
		t.Fatal(err)
	}
	if g.Total.AmountMinor != p.Total.AmountMinor || len(g.Items) != len(p.Items) || !g.CompletedAt.Equal(p.CompletedAt) {
		t.Fatal("generated and plain decoding differ")
	}
	sch := Compiled(t)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err := sch.Validate(v); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(doc, []byte(`"TSH-0042"`), []byte(`"tsh-42"`), 1)
	if err := g.UnmarshalJSON(bad); err == nil {
		t.Fatal("generated code accepts a bad sku")
	}
	v, _ = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if err := sch.Validate(v); err == nil {
		t.Fatal("santhosh accepts a bad sku")
	}
}

func BenchmarkDecode_Generated(b *testing.B)                 { Generated(b) }
func BenchmarkDecode_GeneratedViaJSONUnmarshal(b *testing.B) { GeneratedViaJSONUnmarshal(b) }
func BenchmarkDecode_EncodingJSON(b *testing.B)              { EncodingJSON(b) }
func BenchmarkDecode_SanthoshThenEncodingJSON(b *testing.B)  { SanthoshThenEncodingJSON(b) }
