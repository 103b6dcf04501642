package schemaregistry

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// FuzzRemoteFormatVersion: an Avro or Protobuf schema and reference from a
// registry never panic evtool, and pull never names a file outside the
// catalog root for them.
func FuzzRemoteFormatVersion(f *testing.F) {
	f.Add(true, `{"type":"record","name":"M","fields":[{"name":"e","type":"a.E"}]}`, "a.E", `{"type":"enum","name":"E","namespace":"a","symbols":["X"]}`)
	f.Add(false, `syntax = "proto3"; import "common/e.proto"; message M { E e = 1; }`, "common/e.proto", `syntax = "proto3"; enum E { X = 0; }`)
	f.Add(false, `syntax = "proto3"; import "../e.proto";`, "../e.proto", `syntax = "proto3";`)
	f.Add(true, `{"type":"record","name":"M","fields":[]}`, "../../x", `{}`)
	f.Fuzz(func(t *testing.T, avro bool, text, refName, refText string) {
		kind := format.Protobuf
		if avro {
			kind = format.Avro
		}
		ref := &wire.RemoteRef{Name: refName, Subject: "ref", Version: 1, Text: refText}
		s, err := wire.CompileRemote(kind, text, []*wire.RemoteRef{ref}, "")
		if err == nil && s == nil {
			t.Fatal("no schema and no error")
		}
		rs := &RemoteSubject{Subject: "com.example.x", Versions: []*RemoteVersion{{Version: 1, Kind: kind, Text: text, Refs: []*wire.RemoteRef{ref}}}}
		files, err := formatFiles(rs, dirOf("com.example.x"), map[string][]byte{})
		if err != nil {
			return
		}
		for name := range files {
			if !fs.ValidPath(name) || !strings.HasPrefix(name, "schemas/") || strings.Contains(name, `\`) || strings.Contains(name, "/.") {
				t.Fatalf("pull would write %q for reference %q", name, refName)
			}
		}
	})
}
