package gogen

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestSimplePatterns checks that the generated matchers' algorithm agrees
// with regexp on random strings, and which patterns it takes.
func TestSimplePatterns(t *testing.T) {
	simple := []string{
		`^[A-Z]{3}$`, `^ord-[0-9]{5}$`, `^[A-Z]{3}-[0-9]{4}$`, `^[A-Za-z0-9][A-Za-z0-9 -]{1,10}$`,
		`^[A-Z0-9]{4,12}$`, `^[a-z]+$`, `^x`, `^ab?$`, `^a*$`, `^\d{2}\.\d*$`, `^[^a-c]{2}$`, `^.{0,3}$`,
		`^é[ü-ÿ]{1,2}$`, `^(?i)[a-c]{2}$`, `^[0-9]{4}`, `^[A-Z]+?$`,
	}
	complex := []string{`[A-Z]{3}`, `^(a|b)$`, `^a+b$`, `^(?i)abc$`, `^a{2,}b{3}$`, `\bword\b`, `^x$|^y$`, `^(ab)+$`, `^a+?b`}
	for _, p := range complex {
		if _, ok := compileSimple(p); ok {
			t.Errorf("%s taken as simple", p)
		}
	}
	alphabet := []rune("aAbBcCxyzZ09-. é\nüÿ€")
	rng := rand.New(rand.NewPCG(7, 9))
	for _, p := range simple {
		sp, ok := compileSimple(p)
		if !ok {
			t.Errorf("%s not taken as simple", p)
			continue
		}
		re := regexp.MustCompile(p)
		for i := 0; i < 20000; i++ {
			n := rng.IntN(14)
			rs := make([]rune, n)
			for j := range rs {
				rs[j] = alphabet[rng.IntN(len(alphabet))]
			}
			s := string(rs)
			if i%3 == 0 { // strings near the pattern
				s = sampleNear(p, rng)
			}
			if got, want := sp.match(s), re.MatchString(s); got != want {
				t.Fatalf("%s on %q: simple %v, regexp %v", p, s, got, want)
			}
		}
	}
}

func sampleNear(p string, rng *rand.Rand) string {
	samples := map[string][]string{
		`^[A-Z]{3}$`:     {"EUR", "EU", "EURO", "eur", "E1R"},
		`^ord-[0-9]{5}$`: {"ord-12345", "ord-1234", "ord-123456", "ORD-12345", "ord-1234a"},
	}
	if s, ok := samples[p]; ok {
		return s[rng.IntN(len(s))]
	}
	return ""
}
