package catalog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Template maps (type, version) to a dataschema URI and back, e.g.
// https://schemas.example.com/{type}/v{version}.json.
type Template struct {
	raw                    string
	prefix, middle, suffix string
}

// ParseTemplate checks a dataschema template: {type} must come before
// {version}, each exactly once, with something between them.
func ParseTemplate(s string) (*Template, error) {
	if strings.Count(s, "{type}") != 1 || strings.Count(s, "{version}") != 1 {
		return nil, fmt.Errorf("dataschema template %q must contain {type} and {version} once each", s)
	}
	ti, vi := strings.Index(s, "{type}"), strings.Index(s, "{version}")
	if vi < ti {
		return nil, fmt.Errorf("dataschema template %q: {type} must come before {version}", s)
	}
	t := &Template{raw: s, prefix: s[:ti], middle: s[ti+len("{type}") : vi], suffix: s[vi+len("{version}"):]}
	if t.middle == "" {
		return nil, fmt.Errorf("dataschema template %q: {type} and {version} need a separator", s)
	}
	return t, nil
}

// String returns the template text.
func (t *Template) String() string { return t.raw }

// Format fills the template.
func (t *Template) Format(typ string, version int) string {
	return t.prefix + typ + t.middle + strconv.Itoa(version) + t.suffix
}

// ErrNoMatch is returned by Parse for a URI the template cannot produce.
var ErrNoMatch = errors.New("dataschema does not match the catalog's template")

// Parse inverts Format.
func (t *Template) Parse(uri string) (typ string, version int, err error) {
	if !strings.HasPrefix(uri, t.prefix) || !strings.HasSuffix(uri, t.suffix) || len(uri) < len(t.prefix)+len(t.suffix) {
		return "", 0, ErrNoMatch
	}
	inner := uri[len(t.prefix) : len(uri)-len(t.suffix)]
	i := strings.LastIndex(inner, t.middle)
	if i <= 0 {
		return "", 0, ErrNoMatch
	}
	typ, num := inner[:i], inner[i+len(t.middle):]
	if num == "" || num[0] == '0' || strings.TrimLeft(num, "0123456789") != "" || len(num) > 9 {
		return "", 0, ErrNoMatch
	}
	version, _ = strconv.Atoi(num)
	if t.Format(typ, version) != uri {
		return "", 0, ErrNoMatch
	}
	return typ, version, nil
}
