package schemaregistry

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/protobuf"
)

// The well-known Protobuf files (google/protobuf/*.proto) are built into
// every Protobuf compiler, evtool's included, and are never catalog files.
// Some clients register them as subjects all the same: Confluent's Python
// ProtobufSerializer does (skip.known.types is off in confluent-kafka 1.x),
// registering each import before the schema that imports it, then looking
// it up for its version. A Confluent registry stores such a file as any
// other schema and answers with an id; serve answers the same way, with
// an id kept in the ids file, and writes nothing into the catalog. The
// file is served as protobuf-go's descriptor of it, and a registration is
// accepted when it declares what that descriptor declares (messages,
// fields, enums and their numbers; options and comments may differ between
// protobuf releases).

// wellKnownPackage is the package of the well-known files.
const wellKnownPackage = "google.protobuf"

// wellKnownForm is the served form of a well-known file, or an error when
// subject names none.
func wellKnownForm(subject string) (*Form, protoreflect.FileDescriptor, *apiError) {
	fd, err := protoregistry.GlobalFiles.FindFileByPath(subject)
	// Package google.protobuf exactly: the files addWellKnown serves. Other
	// files the binary links under google/protobuf/ (go_features.proto of
	// package pb, compiler/plugin.proto) would get an id never served.
	if err != nil || !wellKnown(subject) || fd.Package() != wellKnownPackage {
		return nil, nil, apiErr(422, codeInvalidSubject, "subject %q is no well-known Protobuf file: files under google/protobuf/ are the compiler's own (timestamp.proto, duration.proto, ...), which serve answers; others are no catalog file", clip(subject))
	}
	text, err := protobuf.PrintProto(fd)
	if err != nil {
		return nil, nil, apiErr(500, codeStore, "well-known file %s: %v", subject, err)
	}
	return &Form{Kind: format.Protobuf, Text: text, Digest: protoDigest(fd, nil)}, fd, nil
}

// wellKnownRequest checks that a schema request for a well-known subject
// declares the well-known file's declarations, and returns its form.
func wellKnownRequest(subject string, req *schemaReq) (*Form, *apiError) {
	form, fd, aerr := wellKnownForm(subject)
	if aerr != nil {
		return nil, aerr
	}
	if !descriptors(req.kind) {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: subject %q is a well-known Protobuf file, not schemaType %s", clip(subject), SchemaType(req.kind))
	}
	parsed, err := parseWellKnown(subject, req.text)
	if err != nil {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: %s", clip(err.Error()))
	}
	got, want := declarations(parsed), declarations(fd)
	if !slices.Equal(got, want) {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: subject %q is the well-known file %s, and the schema does not declare what it declares (%s); every Protobuf compiler has the file built in", clip(subject), subject, firstDifference(got, want))
	}
	return form, nil
}

// parseWellKnown parses and links a .proto text registered as a
// well-known file; its imports are the other well-known files. (The
// catalog's compiler refuses package google.protobuf in a schema.)
func parseWellKnown(subject string, text []byte) (protoreflect.FileDescriptor, error) {
	h := reporter.NewHandler(nil)
	ast, err := parser.Parse(subject, bytes.NewReader(text), h)
	if err != nil {
		return nil, err
	}
	res, err := parser.ResultFromAST(ast, true, h)
	if err != nil {
		return nil, err
	}
	return protodesc.NewFile(res.FileDescriptorProto(), protoregistry.GlobalFiles)
}

// declarations lists what a file declares, sorted: its messages with their
// fields (number, kind, cardinality, type), its enums with their values.
func declarations(fd protoreflect.FileDescriptor) []string {
	var out []string
	var msgs func(ms protoreflect.MessageDescriptors)
	enums := func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			e := es.Get(i)
			out = append(out, "enum "+string(e.FullName()))
			for j := range e.Values().Len() {
				v := e.Values().Get(j)
				out = append(out, fmt.Sprintf("value %s = %d", v.FullName(), v.Number()))
			}
		}
	}
	msgs = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			out = append(out, "message "+string(m.FullName()))
			for j := range m.Fields().Len() {
				f := m.Fields().Get(j)
				typ := f.Kind().String()
				if f.Message() != nil {
					typ = string(f.Message().FullName())
				} else if f.Enum() != nil {
					typ = string(f.Enum().FullName())
				}
				out = append(out, fmt.Sprintf("field %s = %d %s %s", f.FullName(), f.Number(), f.Cardinality(), typ))
			}
			msgs(m.Messages())
			enums(m.Enums())
		}
	}
	msgs(fd.Messages())
	enums(fd.Enums())
	slices.Sort(out)
	return out
}

