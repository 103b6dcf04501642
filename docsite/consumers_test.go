package docsite

import (
	"regexp"
	"strings"
	"testing"

	"github.com/evtool/evtool/consumers"
)

func TestPathPointer(t *testing.T) {
	for path, want := range map[string]string{
		"orderId":                    "/orderId",
		"items[].unitPrice.currency": "/items/-/unitPrice/currency",
		"pair[0]":                    "/pair/0",
		"{oneOf 1}.kind":             "/kind",
		"a~b":                        "/a~0b",
		"tags.*":                     "",
		"meta[/^x-/]":                "",
	} {
		got, ok := pathPointer(path)
		if want == "" {
			if ok {
				t.Errorf("pathPointer(%q) = %q, want none", path, got)
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("pathPointer(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}

// A type's page lists its consumers; a version's field table says who
// reads each field with that version.
func TestConsumersOnPages(t *testing.T) {
	c, err := consumers.Parse("consumers/billing.yaml", []byte(
		"owner: team-<billing>\nreads:\n  com.example.order.placed:\n    versions: [2]\n    fields: [/orderId, /items/0/sku]\n"))
	if err != nil {
		t.Fatal(err)
	}
	site, err := Build(load(t, "../examples/orders"), Options{Consumers: []*consumers.Contract{c}})
	if err != nil {
		t.Fatal(err)
	}
	typePage := string(site.Files["types/com.example.order.placed/index.html"])
	for _, want := range []string{"<h2>Consumers</h2>", "<code>billing</code>", "team-&lt;billing&gt;", "<td>v2</td>", "<code>/items/0/sku</code>"} {
		if !strings.Contains(typePage, want) {
			t.Errorf("type page lacks %q", want)
		}
	}
	v2 := string(site.Files["types/com.example.order.placed/v2.html"])
	if !strings.Contains(v2, "<th>Read by</th>") {
		t.Fatal("v2's field table has no Read by column")
	}
	readBy := func(page, field string) string {
		re := regexp.MustCompile(`(?s)<span class="leaf">` + regexp.QuoteMeta(field) + `</span>.*?<td class="readby">(.*?)</td>`)
		m := re.FindStringSubmatch(page)
		if m == nil {
			return "(no row)"
		}
		return m[1]
	}
	if got := readBy(v2, "orderId"); got != "billing" {
		t.Errorf("orderId read by %q, want billing", got)
	}
	if got := readBy(v2, "customerId"); got != "" {
		t.Errorf("customerId read by %q, want nobody", got)
	}
	if v1 := string(site.Files["types/com.example.order.placed/v1.html"]); strings.Contains(v1, "Read by") {
		t.Error("v1, which billing does not decode, shows readers")
	}
}
