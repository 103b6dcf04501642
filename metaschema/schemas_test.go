package metaschema

import "testing"

func TestCompile(t *testing.T) {
	for _, name := range []string{Config, Event, Scenario, Verify, Consumer} {
		if _, err := Compile(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Compile("nope.json"); err == nil {
		t.Error("missing meta-schema compiled")
	}
}
