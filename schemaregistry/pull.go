package schemaregistry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// PullOptions configure Pull.
type PullOptions struct {
	SyncOptions
	// Out is the directory to write the catalog to; it must not exist or
	// be empty.
	Out string
	// Warn receives what was skipped and why.
	Warn func(msg string)
	// Draft is what the registry reads a schema without `$schema` as
	// (zero: RegistryDraft); pulled schemas name it explicitly,
	// since evtool reads such schemas as 2020-12.
	Draft format.Dialect
}

// RegistryDraft is the draft Confluent's and Karapace's registries read a
// JSON Schema without `$schema` as (the bundled format's
// RegistryDefault).
var RegistryDraft = registryDefault()

// registryDefault is the dialect a registry reads a schema naming none as.
func registryDefault() format.Dialect {
	if b := wire.Bundler(); b != nil {
		return b.RegistryDefault()
	}
	return format.Dialect{}
}

// PullResult says what Pull wrote.
type PullResult struct {
	Types, Versions int
	Catalog         *catalog.Catalog
}

// Pull writes a catalog holding the registry's subjects of every format:
// evtool.yaml (the registry's global level as compat.mode, and a
// registry section with the URL and subject strategy, never credentials),
// schemas/<type>/v<N> with the format's extension (format.Kind.Ext) for
// each active version in order, and event.yaml where a type needs a topic
// (topic-type strategy) or its own compatibility level. A JSON Schema's
// references are inlined; an Avro or Protobuf version's referenced schemas
// are written as shared files of the root. The result is loaded back as a
// catalog; any problem is returned as the error.
func Pull(ctx context.Context, c *Client, opts PullOptions) (*PullResult, error) {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if opts.Out == "" {
		return nil, errors.New("pull needs an output directory (--out)")
	}
	draft := RegistryDraft
	if opts.Draft.Name != "" {
		draft = opts.Draft
	}
	if opts.Strategy == "" {
		opts.Strategy = StrategyType
	}
	if entries, err := os.ReadDir(opts.Out); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: pull writes a new catalog into an empty or missing directory (use `evtool registry diff` to compare with an existing one)", opts.Out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	subjects, err := c.Subjects(ctx, opts.SubjectPrefix)
	if err != nil {
		return nil, err
	}
	remote, err := c.FetchAll(ctx, subjects)
	if err != nil {
		return nil, err
	}
	global, err := c.GlobalLevel(ctx)
	if err != nil {
		warn(fmt.Sprintf("cannot read the registry's global compatibility level (%v); evtool.yaml gets the default mode", err))
		global = ""
	}
	if _, err := catalog.ParseMode(global); err != nil {
		global = ""
	}

	files := map[string][]byte{}
	res := &PullResult{}
	types := map[string]string{}
	referenced := referencedSubjects(remote, nil)
	for _, s := range subjects {
		rs := remote[s]
		if rs == nil {
			continue // no active versions
		}
		if k := rs.Kind(); referenced[s] && (k == "" || wire.WithRefs(k)) {
			// A shared named type or imported file: written where the
			// versions that reference it need it.
			warn(fmt.Sprintf("subject %s holds schemas other subjects reference: not a type; they are written as shared files where those subjects need them", s))
			continue
		}
		typ, topic, ok := opts.Strategy.Split(s, nil)
		if !ok && opts.Strategy == StrategyTopic {
			warn(fmt.Sprintf("skipped subject %s: under the topic subject strategy a subject names a topic, not a type, so pull cannot name its type (pull with --subject-strategy type or topic-type)", s))
			continue
		}
		if !ok {
			warn(fmt.Sprintf("skipped subject %s: it is not a valid event type name under the %s subject strategy", s, opts.Strategy))
			continue
		}
		kind := rs.Kind()
		if kind == "" {
			warn(fmt.Sprintf("skipped subject %s: its versions are not all of one schema type evtool knows (%s)", s, schemaTypes(rs)))
			continue
		}
		if other, dup := types[typ]; dup {
			warn(fmt.Sprintf("skipped subject %s: type %s was already pulled from subject %s", s, typ, other))
			continue
		}
		var bad string
		for _, v := range rs.Versions {
			if v.Problem != "" || (v.Doc == nil && v.Compiled == nil) {
				bad = fmt.Sprintf("version %d: %s", v.Version, v.Problem)
				break
			}
		}
		var own map[string][]byte
		if bad == "" && wire.WithRefs(kind) {
			var err error
			if own, err = formatFiles(rs, dirOf(typ), files); err != nil {
				bad = err.Error()
			}
		}
		if bad != "" {
			warn(fmt.Sprintf("skipped subject %s: %s", s, bad))
			continue
		}
		types[typ] = s
		dir := "schemas/" + typ
		for i, v := range rs.Versions {
			if v.Version != i+1 {
				warn(fmt.Sprintf("subject %s has versions %s (some were deleted); they are written as v1..v%d in order", s, versionList(rs.Versions), len(rs.Versions)))
				break
			}
		}
		for i, v := range rs.Versions {
			if wire.WithRefs(kind) {
				res.Versions++
				continue
			}
			text, err := schemaFileText(v, draft)
			if err != nil {
				return nil, fmt.Errorf("subject %s version %d: %w", s, v.Version, err)
			}
			files[fmt.Sprintf("%s/v%d%s", dir, i+1, v.Kind.Ext())] = text
			res.Versions++
		}
		maps.Copy(files, own)
		level, err := c.SubjectLevel(ctx, s)
		if err != nil {
			return nil, err
		}
		if level == global {
			level = ""
		}
		if meta := eventYAML(topic, level); meta != nil {
			files[dir+"/event.yaml"] = meta
		}
		res.Types++
	}
	files[catalog.ConfigName] = configYAML(c.Display, cleanURL(c), global, opts.Strategy, draft)

	if err := writeFiles(opts.Out, files); err != nil {
		return nil, err
	}
	// The catalog root even when no subject became a type: an empty
	// catalog, which loads.
	if err := os.MkdirAll(filepath.Join(opts.Out, "schemas"), 0o755); err != nil {
		return nil, err
	}
	cat, err := catalog.Load(opts.Out)
	if err != nil {
		return nil, fmt.Errorf("the pulled catalog in %s does not load cleanly (run `evtool lint --dir %s`):\n%w", opts.Out, opts.Out, err)
	}
	res.Catalog = cat
	return res, nil
}

