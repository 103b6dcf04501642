package registryserver

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/evtool/evtool/format/protobuf"
)

// TestDescriptorTextRoundTrip: a descriptor rendered as .proto text
// compiles (with its imports) to the same descriptor, whatever it uses:
// proto2 defaults, groups, extensions, reserved ranges and names,
// json_name, proto3 optional, maps, nested types and scoping, editions
// features, services, custom options. An option the descriptor alone
// cannot render (declared in an import) is refused, not dropped.
func TestDescriptorTextRoundTrip(t *testing.T) {
	deps := fstest.MapFS{
		"opts/o.proto": {Data: []byte(`syntax = "proto3";
package o;
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { string label = 50001; Sub sub = 50002; }
extend google.protobuf.MessageOptions { int32 level = 50003; }
message Sub { string a = 1; int32 b = 2; }
`)},
		"dep/d.proto": {Data: []byte("syntax = \"proto3\";\npackage a.b;\nmessage X { int32 v = 1; }\nenum Color { RED = 0; BLUE = 1; }\n")},
	}
	cases := []struct{ name, text, wantErr string }{
		{"proto2", `syntax = "proto2";
package a.b;
option java_package = "com.x";
option go_package = "x/y;y";
message M {
  required int32 a = 1 [default = -5];
  optional string s = 2 [default = "q\"uo\ntab\t\x01\u00e9"];
  optional bytes b = 3 [default = "\000\377ab"];
  optional double d = 4 [default = inf];
  optional float f = 5 [default = nan];
  optional E e = 6 [default = NEG];
  repeated int32 p = 7 [packed = true];
  optional group G = 8 { optional int32 x = 1; }
  extensions 100 to 199, 1000 to max;
  reserved 20 to 25, 30;
  reserved "foo", "bar";
  optional int32 j = 9 [json_name = "jayson", deprecated = true];
  map<string, M> mm = 10;
  oneof o { int32 o1 = 11; string o2 = 12; }
  message N { optional int32 y = 1; }
  optional N n = 13;
}
enum E { option allow_alias = true; ZERO = 0; NEG = -1; ALIAS = 0; reserved 5 to 7; reserved "OLD"; }
extend M { optional int32 ext = 100; }
`, ""},
		{"proto3", `syntax = "proto3";
package p;
message M {
  optional int32 a = 1;
  int32 b = 2 [json_name = "bee"];
  map<int64, string> m = 3;
  repeated sint64 r = 4 [packed = false];
  reserved 10 to 12, 15;
  reserved "x";
  oneof o { string c = 5; bytes d = 6; }
  message Inner { enum K { K_UNSPECIFIED = 0; } K k = 1; }
  Inner inner = 7;
  fixed32 f = 8;
}
service S { rpc Do(M) returns (stream M); }
`, ""},
		{"editions", `edition = "2023";
package e;
option features.field_presence = IMPLICIT;
message M {
  int32 a = 1;
  string s = 2 [features.field_presence = EXPLICIT];
  repeated int32 r = 3 [features.repeated_field_encoding = EXPANDED];
  M child = 4 [features.message_encoding = DELIMITED];
}
`, ""},
		{"scoping", `syntax = "proto3";
package a.b;
import "dep/d.proto";
import public "google/protobuf/timestamp.proto";
message M {
  message a { message b { message X { string w = 1; } } }
  .a.b.X x = 1;
  a.b.X inner = 2;
  Color c = 3;
  google.protobuf.Timestamp t = 4;
  int32 optional = 5;
  string message = 6;
}
message Y { int64 big = 1 [jstype = JS_STRING]; Color c = 2 [deprecated = true]; }
`, ""},
		{"custom option declared in the file", `syntax = "proto3";
package c;
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { string label = 50000; }
message M { string a = 1 [(label) = "hi"]; }
`, ""},
		{"custom options declared in an import", `syntax = "proto3";
package c;
import "opts/o.proto";
message M {
  option (o.level) = 7;
  string a = 1 [(o.label) = "hi", (o.sub) = { a: "x" b: 3 }];
}
`, "c.M sets option 50003 of google.protobuf.MessageOptions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := func(text []byte) fstest.MapFS {
				m := fstest.MapFS{"x.proto": {Data: text}}
				for k, v := range deps {
					m[k] = v
				}
				return m
			}
			fd, err := protobuf.Compile(files([]byte(tc.text)), "x.proto")
			if err != nil {
				t.Fatal(err)
			}
			b64, err := protobuf.Serialized(&protobuf.Schema{Desc: fd}, "x.proto")
			if err != nil {
				t.Fatal(err)
			}
			text, err := protobuf.DescriptorText([]byte(b64))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%v, want %q; rendered\n%s", err, tc.wantErr, text)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			back, err := protobuf.Compile(files(text), "x.proto")
			if err != nil {
				t.Fatalf("the rendered text does not compile: %v\n%s", err, text)
			}
			want, got := protodesc.ToFileDescriptorProto(fd), protodesc.ToFileDescriptorProto(back)
			want.SourceCodeInfo, got.SourceCodeInfo = nil, nil
			if d := cmp.Diff(want, got, protocmp.Transform()); d != "" {
				t.Errorf("the rendered text compiles to another descriptor (-sent +rendered):\n%s\n%s", d, text)
			}
		})
	}
}
