package format

import (
	"sort"
	"strings"

	"github.com/evtool/evtool/internal/jsonpos"
)

// Fields is a set of JSON pointers into the data's JSON form as a tree of
// their tokens: what a consumer reads. A node that is All reads its whole
// value (a pointer to an object reads all of it); otherwise it reads only
// the children it names.
type Fields struct {
	All      bool
	Children map[string]*Fields
}

// NewFields builds the tree of pointers ("" is the whole data).
func NewFields(pointers []string) *Fields {
	root := &Fields{}
	for _, p := range pointers {
		n := root
		for _, tok := range jsonpos.Split(p) {
			if n.All {
				break
			}
			if n.Children == nil {
				n.Children = map[string]*Fields{}
			}
			c := n.Children[tok]
			if c == nil {
				c = &Fields{}
				n.Children[tok] = c
			}
			n = c
		}
		n.All, n.Children = true, nil
	}
	return root
}

// Reads reports whether the set reads the value at pointer, a parent of
// it or a child of it (a change there can reach what is read). An index
// or a "-" token stands for every array item, on either side: a contract
// run reads every item whatever index the contract names, so /lines/0/sku
// and /lines/3/sku are one field. (A property named like an index is then
// taken for its neighbours: an answer that names a reader too many.)
func (f *Fields) Reads(pointer string) bool { return f.reads(jsonpos.Split(pointer)) }

func (f *Fields) reads(toks []string) bool {
	if f.All || len(toks) == 0 {
		return true
	}
	tok := toks[0]
	for name, c := range f.Children {
		if name == tok || (IsIndex(tok) && IsIndex(name)) || sameJSONName(name, tok) {
			if c.reads(toks[1:]) {
				return true
			}
		}
	}
	return false
}

// sameJSONName reports whether two tokens name the same field as a
// Protobuf message's JSON form names it (order_id is orderId): a
// contract may name a field either way, and a Protobuf finding's pointer
// uses the declared name. A JSON Schema property pair so alike is then
// taken for one: an answer that names a reader too many.
func sameJSONName(a, b string) bool {
	if !strings.Contains(a, "_") && !strings.Contains(b, "_") {
		return false
	}
	return jsonCamelCase(a) == jsonCamelCase(b)
}

// jsonCamelCase is protoc's JSON name of a field name: each '_' dropped
// and the lower-case letter after it upper-cased.
func jsonCamelCase(s string) string {
	b := make([]byte, 0, len(s))
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			upper = true
			continue
		case upper && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		upper = false
		b = append(b, c)
	}
	return string(b)
}

// IsIndex reports whether a pointer token names an array item (a
// decimal index without leading zeros, or "-" for any item).
func IsIndex(tok string) bool {
	if tok == "-" {
		return true
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return false
	}
	for _, r := range tok {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// FirstFailing is the shortest prefix length in 1..n that fails ok, for
// a test that holds for every prefix of a prefix that holds (a pointer
// that resolves): a binary search, log2(n) tests. ok(n) must be false.
func FirstFailing(n int, ok func(int) bool) int {
	return 1 + sort.Search(n, func(i int) bool { return !ok(i + 1) })
}
