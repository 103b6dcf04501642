package schemaregistry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonstrict"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// RemoteVersion is one version of a subject as the registry holds it.
type RemoteVersion struct {
	// Version is the registry's version number, ID the schema id.
	Version, ID int
	SchemaType  string
	// Text is the schema as the registry returned it.
	Text       string
	References []sr.SchemaReference
	// Doc is the schema decoded, with Confluent schema references inlined
	// the way evtool bundles shared catalog files; nil when the schema is
	// not JSON Schema or cannot be read (Problem says why).
	Doc     any
	Digest  string
	Bundled bool
	Problem string
	// Kind is the version's format; for Avro and Protobuf, Refs are the
	// schemas it references, directly or not (each after those it uses),
	// and Compiled the schema compiled with them (nil when Problem).
	Kind     format.Kind
	Refs     []*wire.RemoteRef
	Compiled format.Schema
}

// RemoteRef is one schema a registry schema references, directly or not.
type RemoteRef = wire.RemoteRef

// RemoteSubject is a subject with its active versions, oldest first.
type RemoteSubject struct {
	Subject string
	// Type and Topic are what the subject strategy maps the subject to
	// ("" when it maps to no valid type name).
	Type, Topic string
	Versions    []*RemoteVersion
}

// Kind is the format of the subject's versions, "" when they mix formats
// or one is of a format evtool does not know.
func (s *RemoteSubject) Kind() format.Kind {
	var k format.Kind
	for i, v := range s.Versions {
		if v.Kind == "" || (i > 0 && v.Kind != k) {
			return ""
		}
		k = v.Kind
	}
	return k
}

