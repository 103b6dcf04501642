package main

import (
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
	"github.com/evtool/evtool/format/protobuf"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
)

// diffKind is the format of compat diff's files when either is Avro or
// Protobuf (both must then be of it; usage error otherwise, reported by
// compatDiffFormat).
func diffKind(args []string) (format.Kind, bool) {
	for _, a := range args {
		if k, ok := format.KindOf(a); ok && k != format.JSONSchema {
			return k, true
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
	profile := o.profile
	switch {
	case kind == format.Avro && o.profileSet:
		return none, engine.Options{}, usagef("--profile %s: Avro compatibility is the specification's schema resolution and takes no profile", o.profile)
	case kind == format.Avro:
		profile = ""
	case !o.profileSet:
		profile = catalog.DefaultProfileOf(format.Protobuf)
	case !profile.Protobuf():
		return none, engine.Options{}, usagef("--profile %s: Protobuf profiles are wire and wire-json", o.profile)
	}
	if kind != format.Protobuf && o.message != "" {
		return none, engine.Options{}, usagef("--message selects a Protobuf message; %s files have none", kind.Name())
	}
	if kind != format.Protobuf && len(o.protoPaths) > 0 {
		return none, engine.Options{}, usagef("--proto-path resolves Protobuf imports; %s files have none", kind.Name())
	}
	for _, d := range o.protoPaths {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return none, engine.Options{}, usagef("--proto-path %s: not a directory", d)
		}
	}
	load := compat.LoadFile
	if kind == format.Protobuf {
		load = func(file, message string) (*catalog.Version, error) {
			return loadProtoFile(file, message, o.protoPaths)
		}
	}
	old, err := load(args[0], o.message)
	if err != nil {
		return none, engine.Options{}, err
	}
	message := o.message
	if message == "" && kind == format.Protobuf {
		// NEW's event message is OLD's by name, not NEW's first message.
		message = formats.Of(old.Compiled).EventRecord(old.Compiled)
	}
	nw, err := load(args[1], message)
	if err != nil && o.message == "" && kind == format.Protobuf {
		// A new package (a.v1 -> a.v2) keeps the binary encoding: match
		// OLD's message by its short name, as a catalog's event.yaml
		// message: does, rather than refuse to compare.
		rec := formats.Of(old.Compiled).EventRecord(old.Compiled)
		if n, serr := load(args[1], rec[strings.LastIndex(rec, ".")+1:]); serr == nil {
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
	opts := engine.Options{Profile: profile, Seed: uint64(o.seed)}
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

// loadProtoFile loads a .proto file for compat diff: imports resolve in
// the --proto-path directories, then in the catalog root the file is in
// (as lint and compat check load it), then in its own directory.
func loadProtoFile(file, message string, protoPaths []string) (*catalog.Version, error) {
	dirs := append([]string{}, protoPaths...)
	root, err := catalogRootOf(file)
	if err != nil {
		return nil, err
	}
	if root != "" {
		dirs = append(dirs, root)
	}
	s, err := protobuf.LoadFile(file, message, dirs)
	if err != nil {
		return nil, err
	}
	return &catalog.Version{Format: format.Protobuf, File: file, Number: 1, Compiled: s, Digest: catalog.DigestOf(s)}, nil
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

// jsonVersion is a JSON Schema file compat diff loaded, as the version the
// engines compare.
func jsonVersion(sf *catalog.SchemaFile) *catalog.Version {
	return &catalog.Version{Format: format.JSONSchema, File: sf.File, Number: 1, Text: sf.Text, Doc: sf.Doc, Schema: sf.Schema, Digest: sf.Digest, URL: sf.URL}
}
