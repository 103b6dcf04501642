package protofeatures_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/evtool/evtool/internal/protofeatures"
)

var featureFiles = map[string]protoreflect.FileDescriptor{
	"google/protobuf/cpp_features.proto":  protofeatures.File_google_protobuf_cpp_features_proto,
	"google/protobuf/java_features.proto": protofeatures.File_google_protobuf_java_features_proto,
}

// TestSameAsProtocompiles: the generated descriptors are the ones
// protocompile embeds (its internal/featuresext/*.protoset, read from the
// module cache), so registering them changes nothing a compilation sees.
func TestSameAsProtocompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/bufbuild/protocompile").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "internal", "featuresext")
	for name, fd := range featureFiles {
		data, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(filepath.Base(name), ".proto")+".protoset"))
		if err != nil {
			t.Fatal(err)
		}
		var set descriptorpb.FileDescriptorSet
		if err := proto.Unmarshal(data, &set); err != nil {
			t.Fatal(err)
		}
		if len(set.File) != 1 || set.File[0].GetName() != name {
			t.Fatalf("%s: protoset holds %d files", name, len(set.File))
		}
		if got := protodesc.ToFileDescriptorProto(fd); !proto.Equal(got, set.File[0]) {
			t.Errorf("%s: generated descriptor differs from protocompile's:\n%v\n%v", name, got, set.File[0])
		}
	}
}

// TestProtocompileUsesThem: protocompile serves the registered
// descriptors as its standard imports (it took them at its package
// initialisation instead of building its own), and a file using both
// features extensions compiles.
func TestProtocompileUsesThem(t *testing.T) {
	for name, fd := range featureFiles {
		if got, err := protoregistry.GlobalFiles.FindFileByPath(name); err != nil || got != fd {
			t.Fatalf("%s: registered %v, %v", name, got, err)
		}
	}
	src := `edition = "2023";
package t;
import "google/protobuf/cpp_features.proto";
import "google/protobuf/java_features.proto";
message M {
  string s = 1 [features.(pb.cpp).string_type = VIEW, features.(pb.java).utf8_validation = VERIFY];
}
`
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"t.proto": src}),
	})}
	res, err := c.Compile(context.Background(), "t.proto")
	if err != nil {
		t.Fatal(err)
	}
	imps := res[0].Imports()
	for i := range imps.Len() {
		imp := imps.Get(i).FileDescriptor
		if u, ok := imp.(interface {
			Unwrap() protoreflect.FileDescriptor
		}); ok {
			imp = u.Unwrap()
		}
		if want := featureFiles[imp.Path()]; imp != want {
			t.Errorf("protocompile's %s is not the registered descriptor", imp.Path())
		}
	}
}
