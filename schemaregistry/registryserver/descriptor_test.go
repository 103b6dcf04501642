package registryserver

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// descriptorOf compiles text with the catalog's shared .proto files and
// returns its serialized FileDescriptorProto in base64, as
// confluent-kafka-python registers it.
func descriptorOf(t *testing.T, dir, name, text string) string {
	t.Helper()
	files := fstest.MapFS{name: &fstest.MapFile{Data: []byte(text)}}
	for _, rel := range []string{"common/money.proto", "common/place.proto"} {
		b, err := os.ReadFile(filepath.Join(dir, "schemas", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = &fstest.MapFile{Data: b}
	}
	s, err := protobuf.Load(files, name, "")
	if err != nil {
		t.Fatal(err)
	}
	b64, err := protobuf.Serialized(s, name)
	if err != nil {
		t.Fatal(err)
	}
	return b64
}

// TestServeSerializedDescriptor: a Protobuf schema registered as a base64
// serialized FileDescriptorProto (as confluent-kafka-python registers it) becomes the .proto file a human would write, with its
// imports resolved through the references; registering or looking it up
// again finds the same version; format=serialized answers the descriptor.
func TestServeSerializedDescriptor(t *testing.T) {
	const subject = "com.example.stock.moved"
	dir := formatCatalog(t, "proto")
	s, srURL := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, srURL)
	text := `syntax = "proto3";
package stock;
import "common/place.proto";
import "google/protobuf/timestamp.proto";
// Moved between warehouses.
message StockMoved {
  string sku = 1;
  common.Place from = 2;
  google.protobuf.Timestamp at = 3;
  common.Place to = 4;
  repeated string notes = 5;
  map<string, int64> counts = 6;
  enum Reason { REASON_UNSPECIFIED = 0; RESTOCK = 1; }
  Reason reason = 7;
  oneof by { string person = 8; string robot = 9; }
}
`
	b64 := descriptorOf(t, dir, "stock/moved.proto", text)
	refs := []sr.SchemaReference{{Name: "common/place.proto", Subject: "common/place.proto", Version: 1}}
	schema := sr.Schema{Schema: b64, Type: sr.TypeProtobuf, References: refs}
	ss, err := cl.CreateSchema(ctx, subject, schema)
	if err != nil || ss.Version != 3 {
		t.Fatalf("register the descriptor: %+v %v", ss, err)
	}
	written, err := os.ReadFile(filepath.Join(dir, "schemas", subject, "v3.proto"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "descriptor", "v3.proto.golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, written, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(written) != string(want) {
		t.Errorf("v3.proto is\n%s\nwant (%s, -update rewrites it)\n%s", written, golden, want)
	}
	if v := srtest.LoadCat(t, dir).Lookup(subject).Versions; len(v) != 3 {
		t.Fatalf("%d versions after the registration, want 3", len(v))
	}
	for what, call := range map[string]func() (sr.SubjectSchema, error){
		"again":  func() (sr.SubjectSchema, error) { return cl.CreateSchema(ctx, subject, schema) },
		"lookup": func() (sr.SubjectSchema, error) { return cl.LookupSchema(ctx, subject, schema) },
		"as the file": func() (sr.SubjectSchema, error) {
			return cl.LookupSchema(ctx, subject, sr.Schema{Schema: string(written), Type: sr.TypeProtobuf, References: refs})
		},
	} {
		got, err := call()
		if err != nil || got.Version != 3 || got.ID != ss.ID {
			t.Errorf("%s: %+v %v, want version 3 id %d", what, got, err, ss.ID)
		}
	}

	// format=serialized, by id and by subject and version.
	for _, target := range []string{
		fmt.Sprintf("/schemas/ids/%d?format=serialized", ss.ID),
		"/subjects/" + subject + "/versions/3?format=serialized",
	} {
		got := doHandler(t, s, "GET", target, "")
		var body struct{ Schema, SchemaType string }
		if err := json.Unmarshal([]byte(got.body), &body); err != nil || got.status != 200 || body.SchemaType != "PROTOBUF" {
			t.Fatalf("%s: %d %s", target, got.status, got.body)
		}
		raw, err := base64.StdEncoding.DecodeString(body.Schema)
		if err != nil {
			t.Fatalf("%s: schema is not base64: %v", target, err)
		}
		fdp := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(raw, fdp); err != nil {
			t.Fatal(err)
		}
		if fdp.GetName() != subject+"/v3.proto" || strings.Join(fdp.GetDependency(), " ") != "common/place.proto google/protobuf/timestamp.proto" ||
			len(fdp.GetMessageType()) != 1 || len(fdp.GetMessageType()[0].GetField()) != 9 || fdp.GetSourceCodeInfo() != nil {
			t.Errorf("%s: descriptor %v", target, fdp)
		}
	}
	// A shared schema is named by its import path; the text form stays
	// the default.
	sharedID, err := cl.SchemaByVersion(ctx, "common/place.proto", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := doHandler(t, s, "GET", fmt.Sprintf("/schemas/ids/%d?format=serialized", sharedID.ID), "")
	var body struct{ Schema string }
	_ = json.Unmarshal([]byte(got.body), &body)
	raw, _ := base64.StdEncoding.DecodeString(body.Schema)
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := proto.Unmarshal(raw, fdp); err != nil || fdp.GetName() != "common/place.proto" {
		t.Errorf("shared schema serialized: %s (%v)", got.body, err)
	}
	if plain := doHandler(t, s, "GET", fmt.Sprintf("/schemas/ids/%d", ss.ID), ""); !strings.Contains(plain.body, "message StockMoved") {
		t.Errorf("without format: %s", plain.body)
	}
	if avro := doHandler(t, s, "GET", "/subjects/"+url.PathEscape("common/place.proto")+"/versions/1?format=serialized", ""); avro.status != 200 {
		t.Errorf("shared subject version serialized: %d %s", avro.status, avro.body)
	}
}

// TestServeSerializedDescriptorImportsNeedReferences: a descriptor's
// imports resolve through the references, as the text's do.
func TestServeSerializedDescriptorImportsNeedReferences(t *testing.T) {
	dir := formatCatalog(t, "proto")
	_, srURL := startServer(t, ServerOptions{Dir: dir})
	cl := srtest.SRClient(t, srURL)
	b64 := descriptorOf(t, dir, "stock/moved.proto", "syntax = \"proto3\";\npackage stock;\nimport \"common/place.proto\";\nimport \"google/protobuf/timestamp.proto\";\nmessage StockMoved {\n  string sku = 1;\n  common.Place from = 2;\n  google.protobuf.Timestamp at = 3;\n  string note = 4;\n}\n")
	_, err := cl.RegisterSchema(ctx, "com.example.stock.moved", sr.Schema{Schema: b64, Type: sr.TypeProtobuf}, -1, -1)
	if srtest.SRCode(err) != codeInvalidSchema || !strings.Contains(err.Error(), "without a schema reference") {
		t.Fatalf("descriptor without references: %v", err)
	}
}

// TestServeBadSerializedDescriptor: bad base64 or a bad descriptor is
// refused with 42201 and says what is wrong; nothing is written.
func TestServeBadSerializedDescriptor(t *testing.T) {
	enc := func(fdp *descriptorpb.FileDescriptorProto) string {
		b, err := proto.Marshal(fdp)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	field := func(name string, n int32) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()}
	}
	cases := []struct{ name, schema, want string }{
		{"truncated base64", "abc", "neither .proto text nor base64"},
		{"not a descriptor", base64.StdEncoding.EncodeToString([]byte{0, 0, 0}), "not a serialized FileDescriptorProto"},
		{"wrong wire type", base64.StdEncoding.EncodeToString([]byte{0x0a, 0xff}), "not a serialized FileDescriptorProto"},
		{"duplicate field number", enc(&descriptorpb.FileDescriptorProto{Name: proto.String("x.proto"), Syntax: proto.String("proto3"),
			MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("X"), Field: []*descriptorpb.FieldDescriptorProto{field("a", 1), field("b", 1)}}}}), "not a valid descriptor"},
		// 28 01: field 5 (enum_type, a message) as a varint, which a parser
		// keeps as an unknown field: nothing a printer would print.
		{"unknown fields only", base64.StdEncoding.EncodeToString([]byte{0x28, 0x01}), "field 5 of google.protobuf.FileDescriptorProto"},
		{"unknown field in a message", enc(&descriptorpb.FileDescriptorProto{Name: proto.String("x.proto"), Syntax: proto.String("proto3"),
			MessageType: []*descriptorpb.DescriptorProto{withUnknown(&descriptorpb.DescriptorProto{Name: proto.String("X"), Field: []*descriptorpb.FieldDescriptorProto{field("a", 1)}})}}), "field 99 of google.protobuf.DescriptorProto"},
		{"bad syntax", enc(&descriptorpb.FileDescriptorProto{Name: proto.String("x.proto"), Syntax: proto.String("proto4")}), "not a valid descriptor"},
	}
	dir := srtest.MinimalCatalog(t, "BACKWARD", nil)
	s, _ := startServer(t, ServerOptions{Dir: dir})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]string{"schemaType": "PROTOBUF", "schema": tc.schema})
			got := doHandler(t, s, "POST", "/subjects/com.example.x/versions", string(body))
			if got.status != 422 || got.code != codeInvalidSchema || !strings.Contains(got.body, tc.want) {
				t.Fatalf("%d %d %s, want 422 42201 %q", got.status, got.code, got.body, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "schemas", "com.example.x")); err == nil {
				t.Fatal("a refused schema was written")
			}
		})
	}
}

