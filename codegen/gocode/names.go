package gocode

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// commonInitialisms are written in upper case inside identifiers (the list
// golint used).
var commonInitialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IP": true, "JSON": true, "LHS": true, "QPS": true, "RAM": true, "RHS": true,
	"RPC": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true, "TCP": true,
	"TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true, "UUID": true,
	"URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true, "XMPP": true,
	"XSRF": true, "XSS": true,
}

// words splits a name into words: at every rune that is neither a letter
// nor a digit, at lower-to-upper changes (orderId), and before the last
// capital of an upper-case run followed by lower case (HTTPServer).
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// ExportedName turns any text into an exported Go identifier: words in
// CamelCase, common initialisms upper case, "X" in front when the result
// would not start with an upper-case letter (a digit, a letter without
// case). It never returns a name containing '_' (see Disambiguate).
func ExportedName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if up := strings.ToUpper(w); commonInitialisms[up] {
			b.WriteString(up)
			continue
		}
		r, size := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[size:])
	}
	name := b.String()
	if r, _ := utf8.DecodeRuneInString(name); name == "" || !unicode.IsUpper(r) {
		name = "X" + name
	}
	return name
}

// escapeName is an injective spelling of s made of identifier characters,
// used to tell apart names that ExportedName maps to the same identifier:
// letters and digits stay, '_' doubles, anything else becomes _xHEX_.
func escapeName(s string) string {
	if s == "" {
		return "_empty"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '_':
			b.WriteString("__")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "_x%x_", r)
		}
	}
	return b.String()
}

// Disambiguate assigns names to members (struct fields, enum constants):
// raw are the JSON names, base the identifier each maps to, reserved names
// that may not be used (methods). Members whose base name is unique and
// not reserved keep it; the others get base_escapeName(raw), which depends
// only on their own spelling, so adding a member never renames another
// one that did not collide.
func Disambiguate(raw, base []string, reserved map[string]bool) []string {
	count := map[string]int{}
	for _, b := range base {
		count[b]++
	}
	out := make([]string, len(raw))
	for i := range raw {
		if count[base[i]] == 1 && !reserved[base[i]] {
			out[i] = base[i]
		} else {
			out[i] = base[i] + "_" + escapeName(raw[i])
		}
	}
	return out
}

// TypeBaseName is the Go name of an event type: the segments after a
// reverse-DNS prefix (the first two of three or more), in CamelCase:
// com.example.order.placed -> OrderPlaced.
func TypeBaseName(typ string) string {
	segs := strings.Split(typ, ".")
	if len(segs) >= 3 {
		segs = segs[2:]
	}
	return ExportedName(strings.Join(segs, " "))
}

// Snake turns an identifier into a file name stem: OrderPlaced ->
// order_placed.
func Snake(name string) string {
	var b strings.Builder
	for i, w := range words(name) {
		if i > 0 {
			b.WriteByte('_')
		}
		for _, r := range strings.ToLower(w) {
			if r < utf8.RuneSelf {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, "u%x", r)
			}
		}
	}
	return b.String()
}
