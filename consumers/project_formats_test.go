package consumers

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/evtool/evtool/compat/avrocompat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/protocompat"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
)

const avroOrder = `{"type":"record","name":"Order","namespace":"com.example","fields":[
	{"name":"id","type":"string"},
	{"name":"note","type":"string"},
	{"name":"total","type":["null",{"type":"record","name":"Money","fields":[
		{"name":"currency","type":"string"},{"name":"amount","type":"double"}]}],"default":null},
	{"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
		{"name":"qty","type":"int"},{"name":"sku","type":"string"}]}}},
	{"name":"tags","type":{"type":"map","values":{"type":"record","name":"Tag","fields":[
		{"name":"v","type":"string"},{"name":"w","type":"int"}]}}},
	{"name":"next","type":["null","Order"],"default":null},
	{"name":"home","type":{"type":"record","name":"Addr","fields":[
		{"name":"city","type":"string"},{"name":"zip","type":"string"}]},"default":{"city":"x","zip":"y"}}]}`

// TestProjectAvro: Avro's projection (records keep the fields read,
// through unions, arrays, maps and recursion) judged by avrocompat breaks
// exactly when a read field, a parent or a child of it, breaks.
func TestProjectAvro(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(avroOrder, old) {
			t.Fatalf("%q is not in the schema", old)
		}
		return strings.Replace(avroOrder, old, new, 1)
	}
	noteInt := edit(`{"name":"note","type":"string"}`, `{"name":"note","type":"int"}`)
	amountStr := edit(`{"name":"amount","type":"double"}`, `{"name":"amount","type":"string"}`)
	skuInt := edit(`{"name":"sku","type":"string"}`, `{"name":"sku","type":"int"}`)
	wStr := edit(`{"name":"w","type":"int"}`, `{"name":"w","type":"string"}`)
	coupon := edit(`{"name":"id","type":"string"},`, `{"name":"id","type":"string"},{"name":"coupon","type":"string"},`)
	zipInt := edit(`{"name":"zip","type":"string"}]},"default":{"city":"x","zip":"y"}`, `{"name":"zip","type":"int"}]},"default":{"city":"x","zip":1}`)
	for _, tc := range []struct {
		name   string
		new    string
		fields []string
		breaks bool
	}{
		{"unread field changed", noteInt, []string{"/id"}, false},
		{"read field changed", noteInt, []string{"/note"}, true},
		{"whole data", noteInt, []string{""}, true},
		{"union, branch left out, read", amountStr, []string{"/total/amount"}, true},
		{"union, branch named, read", amountStr, []string{"/total/com.example.Money/amount"}, true},
		{"union, sibling read", amountStr, []string{"/total/currency"}, false},
		{"union, parent read", amountStr, []string{"/total"}, true},
		{"array item field, read", skuInt, []string{"/lines/0/sku"}, true},
		{"array any item, sibling read", skuInt, []string{"/lines/-/qty"}, false},
		{"array, parent read", skuInt, []string{"/lines"}, true},
		{"map value field, read", wStr, []string{"/tags/k/w"}, true},
		{"map value field, sibling read", wStr, []string{"/tags/k/v"}, false},
		{"recursive, unread", noteInt, []string{"/next/next/id"}, false},
		// Order is one named type: reading /next/note reads every
		// Order's note (a named type keeps what any path reads).
		{"recursive, read deeper", noteInt, []string{"/next/note"}, true},
		{"reader field without default, read", coupon, []string{"/coupon"}, true},
		{"reader field without default, unread", coupon, []string{"/id", "/total"}, false},
		{"record with a default, read child", zipInt, []string{"/home/zip"}, true},
		{"record with a default, sibling read", zipInt, []string{"/home/city"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := avro.Parse("v1.avsc", []byte(avroOrder))
			if err != nil {
				t.Fatal(err)
			}
			n, err := avro.Parse("v2.avsc", []byte(tc.new))
			if err != nil {
				t.Fatal(err)
			}
			whole := avrocompat.Compare(o, n, engine.Backward, engine.Options{Samples: 10, Seed: 1})
			if avrocompat.Compatible(whole) {
				t.Fatal("the planted change does not break the whole schemas")
			}
			fields := format.NewFields(tc.fields)
			po, err := avro.Provider{}.Project(o, fields)
			if err != nil {
				t.Fatal(err)
			}
			pn, err := avro.Provider{}.Project(n, fields)
			if err != nil {
				t.Fatal(err)
			}
			fs := avrocompat.Compare(po.(*avro.Schema), pn.(*avro.Schema), engine.Backward, engine.Options{Samples: 10, Seed: 1})
			if got := !avrocompat.Compatible(fs); got != tc.breaks {
				t.Fatalf("breaks = %v, want %v: %+v", got, tc.breaks, fs)
			}
			// A break of the projection is the whole comparison's: the
			// same rule at the same place (the gate matches them so).
			for _, f := range fs {
				same := false
				for _, w := range whole {
					same = same || (w.Rule == f.Rule && w.New() == f.New() && w.Old() == f.Old())
				}
				if !same {
					t.Errorf("projected finding %s at %s is not among the whole comparison's", f.Rule, f.New())
				}
			}
		})
	}
}

const protoOrder = `syntax = "proto3";
package ex;
message Order {
  string note = 2;
  string order_id = 1;
  Money total = 3;
  repeated Line lines = 4;
  map<string, Line> by_shop = 5;
  oneof pay {
    string iban = 7;
    string card = 6;
  }
  optional string memo = 8;
}
message Money {
  string currency_code = 1;
  int64 units = 2;
}
message Line {
  string sku = 1;
  int32 qty = 2;
}
`

