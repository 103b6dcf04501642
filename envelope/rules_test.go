package envelope

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evtool/evtool/report"
)

// required returns the four required attributes, valid, followed by extra.
func required(extra ...Attr) []Attr {
	return append([]Attr{
		{"specversion", "1.0"},
		{"id", "A234-1234-1234"},
		{"source", "/mycontext"},
		{"type", "com.example.someevent"},
	}, extra...)
}

// replaced returns the required attributes with name set to v.
func replaced(name string, v any) []Attr {
	attrs := required()
	for i := range attrs {
		if attrs[i].Name == name {
			attrs[i].Value = v
		}
	}
	return attrs
}

// ruleHits renders findings as "severity rule pointer" for comparison.
func ruleHits(fs []report.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.Rule, f.Pointer))
	}
	return out
}

// TestCheckAttributes has at least one failing and one passing case per
// rule; a rule that stops firing, or fires on valid input, fails a case.
func TestCheckAttributes(t *testing.T) {
	long := strings.Repeat("a", 21)
	tests := []struct {
		name  string
		attrs []Attr
		want  []string
	}{
		{"valid minimal", required(), nil},
		{"valid all attributes", required(
			Attr{"datacontenttype", "application/json; charset=utf-8"},
			Attr{"dataschema", "https://schemas.example.com/com.example.someevent/v1.json"},
			Attr{"subject", "order-17"},
			Attr{"time", "2018-04-05T17:31:00.123+02:00"},
		), nil},

		// ce-attribute-name
		{"name upper case", required(Attr{"orderId", "x"}), []string{"error ce-attribute-name /orderId"}},
		{"name with dash", required(Attr{"order-id", "x"}), []string{"error ce-attribute-name /order-id"}},
		{"name with underscore", required(Attr{"order_id", "x"}), []string{"error ce-attribute-name /order_id"}},
		{"name empty", required(Attr{"", "x"}), []string{"error ce-attribute-name /"}},
		{"name non-ascii", required(Attr{"ordré", "x"}), []string{"error ce-attribute-name /ordré"}},
		{"name digits and letters ok", required(Attr{"abc123", "x"}), nil},
		{"name checked when null", required(Attr{"Bad", nil}), []string{"error ce-attribute-name /Bad"}},

		// ce-attribute-name-length
		{"name 21 chars warns", required(Attr{long, "x"}), []string{"warning ce-attribute-name-length /" + long}},
		{"name 20 chars ok", required(Attr{long[:20], "x"}), nil},

		// ce-extension-name-reserved
		{"extension named data", required(Attr{"data", "x"}), []string{"error ce-extension-name-reserved /data"}},

		// ce-extension-value
		{"extension string", required(Attr{"ext", "v"}), nil},
		{"extension bool", required(Attr{"ext", true}), nil},
		{"extension integer", required(Attr{"ext", json.Number("42")}), nil},
		{"extension int32 min", required(Attr{"ext", json.Number("-2147483648")}), nil},
		{"extension int32 max", required(Attr{"ext", json.Number("2147483647")}), nil},
		{"extension whole float text", required(Attr{"ext", json.Number("3.0")}), nil},
		{"extension exponent", required(Attr{"ext", json.Number("3e2")}), nil},
		{"extension above int32", required(Attr{"ext", json.Number("2147483648")}), []string{"error ce-extension-value /ext"}},
		{"extension below int32", required(Attr{"ext", json.Number("-2147483649")}), []string{"error ce-extension-value /ext"}},
		{"extension fraction", required(Attr{"ext", json.Number("1.5")}), []string{"error ce-extension-value /ext"}},
		{"extension almost one", required(Attr{"ext", json.Number("0.99999999999999999999")}), []string{"error ce-extension-value /ext"}},
		{"extension object", required(Attr{"ext", map[string]any{}}), []string{"error ce-extension-value /ext"}},
		{"extension array", required(Attr{"ext", []any{}}), []string{"error ce-extension-value /ext"}},
		{"extension null is absent", required(Attr{"ext", nil}), nil},
		{"extension float64", required(Attr{"ext", 2.5}), []string{"error ce-extension-value /ext"}},
		{"extension int", required(Attr{"ext", 7}), nil},

		// ce-attribute-type
		{"id number", []Attr{{"specversion", "1.0"}, {"id", json.Number("1")}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-attribute-type /id"}},
		{"time number", required(Attr{"time", json.Number("1522900584")}), []string{"error ce-attribute-type /time"}},
		{"subject bool", required(Attr{"subject", true}), []string{"error ce-attribute-type /subject"}},

		// ce-required-attribute
		{"missing id", []Attr{{"specversion", "1.0"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-required-attribute /id"}},
		{"missing source", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"type", "t"}}, []string{"error ce-required-attribute /source"}},
		{"missing specversion", []Attr{{"id", "1"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-required-attribute /specversion"}},
		{"missing type", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", "/s"}}, []string{"error ce-required-attribute /type"}},
		{"null id is missing", []Attr{{"specversion", "1.0"}, {"id", nil}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-required-attribute /id"}},
		{"empty id", []Attr{{"specversion", "1.0"}, {"id", ""}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-required-attribute /id"}},
		{"empty type", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", "/s"}, {"type", ""}}, []string{"error ce-required-attribute /type"}},
		{"empty source", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", ""}, {"type", "t"}}, []string{"error ce-required-attribute /source"}},
		{"nothing", nil, []string{"error ce-required-attribute /id", "error ce-required-attribute /source", "error ce-required-attribute /specversion", "error ce-required-attribute /type"}},

		// ce-specversion
		{"specversion 0.3", []Attr{{"specversion", "0.3"}, {"id", "1"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-specversion /specversion"}},
		{"specversion 1", []Attr{{"specversion", "1"}, {"id", "1"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-specversion /specversion"}},
		{"specversion 1.0 with space", []Attr{{"specversion", "1.0 "}, {"id", "1"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-specversion /specversion"}},
		{"specversion number", []Attr{{"specversion", json.Number("1.0")}, {"id", "1"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-attribute-type /specversion"}},

		// ce-control-character
		{"newline in id", []Attr{{"specversion", "1.0"}, {"id", "a\nb"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-control-character /id"}},
		{"NUL in type", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", "/s"}, {"type", "t\x00"}}, []string{"error ce-control-character /type"}},
		{"DEL in subject", required(Attr{"subject", "a\x7f"}), []string{"error ce-control-character /subject"}},
		{"C1 control in extension", required(Attr{"ext", "a\u0085b"}), []string{"error ce-control-character /ext"}},
		{"noncharacter U+FDD0 in id", []Attr{{"specversion", "1.0"}, {"id", "a\ufdd0"}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-control-character /id"}},
		{"noncharacter U+FFFE in subject", required(Attr{"subject", "\ufffe"}), []string{"error ce-control-character /subject"}},
		{"noncharacter U+10FFFF in extension", required(Attr{"ext", "x\U0010ffff"}), []string{"error ce-control-character /ext"}},
		{"unpaired surrogate escape in id", []Attr{{"specversion", "1.0"}, {"id", loneSurrogateString{}}, {"source", "/s"}, {"type", "t"}}, []string{"error ce-control-character /id"}},
		{"paired surrogates and U+FFFD are characters", required(Attr{"subject", "\U0001F600\ufffd"}), nil},
		{"U+009F in extension", required(Attr{"ext", "\u009f"}), []string{"error ce-control-character /ext"}},
		{"U+00A0 is fine", required(Attr{"ext", "a\u00a0b"}), nil},
		{"tab in extension", required(Attr{"ext", "a\tb"}), []string{"error ce-control-character /ext"}},
		{"unicode text fine", required(Attr{"subject", "Bestellung für Zoë 🎉"}), nil},

		// ce-attribute-invalid-utf8 (header values are bytes)
		{"invalid utf8 value", required(Attr{"ext", "a\xffb"}), []string{"error ce-attribute-invalid-utf8 /ext"}},

		// ce-time
		{"time valid Z", required(Attr{"time", "2018-04-05T17:31:00Z"}), nil},
		{"time valid offset", required(Attr{"time", "2018-04-05T17:31:00-07:00"}), nil},
		{"time not a time", required(Attr{"time", "yesterday"}), []string{"error ce-time /time"}},
		{"time no zone", required(Attr{"time", "2018-04-05T17:31:00"}), []string{"error ce-time /time"}},
		{"time date only", required(Attr{"time", "2018-04-05"}), []string{"error ce-time /time"}},
		{"time one digit hour", required(Attr{"time", "2018-04-05T7:31:00Z"}), []string{"error ce-time /time"}},

		// ce-source
		{"source URL", replaced("source", "https://example.com/orders"), nil},
		{"source URN", replaced("source", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"), nil},
		{"source relative", replaced("source", "orders/eu"), nil},
		{"source with space", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", "/a b"}, {"type", "t"}}, []string{"error ce-source /source"}},
		{"source bad percent", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", "/a%zz"}, {"type", "t"}}, []string{"error ce-source /source"}},
		{"source bad host", []Attr{{"specversion", "1.0"}, {"id", "1"}, {"source", "http://[::1"}, {"type", "t"}}, []string{"error ce-source /source"}},

		// ce-dataschema
		{"dataschema absolute", required(Attr{"dataschema", "https://schemas.example.com/x/v1.json"}), nil},
		{"dataschema relative", required(Attr{"dataschema", "/schemas/x/v1.json"}), []string{"error ce-dataschema /dataschema"}},
		{"dataschema empty", required(Attr{"dataschema", ""}), []string{"error ce-dataschema /dataschema"}},
		{"dataschema with space", required(Attr{"dataschema", "https://x.example/a b"}), []string{"error ce-dataschema /dataschema"}},

		// ce-datacontenttype
		{"datacontenttype json", required(Attr{"datacontenttype", "application/json"}), nil},
		{"datacontenttype vendor json", required(Attr{"datacontenttype", "application/vnd.example+json"}), nil},
		{"datacontenttype no subtype", required(Attr{"datacontenttype", "json"}), []string{"error ce-datacontenttype /datacontenttype"}},
		{"datacontenttype empty", required(Attr{"datacontenttype", ""}), []string{"error ce-datacontenttype /datacontenttype"}},
		{"datacontenttype wildcard", required(Attr{"datacontenttype", "*/*"}), []string{"error ce-datacontenttype /datacontenttype"}},
		{"datacontenttype bad param", required(Attr{"datacontenttype", "text/plain; charset"}), []string{"error ce-datacontenttype /datacontenttype"}},
		{"datacontenttype leading space", required(Attr{"datacontenttype", " text/plain"}), []string{"error ce-datacontenttype /datacontenttype"}},

		// ce-subject
		{"subject empty", required(Attr{"subject", ""}), []string{"error ce-subject /subject"}},
		{"subject null is absent", required(Attr{"subject", nil}), nil},

		// ce-duplicate-attribute
		{"duplicate", required(Attr{"ext", "a"}, Attr{"ext", "b"}), []string{"error ce-duplicate-attribute /ext"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ruleHits(CheckAttributes(tt.attrs))
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CheckAttributes findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckAttributesMessages(t *testing.T) {
	fs := CheckAttributes(required(Attr{"orderId", "x"}, Attr{"time", "2018-04-05T17:31:00"}))
	want := []string{
		`attribute name "orderId" is invalid: CloudEvents attribute names use only lower-case letters a-z and digits 0-9 (try "orderid")`,
		`time "2018-04-05T17:31:00" is not an RFC 3339 timestamp like 2018-04-05T17:31:00Z: missing time zone: add Z or an offset like +02:00`,
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestCheckAttributesManyDuplicates(t *testing.T) {
	// Over 16 attributes a map finds duplicates; the result is the same.
	attrs := required()
	for i := 0; i < 40; i++ {
		attrs = append(attrs, Attr{fmt.Sprintf("x%d", i%20), "v"})
	}
	fs := CheckAttributes(attrs)
	if len(fs) != 20 {
		t.Fatalf("got %d findings, want 20 duplicates: %v", len(fs), ruleHits(fs))
	}
	for _, f := range fs {
		if f.Rule != RuleDuplicateAttribute {
			t.Errorf("unexpected %s", f.Rule)
		}
	}
}

func TestParseRFC3339(t *testing.T) {
	tests := []struct {
		in   string
		want string // UTC RFC3339Nano, or "" for an error
	}{
		{"2018-04-05T17:31:00Z", "2018-04-05T17:31:00Z"},
		{"2018-04-05t17:31:00z", "2018-04-05T17:31:00Z"},
		{"2018-04-05T17:31:00.5+02:00", "2018-04-05T15:31:00.5Z"},
		{"2018-04-05T17:31:00.123456789123Z", "2018-04-05T17:31:00.123456789Z"},
		{"2018-04-05T17:31:00-00:00", "2018-04-05T17:31:00Z"},
		{"2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"},
		{"2016-12-31T18:59:60-05:00", "2017-01-01T00:00:00Z"},
		{"2016-12-31T22:59:60Z", ""}, // leap second not at the end of a UTC day
		{"2018-04-05T17:31:00,5Z", ""},
		{"2018-04-05T17:31:00.Z", ""},
		{"2018-04-05T7:31:00Z", ""},
		{"2018-04-05T17:31Z", ""},
		{"2018-04-05 17:31:00Z", ""},
		{"2018-04-05T17:31:00+24:00", ""},
		{"2018-04-05T17:31:00+02:60", ""},
		{"2018-04-05T17:31:00+0200", ""},
		{"2018-02-30T17:31:00Z", ""},
		{"2018-13-05T17:31:00Z", ""},
		{"2018-04-05T25:31:00Z", ""},
		{"18-04-05T17:31:00Z", ""},
		{"2018-04-05T17:31:00ZZ", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := parseRFC3339(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("parseRFC3339(%q) = %v, want an error", tt.in, got)
		case tt.want != "" && err != nil:
			t.Errorf("parseRFC3339(%q): %v", tt.in, err)
		case tt.want != "" && got.UTC().Format(time.RFC3339Nano) != tt.want:
			t.Errorf("parseRFC3339(%q) = %s, want %s", tt.in, got.UTC().Format(time.RFC3339Nano), tt.want)
		}
	}
}

func TestWholeInt32(t *testing.T) {
	tests := []struct {
		in   string
		want int32
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"0.0", 0, true}, {"0e5", 0, true},
		{"12", 12, true}, {"-12", -12, true}, {"1.20e1", 12, true}, {"120e-1", 12, true},
		{"2147483647", 2147483647, true}, {"-2147483648", -2147483648, true},
		{"2147483648", 0, false}, {"-2147483649", 0, false},
		{"1.5", 0, false}, {"1e-1", 0, false}, {"1e10", 0, false}, {"1e999999999999", 0, false},
		{"0.99999999999999999999", 0, false}, {"21474836470e-1", 2147483647, true},
	}
	for _, tt := range tests {
		got, ok := wholeInt32(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("wholeInt32(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRuleIDsAreKebabCase(t *testing.T) {
	ids := []string{RuleJSONSyntax, RuleJSONUTF8, RuleJSONDepth, RuleJSONDuplicateKey, RuleNotObject,
		RuleAttributeName, RuleAttributeNameLength, RuleDuplicateAttribute, RuleReservedName, RuleExtensionValue,
		RuleAttributeType, RuleAttributeUTF8, RuleRequired, RuleSpecVersion, RuleControlCharacter, RuleTime,
		RuleSource, RuleDataSchema, RuleDataContentType, RuleSubject, RuleDataExclusive, RuleDataBase64,
		RuleDataType, RuleSDK}
	seen := map[string]bool{}
	for _, id := range ids {
		for _, part := range strings.Split(id, "-") {
			if part == "" || !checkName(part) {
				t.Errorf("rule id %q is not kebab-case", id)
			}
		}
		if seen[id] {
			t.Errorf("rule id %q used twice", id)
		}
		seen[id] = true
	}
	sort.Strings(ids)
}

// The URI cache gives what parsing gives, keeps failures out, and stops
// growing at lookupCacheMax.
func TestURICache(t *testing.T) {
	var c uriCache
	for _, s := range []string{"/orders-service", "https://shop.example.com/a?b=c#d", "urn:example:x", "bad uri", "%zz", "/orders-service"} {
		for range 2 {
			got, err := c.parse(s)
			want, wantErr := parseURIReference(s)
			if (err == nil) != (wantErr == nil) || (err == nil && got.String() != want.String()) {
				t.Fatalf("%q: cached %v %v, parsed %v %v", s, got, err, want, wantErr)
			}
		}
	}
	if n := c.n.Load(); n != 3 {
		t.Fatalf("%d entries cached, want the 3 valid ones", n)
	}
	for i := range lookupCacheMax + 10 {
		_, _ = c.parse(fmt.Sprintf("/s/%d", i))
	}
	if n := c.n.Load(); n != lookupCacheMax {
		t.Fatalf("%d entries cached, want at most %d", n, lookupCacheMax)
	}
	var nilCache *uriCache
	if u, err := nilCache.parse("/x"); err != nil || u.Path != "/x" {
		t.Fatalf("nil cache: %v %v", u, err)
	}
}
