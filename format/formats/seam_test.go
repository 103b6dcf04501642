package formats

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/format"
)

// TestEveryKindHasProvider: each kind has exactly one provider, which says
// it is of that kind, and a kind's schema files find it by extension.
func TestEveryKindHasProvider(t *testing.T) {
	if got, want := len(All()), len(format.Kinds()); got != want {
		t.Errorf("%d providers for %d kinds", got, want)
	}
	for _, k := range format.Kinds() {
		p, ok := ForKind(k)
		if !ok {
			t.Errorf("no provider for %s", k)
			continue
		}
		if p.Kind() != k {
			t.Errorf("ForKind(%s) is the provider of %s", k, p.Kind())
		}
		if q, ok := ForFile("v1" + k.Ext()); !ok || q.Kind() != k {
			t.Errorf("ForFile(v1%s) = %v, %v; want the provider of %s", k.Ext(), q, ok, k)
		}
	}
	if _, ok := ForKind("xml"); ok {
		t.Error("ForKind(xml) found a provider")
	}
	if _, ok := ForFile("v1.xml"); ok {
		t.Error("ForFile(v1.xml) found a provider")
	}
}

const module = "github.com/evtool/evtool/"

// formatPackages are the packages whose compiled Schema type only the
// format seam may name in a type assertion.
var formatPackages = []string{module + "format/avro", module + "format/protobuf", module + "format/jsonschema"}

// seamBreaks returns, for the Go source src, every switch on a format.Kind
// (a case naming format.JSONSchema, format.Avro or format.Protobuf), every
// comparison (== or !=) with one of those constants, and every type
// assertion or type-switch case naming a format package's compiled
// *Schema, as "file:line: what". Naming a kind constant otherwise (a
// Version's Format set to it, a kind passed on) is not a dispatch and is
// left alone.
func seamBreaks(fset *token.FileSet, f *ast.File) []string {
	formatName, schemaPkgs := "", map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch {
		case p == module+"format":
			formatName = name
		case slices.Contains(formatPackages, p):
			schemaPkgs[name] = true
		}
	}
	var out []string
	at := func(n ast.Node, what string) {
		pos := fset.Position(n.Pos())
		out = append(out, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(pos.Filename), pos.Line, what))
	}
	isKind := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && formatName != "" && x.Name == formatName && slices.Contains([]string{"JSONSchema", "Avro", "Protobuf"}, sel.Sel.Name)
	}
	isSchema := func(e ast.Expr) bool {
		star, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		sel, ok := star.X.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && schemaPkgs[x.Name] && sel.Sel.Name == "Schema"
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			for _, c := range n.Body.List {
				if slices.ContainsFunc(c.(*ast.CaseClause).List, isKind) {
					at(n, "switch on a format kind")
					break
				}
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				if slices.ContainsFunc(c.(*ast.CaseClause).List, isSchema) {
					at(n, "type switch on a compiled schema")
					break
				}
			}
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isKind(n.X) || isKind(n.Y)) {
				at(n, "comparison with a format kind")
			}
		case *ast.TypeAssertExpr:
			if n.Type != nil && isSchema(n.Type) {
				at(n, "type assertion to a compiled schema")
			}
		}
		return true
	})
	return out
}

// engines are the compat engines, one per format, each of which compares
// its own format's compiled schemas.
var engines = []string{"compat/jsoncompat", "compat/avrocompat", "compat/protocompat"}

// TestSeamHolds: outside format/ (and the compat engines, which are the
// formats' own and take their compiled schemas; the gate, package compat,
// is scanned), no non-test source
// switches on a format kind, compares with a kind constant or asserts a
// compiled schema's type; what should ask a provider does. The sites
// left are listed in stillToMove, which may only shrink.
func TestSeamHolds(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var got []string
	skip := func(rel string) bool { return rel == "format" || slices.Contains(engines, rel) }
	walkSources(t, root, skip, parser.SkipObjectResolution, fset, func(_ string, f *ast.File) {
		for _, b := range seamBreaks(fset, f) {
			got = append(got, strings.TrimPrefix(b, filepath.ToSlash(root)+"/"))
		}
	})
	left := map[string]bool{}
	for _, s := range stillToMove {
		left[s] = true
	}
	seen := map[string]bool{}
	for _, b := range got {
		file, rest, _ := strings.Cut(b, ":")
		_, what, _ := strings.Cut(rest, ": ")
		key := file + ": " + what
		seen[key] = true
		if !left[key] {
			t.Errorf("%s: ask the format's provider (format/formats) instead", b)
		}
	}
	for _, s := range stillToMove {
		if !seen[s] {
			t.Errorf("stillToMove lists %q, which is gone: take it off the list", s)
		}
	}
}

// TestSeamBreaks: what the source scan finds and what it leaves alone.
func TestSeamBreaks(t *testing.T) {
	const head = "package p\nimport (\n\t\"github.com/evtool/evtool/format\"\n\tfa \"github.com/evtool/evtool/format/avro\"\n\t\"github.com/evtool/evtool/format/protobuf\"\n)\n"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"kind switch", "func f(k format.Kind) {\n\tswitch k {\n\tcase format.Avro:\n\t}\n}\n", []string{"p.go:8: switch on a format kind"}},
		{"assertion under a renamed import", "func f(s format.Schema) { _ = s.(*fa.Schema) }\n", []string{"p.go:7: type assertion to a compiled schema"}},
		{"type switch", "func f(s format.Schema) {\n\tswitch s.(type) {\n\tcase *protobuf.Schema:\n\t}\n}\n", []string{"p.go:8: type switch on a compiled schema"}},
		{"comparisons", "func f(k format.Kind, v interface{ Kind() format.Kind }) bool {\n\tif k == format.Avro {\n\t}\n\tswitch {\n\tcase v.Kind() != format.Protobuf:\n\t}\n\treturn format.JSONSchema == k\n}\n", []string{"p.go:8: comparison with a format kind", "p.go:11: comparison with a format kind", "p.go:13: comparison with a format kind"}},
		{"other switches", "func f(k format.Kind, s format.Schema) {\n\tswitch k.Name() {\n\tcase \"Avro\":\n\t}\n\tswitch s.(type) {\n\tcase *protobuf.Message:\n\t}\n\t_ = s.(interface{ Kind() format.Kind })\n\t_ = fa.Node{}\n\tk = format.Avro\n\t_ = k == \"avro\"\n\t_ = k.Name() == s.Kind().Name()\n}\n", nil},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", head+tc.body, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := seamBreaks(fset, f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestOfNoSchema: data of a version that did not compile is taken as it
// is, as envelope did before the providers (no panic).
func TestOfNoSchema(t *testing.T) {
	p := Of(nil)
	data := []byte{0, 0, 0, 0, 7, 'x'}
	if got, id, framed := p.Unframe(nil, data); framed || id != 0 || string(got) != string(data) {
		t.Errorf("Unframe = %q, %d, %v; want the data as it is", got, id, framed)
	}
	if got := p.Frame(nil, 7, []byte("x")); string(got) != string(data) {
		t.Errorf("Frame = %q, want %q", got, data)
	}
	if ok, err := p.CheckUnframed(nil, data); ok || err != nil {
		t.Errorf("CheckUnframed = %v, %v", ok, err)
	}
}

// walkSources parses every non-test Go file under root (mode), outside
// testdata, hidden directories and the directories skip names (by their
// slash path relative to root), and calls fn with each file's relative
// path.
func walkSources(t *testing.T, root string, skip func(rel string) bool, mode parser.Mode, fset *token.FileSet, fn func(rel string, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (skip(rel) || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		fn(rel, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
