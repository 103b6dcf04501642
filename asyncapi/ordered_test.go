package asyncapi

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/evtool/evtool/report"
)

// Strings a YAML 1.1 parser would read as something else are quoted;
// ordinary strings stay plain.
func TestStrNodeQuotesYAML11Lookalikes(t *testing.T) {
	for _, tt := range []struct {
		s      string
		quoted bool
	}{
		{"yes", true}, {"No", true}, {"on", true}, {"OFF", true}, {"y", true}, {"=", true}, {"~", true}, {"<<", true},
		{"12:30", true}, {"1_000", true}, {"0x1F", true}, {"2001-12-14", true}, {"-.5", true}, {".inf", true}, {"1e3", false}, {"0o17", false}, {"0.5.0", false}, {"3.0.0", false},
		{"yesterday", false}, {"orders", false}, {"com.example.order.paid", false}, {"v1", false}, {"ord-00001", false},
	} {
		n := strNode(tt.s)
		if got := n.Style == yaml.DoubleQuotedStyle; got != tt.quoted {
			t.Errorf("%q: quoted %v, want %v", tt.s, got, tt.quoted)
		}
		out, err := yaml.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := yaml.Unmarshal(out, &back); err != nil || back != tt.s {
			t.Errorf("%q: round trip %q, %v", tt.s, back, err)
		}
	}
}

// TestEncodeInert: strings a terminal or a CI log would not show as they
// are (bidi and other format characters, a line that reads as a workflow
// command, also inside a multi-line description) come out escaped in
// YAML and JSON, and read back as themselves.
func TestEncodeInert(t *testing.T) {
	for _, s := range []string{
		"a\u202eb", "zero\u200bwidth", "tag\U000e0041", "x\u2066y\u2069",
		"first line\n::error file=x.go,line=1::pwned\nlast",
		"doc\n  ##[group]g\nend", "::warning::w",
	} {
		o := newObject()
		o.Set("k"+s, s)
		y, err := encodeYAML(o)
		if err != nil {
			t.Fatal(err)
		}
		j, err := encodeJSON(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, out := range [][]byte{y, j} {
			for i, line := range strings.Split(string(out), "\n") {
				if rest := strings.TrimLeft(line, " \t"); strings.HasPrefix(rest, "::") || strings.HasPrefix(rest, "##") {
					t.Errorf("%q: line %d reads as a CI command: %q", s, i+1, line)
				}
				if report.Escape(line) != line {
					t.Errorf("%q: line %d is not inert: %q", s, i+1, line)
				}
			}
		}
		var back map[string]string
		if err := yaml.Unmarshal(y, &back); err != nil || back["k"+s] != s {
			t.Errorf("%q: YAML reads back %q, %v\n%s", s, back, err, y)
		}
		back = nil
		if err := json.Unmarshal(j, &back); err != nil || back["k"+s] != s {
			t.Errorf("%q: JSON reads back %q, %v\n%s", s, back, err, j)
		}
	}
}
