// Package jsonvalue holds the operations on decoded JSON values (maps,
// slices, strings, bools, nil and numbers) that several packages need with
// JSON Schema's semantics: numbers compared by value (1 == 1.0), written
// back exactly as json.Number.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Rat returns the exact value of a JSON number held as json.Number, a float
// or an integer type; ok is false for anything else (and for NaN/Inf).
func Rat(v any) (r *big.Rat, ok bool) {
	switch n := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(n))
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(n), true
	case float32:
		return Rat(float64(n))
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case int8:
		return new(big.Rat).SetInt64(int64(n)), true
	case int16:
		return new(big.Rat).SetInt64(int64(n)), true
	case int32:
		return new(big.Rat).SetInt64(int64(n)), true
	case int64:
		return new(big.Rat).SetInt64(n), true
	case uint:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(uint64(n))), true
	case uint8:
		return new(big.Rat).SetInt64(int64(n)), true
	case uint16:
		return new(big.Rat).SetInt64(int64(n)), true
	case uint32:
		return new(big.Rat).SetInt64(int64(n)), true
	case uint64:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(n)), true
	}
	return nil, false
}

// Number writes r as a JSON number: an integer without fraction or
// exponent, an exact decimal when r has one (every value parsed from JSON
// text does), else a 40-digit approximation.
func Number(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	if prec, exact := r.FloatPrec(); exact {
		return json.Number(trimZeros(r.FloatString(prec)))
	}
	return json.Number(trimZeros(r.FloatString(40)))
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Equal compares JSON values as JSON Schema does: numbers by value,
// objects regardless of member order.
func Equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !Equal(a[i], ba[i]) {
				return false
			}
		}
		return true
	}
	ra, ok1 := Rat(a)
	rb, ok2 := Rat(b)
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

// DeepCopy copies the maps and slices of a JSON value.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = DeepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = DeepCopy(e)
		}
		return a
	}
	return v
}

// Normalize deep-copies a JSON value into the representation santhosh's
// validator and encoding/json agree on: numbers of any Go type become
// json.Number, written exactly.
func Normalize(v any) any {
	switch t := v.(type) {
	case nil, bool, string, json.Number:
		return v
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = Normalize(e)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = Normalize(e)
		}
		return a
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return json.Number("0")
		}
		return json.Number(strconv.FormatFloat(t, 'g', -1, 64))
	case float32:
		return json.Number(strconv.FormatFloat(float64(t), 'g', -1, 32))
	}
	if r, ok := Rat(v); ok {
		return Number(r)
	}
	return v
}

// Marshal is json.Marshal without HTML escaping: a counterexample or a
// message holding <, > or & reads as written ({"a<b>":1}, not
// {"a\u003cb\u003e":1}). indent, when set, indents as json.MarshalIndent.
func Marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
