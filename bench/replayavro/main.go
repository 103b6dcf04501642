// Command replayavro benchmarks the producing side of `evtool replay` with
// Avro events against the JSON example, in the same run: the events of
// examples/orders (made by bench/genevents) and the same events with their
// data in the Avro binary encoding, Confluent-framed, of an Avro mirror of
// the orders catalog (same types, versions, keys and topic). Each round
// runs the harness on both (validate beforehand, then decode, record,
// duplicate 0.1 + reorder key/32, produce to an in-process kfake broker,
// as bench/replay does) and the medians of events/s and their ratio are
// printed.
//
//	go run ./bench/replayavro                  # 100,000 events, 5 rounds
//	go run ./bench/replayavro -n 20000 -rounds 3
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/evtool/evtool/bench/internal/stats"
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/replay"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/replayavro:", err)
		os.Exit(1)
	}
}

// The Avro mirror of examples/orders: the same fields, strings where the
// JSON Schemas have patterns and formats, enums where they have enums.
const (
	money    = `{"type":"record","name":"Money","namespace":"com.example.common","fields":[{"name":"amountMinor","type":"long"},{"name":"currency","type":"string"}]}`
	lineItem = `{"type":"record","name":"LineItem","fields":[{"name":"sku","type":"string"},{"name":"quantity","type":"int"},{"name":"unitPrice","type":` + money + `}]}`
	placedV1 = `{"type":"record","name":"OrderPlaced","namespace":"com.example.order","fields":[
  {"name":"orderId","type":"string"},{"name":"customerId","type":"string"},{"name":"orderVersion","type":"long"},
  {"name":"items","type":{"type":"array","items":` + lineItem + `}},
  {"name":"total","type":"com.example.common.Money"},{"name":"placedAt","type":"string"}]}`
	placedV2 = `{"type":"record","name":"OrderPlaced","namespace":"com.example.order","fields":[
  {"name":"orderId","type":"string"},{"name":"customerId","type":"string"},{"name":"orderVersion","type":"long"},
  {"name":"items","type":{"type":"array","items":` + lineItem + `}},
  {"name":"total","type":"com.example.common.Money"},{"name":"placedAt","type":"string"},
  {"name":"channel","type":["null",{"type":"enum","name":"Channel","symbols":["web","mobile","store"]}],"default":null}]}`
	paidV1 = `{"type":"record","name":"OrderPaid","namespace":"com.example.order","fields":[
  {"name":"orderId","type":"string"},{"name":"orderVersion","type":"long"},{"name":"paymentId","type":"string"},
  {"name":"amount","type":` + money + `},
  {"name":"method","type":{"type":"enum","name":"Method","symbols":["card","paypal","bank_transfer"]}},{"name":"paidAt","type":"string"}]}`
	shippedV1 = `{"type":"record","name":"OrderShipped","namespace":"com.example.order","fields":[
  {"name":"orderId","type":"string"},{"name":"orderVersion","type":"long"},{"name":"shipmentId","type":"string"},
  {"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":["dhl","ups","fedex","usps","dpd","royal_mail"]}},
  {"name":"trackingNumber","type":"string"},{"name":"parcels","type":"int"},
  {"name":"address","type":{"type":"record","name":"Address","namespace":"com.example.common","fields":[
    {"name":"name","type":"string"},{"name":"line1","type":"string"},{"name":"line2","type":["null","string"],"default":null},
    {"name":"city","type":"string"},{"name":"postalCode","type":"string"},{"name":"country","type":"string"}]}},
  {"name":"shippedAt","type":"string"}]}`
)

func writeAvroCatalog(dir string) error {
	meta := "topic: orders\npartitionkey: /orderId\nsource: /orders-service\n"
	files := map[string]string{
		"evtool.yaml": "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}.avsc\n",
		"schemas/com.example.order.placed/event.yaml":  meta,
		"schemas/com.example.order.placed/v1.avsc":     placedV1,
		"schemas/com.example.order.placed/v2.avsc":     placedV2,
		"schemas/com.example.order.paid/event.yaml":    meta,
		"schemas/com.example.order.paid/v1.avsc":       paidV1,
		"schemas/com.example.order.shipped/event.yaml": meta,
		"schemas/com.example.order.shipped/v1.avsc":    shippedV1,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	// Registry ids, as `evtool registry serve` keeps them: the records
	// are Confluent-framed.
	cat, err := catalog.Load(dir)
	if err != nil {
		return err
	}
	var ids []string
	n := 1
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			ids = append(ids, fmt.Sprintf("%q: %d", v.Digest, n))
			n++
		}
	}
	p := filepath.Join(dir, filepath.FromSlash(catalog.SchemaIDsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(`{"format": 1, "ids": {`+strings.Join(ids, ", ")+`}}`), 0o644)
}

