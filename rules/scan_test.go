package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Emitted finds every rule id the Go code under root can emit, by itself,
// mapped to where it is written (file:line). It reads the non-test
// sources (testdata and hidden directories skipped) and takes the string
// literals in the places findings get their rule:
//
//   - a constant named Rule... (the way packages declare their ids);
//   - a Rule or rule field of a composite literal (report.Finding{Rule: "x"});
//   - an assignment to a variable rule or a field Rule (rule := "x");
//   - an argument in the position of a parameter named rule, of any
//     function or function literal of that name (add("x", ...));
//   - a result of a function or method named rule or ...Rule that
//     returns one string (a provider's LintRule() string { return "x" }).
//
// Ids that code computes (a compat kind's id per direction) come from the
// engines' own tables, which the rule table includes whole.
func Emitted(root string) (map[string]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	dirs := map[*ast.File]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dirs[f] = modulePath + "/" + filepath.ToSlash(rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return emittedIn(fset, files, func(f *ast.File) string { return dirs[f] }), nil
}

const modulePath = "github.com/evtool/evtool"

var ruleConst = regexp.MustCompile(`^Rule[A-Z0-9]`)

// ruleFunc names a function whose string result is a rule id.
var ruleFunc = regexp.MustCompile(`^(rule|[A-Za-z0-9]*[a-z0-9]Rule)$`)

// returnsRule reports whether fd is a function or method named for a
// rule that returns one string.
func returnsRule(fd *ast.FuncDecl) bool {
	if !ruleFunc.MatchString(fd.Name.Name) || fd.Body == nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
		return false
	}
	r := fd.Type.Results.List[0]
	id, ok := r.Type.(*ast.Ident)
	return ok && id.Name == "string" && len(r.Names) <= 1
}

// emittedIn is Emitted over parsed files; pkg gives a file's import path.
// A function is known by its package and name, and a function literal by
// the function it is declared in, so that a call matches only what it can
// call: its own package's functions, its enclosing function's literals,
// or an imported package's functions when qualified by the import.
func emittedIn(fset *token.FileSet, files []*ast.File, pkg func(*ast.File) string) map[string]string {
	// Functions that take a rule: key -> parameter positions.
	takesRule := map[string][]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				paramsOf(takesRule, pkg(f)+"."+fd.Name.Name, fd.Type)
			}
		}
	}
	out := map[string]string{}
	add := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || s == "" {
			return
		}
		if _, seen := out[s]; !seen {
			p := fset.Position(lit.Pos())
			out[s] = p.Filename + ":" + strconv.Itoa(p.Line)
		}
	}
	isRule := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.Ident:
			return e.Name == "rule" || e.Name == "Rule"
		case *ast.SelectorExpr:
			return e.Sel.Name == "rule" || e.Sel.Name == "Rule"
		}
		return false
	}
	for _, f := range files {
		own, imported := pkg(f), imports(f)
		for _, d := range f.Decls {
			// The function literals of this declaration, by the name they
			// are assigned to.
			local := map[string][]int{}
			ast.Inspect(d, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok {
					for i, rhs := range as.Rhs {
						fl, ok := rhs.(*ast.FuncLit)
						id, isIdent := as.Lhs[min(i, len(as.Lhs)-1)].(*ast.Ident)
						if ok && isIdent {
							local[id.Name] = nil
							paramsOf(local, id.Name, fl.Type)
						}
					}
				}
				return true
			})
			if fd, ok := d.(*ast.FuncDecl); ok && returnsRule(fd) {
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit:
						return false // its returns are its own
					case *ast.ReturnStmt:
						if len(n.Results) == 1 {
							add(n.Results[0])
						}
					}
					return true
				})
			}
			ast.Inspect(d, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for i, id := range n.Names {
						if (ruleConst.MatchString(id.Name) || id.Name == "rule") && i < len(n.Values) {
							add(n.Values[i])
						}
					}
				case *ast.KeyValueExpr:
					if isRule(n.Key) {
						add(n.Value)
					}
				case *ast.AssignStmt:
					if len(n.Lhs) == len(n.Rhs) {
						for i, l := range n.Lhs {
							if isRule(l) {
								add(n.Rhs[i])
							}
						}
					}
				case *ast.CallExpr:
					var positions []int
					switch fn := n.Fun.(type) {
					case *ast.Ident:
						var isLocal bool
						if positions, isLocal = local[fn.Name]; !isLocal {
							positions = takesRule[own+"."+fn.Name]
						}
					case *ast.SelectorExpr:
						key := own + "." + fn.Sel.Name // a method of the package's own
						if x, ok := fn.X.(*ast.Ident); ok && imported[x.Name] != "" {
							key = imported[x.Name] + "." + fn.Sel.Name
						}
						positions = takesRule[key]
					}
					for _, i := range positions {
						if i < len(n.Args) {
							add(n.Args[i])
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// paramsOf records the positions of the parameters named rule of the
// function key.
func paramsOf(takesRule map[string][]int, key string, ft *ast.FuncType) {
	i := 0
	for _, field := range ft.Params.List {
		if len(field.Names) == 0 {
			i++
			continue
		}
		for _, id := range field.Names {
			if id.Name == "rule" {
				takesRule[key] = append(takesRule[key], i)
			}
			i++
		}
	}
}

// imports maps the names a file gives its imports to their paths.
func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = p
	}
	return out
}
