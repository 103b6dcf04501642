package registryserver

import (
	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
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

// wellKnownForm is the served form of a well-known file, or an error when
// subject names none.
func wellKnownForm(subject string) (*wire.Form, *apiError) {
	bf, kind, ok := wire.BuiltinFiler()
	if !ok {
		return nil, apiErr(422, codeInvalidSubject, "subject %q is no well-known file: no format has files built into its compiler", wire.Clip(subject))
	}
	text, digest, ok, err := bf.BuiltinText(subject)
	if !ok {
		return nil, apiErr(422, codeInvalidSubject, "subject %q is no well-known %s file: %s, which serve answers; others are no catalog file", wire.Clip(subject), kind.Name(), bf.BuiltinWhere())
	}
	if err != nil {
		return nil, apiErr(500, codeStore, "well-known file %s: %v", subject, err)
	}
	return &wire.Form{Kind: kind, Text: text, Digest: digest}, nil
}

// wellKnownRequest checks that a schema request for a well-known subject
// declares the well-known file's declarations, and returns its form.
func wellKnownRequest(subject string, req *schemaReq) (*wire.Form, *apiError) {
	form, aerr := wellKnownForm(subject)
	if aerr != nil {
		return nil, aerr
	}
	if req.kind != form.Kind {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: subject %q is a well-known %s file, not schemaType %s", wire.Clip(subject), form.Kind.Name(), wire.SchemaType(req.kind))
	}
	bf, _, _ := wire.BuiltinFiler()
	difference, err := bf.CheckBuiltin(subject, req.text)
	if err != nil {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: %s", wire.Clip(err.Error()))
	}
	if difference != "" {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: subject %q is the well-known file %s, and the schema does not declare what it declares (%s); every %s compiler has the file built in", wire.Clip(subject), subject, difference, form.Kind.Name())
	}
	return form, nil
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
	bf, _, ok := wire.BuiltinFiler()
	if !ok {
		return
	}
	for _, subject := range bf.BuiltinFiles() {
		form, aerr := wellKnownForm(subject)
		if aerr != nil {
			continue
		}
		id, ok := snap.ids[form.Digest]
		if !ok || claimed[id] {
			continue
		}
		vs := &versionState{v: &catalog.Version{Number: 1, Format: form.Kind, RelPath: subject, File: subject}, form: form, id: id}
		snap.wellKnown[subject] = vs
		snap.names = append(snap.names, subject) // listed, as Confluent's registry lists them
		snap.byID[id] = &schemaRec{id: id, form: form, usages: []usage{{Subject: subject, Version: 1}}}
	}
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
		return nil, apiErr(404, codeVersionNotFound, "version %d of subject %q not found (a well-known %s file has version 1 only)", n, wire.Clip(subject), vs.form.Kind.Name())
	}
	return vs, nil
}
