package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/codegen"
)

// missingRequirements names what the generated files import from modules
// that the module holding out does not require (sdk-go, uuid, ...), and
// says what to run: the package does not build until they are added.
// It returns "" when nothing is missing.
func missingRequirements(out string, files []codegen.File) string {
	imports := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f.Name, f.Data, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, imp := range af.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err == nil && strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
				imports[p] = true
			}
		}
	}
	if len(imports) == 0 {
		return ""
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return ""
	}
	modDir, module, required := findModule(abs)
	var missing []string
	for p := range imports {
		if module != "" && (p == module || strings.HasPrefix(p, module+"/")) {
			continue
		}
		found := false
		for _, r := range required {
			if p == r || strings.HasPrefix(p, r+"/") {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	sort.Strings(missing)
	if modDir == "" {
		return fmt.Sprintf("%s is in no Go module: create one and add what the package imports (%s): go mod init MODULE && go mod tidy",
			out, strings.Join(missing, ", "))
	}
	return fmt.Sprintf("the module in %s does not require what the generated package imports (%s): run `go mod tidy` there (or `go get %s`)",
		modDir, strings.Join(missing, ", "), strings.Join(missing, " "))
}

// findModule finds the go.mod at or above dir and returns its directory,
// module path and required module paths ("" and nil when there is none
// or it cannot be read).
func findModule(dir string) (modDir, module string, required []string) {
	for d := dir; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			module, required = parseGoMod(data)
			return d, module, required
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", nil
		}
		d = parent
	}
}

// parseGoMod reads the module path and the required modules of a go.mod:
// the module line, single require lines and require blocks.
func parseGoMod(data []byte) (module string, required []string) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	inBlock := false
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case inBlock && fields[0] == ")":
			inBlock = false
		case inBlock:
			required = append(required, unquoteModPath(fields[0]))
		case fields[0] == "module" && len(fields) >= 2:
			module = unquoteModPath(fields[1])
		case fields[0] == "require" && len(fields) >= 2 && fields[1] == "(":
			inBlock = true
		case fields[0] == "require" && len(fields) >= 3:
			required = append(required, unquoteModPath(fields[1]))
		}
	}
	return module, required
}

func unquoteModPath(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
