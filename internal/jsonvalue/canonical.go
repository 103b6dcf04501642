package jsonvalue

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Canonical renders a decoded JSON value (as produced by jsonstrict) in a
// canonical form: object keys sorted by code point, no insignificant
// whitespace, numbers in one spelling (1.0, 1 and 1e0 are the same number).
// Two documents that differ only in formatting have the same canonical
// form, so reformatting a schema does not count as editing it.
func Canonical(v any) []byte {
	var b strings.Builder
	writeCanonical(&b, v)
	return []byte(b.String())
}

// Digest is "sha256:" and the hex SHA-256 of the canonical form (the
// spelling of format.DigestOf, which this package cannot import).
func Digest(v any) string {
	sum := sha256.Sum256(Canonical(v))
	return "sha256:" + hex.EncodeToString(sum[:])
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

// MarshalIndent renders a decoded document as indented JSON without HTML
// escaping; json.Number values keep their spelling.
func MarshalIndent(doc any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
