package events_test

// Tests of the generated package (the rest of this directory is generated
// by `evtool gen go --dir examples/orders --out examples/orders/events`).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/examples/orders/events"
)

// Every event of events.jsonl decodes to the struct of its type and
// version.
func TestDecodeEventsFile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	counts := map[string]int{}
	for sc.Scan() {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		v, err := events.Decode(e)
		if err != nil {
			t.Fatalf("%s: %v", e.ID(), err)
		}
		counts[fmtType(v)]++
		switch d := v.(type) {
		case *events.OrderPlacedV1:
			if d.OrderID != e.Subject() {
				t.Errorf("%s: orderId %s, subject %s", e.ID(), d.OrderID, e.Subject())
			}
		case *events.OrderPlacedV2, *events.OrderPaidV1, *events.OrderShippedV1:
		default:
			t.Fatalf("%s: Decode returned %T", e.ID(), v)
		}
	}
	if len(counts) < 3 {
		t.Errorf("decoded only %v", counts)
	}
	t.Logf("decoded %v", counts)
}

func fmtType(v any) string {
	switch v.(type) {
	case *events.OrderPlacedV1:
		return "OrderPlacedV1"
	case *events.OrderPlacedV2:
		return "OrderPlacedV2"
	case *events.OrderPaidV1:
		return "OrderPaidV1"
	case *events.OrderShippedV1:
		return "OrderShippedV1"
	}
	return "?"
}

// Every example payload of the catalog decodes, and encodes back to the
// same JSON.
func TestCatalogExamples(t *testing.T) {
	decoders := map[string]func([]byte) (any, error){
		"com.example.order.placed/examples/v1": func(b []byte) (any, error) { var v events.OrderPlacedV1; return &v, v.UnmarshalJSON(b) },
		"com.example.order.placed/examples/v2": func(b []byte) (any, error) { var v events.OrderPlacedV2; return &v, v.UnmarshalJSON(b) },
		"com.example.order.paid/examples/v1":   func(b []byte) (any, error) { var v events.OrderPaidV1; return &v, v.UnmarshalJSON(b) },
		"com.example.order.shipped/examples/v1": func(b []byte) (any, error) {
			var v events.OrderShippedV1
			return &v, v.UnmarshalJSON(b)
		},
	}
	n := 0
	for dir, decode := range decoders {
		files, _ := filepath.Glob(filepath.Join("..", "schemas", dir, "*.json"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v, err := decode(data)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			json.Unmarshal(data, &a)
			json.Unmarshal(out, &b)
			if d := cmp.Diff(normalizeTimes(a), normalizeTimes(b)); d != "" {
				t.Errorf("%s: round trip changed the payload (-in +out):\n%s", file, d)
			}
			n++
		}
	}
	if n < 6 {
		t.Errorf("only %d examples found", n)
	}
}

// normalizeTimes turns RFC 3339 strings into instants so that
// "2025-03-03T08:14:09+00:00" and "...Z" compare equal.
func normalizeTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeTimes(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeTimes(e)
		}
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t.UTC().Format(time.RFC3339Nano)
		}
	}
	return v
}

func placedV2() events.OrderPlacedV2 {
	ch := events.OrderPlacedV2SalesChannelWeb
	return events.OrderPlacedV2{
		OrderID:      "ord-10233",
		CustomerID:   "cus-250061",
		OrderVersion: 1,
		Items: []events.OrderPlacedV2LineItem{
			{Sku: "HDP-0310", Quantity: 1, UnitPrice: events.Money{AmountMinor: 14900, Currency: "USD"}},
			{Sku: "CBL-0021", Quantity: 2, UnitPrice: events.Money{AmountMinor: 1299, Currency: "USD"}},
		},
		Total:    events.Money{AmountMinor: 17498, Currency: "USD"},
		PlacedAt: time.Date(2025, 3, 3, 14, 2, 33, 0, time.FixedZone("", -5*3600)),
		Channel:  &ch,
	}
}