// withUnknown adds field 99 (a varint) to d's unknown fields.
func withUnknown(d *descriptorpb.DescriptorProto) *descriptorpb.DescriptorProto {
	d.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1))
	return d
}

// TestServeProtoTextThatLooksLikeBase64: .proto text made of base64's
// characters only is a comment ("//TODO": as base64 its first byte would
// be 0xff, a tag of wire type 7, which no FileDescriptorProto starts
// with); it is registered as text, as "// TODO" is. Empty or blank text is
// the empty file, never an empty descriptor.
func TestServeProtoTextThatLooksLikeBase64(t *testing.T) {
	for _, tc := range []struct {
		schema     string
		serialized bool
	}{
		{"", false},
		{" \n\t", false},
		{"//", false},
		{"//TODO", false},
		{"  //TODO\n", false},
		{"// TODO", false},
		{"CgF4EgFwIgsKAVgSBgoBYRgBSgAiCwoBWBIGCgFhGAE=", true},
		{"AAAA", true},
	} {
		if got := protobuf.IsSerializedDescriptor([]byte(tc.schema)); got != tc.serialized {
			t.Errorf("protobuf.IsSerializedDescriptor(%q) = %v, want %v", tc.schema, got, tc.serialized)
		}
	}
	dir := formatCatalog(t, "proto")
	s, _ := startServer(t, ServerOptions{Dir: dir})
	for i, schema := range []string{"// TODO", "//TODO"} {
		subject := fmt.Sprintf("common/empty%d.proto", i)
		body, _ := json.Marshal(map[string]string{"schemaType": "PROTOBUF", "schema": schema})
		got := doHandler(t, s, "POST", "/subjects/"+url.PathEscape(subject)+"/versions", string(body))
		if got.status != 200 {
			t.Errorf("%q: %d %s, want it registered as .proto text", schema, got.status, got.body)
		}
	}
}
