package rt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evtool/evtool/internal/thirdparty/jsonschema"
)

// santhosh's format checks, through a compiled schema.
func formatValid(t *testing.T, format, s string) bool {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(fmt.Sprintf(`{"format": %q}`, format)))
	if err := c.AddResource("mem:///f.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///f.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(s) == nil
}

// The format checks agree with santhosh-tekuri/jsonschema's on valid,
// near-valid and random strings; the date-time fast path agrees with the
// general one.
func TestFormatsAgree(t *testing.T) {
	cases := map[string]struct {
		fn   func(string) bool
		seed []string
	}{
		"date-time": {func(s string) bool { _, ok := evtParseDateTime(s); return ok }, []string{
			"2025-03-03T08:14:09Z", "2025-03-03t08:14:09z", "2025-03-03T08:14:09.123456789123+01:00", "2024-02-29T00:00:00Z",
			"2023-02-29T00:00:00Z", "1998-12-31T23:59:60Z", "1998-12-31T22:59:60-01:00", "2025-13-01T00:00:00Z",
			"2025-03-03T24:00:00Z", "2025-03-03T08:14:09+24:00", "2025-03-03T08:14:09", "2025-03-03T+8:14:09Z",
			"0000-01-01T00:00:00Z", "2025-03-03T08:14:09.Z", "2025-03-03 08:14:09Z", "2025-3-03T08:14:09Z"}},
		"date":          {evtIsDate, []string{"2025-03-03", "2025-02-30", "25-03-03", "2025-03-3", "+025-03-03"}},
		"uuid":          {evtIsUUID, []string{"5d9f2b3e-8c1a-4f6e-9b7d-2a4c6e8f0a1b", "5D9F2B3E-8C1A-4F6E-9B7D-2A4C6E8F0A1B", "5d9f2b3e8c1a4f6e9b7d2a4c6e8f0a1b", "5d9f2b3e-8c1a-4f6e-9b7d-2a4c6e8f0a1g", "5d9f2b3e-8c1a-4f6e-9b7d-2a4c6e8f0a1bb"}},
		"email":         {evtIsEmail, []string{"a@b.c", "a.b@example.com", `"a b"@x.org`, "a..b@x.org", "a@[127.0.0.1]", "a@[IPv6:::1]", "@x.org", "a@", "a@-x.org", "a@x_y.org"}},
		"uri":           {evtIsURI, []string{"https://example.com/x?y#z", "urn:isbn:123", "/relative", "http://[::1]:80/", "http://::1/", "mailto:a@b", "%zz", "http://exa mple.com"}},
		"uri-reference": {evtIsURIReference, []string{"/relative", "a/b", `a\b`, "#frag", "http://[::1]/"}},
		"ipv4":          {evtIsIPV4, []string{"127.0.0.1", "256.0.0.1", "01.0.0.1", "1.2.3", "+1.2.3.4"}},
		"ipv6":          {evtIsIPV6, []string{"::1", "fe80::1%eth0", "1.2.3.4", "2001:db8::"}},
		"hostname":      {evtIsHostname, []string{"example.com", "-x.com", "x-.com", "a_b.com", strings.Repeat("a", 64) + ".com", "example.com."}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for format, c := range cases {
		inputs := append([]string(nil), c.seed...)
		for i := 0; i < 300; i++ {
			s := []byte(c.seed[rng.IntN(len(c.seed))])
			if len(s) > 0 {
				s[rng.IntN(len(s))] = "0123456789:-+.TZtz@[]/ax"[rng.IntN(24)]
			}
			inputs = append(inputs, string(s))
		}
		for _, s := range inputs {
			if got, want := c.fn(s), formatValid(t, format, s); got != want {
				t.Errorf("%s %q: generated %v, santhosh %v", format, s, got, want)
			}
		}
	}
}

func TestDecimals(t *testing.T) {
	for _, c := range []struct {
		a, b string
		cmp  int
	}{{"1", "1.0", 0}, {"1e2", "100", 0}, {"0.1", "1e-1", 0}, {"-0", "0", 0}, {"1e400", "1e399", 1}, {"-1e400", "1", -1},
		{"0.30000000000000004", "0.3", 1}, {"12.5", "125e-1", 0}, {"-2.5", "-2.49", -1}, {"1e-1000000", "0", 1}} {
		if got := evtCmpDec(evtParseDec(c.a), evtParseDec(c.b)); got != c.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", c.a, c.b, got, c.cmp)
		}
	}
	for _, c := range []struct {
		lit  string
		n    int64
		stat int
	}{{"12", 12, 0}, {"1.0", 1, 0}, {"1e2", 100, 0}, {"1.5", 0, 1}, {"9223372036854775807", 1<<63 - 1, 0}, {"-9223372036854775808", -1 << 63, 0},
		{"9223372036854775808", 0, 2}, {"1e19", 0, 2}, {"-0.0", 0, 0}, {"1e-2", 0, 1}, {"123e-1", 0, 1}, {"1200e-2", 12, 0}} {
		n, st := evtParseInt([]byte(c.lit))
		if n != c.n || st != c.stat {
			t.Errorf("parseInt(%s) = %d, %d; want %d, %d", c.lit, n, st, c.n, c.stat)
		}
	}
	for _, c := range []struct {
		v, m string
		ok   bool
	}{{"0.3", "0.1", true}, {"0.35", "0.1", false}, {"10", "2.5", true}, {"1e400", "5", true}, {"1e-400", "1e-401", true}, {"7", "2", false}, {"1e-5", "0.01", false}, {"0", "0.7", true}} {
		if got := evtMultipleOf([]byte(c.v), c.m); got != c.ok {
			t.Errorf("multipleOf(%s, %s) = %v", c.v, c.m, got)
		}
	}
}

func TestEncodeFloat(t *testing.T) {
	for f, want := range map[float64]string{1: "1", 0.1: "0.1", 1e21: "1e+21", 1e-7: "1e-7", -2.5: "-2.5", 123456789: "123456789"} {
		e := evtEncoder{}
		e.float(f)
		if string(e.b) != want {
			t.Errorf("float(%v) = %s, want %s", f, e.b, want)
		}
	}
}

func TestDecoderSyntax(t *testing.T) {
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `1.`, `-`, `"\x"`, "\"\x01\"", `tru`, `{"a":1}}`, `"\ud800"x`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001)} {
		d := evtDecoder{data: []byte(bad)}
		d.skip()
		if d.finish() == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	// Duplicate member names, however spelled and however many members.
	many := `{"a0":1,"a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1,"a8":1,"a9":1,"a3":2}`
	for _, dup := range []string{`{"a":1,"a":2}`, `{"x":{"a":1,"b":{},"\u0061":2}}`, `[{"é":1,"\u00e9":2}]`, many} {
		d := evtDecoder{data: []byte(dup)}
		d.skip()
		if err := d.finish(); err == nil || !strings.Contains(err.Error(), "appears more than once") {
			t.Errorf("%q: %v", dup, err)
		}
	}
	for _, good := range []string{`{}`, `[]`, ` {"a" : [1, -0.5e+3, true, false, null, "x\u00e9\n"]} `, `"\ud83d\ude00"`, `{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, strings.Replace(many, `,"a3":2`, `,"b3":2`, 1)} {
		d := evtDecoder{data: []byte(good)}
		d.skip()
		if err := d.finish(); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}
