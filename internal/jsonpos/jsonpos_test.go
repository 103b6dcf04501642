package jsonpos

import "testing"

func TestFind(t *testing.T) {
	text := []byte(`{
  "a": {
    "b": [1,
      {"c~/d": true}]
  },
  "e": "x"
}`)
	tests := []struct {
		pointer   string
		line, col int
	}{
		{"", 1, 1},
		{"/a", 2, 8},
		{"/a/b", 3, 10},
		{"/a/b/0", 3, 11},
		{"/a/b/1", 4, 7},
		{"/a/b/1/c~0~1d", 4, 16},
		{"/e", 6, 8},
		{"/missing", 1, 1},
		{"/a/missing", 2, 8},
		{"#/e", 6, 8},
	}
	for _, tt := range tests {
		line, col := Find(text, tt.pointer)
		if line != tt.line || col != tt.col {
			t.Errorf("Find(%q) = %d:%d, want %d:%d", tt.pointer, line, col, tt.line, tt.col)
		}
	}
}

func TestSplitJoin(t *testing.T) {
	for _, p := range []string{"", "/a", "/a~1b/c~0d/0"} {
		if got := Join(Split(p)...); got != p {
			t.Errorf("Join(Split(%q)) = %q", p, got)
		}
	}
}

func TestLineCol(t *testing.T) {
	text := []byte("ab\ncé\nx")
	tests := []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {6, 2, 3}, {7, 3, 1}, {100, 3, 2}, {-1, 1, 1}}
	for _, tt := range tests {
		line, col := LineCol(text, tt.off)
		if line != tt.line || col != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

// TestIndexMatchesFind: the index answers every pointer as Find does.
func TestIndexMatchesFind(t *testing.T) {
	text := []byte("{\n  \"a\": {\"b\": [1,\n 2, {\"c~/\": true}]},\n  \"a\": 3,\n  \"d\": \"x\"\n}")
	ix := NewIndex(text)
	for _, p := range []string{"", "/a", "/a/b", "/a/b/0", "/a/b/1", "/a/b/2", "/a/b/2/c~0~1", "/a/b/9", "/d", "/d/x", "/nope", "#/a/b/1"} {
		l1, c1 := Find(text, p)
		l2, c2 := ix.Find(p)
		if l1 != l2 || c1 != c2 {
			t.Errorf("%q: index says %d:%d, Find says %d:%d", p, l2, c2, l1, c1)
		}
	}
}

// FuzzIndex: on any text the index never panics and agrees with Find.
func FuzzIndex(f *testing.F) {
	f.Add([]byte(`{"a": [1, {"b": null}], "c~1": "x"}`), "/a/1/b")
	f.Add([]byte(`[1, 2`), "/1")
	f.Add([]byte(`{"a": {"a": 1}, "a": {"b": 2}}`), "/a/a")
	f.Add([]byte(`{"a": {"a": 1}, "a": {"b": 2}}`), "/a/b")
	f.Fuzz(func(t *testing.T, text []byte, pointer string) {
		l1, c1 := Find(text, pointer)
		l2, c2 := NewIndex(text).Find(pointer)
		if l1 != l2 || c1 != c2 {
			t.Errorf("%q in %q: index says %d:%d, Find says %d:%d", pointer, text, l2, c2, l1, c1)
		}
	})
}

// TestGet: the value at a pointer of a decoded document, escaped tokens
// unescaped (~1 before ~0), and ok false where the pointer does not
// resolve.
func TestGet(t *testing.T) {
	doc := map[string]any{"a": map[string]any{"b": []any{1, map[string]any{"c~/d": true, "~1": "x"}}}, "": "empty"}
	for _, tt := range []struct {
		ptr  string
		want any
		ok   bool
	}{
		{"", doc, true},
		{"/a/b/0", 1, true},
		{"/a/b/1/c~0~1d", true, true},
		{"/a/b/1/~01", "x", true},
		{"#/a/b/0", 1, true},
		{"/", "empty", true},
		{"/a/b/2", nil, false},
		{"/a/b/-1", nil, false},
		{"/a/b/x", nil, false},
		{"/a/c", nil, false},
		{"/a/b/0/z", nil, false},
	} {
		got, ok := Get(doc, tt.ptr)
		if ok != tt.ok || ok && tt.ptr != "" && got != tt.want {
			t.Errorf("Get(%q) = %v, %v; want %v, %v", tt.ptr, got, ok, tt.want, tt.ok)
		}
	}
}
