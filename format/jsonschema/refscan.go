package jsonschema

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"strings"

	"github.com/evtool/evtool/format"
)

var _ format.ReferenceScanner = Provider{}

// ScanReferences finds the $refs (and $dynamicRef, $recursiveRef,
// $schema) and the $ids (and draft-4 ids) of a schema file from its raw
// bytes, without decoding it unless it must (scanJSON).
func (Provider) ScanReferences(rel string, data []byte) format.References {
	return scanJSON(rel, data)
}

// isRefKey reports whether a key's string value names another resource;
// isIDKey whether it names the schema itself.
func isRefKey(k string) bool {
	return k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" || k == "$schema"
}

func isIDKey(k string) bool { return k == "$id" || k == "id" }

// scanJSON finds "$ref": "..." (and the other keys) in the raw bytes.
// A key written with \u escapes would hide from a byte search, so a file
// holding any decodes whole instead. Occurrences inside other strings
// only add references, which errs on the safe side.
func scanJSON(rel string, data []byte) format.References {
	var refs, ids []string
	if bytes.Contains(data, []byte(`\u`)) {
		var doc any
		if json.Unmarshal(data, &doc) != nil {
			return format.References{} // the loader reads nothing from it either
		}
		walkJSONKeys(doc, func(k, v string) {
			if isRefKey(k) {
				refs = append(refs, v)
			} else {
				ids = append(ids, v)
			}
		})
	} else {
		refs, ids = keyStrings(data)
	}
	var s format.References
	for _, id := range ids {
		if u, err := url.Parse(id); err == nil && u.IsAbs() {
			u.Fragment = ""
			s.IDs = append(s.IDs, format.URLKey(u.String()))
		}
		if seg := lastSegment(id); seg != "" {
			s.IDs = append(s.IDs, format.SegmentKey(seg))
		}
	}
	for _, r := range refs {
		k, ok := refKey(rel, r, len(ids) > 0)
		switch {
		case !ok:
			s.Anything = true
		case k != "":
			s.Refs = append(s.Refs, k)
		}
	}
	return s
}

// refKey is the match key (format.RefKey) of reference r in the file at rel: the path it
// names (a relative reference in a file without $id), the absolute URL
// (matched against $ids), or its last path segment (a relative
// reference resolved against a $id the scan does not place). "" is a
// reference inside the file; false one the scan cannot place.
func refKey(rel, r string, hasID bool) (format.RefKey, bool) {
	if strings.HasPrefix(r, "#") || r == "" {
		return "", true
	}
	if strings.ContainsAny(r, `%\?`) {
		return "", false
	}
	u, err := url.Parse(r)
	if err != nil {
		return "", false
	}
	if u.IsAbs() {
		if strings.EqualFold(u.Scheme, "file") {
			return format.URLKey("file:"), true // refused by the caller (RefKey.IsFileURL)
		}
		// The compiler asks for the reference resolved, which drops its
		// dot segments (https://x/b/../a is https://x/a): so does the key.
		resolved, _, _ := strings.Cut(ResolveRef(FileURL(rel), r), "#")
		return format.URLKey(resolved), true
	}
	ref, _, _ := strings.Cut(r, "#")
	if strings.HasPrefix(ref, "/") {
		return "", false
	}
	if hasID {
		seg := lastSegment(ref)
		if seg == "" {
			return "", false
		}
		return format.SegmentKey(seg), true
	}
	p := path.Join(path.Dir(rel), ref)
	if strings.HasSuffix(ref, "/") || path.Base(ref) == "." || path.Base(ref) == ".." {
		return "", false
	}
	return format.PathKey(p), true
}

// lastSegment is the lower-cased last path segment of a reference or
// $id, without fragment or query; "" when there is none to match.
func lastSegment(s string) string {
	s, _, _ = strings.Cut(s, "#")
	s, _, _ = strings.Cut(s, "?")
	if i := strings.LastIndexAny(s, "/:"); i >= 0 {
		s = s[i+1:]
	}
	if s == "." || s == ".." {
		return ""
	}
	return strings.ToLower(s)
}

// keyStrings returns the string values of every `"key": "value"` in
// data whose key is a reference key (refs) or an id key (ids), JSON
// escapes in the value decoded, in two passes over the bytes.
func keyStrings(data []byte) (refs, ids []string) {
	for _, needle := range [][]byte{[]byte(`"$`), []byte(`"id"`)} {
		for i := 0; ; {
			j := bytes.Index(data[i:], needle)
			if j < 0 {
				break
			}
			start := i + j + 1
			end := bytes.IndexByte(data[start:], '"')
			if end < 0 {
				break
			}
			key := string(data[start : start+end])
			i = start + end + 1
			isRef := isRefKey(key)
			if !isRef && !isIDKey(key) {
				continue
			}
			v, next, ok := stringValue(data, i)
			if !ok {
				continue
			}
			i = next
			if isRef {
				refs = append(refs, v)
			} else {
				ids = append(ids, v)
			}
		}
	}
	return refs, ids
}

// stringValue reads `: "value"` at data[i:]: the value (JSON escapes
// decoded; "%" when they do not decode, a reference placed nowhere) and
// where it ends.
func stringValue(data []byte, i int) (string, int, bool) {
	k := skipSpace(data, i)
	if k >= len(data) || data[k] != ':' {
		return "", i, false
	}
	k = skipSpace(data, k+1)
	if k >= len(data) || data[k] != '"' {
		return "", i, false
	}
	end := k + 1
	for end < len(data) && data[end] != '"' {
		if data[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(data) {
		return "", len(data), false
	}
	var v string
	if json.Unmarshal(data[k:end+1], &v) != nil {
		v = "%"
	}
	return v, end + 1, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// walkJSONKeys calls fn with every reference or id key's string value.
func walkJSONKeys(doc any, fn func(k, v string)) {
	switch t := doc.(type) {
	case map[string]any:
		for k, v := range t {
			if s, ok := v.(string); ok && (isRefKey(k) || isIDKey(k)) {
				fn(k, s)
				continue
			}
			walkJSONKeys(v, fn)
		}
	case []any:
		for _, e := range t {
			walkJSONKeys(e, fn)
		}
	}
}
