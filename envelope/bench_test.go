package envelope

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// A realistic order event: the data is what bench/ would validate bare.
const benchData = `{"orderId":"ord-000042","customerId":"cus-1093","placedAt":"2024-03-01T09:30:00Z","status":"PLACED",` +
	`"total":{"amount":"129.90","currency":"EUR"},"lines":[{"sku":"SKU-1","name":"Espresso beans 1kg","qty":2,"unitPrice":{"amount":"24.95","currency":"EUR"}},` +
	`{"sku":"SKU-7","name":"Grinder","qty":1,"unitPrice":{"amount":"80.00","currency":"EUR"}}],` +
	`"shipping":{"method":"standard","address":{"street":"Hauptstr. 1","city":"Berlin","postalCode":"10115","country":"DE"}}}`

const benchEvent = `{"specversion":"1.0","id":"5f0b1a2d-8e01-4c8e-9c43-7f0b6c1e3f35","source":"https://shop.example.com/orders",` +
	`"type":"com.example.order.placed","datacontenttype":"application/json",` +
	`"dataschema":"https://schemas.example.com/com.example.order.placed/v2.json","subject":"ord-000042",` +
	`"time":"2024-03-01T09:30:00.123Z","partitionkey":"ord-000042","data":` + benchData + `}`

const benchSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["orderId", "customerId", "placedAt", "status", "total", "lines"],
  "additionalProperties": false,
  "properties": {
    "orderId": {"type": "string", "pattern": "^ord-[0-9]{6}$"},
    "customerId": {"type": "string", "minLength": 1},
    "placedAt": {"type": "string", "format": "date-time"},
    "status": {"enum": ["PLACED", "PAID", "SHIPPED"]},
    "total": {"$ref": "#/$defs/money"},
    "lines": {"type": "array", "minItems": 1, "items": {
      "type": "object", "required": ["sku", "qty", "unitPrice"],
      "properties": {"sku": {"type": "string"}, "name": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}, "unitPrice": {"$ref": "#/$defs/money"}}}},
    "shipping": {"type": "object", "properties": {"method": {"enum": ["standard", "express"]}, "address": {"type": "object"}}}
  },
  "$defs": {"money": {"type": "object", "required": ["amount", "currency"],
    "properties": {"amount": {"type": "string", "pattern": "^[0-9]+\\.[0-9]{2}$"}, "currency": {"type": "string", "minLength": 3, "maxLength": 3}}}}
}`

func benchCompile(b *testing.B) *jsonschema.Schema {
	b.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(benchSchema))
	if err != nil {
		b.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://schemas.example.com/order.json", doc); err != nil {
		b.Fatal(err)
	}
	sch, err := c.Compile("https://schemas.example.com/order.json")
	if err != nil {
		b.Fatal(err)
	}
	return sch
}

func BenchmarkDecodeJSON(b *testing.B) {
	raw := []byte(benchEvent)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		d, fs := DecodeJSON(raw)
		if d == nil || len(fs) != 0 {
			b.Fatal(fs)
		}
	}
}

// BenchmarkBareStdlibDecodeData is the decoding half of the bare baseline:
// encoding/json with UseNumber on the data payload alone (what
// jsonschema.UnmarshalJSON does).
func BenchmarkBareStdlibDecodeData(b *testing.B) {
	raw := []byte(benchData)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareValidate is the bare baseline of the performance
// target: santhosh decode + validate of the data payload.
func BenchmarkBareValidate(b *testing.B) {
	sch := benchCompile(b)
	raw := []byte(benchData)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnvelopeValidate is the same work as evtool validate per event:
// the whole event through DecodeJSON (envelope rules, sdk-go Validate) and
// its data through the schema. Compare its ns/op with BenchmarkBareValidate.
func BenchmarkEnvelopeValidate(b *testing.B) {
	sch := benchCompile(b)
	raw := []byte(benchEvent)
	b.SetBytes(int64(len(benchData))) // MB/s of data, as the baseline counts
	b.ReportAllocs()
	for b.Loop() {
		d, fs := DecodeJSON(raw)
		if d == nil || len(fs) != 0 {
			b.Fatal(fs)
		}
		if err := sch.Validate(d.Data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	var in bytes.Buffer
	const n = 1000
	for i := 0; i < n; i++ {
		in.WriteString(benchEvent)
		in.WriteByte('\n')
	}
	raw := in.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(raw), 0)
		k := 0
		for {
			it, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil || it.Err != nil {
				b.Fatal(err, it.Err)
			}
			k++
		}
		if k != n {
			b.Fatalf("read %d events", k)
		}
	}
}

func BenchmarkFromRecord(b *testing.B) {
	d, _ := DecodeJSON([]byte(benchEvent))
	for _, mode := range []Mode{ModeBinary, ModeStructured} {
		r, err := ToRecord(context.Background(), &d.Event, mode)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint(mode), func(b *testing.B) {
			b.SetBytes(int64(len(r.Value)))
			b.ReportAllocs()
			for b.Loop() {
				if d, fs, err := FromRecord(r); err != nil || d == nil || len(fs) != 0 {
					b.Fatal(err, fs)
				}
			}
		})
	}
}

func BenchmarkToRecord(b *testing.B) {
	d, _ := DecodeJSON([]byte(benchEvent))
	for _, mode := range []Mode{ModeBinary, ModeStructured} {
		b.Run(fmt.Sprint(mode), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ToRecord(context.Background(), &d.Event, mode, WithKeyFromPartitionKey()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