func TestNewEventThenDecode(t *testing.T) {
	data := placedV2()
	at := time.Date(2025, 3, 3, 19, 2, 34, 0, time.UTC)
	e, err := events.NewOrderPlacedV2Event("/orders-service", data, events.WithSubject(data.OrderID), events.WithTime(at))
	if err != nil {
		t.Fatal(err)
	}
	if e.Type() != events.OrderPlacedType || e.DataSchema() != events.OrderPlacedV2DataSchema ||
		e.DataContentType() != event.ApplicationJSON || e.ID() == "" || !e.Time().Equal(at) || e.Subject() != "ord-10233" || e.Source() != "/orders-service" {
		t.Errorf("attributes: %s", e)
	}
	// through the wire format and back
	wire, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	// JSON data is written as "data": {...}, as other SDKs expect.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(wire, &members); err != nil {
		t.Fatal(err)
	}
	if _, ok := members["data_base64"]; ok || !bytes.HasPrefix(members["data"], []byte("{")) {
		t.Errorf("wire format has data %s, data_base64 %s; want a JSON object in data", members["data"], members["data_base64"])
	}
	var back event.Event
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	got, err := events.DecodeOrderPlaced(back)
	if err != nil {
		t.Fatal(err)
	}
	v2, ok := got.(*events.OrderPlacedV2)
	if !ok {
		t.Fatalf("DecodeOrderPlaced returned %T", got)
	}
	if d := cmp.Diff(&data, v2, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
		t.Errorf("decoded data differs (-sent +got):\n%s", d)
	}
	any, err := events.Decode(back)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := any.(*events.OrderPlacedV2); !ok {
		t.Errorf("Decode returned %T", any)
	}
}

