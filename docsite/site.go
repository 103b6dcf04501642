// Package docsite generates the static documentation site of a catalog
// (`evtool docs`): an index of event types, a page per type and per
// version with its field table and examples, and a page per pair of
// consecutive versions with the fields added, removed and changed and the
// compatibility gate's findings and counterexamples (package compat).
// Field tables are one kind of row for every format, listed by the
// format's provider (format.FieldDocumenter).
//
// The site needs no server and no framework: plain HTML with relative
// links (it works from file://), one stylesheet, and one small script
// that searches type and field names in an index shipped as a script
// (search-index.js, for file://) and as JSON (search-index.json, for other
// tools). Everything from the catalog is HTML-escaped by html/template,
// and the search script builds its results with textContent only. The
// output is deterministic: sorted, no timestamps, the same bytes for the
// same catalog.
package docsite

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/rogpeppe/go-internal/diff"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/compat"
	"github.com/evtool/evtool/compat/engine"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/report"
)

// Options tune the site.
type Options struct {
	// Title heads every page; default "<catalog directory name> events".
	Title string
	// Seed and Samples configure the compatibility check's witness search
	// as `evtool compat check --seed --samples` do (Seed 0 means 1, the
	// command's default; Samples 0 means evtool.yaml's, else 24).
	Seed    int64
	Samples int
	// Consumers are the catalog's consumer contracts: each type's page
	// lists its consumers, and field tables say who reads each field.
	Consumers []*consumers.Contract
	// Context, when set, stops the compatibility check once done (a
	// signal): Build then returns an error and no site.
	Context context.Context
}

// Site is the generated files by slash path.
type Site struct {
	Files map[string][]byte
}

// Paths returns the file paths in order.
func (s *Site) Paths() []string { return slices.Sorted(maps.Keys(s.Files)) }

// model types -------------------------------------------------------------

type siteModel struct {
	Title      string
	CatalogDir string
	DataSchema string
	Mode       string
	Profile    string
	Types      []*typeModel
	// Warnings are catalog-level compat findings (stale ignore entries).
	Warnings []findingView
	Fields   int
	Versions int
}

type typeModel struct {
	Name, Dir    string
	Summary      string
	Description  string
	Owner, Topic string
	PartitionKey string
	Source       string
	Mode         string
	Profile      string
	Directions   string
	Versions     []*versionModel
	Diffs        []*diffModel
	Latest       *versionModel
	Errors       int
	Warnings     int
	Ignored      int
	Checked      bool
	MetaFile     string
	// Consumers read the type (from their contracts).
	Consumers []consumerView
}

type versionModel struct {
	Type        *typeModel
	Number      int
	File        string
	DataSchema  string
	Deprecated  bool
	Title       string
	Description string
	Root        Field
	Fields      []Field
	Truncated   bool
	Examples    []exampleView
	Schema      string
	// Format names the schema language ("JSON Schema", "Avro",
	// "Protobuf"); ContentType is the data's default content type.
	Format      string
	ContentType string
	Page        string
	Prev, Next  *versionModel
	DiffIn      *diffModel // from the previous version
}

type exampleView struct {
	Name, File, JSON string
}

type diffModel struct {
	Type     *typeModel
	Old, New *versionModel
	Page     string
	Changes  []Change
	Added    int
	Removed  int
	Changed  int
	// Findings of this pair; Earlier those of the new version against
	// versions before Old (transitive modes).
	Findings   []findingView
	Earlier    []findingView
	Directions []directionView
	SchemaDiff []diffLine
	Prev, Next *diffModel
}

type directionView struct {
	Name, Meaning string
	Required      bool
	Errors        int
	Warnings      int
}

type diffLine struct {
	Class, Text string
}

type findingView struct {
	Severity       string
	Rule           string
	Summary        string
	Direction      string
	DirectionText  string
	Message        string
	Pair           string
	OldPointer     string
	NewPointer     string
	OldValue       string
	NewValue       string
	Counterexample string
	Ignored        string
	Fingerprint    string
	Location       string
}

// Build generates the site of a catalog in memory. Versions that did not
// compile are an error: document a catalog that `evtool lint` accepts.
func Build(cat *catalog.Catalog, opts Options) (*Site, error) {
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			if v.Compiled == nil {
				return nil, fmt.Errorf("%s: the schema did not compile; run evtool lint", v.File)
			}
		}
	}
	m, err := buildModel(cat, opts)
	if err != nil {
		return nil, err
	}
	return render(m)
}

func buildModel(cat *catalog.Catalog, opts Options) (*siteModel, error) {
	title := opts.Title
	if title == "" {
		name := filepath.Base(cat.Dir)
		if abs, err := filepath.Abs(cat.Dir); err == nil {
			name = filepath.Base(abs)
		}
		title = name + " events"
	}
	mode, profile := cat.Config.Compat.Mode, cat.Config.Compat.Profile
	if mode == "" {
		mode = catalog.DefaultMode
	}
	if profile == "" {
		profile = catalog.DefaultProfile
	}
	m := &siteModel{Title: title, CatalogDir: filepath.ToSlash(filepath.Base(absOr(cat.Dir))),
		DataSchema: cat.Template.String(), Mode: string(mode), Profile: string(profile)}

	// The gate, exactly as `evtool compat check` runs it.
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	copts := compat.CheckOptions{Seed: uint64(seed), Context: opts.Context}
	if opts.Samples != 0 {
		copts.Samples, copts.SamplesSet = opts.Samples, true
	}
	res := compat.CheckCatalog(cat, nil, copts)
	if res.Interrupted {
		return nil, fmt.Errorf("interrupted while checking the compatibility of %s: %d of %d type(s) checked", filepath.Clean(cat.Dir), res.TypesChecked, len(cat.Types))
	}
	findings := compat.ApplyIgnores(res.Findings, cat.Config, cat.ConfigFile)
	byType := map[string][]report.Finding{}
	for _, f := range findings {
		if f.Type == "" {
			m.Warnings = append(m.Warnings, viewFinding(cat, f))
			continue
		}
		byType[f.Type] = append(byType[f.Type], f)
	}

	files, closeFiles := fieldFiles(cat)
	defer closeFiles()
	types := append([]*catalog.EventType(nil), cat.Types...)
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	for _, t := range types {
		tm := buildType(cat, files, t, byType[t.Name])
		addConsumers(tm, t, opts.Consumers)
		m.Types = append(m.Types, tm)
		m.Versions += len(tm.Versions)
		if tm.Latest != nil {
			m.Fields += len(tm.Latest.Fields)
		}
	}
	return m, nil
}

