package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
)

// diffKind is the format of compat diff's files when either is of a
// format whose provider compiles standalone files itself (Avro, Protobuf:
// a format.FileCompiler); both must then be of it (usage error otherwise,
// reported by loadDiffFormat). JSON Schema files are the catalog's to load.
func diffKind(args []string) (format.Kind, bool) {
	for _, a := range args {
		if p, ok := formats.ForFile(a); ok {
			if _, compiles := p.(format.FileCompiler); compiles {
				return p.Kind(), true
			}
		}
	}
	return "", false
}

type diffOptions struct {
	mode       catalog.Mode
	profile    catalog.Profile
	profileSet bool
	message    string
	samples    int
	samplesSet bool
	seed       int64
	format     report.Format
	protoPaths []string
}

// loadDiffFormat loads compat diff's Avro or Protobuf files and checks the
// flags that apply to their format.
func loadDiffFormat(args []string, kind format.Kind, o diffOptions) (engine.VersionPair, engine.Options, error) {
	var none engine.VersionPair
	for _, arg := range args {
		if k, _ := format.KindOf(arg); k != kind {
			return none, engine.Options{}, usagef("compat diff compares two files of one format: %s is %s but %s is not", args[0], kind.Name(), arg)
		}
	}
	p, _ := formats.ForKind(kind)
	profiles := p.CompatProfiles()
	profile := o.profile
	switch {
	case len(profiles.Names) == 0 && o.profileSet:
		return none, engine.Options{}, usagef("--profile %s: %s and takes no profile", o.profile, profiles.None)
	case len(profiles.Names) == 0:
		profile = ""
	case !o.profileSet:
		profile = catalog.Profile(profiles.Default)
	case !slices.Contains(profiles.Names, string(profile)):
		return none, engine.Options{}, usagef("--profile %s: %s profiles are %s", o.profile, kind.Name(), strings.Join(profiles.Names, " and "))
	}
	picker, picks := p.(format.MessagePicker)
	if !picks && o.message != "" {
		return none, engine.Options{}, usagef("--message selects a %s message; %s files have none", namesOf(isMessagePicker), kind.Name())
	}
	pl, paths := p.(format.PathLoader)
	if !paths && len(o.protoPaths) > 0 {
		return none, engine.Options{}, usagef("--proto-path resolves %s imports; %s files have none", namesOf(isPathLoader), kind.Name())
	}
	for _, d := range o.protoPaths {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return none, engine.Options{}, usagef("--proto-path %s: not a directory", d)
		}
	}
	load := compat.LoadFile
	if paths {
		load = func(file, message string) (*catalog.Version, error) {
			return loadPathFile(pl, kind, file, message, o.protoPaths)
		}
	}
	old, err := load(args[0], o.message)
	if err != nil {
		return none, engine.Options{}, err
	}
	message := o.message
	if message == "" && picks {
		// NEW's event message is OLD's by name, not NEW's first message.
		message = p.EventRecord(old.Compiled)
	}
	nw, err := load(args[1], message)
	if err != nil && o.message == "" && picks {
		// A new package (a.v1 -> a.v2) keeps the binary encoding: match
		// OLD's message by its short name, as a catalog's event.yaml
		// message: does, rather than refuse to compare.
		rec := p.EventRecord(old.Compiled)
		if n, serr := load(args[1], picker.ShortName(rec)); serr == nil {
			nw, err = n, nil
		}
	}
	if err != nil {
		return none, engine.Options{}, err
	}
	vp := engine.VersionPair{Pair: engine.Pair{OldFile: old.File, NewFile: nw.File, Subject: old.File + " -> " + nw.File}, Old: old, New: nw}
	return vp, diffEngineOptions(profile, o), nil
}

// diffEngineOptions are compat diff's options for the engine: --samples 0
// is rules only.
func diffEngineOptions(profile catalog.Profile, o diffOptions) engine.Options {
	opts := engine.Options{Profile: string(profile), Seed: uint64(o.seed)}
	if o.samplesSet {
		opts.Samples = o.samples
		if o.samples == 0 {
			opts.Samples = -1 // rules only
		}
	}
	return opts
}

// compatDiff compares a pair of files in the directions of --mode with
// the engine of their format, as compat check does, and prints the report.
func (a *app) compatDiff(vp engine.VersionPair, opts engine.Options, o diffOptions) error {
	cmp := compat.CompareOf(vp.New.Format)
	rep := &report.Report{Command: "compat diff", Checked: 1, Unit: "schema pair", Rules: rules.All(), ToolVersion: buildVersion()}
	for _, dir := range []engine.Direction{engine.Backward, engine.Forward} {
		if (dir == engine.Backward && !o.mode.Backward()) || (dir == engine.Forward && !o.mode.Forward()) {
			continue
		}
		rep.Findings = append(rep.Findings, compat.ComparePair(vp, dir, opts, cmp)...)
	}
	if err := report.Write(a.stdout, o.format, rep); err != nil {
		return err
	}
	if rep.Failed() {
		return errFindings
	}
	return nil
}

// loadPathFile loads a file whose imports resolve in search directories
// (a .proto file) for compat diff: imports resolve in the --proto-path
// directories, then in the catalog root the file is in (as lint and compat
// check load it), then in its own directory.
func loadPathFile(pl format.PathLoader, kind format.Kind, file, message string, protoPaths []string) (*catalog.Version, error) {
	dirs := append([]string{}, protoPaths...)
	root, err := catalogRootOf(file)
	if err != nil {
		return nil, err
	}
	if root != "" {
		dirs = append(dirs, root)
	}
	s, err := pl.LoadPath(file, message, dirs)
	if err != nil {
		return nil, err
	}
	return &catalog.Version{Format: kind, File: file, Number: 1, Compiled: s, Digest: catalog.DigestOf(s)}, nil
}

