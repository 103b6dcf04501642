package schemaregistry

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/evtool/evtool/internal/jsonvalue"
	"github.com/evtool/evtool/schemaregistry/internal/srtest"
	"github.com/evtool/evtool/schemaregistry/internal/wire"
)

// TestSubjectInlinesJSONReferences: a JSON Schema registered with
// Confluent schema references is read with them inlined by its format's
// provider, as the registry's draft (draft-07: definitions) reads it; a
// $ref no reference names is a problem of the version, not an error.
func TestSubjectInlinesJSONReferences(t *testing.T) {
	reg := srfake.New()
	defer reg.Close()
	cl := srtest.SRClient(t, reg.URL())
	register := func(subject, schema string, refs ...sr.SchemaReference) {
		t.Helper()
		if _, err := cl.RegisterSchema(ctx, subject, sr.Schema{Schema: schema, Type: sr.TypeJSON, References: refs}, -1, -1); err != nil {
			t.Fatal(err)
		}
	}
	register("common-money", `{"type":"object","properties":{"cents":{"type":"integer"}}}`)
	money := sr.SchemaReference{Name: "money.json", Subject: "common-money", Version: 1}
	register("com.example.order.placed", `{"type":"object","properties":{"total":{"$ref":"money.json"}}}`, money)
	register("com.example.order.paid", `{"type":"object","properties":{"total":{"$ref":"other.json"}}}`, money)

	c := MustNewClient(t, ClientOptions{URL: reg.URL()})
	placed, err := c.Subject(ctx, "com.example.order.placed")
	if err != nil {
		t.Fatal(err)
	}
	v := placed.Versions[0]
	want := `{"definitions":{"money":{"properties":{"cents":{"type":"integer"}},"type":"object"}},"properties":{"total":{"$ref":"#/definitions/money"}},"type":"object"}`
	if v.Problem != "" || !v.Bundled || string(jsonvalue.Canonical(v.Doc)) != want || v.Digest != jsonvalue.Digest(v.Doc) {
		t.Fatalf("placed: problem %q, bundled %v, doc %s", v.Problem, v.Bundled, jsonvalue.Canonical(v.Doc))
	}
	if refs := wire.ExternalRefs(v.Doc); len(refs) != 0 {
		t.Fatalf("external refs left: %v", refs)
	}
	paid, err := c.Subject(ctx, "com.example.order.paid")
	if err != nil {
		t.Fatal(err)
	}
	if p := paid.Versions[0].Problem; !strings.Contains(p, `cannot inline its schema references: at /properties/total/$ref: $ref "other.json" matches none of the schema's references`) {
		t.Fatalf("paid: problem %q", p)
	}
}
