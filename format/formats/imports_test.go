package formats

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
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

// importRules hold the seam by imports: only format/ (each format's Go
// generator included) and the engines know a format's packages; codegen
// reaches the generators through the providers. metaschema and a few
// internal helpers use the JSON Schema library for evtool's own files
// (evtool.yaml, event.yaml, scenarios, contracts), not for a catalog's
// schemas; the generated runtime (codegen/internal/rt) validates with it.
var importRules = []importRule{
	{module + "format/avro", "ask the format's provider (format/formats)", []string{"format/", "compat/avrocompat"}},
	{module + "format/protobuf", "ask the format's provider (format/formats)", []string{"format/", "compat/protocompat"}},
	{module + "format/jsonschema", "ask the format's provider (format/formats)", []string{"format/", "compat/jsoncompat"}},
	{module + "compat/jsoncompat", "compare through the gate's engines (compat.Engines, engine.Engine)", []string{"compat"}},
	{module + "compat/avrocompat", "compare through the gate's engines (compat.Engines, engine.Engine)", []string{"compat"}},
	{module + "compat/protocompat", "compare through the gate's engines (compat.Engines, engine.Engine)", []string{"compat"}},
	{"github.com/santhosh-tekuri/jsonschema/", jsonSchemaWhy, jsonSchemaUsers},
	{module + "internal/thirdparty/jsonschema", jsonSchemaWhy, jsonSchemaUsers},
}

const jsonSchemaWhy = "JSON Schema is format/jsonschema's (evtool's own files: package metaschema)"

var jsonSchemaUsers = []string{"format/", "compat/jsoncompat", "codegen/internal/rt", "metaschema", "internal/"}

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

// TestSeamImports: no non-test source outside the rooms that own a format
// imports its packages, its engine or the JSON Schema library (bench/
// measures engines directly and examples/ are users' code: both are left
// out).
func TestSeamImports(t *testing.T) {
	skip := func(rel string) bool { return rel == "bench" || rel == "examples" }
	walkSources(t, filepath.Join("..", ".."), skip, parser.ImportsOnly, token.NewFileSet(), func(rel string, f *ast.File) {
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, r := range importRules {
				if r.matches(path) && !r.allows(dir) {
					t.Errorf("%s: %s: %s instead", rel, path, r.why)
				}
			}
		}
	})
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
		{"format/jsonschema/gogen", "github.com/santhosh-tekuri/jsonschema/v6", false},
		{"format/jsonschema/gogen", module + "format/jsonschema", false},
		{"codegen/internal/rt", "github.com/santhosh-tekuri/jsonschema/v6", false},
		{"codegen", "github.com/santhosh-tekuri/jsonschema/v6", true},
		{"codegen", module + "format/jsonschema", true},
		{"codegen/gocode", module + "format/avro", true},
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
