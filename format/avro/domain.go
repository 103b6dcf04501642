package avro

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"

	"github.com/evtool/evtool/internal/jsonpos"
)

// log2of10 bounds a decimal's digits by its bit length: a value of L bits
// has about L/log2(10) digits.
const log2of10 = 3.321928094887362

// DecimalFits reports whether b, a decimal's unscaled value (big-endian
// two's complement, as bytes and fixed decimals hold it), has at most
// precision digits. A value far longer than the precision allows is
// refused by its bit length, so a megabyte of digits costs no conversion.
func DecimalFits(b []byte, precision int) bool {
	return decimalFits(b, precision, nil)
}

// decimalFits is DecimalFits with 10^precision kept in limits across the
// values of a datum (an array of wide decimals computes it once).
func decimalFits(b []byte, precision int, limits map[int]*big.Int) bool {
	u := decimalUnscaled(b)
	u.Abs(u)
	bits := u.BitLen()
	switch {
	case float64(bits-1) >= float64(precision)*log2of10:
		return false // |u| >= 2^(bits-1) >= 10^precision
	case float64(bits) <= float64(precision)*log2of10-1:
		return true // |u| < 2^bits < 10^precision
	}
	limit := limits[precision]
	if limit == nil {
		limit = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
		if limits != nil {
			limits[precision] = limit
		}
	}
	return u.Cmp(limit) < 0
}

// decimalUnscaled reads a decimal's big-endian two's complement bytes.
func decimalUnscaled(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// DecimalBytes is unscaled as a decimal's bytes: the shortest big-endian
// two's complement, or sign-extended to size bytes when size >= 0 (a
// fixed; a value that does not fit keeps its low bytes).
func DecimalBytes(unscaled *big.Int, size int) []byte {
	var b []byte
	if unscaled.Sign() >= 0 {
		b = unscaled.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
	} else {
		// -x in n bytes is 2^(8n) - x, for the smallest n with
		// x <= 2^(8n-1).
		x1 := new(big.Int).Neg(unscaled)
		n := x1.Sub(x1, big.NewInt(1)).BitLen()/8 + 1
		b = new(big.Int).Add(unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*n))).Bytes()
		for len(b) < n {
			b = append([]byte{0}, b...)
		}
		if b[0]&0x80 == 0 {
			b = append([]byte{0xff}, b...)
		}
	}
	if size < 0 {
		return b
	}
	if len(b) > size {
		return b[len(b)-size:]
	}
	pad := byte(0)
	if unscaled.Sign() < 0 {
		pad = 0xff
	}
	out := make([]byte, size-len(b), size)
	for i := range out {
		out[i] = pad
	}
	return append(out, b...)
}

// reachingDecimal is the set of nodes under root from which a decimal is
// reachable: the domain walk skips the parts of a datum (an array of a
// million nulls) that hold none; nil when the schema has no decimal.
func reachingDecimal(root *Node) map[*Node]bool {
	return reaching(root, func(n *Node) bool { return n.Logical == "decimal" })
}

// domainCheck walks a datum for values outside their logical type's
// domain.
type domainCheck struct {
	reach  map[*Node]bool
	limits map[int]*big.Int
}

// check reports the first value of datum (physical form) outside
// its logical type's domain: a decimal with more digits than its
// precision, which the library decodes without a word and the gate treats
// as a break (avro-decimal-precision-narrowed). The error names the value
// by its JSON pointer in the datum's JSON encoding.
func (dc *domainCheck) check(n *Node, v any, ptr string) error {
	if !dc.reach[n] {
		return nil
	}
	switch n.Kind {
	case "bytes", "fixed":
		b, ok := v.([]byte)
		if ok && n.Logical == "decimal" && !decimalFits(b, n.Precision, dc.limits) {
			if ptr == "" {
				ptr = "/"
			}
			return fmt.Errorf("%s: decimal(%d,%d) value of %s does not fit its precision of %d digits", ptr, n.Precision, n.Scale, digitCount(b), n.Precision)
		}
	case "record":
		m, _ := v.(map[string]any)
		for _, f := range n.Fields {
			if err := dc.check(f.Type, m[f.Name], ptr+jsonpos.Join(f.Name)); err != nil {
				return err
			}
		}
	case "union":
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for _, b := range n.Branches {
			if val, ok := m[b.BranchName()]; ok {
				return dc.check(b, val, ptr+jsonpos.Join(b.BranchName()))
			}
		}
	case "array":
		list, _ := v.([]any)
		for i, item := range list {
			if err := dc.check(n.Items, item, ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case "map":
		m, _ := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			val := m[k]
			if err := dc.check(n.Values, val, ptr+jsonpos.Join(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// digitCount says how many digits a decimal's unscaled value has: exactly
// for short values, else an estimate from its bit length (printing a
// megabyte of digits would cost more than the check).
func digitCount(b []byte) string {
	u := decimalUnscaled(b)
	u.Abs(u)
	if len(b) <= 64 {
		return strconv.Itoa(len(u.String())) + " digits"
	}
	return fmt.Sprintf("about %d digits", int(float64(u.BitLen())/log2of10)+1)
}

// decimal samples a decimal that fits its precision (decoding refuses the
// others): 0, ±1 and ±(10^k - 1) at the edges, with k the precision up to
// 18 digits, else a random value of at most k digits.
func (g *generator) decimal(n *Node) []byte {
	k := min(n.Precision, 18)
	most := int64(1)
	for range k {
		most *= 10
	}
	most--
	edges := []int64{0, 1, -1, most, -most}
	if n.Kind == "fixed" && n.Size > sharedFixed {
		// A big fixed is mostly sign extension: its decimals are the edge
		// values only, each made once and shared, as big fixed values
		// are (a megabyte per sample cost gigabytes in witness search).
		v := edges[g.index%len(edges)]
		if !g.edges {
			v = edges[g.rng.IntN(len(edges))]
		}
		k := decimalKey{v, n.Size}
		if b, ok := g.decimals[k]; ok {
			return b[:len(b):len(b)]
		}
		if g.decimals == nil {
			g.decimals = map[decimalKey][]byte{}
		}
		b := DecimalBytes(big.NewInt(v), n.Size)
		g.decimals[k] = b
		return b[:len(b):len(b)]
	}
	v := pick(g, edges, func() int64 { return g.rng.Int64N(2*most+1) - most })
	size := -1
	if n.Kind == "fixed" {
		size = n.Size
	}
	return DecimalBytes(big.NewInt(v), size)
}
