package replay

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
)

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeState([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCompareEqualWithIgnore(t *testing.T) {
	a := decodeJSON(t, `{"orders":{"o1":{"paid":10,"updatedAt":"t1"},"o2":{"paid":1.0,"updatedAt":"t2"}},"at":"x","rows":[{"id":"r1","seen":1},{"id":"r2","seen":2}]}`)
	b := decodeJSON(t, `{"orders":{"o1":{"paid":10,"updatedAt":"t9"},"o2":{"paid":1,"updatedAt":"t8"}},"at":"y","rows":[{"id":"r1","seen":5},{"id":"r2","seen":6}]}`)
	c := Compare(a, b, []string{"/orders/*/updatedAt", "/at", "/rows/*/seen", "/nope"})
	if !c.Equal {
		t.Fatalf("not equal: %s", c.Diff)
	}
	if !reflect.DeepEqual(c.UnusedIgnore, []string{"/nope"}) {
		t.Fatalf("unused ignore %v", c.UnusedIgnore)
	}
	// The inputs are not modified.
	if a.(map[string]any)["at"] != "x" {
		t.Fatal("Compare modified its input")
	}
}

func TestCompareDifferences(t *testing.T) {
	a := decodeJSON(t, `{"orders":{"ord-1":{"paid":10,"status":"shipped"},"ord-2":{"paid":5}},"payments":[{"id":"p1","order":"ord-1"}]}`)
	b := decodeJSON(t, `{"orders":{"ord-1":{"paid":20,"status":"paid"},"ord-2":{"paid":5}},"payments":[{"id":"p1","order":"ord-1"},{"id":"p2","order":"ord-1"}]}`)
	c := Compare(a, b, nil)
	if c.Equal {
		t.Fatal("equal")
	}
	var got []string
	for _, d := range c.Differences {
		got = append(got, d.String())
	}
	want := []string{
		"/orders/ord-1/paid: baseline 10, chaos 20",
		`/orders/ord-1/status: baseline "shipped", chaos "paid"`,
		`/payments/1: baseline (absent), chaos {"id":"p2","order":"ord-1"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, k := range []string{"ord-1", "p2"} {
		found := false
		for _, n := range c.Near {
			found = found || n == k
		}
		if !found {
			t.Errorf("near %v lacks %s", c.Near, k)
		}
	}
	for _, n := range c.Near {
		if n == "ord-2" {
			t.Errorf("near %v has the unchanged ord-2", c.Near)
		}
	}
	if !strings.Contains(c.Diff, `-`) || !strings.Contains(c.Diff, `"shipped"`) {
		t.Fatalf("diff:\n%s", c.Diff)
	}
}

func TestCompareBigNumbers(t *testing.T) {
	a := decodeJSON(t, `{"id":9007199254740993}`)
	b := decodeJSON(t, `{"id":9007199254740992}`)
	if Compare(a, b, nil).Equal {
		t.Fatal("integers beyond 2^53 compared as floats")
	}
}

func TestDecodeState(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "empty"},
		{"<html>", "invalid character '<'"},
		{`{"a":1} {"b":2}`, "after the JSON value"},
		{"{\"a\":\xff}", "invalid UTF-8"},
		{"{\"orders\": {\"a\": 1,\n \"a\": 2}}", "line 2"},
		{`{"paid": 1e99999}`, "/paid"},
		{strings.Repeat("[", 2000) + strings.Repeat("]", 2000), "nested 2000 levels"},
	} {
		if _, err := decodeState([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), "not JSON") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("decodeState(%.40q) = %v, want an error with %q", tt.in, err, tt.want)
		}
	}
	v, err := decodeState([]byte(`{"n": 12345678901234567890, "s": "x"}`))
	if err != nil || v.(map[string]any)["n"].(json.Number).String() != "12345678901234567890" {
		t.Fatalf("%v %v", v, err)
	}
}

// FuzzDecodeState feeds consumer states: decoding never panics, an error
// says "not JSON", and a decoded state compares equal to itself.
func FuzzDecodeState(f *testing.F) {
	for _, s := range []string{`{"orders":{"a":{"paid":1.50}}}`, `[1, 2e3, null, true, "x"]`, `{"a":1,"a":2}`, `1e99999`, "{\"a\":\"\\ud800\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeState(b)
		if err != nil {
			if !strings.Contains(err.Error(), "not JSON") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if c := Compare(v, v, nil); !c.Equal {
			t.Fatalf("%s differs from itself: %+v", b, c)
		}
	})
}

func TestEvaluate(t *testing.T) {
	state := decodeJSON(t, `{"orders":{"a":{},"b":{}},"total":12.5,"list":[1,2,3],"gone":null}`)
	n2, n3 := 2, 3
	yes, no := true, false
	exps := []Expectation{
		{Pointer: "/orders", Count: &n2},
		{Pointer: "/list", Count: &n3},
		{Pointer: "/total", Equals: json.Number("12.50"), HasEquals: true},
		{Pointer: "/total", Equals: json.Number("12"), HasEquals: true},
		{Pointer: "/gone", Exists: &yes},
		{Pointer: "/missing", Exists: &no},
		{Pointer: "/missing", Count: &n2},
		{Pointer: "/orders", Equals: map[string]any{"a": map[string]any{}, "b": map[string]any{}}, HasEquals: true},
	}
	res := Evaluate("chaos", state, exps)
	var ok []bool
	for _, r := range res {
		ok = append(ok, r.OK)
	}
	if want := []bool{true, true, true, false, true, true, false, true}; !reflect.DeepEqual(ok, want) {
		t.Fatalf("ok = %v, want %v\n%+v", ok, want, res)
	}
	if got := res[3].String(); got != "/total equals 12: got 12.5" {
		t.Errorf("String = %q", got)
	}
}

func TestGenerate(t *testing.T) {
	text := `catalog: ` + examplesDir + `
events: {generate: {count: 200, keys: 7, seed: 3, types: [com.example.order.paid, com.example.order.placed@v1]}}
consumer: {run: [x], state: {http: "http://x"}}
chaos: {seed: 1, duplicate: {rate: 0.1}, reorder: {window: 20}}
`
	sc := writeScenario(t, text)
	h, err := NewHarness(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	inv, err := h.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if inv.Events != 200 || len(inv.Types) != 2 || inv.Topic != "orders" {
		t.Fatalf("inventory %+v", inv)
	}
	collect := func() ([]chaos.Event, []string) {
		var metas []chaos.Event
		var versions []string
		if err := h.ForEachEvent(context.Background(), func(d *envelope.Decoded, m chaos.Event) error {
			metas = append(metas, m)
			versions = append(versions, d.Event.DataSchema())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return metas, versions
	}
	a, va := collect()
	b, _ := collect()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("generation is not deterministic")
	}
	keys := map[string]bool{}
	for i, m := range a {
		keys[m.Key] = true
		if m.Type == "com.example.order.placed" && !strings.HasSuffix(va[i], "/v1.json") {
			t.Fatalf("placed pinned to v1 has dataschema %s", va[i])
		}
	}
	if len(keys) != 7 {
		t.Fatalf("%d keys: %v", len(keys), keys)
	}
	// The plan over generated events is as deterministic as over a file.
	var n int
	if _, err := h.ListFaults(context.Background(), chaos.All(), func(chaos.Fault, bool) error { n++; return nil }); err != nil || n == 0 {
		t.Fatalf("faults %d, %v", n, err)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tt := range []struct{ gen, want string }{
		{"{count: 5, types: [com.example.nope]}", `"com.example.nope" is not a type of the catalog`},
		{"{count: 5, types: [com.example.order.paid@v9]}", "has no version 9"},
	} {
		sc := writeScenario(t, "catalog: "+examplesDir+"\nevents: {generate: "+tt.gen+"}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n")
		h, err := NewHarness(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.Validate(context.Background())
		h.Close()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v", tt.gen, err)
		}
	}
}
