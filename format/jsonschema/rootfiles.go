package jsonschema

import (
	"slices"
	"strings"
	"sync"

	"github.com/evtool/evtool/format"
)

var (
	_ format.RootFiler = Files(nil)
	_ format.RootFiles = (*rootFiles)(nil)
)

// RootFiles indexes the files for the catalog's questions that are not a
// compile (the files' display paths and declared ids, on first use).
func (files Files) RootFiles() format.RootFiles { return &rootFiles{files: files} }

// rootFiles are Files as format.RootFiles.
type rootFiles struct {
	files Files

	// displays maps display paths to files (LineOf): going through every
	// file for each finding grew with the catalog.
	displaysOnce sync.Once
	displays     map[string]*File

	// ids are the files by the $id or id they declare, at their root or
	// nested, resolved as walkSchemaRefs resolves it; wild the files
	// whose ids could not all be listed (RefInputs).
	idsOnce sync.Once
	ids     map[string][]string
	wild    []string
}

// URL is FileURL.
func (r *rootFiles) URL(rel string) string { return FileURL(rel) }

// Locate is Files.Locate.
func (r *rootFiles) Locate(location string) (file, pointer string) {
	return r.files.Locate(location)
}

// LineOf is Files.LineOf, by an index of the display paths.
func (r *rootFiles) LineOf(display, pointer string) int {
	r.displaysOnce.Do(func() {
		r.displays = make(map[string]*File, len(r.files))
		for _, f := range r.files {
			r.displays[f.Display] = f
		}
	})
	if f := r.displays[display]; f != nil {
		return f.LineOf(pointer)
	}
	return 0
}

// FileOfURL is the file ByURL finds, with the digest of its document.
func (r *rootFiles) FileOfURL(u string) (display, rel, digest string, ok bool) {
	base, _, _ := strings.Cut(u, "#")
	f := r.files.ByURL(base)
	if f == nil {
		return "", "", "", false
	}
	doc := f.Document()
	if doc == nil {
		return "", "", "", false
	}
	return f.Display, f.Rel, Digest(doc), true
}

// Document is the File's Document.
func (r *rootFiles) Document(rel string) any {
	if f := r.files[rel]; f != nil {
		return f.Document()
	}
	return nil
}

// Evicted reports whether the File was evicted.
func (r *rootFiles) Evicted(rel string) bool {
	f := r.files[rel]
	return f != nil && f.evicted
}

// RefInputs follows the $refs of the files rels. Each reference is
// resolved against every base the compiler may give it: the file's URL
// and each $id or id above it (whichever the schema's draft honours),
// each resolved against the base above it, so that the walk needs no
// draft detection and reaches a superset of what the compiler loads.
func (r *rootFiles) RefInputs(rels []string, read, absent func(rel string)) {
	queue := slices.Clone(rels)
	seen := map[string]bool{}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		if seen[rel] {
			continue
		}
		seen[rel] = true
		read(rel)
		f := r.files[rel]
		if f == nil {
			continue
		}
		doc := f.Document()
		if doc == nil {
			continue
		}
		complete := walkSchemaRefs(doc, []string{FileURL(rel)}, func(target string, isID bool) {
			if isID {
				return
			}
			if t, ok := RelFromURL(target); ok {
				if _, known := r.files[t]; known {
					queue = append(queue, t)
				} else {
					absent(t)
				}
			}
			// Any base may also be a $id declared in some file.
			queue = append(queue, r.byID(target)...)
		})
		if !complete {
			for t := range r.files {
				queue = append(queue, t)
			}
		}
	}
}

// maxBases bounds the candidate bases of one schema: past it the walk
// gives up and its file counts as depending on every JSON file.
const maxBases = 32

// walkSchemaRefs calls fn with the URL (without fragment) of every $ref,
// $dynamicRef, $recursiveRef and $schema string of doc resolved against
// every candidate base (isID false), and with every URL a $id or id
// declares (isID true). bases are the candidate bases of doc itself. It
// returns false when the candidates grew past maxBases (nothing is then
// known of what the file reaches).
func walkSchemaRefs(doc any, bases []string, fn func(url string, isID bool)) bool {
	switch t := doc.(type) {
	case map[string]any:
		for _, k := range []string{"$id", "id"} {
			id, ok := t[k].(string)
			if !ok {
				continue
			}
			// A draft that does not honour this keyword keeps the base
			// above: both stay candidates.
			next := bases
			for _, b := range bases {
				u, _, _ := strings.Cut(ResolveRef(b, id), "#")
				if !slices.Contains(next, u) {
					if len(next) == len(bases) {
						next = slices.Clone(bases)
					}
					next = append(next, u)
					fn(u, true)
				}
			}
			bases = next
		}
		if len(bases) > maxBases {
			return false
		}
		for k, v := range t {
			switch k {
			case "$ref", "$dynamicRef", "$recursiveRef", "$schema":
				if ref, ok := v.(string); ok {
					for _, b := range bases {
						u, _, _ := strings.Cut(ResolveRef(b, ref), "#")
						fn(u, false)
					}
					continue
				}
			}
			if !walkSchemaRefs(v, bases, fn) {
				return false
			}
		}
	case []any:
		for _, e := range t {
			if !walkSchemaRefs(e, bases, fn) {
				return false
			}
		}
	}
	return true
}

// byID lists the files that declare id as a $id or id, at their root or
// nested, and the files whose ids could not all be listed (which may
// declare any of them).
func (r *rootFiles) byID(id string) []string {
	r.idsOnce.Do(func() {
		r.ids = map[string][]string{}
		for rel, f := range r.files {
			doc := f.Document()
			if doc == nil {
				continue
			}
			declared := map[string]bool{}
			if !walkSchemaRefs(doc, []string{FileURL(rel)}, func(u string, isID bool) {
				if isID {
					declared[u] = true
				}
			}) {
				r.wild = append(r.wild, rel)
			}
			for u := range declared {
				r.ids[u] = append(r.ids[u], rel)
			}
		}
		for u := range r.ids {
			slices.Sort(r.ids[u])
		}
		slices.Sort(r.wild)
	})
	return append(slices.Clip(r.ids[id]), r.wild...)
}
