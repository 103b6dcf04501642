package protobuf

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/format"
)

// SchemaIDDigest is FileIDDigest of the version's file, with the files it
// was compiled from as local.
func (Provider) SchemaIDDigest(sch format.Schema) string {
	s, ok := sch.(*Schema)
	if !ok {
		return format.DigestOf(sch.Canonical())
	}
	local := map[string]bool{}
	for _, f := range s.Files {
		local[f] = true
	}
	return FileIDDigest(s.Desc, local)
}

// FileIDDigest is a .proto file's registry identity: its descriptor
// and those of the files in local it imports (not the well-known types),
// without source positions or comments, deterministically marshalled.
// The file's own name is left out, so the same schema has one identity
// as the catalog's v2.proto and as a registry's schema.
func FileIDDigest(fd protoreflect.FileDescriptor, local map[string]bool) string {
	h := sha256.New()
	h.Write([]byte("protobuf\n"))
	seen := map[string]bool{}
	var visit func(fd protoreflect.FileDescriptor, main bool)
	visit = func(fd protoreflect.FileDescriptor, main bool) {
		fdp := protodesc.ToFileDescriptorProto(fd)
		fdp.SourceCodeInfo = nil
		if main {
			fdp.Name = nil
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(fdp)
		if err != nil {
			b = []byte(err.Error())
		}
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
		imps := fd.Imports()
		var paths []int
		for i := 0; i < imps.Len(); i++ {
			if p := imps.Get(i).Path(); local[p] && !seen[p] {
				seen[p] = true
				paths = append(paths, i)
			}
		}
		for _, i := range paths {
			visit(imps.Get(i).FileDescriptor, false)
		}
	}
	visit(fd, true)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