// toAvro rewrites the JSON events as Avro events of the mirror catalog:
// the same envelope, datacontenttype application/avro, the .avsc
// dataschema, and the datum's binary encoding in data_base64.
func toAvro(cat *catalog.Catalog, in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(o, 1<<20)
	r := bufio.NewScanner(f)
	r.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; r.Scan(); line++ {
		d, fs := envelope.DecodeJSON(r.Bytes())
		if d == nil || len(fs) > 0 {
			return fmt.Errorf("%s:%d: %v", in, line, fs)
		}
		typ := d.Event.Type()
		n := 1
		if strings.HasSuffix(d.Event.DataSchema(), "/v2.json") {
			n = 2
		}
		ver := cat.Lookup(typ).Version(n)
		v, err := jsonstrict.Decode(d.RawData)
		if err != nil {
			return err
		}
		b, err := ver.Compiled.EncodeValue(v, "application/avro")
		if err != nil {
			return fmt.Errorf("%s:%d: %v", in, line, err)
		}
		e := d.Event.Clone()
		e.SetDataSchema(cat.DataSchema(typ, n))
		e.SetDataContentType("application/avro")
		e.DataEncoded, e.DataBase64 = b, true
		text, err := envelope.MarshalJSON(&e)
		if err != nil {
			return err
		}
		w.Write(text)
		w.WriteByte('\n')
	}
	if err := r.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return o.Close()
}

func run() error {
	n := flag.Int("n", 100_000, "events")
	rounds := flag.Int("rounds", 5, "rounds (each: JSON, then Avro); medians are reported")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the Avro producing (all rounds)")
	flag.Parse()
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "bench-replayavro-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	jsonEvents := filepath.Join(tmp, "events.jsonl")
	gen := exec.Command("go", "run", "./bench/genevents", "-n", fmt.Sprint(*n), "-orders", "5000", "-out", jsonEvents)
	gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("genevents (run from the repository root): %w", err)
	}
	avroDir := filepath.Join(tmp, "avro")
	if err := writeAvroCatalog(avroDir); err != nil {
		return err
	}
	avroCat, err := catalog.Load(avroDir)
	if err != nil {
		return err
	}
	avroEvents := filepath.Join(tmp, "avro.jsonl")
	if err := toAvro(avroCat, jsonEvents, avroEvents); err != nil {
		return err
	}
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 3})
	if err != nil {
		return err
	}
	defer b.Close()
	jsonCatalog, _ := filepath.Abs("examples/orders")
	chaosYAML := "chaos: {seed: 1, duplicate: {rate: 0.1, max: 1, spread: 10}, reorder: {window: 32, scope: key, rate: 0.5}}\n"
	var jsonEPS, avroEPS, ratios []float64
	for round := 1; round <= *rounds; round++ {
		j, err := produce(ctx, tmp, jsonCatalog, jsonEvents, b.Addrs(), chaosYAML)
		if err != nil {
			return err
		}
		if *cpuProfile != "" && round == 1 {
			pf, err := os.Create(*cpuProfile)
			if err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(pf); err != nil {
				return err
			}
			defer pf.Close()
			defer pprof.StopCPUProfile()
		}
		a, err := produce(ctx, tmp, avroDir, avroEvents, b.Addrs(), chaosYAML)
		if err != nil {
			return err
		}
		jsonEPS, avroEPS, ratios = append(jsonEPS, j), append(avroEPS, a), append(ratios, a/j)
		fmt.Fprintf(os.Stderr, "round %d: JSON %.0f events/s, Avro %.0f events/s, Avro/JSON %.2f\n", round, j, a, a/j)
	}
	fmt.Printf("events: %d (examples/orders via bench/genevents; Avro: the same events, binary, Confluent-framed)\n", *n)
	fmt.Printf("broker: kfake in-process, 3 partitions; GOMAXPROCS %d; %d rounds, medians\n", runtime.GOMAXPROCS(0), *rounds)
	fmt.Printf("JSON (examples/orders): %.0f events/s\n", stats.Median(jsonEPS))
	fmt.Printf("Avro (mirror catalog):  %.0f events/s\n", stats.Median(avroEPS))
	fmt.Printf("ratio Avro/JSON: %.2f (per round: %s)\n", stats.Median(ratios), list(ratios))
	return nil
}

// produce validates the events and produces them once with chaos, as
// `evtool replay` does for its chaos run, and returns events/s of the
// producing.
func produce(ctx context.Context, tmp, catalog, events string, brokers []string, chaosYAML string) (float64, error) {
	text := fmt.Sprintf("catalog: %s\nevents: {file: %s}\nkafka: {partitions: 3}\nconsumer: {run: [none], state: {http: \"http://x\"}}\n%s", catalog, events, chaosYAML)
	p := filepath.Join(tmp, "scenario.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return 0, err
	}
	sc, err := replay.LoadScenario(p)
	if err != nil {
		return 0, err
	}
	h, err := replay.NewHarness(sc, replay.Options{Brokers: brokers})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	if _, err := h.Validate(ctx); err != nil {
		return 0, err
	}
	if err := h.Connect(ctx); err != nil {
		return 0, err
	}
	runtime.GC()
	res, err := h.Produce(ctx, replay.RunSpec{Name: "chaos", Chaos: true})
	if err != nil {
		return 0, err
	}
	h.DropRun(res)
	return float64(res.Events) / time.Duration(res.ProduceTime).Seconds(), nil
}

func list(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}
