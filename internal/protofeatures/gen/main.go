// Command gen writes the Go code of protocompile's two editions feature
// files that protobuf-go has no Go package for
// (google/protobuf/cpp_features.proto and java_features.proto), from the
// descriptors protocompile itself embeds, with protoc-gen-go's own
// generator:
//
//	go generate ./internal/protofeatures
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

const goPackage = "github.com/evtool/evtool/internal/protofeatures"

var files = []string{"google/protobuf/cpp_features.proto", "google/protobuf/java_features.proto"}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	// Compiling a standard import returns protocompile's descriptor of it.
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{})}
	res, err := c.Compile(context.Background(), files...)
	if err != nil {
		return err
	}
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: files,
		Parameter:      proto.String("M" + files[0] + "=" + goPackage + ",M" + files[1] + "=" + goPackage),
		ProtoFile:      []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(descriptorpb.File_google_protobuf_descriptor_proto)},
	}
	for _, f := range res {
		req.ProtoFile = append(req.ProtoFile, protodesc.ToFileDescriptorProto(f))
	}
	gen, err := protogen.Options{}.New(req)
	if err != nil {
		return err
	}
	for _, f := range gen.Files {
		if f.Generate {
			internal_gengo.GenerateFile(gen, f)
		}
	}
	resp := gen.Response()
	if resp.Error != nil {
		return fmt.Errorf("%s", resp.GetError())
	}
	for _, f := range resp.File {
		if err := os.WriteFile(filepath.Base(f.GetName()), []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
