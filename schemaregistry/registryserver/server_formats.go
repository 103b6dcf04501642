package registryserver

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// The server's side of Avro and Protobuf: versions carry Confluent schema
// references to the catalog's shared files, which are served as subjects
// of their own (an Avro named type under its full name, a .proto under its
// import path), each with version 1 only: the file as it is in git.

// sharedForm is the served form of a shared schema.
func sharedForm(sh *wire.SharedSchema) *wire.Form {
	f := &wire.Form{Kind: sh.Kind, Text: sh.Text, Digest: sh.Digest}
	for _, d := range sh.Deps {
		f.Shared = append(f.Shared, &wire.SharedSchema{Kind: sh.Kind, Name: d, Subject: d})
	}
	return f
}

// checkKind refuses a schema of another format than the subject's type
// has: a type's versions share one format.
func (snap *snapshot) checkKind(subject string, kind format.Kind) *apiError {
	st := snap.subjects[subject]
	if st == nil || st.t.Format == "" || st.t.Format == kind {
		return nil
	}
	return apiErr(422, codeInvalidSchema, "invalid schema: subject %q holds %s versions, not schemaType %s: all versions of a type are in one format", wire.Clip(subject), st.t.Format.Name(), wire.SchemaType(kind))
}

// registeredDigest returns the version of subject whose registry identity
// is digest, or nil.
func (snap *snapshot) registeredDigest(subject, digest string) *versionState {
	if st := snap.subjects[subject]; st != nil {
		for _, vs := range st.versions {
			if vs.form.Digest == digest {
				return vs
			}
		}
	}
	return nil
}

// refClosure resolves a request's references among the shared subjects,
// with the schemas those reference in turn.
func (snap *snapshot) refClosure(refs []sr.SchemaReference) ([]*wire.RemoteRef, *apiError) {
	var out []*wire.RemoteRef
	seen := map[string]bool{}
	var add func(name, subject string, version int) *apiError
	add = func(name, subject string, version int) *apiError {
		vs := snap.shared[subject]
		if vs == nil {
			return apiErr(422, codeInvalidSchema, "invalid schema: reference %q names subject %q, which is not a shared schema of the catalog (those are its shared .avsc files, by the full name of their named type, and its imported .proto files, by import path)", wire.Clip(name), wire.Clip(subject))
		}
		if version != 1 && version != -1 {
			return apiErr(422, codeInvalidSchema, "invalid schema: reference %q: subject %q has version 1 only (a shared file as it is in git)", wire.Clip(name), wire.Clip(subject))
		}
		if seen[subject] {
			return nil
		}
		seen[subject] = true
		for _, d := range vs.form.Shared {
			if aerr := add(d.Name, d.Subject, 1); aerr != nil {
				return aerr
			}
		}
		out = append(out, &wire.RemoteRef{Name: name, Subject: subject, Version: 1, SchemaType: vs.form.SchemaType().String(), Text: string(vs.form.Text)})
		return nil
	}
	for _, r := range refs {
		if wire.WellKnown(r.Name) && snap.shared[r.Subject] == nil {
			// A client that registers the well-known types as subjects
			// references them too; every compiler has them built in.
			continue
		}
		if vs := snap.shared[r.Subject]; vs != nil && descriptors(vs.form.Kind) && r.Name != r.Subject {
			return nil, apiErr(422, codeInvalidSchema, "invalid schema: reference %q: subject %q is imported as %q (the reference name of a .proto is its import path)", wire.Clip(r.Name), wire.Clip(r.Subject), r.Subject)
		}
		if aerr := add(r.Name, r.Subject, r.Version); aerr != nil {
			return nil, aerr
		}
	}
	return out, nil
}

// checkRefs makes sure a registration references (directly or not) every
// shared schema it uses: a Confluent client resolves named types and
// imports through the references only.
func (snap *snapshot) checkRefs(refs []sr.SchemaReference, uses []*wire.SharedSchema) *apiError {
	closure, aerr := snap.refClosure(refs)
	if aerr != nil {
		return aerr
	}
	have := map[string]bool{}
	for _, r := range closure {
		have[r.Subject] = true
	}
	for _, sh := range uses {
		if !have[sh.Subject] {
			return apiErr(422, codeInvalidSchema, "invalid schema: it uses %s (the catalog's %s) without a schema reference to it; add {\"name\": %q, \"subject\": %q, \"version\": 1}", sh.Name, sh.Rel, sh.Name, sh.Subject)
		}
	}
	return nil
}