// Subjects lists the registry's subjects, optionally only those starting
// with prefix.
func (c *Client) Subjects(ctx context.Context, prefix string) ([]string, error) {
	if prefix != "" {
		ctx = sr.WithParams(ctx, sr.SubjectPrefix(prefix))
	}
	subs, err := c.sr.Subjects(ctx)
	if err != nil {
		return nil, c.wrap("list subjects", err)
	}
	var out []string
	for _, s := range subs {
		if prefix == "" || strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Subject fetches one subject's versions. It returns nil and no error when
// the registry has no such subject (or only soft-deleted versions).
func (c *Client) Subject(ctx context.Context, subject string) (*RemoteSubject, error) {
	// Versions one after the other (sr's Schemas fetches all at once):
	// FetchAll reads subjects in parallel, and the transport bounds the
	// requests in flight.
	versions, err := c.sr.SubjectVersions(ctx, subject)
	if err != nil {
		if notFound(c.wrap("", err)) {
			return nil, nil
		}
		return nil, c.wrap(fmt.Sprintf("read subject %s", subject), err)
	}
	sort.Ints(versions)
	var schemas []sr.SubjectSchema
	for _, v := range versions {
		s, err := c.sr.SchemaByVersion(ctx, subject, v)
		if err != nil {
			if notFound(c.wrap("", err)) {
				continue // deleted meanwhile
			}
			return nil, c.wrap(fmt.Sprintf("read subject %s version %d", subject, v), err)
		}
		schemas = append(schemas, s)
	}
	if len(schemas) == 0 {
		return nil, nil
	}
	rs := &RemoteSubject{Subject: subject}
	fetch := newRefFetcher(ctx, c)
	for _, s := range schemas {
		rv := &RemoteVersion{Version: s.Version, ID: s.ID, SchemaType: s.Type.String(), Text: s.Schema.Schema, References: s.References}
		rv.Kind, _ = wire.KindOfSchemaType(rv.SchemaType)
		rs.Versions = append(rs.Versions, rv)
		p, known := formats.ForKind(rv.Kind)
		if !known {
			rv.Problem = fmt.Sprintf("schema type %s is not one evtool knows (JSON, AVRO, PROTOBUF)", s.Type)
			continue
		}
		if _, refs := p.(format.RegistryCompiler); refs {
			if err := fetch.formatVersion(rv); err != nil {
				var e *Error
				if errors.As(err, &e) && !notFound(err) {
					return nil, err
				}
				rv.Problem = err.Error()
			}
			continue
		}
		bundler, ok := p.(format.RegistryBundler)
		if !ok {
			rv.Problem = fmt.Sprintf("schema type %s has no registry form evtool reads", s.Type)
			continue
		}
		doc, err := jsonstrict.Decode([]byte(s.Schema.Schema))
		if err != nil {
			rv.Problem = "the registry's schema is not valid JSON: " + err.Error()
			continue
		}
		if len(s.References) > 0 {
			root := &format.RegistryDoc{ID: fmt.Sprintf("%s:%d", subject, s.Version), Doc: doc}
			if err := fetch.attach(root, s.References, 0); err != nil {
				rv.Problem = err.Error()
				continue
			}
			b, bundled, err := bundler.RegistryInline(root)
			if err != nil {
				rv.Problem = "cannot inline its schema references: " + err.Error()
				continue
			}
			doc, rv.Bundled = b, bundled
		}
		rv.Doc = doc
		rv.Digest = jsonvalue.Digest(doc)
	}
	return rs, nil
}

// SubjectLevel returns the subject-level compatibility ("" when the subject
// has none of its own).
func (c *Client) SubjectLevel(ctx context.Context, subject string) (string, error) {
	res := c.sr.Compatibility(ctx, subject)
	if len(res) != 1 {
		return "", fmt.Errorf("read compatibility of %s: no answer", subject)
	}
	if res[0].Err != nil {
		err := c.wrap(fmt.Sprintf("read compatibility of %s", subject), res[0].Err)
		if notFound(err) {
			return "", nil
		}
		return "", err
	}
	return res[0].Level.String(), nil
}

// GlobalLevel returns the registry's default compatibility level.
func (c *Client) GlobalLevel(ctx context.Context) (string, error) {
	res := c.sr.Compatibility(ctx)
	if len(res) != 1 {
		return "", fmt.Errorf("read global compatibility: no answer")
	}
	if res[0].Err != nil {
		return "", c.wrap("read global compatibility", res[0].Err)
	}
	return res[0].Level.String(), nil
}

// SetLevel sets a subject's compatibility level.
func (c *Client) SetLevel(ctx context.Context, subject string, mode catalog.Mode) error {
	var lvl sr.CompatibilityLevel
	if err := lvl.UnmarshalText([]byte(mode)); err != nil {
		return err
	}
	res := c.sr.SetCompatibility(ctx, sr.SetCompatibility{Level: lvl}, subject)
	if len(res) != 1 {
		return fmt.Errorf("set compatibility of %s: no answer", subject)
	}
	return c.wrap(fmt.Sprintf("set compatibility of %s to %s", subject, mode), res[0].Err)
}

// RegisterSchema registers a schema of any type, with its references,
// under subject and returns its id.
func (c *Client) RegisterSchema(ctx context.Context, subject string, s sr.Schema) (int, error) {
	id, err := c.sr.RegisterSchema(ctx, subject, s, -1, -1)
	if err != nil {
		return 0, c.wrap(fmt.Sprintf("register a version of %s", subject), err)
	}
	return id, nil
}

// Lookup finds schema s (with its references) among subject's versions:
// Confluent's POST /subjects/{s}. It returns the version, or 0 when the
// subject or the schema is not there.
func (c *Client) Lookup(ctx context.Context, subject string, s sr.Schema) (version, id int, err error) {
	ss, err := c.sr.LookupSchema(ctx, subject, s)
	if err != nil {
		if werr := c.wrap("", err); notFound(werr) {
			return 0, 0, nil
		}
		return 0, 0, c.wrap(fmt.Sprintf("look up a schema in %s", subject), err)
	}
	return ss.Version, ss.ID, nil
}

// FetchAll reads the given subjects concurrently (absent subjects are left
// out of the result).
func (c *Client) FetchAll(ctx context.Context, subjects []string) (map[string]*RemoteSubject, error) {
	out := make(map[string]*RemoteSubject, len(subjects))
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, DefaultMaxConcurrent)
	)
	for _, s := range subjects {
		wg.Add(1)
		sem <- struct{}{}
		go func(s string) {
			defer wg.Done()
			defer func() { <-sem }()
			mu.Lock()
			failed := firstErr != nil
			mu.Unlock()
			if failed {
				return // one error is the answer: read no more
			}
			rs, err := c.Subject(ctx, s)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if rs != nil {
				out[s] = rs
			}
		}(s)
	}
	wg.Wait()
	return out, firstErr
}

