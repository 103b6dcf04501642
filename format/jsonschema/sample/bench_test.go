package sample

import "testing"

// benchSchema is a realistic event payload: nested objects, enums, formats,
// patterns, bounded numbers with multipleOf, arrays of objects, a oneOf with a
// const discriminator and a $ref.
const benchSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://schemas.example.com/com.example.order.placed/v2.json",
  "title": "OrderPlaced",
  "type": "object",
  "required": ["orderId", "customer", "items", "total", "currency", "placedAt", "status"],
  "additionalProperties": false,
  "properties": {
    "orderId": {"type": "string", "pattern": "^ORD-[0-9]{8}$"},
    "customer": {
      "type": "object",
      "required": ["id", "email"],
      "additionalProperties": false,
      "properties": {
        "id": {"type": "string", "format": "uuid"},
        "email": {"type": "string", "format": "email", "maxLength": 254},
        "name": {"type": "string", "minLength": 1, "maxLength": 80},
        "address": {"$ref": "#/$defs/address"}
      }
    },
    "items": {
      "type": "array",
      "minItems": 1,
      "maxItems": 50,
      "items": {
        "type": "object",
        "required": ["sku", "quantity", "unitPrice"],
        "additionalProperties": false,
        "properties": {
          "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
          "quantity": {"type": "integer", "minimum": 1, "maximum": 999},
          "unitPrice": {"$ref": "#/$defs/money"},
          "tags": {"type": "array", "items": {"type": "string", "maxLength": 16}, "uniqueItems": true}
        }
      }
    },
    "total": {"$ref": "#/$defs/money"},
    "currency": {"enum": ["EUR", "USD", "GBP", "JPY"]},
    "placedAt": {"type": "string", "format": "date-time"},
    "status": {"enum": ["PLACED", "PAID", "SHIPPED"]},
    "payment": {
      "oneOf": [
        {"type": "object", "required": ["method", "last4"], "additionalProperties": false,
         "properties": {"method": {"const": "card"}, "last4": {"type": "string", "pattern": "^[0-9]{4}$"}}},
        {"type": "object", "required": ["method", "iban"], "additionalProperties": false,
         "properties": {"method": {"const": "sepa"}, "iban": {"type": "string", "minLength": 15, "maxLength": 34}}}
      ]
    },
    "coupon": {"type": ["string", "null"], "maxLength": 12},
    "notes": {"type": "string", "maxLength": 500}
  },
  "$defs": {
    "money": {"type": "number", "minimum": 0, "exclusiveMaximum": 1000000, "multipleOf": 0.01},
    "address": {
      "type": "object",
      "required": ["line1", "city", "country"],
      "properties": {
        "line1": {"type": "string", "minLength": 1},
        "city": {"type": "string", "minLength": 1},
        "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"}
      }
    }
  }
}`

func BenchmarkSamples(b *testing.B) {
	s := compile(b, benchSchema, true)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Samples(s, 10, int64(i), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	s := compile(b, benchSchema, true)
	sp := New(s, Options{})
	r := rng(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sp.Generate(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVariants(b *testing.B) {
	s := compile(b, benchSchema, true)
	doc, err := New(s, Options{}).Generate(rng(1))
	if err != nil {
		b.Fatal(err)
	}
	r := rng(2)
	b.ReportAllocs()
	for b.Loop() {
		Variants(doc, s, s, r, 64)
	}
}
