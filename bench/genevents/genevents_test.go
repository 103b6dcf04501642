package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

const catalogDir = "../../examples/orders"

func testConfig(n, orders int, seed uint64) config {
	return config{
		N: n, Orders: orders, Seed: seed,
		Start:      time.Date(2025, 3, 3, 8, 0, 0, 0, time.UTC),
		Source:     "/orders-service",
		DataSchema: "https://schemas.example.com/{type}/v{version}.json",
	}
}

func gen(t testing.TB, cfg config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := generate(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// compileCatalog compiles every schemas/<type>/v<N>.json of the example
// catalog, keyed by "<type>/<N>". Formats are asserted, so date-time and uuid
// are checked too.
func compileCatalog(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(catalogDir, "schemas", "*", "v*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no schemas under %s/schemas", catalogDir)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	out := map[string]*jsonschema.Schema{}
	for _, f := range files {
		typ := filepath.Base(filepath.Dir(f))
		v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "v"), ".json")
		if _, err := strconv.Atoi(v); err != nil {
			t.Fatalf("%s: version file name is not v<N>.json", f)
		}
		sch, err := c.Compile(f)
		if err != nil {
			t.Fatalf("compile %s: %v", f, err)
		}
		out[typ+"/"+v] = sch
	}
	return out
}

func validate(t *testing.T, sch *jsonschema.Schema, raw []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return sch.Validate(doc)
}