func TestNewEventRejectsInvalidData(t *testing.T) {
	data := placedV2()
	data.Items[1].Sku = "cbl-21"
	data.Items[0].Quantity = 0
	data.Total.Currency = "usd"
	data.CustomerID = ""
	_, err := events.NewOrderPlacedV2Event("/orders-service", data)
	if err == nil {
		t.Fatal("invalid data accepted")
	}
	var ptrs []string
	for _, ve := range events.ValidationErrors(err) {
		ptrs = append(ptrs, ve.Pointer)
	}
	sort.Strings(ptrs)
	want := []string{"/customerId", "/items/0/quantity", "/items/1/sku", "/total/currency"}
	if d := cmp.Diff(want, ptrs); d != "" {
		t.Errorf("every problem is reported with its pointer (-want +got):\n%s\n%v", d, err)
	}
	if _, err := events.NewOrderPlacedV2Event("/billing-service", placedV2()); err == nil || !strings.Contains(err.Error(), "source") {
		t.Errorf("source outside the catalog's pattern: %v", err)
	}
	if _, err := events.NewOrderPlacedV2Event("/orders-service", placedV2(), events.WithExtension("Bad-Name", 1)); err == nil {
		t.Error("invalid extension name accepted")
	}
	if err := data.Validate(); err == nil {
		t.Error("Validate accepts invalid data")
	}
	good := placedV2()
	if err := good.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func event1(t *testing.T, typ, dataschema, data string) event.Event {
	t.Helper()
	e := event.New()
	e.SetID("e-1")
	e.SetSource("/orders-service")
	e.SetType(typ)
	if dataschema != "" {
		e.SetDataSchema(dataschema)
	}
	if err := e.SetData(event.ApplicationJSON, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return e
}

const paidV1 = `{"orderId":"ord-10231","orderVersion":2,"paymentId":"3f1c9a52-7d2e-4b8a-9c41-6e0d2b7f5a13","amount":{"amountMinor":3998,"currency":"EUR"},"method":"card","paidAt":"2025-03-03T08:14:41Z"}`

func TestDecodeErrors(t *testing.T) {
	// unknown type
	_, err := events.Decode(event1(t, "com.example.order.cancelled", "", `{}`))
	if !errors.Is(err, events.ErrUnknownType) {
		t.Errorf("unknown type: %v", err)
	}
	// unknown version
	_, err = events.Decode(event1(t, events.OrderPaidType, "https://schemas.example.com/com.example.order.paid/v9.json", paidV1))
	if err == nil || !strings.Contains(err.Error(), "unknown dataschema") {
		t.Errorf("unknown version: %v", err)
	}
	// no dataschema: the latest version
	v, err := events.Decode(event1(t, events.OrderPaidType, "", paidV1))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := v.(*events.OrderPaidV1); !ok || p.Method != events.OrderPaidV1PaymentMethodCard || p.Amount.AmountMinor != 3998 {
		t.Errorf("no dataschema: %#v", v)
	}
	// data the schema rejects: every problem, with pointers
	bad := strings.NewReplacer(`"card"`, `"cash"`, `"EUR"`, `"EURO"`, `"orderVersion":2,`, ``).Replace(paidV1)
	_, err = events.Decode(event1(t, events.OrderPaidType, events.OrderPaidV1DataSchema, bad))
	got := map[string]bool{}
	for _, ve := range events.ValidationErrors(err) {
		got[ve.Pointer] = true
	}
	for _, p := range []string{"/method", "/amount/currency", ""} {
		if !got[p] {
			t.Errorf("no error at %q in %v", p, err)
		}
	}
	// not JSON
	e := event1(t, events.OrderPaidType, "", paidV1)
	e.SetDataContentType("application/xml")
	if _, err := events.Decode(e); err == nil {
		t.Error("XML data accepted")
	}
	// a decoder for one type refuses another
	if _, err := events.DecodeOrderShipped(event1(t, events.OrderPaidType, "", paidV1)); err == nil {
		t.Error("DecodeOrderShipped accepted a paid event")
	}
}

// An old consumer reads a newer compatible event: v1 of order.placed reads
// v2 data (with channel) and keeps the member it does not know.
func TestOpenObjectsTolerateUnknownMembers(t *testing.T) {
	b, err := placedV2().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var v1 events.OrderPlacedV1
	if err := v1.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if string(v1.AdditionalProperties["channel"]) != `"web"` {
		t.Errorf("unknown member not kept: %v", v1.AdditionalProperties)
	}
	out, _ := v1.MarshalJSON()
	if !strings.Contains(string(out), `"channel":"web"`) {
		t.Errorf("unknown member not written back: %s", out)
	}
	// closed value objects reject them
	var m events.Money
	err = m.UnmarshalJSON([]byte(`{"amountMinor":1,"currency":"EUR","exponent":2}`))
	if ves := events.ValidationErrors(err); len(ves) != 1 || ves[0].Pointer != "/exponent" {
		t.Errorf("closed object: %v", err)
	}
}

func TestStrictJSON(t *testing.T) {
	var m events.Money
	for _, bad := range []string{
		`{"amountMinor":1,"currency":"EUR","currency":"USD"}`,  // duplicate member
		`{"amountMinor":1,"currency":"E\xffR"}`,                // invalid UTF-8
		`{"amountMinor":1,"currency":"EUR"} x`,                 // trailing data
		`{"amountMinor":1.5,"currency":"EUR"}`,                 // not an integer
		`{"amountMinor":9223372036854775808,"currency":"EUR"}`, // beyond int64
	} {
		if err := m.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	err := m.UnmarshalJSON([]byte(`{"amountMinor":9223372036854775808,"currency":"EUR"}`))
	if !errors.Is(err, events.ErrOutOfRange) {
		t.Errorf("beyond int64: %v", err)
	}
	if err := m.UnmarshalJSON([]byte(`{"amountMinor":1e2,"currency":"EUR"}`)); err != nil || m.AmountMinor != 100 {
		t.Errorf("1e2 is the integer 100: %v %d", err, m.AmountMinor)
	}
}

func ExampleDecode() {
	e := event.New()
	e.SetID("5d9f2b3e")
	e.SetSource("/orders-service")
	e.SetType(events.OrderPaidType)
	e.SetDataSchema(events.OrderPaidV1DataSchema)
	_ = e.SetData(event.ApplicationJSON, []byte(paidV1))

	data, err := events.Decode(e)
	if err != nil {
		panic(err)
	}
	switch d := data.(type) {
	case *events.OrderPaidV1:
		fmt.Println(d.OrderID, d.Method, d.Amount.AmountMinor, d.Amount.Currency, d.PaidAt.Format(time.Kitchen))
	}
	// Output: ord-10231 card 3998 EUR 8:14AM
}
