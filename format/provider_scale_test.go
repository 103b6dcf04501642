package format

import "testing"

// TestRefKey: the match keys of the incremental gate's scans. A path and
// a name match without case, the three kinds of key never match each
// other, and only URL keys say they are URLs.
func TestRefKey(t *testing.T) {
	for _, tc := range []struct {
		name      string
		a, b      RefKey
		same      bool
		url, file bool // of a
	}{
		{"path without case", PathKey("Common/S1.json"), PathKey("common/s1.json"), true, false, false},
		{"segment without case", SegmentKey("S1.json"), SegmentKey("s1.json"), true, false, false},
		{"URL with case", URLKey("https://example.com/A.json"), URLKey("https://example.com/a.json"), false, true, false},
		{"a path is not a segment", PathKey("s1.json"), SegmentKey("s1.json"), false, false, false},
		{"a URL is not a path", URLKey("s1.json"), PathKey("s1.json"), false, true, false},
		{"file: URL", URLKey("file:///catalog/s1.json"), URLKey("file:"), false, true, true},
		{"FILE: URL", URLKey("FILE:/catalog/s1.json"), "", false, true, true},
		{"a path named file:", PathKey("file:x"), "", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a == tc.b; got != tc.same {
				t.Errorf("%q == %q is %v, want %v", tc.a, tc.b, got, tc.same)
			}
			if got := tc.a.IsURL(); got != tc.url {
				t.Errorf("%q.IsURL() = %v, want %v", tc.a, got, tc.url)
			}
			if got := tc.a.IsFileURL(); got != tc.file {
				t.Errorf("%q.IsFileURL() = %v, want %v", tc.a, got, tc.file)
			}
		})
	}
}
