package formats

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// importRule says which packages may import the packages under a path:
// a format's own code (its compiled types, its sampler, the JSON Schema
// library it compiles with) and the compat engines are reached through
// format/ and compat, never imported by a job.
type importRule struct {
	// what is an import path or, ending in "/", a prefix of them.
	what string
	// why says what to do instead.
	why string
	// allowed are the importers (module-relative package directories, or
	// prefixes ending in "/") that may import it.
	allowed []string
}

// importRules hold the seam by imports: only format/, the engines and the
// code generators know a format's packages. metaschema and a few internal
// helpers use the JSON Schema library for evtool's own files (evtool.yaml,
// event.yaml, scenarios, contracts), not for a catalog's schemas.
var importRules = []importRule{
	{module + "format/avro", "ask the format's provider (format/formats)", []string{"format/", "compat/avrocompat", "codegen/"}},
	{module + "format/protobuf", "ask the format's provider (format/formats)", []string{"format/", "compat/protocompat", "codegen/"}},
	{module + "format/jsonschema", "ask the format's provider (format/formats)", []string{"format/", "compat/jsoncompat", "codegen/"}},
	{module + "compat/jsoncompat", "compare through the gate's engines (compat.Engines, engine.Engine)", []string{"compat"}},
	{module + "compat/avrocompat", "compare through the gate's engines (compat.Engines, engine.Engine)", []string{"compat"}},
	{module + "compat/protocompat", "compare through the gate's engines (compat.Engines, engine.Engine)", []string{"compat"}},
	{"github.com/santhosh-tekuri/jsonschema/", jsonSchemaWhy, jsonSchemaUsers},
	{module + "internal/thirdparty/jsonschema", jsonSchemaWhy, jsonSchemaUsers},
}

const jsonSchemaWhy = "JSON Schema is format/jsonschema's (evtool's own files: package metaschema)"

var jsonSchemaUsers = []string{"format/", "compat/jsoncompat", "codegen/", "metaschema", "internal/"}

func (r importRule) matches(path string) bool {
	if strings.HasSuffix(r.what, "/") {
		return strings.HasPrefix(path, r.what) || path == strings.TrimSuffix(r.what, "/")
	}
	return path == r.what || strings.HasPrefix(path, r.what+"/")
}

func (r importRule) allows(dir string) bool {
	for _, a := range r.allowed {
		if dir == a || strings.HasSuffix(a, "/") && strings.HasPrefix(dir+"/", a) {
			return true
		}
	}
	return false
}

// importsLeft are imports that break the rules still, as
// "dir/file.go: import path", to be moved; the list may only shrink.
var importsLeft = []string{}

// TestSeamImports: no non-test source outside the rooms that own a format
// imports its packages, its engine or the JSON Schema library (bench/
// measures engines directly and is left out).
func TestSeamImports(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if rel == "bench" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || rel == "examples" || strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, r := range importRules {
				if r.matches(path) && !r.allows(dir) {
					got = append(got, rel+": "+path+"\x00"+r.why)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, g := range got {
		key, why, _ := strings.Cut(g, "\x00")
		seen[key] = true
		if !slices.Contains(importsLeft, key) {
			t.Errorf("%s: %s instead", key, why)
		}
	}
	for _, s := range importsLeft {
		if !seen[s] {
			t.Errorf("importsLeft lists %q, which is gone: take it off the list", s)
		}
	}
}

// TestImportRules: what the rules let through and what they refuse.
func TestImportRules(t *testing.T) {
	for _, tc := range []struct {
		dir, path string
		refused   bool
	}{
		{"docsite", module + "format/jsonschema", true},
		{"format/formats", module + "format/jsonschema", false},
		{"compat/jsoncompat", module + "format/jsonschema", false},
		{"compat/avrocompat", module + "format/jsonschema", true},
		{"replay", module + "format/jsonschema/sample", true},
		{"compat/jsoncompat", module + "format/jsonschema/sample", false},
		{"format/jsonschemax", module + "format/jsonschema", false},
		{"formatx", module + "format/jsonschemax", false},
		{"compat", module + "compat/jsoncompat", false},
		{"consumers", module + "compat/jsoncompat", true},
		{"compat/engine", module + "compat/jsoncompat", true},
		{"metaschema", module + "internal/thirdparty/jsonschema", false},
		{"asyncapi", module + "internal/thirdparty/jsonschema", true},
		{"asyncapi", "github.com/santhosh-tekuri/jsonschema/v6", true},
		{"codegen/jsongen", "github.com/santhosh-tekuri/jsonschema/v6", false},
		{"formatx", module + "format/avro", true},
	} {
		refused := false
		for _, r := range importRules {
			if r.matches(tc.path) && !r.allows(tc.dir) {
				refused = true
			}
		}
		if refused != tc.refused {
			t.Errorf("%s importing %s: refused %v, want %v", tc.dir, tc.path, refused, tc.refused)
		}
	}
}