var (
	dataschemaRE = regexp.MustCompile(`^https://schemas\.example\.com/([a-z.]+)/v([0-9]+)\.json$`)
	uuidRE       = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

type testEvent struct {
	SpecVersion     string          `json:"specversion"`
	ID              string          `json:"id"`
	Source          string          `json:"source"`
	Type            string          `json:"type"`
	Subject         string          `json:"subject"`
	Time            string          `json:"time"`
	DataContentType string          `json:"datacontenttype"`
	DataSchema      string          `json:"dataschema"`
	Data            json.RawMessage `json:"data"`
}

type testData struct {
	OrderID      string `json:"orderId"`
	OrderVersion int    `json:"orderVersion"`
	Total        *money `json:"total"`
	Amount       *money `json:"amount"`
}

// checkEvents checks a JSONL stream of generated events and returns how many
// events of each "<type>/<version>" it saw.
func checkEvents(t *testing.T, schemas map[string]*jsonschema.Schema, r io.Reader) map[string]int {
	t.Helper()
	counts := map[string]int{}
	ids := map[string]int{}
	lastVersion := map[string]int{} // also the number of events of the order
	unpaid := map[string]money{}
	var last time.Time
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		var ev testEvent
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if ev.SpecVersion != "1.0" || ev.Source != "/orders-service" || ev.DataContentType != "application/json" {
			t.Errorf("line %d: envelope %+v", line, ev)
		}
		if !uuidRE.MatchString(ev.ID) {
			t.Errorf("line %d: id %q is not a v4 UUID", line, ev.ID)
		}
		if prev, dup := ids[ev.ID]; dup {
			t.Errorf("line %d: id %s already used on line %d", line, ev.ID, prev)
		}
		ids[ev.ID] = line
		ts, err := time.Parse(time.RFC3339, ev.Time)
		if err != nil || !strings.HasSuffix(ev.Time, "Z") {
			t.Errorf("line %d: time %q is not RFC 3339 UTC", line, ev.Time)
		}
		if ts.Before(last) {
			t.Errorf("line %d: time %s goes back", line, ev.Time)
		}
		last = ts
		m := dataschemaRE.FindStringSubmatch(ev.DataSchema)
		if m == nil || m[1] != ev.Type {
			t.Fatalf("line %d: dataschema %q does not name type %s", line, ev.DataSchema, ev.Type)
		}
		key := m[1] + "/" + m[2]
		sch := schemas[key]
		if sch == nil {
			t.Fatalf("line %d: no schema %s in the catalog", line, key)
		}
		if err := validate(t, sch, ev.Data); err != nil {
			t.Errorf("line %d: data invalid against %s: %v", line, key, err)
		}
		counts[key]++

		var d testData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if ev.Subject != d.OrderID {
			t.Errorf("line %d: subject %q, data.orderId %q", line, ev.Subject, d.OrderID)
		}
		if want := lastVersion[d.OrderID] + 1; d.OrderVersion != want {
			t.Errorf("line %d: %s orderVersion %d, want %d (strictly increasing by 1)", line, d.OrderID, d.OrderVersion, want)
		}
		lastVersion[d.OrderID] = d.OrderVersion
		switch ev.Type {
		case typePlaced:
			if d.OrderVersion != 1 {
				t.Errorf("line %d: placed event with orderVersion %d", line, d.OrderVersion)
			}
			unpaid[d.OrderID] = *d.Total
		case typePaid:
			u := unpaid[d.OrderID]
			if d.Amount.Currency != u.Currency || d.Amount.AmountMinor > u.AmountMinor {
				t.Errorf("line %d: payment %+v, order has %+v unpaid", line, *d.Amount, u)
			}
			u.AmountMinor -= d.Amount.AmountMinor
			unpaid[d.OrderID] = u
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for id, u := range unpaid {
		// An order with events after the placed one is paid in full.
		if lastVersion[id] > 1 && u.AmountMinor != 0 {
			t.Errorf("%s: payments do not add up to the total: %d left unpaid", id, u.AmountMinor)
		}
	}
	return counts
}

func TestEventsValid(t *testing.T) {
	schemas := compileCatalog(t)
	out := gen(t, testConfig(1000, 50, 1))
	counts := checkEvents(t, schemas, bytes.NewReader(out))
	total := 0
	for _, key := range []string{typePlaced + "/1", typePlaced + "/2", typePaid + "/1", typeShipped + "/1"} {
		if counts[key] == 0 {
			t.Errorf("no %s events", key)
		}
		total += counts[key]
	}
	if total != 1000 || counts[typePlaced+"/1"]+counts[typePlaced+"/2"] != 50 {
		t.Errorf("counts %v: want 1000 events and 50 orders", counts)
	}
	if avg := len(out) / 1000; avg < 350 || avg > 650 {
		t.Errorf("average event size %d bytes", avg)
	}
	t.Logf("counts %v, average %d bytes/event", counts, len(out)/1000)
}

func TestEventsEdgeCases(t *testing.T) {
	schemas := compileCatalog(t)
	for _, c := range []struct{ n, orders int }{{0, 50}, {1, 1}, {7, 50}, {3000, 1}, {500, 499}} {
		t.Run(fmt.Sprintf("n=%d,orders=%d", c.n, c.orders), func(t *testing.T) {
			out := gen(t, testConfig(c.n, c.orders, 7))
			if got := bytes.Count(out, []byte("\n")); got != c.n {
				t.Fatalf("%d events, want %d", got, c.n)
			}
			checkEvents(t, schemas, bytes.NewReader(out))
		})
	}
}

func TestDeterministic(t *testing.T) {
	a := gen(t, testConfig(1000, 50, 1))
	b := gen(t, testConfig(1000, 50, 1))
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different output")
	}
	if c := gen(t, testConfig(1000, 50, 2)); bytes.Equal(a, c) {
		t.Fatal("seeds 1 and 2 give the same output")
	}
}

// TestCommittedEvents keeps examples/orders/events.jsonl in step with the
// generator and the catalog.
func TestCommittedEvents(t *testing.T) {
	got, err := os.ReadFile(filepath.Join(catalogDir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := gen(t, testConfig(1000, 50, 1)); !bytes.Equal(got, want) {
		t.Fatal("examples/orders/events.jsonl is stale; regenerate it from the repository root with\n" +
			"\tgo run ./bench/genevents -n 1000 -orders 50 -seed 1 -out examples/orders/events.jsonl")
	}
}

// TestExamplesValid checks every schemas/<type>/examples/v<N>/*.json against
// its version, and that every version has examples.
func TestExamplesValid(t *testing.T) {
	schemas := compileCatalog(t)
	files, err := filepath.Glob(filepath.Join(catalogDir, "schemas", "*", "examples", "v*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, f := range files {
		v := strings.TrimPrefix(filepath.Base(filepath.Dir(f)), "v")
		typ := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(f))))
		key := typ + "/" + v
		sch := schemas[key]
		if sch == nil {
			t.Errorf("%s: no schema %s", f, key)
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, sch, raw); err != nil {
			t.Errorf("%s: invalid against %s: %v", f, key, err)
		}
		seen[key]++
	}
	for key := range schemas {
		if seen[key] < 2 {
			t.Errorf("%s has %d examples, want 2 or more", key, seen[key])
		}
	}
}

// TestSchemasDecisions pins down the additionalProperties choices explained in
// the event.yaml files: event objects are open (v1 reads v2), money and
// address are closed, and the bounds hold.
func TestSchemasDecisions(t *testing.T) {
	schemas := compileCatalog(t)
	readExample := func(typ, v, name string) map[string]any {
		raw, err := os.ReadFile(filepath.Join(catalogDir, "schemas", typ, "examples", "v"+v, name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	check := func(name, key string, doc map[string]any, wantValid bool) {
		t.Helper()
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		err = validate(t, schemas[key], raw)
		if (err == nil) != wantValid {
			t.Errorf("%s against %s: valid=%v, want %v (%v)", name, key, err == nil, wantValid, err)
		}
	}
	v2 := readExample(typePlaced, "2", "web-usd.json")
	check("v2 event with channel", typePlaced+"/1", v2, true)
	check("v1 event", typePlaced+"/2", readExample(typePlaced, "1", "single-item-eur.json"), true)

	bad := readExample(typePlaced, "2", "web-usd.json")
	bad["channel"] = "fax"
	check("unknown channel", typePlaced+"/2", bad, false)

	bad = readExample(typePlaced, "1", "single-item-eur.json")
	bad["items"] = []any{}
	check("no line items", typePlaced+"/1", bad, false)

	bad = readExample(typePaid, "1", "card-full.json")
	bad["amount"].(map[string]any)["exponent"] = 2
	check("money with an extra field", typePaid+"/1", bad, false)

	bad = readExample(typePaid, "1", "card-full.json")
	bad["amount"].(map[string]any)["amountMinor"] = -1
	check("negative amount", typePaid+"/1", bad, false)

	bad = readExample(typePaid, "1", "card-full.json")
	bad["paymentId"] = "not-a-uuid"
	check("paymentId not a uuid", typePaid+"/1", bad, false)

	bad = readExample(typeShipped, "1", "dhl-single-parcel.json")
	bad["address"].(map[string]any)["poBox"] = "12"
	check("address with an extra field", typeShipped+"/1", bad, false)

	bad = readExample(typeShipped, "1", "dhl-single-parcel.json")
	bad["orderVersion"] = 0
	check("orderVersion 0", typeShipped+"/1", bad, false)
}

func TestRunFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "-1"}, {"-orders", "0"}, {"-orders", "100000"}, {"-start", "yesterday"},
		{"-bogus"}, {"extra"}, {"-out", filepath.Join(t.TempDir(), "missing", "x.jsonl")},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("run %q: exit %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
	out := filepath.Join(t.TempDir(), "events.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-n", "1000", "-orders", "50", "-seed", "1", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, gen(t, testConfig(1000, 50, 1))) {
		t.Error("-out file differs from generate with the same flags")
	}
}

func BenchmarkGenerate(b *testing.B) {
	cfg := testConfig(10000, 50, 1)
	var w countWriter
	b.ReportAllocs()
	for b.Loop() {
		if err := generate(&w, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*cfg.N)/b.Elapsed().Seconds(), "events/s")
	b.SetBytes(w.n / int64(b.N))
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
