package replay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/chaos"
	"github.com/evtool/evtool/envelope"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

const (
	avroType  = "com.example.payment.settled"
	protoType = "com.example.stock.changed"
)

// formatsDir copies testdata/formats (an Avro and a Protobuf type, two
// versions each) into a temporary directory; with ids, every version gets
// a registry id (100 + 10*type + version) in the catalog's ids file.
func formatsDir(t testing.TB, ids bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/formats")); err != nil {
		t.Fatal(err)
	}
	if !ids {
		return dir
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.WriteSchemaIDs(t, cat, catalogtest.Numbered(cat))
	return dir
}

func formatsHarness(t testing.TB, dir, events, extra string) *Harness {
	t.Helper()
	sc := writeScenario(t, "catalog: "+dir+"\nevents: "+events+"\nkafka: {topic: t}\nconsumer: {run: [x], state: {http: \"http://x\"}}\n"+extra)
	h, err := NewHarness(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// validatedEvents validates the harness's events and returns them in
// input order.
func validatedEvents(t testing.TB, h *Harness) []rawEvent {
	t.Helper()
	if _, err := h.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	src, err := h.openSource()
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	var raws []rawEvent
	for {
		raw, ok, err := src.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return raws
		}
		raws = append(raws, raw)
	}
}

// TestGenerateFormatsCover: events.generate for Avro and Protobuf types
// makes valid events carrying the binary encoding, whose first events
// walk every enum symbol, union branch and oneof branch.
func TestGenerateFormatsCover(t *testing.T) {
	dir := formatsDir(t, false)
	for _, tc := range []struct {
		typ     string
		members map[string][]string // data member -> values (or union branches) that must all occur
	}{
		{avroType, map[string][]string{"status": {"PENDING", "SETTLED", "FAILED"}, "note": {"null", "string"}}},
		{protoType, map[string][]string{"reason": {"SALE", "RETURN"}, "place": {"warehouse", "store"}}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			h := formatsHarness(t, dir, "{generate: {count: 40, keys: 5, seed: 3, types: ["+tc.typ+"]}}", "")
			if _, err := h.Validate(context.Background()); err != nil {
				t.Fatal(err)
			}
			cat := h.cat
			ver := cat.Lookup(tc.typ).Latest()
			seen := map[string]map[string]bool{}
			keys := map[string]bool{}
			err := h.ForEachEvent(context.Background(), func(d *envelope.Decoded, m chaos.Event) error {
				if ct := d.Event.DataContentType(); ct != ver.Compiled.DefaultContentType() || !d.Event.DataBase64 {
					return fmt.Errorf("datacontenttype %q, base64 %v", ct, d.Event.DataBase64)
				}
				v, err := ver.Compiled.DecodeValue(d.RawData, ver.Compiled.DefaultContentType())
				if err != nil {
					return err
				}
				obj := v.(map[string]any)
				keys[m.Key] = true
				for name := range tc.members {
					if seen[name] == nil {
						seen[name] = map[string]bool{}
					}
					switch x := obj[name].(type) {
					case string:
						seen[name][x] = true
					case nil:
						seen[name]["null"] = true
					case map[string]any:
						for branch := range x {
							seen[name][branch] = true
						}
					}
				}
				if _, ok := obj["warehouse"]; ok {
					seen["place"]["warehouse"] = true
				}
				if _, ok := obj["store"]; ok {
					seen["place"]["store"] = true
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.members {
				for _, w := range want {
					if !seen[name][w] {
						t.Errorf("%s: %s never generated (saw %v)", name, w, seen[name])
					}
				}
			}
			if len(keys) != 5 {
				t.Errorf("%d keys, want 5: %v", len(keys), keys)
			}
		})
	}
}

// formatsFile writes an event file with Avro and Protobuf events in both
// forms validate accepts: data in the JSON form, and data_base64 binary.
func formatsFile(t *testing.T, cat *catalog.Catalog) string { return formatsFileTB(t, cat) }

func formatsFileTB(t testing.TB, cat *catalog.Catalog) string {
	t.Helper()
	var lines []string
	add := func(id, typ string, version int, jsonData string, binary bool) {
		ver := cat.Lookup(typ).Version(version)
		ds := cat.DataSchema(typ, version)
		if !binary {
			lines = append(lines, fmt.Sprintf(`{"specversion":"1.0","id":%q,"source":"/test","type":%q,"dataschema":%q,"datacontenttype":"application/json","data":%s}`, id, typ, ds, jsonData))
			return
		}
		v, err := ver.Compiled.DecodeValue([]byte(jsonData), format.ContentTypeJSON)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ver.Compiled.EncodeValue(v, ver.Compiled.DefaultContentType())
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf(`{"specversion":"1.0","id":%q,"source":"/test","type":%q,"dataschema":%q,"datacontenttype":%q,"data_base64":%q}`, id, typ, ds, ver.Compiled.DefaultContentType(), base64.StdEncoding.EncodeToString(b)))
	}
	add("a1", avroType, 1, `{"paymentId":"p-1","amount":"\u0004\u00d2","status":"SETTLED","note":{"string":"ok"},"attempts":2}`, false)
	add("a2", avroType, 2, `{"paymentId":"p-2","amount":"","status":"PENDING","note":null,"attempts":0,"currency":"EUR"}`, true)
	add("a3", avroType, 1, `{"paymentId":"p-1","amount":"\u0001","status":"FAILED","note":null,"attempts":1}`, true)
	add("p1", protoType, 1, `{"sku":"sku-1","delta":"-3","reason":"SALE","warehouse":"w1"}`, false)
	add("p2", protoType, 2, `{"sku":"sku-2","delta":"7","store":"s","note":"n"}`, true)
	p := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFormatEventFilesToRecords: event files of Avro and Protobuf types
// (JSON form or data_base64) validate, take their key from the JSON form
// of the data, and become records carrying the binary encoding, framed
// under the version's registry id when the catalog has ids and the
// framing is confluent, in both content modes.
func TestFormatEventFilesToRecords(t *testing.T) {
	for _, withIDs := range []bool{false, true} {
		for _, mode := range []string{"binary", "structured"} {
			t.Run(fmt.Sprintf("ids=%v/%s", withIDs, mode), func(t *testing.T) {
				dir := formatsDir(t, withIDs)
				cat, err := catalog.Load(dir)
				if err != nil {
					t.Fatal(err)
				}
				file := formatsFile(t, cat)
				h := formatsHarness(t, dir, "{file: "+file+"}", "")
				h.sc.Kafka.Mode, _ = envelope.ParseMode(mode)
				ids, _ := catalog.LoadSchemaIDs(cat)
				v := &envelope.Validator{Catalog: cat, IDs: ids}
				wantKeys := []string{"p-1", "p-2", "p-1", "sku-1", "sku-2"}
				for i, raw := range validatedEvents(t, h) {
					c := h.convert(context.Background(), raw, "t")
					if c.err != nil {
						t.Fatal(c.err)
					}
					if string(c.rec.Key) != wantKeys[i] {
						t.Errorf("event %d: key %q, want %q", i, c.rec.Key, wantKeys[i])
					}
					d, ver, fs, err := v.CheckRecord(c.rec)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range fs {
						if f.Severity == report.SeverityError {
							t.Errorf("event %d: %+v", i, f)
						}
					}
					if ct := d.Event.DataContentType(); ct != ver.Compiled.DefaultContentType() {
						t.Errorf("event %d: datacontenttype %q", i, ct)
					}
					_, id, framed := envelope.DataFrame(ver.Compiled, catalog.FramingConfluent, d.RawData)
					wantID, _ := ids.Of(ver)
					if framed != withIDs || id != wantID {
						t.Errorf("event %d: framed %v id %d, want id %d", i, framed, id, wantID)
					}
				}
			})
		}
	}
}

// TestFormatSkew: skew re-encodes an Avro datum with the other version's
// writer schema (v1 → v2 fills the default, v2 → v1 drops the field that
// holds its default) and
// a Protobuf message through the JSON mapping; the record is framed under
// the new version's id.
func TestFormatSkew(t *testing.T) {
	dir := formatsDir(t, true)
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := formatsHarness(t, dir, "{file: "+formatsFile(t, cat)+"}", "chaos: {seed: 1, skew: {rate: 1}}\n")
	raws := validatedEvents(t, h)
	cat, ids := h.cat, h.mut.ids
	want := []struct {
		to   int
		data string
	}{
		{2, `{"paymentId":"p-1","amount":"\u0004\u00d2","status":"SETTLED","note":{"string":"ok"},"attempts":2,"currency":"EUR"}`},
		{1, `{"paymentId":"p-2","amount":"","status":"PENDING","note":null,"attempts":0}`},
		{2, `{"paymentId":"p-1","amount":"\u0001","status":"FAILED","note":null,"attempts":1,"currency":"EUR"}`},
		{2, `{"sku":"sku-1","delta":"-3","reason":"SALE","warehouse":"w1"}`},
		{0, ""}, // v2 with note set: v1's JSON mapping has no note
	}
	for i, raw := range raws {
		c := h.convert(context.Background(), raw, "t")
		if c.err != nil {
			t.Fatal(c.err)
		}
		w := want[i]
		if w.to == 0 {
			if c.meta.SkewTo != 0 {
				t.Errorf("event %d: skew targets %v, want none", i, c.meta.SkewTo.List())
			}
			continue
		}
		if !c.meta.SkewTo.Has(w.to) {
			t.Fatalf("event %d: skew targets %v, want v%d", i, c.meta.SkewTo.List(), w.to)
		}
		out, err := h.mutateRecord(context.Background(), chaos.Fault{Kind: chaos.Skew, Event: c.meta, From: c.meta.Version, To: w.to}, c.rec)
		if err != nil {
			t.Fatal(err)
		}
		d, ver, fs, err := (&envelope.Validator{Catalog: cat, IDs: ids}).CheckRecord(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 0 || ver.Number != w.to {
			t.Fatalf("event %d: v%d, findings %v", i, ver.Number, fs)
		}
		payload, id, framed := envelope.DataFrame(ver.Compiled, catalog.FramingConfluent, d.RawData)
		if wantID, _ := ids.Of(ver); !framed || id != wantID {
			t.Errorf("event %d: framed %v under %d, want %d", i, framed, id, wantID)
		}
		got, err := ver.Compiled.DecodeValue(payload, ver.Compiled.DefaultContentType())
		if err != nil {
			t.Fatal(err)
		}
		var wantV any
		if err := json.Unmarshal([]byte(w.data), &wantV); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(wantV)
		if diff := cmp.Diff(string(wb), string(gb)); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestFormatPoison: every poison kind, applied to the records of Avro and
// Protobuf events, gives a record the catalog check rejects with the
// expected rule: invalid data and undecodable bytes fail the schema
// (framed as the record was), an unknown schema id is reported as such.
func TestFormatPoison(t *testing.T) {
	dir := formatsDir(t, true)
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"binary", "structured"} {
		h := formatsHarness(t, dir, "{file: "+formatsFile(t, cat)+"}", "")
		h.sc.Kafka.Mode, _ = envelope.ParseMode(mode)
		var recs []*kgo.Record
		var metas []chaos.Event
		for _, raw := range validatedEvents(t, h) {
			c := h.convert(context.Background(), raw, "t")
			if c.err != nil {
				t.Fatal(c.err)
			}
			recs, metas = append(recs, c.rec), append(metas, c.meta)
		}
		v := &envelope.Validator{Catalog: cat, IDs: h.mut.ids}
		want := map[chaos.PoisonKind]string{
			chaos.InvalidData:     envelope.RuleDataInvalid,
			chaos.Undecodable:     envelope.RuleDataInvalid,
			chaos.UnknownType:     envelope.RuleUnknownType,
			chaos.FutureVersion:   envelope.RuleUnknownVersion,
			chaos.UnknownSchemaID: envelope.RuleSchemaIDUnknown,
		}
		for _, kind := range chaos.AllPoisonKinds {
			for i, r := range recs {
				t.Run(fmt.Sprintf("%s/%s/%d", mode, kind, i), func(t *testing.T) {
					f := chaos.Fault{Kind: chaos.Poison, Poison: kind, PoisonID: "evtool-poison-1-" + fmt.Sprint(i), Event: metas[i]}
					out, err := h.mutateRecord(context.Background(), f, r)
					if err != nil {
						t.Fatal(err)
					}
					_, _, fs, err := v.CheckRecord(out)
					if mode == "structured" && kind == chaos.Undecodable {
						// A truncated envelope: not a CloudEvent at all.
						if err == nil && len(fs) == 0 {
							t.Fatal("truncated envelope read without findings")
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					var rules []string
					for _, f := range fs {
						if f.Severity == report.SeverityError {
							rules = append(rules, f.Rule)
						}
					}
					if len(rules) == 0 || rules[0] != want[kind] {
						t.Errorf("rules %v, want %s first (%v)", rules, want[kind], fs)
					}
					if dlqID(out, map[string]chaos.Fault{f.PoisonID: f}) != f.PoisonID {
						t.Errorf("dlqID does not find the poison id in the record")
					}
				})
			}
		}
	}
}

// TestAvroKey: a key read from the binary datum is what the JSON encoding
// gives, and a union (tagged in the JSON encoding) or a missing field is
// left to the JSON encoding.
func TestAvroKey(t *testing.T) {
	cat, err := catalog.Load("testdata/formats")
	if err != nil {
		t.Fatal(err)
	}
	ver := cat.Lookup(avroType).Version(1)
	v, _ := ver.Compiled.DecodeValue([]byte(`{"paymentId":"p-9","amount":"","status":"FAILED","note":{"string":"x"},"attempts":-7}`), format.ContentTypeJSON)
	bin, _ := ver.Compiled.EncodeValue(v, "application/avro")
	for _, tc := range []struct {
		pointer string
		want    any
		ok      bool
	}{
		{"/paymentId", "p-9", true},
		{"/attempts", json.Number("-7"), true},
		{"/note", nil, false},
		{"/nothing", nil, false},
		{"/paymentId/x", nil, false},
	} {
		ks := keySpec{pointer: tc.pointer, tokens: strings.Split(tc.pointer[1:], "/")}
		got, ok, unframed := avro.Provider{}.PartitionKey(ver.Compiled, format.KeyData{Data: envelope.FrameData(ver.Compiled, 7, bin), ContentType: "application/avro", Tokens: ks.tokens})
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %v %v, want %v %v", tc.pointer, got, ok, tc.want, tc.ok)
		}
		if !bytes.Equal(unframed, bin) {
			t.Errorf("%s: unframed % x, want the datum % x", tc.pointer, unframed, bin)
		}
	}
}

// TestProtoKey: a key read from a Protobuf message, binary (framed or
// not) or in the JSON mapping, by JSON or proto name; an unset field is
// its default (the JSON mapping leaves it out), an unset oneof member or
// a message field is left to the JSON mapping.
func TestProtoKey(t *testing.T) {
	cat, err := catalog.Load("testdata/formats")
	if err != nil {
		t.Fatal(err)
	}
	ver := cat.Lookup(protoType).Version(1)
	s := ver.Compiled.(*protobuf.Schema)
	jsonData := []byte(`{"sku":"k-1","reason":"SALE","store":"s1"}`)
	v, _ := s.DecodeValue(jsonData, format.ContentTypeJSON)
	bin, _ := s.EncodeValue(v, "application/protobuf")
	for _, data := range []struct {
		name string
		b    []byte
		ct   string
	}{{"json", jsonData, format.ContentTypeJSON}, {"binary", bin, "application/protobuf"}, {"framed", envelope.FrameData(s, 9, bin), "application/protobuf"}} {
		for _, tc := range []struct {
			token string
			want  any
			ok    bool
		}{
			{"sku", "k-1", true},
			{"delta", json.Number("0"), true},
			{"store", "s1", true},
			{"warehouse", nil, false},
			{"reason", nil, false},
			{"nothing", nil, false},
		} {
			got, ok, _ := protobuf.Provider{}.PartitionKey(s, format.KeyData{Data: data.b, ContentType: data.ct, Tokens: []string{tc.token}})
			if ok != tc.ok || got != tc.want {
				t.Errorf("%s %s: %v %v, want %v %v", data.name, tc.token, got, ok, tc.want, tc.ok)
			}
		}
	}
}

// TestSkewKeepsMeaning: an Avro datum is skewed only to versions that
// carry it unchanged; v2 with a non-default currency is not v1 data (v1
// cannot say USD, and reading it back says EUR).
func TestSkewKeepsMeaning(t *testing.T) {
	cat, err := catalog.Load(formatsDir(t, false))
	if err != nil {
		t.Fatal(err)
	}
	typ := cat.Lookup("com.example.payment.settled")
	v1, v2 := typ.Version(1), typ.Version(2)
	for _, tc := range []struct {
		currency string
		ok       bool
	}{{"EUR", true}, {"USD", false}} {
		v := map[string]any{"paymentId": "p", "amount": "", "status": "PENDING", "note": nil, "attempts": 0, "currency": tc.currency}
		b, err := v2.Compiled.EncodeValue(v, v2.Compiled.DefaultContentType())
		if err != nil {
			t.Fatal(err)
		}
		_, err = reencode(v2, v1, catalog.FramingNone, b, v2.Compiled.DefaultContentType())
		if (err == nil) != tc.ok {
			t.Errorf("currency %s: reencode v2 → v1 error %v, want ok=%v", tc.currency, err, tc.ok)
		}
	}
}

// TestFramingNoneZeroLeadingAvro: under kafka.framing none an Avro datum
// that starts with a zero byte and whose bytes from the sixth on read as
// a datum too (a payment with an empty id and a 4-byte amount) goes to
// the record as it is, and skew re-encodes all of it, not its tail.
func TestFramingNoneZeroLeadingAvro(t *testing.T) {
	datum := []byte{0x00, 0x08, 0x02, 0x02, 0x06, 0x00, 0x00, 0x02, 0x00, 0x61}
	dir := formatsDir(t, true)
	yaml := filepath.Join(dir, "evtool.yaml")
	b, err := os.ReadFile(yaml)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yaml, append(b, "kafka: {framing: none}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := filepath.Join(dir, "events.jsonl")
	line := fmt.Sprintf(`{"specversion":"1.0","id":"z1","source":"/test","type":%q,"dataschema":"https://schemas.example.com/%s/v1","datacontenttype":"application/avro","data_base64":%q}`+"\n",
		avroType, avroType, base64.StdEncoding.EncodeToString(datum))
	if err := os.WriteFile(ev, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	h := formatsHarness(t, dir, "{file: "+ev+"}", "chaos: {seed: 1, skew: {rate: 1}}\n")
	raws := validatedEvents(t, h)
	c := h.convert(context.Background(), raws[0], "t")
	if c.err != nil {
		t.Fatal(c.err)
	}
	if !bytes.Equal(c.rec.Value, datum) {
		t.Fatalf("record value % x, want the datum % x", c.rec.Value, datum)
	}
	out, err := h.mutateRecord(context.Background(), chaos.Fault{Kind: chaos.Skew, Event: c.meta, From: 1, To: 2}, c.rec)
	if err != nil {
		t.Fatal(err)
	}
	// v2 adds currency, default "EUR", at the end.
	if want := append(append([]byte(nil), datum...), 0x06, 'E', 'U', 'R'); !bytes.Equal(out.Value, want) {
		t.Errorf("skewed value % x, want % x", out.Value, want)
	}
}
