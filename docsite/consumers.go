package docsite

import (
	"fmt"
	"strings"

	"github.com/evtool/evtool/catalog"
	"github.com/evtool/evtool/consumers"
	"github.com/evtool/evtool/format"
	"github.com/evtool/evtool/internal/jsonpos"
)

// consumerView is one consumer of a type on its page.
type consumerView struct {
	Name, Owner string
	Versions    string
	Fields      []string
}

// addConsumers lists the type's consumers and marks, in each version's
// field table, the consumers that read each field with that version.
func addConsumers(tm *typeModel, t *catalog.EventType, cs []*consumers.Contract) {
	for _, c := range cs {
		r, ok := c.Reads[t.Name]
		if !ok {
			continue
		}
		vs := make([]string, len(r.Versions))
		for i, n := range r.Versions {
			vs[i] = fmt.Sprintf("v%d", n)
		}
		tm.Consumers = append(tm.Consumers, consumerView{Name: c.Name, Owner: c.Owner, Versions: strings.Join(vs, ", "), Fields: r.Fields})
		fields := format.NewFields(r.Pointers())
		for _, vm := range tm.Versions {
			if !r.ReadsVersion(vm.Number) {
				continue
			}
			for i := range vm.Fields {
				if ptr, ok := pathPointer(vm.Fields[i].Path); ok && fields.Reads(ptr) {
					vm.Fields[i].ReadBy = append(vm.Fields[i].ReadBy, c.Name)
				}
			}
		}
	}
}

// pathPointer turns a field table's path ("items[].unitPrice.currency",
// "{oneOf 1}.kind", "lines[0]") into a JSON pointer into the data
// ("/items/-/unitPrice/currency"); variants add no token. A path through
// a pattern or "any other property" has no one pointer: ok is false.
func pathPointer(p string) (string, bool) {
	var toks []string
	var name strings.Builder
	flush := func() {
		if name.Len() > 0 {
			toks = append(toks, name.String())
			name.Reset()
		}
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '.':
			flush()
		case '[':
			flush()
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return "", false
			}
			inner := p[i+1 : i+end]
			switch {
			case inner == "":
				toks = append(toks, "-")
			case format.IsIndex(inner):
				toks = append(toks, inner)
			default:
				return "", false // [/re/]: a pattern
			}
			i += end
		case '{':
			flush()
			end := strings.IndexByte(p[i:], '}')
			if end < 0 {
				return "", false
			}
			i += end
		case '*':
			if name.Len() == 0 && (i+1 == len(p) || p[i+1] == '.' || p[i+1] == '[') {
				return "", false
			}
			name.WriteByte('*')
		default:
			name.WriteByte(p[i])
		}
	}
	flush()
	return jsonpos.Join(toks...), true
}