func absOr(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// relToCatalog shows a catalog file relative to the catalog directory,
// so pages do not depend on where evtool ran.
func relToCatalog(cat *catalog.Catalog, file string) string {
	if file == "" {
		return ""
	}
	if r, err := filepath.Rel(cat.Dir, file); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}

func buildType(cat *catalog.Catalog, files format.FieldDocFiles, t *catalog.EventType, findings []report.Finding) *typeModel {
	mode, profile := cat.Compat(t)
	tm := &typeModel{
		Name: t.Name, Dir: "types/" + t.Name,
		Description: strings.TrimSpace(t.Meta.Description),
		Summary:     firstSentence(t.Meta.Description),
		Owner:       t.Meta.Owner, Topic: t.Meta.Topic, PartitionKey: t.Meta.PartitionKey,
		Source: t.Meta.Source, Mode: string(mode), Profile: string(profile),
		MetaFile: relToCatalog(cat, t.MetaFile),
		Checked:  mode != catalog.ModeNone && len(t.Versions) > 1,
	}
	switch {
	case mode == catalog.ModeNone:
		tm.Directions = "not checked"
	case mode.Backward() && mode.Forward():
		tm.Directions = "backward and forward"
	case mode.Backward():
		tm.Directions = "backward"
	default:
		tm.Directions = "forward"
	}
	for _, v := range t.Versions {
		vm := &versionModel{Type: tm, Number: v.Number, File: relToCatalog(cat, v.File),
			DataSchema: cat.DataSchema(t.Name, v.Number), Deprecated: t.Deprecated(v.Number),
			Format: v.Format.Name(), ContentType: v.Compiled.DefaultContentType(),
			Page: fmt.Sprintf("v%d.html", v.Number)}
		vm.Root, vm.Fields, vm.Truncated = fieldTable(files, v.Compiled)
		vm.Title, vm.Description = vm.Root.Title, vm.Root.Description
		// A JSON text (JSON Schema, Avro) indented, any other (.proto) as
		// written: prettyJSON leaves text that is not JSON alone.
		vm.Schema = prettyJSON(v.Text)
		for _, e := range v.Examples {
			base := path.Base(filepath.ToSlash(e.File))
			vm.Examples = append(vm.Examples, exampleView{Name: strings.TrimSuffix(base, ".json"),
				File: relToCatalog(cat, e.File), JSON: prettyJSON(e.Text)})
		}
		if n := len(tm.Versions); n > 0 {
			vm.Prev = tm.Versions[n-1]
			tm.Versions[n-1].Next = vm
		}
		tm.Versions = append(tm.Versions, vm)
	}
	if n := len(tm.Versions); n > 0 {
		tm.Latest = tm.Versions[n-1]
	}
	for _, f := range findings {
		switch {
		case f.Ignored != "":
			tm.Ignored++
		case f.Severity == report.SeverityError:
			tm.Errors++
		case f.Severity == report.SeverityWarning:
			tm.Warnings++
		}
	}
	for i := 1; i < len(tm.Versions); i++ {
		o, n := tm.Versions[i-1], tm.Versions[i]
		d := &diffModel{Type: tm, Old: o, New: n, Page: fmt.Sprintf("v%d-v%d.html", o.Number, n.Number)}
		d.Changes = diffFields(o.Fields, n.Fields)
		for _, c := range d.Changes {
			switch c.Kind {
			case "added":
				d.Added++
			case "removed":
				d.Removed++
			default:
				d.Changed++
			}
		}
		for _, f := range findings {
			if f.NewVersion != n.Number {
				continue
			}
			fv := viewFinding(cat, f)
			if f.OldVersion == o.Number {
				d.Findings = append(d.Findings, fv)
			} else {
				d.Earlier = append(d.Earlier, fv)
			}
		}
		for _, dir := range []struct {
			name, meaning string
			on            bool
		}{
			{"backward", "consumers on v" + fmt.Sprint(n.Number) + " read events written with v" + fmt.Sprint(o.Number), mode.Backward()},
			{"forward", "consumers still on v" + fmt.Sprint(o.Number) + " read events written with v" + fmt.Sprint(n.Number), mode.Forward()},
		} {
			dv := directionView{Name: dir.name, Meaning: dir.meaning, Required: dir.on && mode != catalog.ModeNone}
			for _, f := range d.Findings {
				if f.Direction != dir.name || f.Ignored != "" {
					continue
				}
				if f.Severity == string(report.SeverityError) {
					dv.Errors++
				} else if f.Severity == string(report.SeverityWarning) {
					dv.Warnings++
				}
			}
			d.Directions = append(d.Directions, dv)
		}
		d.SchemaDiff = diffLines(diff.Diff(o.File, []byte(o.Schema), n.File, []byte(n.Schema)))
		if k := len(tm.Diffs); k > 0 {
			d.Prev = tm.Diffs[k-1]
			tm.Diffs[k-1].Next = d
		}
		n.DiffIn = d
		tm.Diffs = append(tm.Diffs, d)
	}
	return tm
}

func viewFinding(cat *catalog.Catalog, f report.Finding) findingView {
	fv := findingView{Severity: string(f.Severity), Rule: f.Rule, Direction: strings.ToLower(f.Direction), Message: f.Message,
		OldPointer: f.OldPointer, NewPointer: f.NewPointer, Ignored: f.Ignored, Fingerprint: f.Fingerprint}
	if r, ok := compat.LookupRule(f.Rule); ok {
		fv.Summary = r.Summary
	}
	switch fv.Direction {
	case string(engine.Backward):
		fv.DirectionText = "backward: the new schema reads old events"
	case string(engine.Forward):
		fv.DirectionText = "forward: the old schema reads new events"
	}
	if f.OldVersion > 0 && f.NewVersion > 0 {
		fv.Pair = fmt.Sprintf("v%d → v%d", f.OldVersion, f.NewVersion)
	}
	if f.OldValue != nil {
		fv.OldValue = jsonText(f.OldValue)
	}
	if f.NewValue != nil {
		fv.NewValue = jsonText(f.NewValue)
	}
	if len(f.Counterexample) > 0 {
		fv.Counterexample = prettyJSON(f.Counterexample)
	}
	if f.File != "" {
		fv.Location = relToCatalog(cat, f.File)
		if f.Line > 0 {
			fv.Location += fmt.Sprintf(":%d", f.Line)
		}
	}
	return fv
}

func prettyJSON(text []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(text), "", "  "); err != nil {
		return string(text)
	}
	return b.String()
}

