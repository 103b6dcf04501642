package catalog

import (
	"slices"
	"testing"
)

// TestScanJSON: what the byte scan of a schema file finds, and where it
// must give up (anything) rather than miss a reference.
func TestScanJSON(t *testing.T) {
	for _, tc := range []struct {
		name, rel, text string
		refs, ids       []string
		anything        bool
	}{
		{"relative ref, no $id: the path", "a/v1.json", `{"properties": {"x": {"$ref": "../common/s1.json#/$defs/leaf"}}}`,
			[]string{"p:common/s1.json"}, nil, false},
		{"local ref: nothing", "a/v1.json", `{"items": {"$ref": "#/$defs/line"}}`, nil, nil, false},
		{"absolute ref: the URL", "a/v1.json", `{"$ref": "https://example.com/s/x.json#/a"}`,
			[]string{"u:https://example.com/s/x.json"}, nil, false},
		{"with $id, a relative ref resolves through it: its last segment", "a/v1.json",
			`{"$id": "https://example.com/a/v1.json", "$ref": "../b/Addr.json"}`,
			[]string{"s:addr.json"}, []string{"u:https://example.com/a/v1.json", "s:v1.json"}, false},
		{"escaped key: decoded whole", "a/v1.json", `{"\u0024ref": "../common/s2.json"}`,
			[]string{"p:common/s2.json"}, nil, false},
		{"escaped value", "a/v1.json", `{"$ref": "..\/common\/s3.json"}`, []string{"p:common/s3.json"}, nil, false},
		{"percent-encoded ref: anything", "a/v1.json", `{"$ref": "../common/s%31.json"}`, nil, nil, true},
		{"ref to a directory: anything", "a/v1.json", `{"$ref": "../common/"}`, nil, nil, true},
		{"root-absolute path: anything", "a/v1.json", `{"$ref": "/evtool-catalog/common/s1.json"}`, nil, nil, true},
		{"property named id is not an id", "a/v1.json", `{"properties": {"id": {"type": "string"}}, "required": ["id"]}`, nil, nil, false},
		{"$schema is a reference", "a/v1.json", `{"$schema": "meta.json"}`, []string{"p:a/meta.json"}, nil, false},
		{"file: URL: refused by the caller", "a/v1.json", `{"$ref": "file:///evtool-catalog/x.json"}`, []string{"u:file:"}, nil, false},
		{"malformed JSON with escapes: nothing, as the loader reads nothing", "a/v1.json", `{"\u0024ref": `, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scanJSON(tc.rel, []byte(tc.text))
			if !slices.Equal(s.refs, tc.refs) || !slices.Equal(s.ids, tc.ids) || s.anything != tc.anything {
				t.Errorf("scanJSON(%s) = refs %q ids %q anything %v, want refs %q ids %q anything %v", tc.text, s.refs, s.ids, s.anything, tc.refs, tc.ids, tc.anything)
			}
		})
	}
}
