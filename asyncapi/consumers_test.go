package asyncapi

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/consumers"
)

// Each consumer contract becomes a receive operation per type it reads,
// with the versions it decodes as messages; the document stays valid
// AsyncAPI 3.0.0.
func TestReceiveOperations(t *testing.T) {
	cat := load(t, "../examples/orders")
	var cs []*consumers.Contract
	for name, text := range map[string]string{
		"billing": "owner: team-billing\nreads:\n  com.example.order.placed:\n    versions: [1, 2]\n    fields: [/orderId, /total]\n  com.example.order.paid:\n    versions: [1]\n",
		// A name that spells a type's own operation key ends up beside it.
		"audit": "reads:\n  com.example.order.shipped:\n    versions: [1]\n  com.example.nope:\n    versions: [1]\n",
	} {
		c, err := consumers.Parse("consumers/"+name+".yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	doc, err := Build(cat, Options{Consumers: cs})
	if err != nil {
		t.Fatal(err)
	}
	js, err := doc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	v := decode(t, js)
	if err := spec(t).Validate(v); err != nil {
		t.Fatalf("not valid AsyncAPI 3.0.0:\n%v", err)
	}
	ops := v.(map[string]any)["operations"].(map[string]any)
	op, ok := ops["receive.billing.com.example.order.placed"].(map[string]any)
	if !ok {
		t.Fatalf("no receive operation for billing: %v", keys(ops))
	}
	if op["action"] != "receive" || op["x-owner"] != "team-billing" {
		t.Errorf("operation %v", op)
	}
	msgs := op["messages"].([]any)
	if len(msgs) != 2 || !strings.HasSuffix(msgs[1].(map[string]any)["$ref"].(string), "v2") {
		t.Errorf("messages %v, want v1 and v2", msgs)
	}
	if f := op["x-evtool-fields"].([]any); len(f) != 2 || f[1] != "/total" {
		t.Errorf("fields %v", f)
	}
	if _, ok := ops["receive.audit.com.example.order.shipped"]; !ok {
		t.Errorf("no receive operation for audit: %v", keys(ops))
	}
	if _, ok := ops["com.example.order.placed"]; !ok {
		t.Error("the type's send operation is gone")
	}
	n := 0
	for _, o := range ops {
		if o.(map[string]any)["action"] == "receive" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d receive operations, want 3 (an unknown type gets none)", n)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
