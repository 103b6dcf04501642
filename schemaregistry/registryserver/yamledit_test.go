package registryserver

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func modeOf(t *testing.T, data []byte) string {
	t.Helper()
	var v struct {
		Compat struct {
			Mode string `yaml:"mode"`
		} `yaml:"compat"`
	}
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	return v.Compat.Mode
}

func TestSetCompatMode(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "compat:\n  mode: FULL\n"},
		{"no compat", "version: 1 # keep\n", "version: 1 # keep\ncompat:\n  mode: FULL\n"},
		{"no trailing newline", "version: 1", "version: 1\ncompat:\n  mode: FULL\n"},
		{"replace plain", "# head\ncompat:\n  mode: BACKWARD   # why\n  profile: strict\n", "# head\ncompat:\n  mode: FULL   # why\n  profile: strict\n"},
		{"replace quoted", "compat:\n  mode: \"BACKWARD\"\n", "compat:\n  mode: FULL\n"},
		{"replace single quoted", "compat:\n    mode: 'NONE'\n", "compat:\n    mode: FULL\n"},
		{"insert", "compat:\n    profile: strict # p\nversion: 1\n", "compat:\n    mode: FULL\n    profile: strict # p\nversion: 1\n"},
		{"flow", "compat: {profile: strict}\n", ""},
		{"empty compat", "compat: {}\n", ""},
		{"null compat", "compat:\nversion: 1\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := setCompatMode([]byte(c.in), "FULL")
			if err != nil {
				t.Fatal(err)
			}
			if c.want != "" && string(out) != c.want {
				t.Fatalf("got\n%s\nwant\n%s", out, c.want)
			}
			if modeOf(t, out) != "FULL" {
				t.Fatalf("mode not set:\n%s", out)
			}
		})
	}
}

func TestRemoveCompatMode(t *testing.T) {
	cases := []struct {
		name, in, want, old string
		empty               bool
	}{
		{"only mode", "topic: orders\ncompat:\n  mode: FULL\nowner: x\n", "topic: orders\nowner: x\n", "FULL", false},
		{"with profile", "compat:\n  profile: strict\n  mode: NONE # c\n", "compat:\n  profile: strict\n", "NONE", false},
		{"file becomes empty", "# comment\ncompat:\n  mode: FULL\n", "# comment\n", "FULL", true},
		{"none set", "topic: orders\n", "topic: orders\n", "", false},
		{"flow", "compat: {mode: FULL, profile: strict}\n", "", "FULL", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, old, empty, err := removeCompatMode([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if old != c.old || empty != c.empty {
				t.Fatalf("old %q empty %v", old, empty)
			}
			if c.want != "" && string(out) != c.want {
				t.Fatalf("got\n%s\nwant\n%s", out, c.want)
			}
			if !empty && modeOf(t, out) != "" {
				t.Fatalf("mode still set:\n%s", out)
			}
		})
	}
}
