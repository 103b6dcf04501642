package protobuf

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/evtool/evtool/format"
)

// A Protobuf version's registry form is its file as written, with a
// reference to each catalog file it imports, directly or not (package
// schemaregistry orders them and registers them first); the well-known
// types are the registry's own.

var _ format.RegistryFormer = Provider{}

// RegistryShared are the catalog files s's file imports, directly or not.
func (Provider) RegistryShared(sch format.Schema, _ string, sf format.SharedFiles) ([]string, map[string]*format.SharedSchema, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, nil, format.NotKind(sch, format.Protobuf)
	}
	local := map[string]bool{}
	for _, file := range s.Files {
		local[file] = true
	}
	byRel := map[string]*format.SharedSchema{}
	var closure []string
	var visit func(fd protoreflect.FileDescriptor) error
	visit = func(fd protoreflect.FileDescriptor) error {
		imps := fd.Imports()
		for i := 0; i < imps.Len(); i++ {
			imp := imps.Get(i).FileDescriptor
			p := imp.Path()
			if !local[p] || byRel[p] != nil {
				continue
			}
			sh, ok := sf.Cache[p]
			if !ok {
				text, err := format.ReadFile(sf.Root, p, sf.MaxSize)
				if err != nil {
					return fmt.Errorf("shared file %s: %w", p, err)
				}
				sh = sharedSchema(p, text, imp, local)
				sf.Keep(p, sh)
			}
			byRel[p] = sh
			closure = append(closure, p)
			if err := visit(imp); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(s.Desc); err != nil {
		return nil, nil, err
	}
	sort.Strings(closure)
	return closure, byRel, nil
}

// AllShared are the .proto files of rels that compile on their own.
func (Provider) AllShared(rels []string, sf format.SharedFiles) map[string]*format.SharedSchema {
	byRel := map[string]*format.SharedSchema{}
	for _, rel := range rels {
		sh, ok := sf.Cache[rel]
		if !ok {
			fd, err := Compile(sf.Root, rel)
			if err != nil {
				continue
			}
			text, err := format.ReadFile(sf.Root, rel, sf.MaxSize)
			if err != nil {
				continue
			}
			local := map[string]bool{}
			for _, p := range localFiles(fd) {
				local[p] = p != rel
			}
			sh = sharedSchema(rel, text, fd, local)
			sf.Keep(rel, sh)
		}
		byRel[rel] = sh
	}
	return byRel
}

// sharedSchema is the shared schema of the catalog file fd at p (text as
// written), which uses the files of local it imports.
func sharedSchema(p string, text []byte, fd protoreflect.FileDescriptor, local map[string]bool) *format.SharedSchema {
	sh := &format.SharedSchema{Kind: format.Protobuf, Name: p, Subject: p, Rel: p, Text: format.EnsureNL(text), Digest: FileIDDigest(fd, local)}
	deps := fd.Imports()
	for j := 0; j < deps.Len(); j++ {
		if dp := deps.Get(j).Path(); local[dp] {
			sh.DepRels = append(sh.DepRels, dp)
		}
	}
	return sh
}
