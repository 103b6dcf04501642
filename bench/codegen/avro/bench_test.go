package avro

import (
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	twmb "github.com/twmb/avro"

	bench "github.com/evtool/evtool/bench/codegen"
	"github.com/evtool/evtool/bench/codegen/avro/events"
)

// v1Datum is the benchmark's datum: a v1 payment with ten items and three
// tags, 268 bytes in Avro's binary encoding.
func v1Datum() events.PaymentCapturedV1 {
	note := "captured after 3-D Secure"
	v := events.PaymentCapturedV1{PaymentID: "5d9f2b3e-8c1a-4e5b-9f6d-0a1b2c3d4e5f", OrderID: "ord-2026-000123",
		Attempts: 2, Status: events.PaymentCapturedV1StatusCaptured, CapturedAt: time.UnixMilli(1767225600123).UTC(),
		Note: &note, Tags: map[string]string{"channel": "web", "region": "eu-central", "campaign": "winter"}}
	for i := range 10 {
		v.Items = append(v.Items, events.PaymentCapturedV1Item{Sku: "SKU-" + strconv.Itoa(1000+i), Quantity: int32(i + 1), UnitPrice: big.NewRat(int64(1999+i*100), 100)})
	}
	return v
}

func schema(tb testing.TB, version int) *twmb.Schema {
	tb.Helper()
	text, err := os.ReadFile(filepath.Join("catalog", "schemas", "com.example.payment.captured", "v"+strconv.Itoa(version)+".avsc"))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := twmb.Parse(string(text))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// resolved is the library's v1-to-v2 reader.
func resolved(tb testing.TB) *twmb.Schema {
	r, err := twmb.Resolve(schema(tb, 1), schema(tb, 2))
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func v1Bytes(tb testing.TB) []byte {
	b, err := v1Datum().MarshalAvro()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

var ratEqual = cmp.Comparer(func(a, b *big.Rat) bool { return (a == nil) == (b == nil) && (a == nil || a.Cmp(b) == 0) })

// TestDecodersAgree: the generated code and the library fill the same
// struct with the same values, with and without resolution.
func TestDecodersAgree(t *testing.T) {
	b := v1Bytes(t)
	t.Logf("datum: %d bytes", len(b))
	gen, err := events.DecodePaymentCapturedAvro(b, 1)
	if err != nil {
		t.Fatal(err)
	}
	var lib events.PaymentCapturedV2
	if _, err := resolved(t).Decode(b, &lib); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*gen, lib, ratEqual); diff != "" {
		t.Errorf("v1 read as v2 (-generated +library):\n%s", diff)
	}
	if gen.Attempts != 2 || gen.Card != nil || gen.Amount.Sign() != 0 || len(gen.Items) != 10 {
		t.Errorf("resolution: %+v", gen)
	}
	var genV1, libV1 events.PaymentCapturedV1
	if err := genV1.UnmarshalAvro(b, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := schema(t, 1).Decode(b, &libV1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(genV1, libV1, ratEqual); diff != "" {
		t.Errorf("v1 (-generated +library):\n%s", diff)
	}
}

// v1 bytes read by a v2 consumer (schema resolution).

func BenchmarkResolve_Generated(b *testing.B) {
	data := v1Bytes(b)
	bench.Loop(b, data, func() error {
		var v events.PaymentCapturedV2
		return v.UnmarshalAvro(data, 1)
	})
}

func BenchmarkResolve_LibraryIntoStruct(b *testing.B) {
	data, r := v1Bytes(b), resolved(b)
	bench.Loop(b, data, func() error {
		var v events.PaymentCapturedV2
		_, err := r.Decode(data, &v)
		return err
	})
}

// The first half of what the generated code does: the library's generic
// decode into map[string]any, unions tagged.
func BenchmarkResolve_LibraryIntoMap(b *testing.B) {
	data, r := v1Bytes(b), resolved(b)
	bench.Loop(b, data, func() error {
		var v any
		_, err := r.Decode(data, &v, twmb.TaggedUnions())
		return err
	})
}

// v1 bytes read as v1 (no resolution).

func BenchmarkSame_Generated(b *testing.B) {
	data := v1Bytes(b)
	bench.Loop(b, data, func() error {
		var v events.PaymentCapturedV1
		return v.UnmarshalAvro(data, 1)
	})
}

func BenchmarkSame_LibraryIntoStruct(b *testing.B) {
	data, s := v1Bytes(b), schema(b, 1)
	bench.Loop(b, data, func() error {
		var v events.PaymentCapturedV1
		_, err := s.Decode(data, &v)
		return err
	})
}