// TestProjectProtobuf: Protobuf's projection (messages keep the fields
// read; oneofs, nested messages, repeated fields and maps) judged by
// protocompat breaks exactly when a read field, a parent or a child of
// it, breaks, and its findings keep the whole comparison's positions.
func TestProjectProtobuf(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(protoOrder, old) {
			t.Fatalf("%q is not in the schema", old)
		}
		return strings.Replace(protoOrder, old, new, 1)
	}
	noteInt := edit("string note = 2;", "int64 note = 2;")
	unitsStr := edit("int64 units = 2;", "string units = 2;")
	qtyStr := edit("int32 qty = 2;", "string qty = 2;")
	ibanInt := edit("string iban = 7;", "int64 iban = 7;")
	memoInt := edit("optional string memo = 8;", "optional int64 memo = 8;")
	for _, tc := range []struct {
		name   string
		new    string
		fields []string
		breaks bool
	}{
		{"unread field changed", noteInt, []string{"/orderId"}, false},
		{"read field changed", noteInt, []string{"/note"}, true},
		{"whole data", noteInt, []string{""}, true},
		{"nested, read by JSON name", unitsStr, []string{"/total/units"}, true},
		{"nested, sibling read by proto name", unitsStr, []string{"/total/currency_code"}, false},
		{"nested, parent read", unitsStr, []string{"/total"}, true},
		{"repeated, item field read", qtyStr, []string{"/lines/0/qty"}, true},
		{"repeated, sibling read", qtyStr, []string{"/lines/-/sku"}, false},
		{"map value, field read", qtyStr, []string{"/byShop/s1/qty"}, true},
		{"map value, sibling read", qtyStr, []string{"/by_shop/s1/sku"}, false},
		{"oneof member, read", ibanInt, []string{"/iban"}, true},
		{"oneof, other member read", ibanInt, []string{"/card"}, false},
		{"oneof, unread", ibanInt, []string{"/orderId"}, false},
		{"proto3 optional, read", memoInt, []string{"/memo"}, true},
		{"proto3 optional, unread", memoInt, []string{"/note"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := protobuf.Load(fstest.MapFS{"v1.proto": {Data: []byte(protoOrder)}}, "v1.proto", "ex.Order")
			if err != nil {
				t.Fatal(err)
			}
			n, err := protobuf.Load(fstest.MapFS{"v2.proto": {Data: []byte(tc.new)}}, "v2.proto", "ex.Order")
			if err != nil {
				t.Fatal(err)
			}
			opts := engine.Options{Samples: 10, Seed: 1}
			whole := protocompat.Compare(o, n, engine.Backward, opts)
			if protocompat.Compatible(whole) {
				t.Fatal("the planted change does not break the whole schemas")
			}
			fields := format.NewFields(tc.fields)
			po, err := protobuf.Provider{}.Project(o, fields)
			if err != nil {
				t.Fatal(err)
			}
			pn, err := protobuf.Provider{}.Project(n, fields)
			if err != nil {
				t.Fatal(err)
			}
			fs := protocompat.Compare(po.(*protobuf.Schema), pn.(*protobuf.Schema), engine.Backward, opts)
			if got := !protocompat.Compatible(fs); got != tc.breaks {
				t.Fatalf("breaks = %v, want %v: %+v", got, tc.breaks, fs)
			}
			for _, f := range fs {
				if f.Severity != report.SeverityError {
					continue
				}
				same := false
				for _, w := range whole {
					same = same || (w.Rule == f.Rule && w.OldPointer == f.OldPointer && w.NewPointer == f.NewPointer)
				}
				if !same {
					t.Errorf("projected finding %s %s -> %s is not among the whole comparison's", f.Rule, f.OldPointer, f.NewPointer)
				}
			}
		})
	}
}

// A deep pointer through a recursive type is a few kilobytes of contract:
// resolving and projecting it must cost milliseconds, not its depth
// cubed (a projection that merged the fields read per record took 32 s
// at depth 800; naming the failing prefix by one walk per prefix, 2 s).
// The bound is generous: it guards against the blow-up, not a speed.
func TestDeepPointerCost(t *testing.T) {
	const depth = 2000
	av, err := avro.Parse("v.avsc", []byte(`{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"next","type":["null","Order"],"default":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := protobuf.Load(fstest.MapFS{"v.proto": {Data: []byte("syntax = \"proto3\";\nmessage Node { string id = 1; Node next = 2; map<string, Node> kids = 3; }\n")}}, "v.proto", "Node")
	if err != nil {
		t.Fatal(err)
	}
	js := jsonformat.New(compile(t, "tree.json", `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`), nil)
	deep := strings.Repeat("/next", depth) + "/id"
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"avro resolve", func() error { return av.ResolvePointer(deep) }},
		{"avro resolve, typo at the end", func() error {
			if av.ResolvePointer(deep+"x") == nil {
				return fmt.Errorf("a typo resolved")
			}
			return nil
		}},
		{"avro project", func() error {
			_, err := avro.Provider{}.Project(av, format.NewFields([]string{deep, strings.Repeat("/next", depth/2) + "/id"}))
			return err
		}},
		{"protobuf project", func() error {
			_, err := protobuf.Provider{}.Project(pb, format.NewFields([]string{deep, strings.Repeat("/kids/k", depth/2) + "/id"}))
			return err
		}},
		{"json resolve, typo at the end", func() error {
			err := js.ResolvePointer(strings.Repeat("/child", depth) + "/nope")
			if err == nil || !strings.HasSuffix(err.Error(), "/child/nope") {
				return fmt.Errorf("want the failing prefix named: %v", err)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			if err := tc.run(); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}
