package sample

import (
	"fmt"
	"strings"
)

// formatString returns a value of the named format. Results are checked by
// the caller against the format's own validator and the other constraints.
func (g *gen) formatString(name string, c *strCons) string {
	r := g.rng
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = lower[r.IntN(len(lower))]
		}
		return string(b)
	}
	hex := func(n int) string {
		const h = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = h[r.IntN(16)]
		}
		return string(b)
	}
	date := func() string {
		return fmt.Sprintf("%04d-%02d-%02d", 1970+r.IntN(90), 1+r.IntN(12), 1+r.IntN(28))
	}
	// Canonical values take the same random draws as edge values, so that
	// the rest of a sample does not change with the option.
	canonical := g.opts.Canonical
	tm := func() string {
		s := fmt.Sprintf("%02d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(60))
		if r.IntN(3) == 0 {
			s += fmt.Sprintf(".%03d", r.IntN(1000))
		}
		if r.IntN(2) == 0 {
			return s + "Z"
		}
		offset := fmt.Sprintf("%s%02d:%s", pick("+", "-"), r.IntN(14), pick("00", "30"))
		if canonical {
			return s + "Z"
		}
		return s + offset
	}
	host := func() string {
		labels := 1 + r.IntN(3)
		parts := make([]string, 0, labels+1)
		for i := 0; i < labels; i++ {
			parts = append(parts, word(1+r.IntN(8)))
		}
		parts = append(parts, pick("com", "org", "net", "io", "example"))
		return strings.Join(parts, ".")
	}
	// target length hint for formats with free-form parts
	extra := 0
	if c.minL > 12 {
		extra = c.minL - 12
	}
	switch name {
	case "date-time":
		if r.IntN(8) == 0 && !canonical {
			return date() + "t" + tm()
		}
		return date() + "T" + tm()
	case "date":
		return date()
	case "time":
		return tm()
	case "duration":
		if extra > 0 {
			return fmt.Sprintf("P%d%sD", 1+r.IntN(9), strings.Repeat("0", extra+9))
		}
		return pick("P1D", "PT1H", "PT1H30M", "P3Y6M4DT12H30M5S", "P2W", "PT0S", "P1M", "PT36H",
			fmt.Sprintf("P%dD", r.IntN(400)), fmt.Sprintf("PT%dM", r.IntN(600)))
	case "period":
		return date() + "T" + tm() + "/" + pick("P1D", "PT2H", date()+"T"+tm())
	case "email", "idn-email":
		local, tag := word(1+r.IntN(8)+extra), pick("", ".x", "+tag")
		if canonical {
			tag = ""
		}
		return local + tag + "@" + host()
	case "hostname", "idn-hostname":
		if extra > 0 {
			return word(min(extra, 60)) + "." + host()
		}
		return host()
	case "ipv4":
		return fmt.Sprintf("%d.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
	case "ipv6":
		switch r.IntN(3) {
		case 0:
			return "::1"
		case 1:
			return "2001:db8::" + hex(1+r.IntN(4))
		}
		parts := make([]string, 8)
		for i := range parts {
			parts[i] = hex(1 + r.IntN(4))
		}
		return strings.Join(parts, ":")
	case "uri", "iri":
		return pick("https", "http", "urn", "mailto") + pick("://", ":") + host() + "/" + word(r.IntN(8)+extra)
	case "uri-reference", "iri-reference":
		return pick("/", "./", "https://"+host()+"/", "#", "") + word(r.IntN(8)+extra)
	case "uri-template":
		return "https://" + host() + "/" + word(1+r.IntN(6)) + "/{" + word(1+r.IntN(5)) + "}"
	case "uuid":
		return hex(8) + "-" + hex(4) + "-4" + hex(3) + "-" + pick("8", "9", "a", "b") + hex(3) + "-" + hex(12)
	case "json-pointer":
		n := r.IntN(4)
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString("/" + pick(word(1+r.IntN(5)), "0", "a~1b", "m~0n"))
		}
		if extra > 0 {
			sb.WriteString("/" + word(extra+12))
		}
		return sb.String()
	case "relative-json-pointer":
		if extra > 0 {
			return fmt.Sprint(r.IntN(4)) + "/" + word(extra+11)
		}
		return fmt.Sprint(r.IntN(4)) + pick("", "#", "/"+word(1+r.IntN(5)))
	case "regex":
		return pick("^[a-z]+$", "a*b", "[0-9]{2,4}", "(foo|bar)", ".*")
	case "semver":
		v := fmt.Sprintf("%d.%d.%d", r.IntN(10), r.IntN(20), r.IntN(100))
		if extra > 0 {
			return v + "-" + word(extra+8)
		}
		return v + pick("", "-alpha.1", "+build.5")
	case "byte":
		return pick("", "YQ==", "aGVsbG8=")
	case "int32", "int64":
		return fmt.Sprint(r.IntN(1000))
	}
	return g.randText(g.targetLen(c))
}
