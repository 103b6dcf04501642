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
