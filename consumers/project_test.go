package consumers

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/compat/jsoncompat"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/avro"
	jsonformat "github.com/evtool/evtool/format/jsonschema"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

func compile(t *testing.T, name, text string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "file:///" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProjectedCompare: the same engines on both schemas projected on a
// consumer's fields break exactly when a read field breaks.
func TestProjectedCompare(t *testing.T) {
	const (
		orderV1 = `{"type":"object","required":["orderId"],"properties":{"orderId":{"type":"string"},"note":{"type":"string","maxLength":100},
			"total":{"type":"object","required":["amount"],"properties":{"amount":{"type":"number"},"currency":{"enum":["EUR","JPY"]}}}}}`
		orderV2 = `{"type":"object","required":["orderId","coupon"],"properties":{"orderId":{"type":"string"},"note":{"type":"string","maxLength":10},"coupon":{"type":"string"},
			"total":{"type":"object","required":["amount"],"properties":{"amount":{"type":"number"},"currency":{"enum":["EUR"]}}}}}`
		refV1 = `{"$defs":{"money":{"type":"object","properties":{"amount":{"type":"number"},"cents":{"type":"integer"}}}},
			"type":"object","properties":{"total":{"$ref":"#/$defs/money"},"id":{"type":"string"}}}`
		refV2 = `{"$defs":{"money":{"type":"object","properties":{"amount":{"type":"integer"},"cents":{"type":"integer"}}}},
			"type":"object","properties":{"total":{"$ref":"#/$defs/money"},"id":{"type":"integer"}}}`
		oneOfV1 = `{"oneOf":[{"type":"object","required":["kind"],"properties":{"kind":{"const":"a"},"x":{"type":"string"},"y":{"type":"string"}}},
			{"type":"object","required":["kind"],"properties":{"kind":{"const":"b"},"x":{"type":"string"}}}]}`
		oneOfV2 = `{"oneOf":[{"type":"object","required":["kind"],"properties":{"kind":{"const":"a"},"x":{"type":"string"},"y":{"type":"integer"}}},
			{"type":"object","required":["kind"],"properties":{"kind":{"const":"b"},"x":{"type":"string"}}}]}`
		closedV1      = `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}`
		closedV2      = `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`
		treeV1        = `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"size":{"type":"integer"},"child":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`
		treeV2        = `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"size":{"type":"string"},"child":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`
		itemsV1       = `{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}}}}}}`
		itemsV2       = `{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"integer"},"qty":{"type":"integer"}}}}}}`
		nestedItemsV1 = `{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},
			"price":{"type":"object","properties":{"amount":{"type":"number"},"money":{"type":"object","properties":{"cents":{"type":"integer"}}}}}}}}}}`
		nestedItemsV2 = `{"type":"object","properties":{"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},
			"price":{"type":"object","properties":{"amount":{"type":"string"},"money":{"type":"object","properties":{"cents":{"type":"integer"}}}}}}}}}}`
		// Unions whose branches are told apart by the properties present
		// (required), with b's type changed in a nested branch.
		presenceV1 = `{"type":"object","oneOf":[{"required":["a"],"properties":{"a":{"type":"string"}}},{"required":["c"],"properties":{"c":{"type":"string"}}},
			{"oneOf":[{"required":["e"],"properties":{"e":{"type":"boolean"}}},{"required":["d"],"properties":{"d":{"type":"null"},"b":{"type":"integer"}}}]}]}`
		presenceV2 = `{"type":"object","oneOf":[{"required":["a"],"properties":{"a":{"type":"string"}}},{"required":["c"],"properties":{"c":{"type":"string"}}},
			{"oneOf":[{"required":["e"],"properties":{"e":{"type":"boolean"}}},{"required":["d"],"properties":{"d":{"type":"null"},"b":{"type":"string"}}}]}]}`
		presenceTagV2 = `{"type":"object","oneOf":[{"required":["a"],"properties":{"a":{"type":"integer"}}},{"required":["c"],"properties":{"c":{"type":"string"}}},
			{"oneOf":[{"required":["e"],"properties":{"e":{"type":"boolean"}}},{"required":["d"],"properties":{"d":{"type":"null"},"b":{"type":"integer"}}}]}]}`
		// A reader's oneOf whose branches overlap on the read field
		// itself: a short string matches both, so the reader rejects
		// every event of the writer.
		shortV1   = `{"type":"object","required":["x"],"properties":{"x":{"type":"string","maxLength":2}}}`
		overlapV2 = `{"type":"object","required":["x"],"oneOf":[{"properties":{"x":{"type":"string"}}},{"properties":{"x":{"maxLength":3}}}]}`
		// Branches told apart by unread names: as a oneOf on both sides
		// the projection would reject {u, v} alone and break against
		// itself.
		unreadExclV1 = `{"type":"object","oneOf":[{"required":["u"],"properties":{"x":{"type":"string"},"u":{"type":"string"}}},{"required":["v"],"properties":{"x":{"type":"string"},"v":{"type":"integer"}}}]}`
		// A union told apart by a tag alone, which constrains nothing
		// else: renaming a tag concerns the readers of the tag only.
		tagOnlyV1 = `{"type":"object","required":["kind"],"properties":{"zz":{"type":"string"}},"oneOf":[{"properties":{"kind":{"const":"a"}}},{"properties":{"kind":{"const":"b"}}}]}`
		tagOnlyV2 = `{"type":"object","required":["kind"],"properties":{"zz":{"type":"string"}},"oneOf":[{"properties":{"kind":{"const":"a"}}},{"properties":{"kind":{"const":"c"}}}]}`
		absentV1  = `{"type":"object","properties":{"a":{"type":"string"}}}`
		absentV2  = `{"type":"object","required":["b"],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`
	)
	for _, tc := range []struct {
		name     string
		old, new string
		profile  string
		fields   []string
		breaks   bool
	}{
		{"unread field narrowed", orderV1, orderV2, "", []string{"/orderId", "/total/amount"}, false},
		{"read field narrowed", orderV1, orderV2, "", []string{"/note"}, true},
		{"whole data", orderV1, orderV2, "", []string{""}, true},
		{"child of a read object", orderV1, orderV2, "", []string{"/total"}, true},
		{"sibling of a read child", orderV1, orderV2, "", []string{"/total/amount"}, false},
		{"read child of a narrowed enum", orderV1, orderV2, "", []string{"/total/currency"}, true},
		{"required added, read", orderV1, orderV2, "", []string{"/coupon"}, true},
		{"through $ref, read", refV1, refV2, "", []string{"/total/amount"}, true},
		{"through $ref, unread", refV1, refV2, "", []string{"/total/cents"}, false},
		{"oneOf branch, read", oneOfV1, oneOfV2, "", []string{"/y"}, true},
		{"oneOf branch, unread", oneOfV1, oneOfV2, "", []string{"/kind", "/x"}, false},
		{"closed reader, strict, whole", closedV2, closedV1, jsoncompat.ProfileStrict, nil, true},
		{"closed reader, strict, read a", closedV2, closedV1, jsoncompat.ProfileStrict, []string{"/a"}, false},
		{"recursive, deep read", treeV1, treeV2, "", []string{"/child/child/size"}, true},
		{"recursive, deep unread", treeV1, treeV2, "", []string{"/child/child/name"}, false},
		{"array items, read", itemsV1, itemsV2, "", []string{"/lines/0/sku"}, true},
		{"array items, any item", itemsV1, itemsV2, "", []string{"/lines/-/sku"}, true},
		{"array items, unread", itemsV1, itemsV2, "", []string{"/lines/0/qty"}, false},
		// Items read through two indexes with different nested fields
		// are merged (this panicked on a nil map).
		{"array items, nested reads merged", nestedItemsV1, nestedItemsV2, "", []string{"/lines/0/price/money/cents", "/lines/-/price/amount"}, true},
		{"array items, nested reads merged, unread", nestedItemsV1, nestedItemsV2, "", []string{"/lines/0/price/money/cents", "/lines/-/sku"}, false},
		{"read field the writer lacks, reader requires", absentV1, absentV2, "", []string{"/b"}, true},
		// A branch that constrains no read field kept only what tells it
		// apart (its required names): dropped, it took every object and the
		// change of b in the {d: null} branch reached no reader of /b.
		{"presence-tagged oneOf, read in a nested branch", presenceV1, presenceV2, "", []string{"/b"}, true},
		{"presence-tagged anyOf, read in a nested branch", anyOfOf(presenceV1), anyOfOf(presenceV2), "", []string{"/b"}, true},
		{"presence-tagged oneOf under a property", under("p", presenceV1), under("p", presenceV2), "", []string{"/p/b"}, true},
		{"presence-tagged oneOf, unread", presenceV1, presenceV2, "", []string{"/c", "/e"}, false},
		{"presence tag's value changed, unread", presenceV1, presenceTagV2, "", []string{"/b"}, false},
		{"reader's oneOf overlaps on the read field", shortV1, overlapV2, "", []string{"/x"}, true},
		{"reader's anyOf overlapping on the read field", shortV1, anyOfOf(overlapV2), "", []string{"/x"}, false},
		{"oneOf told apart by unread names, unchanged", unreadExclV1, unreadExclV1, "", []string{"/x"}, false},
		{"oneOf told apart by discriminators, unchanged", oneOfV1, oneOfV1, "", []string{"/x"}, false},
		{"tag renamed in a union that constrains nothing read", tagOnlyV2, tagOnlyV1, "", []string{"/zz"}, false},
		{"tag renamed, the tag read", tagOnlyV2, tagOnlyV1, "", []string{"/kind"}, true},
		{"tag renamed in a union that constrains the read field", strings.Replace(oneOfV1, `"const":"b"`, `"const":"c"`, 1), oneOfV1, "", []string{"/x"}, true},
		{"oneOf told apart by discriminators, whole, unchanged", oneOfV1, oneOfV1, "", []string{"/kind", "/x", "/y"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields := format.NewFields(tc.fields)
			if tc.fields == nil {
				fields = format.NewFields([]string{""})
			}
			old := jsoncompat.NewSide(jsonformat.Project(compile(t, "old.json", tc.old), fields), nil)
			new := jsoncompat.NewSide(jsonformat.Project(compile(t, "new.json", tc.new), fields), nil)
			fs := jsoncompat.Compare(old, new, engine.Backward, engine.Options{Profile: tc.profile, Samples: 20, Seed: 1})
			if got := !jsoncompat.Compatible(fs); got != tc.breaks {
				t.Errorf("breaks = %v, want %v: %+v", got, tc.breaks, fs)
			}
		})
	}
}

// anyOfOf is s with every oneOf an anyOf.
func anyOfOf(s string) string { return strings.ReplaceAll(s, `"oneOf"`, `"anyOf"`) }

// under puts s at property name of an object that requires it.
func under(name, s string) string {
	return `{"type":"object","required":["` + name + `"],"properties":{"` + name + `":` + s + `}}`
}

func TestResolvePointer(t *testing.T) {
	js := jsonformat.New(compile(t, "v.json", `{"$defs":{"m":{"type":"object","properties":{"amount":{"type":"number"}}}},
		"type":"object","properties":{"total":{"$ref":"#/$defs/m"},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"}}}},
		"tags":{"type":"object","additionalProperties":{"type":"object","properties":{"v":{"type":"string"}}}}},
		"patternProperties":{"^x-":{"type":"string"}},
		"allOf":[{"properties":{"extra":{"type":"string"}}}]}`), nil)
	av, err := avro.Parse("v.avsc", []byte(`{"type":"record","name":"Item","namespace":"com.example","fields":[
		{"name":"sku","type":"string"},
		{"name":"qty","type":["null",{"type":"record","name":"Qty","fields":[{"name":"n","type":"int"}]}],"default":null},
		{"name":"tags","type":{"type":"map","values":"string"}},
		{"name":"lines","type":{"type":"array","items":"Qty"}},
		{"name":"next","type":["null","Item"],"default":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := protobuf.Load(fstest.MapFS{"v.proto": {Data: []byte(`syntax = "proto3";
package ex;
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
message Order {
  string order_id = 1;
  Money total = 2;
  repeated Money lines = 3;
  map<string, Money> by_shop = 4;
  google.protobuf.Struct extra = 5;
  google.protobuf.Timestamp at = 6;
}
message Money { int64 units = 1; string currency_code = 2; }
`)}}, "v.proto", "ex.Order")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    pointerResolver
		ptr  string
		ok   bool
	}{
		{"json root", js, "", true},
		{"json through $ref", js, "/total/amount", true},
		{"json typo", js, "/total/amont", false},
		{"json below a leaf", js, "/total/amount/x", false},
		{"json array item", js, "/lines/0/sku", true},
		{"json any item", js, "/lines/-/sku", true},
		{"json not an index", js, "/lines/a/sku", false},
		{"json additionalProperties schema", js, "/tags/anything/v", true},
		{"json patternProperties", js, "/x-trace", true},
		{"json allOf", js, "/extra", true},
		{"json undeclared", js, "/nope", false},
		{"avro field", av, "/sku", true},
		{"avro union, branch left out", av, "/qty/n", true},
		{"avro union, branch named", av, "/qty/com.example.Qty/n", true},
		{"avro missing", av, "/price", false},
		{"avro map", av, "/tags/k", true},
		{"avro array", av, "/lines/3/n", true},
		{"avro recursive", av, "/next/next/next/sku", true},
		{"avro recursive typo", av, "/next/next/nope", false},
		{"proto json name", pb, "/orderId", true},
		{"proto proto name", pb, "/order_id", true},
		{"proto nested", pb, "/total/currencyCode", true},
		{"proto repeated", pb, "/lines/0/units", true},
		{"proto repeated not index", pb, "/lines/units", false},
		{"proto map", pb, "/byShop/s1/units", true},
		{"proto struct", pb, "/extra/anything/deep", true},
		{"proto timestamp is a leaf", pb, "/at/seconds", false},
		{"proto missing", pb, "/nope", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.ResolvePointer(tc.ptr)
			if (err == nil) != tc.ok {
				t.Errorf("ResolvePointer(%q) = %v, want ok=%v", tc.ptr, err, tc.ok)
			}
		})
	}
}

func TestFieldsReads(t *testing.T) {
	f := format.NewFields([]string{"/orderId", "/total/amount", "/lines/0/sku"})
	for ptr, want := range map[string]bool{
		"": true, "/orderId": true, "/orderId/x": true, "/total": true, "/total/amount": true,
		"/total/currency": false, "/note": false, "/lines": true, "/lines/-/sku": true, "/lines/-/qty": false, "/lines/1/sku": true, "/lines/01/sku": false,
	} {
		if got := f.Reads(ptr); got != want {
			t.Errorf("Reads(%q) = %v, want %v", ptr, got, want)
		}
	}
	if !format.NewFields([]string{""}).Reads("/anything") {
		t.Error("the whole data does not read /anything")
	}
}

// A recursive schema resolves a pointer that passes the same schema at
// several depths (what one prefix's walk saw must not decide another's).
func TestResolveRecursive(t *testing.T) {
	s := jsonformat.New(compile(t, "tree.json", `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`), nil)
	for _, ptr := range []string{"/child/name", "/child/child/child/name"} {
		if err := s.ResolvePointer(ptr); err != nil {
			t.Errorf("%s: %v", ptr, err)
		}
	}
	if err := s.ResolvePointer("/child/child/nope"); err == nil || !strings.Contains(err.Error(), "/child/child/nope") {
		t.Errorf("typo under recursion: %v", err)
	}
}
