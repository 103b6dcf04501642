package protobuf

import (
	"testing"

	"github.com/evtool/evtool/compat"
)

// benchPair is an order event evolved with a mix of safe and breaking
// changes (widening, narrowing, rename, enum value removed, field removed).
var benchOld = p3(`import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  int64 amount = 2;
  int32 qty = 3;
  Status status = 4;
  repeated Line lines = 5;
  map<string, string> tags = 6;
  google.protobuf.Timestamp at = 7;
  oneof pay { string card = 8; string voucher = 9; }
  string note = 10;
}
message Line { string sku = 1; uint32 n = 2; Line child = 3; }
enum Status { S0 = 0; S1 = 1; S2 = 2; }
`)

var benchNew = p3(`import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  int32 amount = 2;
  int64 qty = 3;
  Status status = 4;
  repeated Line lines = 5;
  map<string, string> tags = 6;
  google.protobuf.Timestamp at = 7;
  oneof pay { string card = 8; string voucher = 9; }
  string remark = 11;
}
message Line { string sku = 1; uint64 count = 2; Line child = 3; }
enum Status { S0 = 0; S1 = 1; }
`)

func BenchmarkCompare(b *testing.B) {
	old, new := load(b, "old.proto", benchOld), load(b, "new.proto", benchNew)
	for _, bc := range []struct {
		name string
		dir  compat.Direction
		opts Options
	}{
		{"backward/rules+targeted", compat.Backward, Options{Samples: -1}},
		{"backward/witness-search", compat.Backward, Options{}},
		{"forward/rules+targeted", compat.Forward, Options{Samples: -1}},
		{"forward/witness-search", compat.Forward, Options{}},
		{"identical/rules+targeted", "", Options{Samples: -1}},
		{"identical/witness-search", "", Options{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			o, n, dir := old, new, bc.dir
			if dir == "" {
				n, dir = old, compat.Backward
			}
			for b.Loop() {
				Compare(o, n, dir, bc.opts)
			}
		})
	}
}
