package asyncapi

import (
	"testing"

	"go.yaml.in/yaml/v3"
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
