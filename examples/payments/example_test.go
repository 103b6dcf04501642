package payments_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/examples/internal/exampletest"
	"github.com/evtool/evtool/examples/payments"
	"github.com/evtool/evtool/format"
)

const consumerPkg = "./examples/payments/consumer"

// The catalog lints clean (its examples in Avro's JSON encoding included),
// its versions pass the gate under the catalog's BACKWARD_TRANSITIVE, the
// events validate, and the generated Go types (events/) are up to date.
func TestCatalog(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"lint"}, "9 schemas checked: 0 errors, 0 warnings"},
		{[]string{"compat", "check"}, "9 version pairs checked: 0 errors, 0 warnings"},
		{[]string{"validate", "events.jsonl"}, "95 events checked: 0 errors, 0 warnings"},
		// The consumer's Go types are what the catalog generates today.
		{[]string{"gen", "go", "--out", "events", "--check"}, ""},
	} {
		out, code := exampletest.Evtool(t, ".", tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("evtool %s: exit %d, want 0 and %q:\n%s", strings.Join(tt.args, " "), code, tt.want, out)
		}
	}
}

// The changes the example shows are BACKWARD only: under FULL_TRANSITIVE
// the gate names the two promotions and the widened union, each with a
// counterexample.
func TestCatalogNotForward(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, payments.Catalog); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "evtool.yaml")
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	full := strings.Replace(string(text), "mode: BACKWARD_TRANSITIVE", "mode: FULL_TRANSITIVE", 1)
	if err := os.WriteFile(cfg, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := exampletest.Evtool(t, dir, "compat", "check")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{
		"com.example.payment.authorized v1 -> v2", "type changed from long to int",
		"com.example.payment.captured v1 -> v2", "type changed from double to float",
		"com.example.payment.refunded v2 -> v3", "[avro-union-branch-unmatched]",
		"counterexample",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[avro-enum") && strings.Contains(out, "error [avro-enum") {
		t.Errorf("the new WALLET symbol is read as the enum's default, not a break:\n%s", out)
	}
}

// The consumer ends in the same ledger under duplicates, reordering,
// version skew, poison events and two crashes.
func TestReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a replay of every fault kind through kfake and child consumers; in the short tier examples/inventory's TestReplay runs every kind, and TestReplaySkewKeepsData replays this (Avro) example")
	}
	t.Parallel()
	exampletest.ReplayPasses(t, ".", consumerPkg, "duplicate", "reorder", "skew", "poison", "crash")
}

// The naive consumer fails the same kind of replay.
func TestReplayNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a second replay through kfake and child consumers; TestReplay stands for the example in the short tier, and replay's catalogue tests for failing consumers")
	}
	t.Parallel()
	exampletest.ReplayNaiveFails(t, ".", consumerPkg, "the chaos state differs from the baseline state", "/payments/pay-")
}

// Skew must re-emit an event with the same data. Avro's resolution reads
// v3's new enum symbol WALLET as v2's default UNKNOWN, so a v3 event
// re-encoded as v2 says "UNKNOWN": not a producer on v2 sending the same
// payment, but another payment. This fails while replay's skew accepts
// a target version that does not carry the datum unchanged (it should
// check that the re-encoded datum reads back as the original).
func TestReplaySkewKeepsData(t *testing.T) {
	t.Parallel()
	cat, err := catalog.LoadFS(payments.Catalog, "examples/payments")
	if err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer
	for i, method := range []string{"WALLET", "CARD"} {
		data := map[string]any{"paymentId": fmt.Sprintf("pay-%d", i), "accountId": "acc-1", "sequence": 1,
			"amount": map[string]any{"amount": decimal(1234), "currency": "EUR"}, "method": method, "merchantRef": nil}
		bin, err := cat.Lookup("com.example.payment.authorized").Version(3).Compiled.EncodeValue(data, format.ContentTypeAvro)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(map[string]any{
			"specversion": "1.0", "id": fmt.Sprintf("ev-%d", i), "source": "/payments-service", "type": "com.example.payment.authorized",
			"datacontenttype": format.ContentTypeAvro, "dataschema": cat.DataSchema("com.example.payment.authorized", 3),
			"data_base64": base64.StdEncoding.EncodeToString(bin),
		})
		events.Write(append(line, '\n'))
	}
	dir := t.TempDir()
	eventsFile := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(eventsFile, events.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(dir, "skew.yaml")
	if err := os.WriteFile(sc, []byte(`catalog: `+abs+`
events: {file: `+eventsFile+`}
kafka: {topic: payments, partitions: 1}
consumer:
  run: [`+exampletest.Build(t, consumerPkg)+`]
  state: {http: "http://${EVTOOL_ADDR}/state"}
  settle_timeout: 60s
  quiet: 300ms
chaos: {seed: 1, skew: {rate: 1}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := exampletest.Evtool(t, ".", "replay", sc, "--shrink-budget", "0")
	exampletest.SkipUnsupported(t, out, code)
	if code != 0 {
		t.Fatalf("exit %d: skew changed the data of a v3 event (WALLET read as UNKNOWN):\n%s", code, out)
	}
}

// The embedded catalog carries the registry ids whenever the directory has
// them (after `evtool registry serve` ran on it), and matches the disk.
func TestCatalogEmbedsIDs(t *testing.T) { exampletest.EmbedsIDs(t, ".", payments.Catalog) }
