package catalog

import (
	"fmt"
	"strings"
	"sync"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// Additions for the compatibility engine (compat/): mapping compiled schema
// locations back to catalog files, and compiling transformed copies of a
// catalog's versions.

// Locate maps a compiled schema location ("url#/pointer") to the display
// path of its catalog file and the JSON pointer inside it. Unknown URLs are
// returned as they are with an empty file.
func (c *Catalog) Locate(location string) (file, pointer string) {
	return c.json.Locate(location)
}

// FileOfURL describes the catalog file a compiled schema URL belongs to:
// its display path, its path relative to the catalog root and the digest
// of its canonical JSON.
func (c *Catalog) FileOfURL(u string) (display, rel, digest string, ok bool) {
	base, _, _ := strings.Cut(u, "#")
	f := c.json.ByURL(base)
	if f == nil {
		return "", "", "", false
	}
	doc := f.Document()
	if doc == nil {
		return "", "", "", false
	}
	return f.Display, f.Rel, Digest(doc), true
}

// TransformedCompiler returns a function that compiles versions of the
// catalog again from copies of its files passed through transform (which
// must not modify its argument), with the catalog's draft, format and $ref
// rules. Files are transformed when a compile first reaches them, and one
// compiler is shared, so shared files compile once. The function is safe
// for concurrent use. (compat.Close is such a transform: the lenient
// profile's closed view of a writer.)
func (c *Catalog) TransformedCompiler(transform func(doc any) any) func(v *Version) (*jsonschema.Schema, error) {
	comp := NewDraftCompiler(c.Config.AssertFormats, c.Draft)
	comp.UseLoader(c.json.TransformedLoader(transform))
	return versionCompiler(comp)
}

// versionCompiler compiles versions with comp, one at a time.
func versionCompiler(comp *jsonschema.Compiler) func(v *Version) (*jsonschema.Schema, error) {
	var mu sync.Mutex
	return func(v *Version) (*jsonschema.Schema, error) {
		if v.Doc == nil {
			return nil, fmt.Errorf("%s: not valid JSON", v.File)
		}
		mu.Lock()
		defer mu.Unlock()
		return comp.Compile(v.URL)
	}
}