// sharedDigest is the registry identity of a requested schema compiled
// with the shared schemas it references.
func (snap *snapshot) sharedDigest(req *schemaReq) (string, *apiError) {
	if !wire.WithRefs(req.kind) {
		return "", apiErr(422, codeInvalidSchema, "invalid schema: shared subjects hold %s schemas", formats.NamesWhere(format.HasRegistryRefs, "and"))
	}
	refs, aerr := snap.refClosure(req.refs)
	if aerr != nil {
		return "", aerr
	}
	s, err := wire.CompileRemote(req.kind, string(req.text), refs, "")
	if err != nil {
		return "", apiErr(422, codeInvalidSchema, "invalid schema: %s", wire.Clip(err.Error()))
	}
	return wire.DigestOf(s), nil
}

// sharedSubject reports whether a registration to a subject the catalog
// does not have is a shared schema: a .proto under its import path, or an
// Avro named type under its full name (how Confluent's clients register
// what other schemas reference).
func sharedSubject(req *schemaReq, subject string) bool {
	p, ok := formats.ForKind(req.kind)
	return ok && p.SharedSubject(req.text, subject)
}

// sharedRel is where a new shared schema is written, inside the root.
func sharedRel(kind format.Kind, subject string) string {
	if r, ok := wire.RegistryRules(kind); ok {
		return r.SharedRel(subject)
	}
	return subject
}

func (s *Server) sharedCompatibility(r *http.Request, snap *snapshot, subject string, vs *versionState) (any, *apiError) {
	body, aerr := readBody(r)
	if aerr != nil {
		return nil, aerr
	}
	req, aerr := decodeSchemaRequest(body)
	if aerr != nil {
		return nil, aerr
	}
	d, aerr := snap.sharedDigest(req)
	if aerr != nil {
		return nil, aerr
	}
	out := map[string]any{"is_compatible": d == vs.form.Digest}
	if r.URL.Query().Get("verbose") == "true" {
		msgs := []string{}
		if d != vs.form.Digest {
			msgs = append(msgs, "subject "+subject+" is the catalog's shared file "+vs.v.File+": it changes in git, where `evtool compat check` checks every version that uses it")
		}
		out["messages"] = msgs
	}
	return out, nil
}

// registerShared registers a shared schema: the one the catalog has is
// found (its id, version 1); another schema under its subject is refused
// (shared files change in git, with every version that uses them); a new
// one is written as a shared file of the root, after the catalog loads
// with it.
func (s *Server) registerShared(r *http.Request, subject string, req *schemaReq) (any, *apiError) {
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.CheckTimeout)
	defer cancel()
	unlock, err := s.store.subjects.lock(ctx, subject)
	if err != nil {
		return nil, s.checkDeadline(ctx, subject)
	}
	defer unlock()
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	snap, err := s.store.refreshLocked()
	if err != nil {
		return nil, apiErr(500, codeStore, "the catalog cannot be read: %v", err)
	}
	if vs := snap.shared[subject]; vs != nil {
		d, aerr := snap.sharedDigest(req)
		if aerr != nil {
			return nil, aerr
		}
		if d == vs.form.Digest {
			return map[string]any{"id": vs.id, "version": 1, "subject": subject}, nil
		}
		return nil, apiErr(422, codeNotPermitted, "subject %q is the catalog's shared file %s, which versions of its types use: change it in git (where `evtool compat check` checks every version that uses it), not through a registration", wire.Clip(subject), vs.v.File)
	}
	if descriptors(req.kind) && wire.WellKnown(subject) {
		return s.registerWellKnown(snap, subject, req)
	}
	if err := wire.CheckRefName(req.kind, subject); err != nil {
		return nil, apiErr(422, codeInvalidSubject, "subject %q cannot be a shared schema: %v", wire.Clip(subject), err)
	}
	rel := sharedRel(req.kind, subject)
	if first, _, nested := strings.Cut(rel, "/"); nested && snap.cat.Lookup(first) != nil {
		return nil, apiErr(422, codeInvalidSubject, "subject %q cannot be a shared schema: %s is in the directory of type %s, which holds that type's versions; import it from another directory (common/, say)", wire.Clip(subject), rel, first)
	}
	full := path.Join(snap.root, rel)
	for name := range snap.files {
		if name == full || strings.HasPrefix(name, full+"/") {
			return nil, apiErr(422, codeInvalidSubject, "subject %q: %s exists in the catalog and is not a shared schema it serves", wire.Clip(subject), full)
		}
	}
	// The rule for new types: on a case-insensitive checkout the file
	// would land in (or replace) what the catalog spells otherwise, a
	// type's directory among them.
	if other := caseVariant(snap.files, full); other != "" {
		return nil, apiErr(422, codeInvalidSubject, "subject %q: %s differs only in letter case or trailing dots from %s, which the catalog has (a case-insensitive file system, or Windows, would merge them): use that spelling", wire.Clip(subject), full, other)
	}
	files := maps.Clone(snap.files)
	text := prettyText(req.text)
	files[full] = &fstest.MapFile{Data: text, Mode: 0o644}
	cat, err := catalog.LoadFSCached(files, ".", snap.cache)
	if err != nil {
		var le *catalog.LoadError
		if errors.As(err, &le) {
			return nil, apiErr(422, codeInvalidSchema, "invalid schema: %s", relativeMessages(le, full))
		}
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: %v", err)
	}
	sub, err := fs.Sub(files, snap.root)
	if err != nil {
		return nil, apiErr(500, codeStore, "internal error")
	}
	var sh *wire.SharedSchema
	for _, x := range wire.NewDraftForms(sub, cat.Draft).AllShared() {
		if x.Rel == rel {
			sh = x
		}
	}
	if sh == nil || sh.Subject != subject {
		return nil, apiErr(422, codeInvalidSchema, "invalid schema: it does not compile as a shared %s schema named %q", req.kind.Name(), wire.Clip(subject))
	}
	var uses []*wire.SharedSchema
	for _, d := range sh.Deps {
		uses = append(uses, &wire.SharedSchema{Name: d, Subject: d, Rel: d})
	}
	if aerr := snap.checkRefs(req.refs, uses); aerr != nil {
		return nil, aerr
	}
	if aerr := s.checkDeadline(ctx, subject); aerr != nil {
		return nil, aerr
	}
	if aerr := s.refuseSymlink(full); aerr != nil {
		return nil, aerr
	}
	id, ok := snap.ids[sh.Digest]
	if !ok {
		id = snap.nextID
		if err := s.store.persistIDs(snap, map[string]int{sh.Digest: id}); err != nil {
			return nil, apiErr(500, codeStore, "cannot write the ids file: %v", err)
		}
	}
	final := filepath.Join(s.opts.Dir, filepath.FromSlash(full))
	if err := mkdirDurable(filepath.Dir(final)); err != nil {
		return nil, apiErr(500, codeStore, "cannot create %s: %v", path.Dir(full), err)
	}
	if err := writeAtomic(final, text, true, s.store.hook); err != nil {
		return nil, apiErr(500, codeStore, "cannot write %s: %v", full, err)
	}
	ns, err := s.store.build(files, snap.root, cat)
	if err != nil {
		return nil, apiErr(500, codeStore, "the catalog does not load after writing %s: %v", full, err)
	}
	s.store.snap.Store(ns)
	return map[string]any{"id": id, "version": 1, "subject": subject}, nil
}

// referencedBy lists the ids of the schemas that reference subject (a
// shared subject; none for the others), in order.
func (snap *snapshot) referencedBy(subject string) []int {
	out := []int{}
	if snap.shared[subject] == nil {
		return out
	}
	seen := map[int]bool{}
	add := func(vs *versionState) {
		for _, sh := range vs.form.Shared {
			if sh.Subject == subject && !seen[vs.id] {
				seen[vs.id] = true
				out = append(out, vs.id)
			}
		}
	}
	for _, name := range snap.names {
		if st := snap.subjects[name]; st != nil {
			for _, vs := range st.versions {
				add(vs)
			}
		} else if vs := snap.shared[name]; vs != nil {
			add(vs)
		}
	}
	slices.Sort(out)
	return out
}
