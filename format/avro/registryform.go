package avro

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/evtool/evtool/format"
)

// An Avro version's registry form is its file as written, with a reference
// to each shared .avsc whose named types it uses (package schemaregistry
// orders them and registers them first).

var _ format.RegistryFormer = Provider{}

// RegistryShared are the shared .avsc files s uses besides its own.
func (Provider) RegistryShared(sch format.Schema, rel string, sf format.SharedFiles) ([]string, map[string]*format.SharedSchema, error) {
	s, ok := sch.(*Schema)
	if !ok {
		return nil, nil, format.NotKind(sch, format.Avro)
	}
	prefix := strings.TrimSuffix(s.File, rel)
	var closure []string
	for _, file := range s.Files[1:] {
		closure = append(closure, strings.TrimPrefix(file, prefix))
	}
	sort.Strings(closure)
	files, dirs, err := readShared(sf, closure)
	if err != nil {
		return nil, nil, err
	}
	byRel := map[string]*format.SharedSchema{}
	for _, rel := range closure {
		sh, err := sharedSchema(sf, files, rel, dirs)
		if err != nil {
			return nil, nil, err
		}
		byRel[rel] = sh
	}
	return closure, byRel, nil
}

// AllShared are the .avsc files of rels that define a named type at their
// top level and compile with the others.
func (Provider) AllShared(rels []string, sf format.SharedFiles) map[string]*format.SharedSchema {
	files, dirs, _ := readShared(sf, rels)
	byRel := map[string]*format.SharedSchema{}
	for _, rel := range rels {
		if files[rel] == nil {
			continue
		}
		if sh, err := sharedSchema(sf, files, rel, dirs); err == nil {
			byRel[rel] = sh
		}
	}
	return byRel
}

// readShared reads the files rels (those that cannot be read are left
// out, the first error returned) and lists the directories they are in.
func readShared(sf format.SharedFiles, rels []string) (fstest.MapFS, []string, error) {
	files := fstest.MapFS{}
	dirs := []string{}
	var first error
	for _, rel := range rels {
		text, err := format.ReadFile(sf.Root, rel, sf.MaxSize)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("shared file %s: %w", rel, err)
			}
			continue
		}
		files[rel] = &fstest.MapFile{Data: text}
		if d := path.Dir(rel); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return files, dirs, first
}

// sharedSchema loads one shared .avsc among the files the version uses.
func sharedSchema(sf format.SharedFiles, files fstest.MapFS, rel string, dirs []string) (*format.SharedSchema, error) {
	if sh, ok := sf.Cache[rel]; ok {
		return sh, nil
	}
	var others []string
	for _, d := range dirs {
		if d != path.Dir(rel) {
			others = append(others, d)
		}
	}
	s, err := Load(files, rel, others...)
	if err != nil {
		return nil, fmt.Errorf("shared file %s: %w", rel, err)
	}
	if !s.Root.Named() {
		return nil, fmt.Errorf("shared file %s is a %s schema: a Confluent schema reference names a record, enum or fixed, so a shared .avsc must define one at its top level", rel, s.Root.Kind)
	}
	sh := &format.SharedSchema{Kind: format.Avro, Name: s.Root.Name, Subject: s.Root.Name, Rel: rel, Text: format.EnsureNL(files[rel].Data), Digest: Provider{}.SchemaIDDigest(s)}
	sh.DepRels = append(sh.DepRels, s.Files[1:]...)
	sf.Keep(rel, sh)
	return sh, nil
}
