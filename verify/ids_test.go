package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

// TestReadTopicSchemaIDs: the harness reads the topic with the catalog's
// registry ids, as validate --topic does, so a record whose frame carries
// another version's id is invalid (schema-id-mismatch) and one under its
// own id is not; without an ids file frames are not checked. A broken ids
// file stops the harness before the producer runs.
func TestReadTopicSchemaIDs(t *testing.T) {
	files := map[string]string{
		"evtool.yaml":                   "version: 1\n",
		"schemas/com.x.paid/event.yaml": "topic: paid\n",
		"schemas/com.x.paid/v1.avsc":    `{"type":"record","name":"Paid","fields":[{"name":"id","type":"string"}]}`,
		"schemas/com.x.paid/v2.avsc":    `{"type":"record","name":"Paid","fields":[{"name":"id","type":"string"},{"name":"n","type":"string","default":""}]}`,
	}
	write := func(dir string, files map[string]string) {
		for name, text := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	noIDs := t.TempDir()
	write(noIDs, files)
	withIDs := t.TempDir()
	write(withIDs, files)
	cat, err := catalog.Load(withIDs)
	if err != nil {
		t.Fatal(err)
	}
	ty := cat.Lookup("com.x.paid")
	write(withIDs, map[string]string{catalog.SchemaIDsFile: fmt.Sprintf(`{"ids":{%q:5,%q:6}}`,
		catalog.SchemaIDDigest(ty.Version(1).Compiled), catalog.SchemaIDDigest(ty.Version(2).Compiled))})

	ctx := context.Background()
	b, err := kafka.StartBroker(kafka.BrokerConfig{Addr: "127.0.0.1:0", Partitions: 1, Topics: []string{"paid"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cc := kafka.ClientConfig{Brokers: b.Addrs()}
	opts, err := cc.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i, id := range []uint32{5, 6} { // v1 under its own id, then under v2's
		var e event.Event
		text := fmt.Sprintf(`{"specversion":"1.0","id":"e%d","source":"/t","type":"com.x.paid","dataschema":%q,"datacontenttype":"application/json","data":{"id":"p"}}`, i, cat.DataSchema("com.x.paid", 1))
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatal(err)
		}
		r, err := envelope.ToWireRecord(ctx, &e, ty.Version(1), catalog.FramingConfluent, id, envelope.ModeBinary)
		if err != nil {
			t.Fatal(err)
		}
		r.Topic = "paid"
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = cl.ProduceSync(pctx, r).FirstErr()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		dir  string
		want [][]string // rules of each record
	}{
		{"ids", withIDs, [][]string{nil, {envelope.RuleSchemaIDMismatch}}},
		{"no ids file", noIDs, [][]string{nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := catalog.Load(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewHarness(&Scenario{}, cat, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			recs, err := h.readTopic(ctx, cc, "paid")
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(tc.want) {
				t.Fatalf("%d records, want %d", len(recs), len(tc.want))
			}
			for i, r := range recs {
				var rules []string
				for _, f := range r.Findings {
					if f.Severity == report.SeverityError {
						rules = append(rules, f.Rule)
					}
				}
				if !slices.Equal(rules, tc.want[i]) {
					t.Errorf("record %d: errors %v, want %v (%v)", i, rules, tc.want[i], r.Findings)
				}
			}
		})
	}
	bad := t.TempDir()
	write(bad, files)
	write(bad, map[string]string{catalog.SchemaIDsFile: `{"ids":[5]}`})
	badCat, err := catalog.Load(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewHarness(&Scenario{}, badCat, Options{}); err == nil {
		t.Error("a broken ids file: no error")
	}
}
