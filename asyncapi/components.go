package asyncapi

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"sync"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/format/formats"
)

// Warning is a schema keyword the export could not carry over exactly.
type Warning struct {
	File    string // display path
	Pointer string
	Message string
}

func (w Warning) String() string {
	ptr := w.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("%s: %s: %s", w.File, ptr, w.Message)
}

// exporter builds one document: the components of each format whose
// versions are components (format.AsyncAPIComponenter), by kind, and the
// warnings so far.
type exporter struct {
	comps    map[format.Kind]format.AsyncAPISchemas
	order    []format.Kind // of comps, as formats.All lists them
	warnings []Warning
}

// newExporter starts the components of every format whose versions are
// components, each given all the catalog's versions of its format.
func newExporter(cat *catalog.Catalog) (*exporter, error) {
	byKind := map[format.Kind][]format.AsyncAPIVersion{}
	for _, t := range cat.Types {
		for _, v := range t.Versions {
			k := v.Compiled.Kind()
			byKind[k] = append(byKind[k], asyncAPIVersion(v))
		}
	}
	x := &exporter{comps: map[format.Kind]format.AsyncAPISchemas{}}
	fileOf := func(url string) (display, rel string, ok bool) {
		display, rel, _, ok = cat.FileOfURL(url)
		return display, rel, ok
	}
	for _, p := range formats.All() {
		c, ok := p.(format.AsyncAPIComponenter)
		if !ok || len(byKind[p.Kind()]) == 0 {
			continue
		}
		s, err := c.AsyncAPIComponents(byKind[p.Kind()], fileOf)
		if err != nil {
			return nil, err
		}
		x.comps[p.Kind()] = s
		x.order = append(x.order, p.Kind())
	}
	return x, nil
}

func asyncAPIVersion(v *catalog.Version) format.AsyncAPIVersion {
	return format.AsyncAPIVersion{Schema: v.Compiled, URL: v.URL, Text: v.Text}
}

// schemas is components.schemas: every format's entries, sorted by name.
func (x *exporter) schemas() (*object, error) {
	var all []format.AsyncAPISchema
	for _, k := range x.order {
		s, err := x.comps[k].Schemas()
		if err != nil {
			return nil, err
		}
		all = append(all, s...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	out := newObject()
	for _, s := range all {
		v, err := decodeOrdered(s.JSON)
		if err != nil {
			return nil, fmt.Errorf("components.schemas %s: %w", s.Name, err)
		}
		out.Set(s.Name, v)
	}
	return out, nil
}

// matchString draws a string matching an event type's source pattern, a
// JSON Schema pattern, with the provider that draws them.
func matchString(pattern string, rng *rand.Rand) (string, error) {
	ps, ok := formats.PatternSampler()
	if !ok {
		return "", fmt.Errorf("no provider draws strings matching a pattern")
	}
	return ps.MatchString(pattern, rng)
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })
