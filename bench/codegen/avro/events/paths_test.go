package events

// Not generated: benchmarks of the generated event decoders against the
// generic path they took before (the library's generic decode, then the
// converters), which the generated code still holds for the cases the
// fast path hands back. See BENCHMARKS.md ("Code generation: Avro").

import (
	"math/big"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"

	bench "github.com/evtool/evtool/bench/codegen"
)

func datum(tb testing.TB) PaymentCapturedV1 {
	note := "captured after 3-D Secure"
	v := PaymentCapturedV1{PaymentID: "5d9f2b3e-8c1a-4e5b-9f6d-0a1b2c3d4e5f", OrderID: "ord-2026-000123",
		Attempts: 2, Status: PaymentCapturedV1StatusCaptured, CapturedAt: time.UnixMilli(1767225600123).UTC(),
		Note: &note, Tags: map[string]string{"channel": "web", "region": "eu-central", "campaign": "winter"}}
	for i := range 10 {
		v.Items = append(v.Items, PaymentCapturedV1Item{Sku: "SKU-" + strconv.Itoa(1000+i), Quantity: int32(i + 1), UnitPrice: big.NewRat(int64(1999+i*100), 100)})
	}
	return v
}

// v1Event is the datum as a v1 event, binary or in Avro's JSON encoding.
func v1Event(tb testing.TB, isJSON bool) (event.Event, []byte) {
	d := datum(tb)
	var data []byte
	var err error
	if isJSON {
		data, err = d.MarshalAvroJSON()
	} else {
		data, err = d.MarshalAvro()
	}
	if err != nil {
		tb.Fatal(err)
	}
	e, err := NewPaymentCapturedV1Event("/bench", d)
	if err != nil {
		tb.Fatal(err)
	}
	if isJSON {
		e.SetDataContentType("application/json")
		e.DataEncoded, e.DataBase64 = data, false
	}
	return e, data
}

// oldDecode is DecodePaymentCaptured as generated before the fast path.
func oldDecode(e event.Event) (*PaymentCapturedV2, error) {
	data, writer, isJSON, err := evtAvroEventData(e, PaymentCapturedType, []string{PaymentCapturedV1DataSchema, PaymentCapturedV2DataSchema})
	if err != nil {
		return nil, err
	}
	var d any
	if isJSON {
		d, err = avroSchemasOfPaymentCaptured.decodeJSON(data, writer, 2)
	} else {
		d, err = avroSchemasOfPaymentCaptured.decodeAuto(data, writer, 2)
	}
	if err != nil {
		return nil, evtDataErr(e, PaymentCapturedType, writer, err)
	}
	v, err := avroFromPaymentCapturedV2(d)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// oldDecodeFramed is DecodePaymentCapturedFramed as generated before.
func oldDecodeFramed(data []byte, versionOf func(uint32) (int, bool)) (*PaymentCapturedV2, error) {
	d, _, err := avroSchemasOfPaymentCaptured.decodeFramed(data, versionOf, 2)
	if err != nil {
		return nil, err
	}
	v, err := avroFromPaymentCapturedV2(d)
	return &v, err
}

func v1Only(uint32) (int, bool) { return 1, true }

// TestFastPathsAgreeWithOld: the benchmarked paths give the same struct.
func TestFastPathsAgreeWithOld(t *testing.T) {
	for _, isJSON := range []bool{false, true} {
		e, _ := v1Event(t, isJSON)
		got, err := DecodePaymentCaptured(e)
		if err != nil {
			t.Fatal(err)
		}
		want, err := oldDecode(e)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("JSON %v:\n got %+v\nwant %+v", isJSON, got, want)
		}
	}
	_, data := v1Event(t, false)
	framed := evtAvroFrame(7, data)
	got, err := DecodePaymentCapturedFramed(framed, v1Only)
	if err != nil {
		t.Fatal(err)
	}
	want, err := oldDecodeFramed(framed, v1Only)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("framed:\n got %+v\nwant %+v (%v)", got, want, err)
	}
}

// A v1 event read by a v2 consumer: Decode<Type>, binary data_base64.

func BenchmarkEvent_Generated(b *testing.B) {
	e, data := v1Event(b, false)
	bench.Loop(b, data, func() error { _, err := DecodePaymentCaptured(e); return err })
}

func BenchmarkEvent_OldGenericPath(b *testing.B) {
	e, data := v1Event(b, false)
	bench.Loop(b, data, func() error { _, err := oldDecode(e); return err })
}

// The same datum Confluent-framed: Decode<Type>Framed.

func BenchmarkFramed_Generated(b *testing.B) {
	_, data := v1Event(b, false)
	framed := evtAvroFrame(7, data)
	bench.Loop(b, framed, func() error { _, err := DecodePaymentCapturedFramed(framed, v1Only); return err })
}

func BenchmarkFramed_OldGenericPath(b *testing.B) {
	_, data := v1Event(b, false)
	framed := evtAvroFrame(7, data)
	bench.Loop(b, framed, func() error { _, err := oldDecodeFramed(framed, v1Only); return err })
}

// A v1 event in Avro's JSON encoding read by a v2 consumer.

func BenchmarkJSONEvent_Generated(b *testing.B) {
	e, data := v1Event(b, true)
	bench.Loop(b, data, func() error { _, err := DecodePaymentCaptured(e); return err })
}

func BenchmarkJSONEvent_OldGenericPath(b *testing.B) {
	e, data := v1Event(b, true)
	bench.Loop(b, data, func() error { _, err := oldDecode(e); return err })
}

// oldNewEvent is NewPaymentCapturedV1Event as generated before the fast
// encode: the converters, then the generic encoder.
func oldNewEvent(source string, data PaymentCapturedV1) (event.Event, error) {
	d, err := avroToPaymentCapturedV1(data)
	if err != nil {
		return event.Event{}, err
	}
	b, err := avroSchemasOfPaymentCaptured.encode(1, d)
	if err != nil {
		return event.Event{}, err
	}
	return evtNewAvroEvent(PaymentCapturedType, PaymentCapturedV1DataSchema, source, b, nil)
}

// TestFastEncodeAgreesWithOld: both constructors write data that decodes
// to the same struct.
func TestFastEncodeAgreesWithOld(t *testing.T) {
	newE, err := NewPaymentCapturedV1Event("/bench", datum(t))
	if err != nil {
		t.Fatal(err)
	}
	oldE, err := oldNewEvent("/bench", datum(t))
	if err != nil {
		t.Fatal(err)
	}
	a, errA := DecodePaymentCaptured(newE)
	b, errB := DecodePaymentCaptured(oldE)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("new %+v (%v), old %+v (%v)", a, errA, b, errB)
	}
}

// A v1 event made by the typed constructor.

func BenchmarkNewEvent_Generated(b *testing.B) {
	d := datum(b)
	_, data := v1Event(b, false)
	bench.Loop(b, data, func() error { _, err := NewPaymentCapturedV1Event("/bench", d); return err })
}

func BenchmarkNewEvent_OldGenericPath(b *testing.B) {
	d := datum(b)
	_, data := v1Event(b, false)
	bench.Loop(b, data, func() error { _, err := oldNewEvent("/bench", d); return err })
}
