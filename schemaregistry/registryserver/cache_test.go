package registryserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/evtool/evtool/schemaregistry/internal/srtest"
)

// TestServeCompilesOnlyWhatChanged: serve loads the catalog before each
// write, and compiles only the schemas whose files (or the files they
// import) changed: a registration of one subject compiles its candidate,
// not the other types' versions; an edit made outside the server, to a
// version or to a file it imports, is compiled again and served.
func TestServeCompilesOnlyWhatChanged(t *testing.T) {
	dir := srtest.WriteCatalog(t, map[string]string{
		"evtool.yaml":                "version: 1\n",
		"schemas/common/c.proto":     "syntax = \"proto3\";\npackage common;\nmessage C {\n  string v = 1;\n}\n",
		"schemas/com.x.a/v1.proto":   "syntax = \"proto3\";\npackage a;\nimport \"common/c.proto\";\nmessage A {\n  common.C c = 1;\n}\n",
		"schemas/com.x.b/v1.proto":   "syntax = \"proto3\";\npackage b;\nmessage B {\n  string s = 1;\n}\n",
		"schemas/com.x.a/event.yaml": "compat: {mode: NONE}\n",
		"schemas/com.x.b/event.yaml": "compat: {mode: NONE}\n",
	})
	s, _ := startServer(t, ServerOptions{Dir: dir})
	var mu sync.Mutex
	var compiled []string
	s.store.cache.OnCompile = func(key string) {
		mu.Lock()
		defer mu.Unlock()
		compiled = append(compiled, key)
	}
	// files returns the files compiled since the last call.
	files := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, k := range compiled {
			for _, part := range strings.Split(k, "\x00") {
				if strings.HasSuffix(part, ".proto") && !slices.Contains(out, part) {
					out = append(out, part)
				}
			}
		}
		compiled = nil
		slices.Sort(out)
		return out
	}
	register := func(subject, text string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": text})
		if got := doHandler(t, s, "POST", "/subjects/"+subject+"/versions", string(body)); got.status != 200 {
			t.Fatalf("register %s: %d %s", subject, got.status, got.body)
		}
	}
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name string
		do   func()
		want []string
	}{
		{"a v2", func() {
			register("com.x.a", "syntax = \"proto3\";\npackage a;\nmessage A {\n  string n = 2;\n}\n")
		}, []string{"schemas/com.x.a/v2.proto"}},
		{"b v2", func() {
			register("com.x.b", "syntax = \"proto3\";\npackage b;\nmessage B {\n  string s = 1;\n  string t = 2;\n}\n")
		}, []string{"schemas/com.x.b/v2.proto"}},
		{"b v1 edited outside, then b v3", func() {
			write("schemas/com.x.b/v1.proto", "syntax = \"proto3\";\npackage b;\nmessage B {\n  string s = 1;\n  string edited = 7;\n}\n")
			register("com.x.b", "syntax = \"proto3\";\npackage b;\nmessage B {\n  string u = 3;\n}\n")
		}, []string{"schemas/com.x.b/v1.proto", "schemas/com.x.b/v3.proto"}},
		{"an import of a v1 edited outside, then a v3", func() {
			write("schemas/common/c.proto", "syntax = \"proto3\";\npackage common;\nmessage C {\n  string v = 1;\n  string w = 2;\n}\n")
			register("com.x.a", "syntax = \"proto3\";\npackage a;\nmessage A {\n  string m = 3;\n}\n")
		}, []string{"schemas/com.x.a/v1.proto", "schemas/com.x.a/v3.proto"}},
	} {
		step.do()
		if got := files(); !slices.Equal(got, step.want) {
			t.Errorf("%s: compiled %q, want %q", step.name, got, step.want)
		}
	}
	got := doHandler(t, s, "GET", "/subjects/com.x.b/versions/1/schema", "")
	if !strings.Contains(got.body, "edited = 7") {
		t.Errorf("the edited version is not served: %d %s", got.status, got.body)
	}
}

// BenchmarkRegisterBesideSlowSchema registers versions of a small subject
// in a catalog that also holds a Protobuf enum of 20,000 values (slow to
// compile), with the server's schema cache and without it.
func BenchmarkRegisterBesideSlowSchema(b *testing.B) {
	var enum strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&enum, "  V%d = %d;\n", i, i)
	}
	for _, cached := range []bool{true, false} {
		name := "cache"
		if !cached {
			name = "no-cache"
		}
		b.Run(name, func(b *testing.B) {
			dir := srtest.WriteCatalog(b, map[string]string{
				"evtool.yaml":                  "version: 1\n",
				"schemas/com.x.big/v1.proto":   "syntax = \"proto3\";\npackage big;\nenum E {\n" + enum.String() + "}\nmessage Big {\n  E e = 1;\n}\n",
				"schemas/com.x.b/v1.proto":     "syntax = \"proto3\";\npackage b;\nmessage B {\n  string s = 1;\n}\n",
				"schemas/com.x.b/event.yaml":   "compat: {mode: NONE}\n",
				"schemas/com.x.big/event.yaml": "compat: {mode: NONE}\n",
			})
			s, _ := startServer(b, ServerOptions{Dir: dir})
			if !cached {
				s.store.cache = nil
				s.store.current().cache = nil
			}
			b.ResetTimer()
			for i := range b.N {
				body, _ := json.Marshal(map[string]any{"schemaType": "PROTOBUF", "schema": fmt.Sprintf("syntax = \"proto3\";\npackage b;\nmessage B {\n  string f%d = %d;\n}\n", i, i+2)})
				if got := doHandler(b, s, "POST", "/subjects/com.x.b/versions", string(body)); got.status != 200 {
					b.Fatalf("register: %d %s", got.status, got.body)
				}
			}
		})
	}
}
