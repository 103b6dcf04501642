package envelope

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/catalog/catalogtest"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/kafka"
	"github.com/evtool/evtool/report"
)

const (
	avroType  = "com.example.payment.settled"
	protoType = "com.example.stock.changed"
)

// formatsCatalog copies testdata/formats into a temporary directory and,
// when ids is set, gives every version a registry id (100 + 10*type +
// version) in the catalog's ids file, as `evtool registry serve` keeps
// them.
func formatsCatalog(t testing.TB, ids bool, evtoolYAML string) (*catalog.Catalog, *catalog.SchemaIDs) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/formats")); err != nil {
		t.Fatal(err)
	}
	if evtoolYAML != "" {
		if err := os.WriteFile(filepath.Join(dir, "evtool.yaml"), []byte(evtoolYAML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ids {
		return cat, catalogtest.WriteSchemaIDs(t, cat, catalogtest.Numbered(cat))
	}
	sids, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		t.Fatal(err)
	}
	return cat, sids
}

// formatEvents are events of the Avro and Protobuf types with data in the
// JSON form, as event files carry them.
var formatEvents = []struct {
	name, typ string
	version   int
	data      string
}{
	{"avro v1", avroType, 1, `{"paymentId":"p-1","amount":"\u0004\u00d2","status":"SETTLED","note":{"string":"ok"},"attempts":2}`},
	{"avro v2 null union", avroType, 2, `{"paymentId":"p-2","amount":"","status":"PENDING","note":null,"attempts":0,"currency":"USD"}`},
	{"protobuf v1", protoType, 1, `{"sku":"sku-1","delta":"-3","reason":"SALE","warehouse":"w1"}`},
	{"protobuf v2", protoType, 2, `{"sku":"sku-2","delta":"9223372036854775807","store":"s","note":"n"}`},
}

func formatEventJSON(typ string, version int, data string) []byte {
	return fmt.Appendf(nil, `{"specversion":"1.0","id":"e-%s-%d","source":"/test","type":%q,"datacontenttype":"application/json","dataschema":"https://schemas.example.com/%s/v%d","data":%s}`,
		typ, version, typ, typ, version, data)
}

func startTestBroker(t *testing.T, topic string) (*kafka.Broker, *kgo.Client) {
	t.Helper()
	b, err := kafka.StartBroker(kafka.BrokerConfig{Partitions: 1, Topics: []string{topic}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	opts, err := kafka.ClientConfig{Brokers: b.Addrs()}.Options()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return b, cl
}

func consumeN(t *testing.T, ctx context.Context, cl *kgo.Client, n int) []*kgo.Record {
	t.Helper()
	var got []*kgo.Record
	for len(got) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records: %v", len(got), n, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		got = append(got, fs.Records()...)
	}
	return got
}

// TestWireRoundTripThroughBroker: Avro and Protobuf events, in both modes,
// with and without registry ids, go through the embedded broker as their
// binary encoding (framed under the version's id when it has one, with the
// Protobuf message indexes), and CheckRecord reads them back to the same
// value without findings.
func TestWireRoundTripThroughBroker(t *testing.T) {
	const topic = "wire-roundtrip"
	_, cl := startTestBroker(t, topic)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type sent struct {
		name    string
		mode    Mode
		ids     *catalog.SchemaIDs
		cat     *catalog.Catalog
		ver     *catalog.Version
		wantID  uint32
		want    any
		framing catalog.Framing
	}
	var all []sent
	for _, withIDs := range []bool{false, true} {
		for _, framing := range []catalog.Framing{catalog.FramingConfluent, catalog.FramingNone} {
			yaml := "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}\nkafka: {framing: " + string(framing) + "}\n"
			cat, ids := formatsCatalog(t, withIDs, yaml)
			for _, mode := range []Mode{ModeBinary, ModeStructured} {
				for _, fe := range formatEvents {
					d, fs := DecodeJSON(formatEventJSON(fe.typ, fe.version, fe.data))
					if err := findingsError(fs); err != nil {
						t.Fatal(err)
					}
					ver := cat.Lookup(fe.typ).Version(fe.version)
					id := WireID(cat, ids, ver)
					r, err := ToWireRecord(ctx, &d.Event, ver, framing, id, mode)
					if err != nil {
						t.Fatalf("%s: %v", fe.name, err)
					}
					r.Topic = topic
					if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
						t.Fatal(err)
					}
					want, err := ver.Compiled.DecodeValue([]byte(fe.data), format.ContentTypeJSON)
					if err != nil {
						t.Fatal(err)
					}
					var wantID uint32
					if withIDs && framing == catalog.FramingConfluent {
						wantID, _ = ids.Of(ver)
					}
					all = append(all, sent{fmt.Sprintf("ids=%v/%s/%v/%s", withIDs, framing, mode, fe.name), mode, ids, cat, ver, wantID, want, framing})
				}
			}
		}
	}
	got := consumeN(t, ctx, cl, len(all))
	for i, r := range got {
		s := all[i]
		t.Run(s.name, func(t *testing.T) {
			v := &Validator{Catalog: s.cat, IDs: s.ids}
			d, ver, fs, err := v.CheckRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Severity == report.SeverityError {
					t.Errorf("finding: %+v", f)
				}
			}
			if ver != s.ver {
				t.Fatalf("version %v, want %s v%d", ver, s.ver.Type, s.ver.Number)
			}
			if ct := d.Event.DataContentType(); ct != ver.Compiled.DefaultContentType() {
				t.Errorf("datacontenttype %q", ct)
			}
			if s.mode == ModeBinary && !bytes.Equal(r.Value, d.RawData) {
				t.Errorf("record value is not the data")
			}
			payload, id, framed := DataFrame(ver.Compiled, s.framing, d.RawData)
			if framed != (s.wantID != 0) || id != s.wantID {
				t.Errorf("framed %v id %d, want id %d", framed, id, s.wantID)
			}
			if framed {
				if d.RawData[0] != 0 || binary.BigEndian.Uint32(d.RawData[1:5]) != s.wantID {
					t.Errorf("header % x", d.RawData[:5])
				}
				// Protobuf message indexes: count 1, index 1, zig-zag
				// encoded (StockChanged is the file's second message).
				if ver.Format == format.Protobuf && !bytes.Equal(d.RawData[5:7], []byte{2, 2}) {
					t.Errorf("protobuf message indexes % x, want 02 02", d.RawData[5:7])
				}
			}
			gotValue, err := ver.Compiled.DecodeValue(payload, ver.Compiled.DefaultContentType())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.want, gotValue); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckRecordSchemaIDs: a framed record whose schema id the catalog
// does not hold, or that is another version's id, is a finding naming the
// record's topic, partition and offset; an unframed or correctly framed
// record is not.
func TestCheckRecordSchemaIDs(t *testing.T) {
	cat, ids := formatsCatalog(t, true, "")
	v := &Validator{Catalog: cat, IDs: ids}
	for _, typ := range []string{avroType, protoType} {
		ty := cat.Lookup(typ)
		v1, v2 := ty.Version(1), ty.Version(2)
		id1, _ := ids.Of(v1)
		data := formatEvents[0].data
		if typ == protoType {
			data = formatEvents[2].data
		}
		d, _ := DecodeJSON(formatEventJSON(typ, 1, data))
		tests := []struct {
			name string
			id   uint32
			want string
		}{
			{"own id", id1, ""},
			{"unframed", 0, ""},
			{"unknown id", ids.Unknown(), RuleSchemaIDUnknown},
		}
		id2, _ := ids.Of(v2)
		tests = append(tests, struct {
			name string
			id   uint32
			want string
		}{"other version's id", id2, RuleSchemaIDMismatch})
		for _, tc := range tests {
			t.Run(typ+"/"+tc.name, func(t *testing.T) {
				r, err := ToWireRecord(context.Background(), &d.Event, v1, catalog.FramingConfluent, tc.id, ModeBinary)
				if err != nil {
					t.Fatal(err)
				}
				r.Topic, r.Partition, r.Offset = "payments", 2, 41
				_, _, fs, err := v.CheckRecord(r)
				if err != nil {
					t.Fatal(err)
				}
				var rules []string
				for _, f := range fs {
					if f.Severity == report.SeverityError {
						rules = append(rules, f.Rule)
						if f.Record == nil || *f.Record != (report.RecordLocation{Topic: "payments", Partition: 2, Offset: 41}) {
							t.Errorf("record %+v", f.Record)
						}
					}
				}
				want := []string(nil)
				if tc.want != "" {
					want = []string{tc.want}
				}
				if diff := cmp.Diff(want, rules); diff != "" {
					t.Errorf("rules (-want +got):\n%s\n%v", diff, fs)
				}
			})
		}
	}
}

// TestKcatReadsFramedRecord: a foreign client (kcat, when installed) reads
// the framed Avro record evtool produced byte for byte.
func TestKcatReadsFramedRecord(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed")
	}
	const topic = "wire-kcat"
	b, cl := startTestBroker(t, topic)
	cat, ids := formatsCatalog(t, true, "")
	ver := cat.Lookup(avroType).Version(1)
	d, _ := DecodeJSON(formatEventJSON(avroType, 1, formatEvents[0].data))
	id := WireID(cat, ids, ver)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := ToWireRecord(ctx, &d.Event, ver, catalog.FramingConfluent, id, ModeBinary)
	if err != nil {
		t.Fatal(err)
	}
	r.Topic = topic
	if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, kcat, "-C", "-b", b.Addrs()[0], "-t", topic, "-c", "1", "-e", "-f", "%s").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	if !bytes.Equal(out, r.Value) {
		t.Fatalf("kcat read % x, evtool wrote % x", out, r.Value)
	}
	if out[0] != 0 || binary.BigEndian.Uint32(out[1:5]) != id {
		t.Fatalf("kcat's bytes do not start with magic 0 and id %d: % x", id, out[:5])
	}
	headers, err := exec.CommandContext(ctx, kcat, "-C", "-b", b.Addrs()[0], "-t", topic, "-c", "1", "-e", "-f", "%h").Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	if !strings.Contains(string(headers), "content-type=application/avro") {
		t.Errorf("kcat headers %s", headers)
	}
}

// FuzzDataFrame: DataFrame and the frame check never panic on record
// values, and a value they call framed starts with the magic byte.
func FuzzDataFrame(f *testing.F) {
	cat, ids := formatsCatalog(f, true, "")
	v := &Validator{Catalog: cat, IDs: ids}
	f.Add([]byte{0, 0, 0, 0, 101, 2, 'x'}, true)
	f.Add([]byte{0, 0, 0, 0, 111, 2, 2, 10, 1, 'a'}, false)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, value []byte, avro bool) {
		typ := protoType
		if avro {
			typ = avroType
		}
		ver := cat.Lookup(typ).Version(1)
		if _, _, framed := DataFrame(ver.Compiled, catalog.FramingConfluent, value); framed && value[0] != 0 {
			t.Fatalf("framed without the magic byte: % x", value)
		}
		r := &kgo.Record{Topic: "t", Value: value, Headers: []kgo.RecordHeader{
			{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_id", Value: []byte("1")},
			{Key: "ce_source", Value: []byte("/s")}, {Key: "ce_type", Value: []byte(typ)},
			{Key: "content-type", Value: []byte(ver.Compiled.DefaultContentType())},
		}}
		if _, _, _, err := v.CheckRecord(r); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWireFramingNoneKeepsZeroLeadingAvro: under kafka.framing none an
// Avro datum that starts with a zero byte and whose bytes from the sixth
// on also read as a datum (a payment with an empty id and a 4-byte
// amount) is plain data: it goes to the record as it is, and a frame
// check does not take its first five bytes for a schema id.
func TestWireFramingNoneKeepsZeroLeadingAvro(t *testing.T) {
	datum := []byte{0x00, 0x08, 0x02, 0x02, 0x06, 0x00, 0x00, 0x02, 0x00, 0x61}
	cat, ids := formatsCatalog(t, true, "version: 1\nschemas: schemas\ndataschema: https://schemas.example.com/{type}/v{version}\nkafka: {framing: none}\n")
	ver := cat.Lookup(avroType).Version(1)
	if _, err := ver.Compiled.DecodeValue(datum[5:], ver.Compiled.DefaultContentType()); err != nil {
		t.Fatalf("the test datum's tail must read as a datum too: %v", err)
	}
	d, fs := DecodeJSON(fmt.Appendf(nil, `{"specversion":"1.0","id":"z","source":"/test","type":%q,"datacontenttype":"application/avro","dataschema":"https://schemas.example.com/%s/v1","data_base64":%q}`,
		avroType, avroType, base64.StdEncoding.EncodeToString(datum)))
	if err := findingsError(fs); err != nil {
		t.Fatal(err)
	}
	v := &Validator{Catalog: cat, IDs: ids}
	if _, fs := v.Check(d); len(fs) != 0 {
		t.Errorf("findings on valid unframed data: %v", fs)
	}
	r, err := ToWireRecord(context.Background(), &d.Event, ver, cat.Framing(cat.Lookup(avroType)), WireID(cat, ids, ver), ModeBinary)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Value, datum) {
		t.Errorf("record value % x, want the datum % x", r.Value, datum)
	}
	if payload, _, framed := DataFrame(ver.Compiled, catalog.FramingNone, datum); framed || !bytes.Equal(payload, datum) {
		t.Errorf("DataFrame took the datum for framed")
	}
}

// TestCheckFrameOtherBinaryContentTypes: the frame is checked whatever
// binary content type the producer wrote (avro/binary, which Confluent's
// tools and others write, application/x-protobuf), not only evtool's own.
func TestCheckFrameOtherBinaryContentTypes(t *testing.T) {
	cat, ids := formatsCatalog(t, true, "")
	v := &Validator{Catalog: cat, IDs: ids}
	for _, tc := range []struct{ typ, data, ct string }{
		{avroType, formatEvents[0].data, "avro/binary"},
		{avroType, formatEvents[0].data, "application/vnd.apache.avro+binary"},
		{protoType, formatEvents[2].data, "application/x-protobuf"},
	} {
		t.Run(tc.ct, func(t *testing.T) {
			ver := cat.Lookup(tc.typ).Version(1)
			framed, err := BinaryData(ver, catalog.FramingConfluent, []byte(tc.data), format.ContentTypeJSON)
			if err != nil {
				t.Fatal(err)
			}
			framed = FrameData(ver.Compiled, ids.Unknown(), framed)
			d, fs := DecodeJSON(fmt.Appendf(nil, `{"specversion":"1.0","id":"x","source":"/test","type":%q,"datacontenttype":%q,"dataschema":"https://schemas.example.com/%s/v1","data_base64":%q}`,
				tc.typ, tc.ct, tc.typ, base64.StdEncoding.EncodeToString(framed)))
			if err := findingsError(fs); err != nil {
				t.Fatal(err)
			}
			_, fs = v.Check(d)
			var rules []string
			for _, f := range fs {
				rules = append(rules, f.Rule)
			}
			if diff := cmp.Diff([]string{RuleSchemaIDUnknown}, rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s\n%v", diff, fs)
			}
		})
	}
}

// TestCheckFrameSharedID: two versions with the same canonical schema (v2
// only adds a doc) have one registry id, as a registry gives them; an
// event of either framed under it is no mismatch.
func TestCheckFrameSharedID(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/formats")); err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(dir, "schemas", avroType)
	v1, err := os.ReadFile(filepath.Join(sdir, "v1.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(v1), `"name": "PaymentSettled",`, `"name": "PaymentSettled", "doc": "Settled.",`, 1)
	if err := os.WriteFile(filepath.Join(sdir, "v2.avsc"), []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ty := cat.Lookup(avroType)
	if ty.Version(1).Digest != ty.Version(2).Digest {
		t.Fatalf("the versions must share a digest: %s %s", ty.Version(1).Digest, ty.Version(2).Digest)
	}
	p := filepath.Join(dir, filepath.FromSlash(catalog.SchemaIDsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, fmt.Appendf(nil, `{"ids": {%q: 42}}`, ty.Version(1).Digest), 0o644); err != nil {
		t.Fatal(err)
	}
	ids, err := catalog.LoadSchemaIDs(cat)
	if err != nil {
		t.Fatal(err)
	}
	v := &Validator{Catalog: cat, IDs: ids}
	for _, n := range []int{1, 2} {
		ver := ty.Version(n)
		if id, _ := ids.Of(ver); id != 42 {
			t.Fatalf("v%d: id %d, want 42", n, id)
		}
		d, fs := DecodeJSON(formatEventJSON(avroType, n, formatEvents[0].data))
		if err := findingsError(fs); err != nil {
			t.Fatal(err)
		}
		r, err := ToWireRecord(context.Background(), &d.Event, ver, catalog.FramingConfluent, 42, ModeBinary)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, fs, err := v.CheckRecord(r); err != nil || len(fs) != 0 {
			t.Errorf("v%d: %v %v", n, fs, err)
		}
	}
}