// refFetcher reads the schemas Confluent schema references point at.
type refFetcher struct {
	ctx   context.Context
	c     *Client
	nodes map[string]*format.RegistryDoc
	refs  map[string]*wire.RemoteRef
}

func newRefFetcher(ctx context.Context, c *Client) *refFetcher {
	return &refFetcher{ctx: ctx, c: c, nodes: map[string]*format.RegistryDoc{}, refs: map[string]*wire.RemoteRef{}}
}

// maxRefs bounds the schemas one registry schema may reference, directly
// or not: a registry is outside input.
const maxRefs = 1000

// formatVersion reads the references of an Avro or Protobuf version and
// compiles it with them.
func (f *refFetcher) formatVersion(rv *RemoteVersion) error {
	var out []*wire.RemoteRef
	seen := map[string]bool{}
	if err := f.formatRefs(rv.Kind, rv.References, 0, seen, &out); err != nil {
		return err
	}
	rv.Refs = out
	s, err := wire.CompileRemote(rv.Kind, rv.Text, out, "")
	if err != nil {
		return fmt.Errorf("the registry's %s schema does not compile: %v", rv.Kind.Name(), err)
	}
	rv.Compiled = s
	rv.Digest = wire.DigestOf(s)
	return nil
}

func (f *refFetcher) formatRefs(kind format.Kind, refs []sr.SchemaReference, depth int, seen map[string]bool, out *[]*wire.RemoteRef) error {
	if depth > 32 {
		return fmt.Errorf("schema references nest more than 32 deep")
	}
	for _, r := range refs {
		if err := wire.CheckRefName(kind, r.Name); err != nil {
			return err
		}
		key := fmt.Sprintf("%s:%d", r.Subject, r.Version)
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(seen) > maxRefs {
			return fmt.Errorf("the schema references more than %d schemas", maxRefs)
		}
		rr, ok := f.refs[key]
		if !ok {
			ss, err := f.c.sr.SchemaByVersion(f.ctx, r.Subject, r.Version)
			if err != nil {
				return f.c.wrap(fmt.Sprintf("read reference %q (%s version %d)", wire.Clip(r.Name), wire.Clip(r.Subject), r.Version), err)
			}
			if k, _ := wire.KindOfSchemaType(ss.Type.String()); k != kind {
				return fmt.Errorf("reference %q (%s version %d) is %s, not %s", wire.Clip(r.Name), wire.Clip(r.Subject), r.Version, ss.Type, kind.Name())
			}
			rr = &wire.RemoteRef{Name: r.Name, Subject: r.Subject, Version: r.Version, SchemaType: ss.Type.String(), Text: ss.Schema.Schema, Deps: ss.References}
			f.refs[key] = rr
		}
		if err := f.formatRefs(kind, rr.Deps, depth+1, seen, out); err != nil {
			return err
		}
		if rr.Name != r.Name {
			// The same schema under another reference name.
			cp := *rr
			cp.Name = r.Name
			rr = &cp
		}
		*out = append(*out, rr)
	}
	return nil
}

func (f *refFetcher) attach(n *format.RegistryDoc, refs []sr.SchemaReference, depth int) error {
	if depth > 32 {
		return fmt.Errorf("schema references nest more than 32 deep")
	}
	n.Refs = map[string]*format.RegistryDoc{}
	for _, r := range refs {
		key := fmt.Sprintf("%s:%d", r.Subject, r.Version)
		t, ok := f.nodes[key]
		if !ok {
			ss, err := f.c.sr.SchemaByVersion(f.ctx, r.Subject, r.Version)
			if err != nil {
				return f.c.wrap(fmt.Sprintf("read reference %q (%s version %d)", r.Name, r.Subject, r.Version), err)
			}
			doc, err := jsonstrict.Decode([]byte(ss.Schema.Schema))
			if err != nil {
				return fmt.Errorf("reference %q (%s version %d) is not valid JSON: %v", r.Name, r.Subject, r.Version, err)
			}
			t = &format.RegistryDoc{ID: key, Name: r.Name, Doc: doc}
			f.nodes[key] = t
			if err := f.attach(t, ss.References, depth+1); err != nil {
				return err
			}
		}
		n.Refs[r.Name] = t
	}
	return nil
}
