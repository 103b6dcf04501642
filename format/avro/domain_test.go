package avro

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
	"time"
)

// digitsValue is the unscaled value 10^(n-1), which has n digits, as a
// decimal's bytes.
func digitsValue(n int) []byte {
	return DecimalBytes(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n-1)), nil), -1)
}

// TestValidateDecimalPrecision: a decimal(12,2) holding 19 digits (or 1.2
// million) passed validate, which decodes with the library (no precision
// check), while the gate calls narrowing a precision a break. Values must
// fit their declared precision, on bytes and fixed, binary and JSON, and
// the error names the value's pointer.
func TestValidateDecimalPrecision(t *testing.T) {
	s, err := Parse("v1.avsc", []byte(`{"type": "record", "name": "R", "fields": [
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
  {"name": "opt", "type": ["null", {"type": "fixed", "name": "F", "size": 8, "logicalType": "decimal", "precision": 12, "scale": 2}], "default": null},
  {"name": "list", "type": {"type": "array", "items": {"type": "bytes", "logicalType": "decimal", "precision": 3}}, "default": []}]}`))
	if err != nil {
		t.Fatal(err)
	}
	fixed := func(u int64) []byte { return DecimalBytes(big.NewInt(u), 8) }
	tests := []struct {
		name  string
		datum map[string]any
		want  string // part of the error; "" for valid
	}{
		{"12 digits", map[string]any{"amount": digitsValue(12), "opt": nil, "list": []any{}}, ""},
		{"-12 digits", map[string]any{"amount": DecimalBytes(big.NewInt(-999_999_999_999), -1), "opt": nil, "list": []any{}}, ""},
		{"19 digits", map[string]any{"amount": digitsValue(19), "opt": nil, "list": []any{}},
			"/amount: decimal(12,2) value of 19 digits does not fit its precision of 12 digits"},
		{"-13 digits", map[string]any{"amount": DecimalBytes(big.NewInt(-1_000_000_000_000), -1), "opt": nil, "list": []any{}},
			"/amount: decimal(12,2) value of 13 digits"},
		{"1.2M digits", map[string]any{"amount": digitsValue(1_200_000), "opt": nil, "list": []any{}},
			"/amount: decimal(12,2) value of about 1200000 digits"},
		{"fixed in a union", map[string]any{"amount": digitsValue(1), "opt": map[string]any{"F": fixed(1_000_000_000_000)}, "list": []any{}},
			"/opt/F: decimal(12,2) value of 13 digits"},
		{"fixed fits", map[string]any{"amount": digitsValue(1), "opt": map[string]any{"F": fixed(-999_999_999_999)}, "list": []any{}}, ""},
		{"array item", map[string]any{"amount": digitsValue(1), "opt": nil, "list": []any{digitsValue(3), digitsValue(4)}},
			"/list/1: decimal(3,0) value of 4 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, err := s.Encode(tt.datum)
			if err != nil {
				t.Fatal(err)
			}
			js, err := s.EncodeJSON(tt.datum)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range []struct {
				ct   string
				data []byte
			}{{ContentTypeBinary, bin}, {ContentTypeBinary, Frame(3, bin)}, {ContentTypeJSON, js}} {
				start := time.Now()
				err := s.Validate(in.data, in.ct)
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%s: validate took %v", in.ct, d)
				}
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("%s: %v", in.ct, err)
				case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
					t.Errorf("%s: error = %v, want %q", in.ct, err, tt.want)
				}
			}
		})
	}
}

func TestDecimalBytes(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 127, 128, -128, -129, 255, 256, -32768, -32769, 999_999, -999_999} {
		u := big.NewInt(v)
		b := DecimalBytes(u, -1)
		if got := decimalUnscaled(b); got.Cmp(u) != 0 {
			t.Errorf("%d: %x reads as %v", v, b, got)
		}
		if len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
			t.Errorf("%d: %x is not the shortest form", v, b)
		}
		f := DecimalBytes(u, 8)
		if got := decimalUnscaled(f); len(f) != 8 || got.Cmp(u) != 0 {
			t.Errorf("%d: fixed %x reads as %v", v, f, got)
		}
	}
	if !bytes.Equal(DecimalBytes(big.NewInt(-1), -1), []byte{0xff}) {
		t.Error("-1 is not ff")
	}
}

// TestSampledDecimalsFit: sampled datums (replay's generated events, the
// witness search) are valid: their decimals fit the precision.
func TestSampledDecimalsFit(t *testing.T) {
	s, err := Parse("v1.avsc", []byte(`{"type": "record", "name": "R", "fields": [
  {"name": "a", "type": {"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 1}},
  {"name": "b", "type": {"type": "fixed", "name": "F", "size": 2, "logicalType": "decimal", "precision": 4}},
  {"name": "c", "type": {"type": "bytes", "logicalType": "decimal", "precision": 40}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	datums, err := s.Samples(1, 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range datums {
		bin, err := s.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Decode(bin); err != nil {
			t.Fatalf("sample %v: %v", d, err)
		}
	}
}
