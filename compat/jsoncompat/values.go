package jsoncompat

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonpos"
	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// JSON type bits. Numbers are split into integers and non-integers so that
// `integer` ⊂ `number` is an ordinary subset of bits.
type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBoolean
	tInteger
	tFraction // numbers with a fractional part
	tString
	tArray
	tObject

	tNumber = tInteger | tFraction
	tAll    = tNull | tBoolean | tNumber | tString | tArray | tObject
)

var typeOrder = []typeMask{tNull, tBoolean, tInteger, tFraction, tString, tArray, tObject}

func (m typeMask) has(t typeMask) bool { return m&t != 0 }

func (m typeMask) String() string {
	var parts []string
	for _, t := range typeOrder {
		if !m.has(t) {
			continue
		}
		switch t {
		case tNull:
			parts = append(parts, "null")
		case tBoolean:
			parts = append(parts, "boolean")
		case tInteger:
			if m.has(tFraction) {
				parts = append(parts, "number")
			} else {
				parts = append(parts, "integer")
			}
		case tFraction:
			if !m.has(tInteger) {
				parts = append(parts, "non-integer numbers")
			}
		case tString:
			parts = append(parts, "string")
		case tArray:
			parts = append(parts, "array")
		case tObject:
			parts = append(parts, "object")
		}
	}
	return strings.Join(parts, ", ")
}

// maskOfTypes converts a compiled `type` keyword (nil: every type).
func maskOfTypes(t *jsonschema.Types) typeMask {
	if t == nil {
		return tAll
	}
	// Types is a bit set whose bits the library keeps private: test each
	// name's bit rather than listing the names (which allocates).
	var m typeMask
	for _, name := range jsonTypeNames {
		var one jsonschema.Types
		one.Add(name)
		if int(*t)&int(one) != 0 {
			m |= maskOfName(name)
		}
	}
	return m
}

// jsonTypeNames are the names a `type` keyword may hold.
var jsonTypeNames = [...]string{"null", "boolean", "number", "integer", "string", "array", "object"}

func maskOfName(s string) typeMask {
	switch s {
	case "null":
		return tNull
	case "boolean":
		return tBoolean
	case "integer":
		return tInteger
	case "number":
		return tNumber
	case "string":
		return tString
	case "array":
		return tArray
	case "object":
		return tObject
	}
	return 0
}

// maskOfValue is the type bit of a JSON value.
func maskOfValue(v any) typeMask {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	default:
		if r, ok := jsonvalue.Rat(v); ok {
			if r.IsInt() {
				return tInteger
			}
			return tFraction
		}
	}
	return 0
}

// compactJSON renders a value on one line.
func compactJSON(v any) string {
	b, err := jsonvalue.Marshal(v, "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// loc appends keyword tokens to a schema location ("url#/ptr").
func loc(s *jsonschema.Schema, tokens ...string) string {
	if s == nil {
		return ""
	}
	l := s.Location
	if !strings.Contains(l, "#") {
		l += "#"
	}
	for _, t := range tokens {
		l += "/" + url.PathEscape(jsonpos.Escape(t))
	}
	return l
}

// splitLocation splits "url#/ptr" into the resource URL and the unescaped
// JSON pointer.
func splitLocation(l string) (base, pointer string) {
	base, frag, _ := strings.Cut(l, "#")
	if p, err := url.PathUnescape(frag); err == nil {
		frag = p
	}
	return base, frag
}

// instance paths ----------------------------------------------------------

// anyIndex in an instance path stands for "some array item".
const anyIndex = "*"

type ipath []string

func (p ipath) add(tok string) ipath {
	out := make(ipath, len(p)+1)
	copy(out, p)
	out[len(p)] = tok
	return out
}

func (p ipath) String() string {
	if len(p) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		if t == anyIndex {
			b.WriteString("-")
			continue
		}
		b.WriteString(jsonpos.Escape(t))
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func quoteList(vals []any, max int) string {
	var parts []string
	for i, v := range vals {
		if i == max {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vals)-max))
			break
		}
		parts = append(parts, compactJSON(v))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// valueKey is a canonical text of a JSON value: two values are equal for
// JSON Schema (numbers by value, objects regardless of member order) iff
// their keys are equal. Sets of enum values are hashed by it, so comparing
// two enums of n values costs n, not n².
func valueKey(v any) string {
	var b strings.Builder
	writeValueKey(&b, v)
	return b.String()
}

func writeValueKey(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteByte('n')
	case bool:
		if t {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case string:
		b.WriteString(strconv.Quote(t))
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedKeys(t) {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeValueKey(b, t[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range t {
			writeValueKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		if r, ok := jsonvalue.Rat(v); ok {
			b.WriteByte('#')
			b.WriteString(r.RatString())
			return
		}
		fmt.Fprintf(b, "?%T:%v", v, v)
	}
}

// valueIndex maps each value's key to its first index in a list.
func valueIndex(vals []any) map[string]int {
	m := make(map[string]int, len(vals))
	for i, v := range vals {
		k := valueKey(v)
		if _, ok := m[k]; !ok {
			m[k] = i
		}
	}
	return m
}

// maxShownValues bounds the enum values a finding carries as its old or
// new value: an enum of 100,000 values is shown by its first ones.
const maxShownValues = 20

// shownValues is vals, or its first maxShownValues and a last element
// saying how many were left out.
func shownValues(vals []any) []any {
	if len(vals) <= maxShownValues {
		return vals
	}
	out := append([]any(nil), vals[:maxShownValues]...)
	return append(out, fmt.Sprintf("… %d more", len(vals)-maxShownValues))
}
