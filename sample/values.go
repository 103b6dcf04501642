package sample

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// normalize deep-copies a JSON value (as found in a compiled schema's const,
// enum or default) into the sampler's representation: numbers become
// json.Number, maps and slices are fresh.
func normalize(v any) any {
	switch v := v.(type) {
	case nil, bool, string, json.Number:
		return v
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return json.Number("0")
		}
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	case float32:
		return json.Number(strconv.FormatFloat(float64(v), 'g', -1, 32))
	case int:
		return json.Number(strconv.FormatInt(int64(v), 10))
	case int8:
		return json.Number(strconv.FormatInt(int64(v), 10))
	case int16:
		return json.Number(strconv.FormatInt(int64(v), 10))
	case int32:
		return json.Number(strconv.FormatInt(int64(v), 10))
	case int64:
		return json.Number(strconv.FormatInt(v, 10))
	case uint:
		return json.Number(strconv.FormatUint(uint64(v), 10))
	case uint8:
		return json.Number(strconv.FormatUint(uint64(v), 10))
	case uint16:
		return json.Number(strconv.FormatUint(uint64(v), 10))
	case uint32:
		return json.Number(strconv.FormatUint(uint64(v), 10))
	case uint64:
		return json.Number(strconv.FormatUint(v, 10))
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = normalize(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = normalize(e)
		}
		return a
	default:
		return fmt.Sprint(v)
	}
}

// deepCopy copies maps and slices of a JSON value.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = deepCopy(e)
		}
		return a
	default:
		return v
	}
}

// numRat returns the exact value of a JSON number, or nil if v is not one.
func numRat(v any) *big.Rat {
	switch v := v.(type) {
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		r, ok := new(big.Rat).SetString(fmt.Sprint(v))
		if !ok {
			return nil
		}
		return r
	}
	return nil
}

// jsonEqual compares JSON values the way JSON Schema does (numbers by value).
func jsonEqual(a, b any) bool {
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
			if !ok || !jsonEqual(av, bv) {
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
			if !jsonEqual(a[i], ba[i]) {
				return false
			}
		}
		return true
	}
	ra, rb := numRat(a), numRat(b)
	return ra != nil && rb != nil && ra.Cmp(rb) == 0
}

// ratString renders r as a JSON number: an integer, or an exact decimal
// when r's denominator divides a power of ten (it does for every value
// derived from JSON numbers), else a 40-digit approximation.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	if n, ok := decimalPlaces(r); ok {
		return trimZeros(r.FloatString(n))
	}
	return trimZeros(r.FloatString(40))
}

func trimZeros(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			j := len(s)
			for j > i+1 && s[j-1] == '0' {
				j--
			}
			if j == i+1 {
				j = i
			}
			return s[:j]
		}
	}
	return s
}

// maxRatBits bounds the size of numbers the sampler computes with; larger
// bounds or multipleOf values are reported as unsatisfiable.
const maxRatBits = 4096

var (
	big5  = big.NewInt(5)
	big10 = big.NewInt(10)
)

// decimalPlaces returns the number of decimal digits needed to write r
// exactly, if r's denominator has no prime factors other than 2 and 5.
func decimalPlaces(r *big.Rat) (int, bool) {
	if r.Denom().BitLen() > maxRatBits {
		return 0, false
	}
	d := new(big.Int).Set(r.Denom())
	twos := int(d.TrailingZeroBits())
	d.Rsh(d, uint(twos))
	fives := 0
	m := new(big.Int)
	for {
		q, rem := new(big.Int).QuoRem(d, big5, m)
		if rem.Sign() != 0 {
			break
		}
		d = q
		fives++
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return 0, false
	}
	return max(twos, fives), true
}

func numberOf(r *big.Rat) json.Number { return json.Number(ratString(r)) }

// pow10 returns 10^n as a Rat (n may be negative).
func pow10(n int) *big.Rat {
	if n >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Exp(big10, big.NewInt(int64(n)), nil))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big10, big.NewInt(int64(-n)), nil))
}
