package codegen

import (
	"embed"
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"sync"
)

// The runtime pieces: real Go files of package rt, compiled and tested
// there, copied into generated code without their package clause and
// imports (the generator computes the imports of the whole file).
//
//go:embed internal/rt/rt_core.go internal/rt/rt_big.go internal/rt/rt_formats.go internal/rt/rt_schema.go internal/rt/rt_events.go internal/rt/rt_avro.go
var runtimeFS embed.FS

// runtimePieces parses the pieces once, on first use: at package
// initialisation it would cost every evtool command, `evtool version`
// included.
var runtimePieces = sync.OnceValue(func() map[string]string {
	pieces := map[string]string{}
	for _, name := range []string{"core", "big", "formats", "schema", "events", "avro"} {
		src, err := runtimeFS.ReadFile("internal/rt/rt_" + name + ".go")
		if err != nil {
			panic(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			panic(fmt.Sprintf("codegen: runtime piece %s: %v", name, err))
		}
		end := fset.Position(f.Name.End()).Offset
		if n := len(f.Imports); n > 0 {
			end = fset.Position(f.Decls[len(f.Decls)-1].End()).Offset
		}
		body := strings.TrimLeft(string(src[end:]), "\n")
		pieces[name] = "// --- evtool runtime (" + name + ") ---\n\n" + body
	}
	return pieces
})

func runtimePiece(name string) string { return runtimePieces()[name] }