func diffLines(d []byte) []diffLine {
	if len(d) == 0 {
		return nil
	}
	var out []diffLine
	for _, l := range strings.Split(strings.TrimSuffix(string(d), "\n"), "\n") {
		c := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			c = "hdr"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		out = append(out, diffLine{Class: c, Text: l})
	}
	return out
}

// firstSentence is the first sentence of a description (up to 200
// characters), for tables.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && (i+1 == len(s) || s[i+1] == ' ') {
			s = s[:i+1]
			break
		}
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// search index ------------------------------------------------------------

type searchEntry struct {
	Kind     string `json:"k"`           // "type" or "field"
	Name     string `json:"n"`           // type name or field path
	Type     string `json:"t"`           // the type
	Versions []int  `json:"v,omitempty"` // versions having the field
	URL      string `json:"u"`           // relative to the site root
	Text     string `json:"d,omitempty"` // a short description
}

func searchIndex(m *siteModel) []searchEntry {
	var out []searchEntry
	for _, t := range m.Types {
		out = append(out, searchEntry{Kind: "type", Name: t.Name, Type: t.Name, URL: typeURL(t), Text: t.Summary})
		type fieldAt struct {
			versions []int
			url      string
			text     string
		}
		fields := map[string]*fieldAt{}
		for _, v := range t.Versions {
			for _, f := range v.Fields {
				fa := fields[f.Path]
				if fa == nil {
					fa = &fieldAt{}
					fields[f.Path] = fa
				}
				if n := len(fa.versions); n == 0 || fa.versions[n-1] != v.Number {
					fa.versions = append(fa.versions, v.Number)
				}
				fa.url = t.Dir + "/" + v.Page + "#" + f.Anchor
				fa.text = firstSentence(firstNonEmpty(f.Title, f.Description))
			}
		}
		for _, p := range slices.Sorted(maps.Keys(fields)) {
			fa := fields[p]
			out = append(out, searchEntry{Kind: "field", Name: p, Type: t.Name, Versions: fa.versions, URL: escapeURL(fa.url), Text: fa.text})
		}
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func typeURL(t *typeModel) string { return escapeURL(t.Dir + "/index.html") }

// escapeURL escapes each path segment of a relative URL (the fragment is
// made of safe characters already).
func escapeURL(u string) string {
	p, frag, hasFrag := strings.Cut(u, "#")
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	out := strings.Join(segs, "/")
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// writing -----------------------------------------------------------------

// Marker is the file that marks a directory as written by evtool docs; it
// lists the generated files, so a later run removes the ones it no longer
// generates and nothing else.
const Marker = ".evtool-docs"

// ErrNotSite reports an output directory with files evtool did not write.
var ErrNotSite = errors.New("the output directory is not empty and was not written by evtool docs")

// Write writes the site into dir, creating it. A non-empty dir must hold
// an earlier site (the marker file); files of that site the new one lacks
// are removed.
func (s *Site) Write(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	case len(entries) > 0:
		old, err := os.ReadFile(filepath.Join(dir, Marker))
		if err != nil {
			return fmt.Errorf("%s: %w (it has no %s file); choose an empty or new directory", dir, ErrNotSite, Marker)
		}
		for _, p := range strings.Split(string(old), "\n") {
			if p == "" || strings.HasPrefix(p, "#") || !filepath.IsLocal(filepath.FromSlash(p)) {
				continue
			}
			if _, keep := s.Files[p]; keep {
				continue
			}
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			// Remove directories the site no longer uses, if empty.
			for d := filepath.Dir(full); d != filepath.Clean(dir) && strings.HasPrefix(d, filepath.Clean(dir)); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
		}
	}
	for _, p := range s.Paths() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, s.Files[p], 0o644); err != nil {
			return err
		}
	}
	var manifest strings.Builder
	manifest.WriteString("# Files written by evtool docs; a later run removes those it no longer writes.\n")
	for _, p := range s.Paths() {
		manifest.WriteString(p + "\n")
	}
	return os.WriteFile(filepath.Join(dir, Marker), []byte(manifest.String()), 0o644)
}