// isMessagePicker and isPathLoader say which formats compat diff's
// --message and --proto-path apply to.
func isMessagePicker(p format.Provider) bool { _, ok := p.(format.MessagePicker); return ok }
func isPathLoader(p format.Provider) bool    { _, ok := p.(format.PathLoader); return ok }

// namesOf names the formats whose providers answer yes, for a usage
// message ("Protobuf", "Avro or Protobuf").
func namesOf(yes func(format.Provider) bool) string {
	return formats.NamesWhere(yes, "or")
}

// catalogRootOf is the schemas directory of the nearest evtool.yaml in a
// directory above file, when file is inside it; "" otherwise. It is
// relative to the working directory when file is.
func catalogRootOf(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, catalog.ConfigName))
		if err != nil {
			if filepath.Dir(dir) == dir {
				return "", nil
			}
			continue
		}
		var cfg struct {
			Schemas string `yaml:"schemas"`
		}
		// A malformed evtool.yaml is lint's to report: the default
		// schemas directory is tried.
		_ = yaml.Unmarshal(data, &cfg)
		if cfg.Schemas == "" {
			cfg.Schemas = "schemas"
		}
		root := filepath.Join(dir, filepath.FromSlash(cfg.Schemas))
		if !inside(root, abs) || !inside(dir, root) {
			return "", nil
		}
		if !filepath.IsAbs(file) {
			if wd, err := os.Getwd(); err == nil {
				if r, err := filepath.Rel(wd, root); err == nil {
					return r, nil
				}
			}
		}
		return root, nil
	}
}

// inside: path p is dir or below it.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// rootVersion is a schema file compat diff loaded with its root (a JSON
// Schema file), as the version the engines compare.
func rootVersion(rp format.Provider, sf *format.RootFile) *catalog.Version {
	return &catalog.Version{Format: rp.Kind(), File: sf.File, Number: 1, Text: sf.Text, Doc: sf.Doc, Compiled: sf.Schema, Digest: sf.Digest, URL: sf.URL}
}

// rootLoader is a provider of the files compat diff loads with their root
// (format.RootCompiler: JSON Schema), those no FileCompiler claims.
type rootLoader interface {
	format.Provider
	format.RootFileLoader
}

// rootProvider is the provider of the files compat diff loads with their
// root.
func rootProvider() (rootLoader, error) {
	for _, p := range formats.All() {
		_, fromRoot := p.(format.RootCompiler)
		if rl, ok := p.(rootLoader); ok && fromRoot {
			return rl, nil
		}
	}
	return nil, errors.New("compat diff: no format compiles schema files from their root")
}

// rootFileOptions are how compat diff loads a file with its root: $refs
// reach the files of the catalog it is in (the nearest evtool.yaml above
// it), or else of its own directory.
func rootFileOptions(assertFormats bool, dialect string) format.RootFileOptions {
	return format.RootFileOptions{AssertFormats: assertFormats, Dialect: dialect, Marker: catalog.ConfigName}
}

// rootDialect is the dialect --default-draft names for rp's files ("" when
// rp has no dialects and the flag is not set).
func rootDialect(rp format.Provider, s string) (string, error) {
	d, ok := rp.(format.Dialects)
	if !ok {
		if s != "" {
			return "", fmt.Errorf("%s files have no dialects", rp.Kind().Name())
		}
		return "", nil
	}
	dl, err := d.ParseDialect(s)
	return dl.Name, err
}

// dialects are the dialects of the files compat diff loads with their
// root (JSON Schema's drafts), for --default-draft's default and help;
// nil when that format has none.
func dialects() format.Dialects {
	rp, err := rootProvider()
	if err != nil {
		return nil
	}
	d, _ := rp.(format.Dialects)
	return d
}

// defaultDialect is the default of --default-draft.
func defaultDialect() string {
	if d := dialects(); d != nil {
		return d.DefaultDialect().Name
	}
	return ""
}

// dialectNames lists the values of --default-draft.
func dialectNames() string {
	if d := dialects(); d != nil {
		return format.DialectNames(d)
	}
	return ""
}

// rootProfile checks that --profile is one of rp's profiles, naming the
// format it belongs to when it is another's.
func rootProfile(rp format.Provider, profile catalog.Profile) error {
	names := rp.CompatProfiles().Names
	if slices.Contains(names, string(profile)) {
		return nil
	}
	for _, p := range formats.All() {
		if slices.Contains(p.CompatProfiles().Names, string(profile)) {
			return usagef("--profile %s is a %s profile; for %s use %s", profile, p.Kind().Name(), rp.Kind().Name(), strings.Join(names, " or "))
		}
	}
	return usagef("--profile %s: for %s use %s", profile, rp.Kind().Name(), strings.Join(names, " or "))
}

// extsOf are the schema file extensions of the formats whose providers
// answer yes, for a usage message (".proto").
func extsOf(yes func(format.Provider) bool) string {
	var exts []string
	for _, p := range formats.All() {
		if yes(p) {
			exts = append(exts, p.Kind().Ext())
		}
	}
	return formats.List(exts, "or")
}

// profileNames are the compat profiles every format's provider declares,
// for --profile's completion.
func profileNames() []string {
	var out []string
	for _, p := range formats.All() {
		out = append(out, p.CompatProfiles().Names...)
	}
	return out
}
