package codegen

import (
	"fmt"
	"go/token"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// validPackageName reports whether p can name the generated package.
func validPackageName(p string) error {
	if p == "" {
		return fmt.Errorf("package name is empty")
	}
	if !token.IsIdentifier(p) {
		return fmt.Errorf("package name %q is not a Go identifier", p)
	}
	if p == "_" || p == "main" || p == "init" { // init cannot be imported under its own name
		return fmt.Errorf("package name %q cannot name a library package", p)
	}
	return nil
}

// DefaultPackage derives a package name from an output directory's base
// name ("" when it cannot).
func DefaultPackage(dir string) string {
	base := dir
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			b.WriteRune(r)
		}
	}
	p := b.String()
	if validPackageName(p) != nil || p[0] >= '0' && p[0] <= '9' {
		return ""
	}
	return p
}

// scope is the package scope of the generated code: every exported
// identifier with where it comes from, so that two sources never silently
// share a name.
type scope struct {
	names map[string]string
}

func newScope() *scope { return &scope{names: map[string]string{}} }

// declare claims name for origin; it fails naming both origins when the
// name is taken.
func (s *scope) declare(name, origin string) error {
	if prev, ok := s.names[name]; ok {
		if prev == origin {
			return nil
		}
		hint := "give one of them a different title or $defs key"
		if typeLevelOrigin().MatchString(prev) && typeLevelOrigin().MatchString(origin) {
			// These names come from the event type's name alone.
			hint = "rename one of the event types"
		}
		return fmt.Errorf("Go name %s is produced by both %s and %s: %s", name, prev, origin, hint)
	}
	s.names[name] = origin
	return nil
}

// typeLevelOrigin matches the origins of the names made from an event
// type's name: "event type T" and "T vN".
var typeLevelOrigin = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(event type \S+|\S+ v[0-9]+)$`) })
