package jsonschema

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

func TestMatchString(t *testing.T) {
	for _, pattern := range []string{`/shop/[a-z]{3}-[0-9]+`, `urn:(a|bb):x`} {
		rng := func() *rand.Rand { return rand.New(rand.NewPCG(3, 1)) }
		s, err := Provider{}.MatchString(pattern, rng())
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^(?:` + pattern + `)$`).MatchString(s) {
			t.Errorf("%q does not match %s", s, pattern)
		}
		if again, _ := (Provider{}).MatchString(pattern, rng()); again != s {
			t.Errorf("the same rng state gave %q, then %q", s, again)
		}
	}
	if _, err := (Provider{}).MatchString(`(`, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("an invalid pattern gave no error")
	}
}