func dirOf(typ string) string { return "schemas/" + typ }

func schemaTypes(rs *RemoteSubject) string {
	var out []string
	for _, v := range rs.Versions {
		if !slices.Contains(out, v.SchemaType) {
			out = append(out, v.SchemaType)
		}
	}
	return strings.Join(out, ", ")
}

// formatFiles are the files of an Avro or Protobuf subject: v<N>.avsc or
// v<N>.proto as the registry has them, and the schemas they reference as
// shared files of the catalog root (Avro named types as
// common/<full name>.avsc, Protobuf imports at their import path;
// well-known types are the compiler's own). Reference names were checked
// when read (checkRefName), so every path stays inside the root; a path
// that already holds another schema (written for another subject) is an
// error, never overwritten.
func formatFiles(rs *RemoteSubject, dir string, have map[string][]byte) (map[string][]byte, error) {
	own := map[string][]byte{}
	// Paths by their lower case: two that differ in case only are one
	// file on a case-insensitive file system, so one would overwrite the
	// other.
	folded := map[string]string{}
	for rel := range have {
		folded[strings.ToLower(rel)] = rel
	}
	put := func(rel string, text []byte, what string) error {
		if other, ok := folded[strings.ToLower(rel)]; ok && other != rel {
			return fmt.Errorf("%s would be written to %s, and %s is written too: the two paths differ in case only, one file on a case-insensitive file system", what, rel, other)
		}
		folded[strings.ToLower(rel)] = rel
		if prev, ok := have[rel]; ok && !bytes.Equal(prev, text) {
			return fmt.Errorf("%s would be written to %s, which holds another schema", what, rel)
		}
		if prev, ok := own[rel]; ok && !bytes.Equal(prev, text) {
			return fmt.Errorf("%s would be written to %s, which holds another schema (two versions reference different schemas under one name)", what, rel)
		}
		own[rel] = text
		return nil
	}
	for i, v := range rs.Versions {
		if err := put(fmt.Sprintf("%s/v%d%s", dir, i+1, v.Kind.Ext()), format.EnsureNL([]byte(v.Text)), fmt.Sprintf("version %d", v.Version)); err != nil {
			return nil, err
		}
		for _, r := range v.Refs {
			if err := wire.CheckRefName(v.Kind, r.Name); err != nil {
				return nil, err
			}
			p, _ := formats.ForKind(v.Kind) // CheckRefName found it
			rel, ok := p.RefFile(r.Name)
			if !ok {
				continue
			}
			what := fmt.Sprintf("reference %q (%s version %d)", wire.Clip(r.Name), wire.Clip(r.Subject), r.Version)
			if catalog.LooksLikeVersion(path.Base(rel)) {
				return nil, fmt.Errorf("%s is named like a version file (%s)", what, rel)
			}
			if err := put(rel, format.EnsureNL([]byte(r.Text)), what); err != nil {
				return nil, err
			}
		}
	}
	return own, nil
}