// firstDifference names the first declaration one list has and the other
// lacks.
func firstDifference(got, want []string) string {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return "it lacks " + w
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			return "it adds " + g
		}
	}
	return "they differ"
}

// registerWellKnown answers the registration of a well-known file: its
// id, given once and kept in the ids file; nothing is written into the
// catalog. The caller holds the store's write lock and passes the fresh
// snapshot.
func (s *Server) registerWellKnown(snap *snapshot, subject string, req *schemaReq) (any, *apiError) {
	form, aerr := wellKnownRequest(subject, req)
	if aerr != nil {
		return nil, aerr
	}
	if vs := snap.wellKnown[subject]; vs != nil {
		return map[string]any{"id": vs.id, "version": 1, "subject": subject}, nil
	}
	id, ok := snap.ids[form.Digest]
	if !ok {
		id = snap.nextID
		if err := s.store.persistIDs(snap, map[string]int{form.Digest: id}); err != nil {
			return nil, apiErr(500, codeStore, "cannot write the ids file: %v", err)
		}
	}
	ns, err := s.store.build(snap.files, snap.root, snap.cat)
	if err != nil {
		return nil, apiErr(500, codeStore, "%v", err)
	}
	s.store.snap.Store(ns)
	return map[string]any{"id": id, "version": 1, "subject": subject}, nil
}

// lookupWellKnown answers the lookup of a well-known file under its
// subject: version 1 and its id once registered.
func (snap *snapshot) lookupWellKnown(subject string, req *schemaReq) (any, *apiError) {
	if _, aerr := wellKnownRequest(subject, req); aerr != nil {
		return nil, aerr
	}
	vs := snap.wellKnown[subject]
	if vs == nil {
		return nil, subjectNotFound(subject)
	}
	return subjectVersion(subject, vs), nil
}

// addWellKnown serves the well-known files the ids file has ids for. Only
// ids no version or shared file claims are looked at, so a catalog without
// them compiles no well-known file.
func (snap *snapshot) addWellKnown() {
	snap.wellKnown = map[string]*versionState{}
	claimed := map[int]bool{}
	for id := range snap.byID {
		claimed[id] = true
	}
	unclaimed := false
	for _, id := range snap.ids {
		if !claimed[id] {
			unclaimed = true
			break
		}
	}
	if !unclaimed {
		return
	}
	protoregistry.GlobalFiles.RangeFilesByPackage(wellKnownPackage, func(fd protoreflect.FileDescriptor) bool {
		subject := fd.Path()
		form, _, aerr := wellKnownForm(subject)
		if aerr != nil {
			return true
		}
		id, ok := snap.ids[form.Digest]
		if !ok || claimed[id] {
			return true
		}
		vs := &versionState{v: &catalog.Version{Number: 1, Format: format.Protobuf, RelPath: subject, File: subject}, form: form, id: id}
		snap.wellKnown[subject] = vs
		snap.names = append(snap.names, subject) // listed, as Confluent's registry lists them
		snap.byID[id] = &schemaRec{id: id, form: form, usages: []usage{{Subject: subject, Version: 1}}}
		return true
	})
}

// wellKnownVersion answers GET /subjects/{s}/versions[/{v}] for a served
// well-known file; nil when subject is none.
func (snap *snapshot) wellKnownVersion(subject, version string) (*versionState, *apiError) {
	vs := snap.wellKnown[subject]
	if vs == nil {
		return nil, nil
	}
	n, aerr := parseVersion(version)
	if aerr != nil {
		return nil, aerr
	}
	if n != -1 && n != 1 {
		return nil, apiErr(404, codeVersionNotFound, "version %d of subject %q not found (a well-known Protobuf file has version 1 only)", n, clip(subject))
	}
	return vs, nil
}
