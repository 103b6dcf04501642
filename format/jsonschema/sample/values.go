package sample

import (
	"math/big"

	"github.com/evtool/evtool/internal/jsonvalue"
)

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

// numRat returns the exact value of a JSON number, or nil if v is not one.
func numRat(v any) *big.Rat {
	r, _ := jsonvalue.Rat(v)
	return r
}

// pow10 returns 10^n as a Rat (n may be negative).
func pow10(n int) *big.Rat {
	if n >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Exp(big10, big.NewInt(int64(n)), nil))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big10, big.NewInt(int64(-n)), nil))
}
