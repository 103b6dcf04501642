package protobuf

import (
	"bytes"
	"path"
	"regexp"
	"sync"

	"github.com/evtool/evtool/format"
)

var _ format.InputScanner = Provider{}

// importStmt is one import statement; importWord any use of the word.
var (
	importStmt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bimport\s+(?:(?:weak|public)\s+)?"([^"\\]*)"\s*;`) })
	importWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bimport\b`) })
)

// Imports are the paths of data's import statements (relative to the
// root, as CompileVersion resolves them). A file whose imports a regular
// expression cannot read (an escaped or concatenated path, the word in a
// comment or a name) gives all.
func (Provider) Imports(data []byte) ([]string, bool) {
	if !bytes.Contains(data, []byte("import")) {
		return nil, false
	}
	stmts := importStmt().FindAllSubmatch(data, -1)
	if len(stmts) != len(importWord().FindAll(data, -1)) {
		return nil, true
	}
	out := make([]string, 0, len(stmts))
	for _, m := range stmts {
		out = append(out, path.Clean(string(bytes.TrimSpace(m[1]))))
	}
	return out, false
}

// ReadsShared is false: a file reads only what it imports.
func (Provider) ReadsShared() bool { return false }
