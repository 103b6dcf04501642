package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Canonical renders a decoded JSON value (as produced by jsonstrict) in a
// canonical form: object keys sorted by code point, no insignificant
// whitespace, numbers in one spelling (1.0, 1 and 1e0 are the same number).
// Two schema files that differ only in formatting have the same canonical
// form, so reformatting a published version does not count as editing it
// (the digest of a JSON Schema version, of a registry's schema).
func Canonical(v any) []byte {
	var b strings.Builder
	writeCanonical(&b, v)
	return []byte(b.String())
}

func writeCanonical(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case json.Number:
		b.WriteString(canonicalNumber(string(t)))
	case float64:
		b.WriteString(canonicalNumber(strconv.FormatFloat(t, 'g', -1, 64)))
	case string:
		writeString(b, t)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, t[k])
		}
		b.WriteByte('}')
	default:
		data, _ := json.Marshal(t)
		b.Write(data)
	}
}

// canonicalNumber spells every number one way: integers without fraction
// or exponent, others as their exact decimal.
func canonicalNumber(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	return string(Number(r))
}

func writeString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
