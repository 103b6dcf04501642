package rt

import (
	"math/big"
)

// evtMultipleOf reports whether the number lit is a multiple of m (a
// positive number literal), exactly.
func evtMultipleOf(lit []byte, m string) bool {
	v, q := evtParseDec(string(lit)), evtParseDec(m)
	if v.d == "" {
		return true
	}
	if q.d == "" {
		return false
	}
	// v/q = (Dv/Dq) * 10^k
	k := v.exp - q.exp
	dv, _ := new(big.Int).SetString(v.d, 10)
	dq, _ := new(big.Int).SetString(q.d, 10)
	if k >= 0 {
		// Dq divides Dv * 10^k
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), dq)
		p.Mul(p, dv)
		return p.Mod(p, dq).Sign() == 0
	}
	// Dq * 10^-k divides Dv: impossible when the divisor has more digits
	if -k > len(v.d) {
		return false
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-k)), nil)
	div.Mul(div, dq)
	return new(big.Int).Mod(dv, div).Sign() == 0
}
