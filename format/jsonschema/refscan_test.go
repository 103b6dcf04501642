package jsonschema

import (
	"slices"
	"testing"

	"github.com/evtool/evtool/format"
)

// TestScanReferences: what the byte scan of a schema file finds, and
// where it must give up (anything) rather than miss a reference.
func TestScanReferences(t *testing.T) {
	for _, tc := range []struct {
		name, rel, text string
		refs, ids       []format.RefKey
		anything        bool
	}{
		{"relative ref, no $id: the path", "a/v1.json", `{"properties": {"x": {"$ref": "../common/s1.json#/$defs/leaf"}}}`,
			[]format.RefKey{format.PathKey("common/s1.json")}, nil, false},
		{"local ref: nothing", "a/v1.json", `{"items": {"$ref": "#/$defs/line"}}`, nil, nil, false},
		{"absolute ref: the URL", "a/v1.json", `{"$ref": "https://example.com/s/x.json#/a"}`,
			[]format.RefKey{format.URLKey("https://example.com/s/x.json")}, nil, false},
		{"with $id, a relative ref resolves through it: its last segment", "a/v1.json",
			`{"$id": "https://example.com/a/v1.json", "$ref": "../b/Addr.json"}`,
			[]format.RefKey{format.SegmentKey("addr.json")}, []format.RefKey{format.URLKey("https://example.com/a/v1.json"), format.SegmentKey("v1.json")}, false},
		{"escaped key: decoded whole", "a/v1.json", `{"\u0024ref": "../common/s2.json"}`,
			[]format.RefKey{format.PathKey("common/s2.json")}, nil, false},
		{"escaped value", "a/v1.json", `{"$ref": "..\/common\/s3.json"}`, []format.RefKey{format.PathKey("common/s3.json")}, nil, false},
		{"percent-encoded ref: anything", "a/v1.json", `{"$ref": "../common/s%31.json"}`, nil, nil, true},
		{"ref to a directory: anything", "a/v1.json", `{"$ref": "../common/"}`, nil, nil, true},
		{"root-absolute path: anything", "a/v1.json", `{"$ref": "/evtool-catalog/common/s1.json"}`, nil, nil, true},
		{"property named id is not an id", "a/v1.json", `{"properties": {"id": {"type": "string"}}, "required": ["id"]}`, nil, nil, false},
		{"$schema is a reference", "a/v1.json", `{"$schema": "meta.json"}`, []format.RefKey{format.PathKey("a/meta.json")}, nil, false},
		{"file: URL: refused by the caller", "a/v1.json", `{"$ref": "file:///evtool-catalog/x.json"}`, []format.RefKey{format.URLKey("file:")}, nil, false},
		{"malformed JSON with escapes: nothing, as the loader reads nothing", "a/v1.json", `{"\u0024ref": `, nil, nil, false},
		{"draft-4 id and $dynamicRef", "a/v1.json", `{"id": "urn:example:a", "$dynamicRef": "#node", "x": {"$recursiveRef": "other.json"}}`,
			[]format.RefKey{format.SegmentKey("other.json")}, []format.RefKey{format.URLKey("urn:example:a"), format.SegmentKey("a")}, false},
		{"paths match without case", "A/v1.json", `{"$ref": "../Common/S1.json"}`, []format.RefKey{format.PathKey("common/s1.json")}, nil, false},
		{"key split by a line break: found", "a/v1.json", "{\"$ref\"\n\t:\r\n \"s.json\"}", []format.RefKey{format.PathKey("a/s.json")}, nil, false},
		{"absolute ref with dot segments: the URL the compiler asks for", "a/v1.json", `{"$ref": "https://example.com/b/../a/./x.json#/a", "x": {"$ref": "HTTPS://example.com/./y"}}`,
			[]format.RefKey{format.URLKey("https://example.com/a/x.json"), format.URLKey("https://example.com/y")}, nil, false},
		{"unterminated value: nothing", "a/v1.json", `{"$ref": "s.json`, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Provider{}.ScanReferences(tc.rel, []byte(tc.text))
			if !slices.Equal(s.Refs, tc.refs) || !slices.Equal(s.IDs, tc.ids) || s.Anything != tc.anything {
				t.Errorf("ScanReferences(%s) = refs %q ids %q anything %v, want refs %q ids %q anything %v", tc.text, s.Refs, s.IDs, s.Anything, tc.refs, tc.ids, tc.anything)
			}
		})
	}
}
