package avro

import (
	"fmt"

	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
)

// ResolvePointer checks that the datum's JSON form (Avro's JSON encoding)
// can hold a value at ptr: record fields by name, array items by index,
// map values by any key. A union's branch may be named ({"string": ...},
// {"com.example.Total": ...}) or left out: /total/amount reads amount
// through whichever branch of total has it.
func (s *Schema) ResolvePointer(ptr string) error {
	toks := jsonpos.Split(ptr)
	ok := func(n int) bool { return resolves(s.Root, toks[:n], map[*Node]int{}) }
	if ok(len(toks)) {
		return nil
	}
	// Name the shortest prefix that does not resolve: a prefix of one
	// that resolves resolves, so a binary search finds it in log2(n)
	// walks (one walk per prefix made a deep pointer cost seconds).
	n := format.FirstFailing(len(toks), ok)
	return fmt.Errorf("the schema declares no value at %s", jsonpos.Join(toks[:n]...))
}

// resolves walks toks from n; seen holds the depth each named node was
// entered at, so a recursive record ends the walk instead of looping.
func resolves(n *Node, toks []string, seen map[*Node]int) bool {
	if len(toks) == 0 {
		return true
	}
	if n == nil {
		return false
	}
	if d, ok := seen[n]; ok && d == len(toks) {
		return false
	}
	seen[n] = len(toks)
	tok, rest := toks[0], toks[1:]
	switch n.Kind {
	case "record", "error":
		if f := n.Field(tok); f != nil {
			return resolves(f.Type, rest, seen)
		}
	case "array":
		return format.IsIndex(tok) && resolves(n.Items, rest, seen)
	case "map":
		return resolves(n.Values, rest, seen)
	case "union":
		for _, b := range n.Branches {
			if b.BranchName() == tok && resolves(b, rest, seen) {
				return true
			}
		}
		for _, b := range n.Branches {
			if resolves(b, toks, seen) {
				return true
			}
		}
	}
	return false
}
