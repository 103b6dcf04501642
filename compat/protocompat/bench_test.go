package protocompat

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/compat/engine"
	pb "github.com/evtool/evtool/format/protobuf"
)

// The pair is an order event evolved with a mix of safe and breaking
// changes (widening, narrowing, rename, enum value removed, field removed),
// in testdata/bench so that bench/protobuf/run.sh gives buf the same files.
func benchPair(b *testing.B) (old, new *pb.Schema) {
	load := func(dir string) *pb.Schema {
		root, err := os.OpenRoot(filepath.Join("testdata/bench", dir))
		if err != nil {
			b.Fatal(err)
		}
		defer root.Close()
		s, err := pb.Load(root.FS(), "order.proto", "")
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	return load("old"), load("new")
}

func BenchmarkCompare(b *testing.B) {
	old, new := benchPair(b)
	for _, bc := range []struct {
		name string
		dir  engine.Direction
		opts engine.Options
	}{
		{"backward/rules+targeted", engine.Backward, engine.Options{Samples: -1}},
		{"backward/witness-search", engine.Backward, engine.Options{}},
		{"forward/rules+targeted", engine.Forward, engine.Options{Samples: -1}},
		{"forward/witness-search", engine.Forward, engine.Options{}},
		{"identical/rules+targeted", "", engine.Options{Samples: -1}},
		{"identical/witness-search", "", engine.Options{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			o, n, dir := old, new, bc.dir
			if dir == "" {
				n, dir = old, engine.Backward
			}
			for b.Loop() {
				Compare(o, n, dir, bc.opts)
			}
		})
	}
}

// BenchmarkLoadAndCompare includes compiling both files, as a `buf
// breaking` process must.
func BenchmarkLoadAndCompare(b *testing.B) {
	for b.Loop() {
		old, new := benchPair(b)
		Compare(old, new, engine.Backward, engine.Options{})
	}
}

// BenchmarkCompareSelfReferencing: messages with repeated fields and maps
// of their own type, whose samples the sampler's budget bounds.
func BenchmarkCompareSelfReferencing(b *testing.B) {
	for _, c := range []struct{ rep, maps int }{{6, 0}, {8, 0}, {20, 20}} {
		s := load(b, "a.proto", selfReferencing(c.rep, c.maps))
		b.Run(fmt.Sprintf("%d-repeated-%d-maps", c.rep, c.maps), func(b *testing.B) {
			for b.Loop() {
				Compare(s, s, engine.Backward, engine.Options{})
			}
		})
	}
}
