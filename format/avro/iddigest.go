package avro

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evtool/evtool/format"
)

// SchemaIDDigest is the SHA-256 of the schema's JSON with documentation
// and logical types kept (the Parsing Canonical Form drops them), whatever
// file each named type is written in, and numbers with a fraction or
// exponent in one spelling (Confluent's registry hands back Java's, 1.0
// for a double).
func (Provider) SchemaIDDigest(sch format.Schema) string {
	s, ok := sch.(*Schema)
	if !ok {
		return format.DigestOf(sch.Canonical())
	}
	sum := sha256.Sum256(append([]byte("avro\n"), sameNumbers(s.JSON())...))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sameNumbers rewrites the numbers of JSON text (defaults) that have a
// fraction or an exponent in one spelling of their float64 value: 1,
// 1.0 and 1e0 are one default. Integers stay as written, so 64-bit
// values are never rounded. Text that does not decode stays as it is.
func sameNumbers(text []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return text
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if !strings.ContainsAny(string(v), ".eE") {
				return v
			}
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return v
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = walk(v[k])
			}
		}
		return v
	}
	out, err := json.Marshal(walk(doc))
	if err != nil {
		return text
	}
	return out
}
