package chaos

import (
	"slices"
	"strings"
	"testing"
)

// TestUnknownSchemaIDKind: unknown-schema-id is accepted when listed but
// is not a default kind, so that default plans of existing seeds stay.
func TestUnknownSchemaIDKind(t *testing.T) {
	c, err := Config{Poison: &PoisonConfig{Rate: 0.1, Kinds: []PoisonKind{UnknownSchemaID, Undecodable}}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Poison.Kinds, []PoisonKind{UnknownSchemaID, Undecodable}) {
		t.Errorf("kinds %v", c.Poison.Kinds)
	}
	d, err := Config{Poison: &PoisonConfig{Rate: 0.1}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(d.Poison.Kinds, UnknownSchemaID) || len(d.Poison.Kinds) != 4 {
		t.Errorf("default kinds %v", d.Poison.Kinds)
	}
	if _, err := (Config{Poison: &PoisonConfig{Rate: 0.1, Kinds: []PoisonKind{"bogus"}}}).Normalize(); err == nil || !strings.Contains(err.Error(), "unknown-schema-id") {
		t.Errorf("bogus kind: %v", err)
	}
}
