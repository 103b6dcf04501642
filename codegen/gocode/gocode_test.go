package gocode

import (
	"strings"
	"testing"
	"unicode"
)

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"orderId": "OrderID", "order_id": "OrderID", "HTTPServer": "HTTPServer", "sku": "Sku",
		"123abc": "X123abc", "名前": "X名前", "naïve": "Naïve", "type": "Type", "": "X", "a-b": "AB",
		"unitPrice": "UnitPrice", "v2Item": "V2Item", "URLs": "URLs",
	} {
		if got := ExportedName(in); got != want {
			t.Errorf("exportedName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"com.example.order.placed": "OrderPlaced", "x.y": "XY", "greeting": "Greeting", "com.example.greeting.sent": "GreetingSent"} {
		if got := TypeBaseName(in); got != want {
			t.Errorf("typeBaseName(%q) = %q, want %q", in, got, want)
		}
	}
	got := Disambiguate([]string{"id", "ID", "name", "validate"}, []string{"ID", "ID", "Name", "Validate"}, map[string]bool{"Validate": true})
	want := []string{"ID_id", "ID_ID", "Name", "Validate_validate"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("disambiguate: %v, want %v", got, want)
	}
}

func TestComment(t *testing.T) {
	c := Comment("a */ b\nc\r\nd\x00e\u2028f `g`")
	for _, line := range strings.Split(strings.TrimSuffix(c, "\n"), "\n") {
		if !strings.HasPrefix(line, "//") {
			t.Errorf("line %q is not a comment", line)
		}
	}
	if strings.ContainsAny(c, "\x00\r") {
		t.Errorf("control characters left in %q", c)
	}
	// Trojan Source: no bidi control or other invisible format character.
	bidi := Comment("access \u202eadmin\u202c \u2066x\u2069 \u2067y\u2068 \u202a\u202b\u202d \u200e\u200f\u061c \u200b \u0085")
	for _, r := range bidi {
		if r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r) {
			t.Errorf("comment keeps %U: %q", r, bidi)
		}
	}
}