// schemaFileText is what a version's file holds, as its format's
// provider writes a registry's schema in a catalog read as draft
// (format.RegistryBundler.RegistryCatalogText).
func schemaFileText(v *RemoteVersion, draft format.Dialect) ([]byte, error) {
	p, _ := formats.ForKind(v.Kind)
	b, ok := p.(format.RegistryBundler)
	if !ok {
		return nil, fmt.Errorf("%s schemas have no catalog text of their own", v.Kind.Name())
	}
	return b.RegistryCatalogText(v.Text, v.Doc, v.Bundled, draft)
}

// namesRegistryDraft reports whether local is remote with only its
// dialect (JSON Schema's "$schema") naming RegistryDraft added, as pull
// writes it: the same schema to a registry that reads remote as that
// draft.
func namesRegistryDraft(local, remote any) bool {
	b := wire.Bundler()
	if b == nil {
		return false
	}
	bare, url, _, lok := b.RegistryUndialected(local)
	_, _, rnamed, rok := b.RegistryUndialected(remote)
	if !lok || !rok || rnamed {
		return false
	}
	if d, err := wire.ParseDialect(url); url == "" || err != nil || d.Name != RegistryDraft.Name {
		return false
	}
	return jsonvalue.Digest(bare) == jsonvalue.Digest(remote)
}

func eventYAML(topic, level string) []byte {
	if topic == "" && level == "" {
		return nil
	}
	var b strings.Builder
	if topic != "" {
		fmt.Fprintf(&b, "topic: %s\n", topic)
	}
	if level != "" {
		fmt.Fprintf(&b, "compat:\n  mode: %s\n", level)
	}
	return []byte(b.String())
}

func configYAML(display, clean, global string, st Strategy, draft format.Dialect) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Pulled from %s by `evtool registry pull`.\n", display)
	b.WriteString("version: 1\nschemas: schemas\n")
	fmt.Fprintf(&b, "# The registry reads a schema without $schema as this draft; pulled schemas name it.\ndefault_draft: %s\n", wire.YAMLString(draft.Name))
	if global != "" {
		fmt.Fprintf(&b, "compat:\n  mode: %s\n", global)
	}
	fmt.Fprintf(&b, "registry:\n  url: %s\n  subject_strategy: %s\n", wire.YAMLString(clean), st)
	return []byte(b.String())
}

// cleanURL is the registry URL without credentials or query, for
// evtool.yaml.
func cleanURL(c *Client) string {
	u, err := url.Parse(c.Display)
	if err != nil {
		return ""
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}

// writeFiles writes files (slash paths relative to dir), creating
// directories as needed.
func writeFiles(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
